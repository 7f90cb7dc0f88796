//! Property tests over generated `benchmark.json` files: the summary's sentences and cells quote only what the data
//! holds. Each case starts from a committed run (rust and node in four cells, the ceiling in two) and draws every cell's median throughput
//! and whether the loader held it; the report is rendered and read back:
//!
//! - a "loader-limited at …" sentence names each cell with that cell's own median (it once quoted one figure, the
//!   highest, beside cells that measured a third less), and with its own word, loader-limited or loader-bound (it
//!   once gave every cell of a subject the word of the worst);
//! - no bound says nothing: a lower bound is at least 1×, an upper bound at most 1× (it once printed "≥ 0.93×").

use std::path::PathBuf;

use fairpair::report;
use fairpair::schema::Benchmark;
use fairpair::text::thousands;
use proptest::prelude::*;

fn committed() -> Benchmark {
    let file =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/epyc-2vcpu-b/after-dfe9152/benchmark.json");
    report::load(&file).unwrap()
}

/// The summary of the rendered report: from its heading to the next section.
fn summary_of(b: &Benchmark) -> String {
    let (md, _) = report::render(b);
    let start = md.find("## Summary").expect("a summary");
    let end = md[start + 3..].find("\n## ").map_or(md.len(), |i| start + 3 + i);
    md[start..end].to_string()
}

/// Each `CELL (N/s)` a loader sentence names, as (subject, scenario, connections, the figure quoted, whether it was
/// named loader-limited rather than loader-bound).
fn quoted_cells(summary: &str) -> Vec<(String, String, u32, String, bool)> {
    let mut out = Vec::new();
    for line in summary.lines().filter(|l| l.starts_with("- ")) {
        let Some((subject, rest)) = line.trim_start_matches("- ").split_once(" is loader-") else { continue };
        let rest = format!("loader-{}", rest.split(": th").next().unwrap_or(""));
        for part in rest.split(", and ") {
            let (word, cells) = part.split_once(" at ").unwrap_or_else(|| panic!("a word and its cells: {line}"));
            for cell in cells.split("), ") {
                let (place, figure) = cell.split_once(" (").expect("a cell and its figure");
                let (scenario, conns) = place.split_once(' ').expect("scenario and connections");
                let figure = figure.trim_end_matches(')').trim_end_matches("/s").to_string();
                let limited = word == "loader-limited";
                out.push((subject.to_string(), scenario.to_string(), conns.parse().unwrap(), figure, limited));
            }
        }
    }
    out
}

/// Every bound a summary cell gives, as (at least, the ratio shown).
fn bounds(summary: &str) -> Vec<(bool, f64)> {
    let mut out = Vec::new();
    for (sign, at_least) in [("≥ ", true), ("≤ ", false)] {
        for piece in summary.split(sign).skip(1) {
            if let Some(number) = piece.split('×').next().and_then(|n| n.parse::<f64>().ok()) {
                out.push((at_least, number));
            }
        }
    }
    out
}

proptest! {
    // No failure file beside the test: a failing case is printed, and the test is reproducible from it.
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_summary_quotes_each_cells_own_figure_and_no_bound_that_says_nothing(
        medians in prop::collection::vec(1_000.0f64..200_000.0, 10),
        held in prop::collection::vec(any::<bool>(), 10),
        bound in prop::collection::vec(any::<bool>(), 10),
    ) {
        let mut b = committed();
        prop_assert_eq!(b.summaries.len(), 10);
        for (i, s) in b.summaries.iter_mut().enumerate() {
            s.requests_per_sec.median = medians[i];
            s.requests_per_sec.min = medians[i];
            s.requests_per_sec.max = medians[i];
            s.loader_limited = held[i];
            s.loader_bound_runs = u32::from(bound[i] && !held[i]);
        }
        let summary = summary_of(&b);
        let quoted = quoted_cells(&summary);
        // Every held cell is named, with its own median and its own word: a loader-bound cell is never called
        // loader-limited (one word per subject once named every cell by the worst).
        let held_cells = b.summaries.iter().filter(|s| s.loader_limited || s.loader_bound_runs > 0).count();
        prop_assert_eq!(quoted.len(), held_cells, "{}", summary);
        for (subject, scenario, conns, figure, limited) in &quoted {
            let cell = b.summary(subject, scenario, *conns).expect("a named cell exists");
            prop_assert_eq!(cell.loader_limited, *limited, "{} {} {}:\n{}", subject, scenario, conns, summary);
            prop_assert_eq!(figure, &thousands(cell.requests_per_sec.median), "{}", summary);
        }
        for (at_least, ratio) in bounds(&summary) {
            prop_assert!(if at_least { ratio >= 1.0 } else { ratio <= 1.0 }, "a bound that says nothing:\n{}", summary);
        }
    }
}
