//! Running the plan: everything between `plan::Plan` and `benchmark.json`.
//!
//! - `preflight.rs` — verify every subject, then calibrate the plan to the machine (the loader's capacity, the POST
//!   rate that sizes the store); its record goes into `benchmark.json`.
//! - `execute.rs` — the plan's phases in order (the loader's limit, the warm-up probe, load, open loop, capacity,
//!   memory, and the profile with `--profile`), collecting the raw records.
//! - `measure.rs` — the one run procedure: a fresh subject, the load tool, `/proc` sampled around it; one record out.
//! - `store_size.rs` — how large a POST run's store is set, from the POST rate preflight measured.
//! - `disturbance.rs` — whether other processes took CPU during a fixed-rate window (a disturbed capacity window is
//!   run again); a closed-loop run on a busy machine is rerun by `measure.rs`'s own check.
//! - `console.rs` — what the console says while it runs, and how far it is, weighted by the plan's estimate.

pub mod console;
pub mod disturbance;
pub mod execute;
pub mod measure;
pub mod preflight;
pub mod store_size;
