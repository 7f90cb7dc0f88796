//! Ratios and verdicts: each subject against the baseline, cell by cell and for memory, with whether the difference
//! exceeds the measured noise; and each subject's share of the fixed-response ceiling.

use crate::analyse::stats::{self, Stat, Verdict};
use crate::report::document::Document;
use crate::report::ratios::{Bound, baseline, loader_limit, percent_text, ratio, ratio_text};
use crate::schema::{Benchmark, Summary};
use crate::text::{count, number, thousands};

pub(crate) fn ratios(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)]) {
    doc.heading(2, "Ratios and verdicts");
    doc.paragraph(
        "A difference *exceeds the noise* only when the min–max ranges of the two subjects' runs do not overlap; \
         with a single run per side the noise is unknown and no verdict is given. Every ratio is a subject's figure \
         over the baseline's. Where a subject is loader-limited or loader-bound, its throughput and latency ratios \
         are bounds, and CPU per request (which the loader cannot distort) leads.",
    );
    let contract_subjects: Vec<&str> = b.subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).collect();
    let mut items = Vec::new();
    let mut any = false;
    // Each subject against the baseline, not every pair: with a service of one's own beside rust and node, the
    // question is how it compares with the reference.
    let base = baseline(b).unwrap_or_default();
    // Every ratio is the subject's figure over the baseline's, as in the tables.
    for other in contract_subjects.iter().filter(|n| **n != base) {
        for (scenario, conns) in cells {
            let (Some(sa), Some(sb)) = (b.summary(other, scenario, *conns), b.summary(base, scenario, *conns)) else {
                continue;
            };
            any = true;
            cell_verdicts(&mut items, &format!("{scenario}, {conns} connections"), sa, sb);
        }
        any |= memory_verdicts(&mut items, b, other, base);
    }
    any |= ceiling_lines(&mut items, b, cells, &contract_subjects);
    doc.list(items);
    if !any {
        doc.paragraph("No two subjects were measured on the same cell.");
    }
}

/// The verdicts of one cell for two subjects: throughput, p99 and CPU per request, CPU first when either is
/// loader-limited.
pub(crate) fn cell_verdicts(items: &mut Vec<String>, at: &str, sa: &Summary, sb: &Summary) {
    let (a, other) = (sa.subject.as_str(), sb.subject.as_str());
    let cpu = match (&sa.server_cpu_us_per_request, &sb.server_cpu_us_per_request) {
        (Some(ca), Some(cb)) => Some(compare(a, other, ca, cb, false, "µs")),
        _ => None,
    };
    let limited = loader_limit(sa).is_some() || loader_limit(sb).is_some();
    if let (true, Some(line)) = (limited, &cpu) {
        items.push(format!("{at}, **CPU per request (the headline: {})**: {line}", limited_names(sa, sb)));
    }
    let throughput = match Bound::of(sa, sb, true) {
        Bound::Exact => compare(a, other, &sa.requests_per_sec, &sb.requests_per_sec, true, "requests/s"),
        bound => bounded(sa, sb, &sa.requests_per_sec, &sb.requests_per_sec, bound, "requests/s"),
    };
    items.push(format!("{at}, throughput: {throughput}"));
    let p99 = match Bound::of(sa, sb, false) {
        Bound::Exact => compare(a, other, &sa.p99_ms, &sb.p99_ms, false, "ms"),
        bound => bounded(sa, sb, &sa.p99_ms, &sb.p99_ms, bound, "ms"),
    };
    items.push(format!("{at}, p99 latency: {p99}"));
    if let (false, Some(line)) = (limited, cpu) {
        items.push(format!("{at}, CPU per request: {line}"));
    }
}

pub(crate) fn limited_names(sa: &Summary, sb: &Summary) -> String {
    let names: Vec<String> =
        [sa, sb].iter().filter_map(|s| Some(format!("{} is {}", s.subject, loader_limit(s)?))).collect();
    names.join(", ")
}

/// A ratio that is a bound: the figures, `a/b ≥ r×` (or `≤`), and why.
pub(crate) fn bounded(sa: &Summary, sb: &Summary, va: &Stat, vb: &Stat, bound: Bound, unit: &str) -> String {
    let (a, other) = (&sa.subject, &sb.subject);
    let figures = format!("{a} {} vs {other} {} {unit}", number(va.median), number(vb.median));
    let ratio = if vb.median > 0.0 { bound.format(va.median / vb.median) } else { "—".into() };
    let why: Vec<String> = [sa, sb]
        .iter()
        .filter_map(|s| match s.loader_capacity_share_percent.filter(|_| s.loader_limited) {
            Some(share) => Some(format!("{} at {share:.0} % of the loader's capacity", s.subject)),
            None if s.loader_bound_runs > 0 => Some(format!(
                "{}'s load generator at ≥ {:.0} % CPU in {}",
                s.subject,
                crate::analyse::summarise::LOADER_BOUND_PERCENT,
                count(u64::from(s.loader_bound_runs), "run")
            )),
            None => None,
        })
        .collect();
    format!("{figures} — {a}/{other} {ratio}, a bound, not a measured ratio ({}).", why.join(", "))
}

pub(crate) fn memory_verdicts(items: &mut Vec<String>, b: &Benchmark, a: &str, other: &str) -> bool {
    let (Some(ma), Some(mb)) = (b.memory_summary(a), b.memory_summary(other)) else {
        return false;
    };
    let (idle_a, idle_b) = (ma.idle_rss_kib.kib_to_mib(), mb.idle_rss_kib.kib_to_mib());
    items.push(format!("memory idle (RSS): {}", compare(a, other, &idle_a, &idle_b, false, "MiB")));
    let (after_a, after_b) = (ma.after_rss_kib.kib_to_mib(), mb.after_rss_kib.kib_to_mib());
    items.push(format!("memory after load (RSS): {}", compare(a, other, &after_a, &after_b, false, "MiB")));
    items.push(format!("start-up to first 200: {}", compare(a, other, &ma.startup_ms, &mb.startup_ms, false, "ms")));
    true
}

/// "rust reaches 85 % of the ceiling baseline", as a bound when either side is loader-limited.
pub(crate) fn ceiling_lines(
    items: &mut Vec<String>,
    b: &Benchmark,
    cells: &[(String, u32)],
    contract_subjects: &[&str],
) -> bool {
    let mut any = false;
    for ceiling in b.subjects.iter().filter(|s| s.get_only) {
        for (scenario, conns) in cells {
            let Some(c) = b.summary(&ceiling.name, scenario, *conns) else { continue };
            for name in contract_subjects {
                let Some(s) = b.summary(name, scenario, *conns) else { continue };
                any = true;
                let Some(share) = ratio(s.requests_per_sec.median, c.requests_per_sec.median).map(|r| r * 100.0) else {
                    continue;
                };
                let share = percent_text(share);
                let reaches = match Bound::of(s, c, true) {
                    Bound::Exact => format!("reaches {share} %"),
                    Bound::AtLeast => {
                        format!("reaches at least {share} % (it is {})", loader_limit(s).unwrap_or_default())
                    }
                    Bound::AtMost => {
                        format!(
                            "reaches at most {share} % (the {} is {})",
                            ceiling.name,
                            loader_limit(c).unwrap_or_default()
                        )
                    }
                    Bound::Unknown => {
                        format!("measured {share} % (both held by the loader: not a comparison of the servers)")
                    }
                };
                items.push(format!(
                    "{scenario}, {conns} connections: {name} {reaches} of the {} baseline ({} vs {} requests/s).",
                    ceiling.name,
                    thousands(s.requests_per_sec.median),
                    thousands(c.requests_per_sec.median)
                ));
            }
        }
    }
    any
}

/// One verdict line: the ratio `a / b` (a subject over the baseline), who is better, and whether that exceeds the
/// measured noise.
pub(crate) fn compare(a: &str, b: &str, sa: &Stat, sb: &Stat, higher_is_better: bool, unit: &str) -> String {
    let (va, vb) = (sa.median, sb.median);
    let figures = format!("{a} {} vs {b} {} {unit}", number(va), number(vb));
    if va == 0.0 || vb == 0.0 {
        return format!("{figures}.");
    }
    let ratio = format!("{a}/{b} {}×", ratio_text(va / vb));
    let winner = if (va > vb) == higher_is_better { a } else { b };
    let noise = match (sa.spread(), sb.spread()) {
        (Some(x), Some(y)) => format!("spread {:.1} % / {:.1} %", x * 100.0, y * 100.0),
        _ => "noise not measured".into(),
    };
    let verdict = match stats::verdict(sa, sb) {
        Verdict::Exceeds => {
            format!("{ratio}: **{winner} better, beyond the measured noise** ({noise}; ranges do not overlap)")
        }
        Verdict::WithinNoise => format!("{ratio}: within the measured noise ({noise}; ranges overlap): no winner"),
        Verdict::NoiseUnknown => format!("{ratio}: single run, so no verdict"),
    };
    format!("{figures} — {verdict}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_lines() {
        let a = Stat::of(&[100.0, 101.0, 102.0]).unwrap();
        let b = Stat::of(&[50.0, 51.0, 52.0]).unwrap();
        let line = compare("rust", "node", &a, &b, true, "requests/s");
        assert!(line.contains("rust/node 1.98×: **rust better, beyond the measured noise**"), "{line}");
        let line = compare("rust", "node", &a, &b, false, "ms");
        assert!(line.contains("rust/node 1.98×: **node better"), "{line}");
        let c = Stat::of(&[100.5, 103.0, 104.0]).unwrap();
        assert!(compare("a", "b", &a, &c, true, "x").contains("within the measured noise"));
    }
}
