//! One profiled run: a fresh server started as `how.rs` says, the measured runs' warm-up, then the same load as a
//! measured run under `perf record` of every process of the server, and what came of it: the samples folded and
//! sorted into parts, the runtime's pauses in the window, the folded stacks written into the results folder. No
//! figure of it goes into any throughput, latency or CPU summary.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::plan::ProfiledRun;
use crate::profile::how::{self, Profiled, Runtime};
use crate::profile::parts::{self, Rules};
use crate::profile::pauses::{self, Window};
use crate::profile::{fold, record};
use crate::run::measure::{self, Runner};
use crate::schema::{LoadRun, PartSamples, ProfileRun, Summary};
use crate::subjects::process::{self, Running, StartOptions};
use crate::tools;

/// The folder of the folded stacks, inside the results folder.
pub const PROFILES_DIR: &str = "profiles";

/// The folded file of a subject's profile on a scenario, relative to the results folder.
pub fn folded_file(subject: &str, scenario: &str) -> String {
    format!("{PROFILES_DIR}/{subject}-{scenario}.folded")
}

/// A temporary folder of the run, removed when dropped (perf.data, the runtime logs).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the window recorded, before the server is stopped.
struct Recorded {
    perf_script: String,
    pids: Vec<i32>,
    requests: u64,
    window_s: f64,
    /// The window in seconds since the server was spawned, as the runtimes' logs time their lines.
    window: Window,
    server_command: String,
    perf_command: String,
}

/// Profiles `run` (see the module's comment) and writes its folded stacks into `out`.
pub fn profile_run(
    runner: &Runner,
    run: &ProfiledRun,
    measured: (&[Summary], &[LoadRun]),
    out: &Path,
) -> Result<ProfileRun> {
    let (summaries, runs) = measured;
    let name = format!("{}-{}", run.subject.name, run.scenario.name);
    let dir = std::env::temp_dir().join(format!("fairpair-profile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let scratch = Scratch(dir);
    let profiled = how::profiled(run.subject, &scratch.0);
    let log = scratch.0.join("server.log");
    let recorded = record_window(runner, run, &profiled, &scratch.0, &log)?;
    record::remove_maps(&recorded.pids);
    let folded = fold::fold(&recorded.perf_script).context("folding perf script's output")?;
    let breakdown = parts::breakdown(&folded, &Rules::of(profiled.language));
    let (kept, dropped) = fold::bounded(&folded, fold::FOLDED_BOUND_BYTES);
    let file = folded_file(&run.subject.name, &run.scenario.name);
    std::fs::create_dir_all(out.join(PROFILES_DIR))?;
    std::fs::write(out.join(&file), &kept).with_context(|| format!("cannot write {file}"))?;
    let (pauses, loop_delay) = runtime_pauses(profiled.runtime, &scratch.0, &log, recorded.window);
    let (measured, measured_from_left_out) = measured_cpu(run, summaries, runs);
    Ok(ProfileRun {
        subject: run.subject.name.clone(),
        scenario: run.scenario.name.clone(),
        connections: run.connections,
        window_s: recorded.window_s,
        requests: recorded.requests,
        samples: breakdown.samples,
        resolved: breakdown.resolved,
        parts: breakdown.parts.iter().map(|(&part, &samples)| PartSamples { part, samples }).collect(),
        pauses,
        loop_delay,
        server_command: recorded.server_command,
        differences: profiled.differences,
        perf_command: recorded.perf_command,
        folded_file: file,
        folded_dropped_samples: dropped,
        measured_cpu_us_per_request: measured,
        measured_from_left_out,
        perf_samples: perf_samples(&recorded.perf_script),
        stacks: Some(kept),
    })
}

/// Why the plan's subjects that are not profiled are not, one sentence each: all of them on a server host, a
/// running service fairpair did not start.
pub fn not_profiled(plan: &crate::plan::Plan) -> Vec<String> {
    let mut out = Vec::new();
    if !plan.server_host.is_local() {
        out.push(format!(
            "no subject was profiled: the servers ran on {}, and perf records the processes of the machine it runs \
             on (profiling on a server host is not done)",
            plan.server_host.label()
        ));
    }
    for spec in plan.subjects.iter().filter(|s| !s.started_by_harness()) {
        out.push(format!(
            "{}: not profiled (a running service fairpair did not start, whose processes it cannot see)",
            spec.name
        ));
    }
    out
}

/// The samples of `perf script`'s text: one header line (not indented) per sample, its stack's lines indented.
pub fn perf_samples(script: &str) -> u64 {
    script.lines().filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace)).count() as u64
}

/// The subject's measured median server CPU per request at the profiled run's cell: its summary's; without one
/// (every run of the cell left out, on a busy machine) the median of the runs left out, and `true`.
fn measured_cpu(run: &ProfiledRun, summaries: &[Summary], runs: &[LoadRun]) -> (Option<f64>, bool) {
    let same = |subject: &str, scenario: &str, connections: u32| {
        subject == run.subject.name && scenario == run.scenario.name && connections == run.connections
    };
    let summary = summaries.iter().find(|s| same(&s.subject, &s.scenario, s.connections));
    if let Some(stat) = summary.and_then(|s| s.server_cpu_us_per_request.as_ref()) {
        return (Some(stat.median), false);
    }
    let mut each: Vec<f64> = runs
        .iter()
        .filter(|r| same(&r.subject, &r.scenario, r.connections))
        .filter_map(|r| r.server_cpu_us_per_request)
        .collect();
    each.sort_by(f64::total_cmp);
    match each.len() {
        0 => (None, false),
        n if n % 2 == 1 => (Some(each[n / 2]), true),
        n => (Some((each[n / 2 - 1] + each[n / 2]) / 2.0), true),
    }
}

/// Starts the profiled server, warms it up as the measured runs are, records the window, and stops it.
fn record_window(runner: &Runner, run: &ProfiledRun, profiled: &Profiled, dir: &Path, log: &Path) -> Result<Recorded> {
    let plan = runner.plan;
    let s = &plan.settings;
    measure::wait_for_idle(s.idle_wait_max_s, s.idle_threshold_percent);
    let max_users = runner.max_users_for(run.subject, run.scenario);
    let opts = StartOptions { keep_output: Some(log), ..plan.start_options(max_users) };
    let server = process::start(&profiled.spec, &opts)?;
    // The logs time their lines from the process's start, which was `startup` before it answered.
    let spawned = Instant::now() - server.startup;
    let base = format!("http://{}", server.addr);
    let warmup = runner.lengthened_warmup(&run.subject.name).unwrap_or(s.warmup_s);
    if warmup > 0 {
        let load = runner.load_of(run.scenario, &base, run.connections, warmup);
        tools::invoke(runner.tool.as_ref(), &load, plan.loader_pin()).context("warm-up")?;
    }
    let pids = measure::tree_pids(&server);
    // The timer runs a second past the load, so the window holds all of it; an idle server adds no samples.
    let target = record::Target::for_servers(plan.settings.pinned.then_some(s.server_cpus.as_slice()));
    let mut recording = record::start(&target, &pids, dir, s.duration_s + 1)?;
    let from_s = spawned.elapsed().as_secs_f64();
    let load = runner.load_of(run.scenario, &base, run.connections, s.duration_s);
    let done = tools::invoke(runner.tool.as_ref(), &load, plan.loader_pin())?;
    recording.wait()?;
    let to_s = spawned.elapsed().as_secs_f64();
    if profiled.runtime == Runtime::Jvm {
        java_perfmap(&server, &profiled.spec);
    }
    let perf_script = recording.script()?;
    let perf_command = recording.commands();
    let server_command = server.command.clone();
    server.stop()?;
    Ok(Recorded {
        perf_script,
        pids,
        requests: done.result.requests,
        window_s: done.result.duration_s,
        window: Window { from_s, to_s },
        server_command,
        perf_command,
    })
}

/// Asks the JVM to write its JIT's symbols to `/tmp/perf-PID.map` (JDK 17 and later), with the `jcmd` beside
/// its `java`, else the one on `PATH`. Without it the JIT frames stay addresses, which the resolved share shows.
fn java_perfmap(server: &Running, spec: &crate::subjects::process::SubjectSpec) {
    let java = match &spec.origin {
        crate::subjects::process::Origin::Builtin { program, .. } => program.first().cloned().unwrap_or_default(),
        _ => return,
    };
    let beside = Path::new(&java).with_file_name("jcmd");
    let jcmd = if beside.exists() { beside } else { PathBuf::from("jcmd") };
    let _ = std::process::Command::new(jcmd)
        .args([server.pid.to_string(), "Compiler.perfmap".to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// The runtime's pauses in the window, from the logs the profiled run kept.
fn runtime_pauses(
    runtime: Runtime,
    dir: &Path,
    log: &Path,
    window: Window,
) -> (Option<pauses::Pauses>, Option<pauses::LoopDelay>) {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    match runtime {
        Runtime::Native => (None, None),
        Runtime::Go => (Some(pauses::go_gctrace(&read(log), window)), None),
        Runtime::Jvm => (Some(pauses::jvm_gc_log(&read(&how::gc_log(dir)), window)), None),
        Runtime::Node => (Some(pauses::node_trace_gc(&read(log), window)), node_loop_delay(dir, window)),
    }
}

/// The worst event-loop delay of every Node process's file (`loop-delay.PID`).
fn node_loop_delay(dir: &Path, window: Window) -> Option<pauses::LoopDelay> {
    let prefix = how::loop_delay_prefix(dir);
    let stem = prefix.file_name()?.to_str()?.to_string() + ".";
    let entries = std::fs::read_dir(dir).ok()?;
    let files = entries.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().starts_with(&stem));
    let each = files.filter_map(|f| pauses::node_loop_delay(&std::fs::read_to_string(f.path()).ok()?, window));
    each.reduce(|a, b| pauses::LoopDelay { p99_ms: a.p99_ms.max(b.p99_ms), max_ms: a.max_ms.max(b.max_ms) })
}
