//! The profile's rules on stacks recorded from the real servers (tests/fixtures/stacks, whose README says how), the
//! rule tables' parser, and the runtimes' pause logs (tests/fixtures/gc).

use std::collections::BTreeSet;

use fairpair::profile::parts::{Language, Part, Rules, SHARED_TABLE, breakdown, folded_line};
use fairpair::profile::pauses::{self, Window};

/// Each fixture, the language whose rules sort it, and what they make of it: samples, resolved, then the samples of
/// each part in `Part::ALL`'s order (kernel, HTTP, JSON, app, memory, runtime, other).
const FIXTURES: [(&str, Language, u64, u64, [u64; 7]); 9] = [
    ("rust-get", Language::Rust, 1731, 1731, [1173, 341, 19, 67, 38, 93, 0]),
    ("rust-post", Language::Rust, 2489, 2489, [1370, 520, 26, 360, 64, 146, 3]),
    ("ceiling-get", Language::Rust, 1647, 1647, [1324, 212, 0, 0, 19, 92, 0]),
    ("node-get", Language::JavaScript, 2171, 2157, [1496, 407, 65, 23, 21, 159, 0]),
    ("node-post", Language::JavaScript, 2346, 2346, [1584, 303, 30, 175, 130, 124, 0]),
    ("go-get", Language::Go, 2103, 2103, [1167, 500, 12, 11, 224, 189, 0]),
    ("go-post", Language::Go, 3104, 3104, [1439, 622, 46, 145, 675, 177, 0]),
    ("java-get", Language::Java, 3733, 3733, [2182, 701, 35, 287, 183, 345, 0]),
    ("java-post", Language::Java, 3556, 3556, [1774, 871, 1, 81, 404, 425, 0]),
];

/// Rules no fixture exercises, and why they stay: the table, the pattern, the reason.
const UNRECORDED: [(&str, &str, &str); 3] = [
    (
        "java.tsv",
        "GC_Thread",
        "the JVM runs its collector on worker threads with two CPUs or more; the fixtures have one",
    ),
    ("java.tsv", "G1_", "the JVM picks G1 with two CPUs or more (Serial GC with one, as the fixtures are)"),
    ("java.tsv", "G1", "G1's frames, for the same reason"),
];

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/stacks/{name}.folded", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn gc_log(name: &str) -> String {
    let path = format!("{}/tests/fixtures/gc/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_recorded_stack_is_sorted_as_recorded() {
    let mut report = String::new();
    let mut wrong = false;
    for (name, language, samples, resolved, parts) in FIXTURES {
        let folded = fixture(name);
        let b = breakdown(&folded, &Rules::of(Some(language)));
        let got: Vec<u64> = Part::ALL.iter().map(|p| b.parts.get(p).copied().unwrap_or(0)).collect();
        assert_eq!(b.parts.values().sum::<u64>(), b.samples, "{name}: the parts add up to the samples");
        let lines: u64 = folded.lines().filter_map(folded_line).map(|(_, n)| n).sum();
        assert_eq!(b.samples, lines, "{name}");
        assert!(b.resolved_share() >= 0.9, "{name}: {:.1} % resolved", 100.0 * b.resolved_share());
        assert!(b.share(Part::Other) < 0.15, "{name}: {:.1} % other", 100.0 * b.share(Part::Other));
        wrong |= (b.samples, b.resolved, &got[..]) != (samples, resolved, &parts[..]);
        report
            .push_str(&format!("    (\"{name}\", Language::{language:?}, {}, {}, {got:?}),\n", b.samples, b.resolved));
    }
    assert!(!wrong, "the fixtures' breakdowns changed; now:\n{report}");
}

/// The rules that some recorded stack of the language exercises: that a rule decides (or, for a `pass` rule, whose
/// frame it passes on), by the table's name and line.
fn exercised(language: Option<Language>, rules: &Rules) -> BTreeSet<(String, usize)> {
    let mut live = BTreeSet::new();
    let names = FIXTURES.iter().filter(|f| language.is_none_or(|l| f.1 == l)).map(|f| f.0);
    for name in names {
        // The shared rules are tried after a language's: a fixture exercises them under its own language's table.
        let language_rules;
        let rules = match language {
            Some(_) => rules,
            None => {
                language_rules = Rules::of(Some(FIXTURES.iter().find(|f| f.0 == name).unwrap().1));
                &language_rules
            }
        };
        for (frames, _) in fixture(name).lines().filter_map(folded_line) {
            if let (_, Some(rule)) = rules.decide(&frames) {
                live.insert(rule.source.clone());
            }
            let passes = rules.rules.iter().filter(|r| r.part.is_none());
            for rule in passes.filter(|r| frames.iter().skip(1).any(|f| r.matches(f, false))) {
                live.insert(rule.source.clone());
            }
        }
    }
    live
}

#[test]
fn every_rule_is_exercised_by_some_recorded_stack() {
    let mut dead = Vec::new();
    let tables = Language::ALL.map(|l| (Some(l), Language::table(l).0)).into_iter().chain([(None, SHARED_TABLE.0)]);
    for (language, table) in tables {
        let rules = Rules::of(language);
        let live = exercised(language, &rules);
        for rule in rules.rules.iter().filter(|r| r.source.0 == table) {
            let excused = UNRECORDED.iter().any(|(t, p, _)| (*t, *p) == (table, rule.pattern.as_str()));
            if !live.contains(&rule.source) && !excused {
                dead.push(format!("{}:{} {}", table, rule.source.1, rule.pattern));
            }
        }
    }
    assert!(dead.is_empty(), "rules that no recorded stack exercises:\n{}", dead.join("\n"));
}

#[test]
fn every_shipped_table_parses() {
    for (name, text) in Language::ALL.map(Language::table).into_iter().chain([SHARED_TABLE]) {
        let rules = Rules::parse(name, text).unwrap_or_else(|e| panic!("{e}"));
        assert!(!rules.rules.is_empty(), "{name}");
    }
}

#[test]
fn a_table_that_does_not_parse_says_where_and_why() {
    let cases = [
        ("json\tprefix\tserde_json::", "t.tsv line 1: 3 tab-separated fields"),
        ("# a comment\n\njsn\tprefix\tx\twhy", "t.tsv line 3: unknown part \"jsn\""),
        ("json\tstarts\tx\twhy", "t.tsv line 1: unknown match \"starts\""),
        ("json\tprefix\t\twhy", "t.tsv line 1: the pattern \"\" is empty"),
        ("json\tprefix\t x\twhy", "has spaces at an end"),
        ("kernel\tkernel\tfoo\twhy", "`kernel` takes the pattern `*`"),
        ("json\tprefix\t*\twhy", "`kernel` takes the pattern `*`, and only it does"),
        ("json\tprefix\tx\t ", "does not say why"),
        ("pass\tthread\tx\twhy", "a thread cannot pass"),
    ];
    for (text, want) in cases {
        let error = Rules::parse("t.tsv", text).expect_err(text).to_string();
        assert!(error.contains(want), "{text:?}: {error}");
    }
}

#[test]
fn an_unknown_language_gets_the_shared_rules_alone() {
    let rules = Rules::of(None);
    let b =
        breakdown("srv;main;hyper::write;writev;tcp_sendmsg_[k] 3\nsrv;main;hyper::write 2\nsrv;f;malloc 1\n", &rules);
    assert_eq!(b.parts.get(&Part::Kernel), Some(&3));
    assert_eq!(b.parts.get(&Part::Other), Some(&2));
    assert_eq!(b.parts.get(&Part::Memory), Some(&1));
    let rust = breakdown("srv;main;hyper::write 2\n", &Rules::of(Some(Language::Rust)));
    assert_eq!(rust.parts.get(&Part::Http), Some(&2));
}

const ALL_TIME: Window = Window { from_s: 0.0, to_s: 1e9 };

fn ms(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn pauses_of(p: &pauses::Pauses) -> (u64, f64, f64) {
    (p.count, ms(p.total_ms), ms(p.longest_ms))
}

#[test]
fn node_trace_gc_logs_of_node_26_and_20() {
    // Node 26's lines say `pooled: 0.0 MB, ` before the pause; a cluster's primary and two workers write to one log.
    let log = gc_log("node26-cluster-trace-gc.log");
    assert_eq!(pauses_of(&pauses::node_trace_gc(&log, ALL_TIME)), (194, 593.4, 24.82));
    assert_eq!(pauses_of(&pauses::node_trace_gc(&log, Window { from_s: 2.0, to_s: 4.0 })), (47, 167.9, 24.82));
    let log = gc_log("node20-trace-gc.log");
    assert_eq!(pauses_of(&pauses::node_trace_gc(&log, ALL_TIME)), (198, 260.87, 19.21));
    assert_eq!(pauses_of(&pauses::node_trace_gc(&log, Window { from_s: 2.0, to_s: 4.0 })), (55, 64.43, 2.59));
    assert_eq!(pauses::node_trace_gc(&log, Window { from_s: 100.0, to_s: 200.0 }), pauses::Pauses::default());
}

#[test]
fn go_gctrace_counts_both_stops_of_each_cycle() {
    let log = gc_log("go-gctrace.log");
    assert_eq!(pauses_of(&pauses::go_gctrace(&log, ALL_TIME)), (214, 5.137, 2.2));
    assert_eq!(pauses_of(&pauses::go_gctrace(&log, Window { from_s: 5.0, to_s: 10.0 })), (48, 3.081, 2.2));
}

#[test]
fn jvm_gc_logs_count_young_and_full_pauses() {
    let log = gc_log("jvm-serial-gc.log");
    assert_eq!(pauses_of(&pauses::jvm_gc_log(&log, ALL_TIME)), (209, 3139.03, 428.686));
    assert_eq!(pauses_of(&pauses::jvm_gc_log(&log, Window { from_s: 30.0, to_s: 40.0 })), (53, 1123.875, 428.686));
    // G1's pauses read alike; its concurrent phases are not pauses.
    let g1 = "[0.123s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.345ms\n\
              [0.200s][info][gc] GC(1) Concurrent Mark Cycle 12.345ms\n\
              [0.300s][info][gc] GC(1) Pause Remark 20M->20M(256M) 1.000ms\n";
    assert_eq!(pauses_of(&pauses::jvm_gc_log(g1, ALL_TIME)), (2, 3.345, 2.345));
}

#[test]
fn node_loop_delay_takes_the_worst_second_in_the_window() {
    let log = gc_log("node26-loop-delay.856");
    let d = pauses::node_loop_delay(&log, ALL_TIME).unwrap();
    assert_eq!((d.p99_ms, d.max_ms), (56.29, 188.705));
    let d = pauses::node_loop_delay(&log, Window { from_s: 3.5, to_s: 7.0 }).unwrap();
    assert_eq!((d.p99_ms, d.max_ms), (16.64, 72.379));
    assert_eq!(pauses::node_loop_delay(&log, Window { from_s: 100.0, to_s: 200.0 }), None);
    let log = gc_log("node20-loop-delay.32762");
    let d = pauses::node_loop_delay(&log, Window { from_s: 2.0, to_s: 4.0 }).unwrap();
    assert_eq!((d.p99_ms, d.max_ms), (3.541, 3.795));
}

#[test]
fn garbage_lines_are_skipped_never_a_panic() {
    let garbage = [
        "",
        "listening on http://127.0.0.1:3000 (10000 users, 1 worker)",
        "[",
        "[]",
        "[12:0x1]",
        "[12:0x1]    abc ms: Scavenge",
        "[12:0x1]      70 ms: Scavenge 5.9 (6.9) -> 5.4 (7.6) MB, pooled: 0.0 MB, x / 0.00 ms",
        "[12:0x1]      70 ms: Scavenge 5.9 (6.9) -> 5.4 (7.6) MB, pooled: 0.0 MB, 2.4",
        "gc",
        "gc 1 @0.012s 2%: 0.010+0.25 ms clock,",
        "gc 1 @s 2%: 0.010+0.25+0.003 ms clock,",
        "gc x @0.1s 2%: 0.010+0.25+0.003 ms clock,",
        "gc 1 @0.1s 2%: a+b+c ms clock,",
        "[0.1s][info][gc] GC(0) Pause Young",
        "[0.1s][info][gc] GC(0) Pause Young 1M->0M(2M) ms",
        "[0.1s][info][gc] GC(0",
        "[x s][info][gc] GC(0) Pause Young 1M->0M(2M) 1.0ms",
        "1.0 2.0 3.0",
        "1.0 2.0 3.0 x",
        "é ü \u{0} ;;; 1 2 3 4 5",
    ]
    .join("\n");
    assert_eq!(pauses::node_trace_gc(&garbage, ALL_TIME), pauses::Pauses::default());
    assert_eq!(pauses::go_gctrace(&garbage, ALL_TIME), pauses::Pauses::default());
    assert_eq!(pauses::jvm_gc_log(&garbage, ALL_TIME), pauses::Pauses::default());
    assert_eq!(pauses::node_loop_delay(&garbage, ALL_TIME), None);
    // A real line among the garbage is still read.
    let mixed = format!("{garbage}\ngc 9 @1.5s 2%: 0.5+1.0+0.25 ms clock, x\n");
    assert_eq!(pauses_of(&pauses::go_gctrace(&mixed, ALL_TIME)), (2, 0.75, 0.5));
}
