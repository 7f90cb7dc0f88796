//! The settings of a plan: the defaults a command line leaves open (a full run's and `--quick`'s), the settings
//! built from both, and the checks that refuse values which cannot mean anything.

use anyhow::Result;

use super::pinning::Pinning;
use crate::plan::args::RunArgs;
use crate::plan::names::Tool;
use crate::schema::Settings;
use crate::usage;

/// The shortest and longest warm-up probe `--warmup-probe` takes, in seconds.
const MIN_PROBE_S: u64 = 3;
const MAX_PROBE_S: u64 = 600;

/// The defaults of the settings a command line leaves open: a full run's, and `--quick`'s (see [`FULL`], [`QUICK`]).
pub(super) struct Defaults {
    pub(super) duration_s: u64,
    pub(super) warmup_s: u64,
    pub(super) repeats: u32,
    pub(super) idle_wait_s: f64,
    pub(super) open_loop_duration_s: u64,
    pub(super) memory_repeats: u32,
    pub(super) memory_duration_s: u64,
    pub(super) memory_settle_ms: u64,
    /// Seconds of each preflight calibration run (loader capacity, POST rate).
    pub(super) calibration_s: u64,
    pub(super) warmup_probe_s: u64,
}

pub(super) const FULL: Defaults = Defaults {
    duration_s: 15,
    warmup_s: 5,
    repeats: 3,
    idle_wait_s: 3.0,
    open_loop_duration_s: 10,
    memory_repeats: 3,
    memory_duration_s: 10,
    memory_settle_ms: 1000,
    calibration_s: 3,
    warmup_probe_s: 30,
};

/// The connections of the memory phase's load when neither the command line nor a preset gives them: the article's
/// after-load figure was taken after a 300-connection run.
const MEMORY_CONNECTIONS: u32 = 300;

/// `--quick`: a smoke test of the whole pipeline in under two minutes.
pub(super) const QUICK: Defaults = Defaults {
    duration_s: 2,
    warmup_s: 1,
    repeats: 1,
    idle_wait_s: 0.5,
    open_loop_duration_s: 2,
    memory_repeats: 1,
    memory_duration_s: 2,
    memory_settle_ms: 300,
    calibration_s: 1,
    // Off: half a minute per subject would double a smoke test that must stay under two minutes.
    warmup_probe_s: 0,
};

/// The settings of a plan, from the command line, the defaults it left open, and what the plan resolved (CPUs,
/// connections, rates). The tool, the baseline and `argv` are filled in by [`Plan::new`].
pub(super) fn settings(
    args: &RunArgs,
    d: &Defaults,
    pinning: Pinning,
    connections: Vec<u32>,
    open_loop_fractions: Vec<f64>,
) -> Settings {
    Settings {
        tool: Tool::Wrk,
        open_loop_connections: connections.iter().copied().min().unwrap_or(50),
        connections,
        duration_s: args.duration.unwrap_or(d.duration_s),
        warmup_s: args.warmup.unwrap_or(d.warmup_s),
        repeats: args.repeats.unwrap_or(d.repeats),
        quick: args.quick,
        pinned: pinning.pinned,
        server_cpus: pinning.server_cpus,
        loader_cpus: pinning.loader_cpus,
        loader_threads: pinning.loader_threads,
        idle_wait_max_s: args.idle_wait.unwrap_or(d.idle_wait_s).max(0.0),
        idle_threshold_percent: args.idle_threshold,
        post_max_users: args.post_max_users,
        open_loop_fractions,
        open_loop_duration_s: args.open_loop_duration.unwrap_or(d.open_loop_duration_s).max(1),
        memory_repeats: args.memory_repeats.unwrap_or(d.memory_repeats),
        memory_connections: args.memory_connections.unwrap_or(MEMORY_CONNECTIONS),
        memory_duration_s: args.memory_duration.unwrap_or(d.memory_duration_s).max(1),
        memory_settle_ms: d.memory_settle_ms,
        warmup_probe_s: args.warmup_probe.unwrap_or(d.warmup_probe_s),
        allow_unverified: args.allow_unverified,
        baseline: None,
        preset: args.preset,
        argv: Vec::new(),
    }
}

/// Values that cannot mean anything are refused rather than quietly raised, so that the report never describes a
/// run the user did not ask for. (Every default is valid: only what the command line gives is checked.)
pub(super) fn check_values(args: &RunArgs) -> Result<()> {
    crate::subjects::builtins::check_server_programs(args)?;
    if args.duration == Some(0) || args.repeats == Some(0) {
        return Err(usage("--duration and --repeats must be at least 1"));
    }
    if args.memory_connections == Some(0) || args.start_timeout == Some(0) {
        return Err(usage("--memory-connections and --start-timeout must be at least 1"));
    }
    if !(args.idle_threshold > 0.0 && args.idle_threshold <= 100.0) {
        return Err(usage(format!("--idle-threshold is a percentage of the machine: got {}", args.idle_threshold)));
    }
    // A probe of one or two seconds has no last third to read a steady throughput from.
    if args.warmup_probe.is_some_and(|s| s != 0 && !(MIN_PROBE_S..=MAX_PROBE_S).contains(&s)) {
        return Err(usage(format!("--warmup-probe: 0 (off) or {MIN_PROBE_S} to {MAX_PROBE_S} seconds")));
    }
    Ok(())
}
