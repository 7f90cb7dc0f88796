//! The types of `benchmark.json`, the one file a run produces and a report reads.
//!
//! Everything a reader needs to check a figure is in it: the machine, every setting, the exact command of every load
//! run with the tool's raw output, and the summaries computed from them. Field meanings and units are documented in
//! `docs/benchmark-schema.md`; bump [`SCHEMA_VERSION`] on any change a reader of an older file would misread.
//! Units are in the field names (`_ms`, `_us`, `_kib`, `_s`, `_percent`) so the file explains itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stats::Stat;

/// Version of this layout. A report refuses files of another version rather than misreading them.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Benchmark {
    pub schema_version: u32,
    /// `fairpair X.Y.Z`.
    pub generator: String,
    pub environment: Environment,
    pub settings: Settings,
    pub subjects: Vec<SubjectRecord>,
    pub scenarios: Vec<ScenarioRecord>,
    /// What was planned but not measured, and why (one sentence each).
    pub skipped: Vec<String>,
    /// Closed-loop load runs (fixed connections, as fast as the server answers), in the order they ran.
    pub runs: Vec<LoadRun>,
    /// Open-loop runs at fixed request rates.
    pub open_loop: Vec<OpenLoopRun>,
    /// Memory and start-up runs, separate from the latency runs.
    pub memory: Vec<MemoryRun>,
    pub summaries: Vec<Summary>,
    pub memory_summaries: Vec<MemorySummary>,
    pub flags: Vec<Flag>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Environment {
    /// UTC, RFC 3339, when the run started.
    pub date: String,
    pub hostname: String,
    pub cpu_model: String,
    /// CPUs the kernel has online.
    pub cpus_online: usize,
    /// CPUs this process may run on (its affinity mask), the ones pinning chooses from.
    pub cpus_allowed: Vec<usize>,
    pub memory_total_kib: u64,
    pub kernel: String,
    pub os: String,
    pub rustc: String,
    pub node: String,
    /// Load tool name → its version line (or "not installed").
    pub tools: BTreeMap<String, String>,
    pub git_commit: String,
    /// Uncommitted changes in the work tree when the run started.
    pub git_dirty: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// Closed-loop load tool: `wrk`, `oha` or `autocannon`.
    pub tool: String,
    pub connections: Vec<u32>,
    pub duration_s: u64,
    pub warmup_s: u64,
    pub repeats: u32,
    pub quick: bool,
    /// Whether server and load generator were pinned to disjoint CPUs.
    pub pinned: bool,
    pub server_cpus: Vec<usize>,
    pub loader_cpus: Vec<usize>,
    /// Load-generator threads (wrk `-t`): one per loader CPU.
    pub loader_threads: u32,
    /// Before each run the harness waits up to this long for the machine's other CPU use to drop below
    /// `idle_threshold_percent` of the machine.
    pub idle_wait_max_s: f64,
    pub idle_threshold_percent: f64,
    /// `--max-users` given to every server process of a POST run (never reached: see docs).
    pub post_max_users: u64,
    /// Open-loop rates as fractions of the slowest subject's median GET throughput.
    pub open_loop_fractions: Vec<f64>,
    pub open_loop_duration_s: u64,
    pub open_loop_connections: u32,
    pub memory_repeats: u32,
    pub memory_connections: u32,
    pub memory_duration_s: u64,
    /// Idle settle time between readiness and the idle memory sample.
    pub memory_settle_ms: u64,
    pub allow_unverified: bool,
    /// The command line `fairpair` was started with.
    pub argv: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubjectRecord {
    pub name: String,
    /// `builtin` or `custom`.
    pub kind: String,
    /// The command that starts it; `{port}` stands for the port, `{max_users}` for the capacity when one is set.
    pub command: String,
    /// Worker count given (`--workers`), when the harness sets it.
    pub workers: Option<u32>,
    /// Fixed-response baseline measured on GET scenarios only.
    pub get_only: bool,
    pub verification: Verification,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verification {
    /// `passed`, `failed`, or `not-applicable` (the ceiling, which is not an implementation of the contract).
    pub status: String,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    /// The first mismatches, `case: expected …, got …`.
    pub failures: Vec<String>,
    /// Measured although verification failed (`--allow-unverified`).
    pub measured_unverified: bool,
    /// What was tolerated and why (e.g. read-backs across Node cluster workers, which have a store each).
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioRecord {
    pub name: String,
    pub method: String,
    pub path: String,
    /// Request body, sent with `Content-Type: application/json`.
    pub body: Option<String>,
    /// The wrk Lua script used for it, exactly as written to disk.
    pub wrk_script: Option<String>,
}

/// Latency percentiles of one run, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// `None` when the tool does not report it (ab's percentiles go in steps of 1 %, bombardier's stop at 99).
    pub p99_9_ms: Option<f64>,
    pub max_ms: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadRun {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    /// 1-based repeat number.
    pub repeat: u32,
    pub tool: String,
    /// The measured load command exactly as run (after the warm-up, which used the same command with `-d warmup_s`).
    pub command: String,
    /// The server command exactly as run.
    pub server_command: String,
    pub max_users: Option<u64>,
    /// Measured duration as the tool reports it.
    pub duration_s: f64,
    pub requests: u64,
    pub requests_per_sec: f64,
    pub latency: Latency,
    /// Socket errors and timeouts.
    pub errors: u64,
    /// Responses with a status the tool counts as failure (wrk: ≥ 400; oha and autocannon: not 2xx).
    pub non_2xx: u64,
    /// Server CPU time during the measured window, all its processes.
    pub server_cpu_ms: f64,
    /// `server_cpu_ms` per request, in microseconds.
    pub server_cpu_us_per_request: Option<f64>,
    /// Load generator CPU time over its wall time, as a percentage of the CPUs it was given.
    pub loader_cpu_percent: f64,
    /// `loader_cpu_percent` ≥ 90: the figure may be the tool's limit, not the server's.
    pub loader_bound: bool,
    /// CPU used by everything else on the machine during the run, as a percentage of all online CPUs.
    pub other_cpu_percent: f64,
    /// How long the harness waited for the machine to be idle, and whether it was when the run began.
    pub idle_wait_s: f64,
    pub machine_idle: bool,
    /// The tool's standard output, unparsed.
    pub raw_output: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpenLoopRun {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    pub fraction: f64,
    pub asked_rps: f64,
    pub achieved_rps: f64,
    pub tool: String,
    pub command: String,
    /// True when the tool corrects for coordinated omission (oha `--latency-correction`); autocannon does not.
    pub latency_corrected: bool,
    pub latency: Latency,
    pub errors: u64,
    pub non_2xx: u64,
    pub raw_output: String,
}

/// Memory of all processes of a subject (cluster workers included), summed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub rss_kib: u64,
    /// Peak resident set (`VmHWM`).
    pub hwm_kib: u64,
    /// Proportional set size (`smaps_rollup`), the fair sum when processes share pages; 0 when unreadable.
    pub pss_kib: u64,
    pub processes: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemoryRun {
    pub subject: String,
    pub repeat: u32,
    pub server_command: String,
    /// Spawn to the first 200 answer.
    pub startup_ms: f64,
    pub idle: Memory,
    pub after_load: Memory,
    pub load_command: String,
    pub load_requests_per_sec: f64,
}

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
    pub server_cpu_us_per_request: Option<Stat>,
    pub loader_cpu_percent: Stat,
    pub loader_bound_runs: u32,
    pub errors: u64,
    pub non_2xx: u64,
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
    /// `noisy`, `loader-bound`, `errors`, `non-2xx`, `unverified`, `busy-machine`, `rate-not-reached`.
    pub kind: String,
    pub subject: String,
    pub scenario: Option<String>,
    pub connections: Option<u32>,
    pub message: String,
}
