//! Where the time goes: the profiled runs (apart from the measured ones), and what their samples and runtime logs
//! say about each subject's CPU per request.
//!
//! - `parts.rs` — a folded stack's samples sorted into a few named parts that hold across stacks (kernel, HTTP,
//!   JSON, the application, memory management, the runtime, other), by one rule table per language
//!   (`rules/*.tsv`, data).
//! - `pauses.rs` — each runtime's own account of its pauses (Node's `--trace-gc`, Go's `gctrace`, the JVM's
//!   `-Xlog:gc`) and Node's event-loop delay, read for the profiled window only.
//! - `how.rs` — how each subject is started when profiled (flags, the frame-pointer build), and what that changes.
//! - `record.rs` — `perf`: the preflight check, one recording, `perf script`.
//! - `fold.rs` — the samples folded into stacks (`inferno`), bounded in size for the results folder.
//! - `flame.rs` — the flame graph of folded stacks (`inferno`).
//! - `run.rs` — one profiled run, from the server's start to its record.

pub mod flame;
pub mod fold;
pub mod how;
pub mod parts;
pub mod pauses;
pub mod record;
pub mod run;
