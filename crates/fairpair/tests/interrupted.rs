//! An interrupted `fairpair run` leaves a readable `benchmark.json` marked incomplete, and `fairpair report` of it says
//! so at the top. The run is the smallest there is (the ceiling on GET, one connection, 1 s runs, nothing else) and is
//! interrupted with SIGINT, as Ctrl-C would, once its first run is in the file; it stops by itself if that never
//! happens. Needs wrk, like the other tests that load a server.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairpair::schema::Benchmark;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

#[test]
fn an_interrupted_run_leaves_a_partial_file_the_report_marks_incomplete() {
    common::require_wrk();
    let ceiling = common::sibling_binary("ceiling");
    let out_dir = common::temp_dir("interrupted");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["run", "--subjects", "ceiling", "--scenarios", "get", "--connections", "1"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "20", "--memory-repeats", "0"])
        .args(["--open-loop-rates", "0", "--idle-wait", "0", "--no-pin", "--warmup-probe", "0"])
        // A busy machine's runs would be rerun and left out: no summary to check.
        .args(["--idle-threshold", "100"])
        .arg("--ceiling")
        .arg(&ceiling)
        .arg("--out")
        .arg(&out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let file = out_dir.join("benchmark.json");
    let started = Instant::now();
    let first_run = loop {
        // The file is replaced by a rename, so every read sees a whole file.
        let partial = std::fs::read_to_string(&file).ok().map(|text| serde_json::from_str::<Benchmark>(&text).unwrap());
        if let Some(b) = partial.filter(|b| !b.runs.is_empty()) {
            break Some(b);
        }
        if started.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGINT);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first_run = first_run.unwrap_or_else(|| panic!("no run recorded within 60 s: {stderr}"));
    assert!(!first_run.complete, "a file written during the run is marked incomplete");
    assert_eq!(output.status.code(), Some(130), "interrupted, not finished: {stderr}");

    let left: Benchmark = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(!left.complete);
    assert!(!left.runs.is_empty() && left.runs.len() < 20, "{} runs", left.runs.len());
    assert_eq!(left.summaries.len(), 1, "the runs so far are summarised");

    let report = Command::new(env!("CARGO_BIN_EXE_fairpair")).arg("report").arg(&file).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    let top: Vec<&str> = md.lines().take(3).collect();
    assert!(top[2].starts_with("> **INCOMPLETE**"), "{top:?}");
    std::fs::remove_dir_all(out_dir).unwrap();
}
