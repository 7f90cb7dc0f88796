//! A live profiled window (`--profile`'s recording, `crate::profile`): the Rust server under a short wrk load,
//! recorded by `perf record` for 3 s, once of its process and once of its CPU (as root), its `perf script` folded by `inferno`. The folded total must be perf's own
//! sample count (the period field left out), the stacks must hold the server's frames and the kernel's, and the
//! CPU per request must come out as a figure. Needs perf (`.ci/provides`: `tool:perf`) and wrk.

mod common;

use std::process::{Command, Stdio};

use fairpair::profile::{fold, record};
use fairpair::schema::cpu_us_per_request;
use fairpair::subjects::process::{self, Origin, StartOptions, SubjectSpec};
use testkit::Need;

const TEST: &str = "a_three_second_window_of_the_rust_server_folds_to_perfs_sample_count";

#[test]
fn a_three_second_window_of_the_rust_server_folds_to_perfs_sample_count() {
    if !testkit::require(TEST, Need::Tool("perf")) {
        return;
    }
    common::require_wrk();
    if let Some(why) = record::unavailable() {
        panic!("perf is installed but cannot profile here: {why}");
    }
    let spec = SubjectSpec {
        name: "rust".into(),
        origin: Origin::Builtin {
            subject: fairpair::plan::names::BuiltinSubject::Rust,
            program: vec![common::sibling_binary("users-server").display().to_string()],
            accepts_max_users: true,
            implements_contract: true,
        },
        workers: Some(1),
        get_only: false,
        ready_path: "/health".into(),
        per_worker_store: false,
    };
    let dir = common::temp_dir("profile-live");
    let log = dir.join("server.log");
    let opts = StartOptions {
        max_users: None,
        header_timeout_ms: None,
        cpus: Some(&[0]),
        timeout: std::time::Duration::from_secs(10),
        host: &process::LOCAL,
        keep_output: Some(&log),
    };
    // Both ways of recording: the server's processes, and (where the kernel allows it, as root) its CPU, whose
    // other tasks' samples `perf script --pid` leaves out.
    for target in [record::Target::Processes, record::Target::for_servers(Some(&[0]))] {
        let server = process::start(&spec, &opts).unwrap();
        let mut recording = record::start(&target, &[server.pid], &dir, 3).unwrap();
        let wrk = Command::new("wrk")
            .args(["-t1", "-c10", "-d2s", &server.url("/users/1")])
            .stderr(Stdio::null())
            .output()
            .unwrap();
        recording.wait().unwrap();
        let script = recording.script().unwrap();
        server.stop().unwrap();
        let out = String::from_utf8_lossy(&wrk.stdout);
        let requests: u64 = out
            .lines()
            .find(|l| l.contains("requests in"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no request count in wrk's output: {out}"));
        let folded = fold::fold(&script).unwrap();
        let samples = fold::total(&folded);
        assert!(samples > 100, "{target:?}: a loaded server gives hundreds of samples in 2 s, got {samples}");
        assert_eq!(samples, fairpair::profile::run::perf_samples(&script), "folded counts are sample counts");
        assert!(folded.lines().any(|l| l.starts_with("users-server;")), "the server's root frame:\n{folded}");
        assert!(folded.contains("_[k]"), "kernel frames are annotated");
        let us = cpu_us_per_request(samples, record::FREQUENCY_HZ, requests).unwrap();
        assert!(us > 0.5 && us < 10_000.0, "{us} µs per request from {samples} samples over {requests} requests");
        // The output was kept (the start-up line among it) while the start read its listening line.
        assert!(std::fs::read_to_string(&log).unwrap().contains("listening on http://"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
