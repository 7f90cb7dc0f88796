//! Executes a [`Plan`]: verification, closed-loop load runs, the open-loop phase and the memory phase, then the
//! summaries and flags. The result is one [`Benchmark`], written to `benchmark.json` by the caller.
//!
//! Fairness rules applied here, in one place: a fresh server process for every measured run; subjects alternated
//! run by run within a cell (A B A B …) so slow drift hits all of them; a bounded wait for an idle machine before
//! every run, with the CPU other processes used during the run recorded beside it; servers and load generator on
//! disjoint CPUs; the warm-up is a separate tool invocation whose figures are thrown away.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::plan::{Plan, Scenario};
use crate::schema::*;
use crate::stats::Stat;
use crate::subject::{self, StartOptions, SubjectSpec};
use crate::tools::{self, LoadSpec, LoadTool};
use crate::{env, procstat, verify};

/// A run uses "≥ 90 % of the loader's CPUs": its figures may be the tool's limit.
pub const LOADER_BOUND_PERCENT: f64 = 90.0;
/// Coefficient of variation above which a cell is flagged noisy.
pub const NOISY_CV: f64 = 0.05;
/// Other processes' CPU (percent of the machine) above which a run is flagged as measured on a busy machine.
pub const BUSY_PERCENT: f64 = 10.0;

struct Ctx<'a> {
    plan: &'a Plan,
    tool: Box<dyn LoadTool>,
    bar: ProgressBar,
    /// Whether stderr is a terminal. indicatif draws nothing otherwise, so a run logged to a file or a CI job would
    /// show no progress at all; then each step is printed as a line instead.
    tty: bool,
    hz: f64,
    scripts: BTreeMap<String, std::path::PathBuf>,
}

/// Prints what the plan will do and how long it should take (on stderr, before anything runs).
pub fn announce(plan: &Plan) {
    let (v, l, o, m) = plan.estimate();
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
        "fairpair: estimated {} (verify {}, load {}, open-loop {}, memory {})",
        minutes(v + l + o + m),
        minutes(v),
        minutes(l),
        minutes(o),
        minutes(m)
    );
    if plan.pinned {
        eprintln!(
            "fairpair: servers on CPU {}, load generator on CPU {}",
            procstat::format_cpu_list(&plan.server_cpus),
            procstat::format_cpu_list(&plan.loader_cpus)
        );
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

    let mut versions = BTreeMap::new();
    for name in tools::NAMES {
        let t = tools::by_name(name).expect("known tool");
        let v = if t.available() { t.version() } else { "not installed".into() };
        versions.insert(name.to_string(), v);
    }
    let environment = env::capture(versions);

    let bar = ProgressBar::new((plan.estimate_total() * 10.0) as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} ETA {eta} {msg}")
            .expect("valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut ctx = Ctx { plan, tool, bar, tty, hz: procstat::ticks_per_second(), scripts: BTreeMap::new() };

    let mut bench = Benchmark {
        schema_version: SCHEMA_VERSION,
        generator: format!("fairpair {}", env!("CARGO_PKG_VERSION")),
        environment,
        settings: settings(plan, argv),
        subjects: Vec::new(),
        scenarios: Vec::new(),
        skipped: plan.skipped.clone(),
        runs: Vec::new(),
        open_loop: Vec::new(),
        memory: Vec::new(),
        summaries: Vec::new(),
        memory_summaries: Vec::new(),
        flags: Vec::new(),
    };

    // Scripts (wrk writes one Lua file per scenario into the output directory).
    for s in &plan.scenarios {
        let spec = load_spec(plan, s, "http://127.0.0.1:1", 1, 1, None);
        let written = ctx.tool.prepare(&plan.out, &s.name, &spec)?;
        if let Some((path, _)) = &written {
            ctx.scripts.insert(s.name.clone(), path.clone());
        }
        bench.scenarios.push(ScenarioRecord {
            name: s.name.clone(),
            method: s.method.clone(),
            path: s.path.clone(),
            body: s.body.clone(),
            wrk_script: written.and_then(|(_, text)| text),
        });
    }

    // 1. Verify every subject before measuring any.
    let mut measurable = vec![true; plan.subjects.len()];
    for (i, spec) in plan.subjects.iter().enumerate() {
        ctx.status(format!("verifying {}", spec.name));
        let mut verification = verify::verify_subject(spec, &ctx.start_options(None))
            .with_context(|| format!("verifying {}", spec.name))?;
        ctx.bar.inc(if spec.implements_contract() { 40 } else { 0 });
        if verification.status == "failed" {
            let first = verification.failures.first().cloned().unwrap_or_default();
            if plan.allow_unverified {
                verification.measured_unverified = true;
                ctx.bar.println(format!(
                    "fairpair: {} fails the contract ({} cases, e.g. {first}); measured anyway (--allow-unverified)",
                    spec.name, verification.failed
                ));
                bench.flags.push(flag(
                    "unverified",
                    &spec.name,
                    None,
                    None,
                    format!(
                        "{} failed {} contract cases; its figures do not measure the same work",
                        spec.name, verification.failed
                    ),
                ));
            } else {
                measurable[i] = false;
                let message = format!(
                    "{}: fails {} contract cases (e.g. {first}), so it is not measured (use --allow-unverified to measure it anyway)",
                    spec.name, verification.failed
                );
                ctx.bar.println(format!("fairpair: {message}"));
                bench.skipped.push(message);
            }
        }
        bench.subjects.push(SubjectRecord {
            name: spec.name.clone(),
            kind: match spec.kind {
                subject::Kind::Builtin { .. } => "builtin".into(),
                subject::Kind::Custom { .. } => "custom".into(),
            },
            command: spec.command_template(),
            workers: spec.workers,
            get_only: spec.get_only,
            verification,
        });
    }

    // 2. Closed-loop runs: cell by cell, repeats alternating the subjects.
    let total = plan.load_runs();
    let mut done = 0;
    for cell in &plan.cells {
        let scenario = &plan.scenarios[cell.scenario];
        for repeat in 1..=plan.repeats {
            for &si in &cell.subjects {
                done += 1;
                let spec = &plan.subjects[si];
                ctx.status(format!(
                    "run {done}/{total}: {} {} c={} #{repeat}",
                    spec.name, scenario.name, cell.connections
                ));
                if measurable[si] {
                    match ctx.load_run(spec, scenario, cell.connections, repeat) {
                        Ok(run) => bench.runs.push(run),
                        Err(e) => ctx.failed(&mut bench, spec, Some(scenario), Some(cell.connections), e),
                    }
                }
                ctx.bar.inc(((plan.warmup_s + plan.duration_s) as f64 * 10.0 + 15.0) as u64);
            }
        }
    }
    bench.summaries = summarise(&bench.runs);

    // 3. Open loop at fixed rates.
    ctx.open_loop_phase(&mut bench, &measurable);

    // 4. Memory, in runs of its own.
    for repeat in 1..=plan.memory_repeats {
        for (si, spec) in plan.subjects.iter().enumerate() {
            ctx.status(format!("memory {} #{repeat}", spec.name));
            if measurable[si] {
                match ctx.memory_run(spec, repeat) {
                    Ok(run) => bench.memory.push(run),
                    Err(e) => ctx.failed(&mut bench, spec, None, None, e),
                }
            }
            ctx.bar.inc(((plan.memory_duration_s as f64 + 2.5) * 10.0) as u64);
        }
    }
    bench.memory_summaries = summarise_memory(&bench.memory);
    bench.flags.extend(flags(&bench));
    ctx.bar.finish_and_clear();
    Ok(bench)
}

fn minutes(s: f64) -> String {
    let s = s.round() as u64;
    if s >= 60 { format!("{} min {:02} s", s / 60, s % 60) } else { format!("{s} s") }
}

fn flag(kind: &str, subject: &str, scenario: Option<&str>, connections: Option<u32>, message: String) -> Flag {
    Flag { kind: kind.into(), subject: subject.into(), scenario: scenario.map(String::from), connections, message }
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
        post_max_users: plan.post_max_users,
        open_loop_fractions: plan.open_loop_fractions.clone(),
        open_loop_duration_s: plan.open_loop_duration_s,
        open_loop_connections: plan.connections.iter().copied().min().unwrap_or(50),
        memory_repeats: plan.memory_repeats,
        memory_connections: plan.memory_connections,
        memory_duration_s: plan.memory_duration_s,
        memory_settle_ms: plan.memory_settle_ms,
        allow_unverified: plan.allow_unverified,
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

impl Ctx<'_> {
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

    fn start_options(&self, max_users: Option<u64>) -> StartOptions<'_> {
        StartOptions {
            max_users,
            cpus: self.plan.pinned.then_some(self.plan.server_cpus.as_slice()),
            timeout: Duration::from_secs(self.plan.start_timeout_s),
        }
    }

    fn loader_cpus(&self) -> Option<&[usize]> {
        self.plan.pinned.then_some(self.plan.loader_cpus.as_slice())
    }

    /// How many CPUs the load generator could use, the denominator of its CPU percentage.
    fn loader_capacity(&self, tool: &dyn LoadTool) -> f64 {
        if self.plan.pinned {
            self.plan.loader_cpus.len() as f64
        } else if tool.name() == "autocannon" {
            1.0 // One Node process: one core is all it can use.
        } else {
            f64::from(self.plan.loader_threads)
        }
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
        self.bar.println(format!("fairpair: {message}"));
        bench.flags.push(flag("failed-run", &spec.name, scenario.map(|s| s.name.as_str()), connections, message));
    }

    /// Waits, at most `idle_wait_max_s`, until other processes use less than the idle threshold of the machine.
    /// Returns (seconds waited, whether it was idle).
    fn wait_for_idle(&self) -> (f64, bool) {
        let start = Instant::now();
        loop {
            let (b0, t0) = procstat::machine_ticks();
            std::thread::sleep(Duration::from_millis(200));
            let (b1, t1) = procstat::machine_ticks();
            let busy = if t1 > t0 { (b1 - b0) as f64 * 100.0 / (t1 - t0) as f64 } else { 0.0 };
            let waited = start.elapsed().as_secs_f64();
            if busy < self.plan.idle_threshold_percent {
                return (waited, true);
            }
            if waited >= self.plan.idle_wait_max_s {
                return (waited, false);
            }
        }
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

    fn load_run(&mut self, spec: &SubjectSpec, scenario: &Scenario, connections: u32, repeat: u32) -> Result<LoadRun> {
        let max_users = (scenario.method != "GET" && spec.accepts_max_users()).then_some(self.plan.post_max_users);
        let (idle_wait_s, machine_idle) = self.wait_for_idle();
        let server = subject::start(spec, &self.start_options(max_users))?;
        let base = format!("http://{}", server.addr);
        if self.plan.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, self.plan.warmup_s, None);
            tools::invoke(self.tool.as_ref(), &warm, self.loader_cpus()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, self.plan.duration_s, None);
        let server_before = procstat::tree_ticks(server.pid);
        let (machine_busy0, machine_total0) = procstat::machine_ticks();
        let inv = tools::invoke(self.tool.as_ref(), &load, self.loader_cpus())?;
        let server_ticks = procstat::tree_ticks(server.pid).saturating_sub(server_before);
        let (machine_busy1, machine_total1) = procstat::machine_ticks();
        let server_command = server.command.clone();
        server.stop()?;

        let r = inv.result;
        let server_cpu_ms = server_ticks as f64 * 1000.0 / self.hz;
        let loader_cpu_percent = if inv.wall_s > 0.0 {
            inv.cpu_us / 1e6 / inv.wall_s / self.loader_capacity(self.tool.as_ref()) * 100.0
        } else {
            0.0
        };
        let machine_ticks = machine_total1.saturating_sub(machine_total0) as f64;
        let loader_ticks = inv.cpu_us / 1e6 * self.hz;
        let other = machine_busy1.saturating_sub(machine_busy0) as f64 - server_ticks as f64 - loader_ticks;
        let other_cpu_percent =
            if machine_ticks > 0.0 { (other.max(0.0) / machine_ticks * 100.0).min(100.0) } else { 0.0 };
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
            server_cpu_us_per_request: (r.requests > 0).then(|| server_cpu_ms * 1000.0 / r.requests as f64),
            loader_cpu_percent,
            loader_bound: loader_cpu_percent >= LOADER_BOUND_PERCENT,
            other_cpu_percent,
            idle_wait_s,
            machine_idle,
            raw_output: inv.stdout,
        })
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
                self.bar.inc(
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
                                    "rate-not-reached",
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
                self.bar.inc(((plan.open_loop_duration_s + plan.warmup_s) as f64 * 10.0 + 15.0) as u64);
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
        let server = subject::start(spec, &self.start_options(None))?;
        let base = format!("http://{}", server.addr);
        if self.plan.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, self.plan.warmup_s, Some(rate));
            tools::invoke(tool, &warm, self.loader_cpus()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, self.plan.open_loop_duration_s, Some(rate));
        let inv = tools::invoke(tool, &load, self.loader_cpus())?;
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
        let scenario = plan
            .scenarios
            .iter()
            .find(|s| s.name == "get")
            .or_else(|| plan.scenarios.iter().find(|s| s.is_get()))
            .cloned()
            .unwrap_or(Scenario { name: "get".into(), method: "GET".into(), path: "/users/500".into(), body: None });
        self.wait_for_idle();
        let server = subject::start(spec, &self.start_options(None))?;
        std::thread::sleep(Duration::from_millis(plan.memory_settle_ms));
        let idle = procstat::tree_memory(server.pid);
        let load = self.spec_for(
            &scenario,
            &format!("http://{}", server.addr),
            plan.memory_connections,
            plan.memory_duration_s,
            None,
        );
        let inv = tools::invoke(self.tool.as_ref(), &load, self.loader_cpus())?;
        let after_load = procstat::tree_memory(server.pid);
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

/// Groups runs by subject × scenario × connections, in first-seen order.
pub fn summarise(runs: &[LoadRun]) -> Vec<Summary> {
    let mut keys: Vec<(String, String, u32)> = Vec::new();
    for r in runs {
        let k = (r.subject.clone(), r.scenario.clone(), r.connections);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(subject, scenario, connections)| {
            let group: Vec<&LoadRun> = runs
                .iter()
                .filter(|r| r.subject == subject && r.scenario == scenario && r.connections == connections)
                .collect();
            let stat = |f: &dyn Fn(&LoadRun) -> f64| {
                Stat::of(&group.iter().map(|r| f(r)).collect::<Vec<_>>()).expect("non-empty group")
            };
            Summary {
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
                subject,
                scenario,
                connections,
            }
        })
        .collect()
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

/// The flags derived from runs and summaries (noisy, loader-bound, errors, non-2xx, busy machine).
pub fn flags(bench: &Benchmark) -> Vec<Flag> {
    let mut out = Vec::new();
    for s in &bench.summaries {
        let at = |kind: &str, message: String| flag(kind, &s.subject, Some(&s.scenario), Some(s.connections), message);
        let cell = format!("{} {} at {} connections", s.subject, s.scenario, s.connections);
        if let Some(cv) = s.requests_per_sec.cv.filter(|&cv| cv > NOISY_CV) {
            out.push(at(
                "noisy",
                format!("{cell}: throughput varies by {:.1} % (CV) across {} runs", cv * 100.0, s.requests_per_sec.n),
            ));
        }
        if s.loader_bound_runs > 0 {
            out.push(at("loader-bound", format!(
                "{cell}: the load generator used ≥ {LOADER_BOUND_PERCENT:.0} % of its CPUs in {} of {} runs; the figure may be the tool's limit",
                s.loader_bound_runs, s.requests_per_sec.n
            )));
        }
        if s.errors > 0 {
            out.push(at("errors", format!("{cell}: {} socket errors or timeouts", s.errors)));
        }
        if s.non_2xx > 0 {
            out.push(at("non-2xx", format!("{cell}: {} responses with an error status", s.non_2xx)));
        }
        let busy: Vec<&LoadRun> = bench
            .runs
            .iter()
            .filter(|r| r.subject == s.subject && r.scenario == s.scenario && r.connections == s.connections)
            .filter(|r| r.other_cpu_percent > BUSY_PERCENT)
            .collect();
        if !busy.is_empty() {
            let worst = busy.iter().map(|r| r.other_cpu_percent).fold(0.0, f64::max);
            out.push(at(
                "busy-machine",
                format!(
                    "{cell}: other processes used up to {worst:.0} % of the machine during {} of {} runs",
                    busy.len(),
                    s.requests_per_sec.n
                ),
            ));
        }
    }
    out
}
