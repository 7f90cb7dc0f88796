//! fairpair: load two implementations of the same API identically, and report what differs.
//!
//! The harness behind `fairpair verify`, `fairpair run` and `fairpair report` (the CLI is `src/main.rs`). Data flows
//! one way through one module per stage:
//!
//! - `plan.rs` — the command line resolved into a [`plan::Plan`]: subjects, scenarios, pinning, phase lengths.
//! - `preflight.rs` — between the plan and the runs: verify every subject, then calibrate the plan to the machine
//!   (the loader's capacity, the POST rate that sizes the store); its record goes into `benchmark.json`.
//! - `verify.rs` — the contract's cases (crate `contract`) run against a server; subjects that fail are not measured.
//! - `subject.rs` — server processes: start, wait for the first 200, pin, stop the whole process group.
//! - `host.rs` — where they run: this machine, or a server host over OpenSSH (`--server-host`).
//! - `tools/` — the load tools (wrk, oha, autocannon) behind one trait, each recording its exact command.
//! - `procstat.rs` — CPU time and memory of process trees from `/proc`.
//! - `bench.rs` — executes the revised plan: load runs, open-loop runs, memory runs, then summaries and flags.
//! - `stats.rs` — median, min, max, coefficient of variation, and the noise verdict.
//! - `schema.rs` — the `benchmark.json` types (documented in `docs/benchmark-schema.md`); `env.rs` — the machine.
//! - `report.rs` + `charts.rs` — `benchmark.json` → `report.md` and SVG charts.
//! - `diagnose.rs` — known signatures in the figures (Nagle, a worker limit, a backlog), told as hypotheses.
//! - `compare.rs` — two `benchmark.json` files side by side (`fairpair report --compare OLD NEW`).
//!
//! Read `bench.rs` first for the method, then `tools/wrk.rs` for how a run is measured.

pub mod bench;
pub mod charts;
pub mod compare;
pub mod diagnose;
pub mod env;
pub mod host;
pub mod plan;
pub mod preflight;
pub mod presets;
pub mod procstat;
pub mod report;
pub mod schema;
pub mod stats;
pub mod subject;
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
