//! How the report writes a figure: medians with their range, milliseconds, MiB, CPU lists, and the cells
//! (scenario × connections) its tables walk through. Numbers shared with the console and the comparison are in
//! `crate::text`.

use crate::analyse::stats::Stat;
use crate::schema::Summary;

/// Distinct (scenario, connections) pairs in first-seen order.
pub(crate) fn cells(summaries: &[Summary]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for s in summaries {
        let k = (s.scenario.clone(), s.connections);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

pub(crate) fn mib(s: &Stat) -> String {
    let m = s.kib_to_mib();
    if m.n > 1 { format!("{:.1} [{:.1}–{:.1}]", m.median, m.min, m.max) } else { format!("{:.1}", m.median) }
}

pub(crate) fn ms(v: f64) -> String {
    format!("{v:.2}")
}

/// A percentile the load tool does not report (ab, bombardier: no p99.9).
pub(crate) fn not_reported() -> String {
    "n/r".to_owned()
}

pub(crate) fn cpu_list(c: &[usize]) -> String {
    crate::machine::procstat::format_cpu_list(c)
}
