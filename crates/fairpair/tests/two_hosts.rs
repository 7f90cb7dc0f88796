//! `scripts/two-hosts` end to end: a loader and a server host made of namespaces on this machine, sshd on the server
//! side, a short `fairpair run --server-host`, and a teardown that leaves nothing behind, on success and on failure.
//! Needs root (namespaces) and sshd (CI installs openssh-server, see .ci/provides); skips, listed, otherwise. About a
//! minute: two verifications, two 1 s runs, two memory runs, and the unreachable and stopped host checks (each ends
//! within the connection's time limit).

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::schema::Benchmark;
use testkit::Need;

const TEST: &str = "two_hosts::the_two_host_demonstration_runs_and_leaves_nothing_behind";

#[test]
fn the_two_host_demonstration_runs_and_leaves_nothing_behind() {
    if !testkit::require(TEST, Need::Root) || !testkit::require(TEST, Need::Tool("sshd")) {
        return;
    }
    common::require_wrk();
    common::sibling_binary("users-server");
    common::sibling_binary("ceiling");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = |out: &PathBuf, extra: &[&str]| {
        Command::new(root.join("scripts/two-hosts"))
            .env("FAIRPAIR_BIN", env!("CARGO_BIN_EXE_fairpair"))
            .arg("--out")
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };

    // A failure on purpose (a flag fairpair refuses, after the set-up and the unreachable-host checks): the script
    // fails with fairpair's status, and the teardown still removes everything.
    let out = common::temp_dir("two-hosts-failing");
    let failed = script(&out, &["--subjects", "no-such-subject"]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(2), "fairpair's usage error is the script's status: {stderr}");
    assert!(stderr.contains("unknown subject \"no-such-subject\""), "{stderr}");
    assert!(stderr.contains("teardown: no namespace, veth, sshd, ssh connection or server process left"), "{stderr}");
    assert_nothing_left();

    // GET and POST: the POST rate is calibrated on the server host, whose processes are in a PID namespace of their
    // own, so its memory figures can only come from reading the server host's /proc.
    let out = common::temp_dir("two-hosts");
    let run = script(&out, &["--scenarios", "get,post"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    // One line each, non-zero, within the stated limit: the script checks all three and says so.
    assert!(stderr.contains("unreachable server host (blackhole route): exit 1"), "{stderr}");
    assert!(stderr.contains("stopped server host (sshd frozen): exit 1"), "{stderr}");
    assert!(stderr.contains("teardown: no namespace, veth, sshd, ssh connection or server process left"), "{stderr}");
    assert_nothing_left();

    let bench: Benchmark = serde_json::from_str(&std::fs::read_to_string(out.join("benchmark.json")).unwrap()).unwrap();
    let two = bench.two_hosts.as_ref().expect("a two-host run says so");
    assert_eq!(two.server_environment.hostname, "fairpair-server-host");
    assert_ne!(bench.environment.hostname, two.server_environment.hostname);
    assert!(two.same_kernel, "namespaces of one machine share its kernel, and the results must say so");
    assert!(two.rtt_ms.as_ref().is_some_and(|r| r.n > 0 && r.median > 0.0));
    let mut subjects: Vec<&str> = bench.runs.iter().map(|r| r.subject.as_str()).collect();
    subjects.sort_unstable();
    subjects.dedup();
    assert_eq!(subjects, ["node", "rust"]);
    let preflight = bench.preflight.as_ref().expect("a preflight record");
    assert_eq!(preflight.post_calibration.len(), 2, "{preflight:?}");
    for c in &preflight.post_calibration {
        // Read on this machine, the server host's pid names no process (or another one): no memory, or a wrong one.
        let (before, after) = (c.rss_before_kib.unwrap_or(0), c.rss_after_kib.unwrap_or(0));
        assert!(before > 1024 && after >= before, "{}: RSS {before} → {after} KiB", c.subject);
    }
    for r in &bench.runs {
        // The servers listened on the server host's address, and the responses crossed the veth.
        assert!(r.server_command.contains(&format!("--host {}", two.server_address)), "{}", r.server_command);
        let net = r.network.expect("each run records the interface's counters");
        assert!(net.rx_bytes >= r.requests * 17, "{}: {} bytes for {} responses", r.subject, net.rx_bytes, r.requests);
        assert!(r.server_cpu_us_per_request.is_some_and(|us| us > 0.0), "server CPU read on the server host");
        assert!(r.server_host_other_cpu_percent.is_some(), "the server host's /proc/stat read around the run");
    }
    for m in &bench.memory {
        assert!(m.idle.rss_kib > 0 && m.idle.pss_kib > 0 && m.startup_ms > 0.0, "{}: {:?}", m.subject, m.idle);
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("A two-host run") && report.contains("## Server host and network path"));
}

/// No namespace, veth end, sshd or server of the script is left on the machine (by the names the script uses).
fn assert_nothing_left() {
    let netns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let netns = String::from_utf8_lossy(&netns.stdout);
    assert!(!netns.contains("fp-load-") && !netns.contains("fp-server-"), "{netns}");
    let links = Command::new("ip").args(["-o", "link", "show"]).output().unwrap();
    let links = String::from_utf8_lossy(&links.stdout);
    assert!(!links.lines().any(|l| l.contains(": fpl") || l.contains(": fps")), "{links}");
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(!cmdline.contains("fairpair-two-hosts."), "left: {cmdline}");
        assert!(!cmdline.contains("--host 10.213.7.2"), "left: {cmdline}");
    }
}
