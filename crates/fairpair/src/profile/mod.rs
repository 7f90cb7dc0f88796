//! Where the time goes: the profiled runs (apart from the measured ones), and what their samples and runtime logs
//! say about each subject's CPU per request.
//!
//! - `parts.rs` — a folded stack's samples sorted into a few named parts that hold across stacks (kernel, HTTP,
//!   JSON, the application, memory management, the runtime, other), by one rule table per language
//!   (`rules/{rust,javascript,go,java}.tsv`, data) and the rules they all share (`rules/shared.tsv`, whose header
//!   says how a table is read: the frame nearest a stack's leaf that a rule matches decides its part).
//! - `pauses.rs` — each runtime's own account of its pauses (Node's `--trace-gc`, Go's `gctrace`, the JVM's
//!   `-Xlog:gc`) and Node's event-loop delay, read for the profiled window only.
//! - `loop-delay.mjs` — the module the profiled Node server imports (`node --import`) to write its event-loop delay
//!   each second, to the file `FAIRPAIR_LOOP_DELAY_OUT` names suffixed with the process's PID.
//! - `how.rs` — how each subject is started when profiled (flags, the frame-pointer build), and what that changes.
//! - `record.rs` — `perf`: the preflight check, one recording, `perf script`.
//! - `fold.rs` — the samples folded into stacks (`inferno`), bounded in size for the results folder.
//! - `flame.rs` — the flame graph of folded stacks (`inferno`).
//! - `run.rs` — one profiled run, from the server's start to its record.
//!
//! The fixtures' stacks came from `perf record -e cpu-clock -F 999 -g -a` and `perf script --pid PIDS -F
//! comm,pid,tid,time,event,ip,sym,dso` (no `period`: the folded counts are then samples), folded by `inferno`'s
//! perf collapser with `annotate_kernel` and `annotate_jit` (`examples/collapse-perf.rs`);
//! `tests/fixtures/stacks/README.md` tells the rest (symbols for each language, the pitfalls).

pub mod flame;
pub mod fold;
pub mod how;
pub mod parts;
pub mod pauses;
pub mod record;
pub mod run;
