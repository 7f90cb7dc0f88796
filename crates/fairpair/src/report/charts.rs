//! Which figures each chart of the report draws (`crate::report::svg` draws them as SVG): throughput per cell, latency
//! percentiles per cell, the percentile spectrum, memory.

use crate::analyse::stats::Stat;
use crate::report::svg::{self, Bar, Grouped};
use crate::schema::{Benchmark, MemorySummary, Summary};

pub(crate) fn throughput_chart(b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) -> String {
    let present: Vec<&str> = subjects.iter().copied().filter(|n| b.summaries.iter().any(|s| s.subject == *n)).collect();
    svg::grouped_bars(&Grouped {
        title: "Throughput (requests/s)",
        y_label: "requests/s",
        groups: cells.iter().map(|(s, c)| format!("{s} c={c}")).collect(),
        series: present.iter().map(|s| s.to_string()).collect(),
        values: cells
            .iter()
            .map(|(scenario, conns)| {
                present.iter().map(|n| b.summary(n, scenario, *conns).map(|s| bar(&s.requests_per_sec))).collect()
            })
            .collect(),
        // Every summary of a cell carries the same capacity: the one preflight measured for it.
        limits: cells
            .iter()
            .map(|(scenario, conns)| {
                b.summaries
                    .iter()
                    .find(|s| s.scenario == *scenario && s.connections == *conns && s.loader_capacity_rps.is_some())
                    .and_then(|s| s.loader_capacity_rps)
            })
            .collect(),
    })
}

pub(crate) fn latency_chart(b: &Benchmark, scenario: &str, conns: u32, subjects: &[&str]) -> String {
    let present: Vec<&Summary> = subjects.iter().filter_map(|n| b.summary(n, scenario, conns)).collect();
    let title = format!("Latency, {scenario} at {conns} connections (ms)");
    svg::grouped_bars(&Grouped {
        title: &title,
        y_label: "ms",
        groups: vec!["p50".into(), "p90".into(), "p99".into(), "p99.9".into()],
        series: present.iter().map(|s| s.subject.clone()).collect(),
        values: (0..4).map(|p| present.iter().map(|s| latency_points(s)[p].1.map(bar)).collect()).collect(),
        limits: vec![],
    })
}

/// The percentile spectrum of one cell: each subject's latency points (medians over runs) on a "nines" axis, as
/// HdrHistogram's plots draw latency. A percentile the load tool did not report is left out of that subject's line,
/// and the chart says so.
pub(crate) fn spectrum_chart(b: &Benchmark, scenario: &str, conns: u32, subjects: &[&str]) -> String {
    let present: Vec<&Summary> = subjects.iter().filter_map(|n| b.summary(n, scenario, conns)).collect();
    let title = format!("Latency by percentile, {scenario} at {conns} connections (ms)");
    let lines = present
        .iter()
        .map(|s| svg::Line {
            name: s.subject.clone(),
            points: latency_points(s).into_iter().map(|(q, stat)| (q, stat.map(|st| st.median))).collect(),
        })
        .collect();
    svg::spectrum(&svg::Spectrum { title: &title, y_label: "ms", lines })
}

/// A cell's latency in reading order: p50, p90, p99, p99.9 (`None` where the load tool gives none: ab, bombardier)
/// and max. The latency table, the bar chart (all but the max) and the spectrum all read it from here.
pub(crate) fn latency_points(s: &Summary) -> [(svg::Quantile, Option<&Stat>); 5] {
    use svg::Quantile::{Max, Percent};
    [
        (Percent(50.0), Some(&s.p50_ms)),
        (Percent(90.0), Some(&s.p90_ms)),
        (Percent(99.0), Some(&s.p99_ms)),
        (Percent(99.9), s.p99_9_ms.as_ref()),
        (Max, Some(&s.max_ms)),
    ]
}

pub(crate) fn memory_chart(m: &[MemorySummary]) -> String {
    svg::grouped_bars(&Grouped {
        title: "Memory, RSS summed over processes (MiB)",
        y_label: "MiB",
        groups: m.iter().map(|s| s.subject.clone()).collect(),
        series: vec!["idle".into(), "after load".into()],
        values: m
            .iter()
            .map(|s| vec![Some(bar(&s.idle_rss_kib.kib_to_mib())), Some(bar(&s.after_rss_kib.kib_to_mib()))])
            .collect(),
        limits: vec![],
    })
}

pub(crate) fn bar(s: &Stat) -> Bar {
    Bar { value: s.median, min: s.min, max: s.max }
}
