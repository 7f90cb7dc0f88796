//! What the preflight stage measured before the runs: the loader's capacity, the POST rates, and how the store of
//! the POST runs was sized.

use serde::{Deserialize, Serialize};

/// What the preflight stage measured on this machine before the runs (see `preflight.rs`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Preflight {
    /// What the load tool can generate on the loader CPUs, per scenario and connection count.
    pub loader_capacity: Vec<LoaderCapacity>,
    /// A subject whose throughput is above this percentage of the loader's capacity is loader-limited.
    pub loader_limited_share_percent: f64,
    /// The POST rate of each subject, measured to size the store.
    pub post_calibration: Vec<PostCalibration>,
    /// How the store of the POST runs was chosen; `None` when the plan has no POST run.
    pub store: Option<StoreSizing>,
    /// Wall time of the whole preflight stage (verification included).
    pub duration_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoaderCapacity {
    pub scenario: String,
    pub connections: u32,
    /// The server loaded to measure it (`ceiling`, pinned to the server CPUs).
    pub target: String,
    pub command: String,
    /// Requests/s the loader can generate: `measured_rps` when the loader was saturated, otherwise
    /// `measured_rps` scaled to a full loader (`basis`).
    pub loader_capacity_rps: f64,
    pub measured_rps: f64,
    /// The tool's CPU use during the measurement, percent of its CPUs.
    pub loader_cpu_percent: f64,
    pub basis: CapacityBasis,
    /// Whether the machine was idle when the measurement began (after the bounded wait every run gets).
    pub machine_idle: bool,
}

/// How a loader capacity was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapacityBasis {
    /// The loader was saturated: the rate measured is its limit.
    Saturated,
    /// The target was the limit: the rate is scaled by the loader's idle CPU (requests per loader CPU-second × its
    /// CPUs), an underestimate of the capacity when anything, which makes the loader-limited test stricter.
    Extrapolated,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PostCalibration {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    pub command: String,
    pub duration_s: f64,
    pub requests_per_sec: f64,
    /// Responses with a status the scenario does not expect (none, with the store at its largest).
    pub unexpected_responses: u64,
    /// Resident memory the server grew by per stored user, when measurable.
    pub bytes_per_user: Option<f64>,
    /// The server's resident memory (summed over its processes, read on its host) when it was ready and after the
    /// load, which `bytes_per_user` is computed from; absent in files written before they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_before_kib: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_after_kib: Option<u64>,
    /// Whether the machine was idle when the calibration began.
    pub machine_idle: bool,
}

/// Store capacity limits of the servers (`--max-users`), the bounds of every [`StoreSizing`]. The size a POST run
/// uses is chosen in preflight, from the POST rate measured on this machine (`store::size_store`).
pub const MIN_MAX_USERS: u64 = 10_000;
pub const MAX_MAX_USERS: u64 = 16_777_216;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoreSizing {
    pub max_users: u64,
    /// The fastest calibrated subject and its POST rate, the rate the store is sized for.
    pub from_subject: String,
    pub from_rps: f64,
    /// Seconds of POST load one server process gets: warm-up + measured run.
    pub window_s: u64,
    /// Multiplier on the measured rate: room for a run faster than the short calibration.
    pub margin: f64,
    /// What decided the size last.
    pub limited_by: StoreLimit,
    /// The memory the store may use: half of `MemAvailable` at preflight, in KiB.
    pub memory_budget_kib: u64,
    /// The bytes per user assumed for the memory limit (the largest measured, at least a floor).
    pub bytes_per_user: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StoreLimit {
    /// The measured rate × window × margin.
    Rate,
    /// The servers' cap of 16,777,216.
    Cap,
    /// The machine's memory.
    Memory,
    /// Given on the command line (`--post-max-users`), not calibrated.
    Given,
}
