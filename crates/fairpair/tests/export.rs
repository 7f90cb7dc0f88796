//! `fairpair report RESULTS --export csv|bmf FILE`: every committed result (every schema version `report` reads)
//! exports a CSV that Python's `csv` module reads as is, and a BMF whose values are the CSV's medians.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Every `benchmark.json` under docs/results (schema versions 1 and 2), the report's golden fixture, and the gate's
/// fixtures (version 3, with capacities).
fn committed_results() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = vec![root.join("crates/fairpair/tests/fixtures/golden/benchmark.json")];
    for entry in std::fs::read_dir(root.join("crates/fairpair/tests/fixtures/gate")).unwrap() {
        found.push(entry.unwrap().path());
    }
    let mut dirs = vec![root.join("docs/results")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == "benchmark.json") {
                found.push(path);
            }
        }
    }
    found.sort();
    assert!(found.len() >= 11, "{found:?}");
    found
}

fn export(file: &Path, format: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .arg("report")
        .arg(file)
        .args(["--export", format, "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The CSV as Python's `csv.DictReader` reads it, rows of field → text, as JSON.
fn python_rows(csv: &str) -> Vec<serde_json::Map<String, Value>> {
    let script = "import csv, io, json, sys\n\
                  rows = list(csv.DictReader(io.StringIO(sys.stdin.read(), newline='')))\n\
                  json.dump(rows, sys.stdout)";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(csv.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice::<Vec<Value>>(&out.stdout)
        .unwrap()
        .into_iter()
        .map(|v| v.as_object().unwrap().clone())
        .collect()
}

/// The columns in order: `bound_reason`, added after the others, is last, so a positional reader of the earlier
/// ones still reads them.
const COLUMNS: [&str; 15] = [
    "subject",
    "scenario",
    "connections",
    "figure",
    "unit",
    "median",
    "min",
    "max",
    "repeats",
    "bound_or_value",
    "flags",
    "verified",
    "bound_reason",
    "bracket_low",
    "bracket_high",
];

/// The BMF unit of each CSV unit: Bencher's latency is in nanoseconds, memory goes as bytes.
fn scale(unit: &str) -> f64 {
    match unit {
        "requests/s" => 1.0,
        "ms" => 1e6,
        "µs" => 1e3,
        "MiB" => 1024.0 * 1024.0,
        other => panic!("unit {other:?}"),
    }
}

#[test]
fn every_committed_result_exports_a_csv_python_reads_and_a_bmf_of_the_same_figures() {
    if !testkit::require("every_committed_result_exports_…", testkit::Need::Tool("python3")) {
        return;
    }
    for file in committed_results() {
        let csv = export(&file, "csv");
        assert_eq!(csv.lines().next().unwrap(), COLUMNS.join(","), "{}", file.display());
        let rows = python_rows(&csv);
        let bench: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let summaries = bench["summaries"].as_array().unwrap().len();
        assert!(rows.len() >= 3 * summaries, "{}: {} rows for {summaries} summaries", file.display(), rows.len());
        for row in &rows {
            assert_eq!(row.len(), COLUMNS.len(), "{row:?}");
            let [median, min, max]: [f64; 3] =
                ["median", "min", "max"].map(|k| row[k].as_str().unwrap().parse().unwrap());
            assert!(min <= median && median <= max, "{row:?}");
            assert!(row["repeats"].as_str().unwrap().parse::<u32>().unwrap() >= 1, "{row:?}");
            let (reading, reason) = (row["bound_or_value"].as_str().unwrap(), row["bound_reason"].as_str().unwrap());
            assert!(["value", "lower bound", "upper bound"].contains(&reading), "{row:?}");
            // A bound says why; a value has no reason.
            let reasons = ["loader-limited", "loader-bound", "rate-not-held", "search-upper-bound"];
            assert_eq!(reading == "value", reason.is_empty(), "{row:?}");
            assert!(reason.is_empty() || reasons.contains(&reason), "{row:?}");
            if row["figure"] == "capacity" {
                // One search in a file: one sample, no range invented around it; its bracket starts at it.
                assert!(min == median && median == max && row["repeats"] == "1", "{row:?}");
                assert_eq!(row["bracket_low"].as_str().unwrap().parse::<f64>().unwrap(), median, "{row:?}");
                let high = row["bracket_high"].as_str().unwrap();
                assert!(high.is_empty() || high.parse::<f64>().unwrap() > median, "{row:?}");
            }
        }

        let bmf: Value = serde_json::from_str(&export(&file, "bmf")).unwrap();
        let benchmarks = bmf.as_object().unwrap();
        let values: usize = benchmarks.values().map(|m| m.as_object().unwrap().len()).sum();
        assert_eq!(values, rows.len(), "{}: one BMF value per CSV figure", file.display());
        for row in &rows {
            let s = |k: &str| row[k].as_str().unwrap().to_string();
            let name = if s("scenario") == "memory" {
                format!("{}/memory", s("subject"))
            } else {
                format!("{}/{}/{}", s("subject"), s("scenario"), s("connections"))
            };
            assert!(name.chars().count() <= 1024 && s("figure").len() <= 64);
            let m = &benchmarks[&name][&s("figure")];
            let (value, lower, upper) =
                (m["value"].as_f64().unwrap(), m["lower_value"].as_f64().unwrap(), m["upper_value"].as_f64().unwrap());
            let median: f64 = s("median").parse().unwrap();
            let want = median * scale(&s("unit"));
            assert!((value - want).abs() <= want.abs() * 1e-12, "{name} {}: {value} vs median {median}", s("figure"));
            assert!(lower <= value && value <= upper, "{name} {}: {m}", s("figure"));
            if s("figure") == "capacity" {
                // Its upper value is the bracket's high end, when a rate above it was decided missed.
                let high = s("bracket_high").parse::<f64>().unwrap_or(median);
                assert!(lower == value && upper == high, "{name}: one search, {m}");
            }
        }
    }
}

#[test]
fn an_export_writes_its_file_alone_and_refuses_unknown_formats() {
    let dir = common::temp_dir("export-file");
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden/benchmark.json");
    let input = dir.join("benchmark.json");
    std::fs::copy(&golden, &input).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .arg("report")
        .arg(&input)
        .args(["--export", "bmf"])
        .arg(dir.join("bench.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["bench.json", "benchmark.json"], "the export alone, no report.md or charts");

    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .arg("report")
        .arg(&input)
        .args(["--export", "xml", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "fairpair: --export wants csv or bmf, got \"xml\"\n");
}
