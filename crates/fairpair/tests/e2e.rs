//! `fairpair run` end to end with tiny durations (`--quick`, 1 s runs): verification, closed-loop runs, open loop,
//! memory, summaries, `benchmark.json`, the report and its charts, for the three built-in subjects `ceiling`, `rust`
//! and `node`. All three are part of the workspace, so a missing one fails the test rather than shrinking it. Needs
//! wrk (CI installs it) and node; fails, rather than passes, without them.
//!
//! One run is shared by the checks below, one check per output; the first check to need it starts it. The two runs of
//! this file go at the same time, so each would see the other as a busy machine: both take `--idle-threshold 100`
//! (never busy), as their figures are not what is tested.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

use fairpair::schema::{Benchmark, FlagKind, VerificationStatus};

const SUBJECTS: [&str; 3] = ["ceiling", "rust", "node"];

/// What the shared run left: its output, its results and its directory.
struct Run {
    output: Output,
    bench: Benchmark,
    dir: PathBuf,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fairpair_run(out_dir: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(root())
        .args(["run", "--quick", "--duration", "1", "--warmup", "0", "--repeats", "1", "--idle-wait", "0"])
        .args(["--idle-threshold", "100"])
        .args(args)
        .arg("--out")
        .arg(out_dir)
        .output()
        .unwrap()
}

/// The shared run: GET and POST at 4 connections, an open-loop rate, one memory run each.
fn shared() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        common::require_wrk();
        common::sibling_binary("ceiling");
        common::sibling_binary("users-server");
        let node_server = root().join("servers-node/server.js");
        assert!(node_server.is_file(), "{} not found: the Node server is part of the workspace", node_server.display());
        let dir = common::temp_dir("e2e");
        let subjects = SUBJECTS.join(",");
        let phases = ["--memory-repeats", "1", "--memory-duration", "1", "--memory-connections", "8"];
        let open_loop = ["--open-loop-rates", "0.1", "--open-loop-duration", "1"];
        let cells = ["--subjects", &subjects, "--scenarios", "get,post", "--connections", "4"];
        let output = fairpair_run(&dir, &[&cells[..], &phases, &open_loop].concat());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}\n{}", String::from_utf8_lossy(&output.stdout));
        let text = std::fs::read_to_string(dir.join("benchmark.json")).unwrap();
        Run { output, bench: serde_json::from_str(&text).unwrap(), dir }
    })
}

#[test]
fn the_console_shows_the_estimate_and_the_summary() {
    let run = shared();
    let (stderr, stdout) = (String::from_utf8_lossy(&run.output.stderr), String::from_utf8_lossy(&run.output.stdout));
    assert!(stderr.contains("estimated"), "the estimate is printed up front: {stderr}");
    assert!(stderr.contains("revised estimate after preflight"), "{stderr}");
    assert!(stdout.contains("subject") && stdout.contains("ceiling"), "summary table: {stdout}");
}

#[test]
fn every_subject_is_verified_then_measured() {
    let bench = &shared().bench;
    assert_eq!(bench.schema_version, fairpair::schema::SCHEMA_VERSION);
    let mut measured: Vec<&str> = bench.subjects.iter().map(|s| s.name.as_str()).collect();
    measured.sort_unstable();
    assert_eq!(measured, ["ceiling", "node", "rust"], "none dropped on the way");
    // Verification first: a server failing the contract is (rightly) not measured, which would fail what follows.
    for s in &bench.subjects {
        let want = if s.name == "ceiling" { VerificationStatus::NotApplicable } else { VerificationStatus::Passed };
        assert_eq!(s.verification.status, want, "{}: {:?}", s.name, s.verification.failures);
    }
}

#[test]
fn every_closed_loop_run_is_a_clean_measurement() {
    let bench = &shared().bench;
    // The ceiling runs GET only; the others run GET and POST. A POST run that filled its store (a calibration on a
    // busy machine) is left out and rerun: only the runs kept count.
    let expected_runs = 1 + 2 * (SUBJECTS.len() - 1);
    let kept: Vec<_> = bench.runs.iter().filter(|r| r.left_out.is_none()).collect();
    assert_eq!(kept.len(), expected_runs, "{:?}", bench.flags);
    for run in &bench.runs {
        assert!(run.requests > 0 && run.requests_per_sec > 0.0, "{run:?}");
        assert!(run.command.starts_with("taskset -c ") || !bench.settings.pinned);
        assert!(run.command.contains("wrk -t"), "{}", run.command);
        assert!(run.server_cpu_ms > 0.0, "server CPU is measured: {run:?}");
        assert!(run.listen_backlog.is_some(), "ss reads every server's backlog: {run:?}");
    }
    for run in kept {
        assert_eq!((run.errors, run.non_2xx, run.unexpected_responses), (0, 0, 0), "{run:?}");
    }
    assert_eq!(bench.summaries.len(), expected_runs);
}

#[test]
fn preflight_measures_the_loader_and_sizes_the_store() {
    let bench = &shared().bench;
    let preflight = bench.preflight.as_ref().expect("a preflight record");
    assert_eq!(preflight.loader_capacity.len(), 2, "get and post at 4 connections: {preflight:?}");
    assert!(preflight.loader_capacity.iter().all(|c| c.loader_capacity_rps > 0.0));
    assert_eq!(preflight.post_calibration.len(), SUBJECTS.len() - 1, "one per subject that stores users");
    // The store is preflight's own value; the settings keep what was asked (nothing), each run records its store.
    let store = preflight.store.as_ref().expect("sized from a measured POST rate");
    assert!(preflight.post_calibration.iter().any(|c| c.subject == store.from_subject));
    assert_eq!(bench.settings.post_max_users, None, "not given: the settings say so, not preflight's figure");
    // The first POST run starts with preflight's store; it grows only on the run after one that filled it.
    let post: Vec<_> = bench.runs.iter().filter(|r| r.scenario == "post").collect();
    assert_eq!(post[0].max_users, Some(store.max_users), "{:?}", post[0]);
    for pair in post.windows(2) {
        let grew_after_a_full_store = pair[0].left_out.is_some() && pair[1].max_users > pair[0].max_users;
        assert!(pair[1].max_users == pair[0].max_users || grew_after_a_full_store, "{pair:?}");
    }
    assert!(bench.summaries.iter().all(|s| s.loader_capacity_share_percent.is_some()), "{:?}", bench.summaries);
}

#[test]
fn memory_and_environment_are_recorded() {
    let bench = &shared().bench;
    assert_eq!(bench.memory.len(), SUBJECTS.len());
    for m in &bench.memory {
        assert!(m.idle.rss_kib > 0 && m.after_load.rss_kib > 0 && m.startup_ms > 0.0, "{m:?}");
    }
    assert!(!bench.environment.cpu_model.is_empty());
}

#[test]
fn the_report_and_its_charts_are_written() {
    let dir = &shared().dir;
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("## Throughput (requests/s)"));
    for chart in ["throughput.svg", "latency-get-4.svg", "memory.svg", "report.html"] {
        assert!(dir.join(chart).is_file(), "{chart}");
    }
}

/// A store that is full from the start (`--post-max-users 10000`: the seed fills it) answers every POST with 507:
/// the run is no throughput figure, so it is rerun once with a larger store, which the later runs keep, and only the
/// reruns are summarised. The settings keep what was given; each run records the store it got.
#[test]
fn a_post_run_into_a_full_store_is_rerun_with_a_larger_one() {
    common::require_wrk();
    let users_server = common::sibling_binary("users-server");
    let out_dir = common::temp_dir("e2e-full-store");
    let users_server = users_server.display().to_string();
    let cells = ["--subjects", "rust", "--scenarios", "post", "--connections", "4", "--post-max-users", "10000"];
    let output =
        fairpair_run(&out_dir, &[&cells[..], &["--memory-repeats", "0", "--users-server", &users_server]].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let bench: Benchmark =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap()).unwrap();
    assert_eq!(bench.runs.len(), 2, "the run and its rerun: {:?}", bench.flags);
    let (first, rerun) = (&bench.runs[0], &bench.runs[1]);
    assert_eq!(first.max_users, Some(10_000));
    assert!(first.unexpected_responses > 0 && first.unexpected_responses == first.non_2xx, "{first:?}");
    assert!(first.left_out.as_deref().unwrap().contains("rerun once with --max-users"), "{first:?}");
    assert!(rerun.max_users.unwrap() >= 40_000, "{rerun:?}");
    assert_eq!((rerun.unexpected_responses, rerun.left_out.as_deref()), (0, None), "{rerun:?}");
    // What was recorded agrees: the settings and preflight's store say what the first run got; the rerun says its own.
    assert_eq!(bench.settings.post_max_users, Some(10_000));
    assert_eq!(bench.preflight.as_ref().and_then(|p| p.store.as_ref()).map(|s| s.max_users), Some(10_000));
    let s = &bench.summaries[0];
    assert_eq!((s.requests_per_sec.n, s.left_out_runs, s.non_2xx), (1, 1, 0));
    assert_eq!(s.requests_per_sec.median, rerun.requests_per_sec);
    assert!(bench.flags.iter().any(|f| f.kind == FlagKind::UnexpectedStatus));
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Left out") && report.contains("given with --post-max-users"), "{report}");
    let _ = std::fs::remove_dir_all(out_dir);
}
