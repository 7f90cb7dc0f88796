//! `fairpair report --compare OLD.json NEW.json`: two runs side by side, each figure with both medians, the ratio and
//! the report's noise verdict.
//!
//! This answers the question a user holding a control subject has: did my change (before/after on one machine), or
//! my machine (one commit on two machines), move this figure beyond the noise? Every figure is compared subject by
//! subject and cell by cell (scenario × connections): throughput, p50, p99 and server CPU per request from the
//! closed-loop summaries, the capacity at the latency objective, and idle and after-load RSS from the memory
//! summaries. A figure moved *beyond the noise* only when the min–max ranges of its runs in the two files do not
//! overlap, the same rule as the report's verdicts between subjects ([`stats::verdict`]); a capacity is one search in
//! each file, so, like a single run, it gets no verdict.
//!
//! Both files are read by [`report::load`], as the report reads them: this version, or version 1 upgraded on load,
//! so a comparison and a report of the same file quote the same figures. The comparison is a report
//! [`Document`], so both renderers draw it: Markdown on stdout, or `compare.md` and `compare.html` with `--out`.
//! `--format json` writes the same comparison for scripts ([`json`]); [`gate`] decides which differences fail
//! `--fail-on-regression`. The command itself, which reads the files and writes or prints the result, is
//! [`compare_files`] (`files.rs`).

mod files;
pub mod gate;
pub mod json;

use crate::analyse::stats::{self, Stat, Verdict};
use crate::export::{self, Figure, Limit};
use crate::report::{
    self,
    Align::{Left, Right},
    Block, Document, Table,
};
use crate::schema::{Benchmark, LoadRun, Settings, Summary};
use crate::text::{count, number};

pub use crate::export::Metric;
pub use files::{Format, compare_files};

/// How a figure moved from the old file to the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Better,
    Worse,
    WithinNoise,
    /// A single run on either side: nothing can be said about noise, so no verdict (and never a regression).
    NoiseUnknown,
}

impl Change {
    fn of(metric: Metric, old: &Stat, new: &Stat) -> Change {
        match stats::verdict(old, new) {
            Verdict::NoiseUnknown => Change::NoiseUnknown,
            Verdict::WithinNoise => Change::WithinNoise,
            Verdict::Exceeds if (new.median > old.median) == metric.higher_is_better() => Change::Better,
            Verdict::Exceeds => Change::Worse,
        }
    }

    /// The verdict column's text for a figure of `metric`: a capacity is one search in each file, not one run.
    fn text(self, metric: Metric) -> &'static str {
        match self {
            Change::Better => "**better, beyond the noise**",
            Change::Worse => "**worse, beyond the noise**",
            Change::WithinNoise => "within the noise",
            Change::NoiseUnknown if metric == Metric::Capacity => "single search: no verdict",
            Change::NoiseUnknown => "single run: no verdict",
        }
    }
}

/// One figure in both files.
#[derive(Clone, Debug)]
pub struct Row {
    /// `None` for the memory figures, which are per subject only.
    pub cell: Option<(String, u32)>,
    pub subject: String,
    pub metric: Metric,
    pub old: Stat,
    pub new: Stat,
    pub change: Change,
    /// Set when the figure is a bound in either file (the loader may have set it): see [`gate`].
    pub limit: Option<Limit>,
    /// What a reader must know before trusting this row (loader-bound runs, error statuses), one phrase each.
    pub notes: Vec<String>,
}

/// Everything the comparison found.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    pub rows: Vec<Row>,
    /// Subject × cell measured in only one of the files, e.g. "rust get at 300 connections (old only)".
    pub unmatched: Vec<String>,
}

impl Comparison {
    pub fn count(&self, change: Change) -> usize {
        self.rows.iter().filter(|r| r.change == change).count()
    }

    /// Figures that got worse beyond the noise (the gate then decides which of them fail it: [`gate`]).
    pub fn regressions(&self) -> usize {
        self.count(Change::Worse)
    }
}

/// Pairs every figure of `old` with the same figure of `new`: the list the exports read ([`export::figures`]).
pub fn compare(old: &Benchmark, new: &Benchmark) -> Comparison {
    let (old_figures, new_figures) = (export::figures(old), export::figures(new));
    let mut out = Comparison::default();
    let mut only = |place: String, side: &str| {
        let line = format!("{place} ({side} only)");
        if !out.unmatched.contains(&line) {
            out.unmatched.push(line);
        }
    };
    let mut rows = Vec::new();
    for o in &old_figures {
        let Some(n) = new_figures.iter().find(|n| n.same(o)) else {
            only(o.place(), "old");
            continue;
        };
        rows.push(Row {
            cell: o.cell.clone(),
            subject: o.subject.clone(),
            metric: o.metric,
            change: Change::of(o.metric, &o.stat, &n.stat),
            old: o.stat.clone(),
            new: n.stat.clone(),
            limit: o.limit.or(n.limit),
            notes: notes(o, n, old, new),
        });
    }
    for n in new_figures.iter().filter(|n| !old_figures.iter().any(|o| o.same(n))) {
        only(n.place(), "new");
    }
    out.rows = rows;
    out
}

/// The notes of a row: for a throughput, what a loader limit or an error status did to the cell; for a capacity,
/// each side that is a bound, and why. (A latency's bound shows on its cell's throughput row.)
fn notes(o: &Figure, n: &Figure, old: &Benchmark, new: &Benchmark) -> Vec<String> {
    match o.metric {
        Metric::Capacity => capacity_notes(o, n),
        Metric::Throughput => throughput_notes(o, old, new),
        _ => vec![],
    }
}

/// `new: ≥, search-upper-bound`: a capacity bound is a lower bound, with the reason the export names; and each side's
/// bracket, when a rate above its capacity was decided missed (`old: bracket 766–800/s`).
fn capacity_notes(o: &Figure, n: &Figure) -> Vec<String> {
    let bounds = [("old", o), ("new", n)]
        .into_iter()
        .filter_map(|(side, f)| f.limit.map(|l| format!("{side}: ≥, {}", l.as_str())));
    let brackets = [("old", o), ("new", n)].into_iter().filter_map(|(side, f)| {
        f.bracket.filter(|b| b.high.is_some()).map(|b| format!("{side}: {}", crate::capacity::bracket_text(&b)))
    });
    bounds.chain(brackets).collect()
}

fn throughput_notes(f: &Figure, old: &Benchmark, new: &Benchmark) -> Vec<String> {
    let Some((scenario, conns)) = f.cell.as_ref() else { return vec![] };
    let mut notes = Vec::new();
    for (side, file) in [("old", old), ("new", new)] {
        let Some(s) = file.summary(&f.subject, scenario, *conns) else { continue };
        if s.loader_limited {
            notes.push(format!("{side}: loader-limited, a bound"));
        }
        if s.loader_bound_runs > 0 {
            notes.push(format!("{side}: loader-bound in {}", count(u64::from(s.loader_bound_runs), "run")));
        }
        if s.errors + s.non_2xx > 0 {
            notes.push(format!("{side}: {} errors, {} error statuses", s.errors, s.non_2xx));
        }
    }
    notes
}

/// The comparison as a [`Document`], drawn by the report's renderers (`compare.md`, `compare.html`): the two runs,
/// the verdict counts, every figure, and each subject's ratio to the recorded baseline within each file (which is
/// what moves when a machine changes the balance between them).
pub fn document(old_name: &str, new_name: &str, old: &Benchmark, new: &Benchmark, c: &Comparison) -> Document {
    let mut doc = Document::default();
    doc.heading(1, "fairpair comparison");
    header(&mut doc, old_name, new_name, old, new);
    // Capacities are explained only where there are some: most comparisons have none.
    let capacities = c.rows.iter().any(|r| r.metric == Metric::Capacity);
    let capacity = if capacities {
        " A capacity is one search in each file, so it gets no verdict either: repeated searches on one machine \
         spread far wider than the search's resolution."
    } else {
        ""
    };
    doc.paragraph(format!(
        "A figure moved *beyond the noise* only when the min–max ranges of its runs in the two files do not overlap \
         (the report's rule); with a single run on either side the noise is unknown and no verdict is given.{capacity} \
         The ratio is new / old: above 1 is better for throughput{}, below 1 better for latency, CPU and memory.",
        if capacities { " and capacity" } else { "" }
    ));
    doc.paragraph(format!(
        "**{} figures compared: {} better beyond the noise, {} worse beyond the noise, {} within the noise, {} \
         without a verdict ({}).**",
        c.rows.len(),
        c.count(Change::Better),
        c.count(Change::Worse),
        c.count(Change::WithinNoise),
        c.count(Change::NoiseUnknown),
        if capacities { "a single run or search" } else { "single run" }
    ));
    let (closed, memory): (Vec<&Row>, Vec<&Row>) = c.rows.iter().partition(|r| r.cell.is_some());
    let figure_columns = [("figure", Left), ("old", Right), ("new", Right), ("new / old", Right), ("verdict", Left)];
    if !closed.is_empty() {
        doc.heading(2, "Closed-loop runs");
        doc.paragraph(if capacities {
            "Median [min–max] over each file's repeats; a capacity is one search, so one figure."
        } else {
            "Median [min–max] over each file's repeats."
        });
        let mut t = Table::new(
            &[[("scenario", Left), ("connections", Right), ("subject", Left)].as_slice(), &figure_columns].concat(),
        );
        for r in closed {
            let (scenario, conns) = r.cell.clone().expect("partitioned on cell");
            t.row([vec![scenario, conns.to_string(), r.subject.clone()], figures(r)].concat());
        }
        doc.push(Block::Table(t));
    }
    if !memory.is_empty() {
        doc.heading(2, "Memory");
        doc.paragraph("RSS summed over each subject's processes, median [min–max].");
        let mut t = Table::new(&[[("subject", Left)].as_slice(), &figure_columns].concat());
        for r in memory {
            t.row([vec![r.subject.clone()], figures(r)].concat());
        }
        doc.push(Block::Table(t));
    }
    against_baseline(&mut doc, old, new);
    if !c.unmatched.is_empty() {
        doc.heading(2, "Measured in one file only");
        doc.list(c.unmatched.clone());
    }
    doc
}

/// Where and how each file was measured, and a warning when the method differs.
fn header(doc: &mut Document, old_name: &str, new_name: &str, old: &Benchmark, new: &Benchmark) {
    let mut t = Table::new(&[("", Left), ("old", Left), ("new", Left)]);
    t.row(vec!["file".into(), format!("`{old_name}`"), format!("`{new_name}`")]);
    let mut row = |label: &str, f: &dyn Fn(&Benchmark) -> String| t.row(vec![label.into(), f(old), f(new)]);
    row("measured", &|r| r.environment.date.clone());
    row("machine", &|r| {
        let e = &r.environment;
        format!("{} × {}, `{}`, Linux {}", e.cpu_model, e.cpus_online, e.hostname, e.kernel)
    });
    row("commit", &|r| {
        let e = &r.environment;
        let short: String = e.git_commit.chars().take(10).collect();
        format!("`{short}`{}", if e.git_dirty { " (uncommitted changes)" } else { "" })
    });
    row("rustc, node", &|r| format!("{}, {}", r.environment.rustc, r.environment.node));
    row("method", &|r| method(&r.settings));
    row("other processes during the runs", &|r| busy(&r.runs));
    row("schema", &|r| r.schema_version.to_string());
    doc.push(Block::Table(t));
    let (a, b) = (&old.settings, &new.settings);
    let mut differ = Vec::new();
    if a.tool != b.tool || a.loader_threads != b.loader_threads {
        differ.push("load tool");
    }
    if a.duration_s != b.duration_s || a.warmup_s != b.warmup_s {
        differ.push("run length");
    }
    if a.repeats != b.repeats || a.quick != b.quick {
        differ.push("repeats");
    }
    if a.pinned != b.pinned {
        differ.push("pinning");
    }
    if !differ.is_empty() {
        doc.push(Block::Note(format!(
            "**The method differs** ({}): a figure that moved may have moved for that reason, not only for the \
             machine or the code.",
            differ.join(", ")
        )));
    }
}

fn method(s: &Settings) -> String {
    format!(
        "{} ({}), {}, {} s after {} s warm-up, {}{}",
        s.tool,
        count(u64::from(s.loader_threads), "thread"),
        if s.pinned { "pinned" } else { "not pinned" },
        s.duration_s,
        s.warmup_s,
        count(u64::from(s.repeats), "repeat"),
        if s.quick { ", --quick" } else { "" }
    )
}

/// What the rest of the machine used during the closed-loop runs, and how many runs began on a busy machine.
fn busy(runs: &[LoadRun]) -> String {
    if runs.is_empty() {
        return "not recorded".into();
    }
    let mean = runs.iter().map(|r| r.other_cpu_percent).sum::<f64>() / runs.len() as f64;
    let max = runs.iter().map(|r| r.other_cpu_percent).fold(0.0, f64::max);
    let busy = runs.iter().filter(|r| !r.machine_idle).count();
    format!(
        "{mean:.1} % of the machine on average (max {max:.1} %); {busy} of {} began on a busy machine",
        count(runs.len() as u64, "run")
    )
}

/// The `figure`, `old`, `new`, `new / old` and `verdict` cells of one row.
fn figures(r: &Row) -> Vec<String> {
    let ratio = if r.old.median == 0.0 { "—".to_string() } else { format!("{:.2}×", r.new.median / r.old.median) };
    let notes = if r.notes.is_empty() { String::new() } else { format!(" ({})", r.notes.join("; ")) };
    vec![r.metric.label().into(), stat(&r.old), stat(&r.new), ratio, format!("{}{notes}", r.change.text(r.metric))]
}

fn stat(s: &Stat) -> String {
    if s.n > 1 { format!("{} [{}–{}]", number(s.median), number(s.min), number(s.max)) } else { number(s.median) }
}

/// One subject's ratio to the run's baseline, in the old file and in the new.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineRatio {
    pub subject: String,
    pub baseline: String,
    pub scenario: String,
    pub connections: u32,
    /// `throughput` or `server CPU per request`.
    pub figure: &'static str,
    pub old: f64,
    pub new: f64,
}

/// Each contract subject's ratio to the run's baseline (`--baseline`, rust by default: see [`report::baseline`])
/// within each file: throughput and CPU per request, cell by cell. Two machines can agree on each subject's direction
/// and still disagree on this ratio. The ratio runs the report's way, subject / baseline.
pub fn baseline_ratios(old: &Benchmark, new: &Benchmark) -> Vec<BaselineRatio> {
    let Some(base) = report::baseline(old) else { return vec![] };
    let throughput: fn(&Summary) -> Option<f64> = |s| Some(s.requests_per_sec.median);
    let cpu: fn(&Summary) -> Option<f64> = |s| s.server_cpu_us_per_request.as_ref().map(|c| c.median);
    let mut out = Vec::new();
    for other in old.subjects.iter().filter(|s| !s.get_only && s.name != base) {
        let ratio = |file: &Benchmark, scenario: &str, conns: u32, pick: fn(&Summary) -> Option<f64>| {
            let a = file.summary(&other.name, scenario, conns).and_then(pick)?;
            let b = file.summary(base, scenario, conns).and_then(pick)?;
            (b != 0.0).then(|| a / b)
        };
        for s in old.summaries.iter().filter(|s| s.subject == other.name) {
            for (figure, pick) in [("throughput", throughput), ("server CPU per request", cpu)] {
                let (Some(a), Some(b)) =
                    (ratio(old, &s.scenario, s.connections, pick), ratio(new, &s.scenario, s.connections, pick))
                else {
                    continue;
                };
                out.push(BaselineRatio {
                    subject: other.name.clone(),
                    baseline: base.to_string(),
                    scenario: s.scenario.clone(),
                    connections: s.connections,
                    figure,
                    old: a,
                    new: b,
                });
            }
        }
    }
    out
}

/// The [`baseline_ratios`] as a section.
fn against_baseline(doc: &mut Document, old: &Benchmark, new: &Benchmark) {
    let ratios = baseline_ratios(old, new);
    let Some(first) = ratios.first() else { return };
    let mut subjects: Vec<&str> = Vec::new();
    for r in &ratios {
        if !subjects.contains(&r.subject.as_str()) {
            subjects.push(&r.subject);
        }
    }
    let mut t =
        Table::new(&[("scenario", Left), ("connections", Right), ("figure", Left), ("old", Right), ("new", Right)]);
    for r in &ratios {
        // With one subject beside the baseline the heading names it; with more, each row does.
        let figure = if subjects.len() > 1 { format!("{}: {}", r.subject, r.figure) } else { r.figure.to_string() };
        let (a, b) = (format!("{:.2}×", r.old), format!("{:.2}×", r.new));
        t.row(vec![r.scenario.clone(), r.connections.to_string(), figure, a, b]);
    }
    let titles: Vec<String> = subjects.iter().map(|s| format!("{s} / {}", first.baseline)).collect();
    doc.heading(2, format!("{} within each file", titles.join(", ")));
    doc.paragraph(
        "The ratio of the two subjects' medians, measured in the same run: what a machine or a change does to the \
         balance between them.",
    );
    doc.push(Block::Table(t));
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::report::load;

    fn results(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results").join(rel)
    }

    fn stat(v: &[f64]) -> Stat {
        Stat::of(v).unwrap()
    }

    /// The committed run of the first machine (schema version 1): rust, node and the ceiling.
    fn committed() -> Benchmark {
        load(&results("epyc-2vcpu-a/benchmark.json")).unwrap()
    }

    /// A closed-loop summary of `subject` at get/50 with these throughputs and p99s; the rest as committed.
    fn summary(subject: &str, rps: &[f64], p99: &[f64]) -> Summary {
        let template = committed().summaries.remove(0);
        Summary {
            subject: subject.into(),
            scenario: "get".into(),
            connections: 50,
            requests_per_sec: stat(rps),
            p50_ms: stat(&[1.0, 1.0, 1.0]),
            p99_ms: stat(p99),
            server_cpu_us_per_request: Some(stat(&[10.0, 10.5, 11.0])),
            loader_bound_runs: 0,
            errors: 0,
            non_2xx: 0,
            ..template
        }
    }

    /// The committed file with only these summaries, no memory figures and no runs.
    fn file(summaries: Vec<Summary>) -> Benchmark {
        let mut b = committed();
        b.summaries = summaries;
        b.memory_summaries.clear();
        b.runs.clear();
        b
    }

    #[test]
    fn directions_decide_better_and_worse() {
        let table = [
            // (metric, old, new, expected), named by the assert message.
            (Metric::Throughput, [100.0, 101.0, 102.0], [90.0, 91.0, 92.0], Change::Worse),
            (Metric::Throughput, [100.0, 101.0, 102.0], [110.0, 111.0, 112.0], Change::Better),
            (Metric::P99, [10.0, 11.0, 12.0], [20.0, 21.0, 22.0], Change::Worse),
            (Metric::P99, [10.0, 11.0, 12.0], [5.0, 6.0, 7.0], Change::Better),
            (Metric::CpuPerRequest, [10.0, 11.0, 12.0], [11.5, 12.5, 13.0], Change::WithinNoise),
            (Metric::IdleRss, [5.0, 5.1, 5.2], [6.0, 6.1, 6.2], Change::Worse),
        ];
        for (metric, old, new, expected) in table {
            assert_eq!(Change::of(metric, &stat(&old), &stat(&new)), expected, "{metric:?} {old:?} → {new:?}");
        }
        assert_eq!(Change::of(Metric::Throughput, &stat(&[100.0]), &stat(&[50.0])), Change::NoiseUnknown);
    }

    #[test]
    fn a_synthetic_regression_is_found_and_only_it() {
        let old = file(vec![summary("rust", &[100.0, 101.0, 102.0], &[5.0, 5.5, 6.0])]);
        // Throughput down beyond the noise, p99 within it.
        let new = file(vec![summary("rust", &[80.0, 81.0, 82.0], &[5.2, 5.8, 6.1])]);
        let c = compare(&old, &new);
        assert_eq!(c.rows.len(), 4, "throughput, p50, p99, CPU");
        assert_eq!(c.regressions(), 1);
        let worse: Vec<Metric> = c.rows.iter().filter(|r| r.change == Change::Worse).map(|r| r.metric).collect();
        assert_eq!(worse, [Metric::Throughput]);
        assert_eq!(compare(&old, &old).regressions(), 0, "a file compared with itself");
        let md = report::markdown(&document("old.json", "new.json", &old, &new, &c));
        assert!(md.contains("| get | 50 | rust | throughput (req/s) | 101.00 [100.00–102.00] | 81.00 [80.00–82.00] | 0.80× | **worse, beyond the noise** |"), "{md}");
    }

    #[test]
    fn cells_in_one_file_only_are_listed_not_compared() {
        let old = file(vec![summary("rust", &[1.0, 2.0], &[1.0, 2.0]), summary("node", &[1.0, 2.0], &[1.0, 2.0])]);
        let new = file(vec![summary("rust", &[1.0, 2.0], &[1.0, 2.0])]);
        let c = compare(&old, &new);
        assert_eq!(c.unmatched, ["node get at 50 connections (old only)"]);
        assert!(c.rows.iter().all(|r| r.subject == "rust"));
    }

    #[test]
    fn a_capacity_is_one_search_compared_without_a_verdict_and_its_bounds_noted() {
        use crate::capacity::{CapacityRecord, Objective, Outcome, Search, SearchSettings};
        let with = |rust: f64, node: f64, node_bound: bool| {
            let search = |subject: &str, rps: f64, bound: bool| Search {
                subject: subject.into(),
                scenario: "get".into(),
                upper_rps: 2.0 * rps,
                upper_from: "closed-loop".into(),
                steps: Vec::new(),
                outcome: Outcome::Found { rps, spread_percent: 0.0, confirmed: true },
                bound,
                bracket: None,
            };
            let (objective, resolution_percent) = (Objective::default(), 5.0);
            let settings = SearchSettings {
                objective,
                resolution_percent,
                step_s: 4,
                warmup_s: 1,
                connections: 50,
                max_steps: 8,
                max_windows: 1,
                margin: None,
                confirm_ends: false,
            };
            let mut b = file(Vec::new());
            b.memory_summaries.clear();
            b.capacity = Some(CapacityRecord {
                settings,
                tool: crate::plan::names::Tool::Oha,
                loader_limit: None,
                searches: vec![search("rust", rust, false), search("node", node, node_bound)],
            });
            b
        };
        let (a, b) = (with(10_000.0, 5_000.0, false), with(7_000.0, 4_000.0, true));
        let c = compare(&a, &b);
        let rows: Vec<(&str, Metric, Change, Option<Limit>)> =
            c.rows.iter().map(|r| (r.subject.as_str(), r.metric, r.change, r.limit)).collect();
        // 30 % and 20 % lower, but each side is one search: no verdict, so never a regression. node's new figure is
        // a bound (no loader limit was measured and no step above it failed: it read as loader-limited).
        assert_eq!(
            rows,
            [
                ("rust", Metric::Capacity, Change::NoiseUnknown, None),
                ("node", Metric::Capacity, Change::NoiseUnknown, Some(Limit::LoaderLimited))
            ]
        );
        assert_eq!(c.regressions(), 0);
        let md = report::markdown(&document("old.json", "new.json", &a, &b, &c));
        let label = Metric::Capacity.label();
        assert!(
            md.contains(&format!("| get | 50 | rust | {label} | 10,000 | 7,000 | 0.70× | single search: no verdict |")),
            "{md}"
        );
        let node = format!(
            "| get | 50 | node | {label} | 5,000 | 4,000 | 0.80× | single search: no verdict (new: ≥, loader-limited) |"
        );
        assert!(md.contains(&node), "{md}");
        assert!(!md.contains("within the noise |"), "{md}");
        // Within one resolution step, too: one search each, no verdict rather than "within the noise".
        let c = compare(&with(10_000.0, 5_000.0, false), &with(10_400.0, 5_000.0, false));
        assert!(c.rows.iter().all(|r| r.change == Change::NoiseUnknown), "{:?}", c.rows);
    }

    #[test]
    fn committed_runs_of_schema_version_1_are_read() {
        let a = load(&results("epyc-2vcpu-a/benchmark.json")).unwrap();
        assert_eq!(a.schema_version, 1);
        assert_eq!(a.summaries.len(), 10, "rust, node and ceiling at get 50/300, rust and node at post 50/300");
        let c = compare(&a, &a);
        // 10 summaries × 4 figures (all have CPU per request) + 3 memory figures (RSS twice, start-up) × 3 subjects.
        assert_eq!(c.rows.len(), 10 * 4 + 3 * 3);
        assert_eq!((c.regressions(), c.count(Change::Better)), (0, 0), "a run compared with itself");
        assert!(c.unmatched.is_empty());
    }

    #[test]
    fn two_machine_folders_compare() {
        let a_path = results("epyc-2vcpu-a/benchmark.json");
        let b_path = results("epyc-2vcpu-b/before-1b793e4/benchmark.json");
        let (a, b) = (load(&a_path).unwrap(), load(&b_path).unwrap());
        let c = compare(&a, &b);
        assert_eq!(c.rows.len(), 10 * 4 + 3 * 3, "the same plan on both machines: every figure paired");
        let md = report::markdown(&document("a", "b", &a, &b, &c));
        assert!(md.contains("## node / rust within each file"), "{md}");
        // Machine A was quiet, machine B shared with builds: the header says so.
        assert!(md.contains("| other processes during the runs | 0.1 % of the machine on average"), "{md}");
        assert!(md.contains("30 of 30 runs began on a busy machine |"), "{md}");
        assert_eq!(md.matches("| get | 50 | rust |").count(), 4, "{md}");
    }

    #[test]
    fn fields_this_build_does_not_know_are_ignored_and_unknown_versions_refused() {
        // A later version adds fields (as version 2 did): a reader of the version it knows ignores them.
        let dir = std::env::temp_dir().join(format!("fairpair-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("extra.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(results("epyc-2vcpu-a/benchmark.json")).unwrap()).unwrap();
        v["loader_capacity_rps"] = serde_json::json!(1e5);
        v["summaries"][0]["loader_capacity_share"] = serde_json::json!(0.4);
        std::fs::write(&path, v.to_string()).unwrap();
        assert_eq!(load(&path).unwrap().summaries.len(), 10);
        std::fs::write(&path, r#"{"schema_version":99}"#).unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("schema version 99"), "{e}");
        std::fs::write(&path, r#"{"schema_version":2,"summaries":[]}"#).unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("not a fairpair benchmark file: missing field"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
