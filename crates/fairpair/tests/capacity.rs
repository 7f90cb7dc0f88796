//! The capacity search against real services (`tests/fixtures/service-time.mjs`, one Node worker): a fixed 2 ms
//! service time, whose maximum is below 500 requests/s once Node's own work per request is added, must get a
//! capacity between 80 % and 100 % of the maximum the same run measured; a service that sleeps 20 ms per request
//! meets p99 ≤ 10 ms at no rate. Each step of the search is checked: the capacity's step met the objective and
//! every failing step is above it (or the figure is a loader bound).
//!
//! Needs oha (the search's load tool), wrk (the closed-loop runs that give the search its upper bound) and node; CI
//! has no oha (compiling it takes 7–10 minutes), so there these tests are listed as skipped. The 2 ms test is also
//! listed as skipped when a step began on a busy machine (a shared one): its figure would be the machine's. The
//! search's logic is covered without oha by the unit tests of `capacity/`, against a simulated subject.

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::capacity::{Outcome, Search};
use fairpair::schema::Benchmark;
use testkit::Need;

/// Runs the search on the fixture service in `mode` (`busy` or `sleep`) for `ms` per request; returns the search,
/// and the run's stderr.
fn search(test: &str, mode: &str, ms: u32) -> Option<(Search, String)> {
    // One search at a time: two at once would load the same CPUs and measure each other.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for tool in ["oha", "wrk", "node"] {
        if !testkit::require(test, Need::Tool(tool)) {
            return None;
        }
    }
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/service-time.mjs");
    let out_dir = common::temp_dir(test);
    let subject = format!("svc=node {} {{port}} {mode} {ms}", fixture.display());
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["run", "--subjects", "", "--subject", &subject, "--scenarios", "get", "--slo", "p99=10ms"])
        .args(["--connections", "50", "--duration", "3", "--warmup", "1", "--repeats", "1", "--memory-repeats", "0"])
        // The closed-loop run only seeds the search: on a machine kept busy by others it would be rerun and left out,
        // and the search would have nothing to start below.
        .args(["--idle-threshold", "100"])
        .args(["--allow-unverified", "--level", "api", "--idle-wait", "0.5", "--ceiling"])
        .arg(common::sibling_binary("ceiling"))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let bench: Benchmark =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap()).unwrap();
    let capacity = bench.capacity.unwrap_or_else(|| panic!("no capacity recorded: {stderr}"));
    assert!(capacity.loader_limit.is_some(), "the loader's open-loop limit is measured: {stderr}");
    let search = capacity.searches.into_iter().find(|s| s.subject == "svc").expect("svc searched");
    for step in &search.steps {
        assert!(step.result.command.contains("--worker-threads"), "{}", step.result.command);
        assert!(step.result.command.contains(" -w "), "{}", step.result.command);
    }
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Capacity at p99 ≤ 10 ms") && report.contains("capacity-get.svg"), "{report}");
    Some((search, stderr))
}

#[test]
fn a_fixed_2ms_service_time_is_found_just_below_its_maximum() {
    let Some((search, stderr)) = search("a_fixed_2ms_service_time_is_found_just_below_its_maximum", "busy", 2) else {
        return;
    };
    // A capacity is the machine's as much as the service's: on a machine other processes keep busy (the harness's
    // idle check failed before a step), the figure says nothing about the service, so the test says so and stops.
    let busy = search.steps.iter().filter(|s| !s.result.machine_idle).count();
    if busy > 0 {
        let why = format!("{busy} of {} steps began on a busy machine; no capacity can be checked", search.steps.len());
        testkit::skip("a_fixed_2ms_service_time_is_found_just_below_its_maximum", Need::IdleMachine, &why);
        return;
    }
    let Outcome::Found { rps, .. } = search.outcome else { panic!("{search:#?}\n{stderr}") };
    // The service's own maximum is below 500/s: Node's parsing and writing come on top of the 2 ms of work (on a quiet
    // 2-vCPU machine its closed-loop throughput was 438/s, and the capacity at p99 ≤ 10 ms 379/s). So the capacity is
    // checked against the maximum the same run measured, not against 450–500/s.
    let max = search.upper_rps;
    assert!((300.0..=525.0).contains(&max), "the 2 ms service's closed-loop maximum: {max}/s\n{stderr}");
    assert!((0.8 * max..=max).contains(&rps), "capacity {rps}/s against a maximum of {max}/s: {search:#?}\n{stderr}");
    // The capacity's own steps met the objective, and every step that missed it asked for more.
    assert!(search.steps.iter().filter(|s| s.rate_asked == rps).all(|s| s.passed()), "{search:#?}");
    assert!(search.steps.iter().filter(|s| !s.passed()).all(|s| s.rate_asked > rps) || search.bound, "{search:#?}");
    assert!(search.bound || search.steps.iter().any(|s| !s.passed()), "a failing step above it: {search:#?}");
}

#[test]
fn a_service_that_sleeps_20ms_meets_no_rate() {
    let Some((search, stderr)) = search("a_service_that_sleeps_20ms_meets_no_rate", "sleep", 20) else {
        return;
    };
    assert!(matches!(search.outcome, Outcome::NoRate { .. }), "{search:#?}\n{stderr}");
    assert!(search.steps.iter().all(|s| !s.passed()), "{search:#?}");
    assert!(search.figure().starts_with("no rate meets the objective"), "{}", search.figure());
    assert!(stderr.contains("no rate meets the objective"), "{stderr}");
}
