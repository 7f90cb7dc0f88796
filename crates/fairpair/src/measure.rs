//! Measure: the harness's one run procedure. [`Runner::run`] starts a fresh subject (after the bounded wait for an
//! idle machine), drives it with a load tool (a discarded warm-up first), samples `/proc` around the measured part,
//! stops the subject, and returns a [`RunRecord`]. Preflight's calibrations and every phase of `execute` go through
//! it, each turning the record into its own raw record ([`LoadRun`], [`OpenLoopRun`], [`MemoryRun`], or preflight's).
//!
//! Two seams are kept in one place each: [`Runner::run`] is the only place a subject is started for a measurement,
//! and [`Window`] plus the memory readings in it are the only places a run reads `/proc`. Both go through the
//! subject's [`crate::host::Host`], so on two hosts (`--server-host`) the server is started and its `/proc` read on the
//! server host, while the machine's counters (and the loader interface's bytes) are read here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::plan::{Plan, Scenario};
use crate::schema::{Flag, FlagKind, LoadRun, Memory, MemoryRun, NetworkBytes, OpenLoopRun};
use crate::store::{self, Calibration};
use crate::subject::{self, Running, SubjectSpec};
use crate::summary::{LOADER_BOUND_PERCENT, flag};
use crate::tools::{self, Invocation, LoadSpec, LoadTool};
use crate::{env, host, procstat};

/// One run, as its caller wants it: what to start, how to load it, what to sample. A capacity search calls
/// [`Runner::run`] with one of these per step, `rate` set to the offered rate.
pub struct RunSpec<'a> {
    pub subject: &'a SubjectSpec,
    /// `--max-users` for a server that takes it (the store of a run that writes).
    pub max_users: Option<u64>,
    pub tool: &'a dyn LoadTool,
    pub scenario: &'a Scenario,
    pub connections: u32,
    /// Seconds of warm-up (discarded; 0 for none), then of the measured load.
    pub warmup_s: u64,
    pub duration_s: u64,
    /// Open loop: the requests/s to offer; `None` for closed loop (as fast as answered).
    pub rate: Option<f64>,
    /// Read the subject's memory this long after it is ready (before the warm-up), and again after the load.
    pub memory_after: Option<Duration>,
}

/// What one run measured.
pub struct RunRecord {
    pub server_command: String,
    /// Spawn to the first 200 on the ready path.
    pub startup: Duration,
    /// How long the run waited for an idle machine, and whether the machine was idle when it began.
    pub idle_wait_s: f64,
    pub machine_idle: bool,
    pub listen_backlog: Option<u32>,
    pub warmup: Option<Invocation>,
    /// The measured load.
    pub load: Invocation,
    /// The load tool's CPU use, percent of the CPUs it was given.
    pub loader_cpu_percent: f64,
    /// CPU time around the measured load: the server's, other processes', the hypervisor's.
    pub sampled: Sampled,
    /// The subject's memory (idle, after the load), when asked for and readable.
    pub memory: Option<(Memory, Memory)>,
}

/// The run procedure and what it needs from the whole execution: the plan, the closed-loop tool, the scripts it
/// wrote, and the calibration, with the store size the POST runs have reached so far.
pub struct Runner<'a> {
    pub plan: &'a Plan,
    pub tool: Box<dyn LoadTool>,
    hz: f64,
    scripts: BTreeMap<String, PathBuf>,
    calibration: Calibration,
    /// The store of the POST runs: the calibration's, raised for the rest of the run when a run needed a larger one
    /// (the machine got faster than in preflight), so that later runs do not fill it again. Each run records its own.
    post_max_users: u64,
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
pub struct Sampled {
    pub server_ticks: u64,
    pub network: Option<NetworkBytes>,
    /// On two hosts: other processes' share of the server host's CPUs.
    pub server_host_other_cpu_percent: Option<f64>,
    /// Ticks of other processes: the machine's busy ticks less the server's and the loader's.
    pub other_cpu_percent: f64,
    pub steal_percent: Option<f64>,
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

/// The load of one invocation of a tool: one scenario against one address. The only place a [`LoadSpec`] is built.
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

impl<'a> Runner<'a> {
    pub fn new(plan: &'a Plan, tool: Box<dyn LoadTool>, scripts: BTreeMap<String, PathBuf>) -> Runner<'a> {
        Runner {
            plan,
            tool,
            hz: procstat::ticks_per_second(),
            scripts,
            post_max_users: Calibration::default().post_max_users(),
            calibration: Calibration::default(),
            interface: None,
        }
    }

    /// Records each run's bytes through `interface` (two hosts: the loader's interface to the server host).
    pub fn with_interface(self, interface: Option<String>) -> Runner<'a> {
        Runner { interface, ..self }
    }

    /// The same procedure for another plan (the runs after preflight use the plan without the subjects left out).
    pub fn for_plan<'b>(self, plan: &'b Plan) -> Runner<'b>
    where
        'a: 'b,
    {
        Runner { plan, ..self }
    }

    /// The runs after preflight read its calibration (the store of the POST runs).
    pub fn calibrated(self, calibration: Calibration) -> Runner<'a> {
        Runner { post_max_users: calibration.post_max_users(), calibration, ..self }
    }

    /// A [`RunSpec`] of the plan's closed-loop tool, with the plan's warm-up and duration and no memory readings.
    pub fn spec<'s>(&'s self, subject: &'s SubjectSpec, scenario: &'s Scenario, connections: u32) -> RunSpec<'s> {
        RunSpec {
            subject,
            max_users: None,
            tool: self.tool.as_ref(),
            scenario,
            connections,
            warmup_s: self.plan.settings.warmup_s,
            duration_s: self.plan.settings.duration_s,
            rate: None,
            memory_after: None,
        }
    }

    /// The run procedure: waits (bounded) for an idle machine, starts a fresh subject, warms it up, loads it with
    /// `/proc` sampled around the load (and its memory read before and after, when asked), and stops it.
    pub fn run(&self, spec: &RunSpec) -> Result<RunRecord> {
        let plan = self.plan;
        let (idle_wait_s, machine_idle) =
            procstat::wait_for_idle(plan.settings.idle_wait_max_s, plan.settings.idle_threshold_percent);
        let server = subject::start(spec.subject, &plan.start_options(spec.max_users))?;
        let listen_backlog = env::listen_backlog_on(&server.host, server.addr.port());
        let memory_of = |server: &Running| procstat::tree_memory_on(&server.host, server.pid);
        let idle = match spec.memory_after {
            Some(settle) => {
                std::thread::sleep(settle);
                Some(memory_of(&server)?)
            }
            None => None,
        };
        let base = format!("http://{}", server.addr);
        let load_of = |secs| {
            let mut load = load_spec(plan, spec.scenario, &base, spec.connections, secs, spec.rate);
            load.script = self.scripts.get(&spec.scenario.name).cloned();
            load
        };
        let warmup = match spec.warmup_s {
            0 => None,
            secs => Some(tools::invoke(spec.tool, &load_of(secs), plan.loader_pin()).context("warm-up")?),
        };
        let before = Window::now(&server, self.interface.as_deref())?;
        let load = tools::invoke(spec.tool, &load_of(spec.duration_s), plan.loader_pin())?;
        let after = Window::now(&server, self.interface.as_deref())?;
        let memory = match idle {
            Some(idle) => Some((idle, memory_of(&server)?)),
            None => None,
        };
        let (server_command, startup, server_here) = (server.command.clone(), server.startup, server.host.is_local());
        server.stop()?;
        Ok(RunRecord {
            server_command,
            startup,
            idle_wait_s,
            machine_idle,
            listen_backlog,
            warmup,
            loader_cpu_percent: plan.loader_cpu_percent(spec.tool, load.cpu_us, load.wall_s),
            sampled: Sampled::between(&before, &after, load.cpu_us / 1e6 * self.hz, server_here),
            load,
            memory,
        })
    }

    /// One measured run, checked for statuses its scenario does not expect: such a run is no throughput figure. On a
    /// server whose store can grow it is rerun once with a larger store; otherwise, or if the rerun fails the same
    /// way, it is kept in `runs` but left out of the summaries, with the reason.
    pub fn checked_run(&mut self, spec: &SubjectSpec, scenario: &Scenario, connections: u32, repeat: u32) -> Checked {
        let mut out = Checked::default();
        if let Err(e) = self.checked_into(&mut out, spec, scenario, connections, repeat) {
            out.error = Some(e);
        }
        out
    }

    fn checked_into(
        &mut self,
        out: &mut Checked,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
    ) -> Result<()> {
        let max_users = (scenario.writes() && spec.accepts_max_users()).then_some(self.post_max_users);
        let mut run = self.load_run(spec, scenario, connections, repeat, max_users)?;
        if run.unexpected_responses == 0 {
            out.runs.push(run);
            return Ok(());
        }
        let window = self.plan.settings.warmup_s + self.plan.settings.duration_s;
        let sizing = self.calibration.store.as_ref();
        let larger = max_users.and_then(|m| store::larger_store(m, run.requests_per_sec, window, sizing));
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
            self.post_max_users = m;
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
        &self,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        repeat: u32,
        max_users: Option<u64>,
    ) -> Result<LoadRun> {
        let rec = self.run(&RunSpec { max_users, ..self.spec(spec, scenario, connections) })?;
        let r = rec.load.result;
        // A service the harness did not start has no process of ours to read: its CPU is not measured (None), not 0.
        let outside = !spec.started_by_harness();
        let server_cpu_ms = rec.sampled.server_ticks as f64 * 1000.0 / self.hz;
        Ok(LoadRun {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            connections,
            repeat,
            tool: self.tool.name().into(),
            command: rec.load.command,
            server_command: rec.server_command,
            max_users,
            duration_s: r.duration_s,
            requests: r.requests,
            requests_per_sec: r.requests_per_sec,
            latency: r.latency,
            errors: r.errors,
            non_2xx: r.non_2xx,
            server_cpu_ms,
            server_cpu_us_per_request: (r.requests > 0 && !outside).then(|| server_cpu_ms * 1000.0 / r.requests as f64),
            loader_cpu_percent: rec.loader_cpu_percent,
            loader_bound: rec.loader_cpu_percent >= LOADER_BOUND_PERCENT,
            other_cpu_percent: rec.sampled.other_cpu_percent,
            idle_wait_s: rec.idle_wait_s,
            machine_idle: rec.machine_idle,
            steal_percent: rec.sampled.steal_percent,
            listen_backlog: rec.listen_backlog,
            unexpected_responses: scenario.expected.unexpected(r.requests, r.non_2xx),
            left_out: None,
            network: rec.sampled.network,
            server_host_other_cpu_percent: rec.sampled.server_host_other_cpu_percent,
            raw_output: rec.load.stdout,
        })
    }

    /// One run at a fixed rate with an open-loop tool (oha or autocannon, chosen by `execute`).
    pub fn open_loop_run(
        &self,
        tool: &dyn LoadTool,
        spec: &SubjectSpec,
        scenario: &Scenario,
        connections: u32,
        (fraction, rate): (f64, f64),
    ) -> Result<OpenLoopRun> {
        let duration_s = self.plan.settings.open_loop_duration_s;
        let rec =
            self.run(&RunSpec { tool, duration_s, rate: Some(rate), ..self.spec(spec, scenario, connections) })?;
        let r = rec.load.result;
        Ok(OpenLoopRun {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            connections,
            fraction,
            asked_rps: rate,
            achieved_rps: r.requests_per_sec,
            tool: tool.name().into(),
            command: rec.load.command,
            latency_corrected: tool.open_loop().is_some_and(|o| o.latency_corrected),
            latency: r.latency,
            errors: r.errors,
            non_2xx: r.non_2xx,
            raw_output: rec.load.stdout,
        })
    }

    /// One memory run: idle memory after the settle time, then the GET load (no warm-up), then memory again.
    pub fn memory_run(&self, spec: &SubjectSpec, repeat: u32) -> Result<MemoryRun> {
        let s = &self.plan.settings;
        let scenario = self.plan.memory_scenario();
        let rec = self.run(&RunSpec {
            warmup_s: 0,
            duration_s: s.memory_duration_s,
            memory_after: Some(Duration::from_millis(s.memory_settle_ms)),
            ..self.spec(spec, &scenario, s.memory_connections)
        })?;
        let (idle, after_load) = rec.memory.expect("asked for");
        Ok(MemoryRun {
            subject: spec.name.clone(),
            repeat,
            server_command: rec.server_command,
            startup_ms: rec.startup.as_secs_f64() * 1000.0,
            idle,
            after_load,
            load_command: rec.load.command,
            load_requests_per_sec: rec.load.result.requests_per_sec,
        })
    }
}
