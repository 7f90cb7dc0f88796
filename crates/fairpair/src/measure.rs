//! Measure: one run, and nothing else. A run starts a fresh subject, drives it with the load tool (a discarded
//! warm-up first), samples `/proc` around the measured part, stops the subject, and returns one raw record
//! ([`LoadRun`], [`OpenLoopRun`] or [`MemoryRun`]). `execute` calls it once per run of the plan, in the plan's order.
//!
//! Two seams are kept in one place each: [`Measure::start`] is the only place a subject is started for a run (after
//! the bounded wait for an idle machine), and [`Window`] plus [`Measure::memory_of`] are the only places a run reads
//! `/proc`. Both go through the subject's [`crate::host::Host`], so on two hosts (`--server-host`) the server is
//! started and its `/proc` read on the server host, while the machine's counters (and the loader interface's bytes)
//! are read here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::plan::{Plan, Scenario};
use crate::schema::{Flag, FlagKind, LoadRun, Memory, MemoryRun, NetworkBytes, OpenLoopRun, StoreSizing};
use crate::subject::{self, Running, SubjectSpec};
use crate::summary::{LOADER_BOUND_PERCENT, flag};
use crate::tools::{self, LoadSpec, LoadTool};
use crate::{env, host, preflight, procstat};

/// What one run needs from the whole execution: the plan, the closed-loop tool, the scripts it wrote, and the store
/// size the POST runs have reached so far.
pub struct Measure<'a> {
    plan: &'a Plan,
    tool: Box<dyn LoadTool>,
    hz: f64,
    scripts: BTreeMap<String, PathBuf>,
    /// The store of the POST runs: the plan's, raised for the rest of the run when a run needed a larger one (the
    /// machine got faster than in preflight), so that later runs do not fill it again.
    post_max_users: Option<u64>,
    /// On two hosts, the loader's interface to the server host: each run records its byte counters.
    interface: Option<String>,
}

/// A closed-loop run checked for statuses its scenario does not expect: the records it produced (one, or two with a
/// rerun), the flags they raised, the lines the console should show, and the error that stopped it, if any (the
/// records made before the error are kept).
#[derive(Default)]
pub struct Checked {
    pub runs: Vec<LoadRun>,
    pub flags: Vec<Flag>,
    pub notes: Vec<String>,
    pub error: Option<anyhow::Error>,
}

/// The machine-wide and server-side CPU counters of `/proc`, read before and after the measured part of a run; on two
/// hosts, also the byte counters of the loader's interface to the server host.
struct Window {
    server_ticks: u64,
    busy_total: (u64, u64),
    steal_total: (u64, u64),
    network: Option<NetworkBytes>,
    /// The server host's `(busy, total)` ticks, on two hosts.
    server_host_total: Option<(u64, u64)>,
}

impl Window {
    /// The server's counters are read on its host (over ssh on a server host), the machine's here.
    fn now(server: &Running, interface: Option<&str>) -> Result<Window> {
        Ok(Window {
            server_ticks: procstat::tree_ticks_on(&server.host, server.pid)?,
            busy_total: procstat::machine_ticks(),
            steal_total: procstat::steal_ticks(),
            network: interface.and_then(host::interface_bytes),
            server_host_total: match server.host.is_local() {
                true => None,
                false => Some(procstat::machine_ticks_on(&server.host)?),
            },
        })
    }
}

/// What the `/proc` counters say about the time between two windows.
struct Sampled {
    server_ticks: u64,
    network: Option<NetworkBytes>,
    /// On two hosts: other processes' share of the server host's CPUs.
    server_host_other_cpu_percent: Option<f64>,
    /// Ticks of other processes: the machine's busy ticks less the server's and the loader's.
    other_cpu_percent: f64,
    steal_percent: Option<f64>,
}

impl Sampled {
    /// `server_here`: whether the server ran on this machine; on a server host its CPU time is none of this one's.
    fn between(before: &Window, after: &Window, loader_ticks: f64, server_here: bool) -> Sampled {
        let server_ticks = after.server_ticks.saturating_sub(before.server_ticks);
        let machine_ticks = after.busy_total.1.saturating_sub(before.busy_total.1) as f64;
        let server_here_ticks = if server_here { server_ticks as f64 } else { 0.0 };
        let other = after.busy_total.0.saturating_sub(before.busy_total.0) as f64 - server_here_ticks - loader_ticks;
        let other_cpu_percent =
            if machine_ticks > 0.0 { (other.max(0.0) / machine_ticks * 100.0).min(100.0) } else { 0.0 };
        let steal = after.steal_total.0.saturating_sub(before.steal_total.0) as f64;
        let steal_total = after.steal_total.1.saturating_sub(before.steal_total.1) as f64;
        Sampled {
            server_ticks,
            network: before.network.zip(after.network).map(|(a, b)| host::bytes_since(a, b)),
            server_host_other_cpu_percent: before
                .server_host_total
                .zip(after.server_host_total)
                .map(|(b, a)| other_percent(b, a, server_ticks as f64)),
            other_cpu_percent,
            steal_percent: (steal_total > 0.0).then(|| steal / steal_total * 100.0),
        }
    }
}

/// The share of a machine's CPUs that processes other than the measured ones used between two readings of its
/// `(busy, total)` ticks, `measured` being the ticks of the measured ones.
fn other_percent(before: (u64, u64), after: (u64, u64), measured: f64) -> f64 {
    let total = after.1.saturating_sub(before.1) as f64;
    let other = after.0.saturating_sub(before.0) as f64 - measured;
    if total > 0.0 { (other.max(0.0) / total * 100.0).min(100.0) } else { 0.0 }
}

/// The load of one invocation of a tool, from the plan's settings and a scenario.
pub fn load_spec(
    plan: &Plan,
    s: &Scenario,
    base: &str,
    connections: u32,
    duration_s: u64,
    rate: Option<f64>,
) -> LoadSpec {
    LoadSpec {
        url: format!("{base}{}", s.path),
        method: s.method.clone(),
        body: s.body.clone(),
        connections,
        duration_s,
        threads: plan.settings.loader_threads,
        rate,
        script: None,
    }
}

/// "N of M responses had a status other than the expected X with --max-users K".
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

impl<'a> Measure<'a> {
    pub fn new(plan: &'a Plan, tool: Box<dyn LoadTool>, scripts: BTreeMap<String, PathBuf>) -> Measure<'a> {
        Measure {
            plan,
            tool,
            hz: procstat::ticks_per_second(),
            scripts,
            post_max_users: plan.post_max_users(),
            interface: None,
        }
    }

    /// Records each run's bytes through `interface` (two hosts: the loader's interface to the server host).
    pub fn with_interface(self, interface: Option<String>) -> Measure<'a> {
        Measure { interface, ..self }
    }

    /// Waits (bounded) for an idle machine, then starts a fresh subject for one run: the only place a run starts its
    /// server. Returns the server and (seconds waited, whether the machine was idle).
    pub(crate) fn start(&self, spec: &SubjectSpec, max_users: Option<u64>) -> Result<(Running, (f64, bool))> {
        let idle =
            procstat::wait_for_idle(self.plan.settings.idle_wait_max_s, self.plan.settings.idle_threshold_percent);
        let server = subject::start(spec, &self.plan.start_options(max_users))?;
        Ok((server, idle))
    }

    /// The memory of a subject's process tree now, read on its host.
    fn memory_of(server: &Running) -> Result<Memory> {
        procstat::tree_memory_on(&server.host, server.pid)
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

    /// One measured run, checked for statuses its scenario does not expect: such a run is no throughput figure. On a
    /// server whose store can grow it is rerun once with a larger store; otherwise, or if the rerun fails the same
    /// way, it is kept in `runs` but left out of the summaries, with the reason.
    pub fn checked_run(
        &mut self,
        store: Option<&StoreSizing>,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
    ) -> Checked {
        let mut out = Checked::default();
        if let Err(e) = self.checked_into(&mut out, store, spec, scenario, connections, repeat) {
            out.error = Some(e);
        }
        out
    }

    fn checked_into(
        &mut self,
        out: &mut Checked,
        store: Option<&StoreSizing>,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
    ) -> Result<()> {
        let max_users = self.plan.max_users_for(spec, scenario).map(|m| self.post_max_users.unwrap_or(m).max(m));
        let mut run = self.load_run(spec, scenario, connections, repeat, max_users)?;
        if run.unexpected_responses == 0 {
            out.runs.push(run);
            return Ok(());
        }
        let window = self.plan.settings.warmup_s + self.plan.settings.duration_s;
        let larger = max_users.and_then(|m| preflight::larger_store(m, run.requests_per_sec, window, store));
        let what = unexpected_sentence(&run, scenario);
        let (reason, rerun) = match larger {
            Some(m) => (format!("{what}; rerun once with --max-users {m}, which the later runs keep"), Some(m)),
            None => (format!("{what}; not a throughput figure, left out of the summary"), None),
        };
        out.notes.push(format!("{} {} c={connections}: {reason}", spec.name, scenario.name));
        run.left_out = Some(reason.clone());
        out.runs.push(run);
        out.flags.push(unexpected_flag(spec, scenario, connections, reason));
        if let Some(m) = rerun {
            self.post_max_users = Some(m);
            let mut again = self.load_run(spec, scenario, connections, repeat, Some(m))?;
            if again.unexpected_responses > 0 {
                let reason = format!("{} (the rerun); left out of the summary", unexpected_sentence(&again, scenario));
                again.left_out = Some(reason.clone());
                out.flags.push(unexpected_flag(spec, scenario, connections, reason));
            }
            out.runs.push(again);
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
        let plan = self.plan;
        let (server, (idle_wait_s, machine_idle)) = self.start(spec, max_users)?;
        let listen_backlog = env::listen_backlog_on(&server.host, server.addr.port());
        let base = format!("http://{}", server.addr);
        if plan.settings.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, plan.settings.warmup_s, None);
            tools::invoke(self.tool.as_ref(), &warm, plan.loader_pin()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, plan.settings.duration_s, None);
        let before = Window::now(&server, self.interface.as_deref())?;
        let inv = tools::invoke(self.tool.as_ref(), &load, plan.loader_pin())?;
        let after = Window::now(&server, self.interface.as_deref())?;
        let server_here = server.host.is_local();
        // A service the harness did not start has no process of ours to read: its CPU is not measured (None), not 0.
        let outside = !spec.started_by_harness();
        let server_command = server.command.clone();
        server.stop()?;

        let r = inv.result;
        let sampled = Sampled::between(&before, &after, inv.cpu_us / 1e6 * self.hz, server_here);
        let server_cpu_ms = sampled.server_ticks as f64 * 1000.0 / self.hz;
        let loader_cpu_percent = plan.loader_cpu_percent(self.tool.as_ref(), inv.cpu_us, inv.wall_s);
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
            other_cpu_percent: sampled.other_cpu_percent,
            idle_wait_s,
            machine_idle,
            steal_percent: sampled.steal_percent,
            listen_backlog,
            unexpected_responses: scenario.expected.unexpected(r.requests, r.non_2xx),
            left_out: None,
            network: sampled.network,
            server_host_other_cpu_percent: sampled.server_host_other_cpu_percent,
            raw_output: inv.stdout,
        })
    }

    /// One run at a fixed rate with an open-loop tool (oha or autocannon, chosen by `execute`).
    pub fn open_loop_run(
        &mut self,
        tool: &dyn LoadTool,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        fraction: f64,
        rate: f64,
    ) -> Result<OpenLoopRun> {
        let plan = self.plan;
        let (server, _) = self.start(spec, None)?;
        let base = format!("http://{}", server.addr);
        if plan.settings.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, connections, plan.settings.warmup_s, Some(rate));
            tools::invoke(tool, &warm, plan.loader_pin()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, connections, plan.settings.open_loop_duration_s, Some(rate));
        let inv = tools::invoke(tool, &load, plan.loader_pin())?;
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

    /// One step of a capacity search (`crate::capacity::phase`) on a running subject: a warm-up at the step's rate,
    /// then the measured part (`rate: None`, a closed-loop probe).
    pub fn step_on(
        &self,
        tool: &dyn LoadTool,
        server: &Running,
        scenario: &Scenario,
        step: &crate::capacity::phase::StepSpec,
    ) -> Result<tools::Invocation> {
        let base = format!("http://{}", server.addr);
        if step.warmup_s > 0 {
            let warm = self.spec_for(scenario, &base, step.connections, step.warmup_s, step.rate);
            tools::invoke(tool, &warm, self.plan.loader_pin()).context("warm-up")?;
        }
        let load = self.spec_for(scenario, &base, step.connections, step.duration_s, step.rate);
        tools::invoke(tool, &load, self.plan.loader_pin())
    }

    /// One memory run: idle memory after the settle time, then the GET load, then memory again.
    pub fn memory_run(&mut self, spec: &SubjectSpec, repeat: u32) -> Result<MemoryRun> {
        let plan = self.plan;
        let scenario = plan.memory_scenario();
        let (server, _) = self.start(spec, None)?;
        std::thread::sleep(Duration::from_millis(plan.settings.memory_settle_ms));
        let idle = Self::memory_of(&server)?;
        let base = format!("http://{}", server.addr);
        let load =
            self.spec_for(&scenario, &base, plan.settings.memory_connections, plan.settings.memory_duration_s, None);
        let inv = tools::invoke(self.tool.as_ref(), &load, plan.loader_pin())?;
        let after_load = Self::memory_of(&server)?;
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
