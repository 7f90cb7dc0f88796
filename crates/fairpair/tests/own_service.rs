//! The recipe of docs/own-service.md, run on its worked example (`docs/examples/users_service.py`, a Python
//! `http.server`): `fairpair verify --level api` passes and the full contract does not, and a tiny `fairpair run`
//! measures it twice, once writing each response in one piece and once with `--split-writes` (head, then body,
//! without `TCP_NODELAY`), where the report must diagnose Nagle with delayed ACK and only there. Needs python3 and
//! wrk (CI has both); fails, rather than passes, without them.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use fairpair::analyse::diagnose::{Diagnosis, diagnose};
use fairpair::schema::Benchmark;

fn example() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/users_service.py");
    assert!(path.is_file(), "{} not found: the worked example of docs/own-service.md", path.display());
    path.canonicalize().unwrap()
}

/// The example on a free port, killed when dropped (also when an assertion fails).
struct Example(Child);

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_example() -> (Example, String) {
    let mut child = Command::new("python3")
        .arg(example())
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for this test (CI has it)");
    let stdout = child.stdout.take().unwrap();
    let child = Example(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = contract::StartupLine::parse(&line).unwrap_or_else(|| panic!("no start-up line: {line:?}")).url();
    (child, url)
}

#[test]
fn the_example_passes_the_api_level_and_not_the_full_contract() {
    let (_server, url) = start_example();
    let verify = |level: &str| {
        let out =
            Command::new(env!("CARGO_BIN_EXE_fairpair")).args(["verify", "--level", level, &url]).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // The API a real service implements: every case of that level passes.
    let (code, stdout) = verify("api");
    let tally = stdout.lines().last().unwrap_or_default();
    let passed: usize = tally
        .split(" passed")
        .next()
        .and_then(|n| n.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tally: {stdout}"));
    // Guard against a vacuous pass: the API cases were really run.
    assert!(passed >= 100 && tally.contains(" 0 failed"), "{stdout}");
    assert_eq!(code, Some(0), "{stdout}");
    // The full contract adds the transport hardening `http.server` leaves to its own parser: some of it fails,
    // grouped by rule.
    let (code, stdout) = verify("full");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("FAIL")), "{stdout}");
}

#[test]
fn a_quick_run_diagnoses_split_writes_and_only_them() {
    common::require_wrk();
    let script = example();
    let script = script.to_str().unwrap();
    let out_dir = common::temp_dir("own-service");
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["run", "--quick", "--subjects", ""])
        .args(["--subject", &format!("mine=python3 {script} --port {{port}}")])
        .args(["--subject", &format!("mine-split=python3 {script} --port {{port}} --split-writes")])
        .args(["--ready-path", "/health", "--scenarios", "get", "--connections", "8"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "1", "--open-loop-rates", "0"])
        // Other tests of this file run at once: a busy machine here is no reason to rerun.
        .args(["--idle-threshold", "100"])
        .args(["--memory-repeats", "0", "--idle-wait", "0"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap();
    let bench: Benchmark = serde_json::from_str(&text).unwrap();
    let p50 = |name: &str| {
        let s = bench.summaries.iter().find(|s| s.subject == name).unwrap_or_else(|| panic!("{name}: {stderr}"));
        s.p50_ms.median
    };
    // The mistake costs the delayed-ACK timer on every response; one write costs nothing like it.
    assert!(p50("mine-split") > 30.0 && p50("mine") < 20.0, "p50 {} vs {}", p50("mine-split"), p50("mine"));
    let found = diagnose(&bench);
    let nagle: Vec<&str> =
        found.iter().filter(|d| matches!(d, Diagnosis::NagleDelayedAck { .. })).map(|d| d.subject()).collect();
    // On failure, the figures the diagnosis reads: the p50 window and the server's share of its CPUs.
    let cells: Vec<String> = bench
        .summaries
        .iter()
        .map(|s| {
            let cpu = s.server_cpu_us_per_request.as_ref().map(|c| c.median);
            format!(
                "{}: p50 {} ms, {} req/s, server {cpu:?} µs/request",
                s.subject, s.p50_ms.median, s.requests_per_sec.median
            )
        })
        .collect();
    assert_eq!(nagle, ["mine-split"], "{found:?}; {cells:?}");
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Diagnoses"), "{report}");
    assert!(report.contains("**mine-split: Nagle's algorithm with delayed ACK?**"), "{report}");
    assert!(!report.contains("**mine: Nagle"), "{report}");
}
