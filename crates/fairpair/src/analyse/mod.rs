//! Analysis: pure functions of the raw records, so a report can be recomputed from `benchmark.json` alone.
//!
//! - `stats.rs` — median, min, max, coefficient of variation, the noise verdict.
//! - `summarise.rs` — the raw records of a run grouped into cells, with statistics and flags.
//! - `warmup.rs` — what the warm-up probe's windows say about when a subject settled.
//! - `diagnose.rs` — known signatures in the figures, told as hypotheses.

pub mod diagnose;
pub mod stats;
pub mod summarise;
pub mod warmup;
