//! The capacity search against real services (`tests/fixtures/service-time.mjs`): one worker with a fixed 2 ms
//! service time (500 requests/s when arrivals are evenly paced, 499.7/s under wrk) must get a capacity at p99 ≤ 10 ms
//! within 450–500/s, with a step above it that failed (not a bound); a service that sleeps 20 ms per request
//! meets p99 ≤ 10 ms at no rate. Each step of the search is checked: the capacity's step met the objective and every
//! failing step is above it (or the figure is a bound).
//!
//! Needs oha (the search's load tool), wrk (the closed-loop runs that give the search its upper bound) and node; CI
//! has no oha (compiling it takes 7 to 17 minutes), so there these tests are listed as skipped. The 450–500/s figure is
//! a benchmark, not a test of the code: it depends on the machine (see the test), so it is checked only when the
//! person running the test says the machine is quiet (`FAIRPAIR_QUIET=1`) and no step began on a machine the
//! harness's idle check flagged busy; otherwise it is listed as not checked, with the figure found. The steps'
//! verdicts, and a failing step above a capacity that is not a bound, are checked on any machine. The search's logic
//! is covered without oha by the unit tests of `capacity/`, against a simulated subject.

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::capacity::{Outcome, Search};
use fairpair::schema::Benchmark;
use fairpair::schema::Verdict as RateVerdict;
use testkit::Need;

/// Runs the search on the fixture service in `mode` (`worker` or `sleep`) for `ms` per request; returns the search,
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
        .args(["--warmup-probe", "0", "--allow-unverified", "--level", "api", "--idle-wait", "0.5", "--ceiling"])
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
fn a_fixed_2ms_service_time_is_found_within_450_to_500_per_second() {
    let test = "a_fixed_2ms_service_time_is_found_within_450_to_500_per_second";
    let Some((search, stderr)) = search(test, "worker", 2) else {
        return;
    };
    // What holds on any machine: a rate is decided by its windows together (a window may miss at a rate decided
    // met, and a disturbed one counts in no verdict), so the capacity's rate was decided met, every rate decided
    // missed lies above it, and one did (or the figure is a bound).
    let rps = search.capacity();
    let decided = |verdict: RateVerdict| search.steps.iter().filter(move |s| s.verdict == Some(verdict));
    if let Some(rps) = rps {
        assert!(decided(RateVerdict::Met).any(|s| s.rate_asked == rps), "{search:#?}");
        assert!(decided(RateVerdict::Missed).all(|s| s.rate_asked > rps) || search.bound, "{search:#?}");
        assert!(search.bound || decided(RateVerdict::Missed).next().is_some(), "a rate missed above it: {search:#?}");
    }
    // The figure is the machine's as well as the search's. At 87–97 % of the service's 500/s, one stall of 10 ms (a
    // virtual machine's, a garbage collection in the service or the loader) queues enough requests to take the p99
    // over 10 ms: eight searches on an idle 2-vCPU machine found 471–497/s, and a ninth, in a clean-clone CI run,
    // 400/s, its steps at 437/s and 418/s missing with a p99 of 11.2 and 19.2 ms. So the range is checked only when
    // the person running the test says the machine is quiet, and no step was flagged busy.
    let quiet = std::env::var("FAIRPAIR_QUIET").is_ok_and(|v| v == "1");
    // For this service the closed-loop throughput, the search's upper bound, is its capacity as well, so the steps
    // up to it may all pass; the search then tries above it until a step fails, so on a quiet machine the capacity is
    // a boundary the search found, with a failing step above it, and not the closed-loop figure printed as "≥".
    let busy = search.steps.iter().filter(|s| !s.result.machine_idle).count();
    if busy > 0 || !quiet {
        let why = format!(
            "the 450–500/s check is a benchmark, run with FAIRPAIR_QUIET=1 on a quiet machine ({}; {busy} of {} steps \
             began on a machine the harness flagged busy; it found {})",
            if quiet { "given" } else { "not given" },
            search.steps.len(),
            search.figure()
        );
        testkit::skip(test, Need::IdleMachine, &why);
        return;
    }
    let Some(rps) = rps else { panic!("no capacity: {search:#?}\n{stderr}") };
    assert!((450.0..=500.0).contains(&rps), "capacity {rps}/s, not within 450–500/s: {search:#?}\n{stderr}");
    assert!(!search.bound, "a capacity found, not a bound: {search:#?}\n{stderr}");
    let missed_above = decided(RateVerdict::Missed).any(|s| s.rate_asked > rps);
    assert!(missed_above, "a rate decided missed above the capacity: {search:#?}\n{stderr}");
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
