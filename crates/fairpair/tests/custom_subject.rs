//! `fairpair run` with a custom subject that fails verification: Python's `http.server` serving a directory, which
//! answers 200 on `/` and is no users API. Tiny durations, the ceiling as the only other subject. Needs wrk and
//! python3 (CI has both); fails, rather than passes, without them.
//!
//! Without `--allow-unverified` the console says at once that it fails, names the rules it fails, and the run stops
//! with exit 1 before anything is measured. A run that loads only GET asks a service the GET and HEAD cases alone,
//! so that a read-only service (`fixtures/api_only.py` with `get-only`) passes it. A subject measured with `--allow-unverified` (the Python users API
//! of `fixtures/api_only.py`, asked for `--level full`) is marked UNVERIFIED in every table row and chart label.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fairpair::schema::{Benchmark, CaseScope, VerificationStatus};

const BAD: &str = "bad=python3 -m http.server {port} --bind 127.0.0.1";

fn run(out_dir: &Path, subject: &str, extra: &[&str]) -> Output {
    run_with(out_dir, subject, "get", extra)
}

fn run_with(out_dir: &Path, subject: &str, scenarios: &str, extra: &[&str]) -> Output {
    common::require_wrk();
    common::sibling_binary("ceiling");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(&root)
        .args(["run", "--subjects", "ceiling", "--subject", subject, "--scenarios", scenarios])
        .args(["--connections", "4", "--warmup-probe", "0"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "1", "--memory-repeats", "1"])
        .args(["--memory-duration", "1", "--memory-connections", "4", "--open-loop-rates", "0", "--idle-wait", "0"])
        // The tests of this file run at once: each would see the others as a busy machine (and rerun its runs).
        .args(["--idle-threshold", "100"])
        .args(extra)
        .arg("--out")
        .arg(out_dir)
        .output()
        .unwrap()
}

fn load(out_dir: &Path) -> Benchmark {
    serde_json::from_str(&std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap()).unwrap()
}

#[test]
fn a_failing_subject_stops_the_run_before_anything_is_measured() {
    let out_dir = common::temp_dir("custom-failing");
    let output = run(&out_dir, BAD, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    // Verified first, with the GET and HEAD cases alone (the run loads only GET), and said at once.
    let verifying = lines.iter().position(|l| l.contains("verifying bad (contract level api, GET and HEAD cases only"));
    let said = lines
        .iter()
        .position(|l| l.contains("bad: FAILED verification at level api") && l.contains("will NOT be measured"))
        .unwrap_or_else(|| panic!("no verdict line:\n{stderr}"));
    assert!(verifying.is_some_and(|v| v < said), "{stderr}");
    // The failed rules as `fairpair verify` prints them, then the one line that ends the run.
    assert!(lines.iter().any(|l| l.contains("FAIL  get-health") || l.contains("FAIL  get-user")), "{stderr}");
    let last = lines.last().unwrap();
    assert!(last.contains("bad fails the contract, so the run stops before measuring anything"), "{stderr}");
    assert!(last.contains("--allow-unverified"), "{stderr}");
    // Nothing measured: no calibration, no run, no results file.
    assert!(!stderr.contains("preflight: loader capacity") && !stderr.contains("run 1/"), "{stderr}");
    assert!(!out_dir.join("benchmark.json").exists());
}

#[test]
fn a_get_only_service_passes_the_verification_of_a_get_only_run() {
    let out_dir = common::temp_dir("custom-get-only");
    let subject = "svc=python3 crates/fairpair/tests/fixtures/api_only.py {port} get-only";
    let output = run(&out_dir, subject, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let bench = load(&out_dir);
    let v = &bench.subjects.iter().find(|s| s.name == "svc").unwrap().verification;
    assert_eq!((v.status, v.scope), (VerificationStatus::Passed, CaseScope::Reads), "{v:?}");
    assert!(v.passed > 20 && v.failed == 0, "{v:?}");
    assert!(bench.runs.iter().any(|r| r.subject == "svc" && r.requests > 0));
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(md.contains("its GET and HEAD cases only (the run loads no POST)"), "{md}");
    // A run that loads POST asks it every case, and it has no POST route: the run stops at verification.
    let out_dir = common::temp_dir("custom-get-only-post");
    let output = run_with(&out_dir, subject, "get,post", &["--post-max-users", "20000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("FAIL  post-"), "{stderr}");
    assert!(stderr.lines().last().unwrap().contains("svc fails the contract"), "{stderr}");
}

#[test]
fn an_unverified_subject_measured_anyway_is_marked_in_the_report_and_charts() {
    let out_dir = common::temp_dir("custom-unverified");
    // The Python users API passes the api level and serves the load, but fails the full level it is asked for here.
    let subject = "bad=python3 crates/fairpair/tests/fixtures/api_only.py {port}";
    let output = run(&out_dir, subject, &["--allow-unverified", "--level", "full"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("bad: FAILED verification at level full") && stderr.contains("measured anyway"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.lines().any(|l| l.starts_with("bad (UNVERIFIED) ")), "console summary:\n{stdout}");
    assert!(stdout.contains("bad (UNVERIFIED) failed the contract"), "console verdicts:\n{stdout}");
    assert!(!stdout.contains("(UNVERIFIED) (UNVERIFIED)"), "marked once:\n{stdout}");
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ") && l.contains("bad")).collect();
    assert!(rows.len() >= 4, "{md}");
    assert!(rows.iter().all(|r| r.contains("bad (UNVERIFIED)")), "{rows:#?}");
    let svg = std::fs::read_to_string(out_dir.join("throughput.svg")).unwrap();
    assert!(svg.contains("bad (UNVERIFIED)"), "{svg}");
}

/// The Python users API started by the test, as a service fairpair finds running; killed when dropped.
struct Running(std::process::Child, String);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `python3 ARGS…` and returns it with the first line it printed (where it listens).
fn python(args: &[&std::ffi::OsStr]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = Command::new("python3")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (child, line)
}

fn running_service() -> Running {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/api_only.py");
    let (child, line) = python(&[script.as_os_str(), "0".as_ref()]);
    let url = contract::StartupLine::parse(&line).expect("start-up line").url();
    Running(child, url)
}

#[test]
fn a_running_service_is_verified_and_loaded_with_cpu_and_memory_not_measured() {
    let service = running_service();
    let out_dir = common::temp_dir("custom-external");
    let output = run(&out_dir, &format!("svc={}", service.1), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("svc: verified at level api"), "{stderr}");
    assert!(!stderr.contains("memory svc"), "no memory run for a service fairpair did not start:\n{stderr}");
    let bench = load(&out_dir);
    let svc = bench.subjects.iter().find(|s| s.name == "svc").unwrap();
    assert_eq!((svc.kind, svc.command.as_str()), (fairpair::schema::SubjectKind::External, service.1.as_str()));
    let runs: Vec<_> = bench.runs.iter().filter(|r| r.subject == "svc").collect();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].requests > 0 && runs[0].server_cpu_us_per_request.is_none(), "{:?}", runs[0]);
    assert!(bench.memory.iter().all(|m| m.subject != "svc"));
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(md.contains("| svc | not measured (a running service)"), "CPU table:\n{md}");
    assert!(md.contains("| svc | not measured (a running service fairpair did not start)"), "memory table:\n{md}");
    // The service is still up: fairpair does not stop what it did not start.
    let addr = service.1.trim_start_matches("http://");
    assert!(std::net::TcpStream::connect(addr).is_ok());
}

#[test]
fn a_url_subject_that_is_not_ready_is_named_so_and_is_never_the_baseline() {
    // A service that answers 404 everywhere, `/` included: http.server serving a folder that does not exist.
    let missing = common::temp_dir("custom-not-ready-www").join("absent");
    let mut args: Vec<&std::ffi::OsStr> =
        ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory"].iter().map(|a| a.as_ref()).collect();
    args.push(missing.as_os_str());
    let (child, line) = python(&args);
    // "Serving HTTP on 127.0.0.1 port 43211 (http://127.0.0.1:43211/) ..."
    let port = line.split(" port ").nth(1).and_then(|r| r.split(' ').next()).expect("a port").to_string();
    let service = Running(child, format!("http://127.0.0.1:{port}"));
    let out_dir = common::temp_dir("custom-not-ready");
    let output = run(&out_dir, &format!("mine={}", service.1), &["--allow-unverified", "--start-timeout", "2"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    // Never "started": what the ready path answered, and what fairpair waits for.
    assert!(stderr.contains("mine: NOT READY (") && !stderr.contains("DID NOT START"), "{stderr}");
    assert!(stderr.contains("answered 404 on GET / for 2s, never 200"), "{stderr}");
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let summary = &md[..md.find("## Environment").unwrap()];
    // Not the baseline of a run that never measured it (the summary said "No other subject … beside mine").
    assert!(summary.contains("No subject that implements the API was measured (mine not: see Subjects)"), "{md}");
    assert!(!md.contains("/ mine"), "no ratio column to an unmeasured subject:\n{md}");
    assert!(md.contains("| mine | `http://127.0.0.1:") && md.contains("not ready (mine: http://"), "{md}");
}
