//! The regression gate of `report --compare OLD NEW --fail-on-regression`, on committed fixture pairs
//! (tests/fixtures/gate: a reference subject `rust` and a team's own service `mine`, one cell, three repeats, and each
//! one's capacity at p99 ≤ 10 ms), and
//! `--format json`, which holds every figure the Markdown shows and never changes the exit status.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/gate/{name}.json"))
}

fn compare(old: &str, new: &str, flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["report", "--compare"])
        .args([fixture(old), fixture(new)])
        .args(flags)
        .output()
        .unwrap()
}

fn json(old: &str, new: &str, flags: &[&str]) -> (Option<i32>, Value) {
    let out = compare(old, new, &[&["--format", "json"], flags].concat());
    (out.status.code(), serde_json::from_slice(&out.stdout).expect("valid JSON"))
}

/// The gate's outcome of one figure of one subject, as the JSON says it.
fn gate_of<'a>(v: &'a Value, subject: &str, figure: &str) -> &'a str {
    let f = v["figures"].as_array().unwrap().iter().find(|f| f["subject"] == subject && f["figure"] == figure);
    f.unwrap_or_else(|| panic!("{subject} {figure} in {v}"))["gate"].as_str().unwrap()
}

#[test]
fn a_real_regression_fails_the_gate() {
    let out = compare("baseline", "regressed", &["--fail-on-regression"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("REGRESSION mine get at 50 connections: throughput (req/s), 20.0 % worse"), "{stderr}");
    assert!(stderr.contains("REGRESSION mine get at 50 connections: server CPU per request (µs)"), "{stderr}");
    // mine's capacity is a quarter lower, but it is one search in each file: shown, not judged.
    assert!(!stderr.contains("capacity at the latency objective"), "{stderr}");
    assert!(stderr.contains("2 figure(s) without a verdict (a single run or capacity search per file) not judged"));
    assert!(!stderr.contains("REGRESSION rust"), "the reference did not move: {stderr}");
    // Well beyond a 5 % threshold too; and without the flag the comparison only reports.
    assert_eq!(compare("baseline", "regressed", &["--fail-on-regression", "--threshold", "5%"]).status.code(), Some(1));
    assert_eq!(compare("baseline", "regressed", &[]).status.code(), Some(0));
}

#[test]
fn a_change_within_the_noise_passes() {
    let out = compare("baseline", "within-noise", &["--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, v) = json("baseline", "within-noise", &["--fail-on-regression"]);
    // Every figure but the two capacities, which are one search each: no verdict.
    assert_eq!(v["counts"]["within_noise"], 8, "{v}");
    assert_eq!(v["counts"]["no_verdict"], 2, "{v}");
    assert_eq!(v["gate"]["failures"], 0);
}

#[test]
fn a_single_capacity_search_on_each_side_never_fails_the_gate() {
    // Two --quick files, rust's capacity 30 % lower in the new: one search each, as one run each, gives no verdict.
    let out = compare("quick", "quick-slower", &["--fail-on-regression"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("REGRESSION"), "{stderr}");
    assert!(stderr.contains("10 figure(s) without a verdict (a single run or capacity search per file) not judged"));
    let row = "| get | 50 | rust | capacity at the latency objective (req/s) | 30,000 | 21,000 | 0.70× | single search: \
               no verdict |";
    assert!(stdout.contains(row), "{stdout}");
    assert!(
        stdout.contains("| get | 50 | rust | throughput (req/s) | 41,000 | 41,000 | 1.00× | single run: no verdict |")
    );
    let (code, v) = json("quick", "quick-slower", &["--fail-on-regression", "--threshold", "0%"]);
    assert_eq!(code, Some(0), "{v}");
    let capacity =
        v["figures"].as_array().unwrap().iter().find(|f| f["subject"] == "rust" && f["figure"] == "capacity");
    let capacity = capacity.unwrap();
    assert_eq!((capacity["verdict"].as_str(), capacity["old"]["repeats"].as_u64()), (Some("no-verdict"), Some(1)));
    assert_eq!(gate_of(&v, "rust", "capacity"), "not judged: no verdict");
    assert_eq!((v["counts"]["no_verdict"].as_u64(), v["gate"]["failures"].as_u64()), (Some(10), Some(0)), "{v}");
}

#[test]
fn a_bound_alone_never_fails_the_gate() {
    // The reference is loader-limited in the new file: its throughput fell and its latency rose beyond the noise,
    // but those are the loader's bounds; its CPU per request, the server's own, is within the noise.
    let (code, v) = json("baseline", "bound", &["--fail-on-regression"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["counts"]["worse"], 3, "throughput, p50 and p99 of rust: {v}");
    for figure in ["throughput", "latency-p50", "latency-p99"] {
        assert_eq!(gate_of(&v, "rust", figure), "tolerated: a bound");
    }
    assert_eq!(gate_of(&v, "rust", "server-cpu-per-request"), "passes");
    // Its capacity, a bound and one search, is not judged; the JSON and the Markdown say why it is a bound.
    assert_eq!(gate_of(&v, "rust", "capacity"), "not judged: no verdict");
    let capacity =
        v["figures"].as_array().unwrap().iter().find(|f| f["subject"] == "rust" && f["figure"] == "capacity");
    assert_eq!(capacity.unwrap()["notes"], serde_json::json!(["new: ≥, loader-limited"]), "{v}");
    let out = compare("baseline", "bound", &["--fail-on-regression"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 figure(s) worse beyond the noise tolerated"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("single search: no verdict (new: ≥, loader-limited) |"));
}

#[test]
fn a_threshold_tolerates_a_small_regression_beyond_the_noise() {
    // 3.5 % less throughput, the ranges just apart.
    assert_eq!(compare("baseline", "slight", &["--fail-on-regression"]).status.code(), Some(1));
    let (code, v) = json("baseline", "slight", &["--fail-on-regression", "--threshold", "5%"]);
    assert_eq!(code, Some(0));
    assert_eq!(gate_of(&v, "mine", "throughput"), "tolerated: below the threshold");
    assert_eq!(v["gate"]["threshold_percent"], 5.0);
    let out = compare("baseline", "slight", &["--fail-on-regression", "--threshold", "five"]);
    assert_eq!(out.status.code(), Some(2));
    // A threshold means nothing without the gate.
    assert_eq!(compare("baseline", "slight", &["--threshold", "5%"]).status.code(), Some(2));
}

#[test]
fn the_format_never_changes_the_exit_status() {
    for (new, want) in [("regressed", 1), ("within-noise", 0), ("bound", 0)] {
        for format in ["markdown", "json"] {
            let out = compare("baseline", new, &["--fail-on-regression", "--format", format]);
            assert_eq!(out.status.code(), Some(want), "{new} as {format}");
        }
    }
}

#[test]
fn with_out_the_json_is_written_beside_the_documents() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gate-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out =
        compare("baseline", "regressed", &["--fail-on-regression", "--format", "json", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("compare.json")).unwrap()).unwrap();
    assert_eq!(v["gate"]["failures"], 4, "throughput, p50, p99 and CPU per request of mine: {v}");
    assert!(dir.join("compare.md").is_file() && dir.join("compare.html").is_file());
}

#[test]
fn the_json_holds_every_figure_the_markdown_shows() {
    let results = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    let (a, b) =
        (results.join("epyc-2vcpu-a/benchmark.json"), results.join("epyc-2vcpu-b/after-dfe9152/benchmark.json"));
    let run = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
            .args(["report", "--compare"])
            .args([&a, &b])
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (md, v) = (run("markdown"), serde_json::from_str::<Value>(&run("json")).unwrap());
    let figures = v["figures"].as_array().unwrap();
    // Every figure row of the Markdown's tables (six cells or more, one a ratio) is one JSON figure, and back; the
    // rows of the subjects' ratios within each file have five.
    let rows: Vec<&str> =
        md.lines().filter(|l| l.starts_with("| ") && l.contains("× |") && l.matches(" | ").count() >= 5).collect();
    assert_eq!(rows.len(), figures.len(), "{md}");
    for f in figures {
        let ratio = format!("{:.2}×", f["ratio"].as_f64().unwrap());
        let (subject, label) = (f["subject"].as_str().unwrap(), f["label"].as_str().unwrap());
        let head = match f["connections"].as_u64() {
            Some(n) => format!("| {} | {n} | {subject} | {label} |", f["scenario"].as_str().unwrap()),
            None => format!("| {subject} | {label} |"),
        };
        assert!(
            rows.iter().any(|r| r.starts_with(&head) && r.contains(&format!(" | {ratio} | "))),
            "{head} {ratio}\n{md}"
        );
        for side in ["old", "new"] {
            assert!(f[side]["median"].is_f64() && f[side]["repeats"].is_u64(), "{f}");
        }
    }
    assert_eq!(v["counts"]["compared"], figures.len());
    // And each subject's ratio to the baseline within each file, the five-cell rows.
    let within: Vec<&str> =
        md.lines().filter(|l| l.starts_with("| ") && l.ends_with("× |") && l.matches(" | ").count() == 4).collect();
    let ratios = v["within_each_file"].as_array().unwrap();
    assert!(!ratios.is_empty() && within.len() == ratios.len(), "{md}");
    for r in ratios {
        let row = format!(
            "| {} | {} | {} | {:.2}× | {:.2}× |",
            r["scenario"].as_str().unwrap(),
            r["connections"],
            r["figure"].as_str().unwrap(),
            r["old"].as_f64().unwrap(),
            r["new"].as_f64().unwrap()
        );
        assert!(within.contains(&row.as_str()), "{row}\n{md}");
    }
}
