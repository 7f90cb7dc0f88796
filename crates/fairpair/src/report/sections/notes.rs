//! What a reader must know beside the figures: runs left out, diagnoses, flags and what was skipped.

use crate::report::document::Document;
use crate::schema::{Benchmark, LoadRun};
use crate::text::thousands;

/// Runs that are not throughput figures, each with its reason.
pub(crate) fn left_out(doc: &mut Document, b: &Benchmark) {
    let out: Vec<&LoadRun> = b.runs.iter().filter(|r| r.left_out.is_some()).collect();
    if out.is_empty() {
        return;
    }
    doc.heading(2, "Left out");
    doc.paragraph(format!(
        "{} runs are left out: no table, median or verdict above counts them. A run is no figure when its responses \
         were not all of the status its scenario expects, or when other processes used more than the idle threshold \
         ({:.0} % of the machine) during it; such a run is rerun (a full store once, a busy machine twice) and the \
         rerun, when clean, counts in its place.",
        out.len(),
        b.settings.idle_threshold_percent
    ));
    doc.list(
        out.iter()
            .map(|r| {
                format!(
                    "{} {} at {} connections, run {}: {} ({} req/s as measured).",
                    r.subject,
                    r.scenario,
                    r.connections,
                    r.repeat,
                    r.left_out.as_deref().unwrap_or_default(),
                    thousands(r.requests_per_sec)
                )
            })
            .collect(),
    );
}

/// Known signatures in the figures (see `diagnose.rs`), each a hypothesis with how to check it; nothing when none.
pub(crate) fn diagnoses(doc: &mut Document, b: &Benchmark) {
    let found = crate::analyse::diagnose::diagnose(b);
    if found.is_empty() {
        return;
    }
    doc.heading(2, "Diagnoses");
    doc.paragraph(
        "These figures match a known signature. Each is a hypothesis to check before the figure is quoted, not a \
         verdict.",
    );
    doc.list(found.iter().map(|d| d.render()).collect());
}

pub(crate) fn flags_and_skipped(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Flags");
    if b.flags.is_empty() {
        doc.paragraph("None: no run was noisy (CV > 5 %), loader-bound, on a busy machine, or had errors.");
    }
    doc.list(b.flags.iter().map(|f| format!("**{}**: {}", f.kind, f.message)).collect());
    doc.heading(2, "Skipped");
    if b.skipped.is_empty() {
        doc.paragraph("Nothing.");
    }
    doc.list(b.skipped.iter().map(|s| s.to_string()).collect());
}
