//! Measure: the harness's one run procedure. [`Runner::run`] starts a fresh subject (after the bounded wait for an
//! idle machine), drives it with a load tool (a discarded warm-up first), samples `/proc` around the measured part,
//! stops the subject, and returns a [`RunRecord`]. Preflight's calibrations and every phase of `execute` go through
//! it, each turning the record into its own raw record ([`LoadRun`], [`OpenLoopRun`], [`MemoryRun`], or preflight's).
//!
//! Two seams are kept in one place each: [`Runner::run`] is the only place a subject is started for a measurement,
//! and [`Window`] plus the memory readings in it are the only places a run reads `/proc`. Both go through the
//! subject's [`crate::machine::host::Host`], so on two hosts (`--server-host`) the server is started and its `/proc` read on the
//! server host, while the machine's counters (and the loader interface's bytes) are read here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::analyse::summarise::LOADER_BOUND_PERCENT;
use crate::machine::host::{self, Host};
use crate::machine::procstat::{self, MachineTicks};
use crate::plan::{Plan, Scenario};
use crate::run::disturbance::{self, Disturbance};
use crate::run::store_size::{self, Calibration};
use crate::schema::{LoadRun, Memory, MemoryRun, NetworkBytes, OpenLoopRun};
use crate::subjects::process::{self, Running, StartOptions, SubjectSpec};
use crate::tools::{self, Invocation, LoadSpec, LoadTool};

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
    /// At a fixed rate, with the server on this machine: what disturbed the measured part (`crate::run::disturbance`).
    pub disturbance: Option<Disturbance>,
    /// When the measured load began, in seconds since the Unix epoch.
    pub load_started_unix_s: f64,
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
    /// The warm-up of the subjects whose warm-up probe lengthened it (`crate::analyse::warmup::extended_warmup`), by name.
    warmups: BTreeMap<String, u64>,
}

/// What a warm-up probe's load measured (see [`Runner::series`]).
#[derive(Default)]
pub struct Series {
    /// The command of one second's run (every second's is the same).
    pub command: String,
    pub per_second_rps: Vec<f64>,
    /// Whether the machine was idle when the probe began, and the share of it other processes used during it.
    pub machine_idle: bool,
    pub other_cpu_percent: f64,
}

/// Reruns a closed-loop run gets when the machine was busy during it, before it is left out.
pub const BUSY_RERUNS: u32 = 2;

/// A checked closed-loop run (see [`Runner::checked_run`]): the records it produced (one, or more with reruns; those
/// that are no figure say why in `left_out`), the lines the console should show, and the error that stopped it, if
/// any (the records made before the error are kept).
#[derive(Default)]
pub struct Checked {
    pub runs: Vec<LoadRun>,
    pub notes: Vec<String>,
    pub error: Option<anyhow::Error>,
}
/// The machine-wide and server-side CPU counters of `/proc`, read before and after the measured part of a run; on two
/// hosts, also the byte counters of the loader's interface to the server host.
struct Window {
    server_ticks: u64,
    machine: MachineTicks,
    network: Option<NetworkBytes>,
    /// The server host's ticks, on two hosts.
    server_host: Option<MachineTicks>,
}

impl Window {
    /// The server's counters are read on its host (over ssh on a server host), the machine's here.
    fn now(server: &Running, interface: Option<&str>) -> Result<Window> {
        Ok(Window {
            server_ticks: server.host.tree_ticks(server.pid)?,
            machine: Host::Local.machine_ticks()?,
            network: interface.and_then(host::interface_bytes),
            server_host: match server.host.is_local() {
                true => None,
                false => Some(server.host.machine_ticks()?),
            },
        })
    }
}

/// The processes of the server's tree on this machine (the server and its workers).
pub(crate) fn tree_pids(server: &Running) -> Vec<i32> {
    let all = server.host.processes().unwrap_or_default();
    procstat::tree_of(&all, server.pid).iter().map(|p| p.pid).collect()
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
        let server_here_ticks = if server_here { server_ticks as f64 } else { 0.0 };
        let (b, a) = (before.machine, after.machine);
        let steal_total = a.total.saturating_sub(b.total) as f64;
        Sampled {
            server_ticks,
            network: before.network.zip(after.network).map(|(a, b)| host::bytes_since(a, b)),
            server_host_other_cpu_percent: before
                .server_host
                .zip(after.server_host)
                .map(|(b, a)| other_percent(b, a, server_ticks as f64)),
            other_cpu_percent: other_percent(b, a, server_here_ticks + loader_ticks),
            steal_percent: (steal_total > 0.0).then(|| a.steal.saturating_sub(b.steal) as f64 / steal_total * 100.0),
        }
    }
}

/// The share of a machine's CPUs that processes other than the measured ones used between two readings of its
/// ticks, `measured` being the ticks of the measured ones.
fn other_percent(before: MachineTicks, after: MachineTicks, measured: f64) -> f64 {
    let total = after.total.saturating_sub(before.total) as f64;
    let other = after.busy.saturating_sub(before.busy) as f64 - measured;
    if total > 0.0 { (other.max(0.0) / total * 100.0).min(100.0) } else { 0.0 }
}

/// Waits, at most `max_s` seconds, until this machine's busy CPU (everything, this process included, which is idle
/// while it waits) is under `threshold_percent`. Returns (seconds waited, whether it was idle).
pub(crate) fn wait_for_idle(max_s: f64, threshold_percent: f64) -> (f64, bool) {
    let start = std::time::Instant::now();
    loop {
        let before = Host::Local.machine_ticks().unwrap_or_default();
        std::thread::sleep(Duration::from_millis(200));
        let after = Host::Local.machine_ticks().unwrap_or_default();
        let busy = other_percent(before, after, 0.0);
        let waited = start.elapsed().as_secs_f64();
        if busy < threshold_percent {
            return (waited, true);
        }
        if waited >= max_s {
            return (waited, false);
        }
    }
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
            warmups: BTreeMap::new(),
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

    /// From now on, `subject`'s runs warm up for `seconds` (its warm-up probe said the plan's was too short).
    pub fn lengthen_warmup(&mut self, subject: &str, seconds: u64) {
        self.warmups.insert(subject.to_string(), seconds);
    }

    /// The store of a measured run of `spec` on `scenario`: the POST runs' store for a scenario that writes.
    pub fn max_users_for(&self, spec: &SubjectSpec, scenario: &Scenario) -> Option<u64> {
        (scenario.writes() && spec.accepts_max_users()).then_some(self.post_max_users)
    }

    /// The load of one invocation against `base`, with the scenario's script (wrk's Lua), as the measured runs have.
    pub fn load_of(&self, scenario: &Scenario, base: &str, connections: u32, secs: u64) -> LoadSpec {
        let mut load = load_spec(self.plan, scenario, base, connections, secs, None);
        load.script = self.scripts.get(&scenario.name).cloned();
        load
    }

    /// The warm-up of `subject`'s runs when its probe lengthened it.
    pub fn lengthened_warmup(&self, subject: &str) -> Option<u64> {
        self.warmups.get(subject).copied()
    }

    /// A [`RunSpec`] of the plan's closed-loop tool, with the plan's warm-up (or the subject's lengthened one) and
    /// duration and no memory readings.
    pub fn spec<'s>(&'s self, subject: &'s SubjectSpec, scenario: &'s Scenario, connections: u32) -> RunSpec<'s> {
        RunSpec {
            subject,
            max_users: None,
            tool: self.tool.as_ref(),
            scenario,
            connections,
            warmup_s: self.lengthened_warmup(&subject.name).unwrap_or(self.plan.settings.warmup_s),
            duration_s: self.plan.settings.duration_s,
            rate: None,
            memory_after: None,
        }
    }

    /// Starts a fresh subject as the plan says (pinned, on its host), with a store of `max_users` and a head time
    /// limit when given: the only place the harness starts a subject, for a run or for its verification.
    pub fn start(&self, spec: &SubjectSpec, max_users: Option<u64>, header_timeout_ms: Option<u64>) -> Result<Running> {
        process::start(spec, &StartOptions { header_timeout_ms, ..self.plan.start_options(max_users) })
    }

    /// The run procedure: waits (bounded) for an idle machine, starts a fresh subject, warms it up, loads it with
    /// `/proc` sampled around the load (and its memory read before and after, when asked), and stops it.
    pub fn run(&self, spec: &RunSpec) -> Result<RunRecord> {
        let plan = self.plan;
        let (idle_wait_s, machine_idle) =
            wait_for_idle(plan.settings.idle_wait_max_s, plan.settings.idle_threshold_percent);
        let server = self.start(spec.subject, spec.max_users, None)?;
        let listen_backlog = server.host.listen_backlog(server.addr.port());
        let memory_of = |server: &Running| server.host.tree_memory(server.pid);
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
        // At a fixed rate (the capacity search's windows), the kernel's counters of who ran and who waited for a CPU.
        let watch = spec.rate.is_some() && server.host.is_local();
        let ours = if watch { tree_pids(&server) } else { Vec::new() };
        let own = || watch.then(|| disturbance::run_delay_ns(&ours));
        let (stall_before, own_before) = (watch.then(disturbance::cpu_stall_us).flatten(), own());
        let before = Window::now(&server, self.interface.as_deref())?;
        let load_started = std::time::SystemTime::now();
        let (load, sampled) =
            tools::invoke_sampled(spec.tool, &load_of(spec.duration_s), plan.loader_pin(), watch.then_some(&ours[..]))?;
        let after = Window::now(&server, self.interface.as_deref())?;
        let (stall_after, own_after) = (watch.then(disturbance::cpu_stall_us).flatten(), own());
        let disturbance = match (stall_before.zip(stall_after), own_before.zip(own_after), sampled) {
            (Some((s0, s1)), Some((o0, o1)), Some(sampled)) => Some(Disturbance {
                cpu_stall_ms: s1.saturating_sub(s0) as f64 / 1e3,
                subject_run_delay_ms: o1.saturating_sub(o0) as f64 / 1e6,
                loader_run_delay_ms: sampled.loader_run_delay_ns as f64 / 1e6,
                others_cpu_ms: Some(sampled.others_ns as f64 / 1e6),
                others_max_slice_ms: Some(sampled.others_max_slice_ns as f64 / 1e6),
                rerun: false,
            }),
            _ => None,
        };
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
            disturbance,
            load_started_unix_s: load_started.duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
        })
    }

    /// A warm-up probe's load: after the bounded wait for an idle machine, a fresh subject loaded by `seconds`
    /// back-to-back one-second runs of the spec's tool (its warm-up and duration are not used), each a run of its
    /// own with the arguments of the measured runs but the duration. Only the machine's other processes are
    /// sampled around it, to tell a warm-up from a busy machine's noise: no figure counts it.
    pub fn series(&self, spec: &RunSpec, seconds: u64) -> Result<Series> {
        let plan = self.plan;
        let (_, machine_idle) = wait_for_idle(plan.settings.idle_wait_max_s, plan.settings.idle_threshold_percent);
        let server = self.start(spec.subject, spec.max_users, None)?;
        let base = format!("http://{}", server.addr);
        let mut load = load_spec(plan, spec.scenario, &base, spec.connections, 1, spec.rate);
        load.script = self.scripts.get(&spec.scenario.name).cloned();
        let mut out = Series { machine_idle, ..Series::default() };
        let mut loader_us = 0.0;
        let before = Window::now(&server, None)?;
        for second in 1..=seconds {
            // A failed second ends the probe; the server is stopped when it is dropped.
            let run = tools::invoke(spec.tool, &load, plan.loader_pin())
                .with_context(|| format!("second {second} of the warm-up probe"))?;
            out.per_second_rps.push(run.result.requests_per_sec);
            (out.command, loader_us) = (run.command, loader_us + run.cpu_us);
        }
        let after = Window::now(&server, None)?;
        let server_here = server.host.is_local();
        out.other_cpu_percent =
            Sampled::between(&before, &after, loader_us / 1e6 * self.hz, server_here).other_cpu_percent.max(0.0);
        server.stop()?;
        Ok(out)
    }

    /// The store of a probe's server, for a scenario that writes: the POST runs' store, scaled from their warm-up
    /// and duration to the probe's length so that it does not fill.
    pub fn probe_store(&self, spec: &SubjectSpec, scenario: &Scenario, seconds: u64) -> Option<u64> {
        let s = &self.plan.settings;
        let scale = seconds.div_ceil((s.warmup_s + s.duration_s).max(1)).max(1);
        (scenario.writes() && spec.accepts_max_users())
            .then(|| (self.post_max_users.saturating_mul(scale)).min(crate::schema::MAX_MAX_USERS))
    }

    /// One measured run, checked: a run is rerun when it is no throughput figure, and kept in `runs` but left out
    /// of the summaries (with the reason) when the rerun cannot help. Two things make a run no figure:
    /// - statuses its scenario does not expect (a full store answers 507): on a server whose store can grow it is
    ///   rerun once with a larger store, which the later runs keep;
    /// - a busy machine: other processes used more than the idle threshold (`--idle-threshold`, the one threshold
    ///   of the idle wait too) of this machine, or of the server host, during the run: rerun up to
    ///   [`BUSY_RERUNS`] times.
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
        let mut max_users = (scenario.writes() && spec.accepts_max_users()).then_some(self.post_max_users);
        let (mut store_reruns, mut busy_reruns) = (0, 0);
        loop {
            let mut run = self.load_run(spec, scenario, connections, repeat, max_users)?;
            let threshold = self.plan.settings.idle_threshold_percent;
            let busy = run.other_cpu_percent.max(run.server_host_other_cpu_percent.unwrap_or(0.0));
            let (reason, again) = if run.unexpected_responses > 0 {
                let what = unexpected_sentence(&run, scenario);
                let window = self.plan.settings.warmup_s + self.plan.settings.duration_s;
                let sizing = self.calibration.store.as_ref();
                let larger = max_users.and_then(|m| store_size::larger_store(m, run.requests_per_sec, window, sizing));
                match larger.filter(|_| store_reruns == 0) {
                    Some(m) => {
                        (store_reruns, self.post_max_users, max_users) = (1, m, Some(m));
                        (format!("{what}; rerun once with --max-users {m}, which the later runs keep"), true)
                    }
                    None if store_reruns > 0 => (format!("{what} (the rerun); left out of the summary"), false),
                    None => (format!("{what}; not a throughput figure, left out of the summary"), false),
                }
            } else if busy > threshold {
                let what = format!("other processes used {busy:.0} % of the machine (threshold {threshold:.0} %)");
                busy_reruns += 1;
                match busy_reruns <= BUSY_RERUNS {
                    true => (format!("{what}; rerun ({busy_reruns} of at most {BUSY_RERUNS})"), true),
                    false => (format!("{what}, still after {BUSY_RERUNS} reruns; left out of the summary"), false),
                }
            } else {
                out.runs.push(run);
                return Ok(());
            };
            out.notes.push(format!("{} {} c={connections} #{repeat}: {reason}", spec.name, scenario.name));
            run.left_out = Some(reason);
            out.runs.push(run);
            if !again {
                return Ok(());
            }
        }
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
        // A service the harness did not start is not measured (None, not 0): the owner of its listening socket, when
        // on this machine, is read only to keep its CPU out of the other processes' figure, as it may be one of many.
        let outside = !spec.started_by_harness();
        let server_cpu_ms = rec.sampled.server_ticks as f64 * 1000.0 / self.hz;
        Ok(LoadRun {
            subject: spec.name.clone(),
            scenario: scenario.name.clone(),
            connections,
            repeat,
            tool: self.tool.kind(),
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
            tool: tool.kind(),
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
