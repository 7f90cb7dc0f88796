//! Execute: runs the plan's phases in order (preflight, the loader's limit, the warm-up probe, closed-loop load, open
//! loop, capacity, memory) and collects what they produce into one [`Benchmark`], written to `benchmark.json` as the
//! records arrive: after every run, marked incomplete, and once more when it is over. `fairpair run` calls [`run`];
//! each run itself is `measure`'s job, the statistics and flags are `analyse::summarise`'s, what stderr shows is `console`'s.
//!
//! Fairness rules applied here, in one place: a fresh server process for every measured run; subjects alternated
//! run by run within a cell (A B A B …) so slow drift hits all of them; a bounded wait for an idle machine before
//! every run, with the CPU other processes used during the run recorded beside it; servers and load generator on
//! disjoint CPUs; the warm-up is a separate tool invocation whose figures are thrown away.
//!
//! A new phase goes here: a method beside [`Execution::load_phase`] that loops over the plan and calls `measure`,
//! with its run count and per-run time in the plan's estimate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::analyse::summarise::{apply_capacity, flag, flags, summarise, summarise_memory};
use crate::capacity::phase;
use crate::capacity::plan::CapacityPlan;
use crate::machine::{env, host};
use crate::plan::{Plan, Scenario};
use crate::run::console::{self, Phase, Progress};
use crate::run::measure::{self, RunSpec, Runner};
use crate::run::preflight;
use crate::schema::*;
use crate::subjects::process::{Origin, SubjectSpec};
use crate::tools::{self, LoadTool, Tool};

/// The state of one execution: the plan it follows, the measurer of its runs, the display, and the records so far.
struct Execution<'a> {
    plan: &'a Plan,
    runner: Runner<'a>,
    progress: Progress,
    bench: Benchmark,
    /// Whether writing the partial file failed once already (said once, not after every run).
    save_failed: bool,
}

/// Runs the plan: preflight, then the phases; `benchmark.json` in the plan's output directory is rewritten after every
/// run (marked incomplete) and once more at the end (complete). Returns the finished results.
pub fn run(plan: &Plan) -> Result<Benchmark> {
    let tool = plan.settings.tool.adapter();
    tools::require(tool.as_ref())?;
    if plan.settings.pinned && !tools::installed("taskset") {
        return Err(crate::usage("taskset (util-linux) not found: install util-linux, or pass --no-pin"));
    }
    std::fs::create_dir_all(&plan.out).with_context(|| format!("cannot create {}", plan.out.display()))?;
    plan.announce();
    // `--profile`: whether perf can profile here, said before anything runs; without it the run goes on unprofiled.
    let perf_unavailable = plan.profile.then(crate::profile::record::unavailable).flatten();
    if let Some(why) = &perf_unavailable {
        eprintln!("fairpair: --profile: no profiles in this run, {why}");
    }
    let (environment, path) = environments(plan)?;
    if let Some((p, _)) = &path {
        eprintln!("{}", console::two_hosts_line(p));
    }
    let mut progress = Progress::new(&plan.estimate());
    let (scripts, scenarios) = prepare_scripts(plan, tool.as_ref())?;

    // Preflight: verify, then calibrate; the runs read its calibration.
    let interface = path.as_ref().and_then(|(p, _)| p.interface.clone());
    let runner = Runner::new(plan, tool, scripts).with_interface(interface.clone());
    let stage = preflight::Stage { runner: &runner, say: &|m| progress.status(m) };
    let outcome = preflight::run(plan, &stage)?;
    // A subject that will not be measured leaves the plan here: no progress lines for runs that will not happen, and
    // an estimate of what is left without them.
    let measured = plan.only_measurable(&outcome.measurable);
    console::preflight(&outcome.record, &measured.estimate()).into_iter().for_each(|m| progress.println(m));
    progress.preflight_done(&measured.estimate());
    let preflight::Outcome { calibration, subjects, measurable: _, skipped, record } = outcome;
    if measured.subjects.len() < plan.subjects.len() {
        progress.replan(&measured);
    }
    let bench = Benchmark {
        schema_version: SCHEMA_VERSION,
        generator: format!("fairpair {}", env!("CARGO_PKG_VERSION")),
        complete: false,
        environment,
        settings: plan.settings.clone(),
        subjects,
        scenarios,
        skipped: plan.skipped.iter().cloned().chain(skipped).collect(),
        preflight: Some(record),
        runs: Vec::new(),
        open_loop: Vec::new(),
        memory: Vec::new(),
        summaries: Vec::new(),
        memory_summaries: Vec::new(),
        flags: Vec::new(),
        two_hosts: path.as_ref().map(|(p, _)| p.clone()),
        capacity: None,
        warmup_probes: Vec::new(),
        profiles: None,
    };
    let runner = runner.for_plan(&measured).calibrated(calibration);
    let mut ex = Execution { plan: &measured, runner, progress, bench, save_failed: false };
    ex.save();
    ex.loader_limit();
    ex.warmup_probe_phase();
    ex.load_phase();
    ex.bench.summaries = summarise(&ex.bench.runs);
    apply_capacity(&mut ex.bench.summaries, &ex.bench.runs, ex.bench.preflight.as_ref());
    ex.open_loop_phase();
    ex.capacity_phase();
    ex.memory_phase();
    ex.bench.memory_summaries = summarise_memory(&ex.bench.memory);
    ex.profile_phase(perf_unavailable);
    // Every flag is derived from the records, but a failed run's, which has no record: those were raised as they
    // happened and follow.
    let failed = std::mem::take(&mut ex.bench.flags);
    ex.bench.flags = flags(&ex.bench).into_iter().chain(failed).collect();
    if let (Some(record), Some((_, Some(at_start)))) = (ex.bench.two_hosts.as_mut(), &path) {
        let now = interface.as_deref().and_then(host::interface_bytes);
        record.interface_bytes = now.map(|b| host::bytes_since(*at_start, b));
    }
    // Interrupted during the last run (the load tool stopped with the signal): the handler ends the process with
    // status 130 once the servers are stopped; the run is not complete, and must not end as if it were.
    while crate::subjects::process::interrupted() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    ex.bench.complete = true;
    write_results(&ex.bench, &plan.out)?;
    ex.progress.finish();
    Ok(ex.bench)
}

/// On two hosts, the path record with the loader interface's byte counters at the start (`env::path_record`).
type PathRecord = Option<(TwoHosts, Option<NetworkBytes>)>;

/// This machine's environment; on two hosts also the server host's and the path to it, the round-trip time measured
/// now, before any load (with the interface's byte counters at this moment).
fn environments(plan: &Plan) -> Result<(Environment, PathRecord)> {
    // On one host the node subjects' Node is this machine's; on two, the server host's, recorded with its environment.
    let local_node = if plan.server_host.is_local() { plan.node.clone() } else { local_node() };
    let mut environment = env::capture(&host::Host::Local, ".", tool_versions(), &local_node)?;
    let mut path = env::path_record(&plan.server_host, &plan.node)?;
    // What the built-in servers run on, recorded in the environment of the host they run on.
    match path.as_mut() {
        Some((p, _)) => record_runtimes(plan, &mut p.server_environment),
        None => record_runtimes(plan, &mut environment),
    }
    Ok((environment, path))
}

/// The Node this machine would run the node subjects on (a two-host run's loader records it, though they run on the
/// server host).
fn local_node() -> crate::subjects::node::Node {
    crate::subjects::node::find(&crate::subjects::node::roots_of_this_executable())
}

/// Records what each built-in server of the plan runs on, as its entry's probe says (`builtins.rs`): the Go that
/// built the Go server (read from the binary itself), the JVM of the Java server and what it chose for each worker
/// count.
fn record_runtimes(plan: &Plan, environment: &mut Environment) {
    use crate::subjects::builtins::RuntimeProbe;
    for spec in &plan.subjects {
        let Origin::Builtin { subject, program, .. } = &spec.origin else { continue };
        let Some(first) = program.first() else { continue };
        match subject.server().runtime {
            RuntimeProbe::Nothing => {}
            RuntimeProbe::GoBuildInfo => environment.go = env::go_version(&plan.server_host, first),
            RuntimeProbe::Jvm => {
                let cpus = spec.workers.unwrap_or(1);
                env::jvm(&plan.server_host, first, cpus, &mut environment.java);
            }
        }
    }
}

/// Writes `benchmark.json` into `dir`: whole, to a temporary file beside it, then renamed over it, so that a reader
/// (or a run killed while writing) never sees half a file. Returns its path.
pub fn write_results(bench: &Benchmark, dir: &Path) -> Result<PathBuf> {
    let path = dir.join("benchmark.json");
    let temporary = dir.join(".benchmark.json.partial");
    let json = serde_json::to_string_pretty(bench)? + "\n";
    std::fs::write(&temporary, json).with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The results so far, as an interrupted run leaves them: marked incomplete, with the summaries of the runs
/// recorded up to now (the flags derived from them are left to the end, so that they are not counted twice).
pub fn partial(bench: &Benchmark) -> Benchmark {
    let mut partial = bench.clone();
    partial.complete = false;
    partial.summaries = summarise(&partial.runs);
    apply_capacity(&mut partial.summaries, &partial.runs, partial.preflight.as_ref());
    partial.memory_summaries = summarise_memory(&partial.memory);
    partial.flags = flags(&partial).into_iter().chain(bench.flags.iter().cloned()).collect();
    partial
}

/// Load tool name → version line, for the environment record.
fn tool_versions() -> BTreeMap<String, String> {
    let mut versions = BTreeMap::new();
    for &tool in Tool::ALL {
        let t = tool.adapter();
        let v = if t.available() { t.version() } else { "not installed".into() };
        versions.insert(tool.name().to_string(), v);
    }
    versions
}

/// Writes the tool's per-scenario files (wrk's Lua scripts) into the output directory, and the scenario records.
fn prepare_scripts(
    plan: &Plan,
    tool: &dyn LoadTool,
) -> Result<(BTreeMap<String, std::path::PathBuf>, Vec<ScenarioRecord>)> {
    let mut scripts = BTreeMap::new();
    let mut records = Vec::new();
    for s in &plan.scenarios {
        let spec = measure::load_spec(plan, s, "http://127.0.0.1:1", 1, 1, None);
        let written = tool.prepare(&plan.out, &s.name, &spec)?;
        if let Some((path, _)) = &written {
            scripts.insert(s.name.clone(), path.clone());
        }
        records.push(ScenarioRecord {
            name: s.name.clone(),
            method: s.method.to_string(),
            path: s.path.clone(),
            body: s.body.clone(),
            wrk_script: written.and_then(|(_, text)| text),
            expected_status: s.expected,
        });
    }
    // The memory phase loads GET even in a plan without a GET scenario: its script too.
    let memory = plan.memory_scenario();
    if !scripts.contains_key(&memory.name) {
        let spec = measure::load_spec(plan, &memory, "http://127.0.0.1:1", 1, 1, None);
        if let Some((path, _)) = tool.prepare(&plan.out, &memory.name, &spec)? {
            scripts.insert(memory.name.clone(), path);
        }
    }
    Ok((scripts, records))
}

/// What the open-loop phase runs: the GET scenario, at rates that are fractions of the slowest subject's throughput.
struct OpenLoopRates<'a> {
    scenario: &'a Scenario,
    slowest_name: String,
    /// (fraction, requests/s).
    rates: Vec<(f64, f64)>,
}

/// The plan's open-loop tool, when it can hold `rate`; otherwise why there is none.
fn open_loop_tool(plan: &Plan, rate: f64) -> std::result::Result<Box<dyn LoadTool>, String> {
    let tool = plan.open_loop_tool.ok_or("neither oha nor autocannon is installed")?.adapter();
    match tool.open_loop().and_then(|o| o.max_rate) {
        Some(max) if rate > max => {
            Err(format!("{} cannot hold {rate:.0} requests/s on one core (about {max:.0} at most)", tool.name()))
        }
        _ => Ok(tool),
    }
}

impl<'a> Execution<'a> {
    fn status(&self, message: String) {
        self.progress.status(message);
    }

    /// Writes the results so far (see [`partial`]). A failure does not stop the runs: it is said once, and the
    /// write at the end, which does stop the run, reports it again if it persists.
    fn save(&mut self) {
        if let Err(e) = write_results(&partial(&self.bench), &self.plan.out) {
            if !self.save_failed {
                self.progress.println(format!("cannot write the partial results: {e:#}"));
            }
            self.save_failed = true;
        }
    }

    /// A run that failed: said at once, and flagged in the results.
    fn failed(&mut self, spec: &SubjectSpec, scenario: Option<&Scenario>, connections: Option<u32>, e: anyhow::Error) {
        let message = format!("{}: a run failed: {e:#}", spec.name);
        self.progress.println(message.clone());
        self.bench.flags.push(flag(
            FlagKind::FailedRun,
            &spec.name,
            scenario.map(|s| s.name.as_str()),
            connections,
            message,
        ));
    }

    /// Closed-loop runs: cell by cell, repeats alternating the subjects.
    fn load_phase(&mut self) {
        let plan = self.plan;
        let total = plan.load_runs();
        let mut done = 0;
        for cell in &plan.cells {
            let scenario = &plan.scenarios[cell.scenario];
            for repeat in 1..=plan.settings.repeats {
                for &si in &cell.subjects {
                    done += 1;
                    let spec = &plan.subjects[si];
                    self.status(format!(
                        "run {done}/{total}: {} {} c={} #{repeat}",
                        spec.name, scenario.name, cell.connections
                    ));
                    let checked = self.runner.checked_run(spec, scenario, cell.connections, repeat);
                    for note in checked.notes {
                        self.progress.println(note);
                    }
                    // A rerun is a run more than the plan counted: the bar grows by it, so its estimate stays true.
                    self.progress.reran(Phase::Load, checked.runs.len().saturating_sub(1));
                    self.bench.runs.extend(checked.runs);
                    if let Some(e) = checked.error {
                        self.failed(spec, Some(scenario), Some(cell.connections), e);
                    }
                    self.save();
                    self.progress.ran(Phase::Load, 1);
                }
            }
        }
    }

    /// The loader's own open-loop limit, before the closed-loop runs: the capacity search against the ceiling, below
    /// the loader capacity preflight measured on GET (a probe when it has none).
    fn loader_limit(&mut self) {
        let plan = self.plan;
        let Some(cap) = &plan.capacity else { return };
        self.bench.capacity = Some(cap.record());
        let why = match (&plan.capacity_target, cap.loader_limit) {
            (_, false) => "--quick leaves it out (a full run measures it)",
            (None, true) => "the ceiling binary was not found (build it: cargo build --release -p ceiling)",
            (Some(target), true) => {
                let scenario = plan.memory_scenario();
                let upper = self.bench.preflight.as_ref().and_then(|p| {
                    let measured = p.loader_capacity.iter().filter(|c| c.scenario == scenario.name);
                    measured.map(|c| c.measured_rps).max_by(f64::total_cmp)
                });
                self.progress.println(
                    "preflight: the loader's open-loop limit (the capacity search against the ceiling)".into(),
                );
                let limit = self.search(cap, target, &scenario, upper);
                self.progress.println(format!("the loader's open-loop limit: {}", limit.figure()));
                self.bench.capacity.as_mut().expect("set above").loader_limit = Some(limit);
                self.save();
                return;
            }
        };
        self.bench.skipped.push(format!(
            "the loader's open-loop limit: not measured, so no capacity is printed as a bound of the loader: {why}"
        ));
    }

    /// One capacity search (see `capacity_phase`), each of its steps shown on the progress bar.
    fn search(&self, cap: &CapacityPlan, spec: &SubjectSpec, scenario: &Scenario, upper: Option<f64>) -> Search {
        let (status, stepped) = (|m| self.progress.status(m), || self.progress.ran(Phase::Capacity, 1));
        let searcher = phase::Searcher { cap, runner: &self.runner, status: &status, stepped: &stepped };
        searcher.search(spec, scenario, upper)
    }

    /// The capacity search of every subject on every scenario it serves (see `capacity/`).
    fn capacity_phase(&mut self) {
        let plan = self.plan;
        let Some(cap) = &plan.capacity else { return };
        for (spec, scenario) in cap.searches(plan) {
            let connections = cap.settings.connections;
            let summaries = &self.bench.summaries;
            let upper = phase::closed_loop_upper(summaries, &spec.name, &scenario.name, connections);
            // Without a closed-loop figure (its runs were left out, or failed) the search still runs: a short
            // closed-loop probe gives it an upper bound, as under --capacity-only, and the report says so.
            if upper.is_none() && !cap.only {
                self.bench.skipped.push(format!(
                    "capacity of {} on {}: no closed-loop throughput was measured to start below, so a closed-loop \
                     probe gave the search its upper bound",
                    spec.name, scenario.name
                ));
            }
            let search = self.search(cap, spec, scenario, upper);
            let record = self.bench.capacity.get_or_insert_with(|| cap.record());
            record.searches.push(search);
            record.mark_bounds();
            let s = record.searches.last().expect("pushed");
            // Above the rate the loader's own search missed the objective at, a rate met is the machine's noise.
            let figure = match record.unresolved(s) {
                Some(from) => format!(
                    "not a capacity: {} is above {}/s, where the loader's own search missed the objective",
                    s.figure(),
                    crate::text::thousands(from)
                ),
                None => s.figure(),
            };
            let line = format!(
                "capacity of {} on {} at {}: {figure} ({} windows)",
                s.subject,
                s.scenario,
                cap.settings.objective,
                s.steps.len()
            );
            self.progress.println(line);
            self.save();
        }
    }

    /// The warm-up probe, apart from every measured run: one fresh process per subject, its per-second throughput
    /// over `warmup_probe_s` seconds, and how long it took to be steady (`crate::analyse::warmup`). Before the closed-loop
    /// runs, so that the console says early whether their warm-up covers every subject.
    fn warmup_probe_phase(&mut self) {
        let plan = self.plan;
        let Some(probe) = plan.warmup_probe() else { return };
        let seconds = plan.settings.warmup_probe_s;
        for spec in probe.subjects {
            let (scenario, connections) = (probe.scenario, probe.connections);
            self.status(format!(
                "warm-up probe {} {} c={connections}: {seconds} one-second runs",
                spec.name, scenario.name
            ));
            let run = RunSpec {
                max_users: self.runner.probe_store(spec, scenario, seconds),
                ..self.runner.spec(spec, scenario, connections)
            };
            match self.runner.series(&run, seconds) {
                Ok(series) => {
                    let mut p = crate::analyse::warmup::probe_record(&spec.name, &scenario.name, connections, series);
                    self.progress.println(console::warmup_probe_line(&p, plan.settings.warmup_s));
                    p.warmup_s = crate::analyse::warmup::extended_warmup(&p, plan.settings.warmup_s);
                    if let Some(w) = p.warmup_s {
                        let more = plan.lengthened_warmup_seconds(&spec.name, w);
                        self.progress.println(console::warmup_lengthened_line(
                            &spec.name,
                            w,
                            plan.settings.warmup_s,
                            more,
                        ));
                        self.progress.lengthen(more);
                        self.runner.lengthen_warmup(&spec.name, w);
                    }
                    self.bench.warmup_probes.push(p);
                }
                Err(e) => self.failed(spec, Some(scenario), Some(connections), e.context("warm-up probe")),
            }
            self.save();
            self.progress.ran(Phase::WarmupProbe, 1);
        }
    }

    /// Memory, in runs of its own.
    fn memory_phase(&mut self) {
        let plan = self.plan;
        for spec in plan.subjects.iter().filter(|s| !s.started_by_harness()) {
            self.bench.skipped.push(format!(
                "{}: server CPU, memory and start-up not measured (a running service at {} that fairpair neither \
                 started nor pinned, so it cannot read all its processes)",
                spec.name,
                spec.command_template()
            ));
        }
        for repeat in 1..=plan.settings.memory_repeats {
            for spec in plan.subjects.iter().filter(|s| s.started_by_harness()) {
                self.status(format!("memory {} #{repeat}", spec.name));
                match self.runner.memory_run(spec, repeat) {
                    Ok(run) => self.bench.memory.push(run),
                    Err(e) => self.failed(spec, None, None, e),
                }
                self.save();
                self.progress.ran(Phase::Memory, 1);
            }
        }
    }

    /// The profiled runs (`--profile`), after every measured one: one per subject and scenario under `perf record`
    /// (`crate::profile::run`). Their records go into `profiles` only, never into a figure; a run that fails is
    /// said there, not flagged, since no figure is missing.
    fn profile_phase(&mut self, perf_unavailable: Option<String>) {
        let plan = self.plan;
        if !plan.profile {
            return;
        }
        let not_profiled = crate::profile::run::not_profiled(plan);
        let frequency_hz = crate::profile::record::FREQUENCY_HZ;
        let mut record = ProfileRecord { frequency_hz, not_profiled, runs: Vec::new() };
        let runs = plan.profiled_runs();
        if let (Some(why), false) = (&perf_unavailable, runs.is_empty()) {
            record.not_profiled.push(format!("no subject was profiled: {why}"));
            self.progress.ran(Phase::Profile, runs.len());
            self.bench.profiles = Some(record);
            return;
        }
        for run in &runs {
            let (name, scenario) = (&run.subject.name, &run.scenario.name);
            self.status(format!("profile {name} {scenario} c={}", run.connections));
            let measured = (self.bench.summaries.as_slice(), self.bench.runs.as_slice());
            match crate::profile::run::profile_run(&self.runner, run, measured, &plan.out) {
                Ok(p) => record.runs.push(p),
                Err(e) => {
                    let message = format!("{name} {scenario}: the profiled run failed: {e:#}");
                    self.progress.println(message.clone());
                    record.not_profiled.push(message);
                }
            }
            self.bench.profiles = Some(record.clone());
            self.save();
            self.progress.ran(Phase::Profile, 1);
        }
        self.bench.profiles = Some(record);
    }

    /// The rates of the open-loop phase, as (fraction, requests/s) of the slowest subject's median GET throughput
    /// at the phase's connection count, with its scenario and that subject's name; `None` (and the reason in
    /// `skipped`) when there is none.
    fn open_loop_rates(&mut self) -> Option<OpenLoopRates<'a>> {
        let plan = self.plan;
        let skipped = &mut self.bench.skipped;
        if plan.settings.open_loop_fractions.is_empty() {
            // The capacity search replaces the fixed fractions by default; with neither, say so.
            if plan.capacity.is_none() {
                skipped.push("open-loop runs: none (--open-loop-rates 0, or no oha for the capacity search)".into());
            }
            return None;
        }
        let Some(scenario) = plan.open_loop_scenario() else {
            skipped.push("open-loop phase: it runs on the get scenario, which is not in this plan".into());
            return None;
        };
        let connections = self.bench.settings.open_loop_connections;
        let slowest = self
            .bench
            .summaries
            .iter()
            .filter(|s| s.scenario == scenario.name && s.connections == connections)
            .map(|s| (s.requests_per_sec.median, s.subject.clone()))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((slowest_rps, slowest_name)) = slowest else {
            skipped.push("open-loop phase: no GET throughput was measured to derive the rates from".into());
            return None;
        };
        let rates =
            plan.settings.open_loop_fractions.iter().map(|&f| (f, (f * slowest_rps).round().max(1.0))).collect();
        Some(OpenLoopRates { scenario, slowest_name, rates })
    }

    fn open_loop_phase(&mut self) {
        let plan = self.plan;
        let Some(OpenLoopRates { scenario, slowest_name, rates }) = self.open_loop_rates() else { return };
        let connections = self.bench.settings.open_loop_connections;
        for (fraction, rate) in rates {
            let tool = match open_loop_tool(plan, rate) {
                Ok(tool) => tool,
                Err(why) => {
                    self.bench.skipped.push(format!(
                        "open-loop at {:.0} % of {slowest_name}'s GET throughput ({rate:.0} requests/s): {why}; \
                         install oha (`cargo install oha --locked`, scripts/setup-tools) for \
                         coordinated-omission-corrected latencies",
                        fraction * 100.0
                    ));
                    self.progress.ran(Phase::OpenLoop, plan.subjects.len());
                    continue;
                }
            };
            for spec in &plan.subjects {
                self.status(format!("open loop {} at {rate:.0}/s", spec.name));
                match self.runner.open_loop_run(tool.as_ref(), spec, scenario, connections, (fraction, rate)) {
                    Ok(run) => self.bench.open_loop.push(run),
                    Err(e) => self.failed(spec, Some(scenario), Some(connections), e),
                }
                self.save();
                self.progress.ran(Phase::OpenLoop, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden() -> Benchmark {
        serde_json::from_str(include_str!("../../tests/fixtures/golden/benchmark.json")).unwrap()
    }

    #[test]
    fn a_file_without_the_field_is_complete() {
        assert!(golden().complete, "files written before the field existed were written at the end");
    }

    #[test]
    fn the_partial_file_is_readable_marked_incomplete_and_summarised() {
        let dir = std::env::temp_dir().join(format!("fairpair-partial-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut bench = golden();
        bench.schema_version = SCHEMA_VERSION;
        bench.runs.truncate(2);
        bench.summaries.clear();
        let path = write_results(&partial(&bench), &dir).unwrap();
        let back: Benchmark = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(!back.complete);
        assert_eq!(back.runs.len(), 2);
        assert!(!back.summaries.is_empty(), "the runs so far are summarised");
        assert!(!dir.join(".benchmark.json.partial").exists(), "the temporary file is renamed, not left");
        let (md, _) = crate::report::render(&back);
        assert_eq!(md.lines().nth(2).map(|l| l.starts_with("> **INCOMPLETE**")), Some(true), "{md}");
        bench.complete = true;
        let (md, _) = crate::report::render(&bench);
        assert!(!md.contains("INCOMPLETE"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
