//! fairpair: load implementations of the same API (Rust, Node, Go, or your own) identically, and report what differs.
//!
//! The harness behind `fairpair verify`, `fairpair run` and `fairpair report` (the CLI is `src/main.rs`). Data flows
//! one way through one module per stage:
//!
//! - `args.rs` — the command line of `fairpair run`, as clap reads it.
//! - `plan/` — the command line and the machine's facts (gathered first) resolved into a [`plan::Plan`]: subjects,
//!   scenarios, pinning, phase lengths, and the time estimate.
//! - `preflight.rs` — between the plan and the runs: verify every subject, then calibrate the plan to the machine
//!   (the loader's capacity, the POST rate that sizes the store); its record goes into `benchmark.json`.
//! - `execute.rs` — runs the plan's phases in order (the loader's limit, the warm-up probe, load, open loop,
//!   capacity, memory) and collects the raw records;
//!   `console.rs` shows how far it is, and writes what the console says, weighted by the plan's estimate.
//! - `measure.rs` — the one run procedure (preflight's calibrations and every phase): a fresh subject, the load
//!   tool, `/proc` sampled around it; one record out. `store.rs` sizes the store of the POST runs.
//! - `summary.rs` — statistics and flags, pure functions of the raw records.
//! - `report/` + `charts.rs` — `benchmark.json` → one document of sections (`report/sections/`), rendered as
//!   `report.md` and a self-contained `report.html`, with SVG charts.
//!
//! Beside the stages: `verify.rs` (the contract's cases, crate `contract`, run against a server), `subject.rs` (server
//! processes: start, wait for the first 200, pin, stop the whole process group), `host.rs` (where they run: this
//! machine, or a server host over OpenSSH, `--server-host`; what is read about either), `tools/` (the load tools
//! behind one trait, each recording its exact command), `procstat.rs` (the `/proc` formats, parsed), `command.rs`
//! (running a program, quoting a command line),
//! `stats.rs` (median, min, max, coefficient of variation, the noise verdict), `schema/` (the `benchmark.json`
//! types, documented in `docs/benchmark-schema.md`), `env.rs` (the machine), `diagnose.rs` (known signatures in the
//! figures, told as hypotheses), `compare/` (two `benchmark.json` files side by side, as JSON, and
//! `gate.rs`: which of their differences fail `--fail-on-regression`), `export/` (the headline figures as CSV and Bencher Metric
//! Format), `text.rs` (how numbers, durations and lists of files are written),
//! `kinds.rs` (the enums of the names a run is made of: tools, built-in subjects and scenarios, presets, methods),
//! `presets.rs` (the published studies' methods and figures).
//!
//! Read `execute.rs` first for the method, then `measure.rs` and `tools/wrk.rs` for how a run is measured.

pub mod args;
pub mod builtins;
pub mod capacity;
pub mod capacity_phase;
pub mod charts;
pub mod command;
pub mod compare;
pub mod console;
pub mod decision;
pub mod diagnose;
pub mod disturbance;
pub mod env;
pub mod execute;
pub mod export;
pub mod host;
pub mod java;
pub mod kinds;
pub mod measure;
pub mod node;
pub mod plan;
pub mod preflight;
pub mod presets;
pub mod procstat;
pub mod profile;
pub mod report;
pub mod runtimes;
pub mod schema;
pub mod stats;
pub mod store;
pub mod subject;
pub mod summary;
pub mod text;
pub mod tools;
pub mod verify;
pub mod warmup;

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
