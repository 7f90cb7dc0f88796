//! fairpair: load implementations of the same API (Rust, Node, Go, Java, or your own) identically, and report what
//! differs.
//!
//! The harness behind `fairpair verify`, `fairpair run` and `fairpair report` (the CLI is `src/main.rs`). Data flows
//! one way, and each stage is a folder, in the order a run goes through them:
//!
//! - `plan/` — the command line (`args.rs`) and the machine's facts resolved into a [`plan::Plan`], before anything
//!   starts; `names.rs` holds the enums of the names a run is made of, `presets.rs` the published studies' methods.
//! - `run/` — preflight (verify every subject with `verify/`, the contract's cases run against a server; then
//!   calibrate the plan to the machine), the phases in order (`execute.rs`), the one run procedure (`measure.rs`),
//!   the disturbance rule and the console.
//! - `analyse/` — statistics, the summaries of the raw records, the warm-up reading and the diagnoses.
//! - `report/` — `benchmark.json` → `report.md` and `report.html`, its sections and SVG charts.
//!
//! After a run, on its file: `export/` (the headline figures as CSV and Bencher Metric Format) and `compare/` (two
//! runs side by side).
//!
//! Beside the stages: `capacity/` (the search for the highest rate under a latency objective: its plan, the search,
//! its phase in a run and its part of the report), `decision/` (the figures against the reader's own numbers),
//! `profile/` (where the CPU time goes), `subjects/` (the built-in servers, the runtimes that run them and the
//! server processes), `machine/` (this machine or a server host, `/proc`, running commands), `tools/` (the load tools
//! behind one trait), `schema/` (the `benchmark.json` types, documented in `docs/benchmark-schema.md`) and `text.rs`
//! (how numbers, durations and lists are written).
//!
//! Read `run/execute.rs` first for the method, then `run/measure.rs` and `tools/wrk.rs` for how a run is measured.

pub mod analyse;
pub mod capacity;
pub mod compare;
pub mod decision;
pub mod export;
pub mod machine;
pub mod plan;
pub mod profile;
pub mod report;
pub mod run;
pub mod schema;
pub mod subjects;
pub mod text;
pub mod tools;
pub mod verify;

/// An error caused by the user's input (a bad flag, a missing binary or tool): the CLI prints it on one line and
/// exits with status 2, as opposed to a failure during a run (status 1).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Builds a [`UsageError`] as an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}
