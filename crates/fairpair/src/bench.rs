//! Executes a [`Plan`]: verification, closed-loop load runs, the open-loop phase and the memory phase, then the
//! summaries and flags. The result is one [`Benchmark`], written to `benchmark.json` by the caller.
//!
//! Fairness rules applied here, in one place: a fresh server process for every measured run; subjects alternated
//! run by run within a cell (A B A B …) so slow drift hits all of them; a bounded wait for an idle machine before
//! every run, with the CPU other processes used during the run recorded beside it; servers and load generator on
//! disjoint CPUs; the warm-up is a separate tool invocation whose figures are thrown away.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::plan::{Plan, Scenario};
use crate::schema::*;
use crate::stats::Stat;
use crate::subject::{self, SubjectSpec};
use crate::tools::{self, LoadSpec, LoadTool};
use crate::{env, host, preflight, procstat};

/// A run uses "≥ 90 % of the loader's CPUs": its figures may be the tool's limit.
pub const LOADER_BOUND_PERCENT: f64 = 90.0;
/// Coefficient of variation above which a cell is flagged noisy.
pub const NOISY_CV: f64 = 0.05;
/// Other processes' CPU (percent of the machine) above which a run is flagged as measured on a busy machine.
pub const BUSY_PERCENT: f64 = 10.0;
/// Steal time (percent of the machine) above which a cell is flagged: a neighbour on the host took CPU time.
pub const STEAL_PERCENT: f64 = 1.0;

struct Ctx<'a> {
    plan: &'a Plan,
    /// The store of the POST runs: the plan's, raised for the rest of the run when a run needed a larger one (the
    /// machine got faster than in preflight), so that later runs do not fill it again.
    post_max_users: Option<u64>,
    tool: Box<dyn LoadTool>,
    progress: Progress,
    hz: f64,
    scripts: BTreeMap<String, std::path::PathBuf>,
    /// On two hosts, the loader's interface to the server host: each run records its byte counters.
    interface: Option<String>,
}

/// The progress bar, or plain lines when stderr is not a terminal.
struct Progress {
    bar: ProgressBar,
    /// Whether stderr is a terminal. indicatif draws nothing otherwise, so a run logged to a file or a CI job would
    /// show no progress at all; then each step is printed as a line instead.
    tty: bool,
}

/// Prints what the plan will do and how long it should take (on stderr, before anything runs).
pub fn announce(plan: &Plan) {
    let e = plan.estimate();
    eprintln!(
        "fairpair: {} subjects, {} load runs ({} s + {} s warm-up each), {} open-loop runs, {} memory runs",
        plan.subjects.len(),
        plan.load_runs(),
        plan.duration_s,
        plan.warmup_s,
        plan.open_loop_runs(),
        plan.memory_runs()
    );
    eprintln!(
        "fairpair: estimated {} (preflight {}, load {}, open-loop {}, memory {})",
        minutes(e.total()),
        minutes(e.preflight),
        minutes(e.load),
        minutes(e.open_loop),
        minutes(e.memory)
    );
    if let Some(note) = e.dominant_note() {
        eprintln!("fairpair: {note}");
    }
    if !plan.open_loop_tool && !plan.open_loop_fractions.is_empty() {
        eprintln!(
            "fairpair: the open-loop phase will be skipped (neither oha nor autocannon is installed): not estimated"
        );
    }
    if plan.pinned && !plan.server_host.is_local() {
        eprintln!(
            "fairpair: servers on CPU {} of the {}, load generator on CPU {} of this machine",
            procstat::format_cpu_list(&plan.server_cpus),
            plan.server_host.label(),
            procstat::format_cpu_list(&plan.loader_cpus)
        );
    } else if plan.pinned {
        eprintln!(
            "fairpair: servers on CPU {}, load generator on CPU {}",
            procstat::format_cpu_list(&plan.server_cpus),
            procstat::format_cpu_list(&plan.loader_cpus)
        );
    }
    match plan.post_max_users {
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

pub fn run(plan: &Plan, argv: Vec<String>) -> Result<Benchmark> {
    let tool = tools::by_name(&plan.tool).expect("checked by the plan");
    tools::require(tool.as_ref())?;
    if plan.pinned && !tools::installed("taskset") {
        return Err(crate::usage("taskset (util-linux) not found: install util-linux, or pass --no-pin"));
    }
    std::fs::create_dir_all(&plan.out).with_context(|| format!("cannot create {}", plan.out.display()))?;
    announce(plan);
    let environment = env::capture(tool_versions());
    // On two hosts: the server host's environment and the path to it, the round-trip time measured now, before
    // any load.
    let path = host::path_record(&plan.server_host)?;
    if let Some((p, _)) = &path {
        eprintln!("{}", two_hosts_line(p));
    }
    let bar = ProgressBar::new((plan.estimate_total() * 10.0) as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} ETA {eta} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    let progress = Progress { bar, tty: std::io::IsTerminal::is_terminal(&std::io::stderr()) };
    let (scripts, scenarios) = prepare_scripts(plan, tool.as_ref())?;

    // Preflight: verify, then calibrate; the runs use the plan it revised.
    let stage = preflight::Stage { tool: tool.as_ref(), scripts: &scripts, say: &|m| progress.status(m) };
    let outcome = preflight::run(plan, &stage)?;
    preflight::announce(&outcome, &|m| progress.println(m));
    progress.bar.inc((outcome.plan.estimate().preflight * 10.0) as u64);
    let preflight::Outcome { plan: revised, subjects, measurable, flags: preflight_flags, skipped, record } = outcome;
    // A subject that will not be measured leaves the plan here: no progress lines for runs that will not happen, and
    // an estimate of what is left without them.
    let settings = settings(&revised, argv);
    let revised = revised.only_measurable(&measurable);
    let measurable = vec![true; revised.subjects.len()];
    if revised.subjects.len() < plan.subjects.len() {
        let left = revised.estimate();
        progress.bar.set_length(progress.bar.position() + ((left.total() - left.preflight) * 10.0) as u64);
        progress.println(format!(
            "{} load runs, {} open-loop runs, {} memory runs are left for {}; about {} more",
            revised.load_runs(),
            revised.open_loop_runs(),
            revised.memory_runs(),
            revised.subjects.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
            minutes(left.total() - left.preflight)
        ));
    }
    let mut ctx = Ctx {
        plan: &revised,
        post_max_users: revised.post_max_users,
        tool,
        progress,
        hz: procstat::ticks_per_second(),
        scripts,
        interface: path.as_ref().and_then(|(p, _)| p.interface.clone()),
    };
    let mut bench = Benchmark {
        schema_version: SCHEMA_VERSION,
        generator: format!("fairpair {}", env!("CARGO_PKG_VERSION")),
        environment,
        settings,
        subjects,
        scenarios,
        skipped: plan.skipped.iter().cloned().chain(skipped).collect(),
        preflight: Some(record),
        runs: Vec::new(),
        open_loop: Vec::new(),
        memory: Vec::new(),
        summaries: Vec::new(),
        memory_summaries: Vec::new(),
        flags: preflight_flags,
        two_hosts: None,
    };
    ctx.load_phase(&mut bench, &measurable);
    bench.summaries = summarise(&bench.runs);
    apply_capacity(&mut bench.summaries, bench.preflight.as_ref());
    ctx.open_loop_phase(&mut bench, &measurable);
    ctx.memory_phase(&mut bench, &measurable);
    bench.memory_summaries = summarise_memory(&bench.memory);
    bench.flags.extend(flags(&bench));
    bench.two_hosts = path.map(|(mut record, at_start)| {
        let now = ctx.interface.as_deref().and_then(host::interface_bytes);
        record.interface_bytes = at_start.zip(now).map(|(a, b)| host::bytes_since(a, b));
        record
    });
    ctx.progress.bar.finish_and_clear();
    Ok(bench)
}

/// The share of a machine's CPUs that processes other than the measured ones used between two readings of its
/// `(busy, total)` ticks, `measured` being the ticks of the measured ones.
fn other_percent(before: (u64, u64), after: (u64, u64), measured: f64) -> f64 {
    let total = after.1.saturating_sub(before.1) as f64;
    let other = after.0.saturating_sub(before.0) as f64 - measured;
    if total > 0.0 { (other.max(0.0) / total * 100.0).min(100.0) } else { 0.0 }
}

/// The line that says a run is a two-host run, before anything is measured.
fn two_hosts_line(p: &TwoHosts) -> String {
    let rtt =
        p.rtt_ms.as_ref().map_or("not measured".to_string(), |r| format!("{:.3} ms (median of {})", r.median, r.n));
    format!(
        "fairpair: two hosts: load from {} ({}), subjects on {} ({}, {}, {} CPUs), round trip {rtt}",
        env::read_hostname(),
        p.loader_address,
        p.server_host,
        p.server_address,
        p.server_environment.hostname,
        p.server_environment.cpus_allowed.len()
    )
}

/// Load tool name → version line, for the environment record.
fn tool_versions() -> BTreeMap<String, String> {
    let mut versions = BTreeMap::new();
    for name in tools::NAMES {
        let t = tools::by_name(name).expect("known tool");
        let v = if t.available() { t.version() } else { "not installed".into() };
        versions.insert(name.to_string(), v);
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
        let spec = load_spec(plan, s, "http://127.0.0.1:1", 1, 1, None);
        let written = tool.prepare(&plan.out, &s.name, &spec)?;
        if let Some((path, _)) = &written {
            scripts.insert(s.name.clone(), path.clone());
        }
        records.push(ScenarioRecord {
            name: s.name.clone(),
            method: s.method.clone(),
            path: s.path.clone(),
            body: s.body.clone(),
            wrk_script: written.and_then(|(_, text)| text),
            expected_status: s.expected,
        });
    }
    // The memory phase loads GET even in a plan without a GET scenario: its script too.
    let memory = plan.memory_scenario();
    if !scripts.contains_key(&memory.name) {
        let spec = load_spec(plan, &memory, "http://127.0.0.1:1", 1, 1, None);
        if let Some((path, _)) = tool.prepare(&plan.out, &memory.name, &spec)? {
            scripts.insert(memory.name.clone(), path);
        }
    }
    Ok((scripts, records))
}

/// Each summary's share of the loader's measured capacity for its scenario and connection count, and whether
/// that share makes it loader-limited.
pub fn apply_capacity(summaries: &mut [Summary], preflight: Option<&Preflight>) {
    let Some(p) = preflight else { return };
    for s in summaries {
        let Some(c) = p.loader_capacity.iter().find(|c| c.scenario == s.scenario && c.connections == s.connections)
        else {
            continue;
        };
        if c.loader_capacity_rps > 0.0 {
            let share = s.requests_per_sec.median / c.loader_capacity_rps * 100.0;
            s.loader_capacity_rps = Some(c.loader_capacity_rps);
            s.loader_capacity_share_percent = Some(share);
            s.loader_limited = share > p.loader_limited_share_percent;
        }
    }
}

pub fn minutes(s: f64) -> String {
    let s = s.round() as u64;
    if s >= 60 { format!("{} min {:02} s", s / 60, s % 60) } else { format!("{s} s") }
}

fn flag(kind: FlagKind, subject: &str, scenario: Option<&str>, connections: Option<u32>, message: String) -> Flag {
    Flag { kind, subject: subject.into(), scenario: scenario.map(String::from), connections, message }
}

/// "N responses with a status other than 2xx (wrk counts ≥ 400) with --max-users M".
fn unexpected_sentence(run: &LoadRun, scenario: &Scenario) -> String {
    let store = run.max_users.map_or(String::new(), |m| format!(" with --max-users {m}"));
    format!(
        "{} of {} responses had a status other than the expected {}{store}",
        run.unexpected_responses, run.requests, scenario.expected
    )
}

fn unexpected_flag(spec: &SubjectSpec, scenario: &Scenario, connections: u32, reason: String) -> Flag {
    let message = format!("{} {} at {connections} connections: {reason}", spec.name, scenario.name);
    flag(FlagKind::UnexpectedStatus, &spec.name, Some(&scenario.name), Some(connections), message)
}

fn settings(plan: &Plan, argv: Vec<String>) -> Settings {
    Settings {
        tool: plan.tool.clone(),
        connections: plan.connections.clone(),
        duration_s: plan.duration_s,
        warmup_s: plan.warmup_s,
        repeats: plan.repeats,
        quick: plan.quick,
        pinned: plan.pinned,
        server_cpus: plan.server_cpus.clone(),
        loader_cpus: plan.loader_cpus.clone(),
        loader_threads: plan.loader_threads,
        idle_wait_max_s: plan.idle_wait_max_s,
        idle_threshold_percent: plan.idle_threshold_percent,
        post_max_users: plan.post_max_users.unwrap_or(0),
        open_loop_fractions: plan.open_loop_fractions.clone(),
        open_loop_duration_s: plan.open_loop_duration_s,
        open_loop_connections: plan.connections.iter().copied().min().unwrap_or(50),
        memory_repeats: plan.memory_repeats,
        memory_connections: plan.memory_connections,
        memory_duration_s: plan.memory_duration_s,
        memory_settle_ms: plan.memory_settle_ms,
        allow_unverified: plan.allow_unverified,
        baseline: plan.baseline.clone(),
        argv,
    }
}

fn load_spec(plan: &Plan, s: &Scenario, base: &str, connections: u32, duration_s: u64, rate: Option<f64>) -> LoadSpec {
    LoadSpec {
        url: format!("{base}{}", s.path),
        method: s.method.clone(),
        body: s.body.clone(),
        connections,
        duration_s,
        threads: plan.loader_threads,
        rate,
        script: None,
    }
}

impl Progress {
    /// Shows what the run is doing now: on the progress bar, or as a line with the elapsed time and the estimate of
    /// what is left when stderr is not a terminal.
    fn status(&self, message: String) {
        if !self.tty {
            let elapsed = self.bar.elapsed().as_secs();
            // The bar counts tenths of a second of the plan's estimate: what is left of it is the plan's own
            // estimate of the time left, steadier than a rate extrapolated from the first few steps.
            let left = self.bar.length().unwrap_or(0).saturating_sub(self.bar.position()) / 10;
            eprintln!(
                "fairpair: [{:02}:{:02}] {message} (about {} min {:02} s left)",
                elapsed / 60,
                elapsed % 60,
                left / 60,
                left % 60
            );
        }
        self.bar.set_message(message);
    }

    /// A line that must be seen: above the bar on a terminal, plainly otherwise (indicatif hides a bar that has no
    /// terminal, and its `println` with it).
    fn println(&self, message: String) {
        if self.tty {
            self.bar.println(format!("fairpair: {message}"));
        } else {
            eprintln!("fairpair: {message}");
        }
    }
}

/// What the machine did during one run, read before and after it.
struct MachineWindow {
    busy_total: (u64, u64),
    steal_total: (u64, u64),
}

impl MachineWindow {
    fn now() -> MachineWindow {
        MachineWindow { busy_total: procstat::machine_ticks(), steal_total: procstat::steal_ticks() }
    }
}

impl Ctx<'_> {
    fn status(&self, message: String) {
        self.progress.status(message);
    }

    fn failed(
        &self,
        bench: &mut Benchmark,
        spec: &SubjectSpec,
        scenario: Option<&Scenario>,
        connections: Option<u32>,
        e: anyhow::Error,
    ) {
        let message = format!("{}: a run failed: {e:#}", spec.name);
        self.progress.println(message.clone());
        bench.flags.push(flag(
            FlagKind::FailedRun,
            &spec.name,
            scenario.map(|s| s.name.as_str()),
            connections,
            message,
        ));
    }

    /// Waits (bounded) for an idle machine: see [`procstat::wait_for_idle`].
    fn wait_for_idle(&self) -> (f64, bool) {
        procstat::wait_for_idle(self.plan.idle_wait_max_s, self.plan.idle_threshold_percent)
    }

    fn spec_for(
        &self,
        scenario: &Scenario,
        base: &str,
        connections: u32,
        duration_s: u64,
        rate: Option<f64>,
    ) -> LoadSpec {
        let mut spec = load_spec(self.plan, scenario, base, connections, duration_s, rate);
        spec.script = self.scripts.get(&scenario.name).cloned();
        spec
    }

    /// Closed-loop runs: cell by cell, repeats alternating the subjects.
    fn load_phase(&mut self, bench: &mut Benchmark, measurable: &[bool]) {
        let plan = self.plan;
        let total = plan.load_runs();
        let mut done = 0;
        for cell in &plan.cells {
            let scenario = &plan.scenarios[cell.scenario];
            for repeat in 1..=plan.repeats {
                for &si in &cell.subjects {
                    done += 1;
                    let spec = &plan.subjects[si];
                    self.status(format!(
                        "run {done}/{total}: {} {} c={} #{repeat}",
                        spec.name, scenario.name, cell.connections
                    ));
                    if measurable[si] {
                        if let Err(e) = self.checked_run(bench, spec, scenario, cell.connections, repeat) {
                            self.failed(bench, spec, Some(scenario), Some(cell.connections), e);
                        }
                    }
                    self.progress.bar.inc(((plan.warmup_s + plan.duration_s) as f64 * 10.0 + 15.0) as u64);
                }
            }
        }
    }

    /// One measured run, checked for statuses its scenario does not expect: such a run is no throughput figure. On a
    /// server whose store can grow it is rerun once with a larger store; otherwise, or if the rerun fails the same
    /// way, it is kept in `runs` but left out of the summaries, with the reason.
    fn checked_run(
        &mut self,
        bench: &mut Benchmark,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
    ) -> Result<()> {
        let max_users = self.plan.max_users_for(spec, scenario).map(|m| self.post_max_users.unwrap_or(m).max(m));
        let mut run = self.load_run(spec, scenario, connections, repeat, max_users)?;
        if run.unexpected_responses == 0 {
            bench.runs.push(run);
            return Ok(());
        }
        let store = bench.preflight.as_ref().and_then(|p| p.store.as_ref());
        let window = self.plan.warmup_s + self.plan.duration_s;
        let larger = max_users.and_then(|m| preflight::larger_store(m, run.requests_per_sec, window, store));
        let what = unexpected_sentence(&run, scenario);
        let (reason, rerun) = match larger {
            Some(m) => (format!("{what}; rerun once with --max-users {m}, which the later runs keep"), Some(m)),
            None => (format!("{what}; not a throughput figure, left out of the summary"), None),
        };
        self.progress.println(format!("{} {} c={connections}: {reason}", spec.name, scenario.name));
        run.left_out = Some(reason.clone());
        bench.runs.push(run);
        bench.flags.push(unexpected_flag(spec, scenario, connections, reason));
        if let Some(m) = rerun {
            self.post_max_users = Some(m);
            let mut again = self.load_run(spec, scenario, connections, repeat, Some(m))?;
            if again.unexpected_responses > 0 {
                let reason = format!("{} (the rerun); left out of the summary", unexpected_sentence(&again, scenario));
                again.left_out = Some(reason.clone());
                bench.flags.push(unexpected_flag(spec, scenario, connections, reason));
            }
            bench.runs.push(again);
        }
        Ok(())
    }

    fn load_run(
        &mut self,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
        max_users: Option<u64>,
    ) -> Result<LoadRun> {
        let (idle_wait_s, machine_idle) = self.wait_for_idle();
        let server = subject::start(spec, &self.plan.start_options(max_users))?;
        let listen_backlog = env::listen_backlog_on(&server.host, server.addr.port());
        let base = format!("http://{}", server.addr);
        if self.plan.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, self.plan.warmup_s, None);
            tools::invoke(self.tool.as_ref(), &warm, self.plan.loader_pin()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, self.plan.duration_s, None);
        let server_before = procstat::tree_ticks_on(&server.host, server.pid)?;
        let remote = !server.host.is_local();
        let server_host_before = if remote { Some(procstat::machine_ticks_on(&server.host)?) } else { None };
        let before = MachineWindow::now();
        let net_before = self.interface.as_deref().and_then(host::interface_bytes);
        let inv = tools::invoke(self.tool.as_ref(), &load, self.plan.loader_pin())?;
        let net_after = self.interface.as_deref().and_then(host::interface_bytes);
        let server_ticks = procstat::tree_ticks_on(&server.host, server.pid)?.saturating_sub(server_before);
        let server_host_after = if remote { Some(procstat::machine_ticks_on(&server.host)?) } else { None };
        // On two hosts the server's CPU time was spent on the other machine: none of this one's is the server's.
        let local_server_ticks = if server.host.is_local() { server_ticks } else { 0 };
        // A service the harness did not start has no process of ours to read: its CPU is not measured (None), not 0.
        let outside = !spec.started_by_harness();
        let after = MachineWindow::now();
        let server_command = server.command.clone();
        server.stop()?;

        let r = inv.result;
        let server_cpu_ms = server_ticks as f64 * 1000.0 / self.hz;
        let loader_cpu_percent = self.plan.loader_cpu_percent(self.tool.as_ref(), inv.cpu_us, inv.wall_s);
        let machine_ticks = after.busy_total.1.saturating_sub(before.busy_total.1) as f64;
        let loader_ticks = inv.cpu_us / 1e6 * self.hz;
        let other =
            after.busy_total.0.saturating_sub(before.busy_total.0) as f64 - local_server_ticks as f64 - loader_ticks;
        let other_cpu_percent =
            if machine_ticks > 0.0 { (other.max(0.0) / machine_ticks * 100.0).min(100.0) } else { 0.0 };
        let steal = after.steal_total.0.saturating_sub(before.steal_total.0) as f64;
        let steal_total = after.steal_total.1.saturating_sub(before.steal_total.1) as f64;
        Ok(LoadRun {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            connections,
            repeat,
            tool: self.tool.name().into(),
            command: inv.command,
            server_command,
            max_users,
            duration_s: r.duration_s,
            requests: r.requests,
            requests_per_sec: r.requests_per_sec,
            latency: r.latency,
            errors: r.errors,
            non_2xx: r.non_2xx,
            server_cpu_ms,
            server_cpu_us_per_request: (r.requests > 0 && !outside).then(|| server_cpu_ms * 1000.0 / r.requests as f64),
            loader_cpu_percent,
            loader_bound: loader_cpu_percent >= LOADER_BOUND_PERCENT,
            other_cpu_percent,
            idle_wait_s,
            machine_idle,
            steal_percent: (steal_total > 0.0).then(|| steal / steal_total * 100.0),
            listen_backlog,
            unexpected_responses: scenario.expected.unexpected(r.requests, r.non_2xx),
            left_out: None,
            network: net_before.zip(net_after).map(|(a, b)| host::bytes_since(a, b)),
            server_host_other_cpu_percent: server_host_before
                .zip(server_host_after)
                .map(|(b, a)| other_percent(b, a, server_ticks as f64)),
            raw_output: inv.stdout,
        })
    }

    /// Memory, in runs of its own.
    fn memory_phase(&mut self, bench: &mut Benchmark, measurable: &[bool]) {
        let plan = self.plan;
        for spec in plan.subjects.iter().filter(|s| !s.started_by_harness()) {
            bench.skipped.push(format!(
                "{}: server CPU, memory and start-up not measured (a running service at {} that fairpair did not \
                 start, so it cannot read its processes)",
                spec.name,
                spec.command_template()
            ));
        }
        for repeat in 1..=plan.memory_repeats {
            for (si, spec) in plan.subjects.iter().enumerate() {
                if !spec.started_by_harness() {
                    continue;
                }
                self.status(format!("memory {} #{repeat}", spec.name));
                if measurable[si] {
                    match self.memory_run(spec, repeat) {
                        Ok(run) => bench.memory.push(run),
                        Err(e) => self.failed(bench, spec, None, None, e),
                    }
                }
                self.progress.bar.inc(((plan.memory_duration_s as f64 + 2.5) * 10.0) as u64);
            }
        }
    }

    fn open_loop_phase(&mut self, bench: &mut Benchmark, measurable: &[bool]) {
        let plan = self.plan;
        if plan.open_loop_fractions.is_empty() {
            bench.skipped.push("open-loop phase: disabled (--open-loop-rates 0)".into());
            return;
        }
        let Some(scenario) = plan.scenarios.iter().find(|s| s.name == "get") else {
            bench.skipped.push("open-loop phase: it runs on the get scenario, which is not in this plan".into());
            return;
        };
        let connections = bench.settings.open_loop_connections;
        let slowest = bench
            .summaries
            .iter()
            .filter(|s| s.scenario == "get" && s.connections == connections)
            .map(|s| (s.requests_per_sec.median, s.subject.clone()))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((slowest_rps, slowest_name)) = slowest else {
            bench.skipped.push("open-loop phase: no GET throughput was measured to derive the rates from".into());
            return;
        };
        let rates: Vec<(f64, f64)> =
            plan.open_loop_fractions.iter().map(|&f| (f, (f * slowest_rps).round().max(1.0))).collect();
        let oha = tools::by_name("oha").expect("known");
        let autocannon = tools::by_name("autocannon").expect("known");
        for (fraction, rate) in rates {
            let tool: &dyn LoadTool = if tools::installed("oha") {
                oha.as_ref()
            } else if tools::installed("autocannon") && rate <= tools::autocannon::MAX_RATE {
                autocannon.as_ref()
            } else {
                let why = if tools::installed("autocannon") {
                    format!(
                        "autocannon cannot hold {rate:.0} requests/s on one core (about {:.0} at most)",
                        tools::autocannon::MAX_RATE
                    )
                } else {
                    "neither oha nor autocannon is installed".to_string()
                };
                bench.skipped.push(format!(
                    "open-loop at {:.0} % of {slowest_name}'s GET throughput ({rate:.0} requests/s): {why}; install oha \
                     (`cargo install oha --locked`, scripts/setup-tools) for coordinated-omission-corrected latencies",
                    fraction * 100.0
                ));
                self.progress.bar.inc(
                    (plan.subjects.len() as f64 * (plan.open_loop_duration_s + plan.warmup_s) as f64 * 10.0) as u64,
                );
                continue;
            };
            for (si, spec) in plan.subjects.iter().enumerate() {
                self.status(format!("open loop {} at {rate:.0}/s", spec.name));
                if measurable[si] {
                    match self.open_loop_run(tool, spec, scenario, connections, fraction, rate) {
                        Ok(run) => {
                            if run.achieved_rps < 0.95 * run.asked_rps {
                                bench.flags.push(flag(
                                    FlagKind::RateNotReached,
                                    &spec.name,
                                    Some("get"),
                                    Some(connections),
                                    format!(
                                        "{} open loop: asked {:.0} requests/s, achieved {:.0}",
                                        spec.name, run.asked_rps, run.achieved_rps
                                    ),
                                ));
                            }
                            bench.open_loop.push(run);
                        }
                        Err(e) => self.failed(bench, spec, Some(scenario), Some(connections), e),
                    }
                }
                self.progress.bar.inc(((plan.open_loop_duration_s + plan.warmup_s) as f64 * 10.0 + 15.0) as u64);
            }
        }
    }

    fn open_loop_run(
        &mut self,
        tool: &dyn LoadTool,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        fraction: f64,
        rate: f64,
    ) -> Result<OpenLoopRun> {
        self.wait_for_idle();
        let server = subject::start(spec, &self.plan.start_options(None))?;
        let base = format!("http://{}", server.addr);
        if self.plan.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, self.plan.warmup_s, Some(rate));
            tools::invoke(tool, &warm, self.plan.loader_pin()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, self.plan.open_loop_duration_s, Some(rate));
        let inv = tools::invoke(tool, &load, self.plan.loader_pin())?;
        server.stop()?;
        Ok(OpenLoopRun {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            connections,
            fraction,
            asked_rps: rate,
            achieved_rps: inv.result.requests_per_sec,
            tool: tool.name().into(),
            command: inv.command,
            latency_corrected: tool.open_loop().is_some_and(|o| o.latency_corrected),
            latency: inv.result.latency,
            errors: inv.result.errors,
            non_2xx: inv.result.non_2xx,
            raw_output: inv.stdout,
        })
    }

    fn memory_run(&mut self, spec: &SubjectSpec, repeat: u32) -> Result<MemoryRun> {
        let plan = self.plan;
        let scenario = plan.memory_scenario();
        self.wait_for_idle();
        let server = subject::start(spec, &self.plan.start_options(None))?;
        std::thread::sleep(Duration::from_millis(plan.memory_settle_ms));
        let idle = procstat::tree_memory_on(&server.host, server.pid)?;
        let load = self.spec_for(
            &scenario,
            &format!("http://{}", server.addr),
            plan.memory_connections,
            plan.memory_duration_s,
            None,
        );
        let inv = tools::invoke(self.tool.as_ref(), &load, self.plan.loader_pin())?;
        let after_load = procstat::tree_memory_on(&server.host, server.pid)?;
        let run = MemoryRun {
            subject: spec.name.clone(),
            repeat,
            server_command: server.command.clone(),
            startup_ms: server.startup.as_secs_f64() * 1000.0,
            idle,
            after_load,
            load_command: inv.command,
            load_requests_per_sec: inv.result.requests_per_sec,
        };
        server.stop()?;
        Ok(run)
    }
}

/// Groups the runs that are throughput figures by subject × scenario × connections, in first-seen order. Runs left
/// out (unexpected statuses) are counted in `left_out_runs` and nowhere else; a cell with no run left has no
/// summary.
pub fn summarise(runs: &[LoadRun]) -> Vec<Summary> {
    let mut keys: Vec<(&str, &str, u32)> = Vec::new();
    for r in runs.iter().filter(|r| r.left_out.is_none()) {
        let k = (r.subject.as_str(), r.scenario.as_str(), r.connections);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(subject, scenario, connections)| {
            let cell: Vec<&LoadRun> = runs
                .iter()
                .filter(|r| r.subject == subject && r.scenario == scenario && r.connections == connections)
                .collect();
            summarise_cell(&cell)
        })
        .collect()
}

/// The summary of one cell's runs (at least one of them kept).
fn summarise_cell(cell: &[&LoadRun]) -> Summary {
    let group: Vec<&LoadRun> = cell.iter().copied().filter(|r| r.left_out.is_none()).collect();
    let stat = |f: &dyn Fn(&LoadRun) -> f64| {
        Stat::of(&group.iter().map(|r| f(r)).collect::<Vec<_>>()).expect("non-empty group")
    };
    let first = group[0];
    Summary {
        subject: first.subject.clone(),
        scenario: first.scenario.clone(),
        connections: first.connections,
        requests_per_sec: stat(&|r| r.requests_per_sec),
        p50_ms: stat(&|r| r.latency.p50_ms),
        p90_ms: stat(&|r| r.latency.p90_ms),
        p99_ms: stat(&|r| r.latency.p99_ms),
        p99_9_ms: Stat::of(&group.iter().filter_map(|r| r.latency.p99_9_ms).collect::<Vec<_>>()),
        max_ms: stat(&|r| r.latency.max_ms),
        server_cpu_us_per_request: Stat::of(
            &group.iter().filter_map(|r| r.server_cpu_us_per_request).collect::<Vec<_>>(),
        ),
        loader_cpu_percent: stat(&|r| r.loader_cpu_percent),
        loader_bound_runs: group.iter().filter(|r| r.loader_bound).count() as u32,
        errors: group.iter().map(|r| r.errors).sum(),
        non_2xx: group.iter().map(|r| r.non_2xx).sum(),
        loader_capacity_rps: None,
        loader_capacity_share_percent: None,
        loader_limited: false,
        steal_percent_max: group.iter().filter_map(|r| r.steal_percent).reduce(f64::max),
        listen_backlog: group.iter().filter_map(|r| r.listen_backlog).min(),
        left_out_runs: (cell.len() - group.len()) as u32,
    }
}

pub fn summarise_memory(runs: &[MemoryRun]) -> Vec<MemorySummary> {
    let mut subjects: Vec<String> = Vec::new();
    for r in runs {
        if !subjects.contains(&r.subject) {
            subjects.push(r.subject.clone());
        }
    }
    subjects
        .into_iter()
        .map(|subject| {
            let group: Vec<&MemoryRun> = runs.iter().filter(|r| r.subject == subject).collect();
            let stat = |f: &dyn Fn(&MemoryRun) -> u64| {
                Stat::of(&group.iter().map(|r| f(r) as f64).collect::<Vec<_>>()).expect("non-empty")
            };
            MemorySummary {
                startup_ms: Stat::of(&group.iter().map(|r| r.startup_ms).collect::<Vec<_>>()).expect("non-empty"),
                idle_rss_kib: stat(&|r| r.idle.rss_kib),
                idle_hwm_kib: stat(&|r| r.idle.hwm_kib),
                idle_pss_kib: stat(&|r| r.idle.pss_kib),
                after_rss_kib: stat(&|r| r.after_load.rss_kib),
                after_hwm_kib: stat(&|r| r.after_load.hwm_kib),
                after_pss_kib: stat(&|r| r.after_load.pss_kib),
                processes: group.iter().map(|r| r.after_load.processes).max().unwrap_or(0),
                subject,
            }
        })
        .collect()
}

/// The flags derived from runs and summaries (noisy, loader-limited, loader-bound, errors, non-2xx, busy machine,
/// steal).
pub fn flags(bench: &Benchmark) -> Vec<Flag> {
    let mut out = Vec::new();
    for s in &bench.summaries {
        let at = |kind, message: String| flag(kind, &s.subject, Some(&s.scenario), Some(s.connections), message);
        let cell = format!("{} {} at {} connections", s.subject, s.scenario, s.connections);
        if let Some(cv) = s.requests_per_sec.cv.filter(|&cv| cv > NOISY_CV) {
            out.push(at(
                FlagKind::Noisy,
                format!("{cell}: throughput varies by {:.1} % (CV) across {} runs", cv * 100.0, s.requests_per_sec.n),
            ));
        }
        if let (true, Some(share)) = (s.loader_limited, s.loader_capacity_share_percent) {
            out.push(at(FlagKind::LoaderLimited, format!(
                "{cell}: {share:.0} % of what the load generator can drive here; the figure may be the loader's, so \
                 ratios involving it are bounds (compare CPU per request instead)"
            )));
        }
        if s.loader_bound_runs > 0 {
            out.push(at(FlagKind::LoaderBound, format!(
                "{cell}: the load generator used ≥ {LOADER_BOUND_PERCENT:.0} % of its CPUs in {} of {} runs; the figure may be the tool's limit",
                s.loader_bound_runs, s.requests_per_sec.n
            )));
        }
        if s.errors > 0 {
            out.push(at(FlagKind::Errors, format!("{cell}: {} socket errors or timeouts", s.errors)));
        }
        if s.non_2xx > 0 {
            out.push(at(FlagKind::Non2xx, format!("{cell}: {} responses with an error status", s.non_2xx)));
        }
        if let Some(steal) = s.steal_percent_max.filter(|&p| p > STEAL_PERCENT) {
            out.push(at(
                FlagKind::Steal,
                format!("{cell}: the hypervisor took up to {steal:.1} % of the machine's CPU time during a run"),
            ));
        }
        if let Some(f) = busy_flag(bench, s, &cell) {
            out.push(f);
        }
    }
    out
}

fn busy_flag(bench: &Benchmark, s: &Summary, cell: &str) -> Option<Flag> {
    let busy: Vec<&LoadRun> = bench
        .runs
        .iter()
        .filter(|r| r.subject == s.subject && r.scenario == s.scenario && r.connections == s.connections)
        .filter(|r| r.left_out.is_none() && r.other_cpu_percent > BUSY_PERCENT)
        .collect();
    let worst = busy.iter().map(|r| r.other_cpu_percent).reduce(f64::max)?;
    Some(flag(
        FlagKind::BusyMachine,
        &s.subject,
        Some(&s.scenario),
        Some(s.connections),
        format!(
            "{cell}: other processes used up to {worst:.0} % of the machine during {} of {} runs",
            busy.len(),
            s.requests_per_sec.n
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(subject: &str, rps: f64, unexpected: u64, left_out: bool) -> LoadRun {
        LoadRun {
            subject: subject.into(),
            scenario: "post".into(),
            connections: 50,
            repeat: 1,
            tool: "wrk".into(),
            command: String::new(),
            server_command: String::new(),
            max_users: Some(100_000),
            duration_s: 1.0,
            requests: rps as u64,
            requests_per_sec: rps,
            latency: Latency::default(),
            errors: 0,
            non_2xx: unexpected,
            server_cpu_ms: 1.0,
            server_cpu_us_per_request: Some(5.0),
            loader_cpu_percent: 50.0,
            loader_bound: false,
            other_cpu_percent: 0.0,
            idle_wait_s: 0.0,
            machine_idle: true,
            steal_percent: Some(0.5),
            listen_backlog: Some(511),
            unexpected_responses: unexpected,
            left_out: left_out.then(|| "store full".to_string()),
            network: None,
            server_host_other_cpu_percent: None,
            raw_output: String::new(),
        }
    }

    #[test]
    fn runs_left_out_count_in_no_summary() {
        let runs = vec![
            run("rust", 100_000.0, 5_000, true),
            run("rust", 90_000.0, 0, false),
            run("rust", 92_000.0, 0, false),
            run("node", 20_000.0, 0, false),
            run("lost", 1e9, 7, true),
        ];
        let s = summarise(&runs);
        let names: Vec<&str> = s.iter().map(|s| s.subject.as_str()).collect();
        assert_eq!(names, ["rust", "node"], "a cell with every run left out has no summary");
        assert_eq!((s[0].requests_per_sec.n, s[0].requests_per_sec.max, s[0].left_out_runs), (2, 92_000.0, 1));
        assert_eq!((s[0].non_2xx, s[0].listen_backlog, s[0].steal_percent_max), (0, Some(511), Some(0.5)));
    }

    #[test]
    fn the_capacity_share_decides_loader_limited() {
        let mut s = summarise(&[run("rust", 90_000.0, 0, false), run("node", 20_000.0, 0, false)]);
        let capacity = |rps| Preflight {
            loader_capacity: vec![LoaderCapacity {
                scenario: "post".into(),
                connections: 50,
                target: "ceiling".into(),
                command: String::new(),
                loader_capacity_rps: rps,
                measured_rps: rps,
                loader_cpu_percent: 99.0,
                basis: CapacityBasis::Saturated,
                machine_idle: true,
            }],
            loader_limited_share_percent: preflight::LOADER_LIMITED_SHARE_PERCENT,
            ..Preflight::default()
        };
        apply_capacity(&mut s, Some(&capacity(100_000.0)));
        assert_eq!((s[0].loader_capacity_share_percent, s[0].loader_limited), (Some(90.0), true));
        assert_eq!((s[1].loader_capacity_share_percent, s[1].loader_limited), (Some(20.0), false));
        // The loader-CPU flag is not what decides: these runs used 50 % of it.
        assert_eq!(s[0].loader_bound_runs, 0);
        let mut s = summarise(&[run("rust", 90_000.0, 0, false)]);
        apply_capacity(&mut s, Some(&capacity(200_000.0)));
        assert!(!s[0].loader_limited);
        let flags = flags(&Benchmark { summaries: s, ..empty_bench() });
        assert!(flags.iter().all(|f| f.kind != FlagKind::LoaderLimited));
    }

    fn empty_bench() -> Benchmark {
        serde_json::from_str(include_str!("../tests/fixtures/golden/benchmark.json")).unwrap()
    }
}
