//! A capacity with its bracket: in the summary (a ratio of two brackets is a bracket), in files written before the
//! bracket was recorded (read from their steps, and still compared by `fairpair report --compare`), and no capacity
//! where the loader's own search missed the objective below it.

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::capacity::{Bracket, Outcome, Search, Step, StepResult, Verdict};
use fairpair::report;
use fairpair::schema::{Benchmark, Latency};

/// A `fairpair run --capacity-only` file written before brackets: every step a rate's whole verdict.
fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json")
}

/// The capacity cell of node's row on `place`.
fn column(bench: &Benchmark, place: &str) -> String {
    let lines = report::verdict_lines(bench);
    let line = lines.iter().find(|l| l.starts_with(&format!("node / rust, {place}:"))).unwrap().clone();
    line.split("capacity at the SLO ").nth(1).unwrap_or_else(|| panic!("{line}")).to_string()
}

fn search<'b>(bench: &'b mut Benchmark, subject: &str, scenario: &str) -> &'b mut Search {
    let searches = &mut bench.capacity.as_mut().unwrap().searches;
    searches.iter_mut().find(|s| s.subject == subject && s.scenario == scenario).unwrap()
}

#[test]
fn a_file_written_before_brackets_reads_them_from_its_steps_and_is_still_compared() {
    let mut bench = report::load(&fixture()).unwrap();
    // node's POST search: 766/s passed, 800/s was the lowest step above it that failed.
    let node = search(&mut bench, "node", "post");
    assert_eq!(node.bracket(), Some(Bracket { low: 766.0, high: Some(800.0) }));
    assert!(node.figure().starts_with("766/s (bracket 766–800/s)"), "{}", node.figure());
    assert_eq!(bench.capacity.as_ref().unwrap().settings.max_windows, 1, "one window a rate, as then");
    // The same file as today's code writes it (its brackets recorded, several windows a rate), compared with a
    // committed run written before the capacity search, and with the file as it was.
    let dir = common::temp_dir("capacity-brackets");
    let capacity = bench.capacity.as_mut().unwrap();
    capacity.settings.max_windows = 5;
    capacity.searches = capacity.searches.drain(..).map(Search::with_bracket).collect();
    let new = dir.join("new.json");
    std::fs::write(&new, serde_json::to_string(&bench).unwrap()).unwrap();
    let committed = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/epyc-2vcpu-a/benchmark.json");
    for old in [committed, fixture()] {
        let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
            .args(["report", "--compare"])
            .args([&old, &new])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Each side's bracket is in the notes of the capacity row it has one for.
        if old == fixture() {
            assert!(stdout.contains("old: bracket 766–800/s") && stdout.contains("new: bracket 766–800/s"), "{stdout}");
        }
    }
}

#[test]
fn the_ratio_of_two_capacities_is_the_ratio_of_their_brackets() {
    let mut bench = report::load(&fixture()).unwrap();
    bench.capacity.as_mut().unwrap().settings.max_windows = 5;
    search(&mut bench, "rust", "post").bracket = Some(Bracket { low: 1_385.0, high: Some(1_450.0) });
    search(&mut bench, "node", "post").bracket = Some(Bracket { low: 766.0, high: Some(800.0) });
    // From 766 / 1,450 to 800 / 1,385.
    assert_eq!(
        column(&bench, "post, 50 connections"),
        "0.55× (bracket 0.53–0.58×; one search each: noise not measured)"
    );
    // Brackets that overlap cannot tell the two apart, and a bracket with no high end leaves the ratio's open.
    search(&mut bench, "node", "post").bracket = Some(Bracket { low: 766.0, high: Some(1_500.0) });
    let overlap = column(&bench, "post, 50 connections");
    assert!(overlap.ends_with("the brackets overlap, so the search does not tell the two apart)"), "{overlap}");
    search(&mut bench, "node", "post").bracket = Some(Bracket { low: 766.0, high: None });
    let open = column(&bench, "post, 50 connections");
    assert!(open.starts_with("0.55× (bracket from 0.53×, no upper end; the brackets overlap"), "{open}");
    search(&mut bench, "node", "post").bracket = Some(Bracket { low: 766.0, high: Some(800.0) });
    search(&mut bench, "rust", "post").bracket = Some(Bracket { low: 1_385.0, high: None });
    let open = column(&bench, "post, 50 connections");
    assert_eq!(open, "0.55× (bracket up to 0.58×, no lower end; one search each: noise not measured)");
}

/// A ceiling whose search missed the objective at every rate down to `rate`, as on a machine whose other work
/// stalls the loader: the capacities above it are the machine's noise.
fn missing_ceiling(bench: &mut Benchmark, rate: f64) {
    let limit = bench.capacity.as_mut().unwrap().loader_limit.as_mut().unwrap();
    let latency = Latency { p99_ms: 40.0, ..Latency::default() };
    let result = StepResult { achieved_rps: rate, latency, machine_idle: true, ..StepResult::default() };
    let step = |verdict| Step {
        rate_asked: rate,
        result: result.clone(),
        missed: Some("p99 40.0 ms > 10 ms".into()),
        repeat: false,
        verdict,
    };
    limit.steps = vec![step(None), step(Some(Verdict::Missed))];
    limit.outcome = Outcome::NoRate { lowest_rps: rate };
    limit.bracket = None;
}

#[test]
fn no_capacity_above_a_rate_the_loaders_own_search_missed() {
    let mut bench = report::load(&fixture()).unwrap();
    missing_ceiling(&mut bench, 700.0);
    let cell = column(&bench, "post, 50 connections");
    assert_eq!(
        cell,
        "no ratio (the machine cannot resolve p99 ≤ 10 ms at 700/s, where the loader's own search missed it; node met \
         it at 766/s, rust met it at 1,385/s)"
    );
    let (md, _) = report::render(&bench);
    assert!(md.contains("**Not capacities: rust on post, node on post.**"), "{md}");
    assert!(md.contains("not a capacity: met at 1,385/s, above 700/s (see below)"), "{md}");
    // One side above it is enough for no ratio: rust's 1,385/s is above 1,000/s, node's 766/s is not.
    missing_ceiling(&mut bench, 1_000.0);
    let cell = column(&bench, "post, 50 connections");
    assert!(cell.starts_with("no ratio (the machine cannot resolve") && cell.ends_with("rust met it at 1,385/s)"));
    // Below every capacity's rate the ceiling missed nothing: the ratio is back.
    missing_ceiling(&mut bench, 5_000.0);
    assert_eq!(column(&bench, "post, 50 connections"), "0.55× (one search each: noise not measured)");
    // With no loader's limit searched (`--quick`) there is nothing to check against: the rule says nothing, and a
    // quick run's capacities are cold, with no ratio for that reason.
    bench.capacity.as_mut().unwrap().loader_limit = None;
    bench.capacity.as_mut().unwrap().settings.warmup_s = 0;
    assert_eq!(column(&bench, "post, 50 connections"), "no ratio (cold: --quick steps have no warm-up)");
}

#[test]
fn the_method_paragraph_names_the_rule_the_file_was_decided_by() {
    // A file of several windows a rate written before the margin was decided by a Wilson interval, and says so; one
    // written since names its margin and the majority at the cap.
    let mut bench = report::load(&fixture()).unwrap();
    bench.capacity.as_mut().unwrap().settings.max_windows = 5;
    let (md, _) = report::render(&bench);
    assert!(md.contains("80 % Wilson interval") && !md.contains("outnumber"), "{md}");
    bench.capacity.as_mut().unwrap().settings.margin = Some(2);
    let (md, _) = report::render(&bench);
    assert!(md.contains("outnumber those missing it by 2") && md.contains("the majority decides"), "{md}");
    assert!(!md.contains("Wilson"), "{md}");
}
