//! The run procedure's decisions, end to end with tiny runs: a run on a machine kept busy is rerun and then left out;
//! a subject that exits before it is ready is left out while the others are measured; a service fairpair did not
//! start is neither pinned nor counted as the machine's other processes, so that one burning CPU while it serves is
//! not flagged busy by its own CPU. Needs wrk and python3 (CI has both); fails, rather than passes, without them.
//!
//! The tests run one at a time (a lock): the CPU hog of one would make every other's machine busy.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;

use fairpair::schema::{Benchmark, FlagKind, VerificationStatus};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A process killed when dropped (also when an assertion fails).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `fairpair run` with 1 s runs, one repeat, no memory and no open-loop phase, and `args`.
fn run(name: &str, args: &[&str]) -> (Output, Benchmark, PathBuf) {
    common::require_wrk();
    let users_server = common::sibling_binary("users-server").display().to_string();
    let out = common::temp_dir(name);
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["run", "--quick", "--scenarios", "get", "--connections", "4", "--duration", "1", "--warmup", "0"])
        .args(["--repeats", "1", "--memory-repeats", "0", "--open-loop-rates", "0", "--idle-wait", "0"])
        .args(["--users-server", &users_server])
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(out.join("benchmark.json"))
        .unwrap_or_else(|e| panic!("no results ({e}): {}", String::from_utf8_lossy(&output.stderr)));
    (output, serde_json::from_str(&text).unwrap(), out)
}

/// One busy loop per CPU, stopped when dropped, and ending by itself after two minutes if the test dies first.
/// The loop is bash's own (arithmetic on `SECONDS`, no program started), so the process killed is the one that
/// spins: a loop under `timeout` outlived the test, because SIGKILL ends `timeout` without reaching its child.
fn cpu_hogs() -> Vec<Killed> {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    (0..cpus)
        .map(|_| Killed(Command::new("bash").args(["-c", "while (( SECONDS < 120 )); do :; done"]).spawn().unwrap()))
        .collect()
}

#[test]
fn a_run_on_a_busy_machine_is_rerun_twice_then_left_out() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let hogs = cpu_hogs();
    let (output, bench, dir) = run("busy", &["--subjects", "rust", "--idle-threshold", "10"]);
    drop(hogs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The run and its two reruns, each with other processes above the threshold, each left out with its reason.
    assert_eq!(bench.runs.len(), 3, "{:?}", bench.runs.iter().map(|r| &r.left_out).collect::<Vec<_>>());
    for (i, r) in bench.runs.iter().enumerate() {
        assert!(r.other_cpu_percent > 10.0, "the hogs used the machine: {}", r.other_cpu_percent);
        let why = r.left_out.as_deref().unwrap_or_else(|| panic!("run {i} kept: {r:?}"));
        assert!(why.starts_with("other processes used"), "{why}");
        assert!(why.contains(if i < 2 { "; rerun (" } else { "still after 2 reruns" }), "{why}");
    }
    assert!(bench.summaries.is_empty(), "a cell with no run kept has no median and no verdict");
    let busy: Vec<_> = bench.flags.iter().filter(|f| f.kind == FlagKind::BusyMachine).collect();
    assert_eq!(busy.len(), 1, "the run left out for good is flagged once: {busy:?}");
    assert!(stderr.contains("rust get c=4 #1: other processes used"), "said as it happens: {stderr}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("## Left out") && report.contains("3 runs are left out"), "{report}");
}

#[test]
fn the_warm_up_probe_is_a_series_of_one_second_runs_on_one_fresh_process_apart_from_the_measured_runs() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (output, bench, out) =
        run("warmup-probe", &["--subjects", "rust", "--warmup-probe", "3", "--idle-threshold", "100"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(bench.settings.warmup_probe_s, 3);
    let [probe] = &bench.warmup_probes[..] else { panic!("one probe: {:?}", bench.warmup_probes) };
    assert_eq!((probe.subject.as_str(), probe.scenario.as_str(), probe.connections), ("rust", "get", 4));
    assert_eq!(probe.per_second_rps.len(), 3);
    assert!(probe.per_second_rps.iter().all(|&r| r > 0.0) && probe.steady_rps > 0.0, "{probe:?}");
    assert!(probe.command.contains("-d 1s") && probe.command.contains("127.0.0.1"), "{}", probe.command);
    // The measured run is its own: one run, which the probe's seconds are no part of.
    assert_eq!(bench.runs.len(), 1);
    assert!(stderr.contains("warm-up probe of rust: "), "{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Warm-up") && report.contains("| rust | "), "{report}");
}

#[test]
fn a_subject_that_exits_before_it_is_ready_is_left_out_and_the_others_measured() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bad = "bad=python3 no-such-file.py --port {port}";
    let (output, bench, _) = run("did-not-start", &["--subjects", "rust", "--subject", bad, "--idle-threshold", "100"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "a subject asked for and not measured fails the run: {stderr}");
    assert!(stderr.contains("bad: DID NOT START"), "said loudly: {stderr}");
    assert!(stderr.contains("NOT measured (did not start, or failed verification): bad"), "{stderr}");
    let measured: Vec<&str> = bench.runs.iter().map(|r| r.subject.as_str()).collect();
    assert_eq!(measured, ["rust"]);
    let bad = bench.subjects.iter().find(|s| s.name == "bad").unwrap();
    assert_eq!(bad.verification.status, VerificationStatus::DidNotStart);
    assert!(bench.skipped.iter().any(|s| s.starts_with("bad: did not start")), "{:?}", bench.skipped);
}

/// The example service of docs/own-service.md (a Python `http.server`), started by the test on a free port, with its URL.
fn start_service() -> (Killed, String) {
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/users_service.py");
    let mut child = Command::new("python3")
        .arg(example)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for this test (CI has it)");
    let stdout = child.stdout.take().unwrap();
    let child = Killed(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = contract::StartupLine::parse(&line).unwrap_or_else(|| panic!("no start-up line: {line:?}")).url();
    (child, url)
}

#[test]
fn a_running_service_is_said_to_be_uncontrolled_and_its_cpu_is_its_own() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_service, url) = start_service();
    let subject = format!("svc={url}");
    let args = ["--subjects", "rust", "--subject", &subject, "--level", "api", "--idle-threshold", "100"];
    let (output, bench, dir) = run("running-service", &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let svc = bench.runs.iter().find(|r| r.subject == "svc").expect("the service was measured");
    // The owner of its listening socket (python3, on this machine) is known: its CPU time is read, to be kept out of
    // the machine's other processes' (which decide a busy machine), but not claimed as the service's measured CPU.
    assert!(svc.server_cpu_ms > 0.0 && svc.server_cpu_us_per_request.is_none(), "{svc:?}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("svc: running services fairpair neither started nor pinned"), "{report}");
    assert!(
        bench.skipped.iter().any(|s| s.starts_with("svc: server CPU, memory and start-up not measured")),
        "{:?}",
        bench.skipped
    );
}

/// This machine's CPUs, as `/proc/stat` counts them: the busy figure is a share of all of them.
fn machine_cpus() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    stat.lines().filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit)).count() as f64
}

/// The share of the machine's CPUs busy over two seconds (idle and iowait ticks are idle), as fairpair counts it.
fn machine_busy_percent() -> f64 {
    let ticks = || -> (u64, u64) {
        let stat = std::fs::read_to_string("/proc/stat").unwrap();
        let fields: Vec<u64> =
            stat.lines().next().unwrap().split_whitespace().skip(1).map(|f| f.parse().unwrap()).collect();
        let total: u64 = fields.iter().take(8).sum();
        (total - fields[3] - fields[4], total)
    };
    let (busy, total) = ticks();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let (busy_after, total_after) = ticks();
    (busy_after - busy) as f64 / (total_after - total).max(1) as f64 * 100.0
}

#[test]
fn a_running_service_that_burns_cpu_while_serving_does_not_make_its_own_runs_busy() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // The Python service answers on one thread at a time (the GIL), so under wrk it keeps up to one CPU busy. The
    // threshold is what the machine's other processes use now plus half of one CPU's share of the machine: below
    // what the service adds, so that its runs would be busy (rerun twice, then left out) if its CPU counted as the
    // other processes', and a margin of that half CPU for the others to vary (other engineers' builds here).
    let (cpus, background) = (machine_cpus(), machine_busy_percent());
    let margin = 50.0 / cpus;
    let threshold = background + margin;
    assert!(threshold < 90.0, "the machine is too busy for this test: {background:.0} % of it in use before it began");
    let (_service, url) = start_service();
    let subject = format!("svc={url}");
    let threshold_arg = format!("{threshold:.1}");
    let args = ["--subjects", "", "--subject", &subject, "--level", "api", "--idle-threshold", &threshold_arg];
    let (output, bench, dir) = run("busy-service", &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let runs: Vec<String> = bench.runs.iter().map(|r| format!("{:?}", (r.other_cpu_percent, &r.left_out))).collect();
    let kept = bench.runs.iter().find(|r| r.left_out.is_none());
    let kept = kept.unwrap_or_else(|| panic!("left out (threshold {threshold:.0} %): {runs:?}"));
    let service_percent = kept.server_cpu_ms / (kept.duration_s * 1000.0 * cpus) * 100.0;
    assert!(service_percent > margin, "the service burned {service_percent:.0} % of the machine while serving");
    assert!(kept.other_cpu_percent <= threshold, "{kept:?}");
    assert!(bench.flags.iter().all(|f| f.kind != FlagKind::BusyMachine), "{:?}", bench.flags);
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("svc: running services fairpair neither started nor pinned"), "{report}");
}
