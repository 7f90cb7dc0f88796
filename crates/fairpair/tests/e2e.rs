//! `fairpair run` end to end with tiny durations: verification, closed-loop runs, open loop, memory, summaries,
//! `benchmark.json`, the report and its charts, for the three built-in subjects `ceiling`, `rust` and `node`. All three
//! are part of the workspace, so a missing one fails the test rather than shrinking it. Needs wrk (CI installs it) and
//! node; fails, rather than passes, without them.

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::schema::Benchmark;

#[test]
fn a_tiny_run_writes_results_and_report() {
    common::require_wrk();
    common::sibling_binary("ceiling");
    common::sibling_binary("users-server");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let node_server = root.join("servers-node/server.js");
    assert!(node_server.is_file(), "{} not found: the Node server is part of the workspace", node_server.display());
    let out_dir = common::temp_dir("e2e");
    let subjects = ["ceiling", "rust", "node"];
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(&root)
        .args(["run", "--subjects", &subjects.join(","), "--scenarios", "get,post", "--connections", "4"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "1", "--memory-repeats", "1", "--memory-duration", "1"])
        .args([
            "--memory-connections",
            "8",
            "--open-loop-rates",
            "0.1",
            "--open-loop-duration",
            "1",
            "--idle-wait",
            "0",
        ])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stderr}\n{stdout}");
    assert!(stderr.contains("estimated"), "the estimate is printed up front: {stderr}");
    assert!(stderr.contains("revised estimate after preflight"), "{stderr}");
    assert!(stdout.contains("subject") && stdout.contains("ceiling"), "summary table: {stdout}");

    let text = std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap();
    let bench: Benchmark = serde_json::from_str(&text).unwrap();
    assert_eq!(bench.schema_version, fairpair::schema::SCHEMA_VERSION);
    // Every built-in subject was planned and measured: none dropped on the way.
    let mut measured: Vec<&str> = bench.subjects.iter().map(|s| s.name.as_str()).collect();
    measured.sort_unstable();
    assert_eq!(measured, ["ceiling", "node", "rust"]);
    // Verification first: a server failing the contract is (rightly) not measured, which would fail what follows.
    for s in &bench.subjects {
        use fairpair::schema::VerificationStatus;
        let want = if s.name == "ceiling" { VerificationStatus::NotApplicable } else { VerificationStatus::Passed };
        assert_eq!(s.verification.status, want, "{}: {:?}", s.name, s.verification.failures);
    }
    // The ceiling runs GET only; the others run GET and POST.
    let expected_runs = 1 + 2 * (subjects.len() - 1);
    assert_eq!(bench.runs.len(), expected_runs, "{:?}", bench.flags);
    for run in &bench.runs {
        assert!(run.requests > 0 && run.requests_per_sec > 0.0, "{run:?}");
        assert!(run.command.starts_with("taskset -c ") || !bench.settings.pinned);
        assert!(run.command.contains("wrk -t"), "{}", run.command);
        assert!(run.server_cpu_ms > 0.0, "server CPU is measured: {run:?}");
        assert_eq!(run.errors, 0, "{run:?}");
        assert_eq!(run.non_2xx, 0, "{run:?}");
        if run.scenario == "post" {
            assert_eq!(run.max_users, Some(bench.settings.post_max_users));
        }
    }
    assert_eq!(bench.summaries.len(), expected_runs);
    // Preflight measured the loader's capacity on every cell, and sized the store from a measured POST rate.
    let preflight = bench.preflight.as_ref().expect("a preflight record");
    assert_eq!(preflight.loader_capacity.len(), 2, "get and post at 4 connections: {preflight:?}");
    assert!(preflight.loader_capacity.iter().all(|c| c.loader_capacity_rps > 0.0));
    assert_eq!(preflight.post_calibration.len(), subjects.len() - 1, "one per subject that stores users");
    if let Some(store) = &preflight.store {
        assert_eq!(store.max_users, bench.settings.post_max_users);
        assert!(preflight.post_calibration.iter().any(|c| c.subject == store.from_subject));
    }
    assert!(bench.summaries.iter().all(|s| s.loader_capacity_share_percent.is_some()), "{:?}", bench.summaries);
    assert!(bench.runs.iter().all(|r| r.left_out.is_none() && r.unexpected_responses == 0));
    assert!(bench.runs.iter().all(|r| r.listen_backlog.is_some()), "ss reads every server's backlog");
    assert_eq!(bench.memory.len(), subjects.len());
    for m in &bench.memory {
        assert!(m.idle.rss_kib > 0 && m.after_load.rss_kib > 0 && m.startup_ms > 0.0, "{m:?}");
    }
    assert!(!bench.environment.cpu_model.is_empty());

    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Throughput (requests/s)"));
    for chart in ["throughput.svg", "latency-get-4.svg", "memory.svg"] {
        assert!(out_dir.join(chart).is_file(), "{chart}");
    }
    let _ = std::fs::remove_dir_all(out_dir);
}

/// A store that is full from the start (`--post-max-users 10000`: the seed fills it) answers every POST with 507:
/// the run is no throughput figure, so it is rerun once with a larger store, and only the rerun is summarised.
#[test]
fn a_post_run_into_a_full_store_is_rerun_with_a_larger_one() {
    common::require_wrk();
    let users_server = common::sibling_binary("users-server");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out_dir = common::temp_dir("e2e-full-store");
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(&root)
        .args(["run", "--subjects", "rust", "--scenarios", "post", "--connections", "4", "--post-max-users", "10000"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "1", "--memory-repeats", "0", "--idle-wait", "0"])
        .arg("--users-server")
        .arg(&users_server)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
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
    let s = &bench.summaries[0];
    assert_eq!((s.requests_per_sec.n, s.left_out_runs, s.non_2xx), (1, 1, 0));
    assert_eq!(s.requests_per_sec.median, rerun.requests_per_sec);
    assert!(bench.flags.iter().any(|f| f.kind == fairpair::schema::FlagKind::UnexpectedStatus));
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Left out") && report.contains("given with --post-max-users"), "{report}");
    let _ = std::fs::remove_dir_all(out_dir);
}
