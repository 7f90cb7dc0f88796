//! The warm-up section: the JIT warm-up finding. Per subject, how long its fresh process took to reach a steady
//! throughput in the warm-up probe, and whether the measured runs' warm-up covers that time; the per-second series
//! folded below. Left out when the probe did not run.

use crate::analyse::warmup::{RISING_SHARE, STEADY_TOLERANCE, warmup_needed};
use crate::report::document::{Align, Block, Document, Table};
use crate::schema::{Benchmark, WarmupProbe};
use crate::text::thousands;

pub(crate) fn warmup(doc: &mut Document, b: &Benchmark) {
    let probes = &b.warmup_probes;
    let Some(first) = probes.first() else { return };
    let warmup_s = b.settings.warmup_s;
    doc.heading(2, "Warm-up");
    doc.paragraph(format!(
        "Each subject was also run once on a fresh process for {} s of {} at {} connections, as back-to-back \
         one-second runs of {} with the arguments of the measured runs but the duration; no throughput, latency or \
         CPU figure counts it. Its steady throughput is the median of the probe's last third, and its time to steady \
         the seconds until every later second stays within {:.0} % of it (not steady when that stretch does not \
         cover the last third). The measured runs discard the first {warmup_s} s of load on each fresh process.{}",
        b.settings.warmup_probe_s,
        first.scenario,
        first.connections,
        b.settings.tool.name(),
        STEADY_TOLERANCE * 100.0,
        lengthened(probes)
    ));
    doc.push(Block::Table(table(probes, warmup_s)));
    doc.list(probes.iter().map(|p| p.sentence(warmup_s)).collect());
    if let Some(needed) = warmup_needed(probes, warmup_s) {
        doc.push(Block::Note(format!(
            "`--warmup {needed}` would cover every subject's time to steady (this file is from a fairpair that did not \
             lengthen a short warm-up by itself)."
        )));
    }
    doc.push(Block::Folded { summary: "Per-second throughput of the probe".into(), blocks: vec![series(probes)] });
}

/// What the probe did to a short warm-up, when it did anything: files from before it lengthened one say nothing.
fn lengthened(probes: &[WarmupProbe]) -> String {
    let names: Vec<&str> = probes.iter().filter(|p| p.warmup_s.is_some()).map(|p| p.subject.as_str()).collect();
    if names.is_empty() {
        return String::new();
    }
    format!(
        " The probe lengthened {}'s warm-up, since it was still well below its steady rate after that: to its time \
         to steady (or to serving {:.0} % of it) rounded up to 5 s, before each of its closed-loop runs, open-loop \
         runs and capacity windows, and only its: no figure counts a warm-up, so every subject is measured over the \
         same windows.",
        names.join(" and "),
        RISING_SHARE * 100.0
    )
}

fn table(probes: &[WarmupProbe], warmup_s: u64) -> Table {
    let mut t = Table::new(&[
        ("Subject", Align::Left),
        ("Seconds to steady", Align::Right),
        ("First second (requests/s)", Align::Right),
        ("Steady (requests/s)", Align::Right),
        ("Warm-up of its runs", Align::Right),
        ("Covered by the warm-up", Align::Left),
    ]);
    for p in probes {
        let steady =
            p.seconds_to_steady.map_or(format!("not steady within {} s", p.per_second_rps.len()), |s| format!("{s} s"));
        let applied = match p.warmup_s {
            Some(w) => format!("**{w} s** (lengthened)"),
            None => format!("{warmup_s} s"),
        };
        let covered = match p.coverage(p.applied_warmup(warmup_s)) {
            crate::analyse::warmup::Coverage::Covered => "yes",
            crate::analyse::warmup::Coverage::Short => "**no**",
            crate::analyse::warmup::Coverage::Unknown => "cannot tell",
        };
        t.row(vec![
            p.subject.clone(),
            steady,
            thousands(p.first_rps()),
            thousands(p.steady_rps),
            applied,
            covered.into(),
        ]);
    }
    t
}

/// Second by second, one column per subject.
fn series(probes: &[WarmupProbe]) -> Block {
    let columns: Vec<(&str, Align)> = [("Second", Align::Right)]
        .into_iter()
        .chain(probes.iter().map(|p| (p.subject.as_str(), Align::Right)))
        .collect();
    let mut t = Table::new(&columns);
    let longest = probes.iter().map(|p| p.per_second_rps.len()).max().unwrap_or(0);
    for i in 0..longest {
        let rates = probes.iter().map(|p| p.per_second_rps.get(i).map_or(String::new(), |&r| thousands(r)));
        t.row([(i + 1).to_string()].into_iter().chain(rates).collect());
    }
    Block::Table(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::warmup::{idle_series, probe_record};

    fn bench(probes: Vec<WarmupProbe>) -> Benchmark {
        let mut b: Benchmark =
            serde_json::from_str(include_str!("../../../tests/fixtures/golden/benchmark.json")).unwrap();
        (b.settings.warmup_s, b.settings.warmup_probe_s, b.warmup_probes) = (5, 12, probes);
        b
    }

    fn probes_of_java_and_rust() -> Vec<WarmupProbe> {
        let java = [vec![2000.0, 5000.0, 7000.0, 8000.0, 9000.0, 9300.0, 9350.0], vec![10_000.0; 5]].concat();
        vec![
            probe_record("java", "get", 50, idle_series(java)),
            probe_record("rust", "get", 50, idle_series(vec![60_000.0; 12])),
        ]
    }

    #[test]
    fn the_section_says_per_subject_whether_the_warm_up_covers_its_time_to_steady() {
        let probes = probes_of_java_and_rust();
        let md = crate::report::markdown(&{
            let mut doc = Document::default();
            warmup(&mut doc, &bench(probes));
            doc
        });
        assert!(md.starts_with("## Warm-up\n"), "{md}");
        assert!(md.contains("| java | 7 s | 2,000 | 10,000 | 5 s | **no** |"), "{md}");
        assert!(md.contains("| rust | 0 s | 60,000 | 60,000 | 5 s | yes |"), "{md}");
        assert!(md.contains("- java is steady only after 7 s, longer than the 5 s warm-up"), "{md}");
        assert!(md.contains("biases them towards lower throughput"), "{md}");
        assert!(md.contains("- rust is steady after 0 s, within the 5 s warm-up"), "{md}");
        assert!(md.contains("`--warmup 7` would cover every subject"), "{md}");
        assert!(md.contains("| 12 | 10,000 | 60,000 |"), "the series, second by second: {md}");
        // A probe that lengthened java's warm-up: covered, said so, and no `--warmup` advice.
        let mut lengthened = probes_of_java_and_rust();
        lengthened[0].warmup_s = crate::analyse::warmup::extended_warmup(&lengthened[0], 5);
        assert_eq!(lengthened[0].warmup_s, Some(10));
        let md = crate::report::markdown(&{
            let mut doc = Document::default();
            warmup(&mut doc, &bench(lengthened));
            doc
        });
        assert!(md.contains("| java | 7 s | 2,000 | 10,000 | **10 s** (lengthened) | yes |"), "{md}");
        assert!(
            md.contains("within the 10 s warm-up its measured runs and capacity windows had (lengthened from 5 s"),
            "{md}"
        );
        assert!(!md.contains("--warmup"), "{md}");
        // The whole report has it, in HTML too; a file without probes has no such section.
        let one = vec![probe_record("java", "get", 50, idle_series(vec![1.0; 3]))];
        let html = crate::report::RENDERERS[1].render(&crate::report::document(&bench(one)));
        assert!(html.contains("Warm-up"), "{html}");
        assert!(!crate::report::render(&bench(Vec::new())).0.contains("## Warm-up"));
    }
}
