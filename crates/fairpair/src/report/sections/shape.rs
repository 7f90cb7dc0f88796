//! For a run of a study's preset: did this run find what the study found? Each finding is an order of two subjects
//! on one figure (`presets::Finding`); this run's medians are checked against it, and its spread decides whether
//! the order can be told at all.

use std::fmt;

use crate::analyse::stats::Stat;
use crate::plan::names::BuiltinSubject;
use crate::plan::presets::{Figure, Finding, Preset};
use crate::report::document::{Align, Block, Document, Table};
use crate::schema::Benchmark;
use crate::text::thousands;

/// Whether a study's finding held in this run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The study's order, with the two min–max ranges apart.
    Held,
    /// The other order, with the ranges apart.
    DidNotHold,
    CannotTell(Unclear),
}

/// Why a finding cannot be told from this run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unclear {
    /// A subject of the finding has no figure in this run: not run, its runs all left out, or the figure not
    /// recorded.
    NotMeasured(String),
    /// A single run of either subject: there is no spread to tell an order from noise.
    OneRun,
    /// The two min–max ranges overlap.
    Overlap,
    /// A subject's throughput is near what the load generator can drive: the figure may be the loader's.
    LoaderLimited(String),
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Held => f.write_str("held"),
            Verdict::DidNotHold => f.write_str("**did not hold**"),
            Verdict::CannotTell(why) => write!(f, "cannot tell: {why}"),
        }
    }
}

impl fmt::Display for Unclear {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unclear::NotMeasured(subject) => write!(f, "no figure for {subject}"),
            Unclear::OneRun => f.write_str("one run each, so no spread"),
            Unclear::Overlap => f.write_str("the min–max ranges overlap"),
            Unclear::LoaderLimited(subject) => write!(f, "{subject} is loader-limited"),
        }
    }
}

/// Whether `above`'s figure is above `below`'s beyond both spreads: the ranges must not overlap, and with one run
/// each there is no range to go by.
pub(crate) fn judge(above: &Stat, below: &Stat) -> Verdict {
    if above.n < 2 || below.n < 2 {
        Verdict::CannotTell(Unclear::OneRun)
    } else if above.min > below.max {
        Verdict::Held
    } else if below.min > above.max {
        Verdict::DidNotHold
    } else {
        Verdict::CannotTell(Unclear::Overlap)
    }
}

/// The "Did the study's shape hold?" table: one row per finding of the preset's study, nothing for a study with
/// none.
pub(crate) fn shape(doc: &mut Document, b: &Benchmark, preset: Preset) {
    use Align::Left;
    if preset.findings().is_empty() {
        return;
    }
    doc.paragraph(
        "**Did the study's shape hold?** Each finding of the study as an order of two servers on one figure, against \
         this run's medians. *Held*: the same order, the two min–max ranges apart; *did not hold*: the other order, \
         the ranges apart; *cannot tell*: the ranges overlap, a single run, a loader-limited cell or no figure.",
    );
    let mut t = Table::new(&[("finding", Left), ("the study", Left), ("this run (medians)", Left), ("verdict", Left)]);
    for f in preset.findings() {
        let (claim, here, verdict) = row(b, f);
        t.row(vec![claim, f.study.into(), here, verdict.to_string()]);
    }
    doc.push(Block::Table(t));
    // The study measured its servers after millions of requests; a subject still warming up in the measured runs is
    // compared on figures the study's method did not have, which the reader must know before quoting a verdict.
    let warming = crate::analyse::warmup::not_covered(b);
    if !warming.is_empty() {
        doc.push(Block::Note(format!(
            "The measured runs of {} include part of its warm-up (see *Warm-up*), where the study's 5 million \
             requests a run left little of it: a verdict on its throughput or latency may differ for a warm process.",
            warming.join(" and ")
        )));
    }
}

/// One finding's row: what it claims, this run's two figures, and the verdict.
pub(crate) fn row(b: &Benchmark, f: &Finding) -> (String, String, Verdict) {
    let (above, below, median_for_mean, limited) = figures(b, f);
    let shown = |subject: BuiltinSubject, s: &Option<Stat>| match s {
        Some(s) => format!("{} {}", subject.name(), value(f.figure, s.median)),
        None => format!("{}: none", subject.name()),
    };
    let mut here = format!("{}, {}", shown(f.above, &above), shown(f.below, &below));
    if median_for_mean {
        here.push_str(" (median latency: the mean is not recorded)");
    }
    let verdict = match (&above, &below, limited) {
        (None, _, _) => Verdict::CannotTell(Unclear::NotMeasured(f.above.name().into())),
        (_, None, _) => Verdict::CannotTell(Unclear::NotMeasured(f.below.name().into())),
        (_, _, Some(subject)) => Verdict::CannotTell(Unclear::LoaderLimited(subject)),
        (Some(a), Some(z), None) => judge(a, z),
    };
    (claim(f, b.settings.memory_connections), here, verdict)
}

/// The finding in words, with the lower subject's advantage said as the study said it. Memory is measured after a
/// load of its own, at `memory_connections`.
fn claim(f: &Finding, memory_connections: u32) -> String {
    let (above, below) = (f.above.name(), f.below.name());
    let at = format!(" at {} connections", f.connections.unwrap_or(memory_connections));
    match f.figure {
        Figure::RequestsPerSec => format!("{above} serves more requests/s{at}"),
        Figure::CpuPerRequest => {
            format!("{above} uses more CPU{at}: per request here, as both servers are pinned to the same CPUs")
        }
        Figure::RssAfterLoad => format!("{above} holds more memory after the load (RSS){at}"),
        Figure::MeanLatency => format!("{below} has the lower mean latency{at}"),
        Figure::MaxLatency => format!("{above} has the higher maximum latency{at}"),
    }
}

/// The two subjects' figures (`above`'s, `below`'s); whether the median latency stands in for a mean that this run
/// did not record (a tool other than bombardier, or a file from before the mean was kept); and a subject whose
/// throughput or latency may be the loader's (CPU per request is not: it is the headline of a loader-limited cell).
fn figures(b: &Benchmark, f: &Finding) -> (Option<Stat>, Option<Stat>, bool, Option<String>) {
    let cell = |s: BuiltinSubject| {
        let name = shown_name(b, s);
        f.connections.and_then(|c| b.summary(&name, f.scenario.name(), c)).cloned()
    };
    let cells = [cell(f.above), cell(f.below)];
    let median_for_mean = f.figure == Figure::MeanLatency && cells.iter().flatten().any(|c| c.mean_ms.is_none());
    let of = |i: usize, subject: BuiltinSubject| {
        let c = cells[i].as_ref();
        match f.figure {
            Figure::RequestsPerSec => c.map(|c| c.requests_per_sec.clone()),
            Figure::CpuPerRequest => c.and_then(|c| c.server_cpu_us_per_request.clone()),
            Figure::RssAfterLoad => b.memory_summary(&shown_name(b, subject)).map(|m| m.after_rss_kib.clone()),
            Figure::MeanLatency if median_for_mean => c.map(|c| c.p50_ms.clone()),
            Figure::MeanLatency => c.and_then(|c| c.mean_ms.clone()),
            Figure::MaxLatency => c.map(|c| c.max_ms.clone()),
        }
    };
    let bounded = matches!(f.figure, Figure::RequestsPerSec | Figure::MeanLatency | Figure::MaxLatency);
    let limited = cells.iter().flatten().find(|c| bounded && c.loader_limited).map(|c| c.subject.clone());
    (of(0, f.above), of(1, f.below), median_for_mean, limited)
}

/// The name a subject has in the report's copy of the benchmark, which marks a subject measured unverified.
fn shown_name(b: &Benchmark, subject: BuiltinSubject) -> String {
    let plain = subject.name();
    let marked = crate::report::unverified_label(plain);
    if b.subjects.iter().any(|s| s.name == marked) { marked } else { plain.into() }
}

/// A median in the unit the study's figure is read in.
fn value(figure: Figure, median: f64) -> String {
    match figure {
        Figure::RequestsPerSec => format!("{}/s", thousands(median)),
        Figure::CpuPerRequest => format!("{median:.1} µs/request"),
        // KiB as decimal megabytes, as the study printed them.
        Figure::RssAfterLoad => format!("{:.1} MB", median * 1024.0 / 1e6),
        Figure::MeanLatency | Figure::MaxLatency => format!("{median:.2} ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed `--preset bombardier --quick` run (node, go, rust; one run per cell).
    fn recorded() -> Benchmark {
        let text = include_str!("../../../../../docs/results/epyc-2vcpu-c/bombardier-quick/benchmark.json");
        serde_json::from_str(text).unwrap()
    }

    fn stat(values: &[f64]) -> Stat {
        Stat::of(values).unwrap()
    }

    /// The recorded run with its go subject standing in for java, and three runs per figure: node ahead at 50
    /// connections, java ahead at 100, the two overlapping at 200; java with more CPU, memory and maximum latency.
    fn with_java() -> Benchmark {
        let mut b = recorded();
        let rename = |name: &mut String| {
            if name == "go" {
                *name = "java".into();
            }
        };
        b.subjects.iter_mut().for_each(|s| rename(&mut s.name));
        b.summaries.iter_mut().for_each(|s| rename(&mut s.subject));
        b.memory_summaries.iter_mut().for_each(|s| rename(&mut s.subject));
        for s in &mut b.summaries {
            let node = s.subject == "node";
            let rps = match (node, s.connections) {
                (true, 50) => [17_000.0, 17_100.0, 17_200.0],
                (false, 50) | (true, 100) => [12_000.0, 12_100.0, 12_200.0],
                (false, 100) => [16_000.0, 16_100.0, 16_200.0],
                (_, _) => [15_000.0, 15_500.0, 16_000.0],
            };
            s.requests_per_sec = stat(&rps);
            s.server_cpu_us_per_request = Some(stat(if node { &[58.0, 59.0, 60.0] } else { &[120.0, 125.0, 130.0] }));
            s.max_ms = stat(if node { &[40.0, 45.0, 50.0] } else { &[900.0, 1_200.0, 2_000.0] });
            s.p50_ms = stat(&[2.0, 2.1, 2.2]);
        }
        for m in &mut b.memory_summaries {
            let kib = if m.subject == "node" { 100_000.0 } else { 300_000.0 };
            m.after_rss_kib = stat(&[kib, kib + 1_000.0, kib + 2_000.0]);
        }
        b
    }

    fn verdicts(b: &Benchmark) -> Vec<Verdict> {
        Preset::Bombardier.findings().iter().map(|f| row(b, f).2).collect()
    }

    #[test]
    fn an_order_holds_only_when_the_ranges_are_apart() {
        let (low, high) = (stat(&[1.0, 2.0, 3.0]), stat(&[4.0, 5.0, 6.0]));
        assert_eq!(judge(&high, &low), Verdict::Held);
        assert_eq!(judge(&low, &high), Verdict::DidNotHold);
        assert_eq!(judge(&stat(&[2.5, 5.0, 6.0]), &low), Verdict::CannotTell(Unclear::Overlap));
        assert_eq!(judge(&stat(&[9.0]), &low), Verdict::CannotTell(Unclear::OneRun));
    }

    #[test]
    fn each_finding_of_the_study_gets_a_verdict() {
        use Verdict::{CannotTell, DidNotHold, Held};
        let mut b = with_java();
        // The recorded run kept no mean latency: the medians stand in, and they overlap.
        let overlap = CannotTell(Unclear::Overlap);
        let want = [Held, DidNotHold, overlap.clone(), Held, Held, overlap.clone(), Held];
        assert_eq!(verdicts(&b), want);
        let mean = &Preset::Bombardier.findings()[5];
        assert_eq!(mean.figure, Figure::MeanLatency);
        let (claim, here, _) = row(&b, mean);
        assert_eq!(claim, "java has the lower mean latency at 200 connections");
        assert_eq!(here, "node 2.10 ms, java 2.10 ms (median latency: the mean is not recorded)");
        // With bombardier's mean recorded, it is the figure compared: java's lower, as in the study.
        for s in b.summaries.iter_mut() {
            s.mean_ms = Some(stat(if s.subject == "node" { &[2.4, 2.5, 2.6] } else { &[0.5, 0.6, 0.7] }));
        }
        let (_, here, verdict) = row(&b, mean);
        assert_eq!((here.as_str(), verdict), ("node 2.50 ms, java 0.60 ms", Held));
        let memory = row(&b, &Preset::Bombardier.findings()[4]);
        // The recorded run's memory load had 300 connections (the preset now asks for the study's 200).
        assert_eq!(memory.0, "java holds more memory after the load (RSS) at 300 connections");
        assert_eq!(memory.1, "java 308.2 MB, node 103.4 MB");
        // A loader-limited cell's throughput may be the loader's: no order is told from it, but CPU still is.
        b.summaries.iter_mut().filter(|s| s.subject == "node").for_each(|s| s.loader_limited = true);
        let limited = CannotTell(Unclear::LoaderLimited("node".into()));
        assert_eq!(verdicts(&b)[..4], [limited.clone(), limited.clone(), limited, Held]);
    }

    #[test]
    fn the_report_asks_whether_the_shape_held_in_markdown_and_html() {
        let b = with_java();
        let doc = crate::report::document(&b);
        let md = crate::report::markdown(&doc);
        let html = crate::report::html::render(&doc);
        for text in [&md, &html] {
            assert!(text.contains("Did the study's shape hold?"), "{text}");
            assert!(text.contains("Spring 470 MB, Node 82 MB at 200 connections: about 5.7×"), "{text}");
            assert!(text.contains("Extra subjects, not in the study"), "{text}");
        }
        let line = "| node serves more requests/s at 50 connections | Node ahead (no figure per connection count) | node \
                    17,100/s, java 12,100/s | held |";
        assert!(md.contains(line), "{md}");
        assert!(md.contains("**Extra subjects, not in the study**: rust."), "{md}");
        assert!(!md.contains("The study published no figure"), "{md}");
    }

    #[test]
    fn the_recorded_run_without_java_cannot_tell_and_names_its_extra_subjects() {
        let b = recorded();
        let java = Verdict::CannotTell(Unclear::NotMeasured("java".into()));
        assert!(verdicts(&b).iter().all(|v| *v == java), "{:?}", verdicts(&b));
        let md = crate::report::markdown(&crate::report::document(&b));
        assert!(md.contains("**Extra subjects, not in the study**: go, rust."), "{md}");
        assert!(md.contains("No Spring Boot: the java subject did not run."), "{md}");
        assert!(md.contains("| node 17,127/s, java: none | cannot tell: no figure for java |"), "{md}");
    }
}
