//! `fairpair report --compare`: the exit status a CI gate reads, both ways, bad input, where the comparison is
//! written (stdout, or compare.md and compare.html in `--out`) and the baseline its ratios are taken against.

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

#[test]
fn out_writes_compare_md_and_html_and_stdout_keeps_the_markdown_without_it() {
    let dir = common::temp_dir("compare-out");
    let (same, slower) = (committed(), slower_copy(&dir));
    let printed = fairpair(&[&same, &slower], &[]);
    assert_eq!(printed.status.code(), Some(0));
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert!(printed.starts_with("# fairpair comparison\n\n| | old | new |\n"), "{printed}");

    let out_dir = dir.join("out");
    let out = fairpair(&[&same, &slower], &["--out", out_dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(out.stdout.is_empty(), "with --out nothing goes to stdout");
    assert!(stderr.contains("compare.md and ") && stderr.contains("compare.html"), "{stderr}");
    // The file is what stdout shows without --out; the page is the same document.
    assert_eq!(std::fs::read_to_string(out_dir.join("compare.md")).unwrap(), printed);
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("<title>fairpair comparison</title>"), "{html}");
    assert!(html.contains("<td>throughput (req/s)</td>") && html.contains("<strong>worse, beyond the noise</strong>"));
    let mut names: Vec<String> =
        std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["compare.html", "compare.md"], "never a report.md");
}

#[test]
fn subjects_are_compared_against_the_recorded_baseline() {
    let dir = common::temp_dir("compare-baseline");
    let printed = |file: &Path| String::from_utf8(fairpair(&[file, file], &[]).stdout).unwrap();
    // No --baseline recorded (a version 1 file): rust, the first built-in subject.
    let md = printed(&committed());
    assert!(md.contains("## node / rust within each file"), "{md}");
    // --baseline node recorded in the file: every ratio is against node.
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(committed()).unwrap()).unwrap();
    v["settings"]["baseline"] = serde_json::json!("node");
    let path = dir.join("node-baseline.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let md = printed(&path);
    assert!(md.contains("## rust / node within each file"), "{md}");
    assert!(md.contains("| get | 50 | throughput | 3.43× | 3.43× |"), "rust 57,772 / node 16,834:\n{md}");
}
