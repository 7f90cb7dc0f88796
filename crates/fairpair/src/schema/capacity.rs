//! What `benchmark.json` records of the capacity search (`capacity/`, which defines how each is computed): the
//! objective, the search's settings, and every step of every search.

use serde::{Deserialize, Serialize};

use super::Latency;
use crate::plan::names::Tool;

/// A latency percentile an objective may bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Percentile {
    #[serde(rename = "p50")]
    P50,
    #[serde(rename = "p90")]
    P90,
    #[serde(rename = "p99")]
    P99,
    #[serde(rename = "p99.9")]
    P999,
}

/// One bound of the objective: `p99 ≤ 10 ms`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    pub percentile: Percentile,
    pub max_ms: f64,
}

/// The latency objective: every bound must hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Objective(pub Vec<Bound>);

/// What one step measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub achieved_rps: f64,
    pub requests: u64,
    /// Corrected latencies (from each request's scheduled start).
    pub latency: Latency,
    pub errors: u64,
    /// Responses with a status the scenario does not expect.
    pub unexpected: u64,
    /// Requests the tool dropped unanswered at its deadline (0 with oha `-w`, which waits for them).
    pub aborted: u64,
    /// The exact command of the measured part.
    pub command: String,
    /// Whether the machine was idle when the step began.
    pub machine_idle: bool,
    /// What disturbed the window, as far as the kernel's counters tell (`crate::run::disturbance`; `None` where they
    /// could not be read, as on a server host, and in files written before they were).
    #[serde(default)]
    pub disturbance: Option<Disturbance>,
    /// When the measured part began, in seconds since the Unix epoch (to line a window up with what else ran on the
    /// machine; `None` in files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_s: Option<f64>,
}

/// A window's disturbance figures, in milliseconds over the measured part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Disturbance {
    /// Time in which at least one task of the machine waited for a CPU (`/proc/pressure/cpu`, `some total`).
    pub cpu_stall_ms: f64,
    /// Time the subject's threads waited on a run queue, summed over them (`/proc/PID/task/*/schedstat`).
    pub subject_run_delay_ms: f64,
    /// The same of the loader's threads, read while it ran.
    pub loader_run_delay_ms: f64,
    /// The CPU time of every other process (all but the subject's, the loader and the harness; `ksoftirqd` aside)
    /// over the measured part, and in its busiest slice of 100 ms: what decides whether the window was disturbed
    /// (`None` in files written before they were read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_cpu_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_max_slice_ms: Option<f64>,
    /// Whether this window was disturbed and is run again: it counts in no verdict.
    #[serde(default)]
    pub rerun: bool,
}

/// One step of a search: the rate asked, what it measured, and the verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub rate_asked: f64,
    #[serde(flatten)]
    pub result: StepResult,
    /// Why it missed the objective; `None`: it met it.
    pub missed: Option<String>,
    /// Whether this step repeated the previous passing rate to confirm it (searches before the per-rate verdict:
    /// a rate's verdict now comes from its windows, with no separate repeat).
    pub repeat: bool,
    /// The verdict on the step's rate, on the window that settled it (`None` on the windows before it, and on every
    /// step of a file written before a rate was decided from several windows).
    #[serde(default)]
    pub verdict: Option<Verdict>,
}

/// What the windows at one rate say of it (`capacity/verdict.rs`): met or missed when the windows that met lead those
/// that missed (or trail them) by the search's margin, or by the majority once the windows a rate may take ran out;
/// undecided when they tie then, or when the search's cap of windows cut the rate short. (In files written before
/// the margin: by a Wilson interval of the share of met windows, undecided when it still straddled one half.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Met,
    Missed,
    Undecided,
}

/// What a search established about the capacity: `low`, the highest rate decided met (the capacity), and `high`, the
/// lowest rate above it decided missed (`None`: none was, as when the search reached its cap still climbing or only
/// undecided rates lie above).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bracket {
    pub low: f64,
    pub high: Option<f64>,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    /// The capacity: the highest rate decided met, with a rate not met within the resolution above it.
    /// `spread_percent`: how far apart the objective percentile of its windows was. `confirmed: false`: the search
    /// reached its cap of steps before its bracket closed (a bound, when no rate above it failed). In files written
    /// before a rate was decided by several windows: a rate that passed twice, `spread_percent` the change between
    /// the two, and `confirmed: false` a last passing rate below every failing one, never repeated.
    Found { rps: f64, spread_percent: f64, confirmed: bool },
    /// Every step failed, down to `lowest_rps`.
    NoRate { lowest_rps: f64 },
    /// A step could not be run.
    Failed { why: String },
}

/// One subject's search on one scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Search {
    pub subject: String,
    pub scenario: String,
    /// The rate no step exceeds, and where it came from (`closed-loop` median, or a `probe`).
    pub upper_rps: f64,
    pub upper_from: String,
    pub steps: Vec<Step>,
    pub outcome: Outcome,
    /// Whether the capacity is a lower bound, for a [`crate::capacity::BoundBy`] reason.
    #[serde(default)]
    pub bound: bool,
    /// The bracket the search established (`None` in files written before it was recorded: [`Search::bracket`]
    /// then reads it from the steps, each then a rate's whole verdict).
    ///
    /// [`Search::bracket`]: crate::schema::Search::bracket
    #[serde(default)]
    pub bracket: Option<Bracket>,
}

/// The search's knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    pub objective: Objective,
    /// Bisection stops when the failing rate is within this many percent above the passing one.
    pub resolution_percent: f64,
    pub step_s: u64,
    pub warmup_s: u64,
    pub connections: u32,
    /// No search runs more steps (windows) than this; one that reaches it reports the bracket it has. (Files written
    /// before the cap was a setting had a fixed 16.)
    #[serde(default = "sixteen")]
    pub max_steps: usize,
    /// The most windows (steps) one rate may take, after which their majority decides it (files written before a
    /// rate was decided from several windows: 1, each step its rate's verdict).
    #[serde(default = "one")]
    pub max_windows: usize,
    /// The lead by which a rate's met windows must outnumber its missed ones (or the missed the met) to decide it
    /// before `max_windows` (`capacity/verdict.rs`). `None` in files written before this rule, whose rates were
    /// decided by a Wilson interval of the share of met windows (and left undecided at `max_windows`).
    #[serde(default)]
    pub margin: Option<usize>,
    /// Whether the two ends of a closing bracket were decided again by a lead of one window more, up to two windows
    /// more (`capacity::confirming`); `false` in files written before they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confirm_ends: bool,
}

impl SearchSettings {
    /// Whether the steps had no warm-up (`--quick`): their figures are of a cold server, a JIT's before it warms.
    pub fn cold(&self) -> bool {
        self.warmup_s == 0
    }
}

fn sixteen() -> usize {
    16
}

fn one() -> usize {
    1
}

/// What `benchmark.json` records of the capacity phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapacityRecord {
    pub settings: SearchSettings,
    pub tool: Tool,
    /// The loader's own open-loop limit: the search against the `ceiling` (its capacity is the limit).
    pub loader_limit: Option<Search>,
    pub searches: Vec<Search>,
}
