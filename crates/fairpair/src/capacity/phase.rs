//! The capacity phase: the search of `capacity/` run for real, each step a run of the harness's one run
//! procedure ([`crate::run::measure::Runner::run`]: a fresh server, a warm-up, the measured load) with oha at a fixed rate
//! (`-q RATE --latency-correction -w --worker-threads N`).
//!
//! What it decides beyond the search itself:
//! - The upper bound of a subject's search is its median closed-loop throughput measured in the same run at the
//!   search's connection count (the highest at any count when that one was not run). Under `--capacity-only` there
//!   is none, so a short closed-loop probe with oha gives it.
//! - The loader's own open-loop limit is the same search against the `ceiling`, run before the closed-loop runs:
//!   the highest rate oha holds (achieved within 5 % of asked) with the ceiling's p99 under the objective. Under
//!   `--quick` it is not searched (there is no time for it), and no capacity is checked against it.
//! - A POST step stores `rate × (warm-up + step)` users: each step's fresh server gets a store sized for its own
//!   rate (with the store's margin), so a 507 never ends a step the server could have served.

use anyhow::Result;

use crate::capacity::plan::CapacityPlan;
use crate::capacity::{Outcome, Search, StepResult, search};
use crate::plan::Scenario;
use crate::plan::names::Tool;
use crate::run::measure::{RunSpec, Runner};
use crate::run::store_size::STORE_MARGIN;
use crate::schema::{MAX_MAX_USERS, MIN_MAX_USERS, Summary};
use crate::subjects::process::SubjectSpec;
use crate::tools::{self, LoadTool};

/// The store of a step's server: what `rate` for the warm-up and the step adds, with the preflight margin; `None`
/// when the scenario does not write or the server takes no `--max-users`.
pub fn step_store(spec: &SubjectSpec, scenario: &Scenario, rate: f64, seconds: u64) -> Option<u64> {
    (scenario.writes() && spec.accepts_max_users()).then(|| {
        let users = rate * seconds as f64 * STORE_MARGIN + MIN_MAX_USERS as f64;
        (users.ceil() as u64).clamp(MIN_MAX_USERS, MAX_MAX_USERS)
    })
}

/// Runs searches through the run procedure: `status` shows what it does, `stepped` is called after every step.
pub struct Searcher<'m, 'a> {
    pub cap: &'m CapacityPlan,
    pub runner: &'m Runner<'a>,
    pub status: &'m dyn Fn(String),
    pub stepped: &'m dyn Fn(),
}

impl Searcher<'_, '_> {
    /// One subject's search on one scenario, below `upper` (`None`: probe for it first).
    pub fn search(&self, spec: &SubjectSpec, scenario: &Scenario, upper: Option<f64>) -> Search {
        let tool = Tool::Oha.adapter();
        let (upper_rps, upper_from) = match upper {
            Some(u) => (u, "closed-loop".to_string()),
            None => match self.probe(tool.as_ref(), spec, scenario) {
                Ok(u) => (u, "probe".to_string()),
                Err(e) => return failed(spec, scenario, format!("the closed-loop probe failed: {e:#}")),
            },
        };
        let (steps, outcome) = search(upper_rps, &self.cap.settings, |rate| {
            (self.status)(format!("capacity {} {} at {}/s", spec.name, scenario.name, crate::text::thousands(rate)));
            let result = self.step(tool.as_ref(), spec, scenario, rate);
            (self.stepped)();
            result
        });
        Search {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            upper_rps,
            upper_from,
            steps,
            outcome,
            bound: false,
            bracket: None,
        }
        .with_bracket()
    }

    /// One step at `rate`: a run on a fresh server with a store sized for the rate.
    fn step(&self, tool: &dyn LoadTool, spec: &SubjectSpec, scenario: &Scenario, rate: f64) -> Result<StepResult> {
        let s = &self.cap.settings;
        // A subject whose warm-up probe lengthened its warm-up (a JIT) warms up as long before each window.
        let warmup_s = crate::analyse::warmup::capacity_warmup(self.runner.lengthened_warmup(&spec.name), s.warmup_s);
        let rec = self.runner.run(&RunSpec {
            tool,
            max_users: step_store(spec, scenario, rate, warmup_s + s.step_s),
            warmup_s,
            duration_s: s.step_s,
            rate: Some(rate),
            ..self.runner.spec(spec, scenario, s.connections)
        })?;
        let r = &rec.load.result;
        Ok(StepResult {
            achieved_rps: r.requests_per_sec,
            requests: r.requests,
            latency: r.latency.clone(),
            errors: r.errors,
            unexpected: scenario.expected.unexpected(r.requests, r.non_2xx),
            aborted: tools::oha::aborted(&rec.load.stdout),
            command: rec.load.command,
            machine_idle: rec.machine_idle,
            disturbance: rec.disturbance,
            started_unix_s: Some(rec.load_started_unix_s),
        })
    }

    /// A short closed-loop run with oha: the upper bound of a search when no closed-loop run measured one.
    fn probe(&self, tool: &dyn LoadTool, spec: &SubjectSpec, scenario: &Scenario) -> Result<f64> {
        (self.status)(format!("capacity {} {}: closed-loop probe", spec.name, scenario.name));
        let seconds = 1 + self.cap.probe_s;
        let rec = self.runner.run(&RunSpec {
            tool,
            max_users: step_store(spec, scenario, 100_000.0, seconds),
            warmup_s: 1,
            duration_s: self.cap.probe_s,
            ..self.runner.spec(spec, scenario, self.cap.settings.connections)
        })?;
        Ok(rec.load.result.requests_per_sec)
    }
}

fn failed(spec: &SubjectSpec, scenario: &Scenario, why: String) -> Search {
    Search {
        subject: spec.name.clone(),
        scenario: scenario.name.clone(),
        upper_rps: 0.0,
        upper_from: String::new(),
        steps: Vec::new(),
        outcome: Outcome::Failed { why },
        bound: false,
        bracket: None,
    }
}

/// The upper bound of a subject's search: its median closed-loop throughput at `connections`, or the highest at any
/// count when that one was not run.
pub fn closed_loop_upper(summaries: &[Summary], subject: &str, scenario: &str, connections: u32) -> Option<f64> {
    let of = |s: &&Summary| s.subject == subject && s.scenario == scenario;
    let at = summaries.iter().filter(of).find(|s| s.connections == connections);
    at.map(|s| s.requests_per_sec.median)
        .or_else(|| summaries.iter().filter(of).map(|s| s.requests_per_sec.median).max_by(f64::total_cmp))
}
