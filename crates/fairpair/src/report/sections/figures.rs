//! The figures, one table per kind: throughput, closed-loop latency, CPU and machine, open-loop latency, memory and
//! start-up.

use crate::report::document::{Align, Block, Document, Table};
use crate::report::format::{mib, ms, not_reported};
use crate::report::ratios::{Bound, baseline, ratio};
use crate::report::{charts::latency_points, is_external};
use crate::schema::{Benchmark, SubjectKind};
use crate::text::thousands;

pub(crate) fn throughput(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    use Align::{Left, Right};
    let measured = b.preflight.as_ref().is_some_and(|p| !p.loader_capacity.is_empty());
    let base = baseline(b).unwrap_or_default();
    doc.heading(2, "Throughput (requests/s)");
    let spread = if b.summaries.iter().any(|s| s.requests_per_sec.n > 1) {
        "Median [min–max] over runs and their coefficient of variation (CV)"
    } else {
        "One run per cell: its figure, with no range and no CV"
    };
    let share = if measured { "; the share of the loader's measured capacity (see *Preflight*)" } else { "" };
    doc.paragraph(format!(
        "{spread}{share}; each subject's median over {base}'s, the baseline (`--baseline`), where `≥` and `≤` mark \
         bounds. Only runs whose every response had the expected status count (see *Left out*)."
    ));
    let mut columns = vec![("scenario", Left), ("connections", Right), ("subject", Left), ("requests/s", Right)];
    columns.push(("CV", Right));
    if measured {
        columns.push(("share of loader", Right));
    }
    let title = format!("/ {base}");
    columns.push((title.as_str(), Right));
    let mut t = Table::new(&columns);
    for (scenario, conns) in cells {
        for name in subjects {
            let mut row = vec![scenario.clone(), conns.to_string(), name.to_string()];
            let Some(s) = b.summary(name, scenario, *conns) else {
                if b.runs.iter().any(|r| r.subject == *name && r.scenario == *scenario && r.connections == *conns) {
                    row.push("left out (see *Left out*)".into());
                    row.resize(columns.len(), String::new());
                    t.row(row);
                }
                continue;
            };
            let r = &s.requests_per_sec;
            row.push(if r.n > 1 {
                format!("{} [{}–{}]", thousands(r.median), thousands(r.min), thousands(r.max))
            } else {
                thousands(r.median)
            });
            row.push(r.cv.map_or("—".into(), |c| format!("{:.1} %", c * 100.0)));
            if measured {
                row.push(match s.loader_capacity_share_percent {
                    Some(share) if s.loader_limited => format!("**{share:.0} %: loader-limited**"),
                    Some(share) => format!("{share:.0} %"),
                    None => "—".into(),
                });
            }
            row.push(match b.summary(base, scenario, *conns) {
                _ if *name == base => "baseline".into(),
                Some(c) => {
                    ratio(r.median, c.requests_per_sec.median).map_or("—".into(), |x| Bound::of(s, c, true).format(x))
                }
                None => "—".into(),
            });
            t.row(row);
        }
    }
    doc.push(Block::Table(t));
}

pub(crate) fn latency(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    use Align::{Left, Right};
    doc.heading(2, "Latency under closed-loop load (ms)");
    doc.paragraph(
        "Medians over runs. A closed loop waits for each answer, so these are latencies at saturation, not at a given \
         rate (see the open-loop section).",
    );
    let mut t = Table::new(&[
        ("scenario", Left),
        ("connections", Right),
        ("subject", Left),
        ("p50", Right),
        ("p90", Right),
        ("p99", Right),
        ("p99.9", Right),
        ("max", Right),
    ]);
    for (scenario, conns) in cells {
        for name in subjects {
            if let Some(s) = b.summary(name, scenario, *conns) {
                let mut row = vec![scenario.clone(), conns.to_string(), name.to_string()];
                row.extend(latency_points(s).map(|(_, p)| p.map_or_else(not_reported, |p| ms(p.median))));
                t.row(row);
            }
        }
    }
    doc.push(Block::Table(t));
    if b.summaries.iter().any(|s| s.p99_9_ms.is_none()) {
        doc.paragraph(format!(
            "n/r: not reported by the load tool (`{}` gives no p99.9: ab's percentiles go in steps of 1 %, \
             bombardier's stop at p99).",
            b.settings.tool
        ));
    }
}

pub(crate) fn cpu(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    use Align::{Left, Right};
    doc.heading(2, "CPU and machine");
    doc.paragraph(format!(
        "Server CPU time per request, median [min–max] over runs (all its processes, from `/proc`); the load \
         generator's median CPU use as a share of the CPUs it had (≥ {:.0} % = loader-bound, a second sign of a loader limit beside the capacity share); the \
         most CPU time the hypervisor stole during a run (`/proc/stat`); the accept backlog the server's listening \
         socket got (`ss`, capped by `net.core.somaxconn`).",
        crate::analyse::summarise::LOADER_BOUND_PERCENT
    ));
    let mut t = Table::new(&[
        ("scenario", Left),
        ("connections", Right),
        ("subject", Left),
        ("server CPU µs/request", Right),
        ("loader CPU %", Right),
        ("steal %", Right),
        ("listen backlog", Right),
    ]);
    for (scenario, conns) in cells {
        for name in subjects {
            if let Some(s) = b.summary(name, scenario, *conns) {
                let cpu = match &s.server_cpu_us_per_request {
                    Some(c) => format!("{:.1} [{:.1}–{:.1}]", c.median, c.min, c.max),
                    None if is_external(b, name) => "not measured (a running service)".into(),
                    None => "—".into(),
                };
                let steal = s.steal_percent_max.map_or("—".into(), |v| format!("{v:.1}"));
                let backlog = s.listen_backlog.map_or("—".into(), |v| v.to_string());
                let loader = format!("{:.0}", s.loader_cpu_percent.median);
                t.row(vec![scenario.clone(), conns.to_string(), name.to_string(), cpu, loader, steal, backlog]);
            }
        }
    }
    doc.push(Block::Table(t));
}

pub(crate) fn open_loop(doc: &mut Document, b: &Benchmark) {
    use Align::{Left, Right};
    doc.heading(2, "Open-loop latency at fixed rates (ms)");
    if b.open_loop.is_empty() {
        // By default the capacity search runs instead of fixed rates, and *Skipped* then says nothing of them: the
        // section must say why itself.
        doc.paragraph(if b.capacity.is_some() && b.settings.open_loop_fractions.is_empty() {
            "Not run: by default the capacity search (see *Capacity at …*) loads every subject at fixed rates instead; \
             `--open-loop-rates` adds these runs."
        } else {
            "Not measured (see *Skipped*)."
        });
        return;
    }
    let mut t = Table::new(&[
        ("subject", Left),
        ("asked req/s", Right),
        ("achieved req/s", Right),
        ("tool", Left),
        ("corrected for coordinated omission", Left),
        ("p50", Right),
        ("p90", Right),
        ("p99", Right),
        ("p99.9", Right),
        ("max", Right),
    ]);
    for r in &b.open_loop {
        let l = &r.latency;
        t.row(vec![
            r.subject.clone(),
            thousands(r.asked_rps),
            thousands(r.achieved_rps),
            r.tool.to_string(),
            if r.latency_corrected { "yes" } else { "no" }.into(),
            ms(l.p50_ms),
            ms(l.p90_ms),
            ms(l.p99_ms),
            l.p99_9_ms.map_or_else(not_reported, ms),
            ms(l.max_ms),
        ]);
    }
    doc.push(Block::Table(t));
}

/// The memory table; returns whether there was anything to chart.
pub(crate) fn memory(doc: &mut Document, b: &Benchmark) -> bool {
    use Align::{Left, Right};
    doc.heading(2, "Memory and start-up");
    if b.memory_summaries.is_empty() {
        doc.paragraph("Not measured.");
        return false;
    }
    doc.paragraph("MiB, median [min–max] over fresh processes, summed over each subject's processes.");
    let mut t = Table::new(&[
        ("subject", Left),
        ("processes", Right),
        ("idle RSS", Right),
        ("idle PSS", Right),
        ("after-load RSS", Right),
        ("after-load PSS", Right),
        ("peak RSS", Right),
        ("start-up to first 200 (ms)", Right),
    ]);
    for sub in b.subjects.iter().filter(|s| s.kind == SubjectKind::External) {
        let mut row = vec![sub.name.clone(), "not measured (a running service fairpair did not start)".into()];
        row.extend(std::iter::repeat_n(String::new(), 5));
        row.push("not measured".into());
        t.row(row);
    }
    for m in &b.memory_summaries {
        t.row(vec![
            m.subject.clone(),
            m.processes.to_string(),
            mib(&m.idle_rss_kib),
            mib(&m.idle_pss_kib),
            mib(&m.after_rss_kib),
            mib(&m.after_pss_kib),
            mib(&m.after_hwm_kib),
            format!("{:.0} [{:.0}–{:.0}]", m.startup_ms.median, m.startup_ms.min, m.startup_ms.max),
        ]);
    }
    doc.push(Block::Table(t));
    if b.memory_summaries.iter().any(|m| is_java(b, &m.subject)) {
        doc.paragraph(JVM_MEMORY);
    }
    true
}

/// What a reader comparing a Java subject's memory must know: a JVM reserves far more than it touches, and what it
/// touches follows its heap sizing, not the service's data.
const JVM_MEMORY: &str = "For a Java subject, compare RSS (PSS is the same figure for a one-process subject): it \
    is what the machine pays for, and the figure to compare across subjects; the address space the JVM reserves is \
    larger and is not counted. A JVM's RSS follows the heap its collector has committed (G1, or Serial when told it \
    has one CPU or on a machine under 1792 MB), which the JVM sizes from the machine's memory (up to a quarter of \
    RAM by default), not from the live data: a fixed `-Xmx` would change it. The environment table gives the \
    collector and the heap limit this JVM chose.";

/// Whether `name` (as the report shows it, marked if unverified) is a built-in Java subject.
fn is_java(b: &Benchmark, name: &str) -> bool {
    use crate::plan::names::BuiltinSubject;
    use crate::subjects::builtins::ServerId;
    let builtin = b.subjects.iter().any(|s| s.name == name && s.kind == SubjectKind::Builtin);
    let named = |k: &BuiltinSubject| name == k.name() || name == crate::report::unverified_label(k.name());
    builtin && BuiltinSubject::ALL.iter().any(|k| k.server().id == ServerId::Java && named(k))
}

#[cfg(test)]
mod tests {
    use crate::schema::{Benchmark, SubjectKind, upgrade_from_v1};

    /// The golden run (ceiling, alpha, beta), read as a version 1 file.
    fn golden() -> Benchmark {
        let text = include_str!("../../../tests/fixtures/golden/benchmark.json");
        upgrade_from_v1(serde_json::from_str(text).unwrap(), crate::analyse::summarise::summarise)
    }

    #[test]
    fn the_memory_section_says_which_figure_to_compare_only_when_java_ran() {
        let mut b = golden();
        let (md, _) = crate::report::render(&b);
        assert!(md.contains("## Memory and start-up") && !md.contains("For a Java subject"), "{md}");
        // alpha as the built-in java subject, measured unverified: its name is marked, the paragraph still shows.
        let alpha = b.subjects.iter_mut().find(|s| s.name == "alpha").unwrap();
        (alpha.name, alpha.kind) = ("java".into(), SubjectKind::Builtin);
        assert!(alpha.verification.measured_unverified, "the golden subjects were measured unverified");
        b.memory_summaries.iter_mut().filter(|m| m.subject == "alpha").for_each(|m| m.subject = "java".into());
        let (md, _) = crate::report::render(&b);
        let memory = &md[md.find("## Memory and start-up").unwrap()..];
        let memory = &memory[..memory[3..].find("\n## ").unwrap()];
        assert!(memory.contains("For a Java subject, compare RSS (PSS is the same figure"), "{memory}");
        assert!(memory.contains("a fixed `-Xmx` would change it"), "{memory}");
    }

    #[test]
    fn a_default_runs_missing_open_loop_section_says_the_capacity_search_ran_instead() {
        let text = include_str!("../../../tests/fixtures/capacity/benchmark.json");
        let b = crate::schema::read(text, crate::analyse::summarise::summarise).unwrap();
        assert!(b.open_loop.is_empty() && !b.skipped.iter().any(|s| s.contains("open-loop")));
        let (md, _) = crate::report::render(&b);
        assert!(md.contains("Not run: by default the capacity search"), "{md}");
        assert!(!md.contains("Not measured (see *Skipped*)"), "{md}");
    }
}
