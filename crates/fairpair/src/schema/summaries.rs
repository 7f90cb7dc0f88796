//! What is computed from the runs (`analyse/summarise.rs` computes it): the median and spread of each cell, the memory
//! figures, and the flags raised on the way.

use serde::{Deserialize, Serialize};

use crate::analyse::stats::Stat;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    pub requests_per_sec: Stat,
    pub p50_ms: Stat,
    pub p90_ms: Stat,
    pub p99_ms: Stat,
    /// `None` when the load tool does not report p99.9 (see [`Latency`]).
    pub p99_9_ms: Option<Stat>,
    pub max_ms: Stat,
    /// The runs' mean latencies, where the tool gave one (see [`Latency`]'s `mean_ms`): bombardier only.
    #[serde(default)]
    pub mean_ms: Option<Stat>,
    pub server_cpu_us_per_request: Option<Stat>,
    pub loader_cpu_percent: Stat,
    pub loader_bound_runs: u32,
    pub errors: u64,
    pub non_2xx: u64,
    /// What the load tool can generate on its CPUs for this scenario and connection count, measured in preflight.
    #[serde(default)]
    pub loader_capacity_rps: Option<f64>,
    /// The median throughput as a percentage of `loader_capacity_rps`.
    #[serde(default)]
    pub loader_capacity_share_percent: Option<f64>,
    /// The share is above `Preflight::loader_limited_share_percent`: the figure may be the loader's, so ratios
    /// involving it are bounds.
    #[serde(default)]
    pub loader_limited: bool,
    /// The most steal time seen in a run of the cell, percent of the machine.
    #[serde(default)]
    pub steal_percent_max: Option<f64>,
    /// The listen backlog the subject's socket got (the smallest over the runs).
    #[serde(default)]
    pub listen_backlog: Option<u32>,
    /// Runs of the cell left out of these statistics (see `LoadRun::left_out`).
    #[serde(default)]
    pub left_out_runs: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemorySummary {
    pub subject: String,
    pub startup_ms: Stat,
    pub idle_rss_kib: Stat,
    pub idle_hwm_kib: Stat,
    pub idle_pss_kib: Stat,
    pub after_rss_kib: Stat,
    pub after_hwm_kib: Stat,
    pub after_pss_kib: Stat,
    pub processes: u32,
}

/// Something a reader must know before quoting a figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    pub kind: FlagKind,
    pub subject: String,
    pub scenario: Option<String>,
    pub connections: Option<u32>,
    pub message: String,
}

/// What a flag warns about (written in kebab-case: `loader-bound`, `non-2xx`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlagKind {
    /// A cell's throughput CV exceeds 5 %.
    Noisy,
    /// The load generator used ≥ 90 % of its CPUs in a run (the second signal beside `LoaderLimited`).
    LoaderBound,
    /// The throughput is above the measured share of the loader's capacity: ratios involving it are bounds.
    LoaderLimited,
    /// Socket errors or timeouts.
    Errors,
    /// Responses with an error status.
    #[serde(rename = "non-2xx")]
    Non2xx,
    /// A run answered statuses its scenario does not expect, and was rerun or left out.
    UnexpectedStatus,
    /// Other processes used more than 10 % of the machine.
    BusyMachine,
    /// The hypervisor took CPU time from this machine during a run.
    Steal,
    /// A subject failing the contract was measured.
    Unverified,
    /// An open-loop run achieved under 95 % of the asked rate.
    RateNotReached,
    /// A run could not be completed.
    FailedRun,
}

impl FlagKind {
    /// The name as written in `benchmark.json` and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            FlagKind::Noisy => "noisy",
            FlagKind::LoaderBound => "loader-bound",
            FlagKind::LoaderLimited => "loader-limited",
            FlagKind::Errors => "errors",
            FlagKind::Non2xx => "non-2xx",
            FlagKind::UnexpectedStatus => "unexpected-status",
            FlagKind::BusyMachine => "busy-machine",
            FlagKind::Steal => "steal",
            FlagKind::Unverified => "unverified",
            FlagKind::RateNotReached => "rate-not-reached",
            FlagKind::FailedRun => "failed-run",
        }
    }
}

impl std::fmt::Display for FlagKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
