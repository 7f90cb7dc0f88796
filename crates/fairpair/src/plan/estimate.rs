//! The time estimate: how many runs each phase has and how long they should take, printed before anything runs and
//! used as the progress display's weights.

use super::{Plan, Scenario};
use crate::machine::procstat;
use crate::text::minutes;

/// Seconds the harness spends around each run (start, readiness, idle check, stop), for the estimate: 0.5 s measured
/// on the 2-vCPU Xeon VM (three closed-loop runs of 5 + 15 s, 20.5 s each; capacity windows of 1 + 4 s, 5.4-5.5 s
/// each). Half the idle wait's limit is added to each run beside it, for a machine that is not quiet.
pub const RUN_OVERHEAD_S: f64 = 0.5;
/// Seconds to verify one subject (three server starts, one per distinct `requires` of the cases, and 200-odd cases).
const VERIFY_S: f64 = 4.0;
/// Seconds one second of the warm-up probe takes: its load and the tool's own start and stop around it.
pub const PROBE_SECOND_S: f64 = 1.1;
/// Seconds a profiled run takes beyond its load: `perf` starting, `perf script` and the folding after it, the
/// JVM's symbol map; measured at 3 to 8 s on a busy 2-vCPU machine (Node's the longest).
pub const PROFILE_OVERHEAD_S: f64 = 5.0;
/// Discarded warm-up before each preflight calibration measurement.
pub const CALIBRATION_WARMUP_S: u64 = 1;

impl Plan {
    /// Prints what the plan will do and how long it should take (on stderr, before anything runs).
    pub fn announce(&self) {
        let plan = self;
        let e = plan.estimate();
        // A run's length is said only where there are runs (a `--capacity-only` plan has none).
        let each = match plan.load_runs() {
            0 => String::new(),
            _ => format!(" ({} s + {} s warm-up each)", plan.settings.duration_s, plan.settings.warmup_s),
        };
        let probe = match plan.warmup_probe_runs() {
            0 => String::new(),
            n => format!(", {n} warm-up probes ({} s each)", plan.settings.warmup_probe_s),
        };
        eprintln!(
            "fairpair: {}, {} load runs{each}, {} open-loop runs, {} memory runs{probe}{}",
            crate::text::count(plan.subjects.len() as u64, "subject"),
            plan.load_runs(),
            plan.open_loop_runs(),
            plan.memory_runs(),
            match plan.profiled_runs().len() {
                0 => String::new(),
                n => format!(", {n} profiled runs (apart from every figure)"),
            }
        );
        eprintln!(
            "fairpair: estimated {} (preflight {}, warm-up probe {}, load {}, open-loop {}, capacity search {}, memory \
             {}{})",
            minutes(e.total()),
            minutes(e.preflight),
            minutes(e.warmup_probe),
            minutes(e.load),
            minutes(e.open_loop),
            minutes(e.capacity),
            minutes(e.memory),
            if e.profile > 0.0 { format!(", profile {}", minutes(e.profile)) } else { String::new() }
        );
        // The probe may lengthen a subject's warm-up once it has run: the most that can add, per such subject.
        let most = |p: super::WarmupProbePlan| {
            let each = p.subjects.iter().map(|s| self.lengthened_warmup_seconds(&s.name, self.settings.warmup_probe_s));
            each.max_by(f64::total_cmp).unwrap_or(0.0)
        };
        if let Some(more) = plan.warmup_probe().map(most).filter(|&m| m > 0.0) {
            eprintln!(
                "fairpair: a probed subject still warming up after {} s gets a longer warm-up on its runs and capacity \
                 windows (at most the probe's {} s): up to {} more for each, said when the probe is over",
                plan.settings.warmup_s,
                plan.settings.warmup_probe_s,
                minutes(more)
            );
        }
        if let Some(c) = &plan.capacity {
            eprintln!(
                "fairpair: capacity at {} for {}: {} % resolution, {} s windows, up to {} a rate and {} a search",
                c.settings.objective,
                crate::text::count(c.searches(plan).len() as u64, "subject × scenario pair"),
                c.settings.resolution_percent,
                c.settings.step_s,
                c.settings.max_windows,
                c.settings.max_steps
            );
        }
        if let Some(note) = e.dominant_note() {
            eprintln!("fairpair: {note}");
        }
        if plan.open_loop_tool.is_none() && !plan.settings.open_loop_fractions.is_empty() {
            eprintln!(
                "fairpair: the open-loop phase will be skipped (neither oha nor autocannon is installed): not estimated"
            );
        }
        if plan.settings.pinned && !plan.server_host.is_local() {
            eprintln!(
                "fairpair: servers on CPU {} of the {}, load generator on CPU {} of this machine",
                procstat::format_cpu_list(&plan.settings.server_cpus),
                plan.server_host.label(),
                procstat::format_cpu_list(&plan.settings.loader_cpus)
            );
        } else if plan.settings.pinned {
            eprintln!(
                "fairpair: servers on CPU {}, load generator on CPU {}",
                procstat::format_cpu_list(&plan.settings.server_cpus),
                procstat::format_cpu_list(&plan.settings.loader_cpus)
            );
        }
        match plan.post_max_users() {
            _ if !plan.scenarios.iter().any(Scenario::writes) => {}
            Some(given) => eprintln!("fairpair: the store of POST runs is --max-users {given} (--post-max-users)"),
            None => eprintln!(
                "fairpair: the store of POST runs (--max-users) is sized in preflight from the POST rate measured there"
            ),
        }
        for s in &plan.skipped {
            eprintln!("fairpair: skipped: {s}");
        }
    }

    /// Number of closed-loop runs.
    pub fn load_runs(&self) -> usize {
        self.cells.iter().map(|c| c.subjects.len()).sum::<usize>() * self.settings.repeats as usize
    }

    /// Subjects that take part in the open-loop phase (those measured on `get` at the lowest connection count).
    pub fn open_loop_runs(&self) -> usize {
        if self.open_loop_tool.is_some() && self.open_loop_scenario().is_some() {
            self.subjects.len() * self.settings.open_loop_fractions.len()
        } else {
            0
        }
    }

    /// Memory runs start a fresh process each, so a running service (`--subject NAME=http://…`) has none.
    pub fn memory_runs(&self) -> usize {
        self.subjects.iter().filter(|s| s.started_by_harness()).count() * self.settings.memory_repeats as usize
    }

    /// The seconds a longer warm-up of `subject` (`warmup_s` seconds instead of the plan's) adds to the run: on each
    /// of its closed-loop and open-loop runs, and on each capacity window of its searches, at their cap of steps.
    pub fn lengthened_warmup_seconds(&self, subject: &str, warmup_s: u64) -> f64 {
        let Some(index) = self.subjects.iter().position(|s| s.name == subject) else { return 0.0 };
        let cells = self.cells.iter().filter(|c| c.subjects.contains(&index)).count();
        let open_loop = if self.open_loop_runs() > 0 { self.settings.open_loop_fractions.len() } else { 0 };
        let runs = cells * self.settings.repeats as usize + open_loop;
        let load = warmup_s.saturating_sub(self.settings.warmup_s) as f64 * runs as f64;
        let capacity = self.capacity.as_ref().map_or(0.0, |c| {
            let searches = c.searches(self).iter().filter(|(s, _)| s.name == subject).count();
            let more = warmup_s.saturating_sub(c.settings.warmup_s) as f64;
            more * (searches * c.settings.max_steps) as f64
        });
        load + capacity
    }

    /// Warm-up probes: one fresh process per probed subject.
    pub fn warmup_probe_runs(&self) -> usize {
        self.warmup_probe().map_or(0, |p| p.subjects.len())
    }

    /// Estimated seconds for each phase, and for one run of each (the progress display's weights).
    pub fn estimate(&self) -> Estimate {
        let idle = self.settings.idle_wait_max_s / 2.0;
        let verify = self.subjects.iter().filter(|s| s.implements_contract()).count() as f64 * VERIFY_S;
        let calibration = crate::run::preflight::planned_runs(self) as f64
            * ((CALIBRATION_WARMUP_S + self.calibration_s) as f64 + RUN_OVERHEAD_S);
        let per_run = PerRun {
            load: (self.settings.warmup_s + self.settings.duration_s) as f64 + RUN_OVERHEAD_S + idle,
            open_loop: (self.settings.warmup_s + self.settings.open_loop_duration_s) as f64 + RUN_OVERHEAD_S + idle,
            memory: self.settings.memory_duration_s as f64
                + self.settings.memory_settle_ms as f64 / 1000.0
                + RUN_OVERHEAD_S
                + idle,
            capacity_step: self.capacity.as_ref().map_or(0.0, |c| c.step_seconds()),
            warmup_probe: self.settings.warmup_probe_s as f64 * PROBE_SECOND_S + RUN_OVERHEAD_S + idle,
            profile: (self.settings.warmup_s + self.settings.duration_s) as f64
                + RUN_OVERHEAD_S
                + PROFILE_OVERHEAD_S
                + idle,
        };
        Estimate {
            preflight: verify + calibration,
            load: self.load_runs() as f64 * per_run.load,
            open_loop: self.open_loop_runs() as f64 * per_run.open_loop,
            memory: self.memory_runs() as f64 * per_run.memory,
            capacity: self.capacity.as_ref().map_or(0.0, |c| c.seconds(self, idle)),
            warmup_probe: self.warmup_probe_runs() as f64 * per_run.warmup_probe,
            profile: self.profiled_runs().len() as f64 * per_run.profile,
            per_run,
        }
    }

    /// The distinct (scenario, connections) cells of the plan: the loader's capacity depends on both (more
    /// connections cost it more per request; a POST sends a body).
    pub fn capacity_cells(&self) -> Vec<(&Scenario, u32)> {
        self.cells.iter().map(|c| (&self.scenarios[c.scenario], c.connections)).collect()
    }

    /// The first scenario that writes to the store (`post` by default), if the plan has one.
    pub fn writing_scenario(&self) -> Option<&Scenario> {
        self.cells.iter().map(|c| &self.scenarios[c.scenario]).find(|s| s.writes())
    }

    /// Indices of the subjects whose store a writing scenario fills.
    pub fn post_subjects(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for cell in self.cells.iter().filter(|c| self.scenarios[c.scenario].writes()) {
            for &i in &cell.subjects {
                if self.subjects[i].accepts_max_users() && !out.contains(&i) {
                    out.push(i);
                }
            }
        }
        out
    }

    pub fn estimate_total(&self) -> f64 {
        self.estimate().total()
    }
}

/// Estimated seconds per phase of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Verification and calibration.
    pub preflight: f64,
    pub load: f64,
    pub open_loop: f64,
    pub memory: f64,
    /// The capacity search (its steps, and the loader's open-loop limit).
    pub capacity: f64,
    /// The warm-up probes.
    pub warmup_probe: f64,
    /// The profiled runs (`--profile`).
    pub profile: f64,
    /// Seconds of one run of each phase: the phases above are these times their run counts, and the progress
    /// display advances by them, so that the bar and the printed estimate are one computation.
    pub per_run: PerRun,
}

/// Estimated seconds of one run of each phase, the harness's own time around it (start, idle wait, stop) included.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerRun {
    pub load: f64,
    pub open_loop: f64,
    pub memory: f64,
    /// One step of the capacity search.
    pub capacity_step: f64,
    /// One subject's warm-up probe.
    pub warmup_probe: f64,
    /// One profiled run.
    pub profile: f64,
}

impl Estimate {
    pub fn total(&self) -> f64 {
        self.preflight + self.load + self.open_loop + self.memory + self.capacity + self.warmup_probe + self.profile
    }

    /// When the measured load is under half of the estimate, which phase takes most of it and how to shorten it:
    /// `--duration 3` alone leaves the warm-up, open-loop and memory phases at their defaults, and they then make
    /// most of the time, which surprises.
    pub fn dominant_note(&self) -> Option<String> {
        let total = self.total();
        if total <= 0.0 || self.load >= total / 2.0 {
            return None;
        }
        let phases = [
            (self.preflight, "preflight (verification and calibration)", "it does not shrink with --duration"),
            (self.open_loop, "the open-loop phase", "--open-loop-duration N, or --open-loop-rates 0 to skip it"),
            (self.memory, "the memory phase", "--memory-repeats N and --memory-duration N, or --memory-repeats 0"),
            (self.capacity, "the capacity search", "--capacity-step N, --capacity-resolution PERCENT"),
            (self.warmup_probe, "the warm-up probe", "--warmup-probe N, or --warmup-probe 0 to skip it"),
            (self.profile, "the profile phase", "--duration N, or no --profile"),
        ];
        let (seconds, what, how) = phases.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
        // `--warmup` is the closed-loop runs' warm-up: worth naming only when there are such runs.
        let warmup = if self.load > 0.0 { "; --warmup N shortens each run's warm-up" } else { "" };
        Some(format!(
            "most of the estimate is not the measured load ({:.0} of {:.0} s): {what} takes {:.0} s ({how}){warmup}",
            self.load, total, seconds
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::plan;
    use super::*;
    use crate::plan::names::Tool;

    #[test]
    fn a_phase_without_its_tool_is_not_estimated() {
        let mut p = plan(&["--subjects", "rust,node", "--open-loop-rates", "0.5,0.8"]).unwrap();
        p.open_loop_tool = Some(Tool::Oha);
        assert_eq!(p.open_loop_runs(), 4);
        assert!(p.estimate().open_loop > 0.0);
        p.open_loop_tool = None;
        assert_eq!(p.open_loop_runs(), 0);
        assert_eq!(p.estimate().open_loop, 0.0);
    }

    #[test]
    fn a_short_duration_says_what_dominates_the_estimate() {
        let e = Estimate { preflight: 20.0, load: 60.0, open_loop: 100.0, memory: 150.0, ..Estimate::default() };
        let note = e.dominant_note().unwrap();
        assert!(note.starts_with("most of the estimate is not the measured load (60 of 330 s): the memory phase"));
        assert!(note.contains("--memory-repeats"), "{note}");
        let e = Estimate { preflight: 20.0, load: 600.0, open_loop: 100.0, memory: 150.0, ..Estimate::default() };
        assert_eq!(e.dominant_note(), None, "the load dominates: nothing to say");
        // As the issue found it: --duration 3 --repeats 1 --scenarios get, other phases at their defaults.
        let mut p =
            plan(&["--subjects", "rust,node", "--duration", "3", "--repeats", "1", "--scenarios", "get"]).unwrap();
        p.open_loop_tool = Some(Tool::Oha);
        assert!(p.estimate().dominant_note().is_some());
    }

    #[test]
    fn the_warm_up_probe_loads_get_at_the_first_count_on_every_subject_the_harness_starts() {
        let p = plan(&["--subjects", "rust,java,ceiling", "--connections", "300,50"]).unwrap();
        let probe = p.warmup_probe().unwrap();
        let names: Vec<&str> = probe.subjects.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            (probe.scenario.name.as_str(), probe.connections, names),
            ("get", 300, vec!["rust", "java", "ceiling"])
        );
        assert_eq!(p.settings.warmup_probe_s, 30);
        let e = p.estimate();
        assert_eq!(e.warmup_probe, 3.0 * e.per_run.warmup_probe);
        assert!(e.per_run.warmup_probe > 30.0 && e.total() > e.load + e.capacity + e.memory + e.preflight);
        // Without GET, the first scenario, on the subjects that serve it (the ceiling serves GET only).
        let p = plan(&["--subjects", "rust,ceiling", "--scenarios", "post", "--warmup-probe", "30"]).unwrap();
        let probe = p.warmup_probe().unwrap();
        assert_eq!((probe.scenario.name.as_str(), probe.subjects.len()), ("post", 1));
        // A running service has no fresh process to probe.
        let p = plan(&["--subjects", "rust,java", "--subject", "mine=http://127.0.0.1:8000/"]).unwrap();
        assert_eq!(p.subjects.len(), 3);
        let names: Vec<String> = p.warmup_probe().unwrap().subjects.iter().map(|s| s.name.clone()).collect();
        assert_eq!(names, ["rust", "java"]);
        // Without a JVM, off unless asked for.
        // A lengthened warm-up costs its extra seconds on each of the subject's runs and capacity windows.
        let p = plan(&["--subjects", "rust,java"]).unwrap();
        let steps = p.capacity.as_ref().unwrap().settings.max_steps as f64;
        assert_eq!(p.lengthened_warmup_seconds("java", 25), 20.0 * 12.0 + 24.0 * 2.0 * steps);
        assert_eq!((p.lengthened_warmup_seconds("java", 1), p.lengthened_warmup_seconds("go", 25)), (0.0, 0.0));
        assert!(plan(&["--subjects", "rust,node"]).unwrap().warmup_probe().is_none());
        // Off: with 0, under --quick, and with --capacity-only; on again when --quick is given a length.
        for words in [&["--warmup-probe", "0"][..], &["--quick"], &["--capacity-only"]] {
            let p = plan(words).unwrap();
            assert!(p.warmup_probe().is_none() && p.estimate().warmup_probe == 0.0, "{words:?}");
        }
        assert_eq!(plan(&["--quick", "--warmup-probe", "10"]).unwrap().warmup_probe_runs(), 3);
        for bad in ["1", "601"] {
            let err = plan(&["--warmup-probe", bad]).unwrap_err();
            assert!(err.downcast_ref::<crate::UsageError>().is_some(), "{bad}");
            assert_eq!(err.to_string(), "--warmup-probe: 0 (off) or 3 to 600 seconds");
        }
    }
}
