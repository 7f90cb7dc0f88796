//! `fairpair report --compare`: the exit status a CI gate reads, both ways, and bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fairpair(args: &[&Path], flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairpair")).arg("report").arg("--compare").args(args).args(flags).output().unwrap()
}

/// The committed run of the first machine: schema version 1, three repeats per cell.
fn committed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/epyc-2vcpu-a/benchmark.json")
}

/// A copy of the committed run in which Rust's GET throughput at 300 connections fell to 60 % (every repeat, so the
/// ranges no longer overlap). At 50 connections the loader was at its limit in one run: a bound, which the gate
/// never fails on alone (tests/gate.rs).
fn slower_copy(dir: &Path) -> PathBuf {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(committed()).unwrap()).unwrap();
    let cell = v["summaries"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["subject"] == "rust" && s["scenario"] == "get" && s["connections"] == 300)
        .expect("the committed run has rust get at 300 connections");
    for key in ["median", "min", "max"] {
        let x = cell["requests_per_sec"][key].as_f64().unwrap();
        cell["requests_per_sec"][key] = serde_json::json!(x * 0.6);
    }
    let path = dir.join("slower.json");
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path
}

#[test]
fn fail_on_regression_fails_only_on_a_regression() {
    let dir = common::temp_dir("compare-gate");
    let (same, slower) = (committed(), slower_copy(&dir));

    let out = fairpair(&[&same, &slower], &["--fail-on-regression"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.matches("**worse, beyond the noise**").count(), 1, "{stdout}");
    assert!(stdout.contains("| get | 300 | rust | throughput (req/s) |"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 worse beyond the noise"));

    // Without the flag the same comparison only reports.
    assert_eq!(fairpair(&[&same, &slower], &[]).status.code(), Some(0));
    // The other way round it is an improvement, which never fails the gate.
    let out = fairpair(&[&slower, &same], &["--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).matches("**better, beyond the noise**").count(), 1);
    // A run compared with itself: every figure within the noise.
    let out = fairpair(&[&same, &same], &["--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("49 figures compared: 0 better beyond the noise, 0 worse"));
}

#[test]
fn bad_files_are_one_line_and_status_2() {
    let dir = common::temp_dir("compare-bad");
    let not_json = dir.join("not.json");
    std::fs::write(&not_json, "wrk output, not JSON").unwrap();
    let newer = dir.join("newer.json");
    std::fs::write(&newer, r#"{"schema_version": 99}"#).unwrap();
    let missing = dir.join("missing.json");
    for (old, needle) in
        [(&missing, "cannot read"), (&not_json, "is not JSON"), (&newer, "schema version 99, this fairpair reads")]
    {
        let out = fairpair(&[old, &committed()], &["--fail-on-regression"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
        assert!(out.stdout.is_empty(), "nothing printed before the error");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["report", "--fail-on-regression"])
        .arg(committed())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fail-on-regression needs --compare"));
}
