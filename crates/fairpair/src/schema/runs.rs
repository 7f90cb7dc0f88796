//! The raw record of each run, as `benchmark.json` keeps it: closed-loop load runs with the tool's command and
//! output, open-loop runs at a fixed rate, and memory runs.

use serde::{Deserialize, Serialize};

use super::NetworkBytes;
use crate::plan::names::Tool;

/// Latency percentiles of one run, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// `None` when the tool does not report it (ab's percentiles go in steps of 1 %, bombardier's stop at 99).
    pub p99_9_ms: Option<f64>,
    pub max_ms: f64,
    /// The mean, where the tool prints one that fairpair reads: bombardier only, whose study quoted its mean.
    /// `None` for the other tools, and in files written before the field existed.
    #[serde(default)]
    pub mean_ms: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadRun {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    /// 1-based repeat number.
    pub repeat: u32,
    pub tool: Tool,
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
    /// CPU time the hypervisor gave to other guests during the run (`steal` in `/proc/stat`), as a percentage of
    /// all online CPUs; `None` in version 1 files.
    #[serde(default)]
    pub steal_percent: Option<f64>,
    /// The accept backlog the server's listening socket really got (`ss -Hltn`, Send-Q), the smallest when it has
    /// several; `None` when unreadable or in version 1 files.
    #[serde(default)]
    pub listen_backlog: Option<u32>,
    /// Responses whose status the scenario does not expect (see `ExpectedStatus::unexpected`).
    #[serde(default)]
    pub unexpected_responses: u64,
    /// Why this run is not a throughput figure and was left out of the summaries (`None`: it is one).
    #[serde(default)]
    pub left_out: Option<String>,
    /// On two hosts: the bytes the loader's interface to the server host received and sent during the measured
    /// run, showing the load crossed the network. Absent on one host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkBytes>,
    /// On two hosts: CPU used during the run on the server host by everything but the server, as a share of all its
    /// online CPUs (its `/proc/stat`); `other_cpu_percent` is then the loader host's. Absent on one host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_host_other_cpu_percent: Option<f64>,
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
    pub tool: Tool,
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

/// One subject's warm-up probe: a fresh process loaded by back-to-back one-second runs of the closed-loop tool, and
/// what its per-second throughput says (`crate::analyse::warmup`). No throughput, latency or CPU figure counts it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WarmupProbe {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    /// The command of one second's run (every second's is the same).
    pub command: String,
    /// Requests per second of each one-second run, in order.
    pub per_second_rps: Vec<f64>,
    /// The median of the last third of `per_second_rps`.
    pub steady_rps: f64,
    /// Seconds of load until the throughput first stays within 5 % of `steady_rps` for the rest of the probe; `None`
    /// when it was not steady within the probe.
    pub seconds_to_steady: Option<u64>,
    /// Whether the machine was idle when the probe began, and the share of it other processes used during the probe
    /// (a busy machine's noise can keep a series from settling).
    pub machine_idle: bool,
    pub other_cpu_percent: f64,
    /// The warm-up this subject's closed-loop runs, open-loop runs and capacity windows had instead of the plan's,
    /// because its probe found it still warming up after the plan's (`None`: the plan's). Absent from files written
    /// before the probe lengthened a warm-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_s: Option<u64>,
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
