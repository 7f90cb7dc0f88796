//! The capacity search as planned (`--slo`, `--capacity-*`): which scenarios are searched, with what settings, and
//! how long it should take. `capacity/` runs it; this is what the plan decided, from the flags and the facts.

use anyhow::Result;

use crate::capacity::{CapacityRecord, Objective, SearchSettings, check_resolution, max_steps, verdict};
use crate::plan::args::RunArgs;
use crate::plan::names::{BuiltinScenario, Tool};
use crate::plan::{Plan, RUN_OVERHEAD_S, Scenario};
use crate::subjects::process::SubjectSpec;
use crate::usage;

/// The default width of a closed bracket: a rate decided met and one decided missed at most 5 % above it (the
/// geometric bisection from a bracket of 2 closes it at 4.4 %, after 9.1 % and 19 %).
pub const DEFAULT_RESOLUTION_PERCENT: f64 = 5.0;

/// Seconds the harness spends around one capacity window on a quiet machine (the idle check's 0.2 s, starting and
/// stopping a fresh server): 5.4-5.5 s a window of 1 s warm-up and 4 s measured, over 275 windows of five searches on
/// the 2-vCPU Xeon VM. Unlike the other runs' estimate ([`RUN_OVERHEAD_S`]), no allowance for a longer idle wait is
/// added: the estimate counts every search at its cap of windows, which a quiet search seldom reaches, and that is
/// its margin for a busier machine.
pub const WINDOW_OVERHEAD_S: f64 = 0.6;

/// What the plan decided about the capacity search.
#[derive(Clone, Debug)]
pub struct CapacityPlan {
    pub settings: SearchSettings,
    /// The scenarios searched: every scenario of the plan (`--quick`: GET only).
    pub scenarios: Vec<String>,
    /// `--capacity-only`: no closed-loop runs; each upper bound comes from a probe of `probe_s` seconds.
    pub only: bool,
    pub probe_s: u64,
    /// Whether the loader's open-loop limit is searched (not under `--quick`).
    pub loader_limit: bool,
}

/// The capacity search of a run, from its flags; `None` (with the reason in `skipped`) when it does not run.
pub fn plan(
    args: &RunArgs,
    scenarios: &[Scenario],
    connections: u32,
    oha_installed: bool,
    skipped: &mut Vec<String>,
) -> Result<Option<CapacityPlan>> {
    let objective = Objective::parse(&args.slo)?;
    let q = args.quick;
    let resolution_percent =
        check_resolution(args.capacity_resolution.unwrap_or(if q { 25.0 } else { DEFAULT_RESOLUTION_PERCENT }))?;
    // `--open-loop-rates` asks for the fixed-fraction open-loop phase instead (or, with 0, for no open-loop runs).
    if args.open_loop_rates.is_some() && args.slo.is_empty() && !args.capacity_only {
        return Ok(None);
    }
    if !oha_installed {
        let why = "oha is not installed (`scripts/setup-tools oha`: about ten minutes of compiling, once)";
        if args.capacity_only {
            return Err(usage(format!("--capacity-only needs oha: {why}")));
        }
        skipped.push(format!("capacity search: {why}, and it is the one open-loop tool that corrects latencies"));
        return Ok(None);
    }
    let names: Vec<String> = match q {
        true => scenarios.iter().filter(|s| s.builtin == Some(BuiltinScenario::Get)).map(|s| s.name.clone()).collect(),
        false => scenarios.iter().map(|s| s.name.clone()).collect(),
    };
    if q && names.len() < scenarios.len() {
        // A run that only searches would then measure nothing at all: a usage error, not an empty run.
        if args.capacity_only && names.is_empty() {
            return Err(usage("--capacity-only --quick searches GET only: add get to --scenarios, or drop --quick"));
        }
        skipped.push("capacity search: --quick searches GET only".into());
    }
    let step_s = args.capacity_step.unwrap_or(if q { 1 } else { 4 });
    if step_s == 0 {
        return Err(usage("--capacity-step must be at least 1 second"));
    }
    Ok(Some(CapacityPlan {
        settings: SearchSettings {
            objective,
            resolution_percent,
            step_s,
            warmup_s: if q { 0 } else { 1 },
            connections,
            max_steps: max_steps(resolution_percent, q),
            max_windows: verdict::max_windows(q),
            margin: Some(verdict::MARGIN),
            confirm_ends: true,
        },
        scenarios: names,
        only: args.capacity_only,
        probe_s: if q { 1 } else { 3 },
        loader_limit: !q,
    }))
}

impl CapacityPlan {
    /// The (subject, scenario) pairs searched, in order: scenario by scenario, every subject that serves it, except
    /// fixed-response baselines (the ceiling's search is the loader's limit).
    pub fn searches<'p>(&self, plan: &'p Plan) -> Vec<(&'p SubjectSpec, &'p Scenario)> {
        let mut out = Vec::new();
        for scenario in plan.scenarios.iter().filter(|s| self.scenarios.contains(&s.name)) {
            out.extend(plan.subjects.iter().filter(|s| !s.get_only).map(|s| (s, scenario)));
        }
        out
    }

    /// Estimated seconds of one step (a window), the harness's time around it included.
    pub fn step_seconds(&self) -> f64 {
        let s = &self.settings;
        (s.warmup_s + s.step_s) as f64 + WINDOW_OVERHEAD_S
    }

    /// Estimated seconds of the whole phase: the searches and the loader's limit, each at its cap of steps (so the
    /// estimate is an upper bound on the steps, however noisy the machine), plus a probe per search under
    /// `--capacity-only`.
    pub fn seconds(&self, plan: &Plan, idle: f64) -> f64 {
        let limit = self.loader_limit && plan.capacity_target.is_some();
        let searches = (self.searches(plan).len() + usize::from(limit)) as f64;
        let steps = self.settings.max_steps as f64;
        let probe = if self.only { self.probe_s as f64 + 1.0 + RUN_OVERHEAD_S + idle } else { 0.0 };
        searches * (steps * self.step_seconds() + probe)
    }

    /// An empty record of the phase.
    pub fn record(&self) -> CapacityRecord {
        CapacityRecord { settings: self.settings.clone(), tool: Tool::Oha, loader_limit: None, searches: Vec::new() }
    }
}
