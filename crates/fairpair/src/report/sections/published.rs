//! For a run of a study's preset: the figures that study published, beside this run's.

use crate::analyse::stats::Stat;
use crate::report::document::{Align, Block, Document, Table};
use crate::schema::Benchmark;
use crate::text::{number, thousands};

/// For a run of a study's preset (`--preset`), the figures that study published, beside ours for the same subject,
/// scenario and connection count. Theirs come from another machine and often another method: the section says so,
/// and gives no ratio between the two columns.
pub(crate) fn published(doc: &mut Document, b: &Benchmark) {
    use crate::plan::names::BuiltinSubject;
    use crate::plan::presets::Metric;
    use crate::schema::SubjectKind;
    use Align::{Left, Right};
    let Some(preset) = b.settings.preset_used() else { return };
    let Some(study) = preset.study() else { return };
    doc.heading(2, "The study's published figures beside ours");
    doc.paragraph(format!(
        "This run reproduces \"{study}\" (`--preset {}`). The study's method, its machine and how each preset departs \
         from it are in docs/prior-results.md in the fairpair repository. Its figures were measured on another \
         machine, so compare the shape (which subject leads, by how much), not the values.",
        preset.name()
    ));
    let builtin = |name: &str| b.subjects.iter().any(|s| s.name == name && s.kind == SubjectKind::Builtin);
    let measured: Vec<BuiltinSubject> = b
        .summaries
        .iter()
        .filter(|s| builtin(&s.subject))
        .filter_map(|s| BuiltinSubject::from_name(&s.subject))
        .collect();
    let departures = preset.departures(b.settings.quick, &measured);
    if !departures.is_empty() {
        doc.paragraph("Where this run departed from the study's method:");
        doc.list(departures.into_iter().map(String::from).collect());
    }
    let extra = extra_subjects(b, preset);
    if !extra.is_empty() {
        doc.paragraph(format!(
            "**Extra subjects, not in the study**: {}. They ran with the study's method; no study figure below \
             concerns them.",
            extra.join(", ")
        ));
    }
    if preset.published().is_empty() {
        if preset.findings().is_empty() {
            doc.paragraph("The study published no figure that fairpair measures the same way (see its method).");
        }
        super::shape::shape(doc, b, preset);
        return;
    }
    let mut t = Table::new(&[
        ("subject", Left),
        ("scenario", Left),
        ("connections", Right),
        ("figure", Left),
        ("published", Right),
        ("here (median)", Right),
    ]);
    for p in preset.published() {
        let (what, ours) = match p.metric {
            Metric::RequestsPerSec => (
                "requests/s",
                b.summary(p.subject.name(), p.scenario.name(), p.connections)
                    .map(|s| thousands(s.requests_per_sec.median)),
            ),
            Metric::RssIdleMb => ("RSS idle, MB", b.memory_summary(p.subject.name()).map(|m| mb(&m.idle_rss_kib))),
            Metric::RssAfterLoadMb => {
                ("RSS after load, MB", b.memory_summary(p.subject.name()).map(|m| mb(&m.after_rss_kib)))
            }
        };
        let ours = ours.unwrap_or_else(|| "not measured".into());
        let theirs = if p.metric == Metric::RequestsPerSec { thousands(p.value) } else { number(p.value) };
        let (subject, scenario) = (p.subject.to_string(), p.scenario.to_string());
        t.row(vec![subject, scenario, p.connections.to_string(), what.into(), theirs, ours]);
    }
    doc.push(Block::Table(t));
    super::shape::shape(doc, b, preset);
}

/// The subjects this run had beyond the study's own (from `--subjects` or `--subject`), as the report names them.
fn extra_subjects(b: &Benchmark, preset: crate::plan::presets::Preset) -> Vec<String> {
    let study: Vec<&str> = preset.method().map_or(&[][..], |m| m.subjects).iter().map(|s| s.name()).collect();
    // The report's copy marks an unverified subject's name; it is still the study's subject.
    let own = |name: &str| study.iter().any(|s| name == *s || name == crate::report::unverified_label(s));
    b.subjects.iter().map(|s| s.name.clone()).filter(|name| !own(name)).collect()
}

/// KiB as decimal megabytes, the unit `ps` and the articles print.
pub(crate) fn mb(s: &Stat) -> String {
    format!("{:.1}", s.median * 1024.0 / 1e6)
}
