//! `benchmark.json` → `report.md`, `report.html` and SVG charts.
//!
//! Run with `fairpair report results/benchmark.json` (a `fairpair run` ends with it). Layout:
//!
//! - this file: reading a results file, and [`document_with`] (which [`document`] calls), calling the sections in
//!   reading order;
//! - `report/sections/`: the sections, grouped by what they tell (`summary.rs`: the answer first, each subject's
//!   headline figures against the baseline in words; `setup.rs`: how it was measured; `figures.rs`: the tables of
//!   figures; `warmup.rs`, `shape.rs`: the warm-up and the latency's shape; `decision.rs`: the figures against your
//!   own numbers; `verdicts.rs`: ratios and verdicts; `published.rs`: a study's own figures; `notes.rs`: left out,
//!   diagnoses, flags, skipped); the capacity at the latency objective is `capacity/report.rs`, beside the search;
//! - `report/ratios.rs`: the baseline, ratios and how far each can be trusted ([`Bound`]);
//! - `report/charts.rs`: which figures each chart draws; `report/svg.rs` draws the SVG;
//! - `report/format.rs`: how a figure is written;
//! - `report/document.rs`: the document the sections build (headings, paragraphs, notes, lists, tables, charts,
//!   collapsed code);
//! - `report/markdown.rs`, `report/html.rs`: one [`Renderer`] per file format, listed in [`RENDERERS`]; a new
//!   format is a new file there and one more entry in the list.
//!
//! The figures are those of the file's summaries (a version 1 file is first upgraded, which may leave out runs that
//! version still counted: see `schema::upgrade_from_v1`); what the report computes itself are the comparisons between
//! them: ratios, shares of the ceiling, verdicts against the noise. It is deterministic (same file, same bytes), so it
//! can be checked against a golden file and regenerated from old results.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

mod charts;
pub(crate) mod document;
mod format;
mod html;
mod markdown;
pub(crate) mod ratios;
mod sections;
pub(crate) mod svg;

pub use document::{Align, Block, Chart, Column, Document, Table};
pub use ratios::{Bound, baseline, measured, ratio_text};

use crate::decision::Inputs;
use crate::schema::{self, Benchmark, ReadError, SCHEMA_VERSION, SubjectKind};
use crate::usage;
use format::cells;
use sections::{figures, notes, setup, summary, verdicts};

/// Reads a `benchmark.json` of this schema version or of version 1 (upgraded: see [`schema::upgrade_from_v1`]),
/// refusing any other, with the loader's capacity taken as today's rule takes it
/// ([`crate::analyse::summarise::reapply_capacity`]). Any problem with the file is the user's input: a one-line error, exit 2.
pub fn load(path: &Path) -> Result<Benchmark> {
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
    let path_dir = path.parent().unwrap_or(Path::new("."));
    let path = path.display();
    let mut bench = schema::read(&text, crate::analyse::summarise::summarise).map_err(|e| {
        usage(match e {
            ReadError::NotJson(e) => format!("{path} is not JSON: {e}"),
            ReadError::NoVersion => format!("{path}: no schema_version, not a fairpair benchmark file"),
            ReadError::Version(v) => {
                format!("{path}: schema version {v}, this fairpair reads versions 1 to {SCHEMA_VERSION}")
            }
            ReadError::Shape(e) => format!("{path}: not a fairpair benchmark file: {e}"),
        })
    })?;
    crate::analyse::summarise::reapply_capacity(&mut bench);
    read_stacks(&mut bench, path_dir);
    Ok(bench)
}

/// The profiles' folded stacks, read from beside `benchmark.json` (they are not in it): the flame graphs are drawn
/// from them. A missing file leaves its profile without one, which the section says.
fn read_stacks(bench: &mut Benchmark, dir: &Path) {
    for run in bench.profiles.iter_mut().flat_map(|p| p.runs.iter_mut()) {
        run.stacks = std::fs::read_to_string(dir.join(&run.folded_file)).ok();
    }
}

/// Turns a [`Document`] into one file format; a new format is one more implementation, listed in [`RENDERERS`].
pub trait Renderer {
    /// The file's extension: a report is written as `report.EXT`, a comparison as `compare.EXT`.
    fn extension(&self) -> &'static str;
    fn render(&self, doc: &Document) -> String;
}

/// Every format `write` produces, in the order their paths are returned: Markdown, then HTML.
pub const RENDERERS: &[&dyn Renderer] = &[&markdown::Markdown, &html::Html];

/// Writes every chart as an SVG file into `dir`, then the report in every format of [`RENDERERS`]; returns the
/// report files' paths, in that order.
pub fn write(bench: &Benchmark, dir: &Path) -> Result<Vec<PathBuf>> {
    write_with(bench, dir, &Inputs::default())
}

/// [`write`], with the decision section sized for `inputs` (the team's `--traffic` and the rest).
pub fn write_with(bench: &Benchmark, dir: &Path, inputs: &Inputs) -> Result<Vec<PathBuf>> {
    write_document(&document_with(bench, inputs), dir, "report")
}

/// `report FILE [--out DIR]`: the report of the results file `file`, written in `out`, or beside the file when no
/// `--out` is given, so that a report regenerated by a newer fairpair replaces the one the file came with. Returns
/// the report files' paths, as [`write`] does.
pub fn write_from_file(file: &Path, out: Option<&Path>, inputs: &Inputs) -> Result<Vec<PathBuf>> {
    let bench = load(file)?;
    let dir = out.map_or_else(|| file.parent().map(PathBuf::from).unwrap_or_default(), Path::to_path_buf);
    write_with(&bench, &dir, inputs)
}

/// The decision section alone, as Markdown lines: the console's closing lines after a run.
pub fn decision_lines(b: &Benchmark, inputs: &Inputs) -> Vec<String> {
    let mut doc = Document::default();
    sections::decision::decision(&mut doc, &marked(b), inputs);
    markdown::render(&doc).lines().map(String::from).collect()
}

/// Writes `doc` into `dir` as `STEM.md`, `STEM.html` (one file per renderer) and its charts' SVG files; returns the
/// document files' paths.
pub fn write_document(doc: &Document, dir: &Path, stem: &str) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for chart in doc.charts() {
        // A flame graph goes into `profiles/`, beside the folded stacks.
        if let Some(parent) = dir.join(&chart.file).parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(dir.join(&chart.file), &chart.svg).with_context(|| format!("cannot write {}", chart.file))?;
    }
    RENDERERS
        .iter()
        .map(|renderer| {
            let path = dir.join(format!("{stem}.{}", renderer.extension()));
            std::fs::write(&path, renderer.render(doc)).with_context(|| format!("cannot write {}", path.display()))?;
            Ok(path)
        })
        .collect()
}

/// A document as Markdown, the text `report --compare` prints.
pub fn markdown(doc: &Document) -> String {
    markdown::render(doc)
}

/// What an `--allow-unverified` subject is called in every table and chart.
pub fn unverified_label(name: &str) -> String {
    format!("{name} (UNVERIFIED)")
}

/// The benchmark with every unverified subject renamed to [`unverified_label`]: the report and the console summary
/// are drawn from this copy, so that no table row, chart label or verdict line can leave the mark out (each
/// section would otherwise have to remember it). `benchmark.json` keeps the plain names.
pub fn marked(b: &Benchmark) -> Benchmark {
    let mut b = b.clone();
    let unverified: Vec<String> =
        b.subjects.iter().filter(|s| s.verification.measured_unverified).map(|s| s.name.clone()).collect();
    let mark = |name: &mut String| {
        if unverified.contains(name) {
            *name = unverified_label(name);
        }
    };
    b.subjects.iter_mut().for_each(|s| mark(&mut s.name));
    if let Some(base) = b.settings.baseline.as_mut() {
        mark(base);
    }
    b.runs.iter_mut().for_each(|r| mark(&mut r.subject));
    b.open_loop.iter_mut().for_each(|r| mark(&mut r.subject));
    b.memory.iter_mut().for_each(|r| mark(&mut r.subject));
    b.warmup_probes.iter_mut().for_each(|p| mark(&mut p.subject));
    b.capacity.iter_mut().flat_map(|c| c.searches.iter_mut()).for_each(|s| mark(&mut s.subject));
    b.summaries.iter_mut().for_each(|s| mark(&mut s.subject));
    b.profiles.iter_mut().flat_map(|p| p.runs.iter_mut()).for_each(|r| mark(&mut r.subject));
    b.memory_summaries.iter_mut().for_each(|s| mark(&mut s.subject));
    for f in b.flags.iter_mut() {
        // Flag messages open with the subject's name ("beta get at 8 connections: …").
        if unverified.contains(&f.subject) && f.message.starts_with(&format!("{} ", f.subject)) {
            f.message = format!("{}{}", unverified_label(&f.subject), &f.message[f.subject.len()..]);
        }
        mark(&mut f.subject);
    }
    b
}

/// Whether `name` is a running service fairpair did not start (`--subject NAME=http://…`).
pub(crate) fn is_external(b: &Benchmark, name: &str) -> bool {
    b.subjects.iter().any(|s| s.name == name && s.kind == SubjectKind::External)
}

/// The report's Markdown and the charts it links (file name, SVG text). `write` also writes `report.html` and the
/// charts only it shows.
pub fn render(b: &Benchmark) -> (String, Vec<(String, String)>) {
    let doc = document(b);
    let charts = doc.charts().filter(|c| c.in_markdown).map(|c| (c.file.clone(), c.svg.clone())).collect();
    (markdown::render(&doc), charts)
}

/// The summary's verdicts as lines of plain text, for the console's closing lines: the same words as the report's
/// summary.
pub fn verdict_lines(b: &Benchmark) -> Vec<String> {
    let b = &marked(b);
    summary::lines(&summary::verdicts(b, &cells(&b.summaries)))
}

/// The report as a [`Document`], its decision section with every input assumed (see [`document_with`]).
pub fn document(b: &Benchmark) -> Document {
    document_with(b, &Inputs::default())
}

/// The report as a [`Document`]: one section after another, each renderer's input; the decision section sized for
/// `inputs`.
pub fn document_with(b: &Benchmark, inputs: &Inputs) -> Document {
    let b = &marked(b);
    let mut doc = Document::default();
    let subjects: Vec<&str> = b.subjects.iter().map(|s| s.name.as_str()).collect();
    let cells = cells(&b.summaries);
    doc.heading(1, "fairpair report");
    if !b.complete {
        doc.push(Block::Note(
            "**INCOMPLETE**: the run stopped before it finished (interrupted or killed); only the runs recorded up to \
             then are below."
                .into(),
        ));
    }
    summary::section(&mut doc, &summary::verdicts(b, &cells));
    sections::decision::decision(&mut doc, b, inputs);
    doc.push(Block::Contents);
    setup::environment(&mut doc, b);
    setup::two_hosts(&mut doc, b);
    setup::method(&mut doc, b);
    setup::preflight_section(&mut doc, b);
    setup::subjects_section(&mut doc, b);
    setup::commands(&mut doc, b);
    sections::warmup::warmup(&mut doc, b);
    if !cells.is_empty() {
        figures::throughput(&mut doc, b, &cells, &subjects);
        doc.chart("throughput.svg".into(), "throughput".into(), charts::throughput_chart(b, &cells, &subjects), true);
        figures::latency(&mut doc, b, &cells, &subjects);
        for (scenario, conns) in &cells {
            let svg = charts::latency_chart(b, scenario, *conns, &subjects);
            doc.chart(format!("latency-{scenario}-{conns}.svg"), format!("latency {scenario} {conns}"), svg, true);
            // The whole tail at a glance; not linked from report.md, whose layout the golden test fixes.
            let svg = charts::spectrum_chart(b, scenario, *conns, &subjects);
            let (file, alt) = (format!("spectrum-{scenario}-{conns}.svg"), format!("percentiles {scenario} {conns}"));
            doc.chart(file, alt, svg, false);
        }
        figures::cpu(&mut doc, b, &cells, &subjects);
    }
    figures::open_loop(&mut doc, b);
    crate::capacity::report::capacity(&mut doc, b);
    if figures::memory(&mut doc, b) {
        doc.chart("memory.svg".into(), "memory".into(), charts::memory_chart(&b.memory_summaries), true);
    }
    verdicts::ratios(&mut doc, b, &cells);
    sections::profile::profile(&mut doc, b);
    sections::published::published(&mut doc, b);
    notes::left_out(&mut doc, b);
    notes::diagnoses(&mut doc, b);
    notes::flags_and_skipped(&mut doc, b);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ratios::{percent_text, ratio};
    use crate::schema::{CapacityBasis, VerificationStatus, upgrade_from_v1};

    /// The golden run (ceiling, alpha, beta on `get` at 8 connections), read as a version 1 file.
    fn golden() -> Benchmark {
        let text = include_str!("../../tests/fixtures/golden/benchmark.json");
        upgrade_from_v1(serde_json::from_str(text).unwrap(), crate::analyse::summarise::summarise)
    }

    /// The golden run as if preflight had measured a loader capacity of `capacity` requests/s, the loader saturated
    /// in every run (so that a run's rate is a capacity too: the cell's is at least its fastest run's, 11,582), with
    /// a loader-limited share of 70 %.
    fn with_capacity(capacity: f64) -> Benchmark {
        let mut b = golden();
        b.runs.iter_mut().for_each(|r| r.loader_cpu_percent = 100.0);
        // The golden subjects were measured unverified; plain names keep these assertions about bounds readable.
        b.subjects.iter_mut().for_each(|s| s.verification.measured_unverified = false);
        b.preflight = Some(crate::schema::Preflight {
            loader_capacity: vec![crate::schema::LoaderCapacity {
                scenario: "get".into(),
                connections: 8,
                target: "ceiling".into(),
                command: "wrk".into(),
                loader_capacity_rps: capacity,
                measured_rps: capacity,
                loader_cpu_percent: 99.0,
                basis: CapacityBasis::Saturated,
                machine_idle: true,
            }],
            loader_limited_share_percent: 70.0,
            ..Default::default()
        });
        crate::analyse::summarise::apply_capacity(&mut b.summaries, &b.runs, b.preflight.as_ref());
        b
    }

    #[test]
    fn the_console_gets_the_decision_section_in_the_reports_words() {
        let lines = decision_lines(&golden(), &Inputs::default());
        assert_eq!(lines[0], "## Decision");
        let text = lines.join("\n");
        assert!(text.contains("None of them was given, so these are assumed"), "{text}");
        assert!(text.contains("cannot support a change; no capacity search in this run"), "{text}");
        let (md, _) = render(&golden());
        assert!(md.contains(&text), "the same section as the report's");
    }

    #[test]
    fn the_go_version_is_shown_beside_node_when_recorded() {
        let mut b = golden();
        let (md, _) = render(&b);
        assert!(!md.contains("| go |"), "no Go ran, no row: {md}");
        b.environment.go = Some("go1.19.8".into());
        let (md, _) = render(&b);
        assert!(md.contains("| node | v20.20.2 |\n| go | go1.19.8 |\n"), "{md}");
    }

    #[test]
    fn the_jvm_and_what_it_chose_are_shown_when_recorded() {
        use crate::subjects::java::{Ergonomics, Jvm};
        let mut b = golden();
        assert!(!render(&b).0.contains("| java |"), "no Java ran, no row");
        let one = Ergonomics {
            cpus: 1,
            gc: Some("SerialGC".into()),
            initial_heap_bytes: Some(16 << 20),
            max_heap_bytes: Some(256 << 20),
        };
        let two = Ergonomics { cpus: 2, gc: Some("G1GC".into()), ..one.clone() };
        let version = "openjdk version \"17.0.15\" 2025-04-15".to_string();
        b.environment.java = Some(Jvm { program: "java".into(), version, ergonomics: vec![one, two] });
        let (md, _) = render(&b);
        assert!(md.contains("| java | openjdk version \"17.0.15\" 2025-04-15 (`java`) |\n"), "{md}");
        assert!(md.contains("| JVM on 1 CPU | SerialGC, heap 16 MiB at start, at most 256 MiB |\n"), "{md}");
        assert!(md.contains("| JVM on 2 CPUs | G1GC, heap 16 MiB at start"), "{md}");
    }

    #[test]
    fn the_summary_names_the_machines_node_and_runtimes_past_their_end_of_life() {
        use crate::subjects::node::NodeSource;
        let mut b = golden();
        // The golden run has no node subject: its node is not judged.
        let (md, _) = render(&b);
        assert!(!md.contains("end of life"), "{md}");
        b.subjects[1].kind = crate::schema::SubjectKind::Builtin;
        b.subjects[1].name = "node".into();
        b.environment.node_program = Some("node".into());
        b.environment.node_source = Some(NodeSource::Path);
        b.environment.go = Some("go1.24.9".into());
        let (md, _) = render(&b);
        assert!(md.contains("- node v20.20.2 reached its end of life on 2026-04-30"), "{md}");
        assert!(md.contains("- go go1.24.9 reached its end of life on 2026-02-11"), "{md}");
        assert!(md.contains("ran on the machine's node (v20.20.2, on PATH)"), "{md}");
        assert!(
            md.contains("| node | v20.20.2 (`node`: the machine's, on PATH: the project's tools/node is not"),
            "{md}"
        );
        // The project's Node 26, on the run's date: nothing to say but its row.
        b.environment.node = "v26.12.1".into();
        b.environment.node_program = Some("/repo/tools/node/node_modules/.bin/node".into());
        b.environment.node_source = Some(NodeSource::Project);
        let (md, _) = render(&b);
        assert!(!md.contains("node v26.12.1 reached") && !md.contains("machine's node"), "{md}");
        assert!(md.contains("v26.12.1 (`tools/node/node_modules/.bin/node`: the project's, tools/node)"), "{md}");
    }

    #[test]
    fn a_loader_limited_subject_gets_bounds_never_a_plain_ratio() {
        // alpha 8,816, beta 7,772 req/s: with a capacity of 11,582 (a run's), alpha (76 %) is limited and beta (67 %)
        // not.
        let b = with_capacity(10_000.0);
        let limited: Vec<(&str, bool)> = b.summaries.iter().map(|s| (s.subject.as_str(), s.loader_limited)).collect();
        assert_eq!(limited, [("ceiling", true), ("alpha", true), ("beta", false)]);
        let (md, _) = render(&b);
        assert!(md.contains("| / alpha |") && md.contains("| ≤ 0.88× |"), "the ratio column is a bound:\n{md}");
        assert!(!md.contains("| 0.88× |"));
        assert!(md.contains("| **76 %: loader-limited** | baseline |"), "{md}");
        assert!(md.contains("| 67 % | ≤ 0.88× |"), "{md}");
        assert!(
            md.contains("beta/alpha ≤ 0.88×, a bound, not a measured ratio (alpha at 76 % of the loader's capacity)"),
            "{md}"
        );
        assert!(md.contains("get, 8 connections, **CPU per request (the headline: alpha is loader-limited)**"));
        // Both the ceiling and alpha are limited: that comparison says so instead of giving a share.
        assert!(md.contains("alpha measured 92 % (both held by the loader"), "{md}");
        assert!(md.contains("beta reaches at most 81 % (the ceiling is loader-limited)"), "{md}");
        // The summary says the same in words.
        assert!(md.contains("| get, 8 connections | ≤ 0.88× (alpha is loader-limited) |"), "{md}");

        // Ample capacity: plain ratios, and the share still shown.
        let (md, _) = render(&with_capacity(100_000.0));
        assert!(md.contains("| 0.88× |") && md.contains("| 8 % | 0.88× |"), "{md}");
        assert!(!md.contains("| ≥") && !md.contains("a bound, not") && !md.contains("(the headline"), "{md}");
    }

    #[test]
    fn a_run_faster_than_preflight_measured_is_said_and_no_share_is_above_100_percent() {
        // Preflight measured 10,000/s; the ceiling's fastest run reached 11,582/s with the loader fully busy.
        let (md, _) = render(&with_capacity(10_000.0));
        assert!(md.contains("**Preflight's loader capacity was exceeded** on these cells"), "{md}");
        let said = "- get at 8 connections: a run of ceiling reached 11,582 requests/s with the loader 100 % busy, a \
                    capacity of 11,582/s against preflight's 10,000/s.";
        assert!(md.contains(said), "{md}");
        let shares: Vec<f64> = md
            .split(" %: loader-limited**")
            .filter_map(|before| before.rsplit("**").next()?.parse().ok())
            .chain(md.split(" % of the loader's capacity").filter_map(|b| b.rsplit(' ').next()?.parse().ok()))
            .collect();
        assert!(!shares.is_empty() && shares.iter().all(|&s| s <= 100.0), "{shares:?}");
        // Preflight's figure above every run: nothing to say.
        let (md, _) = render(&with_capacity(100_000.0));
        assert!(!md.contains("loader capacity was exceeded"), "{md}");
    }

    #[test]
    fn a_run_with_unexpected_statuses_is_left_out_of_every_rate() {
        let text = include_str!("../../tests/fixtures/golden/benchmark.json");
        let mut b: Benchmark = serde_json::from_str(text).unwrap();
        let run = b.runs.iter_mut().find(|r| r.subject == "alpha").unwrap();
        run.non_2xx = 500;
        run.requests_per_sec = 1e9; // Whatever it measured must not reach a table.
        let b = upgrade_from_v1(b, crate::analyse::summarise::summarise);
        let alpha = b.summaries.iter().find(|s| s.subject == "alpha").unwrap();
        assert_eq!((alpha.requests_per_sec.n, alpha.left_out_runs), (2, 1));
        assert!(alpha.requests_per_sec.max < 1e6);
        let (md, _) = render(&b);
        assert!(!md.contains("1,000,000,000 ["), "no table counts the run: {md}");
        assert!(md.contains("## Left out") && md.contains("1,000,000,000 req/s as measured"), "{md}");
        assert!(md.contains("500 responses with an error status (a version 1 file"), "{md}");
    }

    #[test]
    fn an_unverified_subject_is_marked_in_every_table_row_and_chart_label() {
        let mut b = golden();
        // alpha verified, beta measured with --allow-unverified.
        let alpha = b.subjects.iter_mut().find(|s| s.name == "alpha").unwrap();
        alpha.verification.status = VerificationStatus::Passed;
        alpha.verification.measured_unverified = false;
        let beta = b.subjects.iter_mut().find(|s| s.name == "beta").unwrap();
        beta.verification.status = VerificationStatus::Failed;
        beta.verification.measured_unverified = true;
        let (md, charts) = render(&b);
        // Every table row naming beta carries the mark; count them so that a vacuous pass shows.
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|') && l.contains("beta")).collect();
        assert!(rows.len() >= 4, "{md}");
        for row in &rows {
            assert!(row.contains("beta (UNVERIFIED)"), "row without the mark: {row}");
        }
        // Verdict and flag lines (the recorded command line names the subjects as they were given).
        let verdicts: Vec<&str> =
            md.lines().filter(|l| l.starts_with("- ") && !l.starts_with("- Command") && l.contains("beta")).collect();
        assert!(!verdicts.is_empty() && verdicts.iter().all(|l| l.contains("beta (UNVERIFIED)")), "{md}");
        let svgs: Vec<&String> = charts.iter().map(|(_, svg)| svg).filter(|svg| svg.contains("beta")).collect();
        assert!(svgs.len() >= 2, "the throughput and latency charts show beta");
        for svg in svgs {
            assert!(!svg.replace("beta (UNVERIFIED)", "").contains("beta"), "a chart label without the mark");
        }
        // The verified subjects are not marked, and the results keep the plain name.
        assert!(!md.contains("alpha (UNVERIFIED)"));
        assert!(b.summaries.iter().any(|s| s.subject == "beta"));
    }

    #[test]
    fn ratios_are_against_the_baseline_and_never_a_zero() {
        assert_eq!(ratio_text(2.104), "2.10");
        assert_eq!(ratio_text(0.4789), "0.48");
        assert_eq!(ratio_text(0.0096), "0.0096");
        assert_eq!(ratio_text(0.00012), "0.00012");
        assert_eq!(ratio_text(0.0), "—");
        assert_eq!(percent_text(85.4), "85");
        assert_eq!(percent_text(4.02), "4.0");
        assert_eq!(percent_text(0.96), "0.96");
        assert_eq!(ratio(386.0, 0.0), None);
        assert_eq!(ratio(0.0, 40_000.0), None, "no figure is no ratio");

        // beta slowed to 38 requests/s: its ratio to alpha and its share of the ceiling keep their digits.
        let mut b = golden();
        for s in b.subjects.iter_mut().filter(|s| !s.get_only) {
            s.verification.status = VerificationStatus::Passed;
            s.verification.measured_unverified = false;
        }
        for s in b.summaries.iter_mut().filter(|s| s.subject == "beta") {
            s.requests_per_sec.median = 38.0;
        }
        assert_eq!(baseline(&b), Some("alpha"), "no built-in subject implements the API: the first that does");
        let (md, _) = render(&b);
        assert!(md.contains("| beta / alpha |") && md.contains("| / alpha |"), "{md}");
        assert!(md.contains("| 0.0043× |"), "{md}");
        assert!(md.contains("beta reaches 0.39 % of the ceiling baseline"), "{md}");
        assert!(!md.contains("0.00×") && !md.contains(" 0 % of"), "{md}");

        // --baseline beta: the column turns round.
        b.settings.baseline = Some("beta".into());
        let (md, _) = render(&b);
        assert!(md.contains("| alpha / beta |") && md.contains("| / beta |"), "{md}");
        assert!(md.contains("each subject's median over beta's, the baseline"), "{md}");
    }

    #[test]
    fn a_pipe_in_a_custom_command_stays_inside_its_cell() {
        // `--subject 'x=sh -c "a | b"'`: the Subjects row keeps its three cells.
        let mut b = golden();
        b.subjects[1].command = r#"sh -c "a | b""#.into();
        let (md, _) = render(&b);
        let row = md.lines().find(|l| l.contains("sh -c")).unwrap();
        assert!(row.contains(r#"`sh -c "a \| b"`"#), "{row}");
        assert_eq!(row.replace("\\|", "").matches('|').count(), 4, "{row}");
    }

    #[test]
    fn write_gives_every_format_and_every_chart_and_markdown_links_only_its_own() {
        let b = golden();
        let dir = std::env::temp_dir().join(format!("fairpair-report-write-{}", std::process::id()));
        let reports = write(&b, &dir).unwrap();
        assert_eq!(reports, [dir.join("report.md"), dir.join("report.html")]);
        let mut files: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        let want =
            ["latency-get-8.svg", "memory.svg", "report.html", "report.md", "spectrum-get-8.svg", "throughput.svg"];
        assert_eq!(files, want);
        // render() (the golden test's view) is report.md and the charts it links: no spectrum.
        let (md, charts) = render(&b);
        assert!(!md.contains("spectrum") && charts.iter().all(|(name, _)| !name.starts_with("spectrum")));
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(html.contains("Latency by percentile, get at 8 connections"), "the spectrum is in the page");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
