//! The decision section, right after the summary: the run's figures at the team's own traffic (`--traffic`,
//! `--replicas`, `--io-wait`, the prices; `crate::decision` computes them), the share of a user's wait the server's
//! own time is, the article's checklist answered by the run, and the one sentence of what the figures support.

use crate::decision::advice::{facts, sentence};
use crate::decision::checklist::checklist;
use crate::decision::{
    HOURS_PER_MONTH, Inputs, LatencySource, Row, Span, difference_share_percent, rows, server_share_percent,
};
use crate::report::document::{Align, Block, Document, Table};
use crate::schema::Benchmark;
use crate::text::thousands;

pub(crate) fn decision(doc: &mut Document, b: &Benchmark, inputs: &Inputs) {
    let rows = rows(b, inputs);
    doc.heading(2, "Decision");
    doc.paragraph(inputs_paragraph(b, inputs));
    if rows.is_empty() {
        doc.push(Block::Note("No subject that implements the API was measured: nothing to size.".into()));
        return;
    }
    if b.capacity.is_none() {
        doc.push(Block::Note(
            "**No capacity search in this run** (`--open-loop-rates` replaced it, or it was not run): the cores for \
             the traffic, and the cost, cannot be sized. Memory, CPU per request and CPU-hours are below; a run with \
             the search (the default plan) sizes the cores."
                .into(),
        ));
    }
    doc.push(Block::Table(table(&rows, inputs)));
    doc.list(latency_lines(&rows, inputs));
    doc.heading(3, "The article's checklist, answered by this run");
    doc.list(checklist(b).into_iter().map(|i| format!("**{}**: {}.", i.ask, i.answer)).collect());
    doc.paragraph(format!("**{}**", sentence(&facts(b, &rows, inputs), inputs.traffic())));
}

/// What the figures were sized for, which inputs were assumed, and how the month is counted.
fn inputs_paragraph(b: &Benchmark, inputs: &Inputs) -> String {
    let objective = b.capacity.as_ref().map_or("the latency objective".into(), |c| c.settings.objective.to_string());
    let assumed = if inputs.any_given() {
        String::new()
    } else {
        " None of them was given, so these are assumed (the sizing line's traffic, one copy, no I/O wait, no price): \
         give yours to `fairpair report benchmark.json` to re-read this run without rerunning it."
            .to_string()
    };
    format!(
        "Sized for {}/s at {objective}, {} cop{} of the service and {} ms of I/O wait per request (`{}`).{assumed} \
         Cores are the traffic over one core's capacity, rounded up, if throughput scaled linearly with cores: a \
         capacity's bracket gives a range of cores, a capacity that is a lower bound (`≥`) an upper bound on them \
         (`at most`). Memory is the after-load RSS (all of a subject's processes) times the copies. A month is {} \
         hours; a cost is cores × hours × core price + memory GiB × hours × memory price, in the prices' currency.",
        thousands(inputs.traffic()),
        inputs.replicas(),
        if inputs.replicas() == 1 { "y" } else { "ies" },
        inputs.io_wait_ms(),
        inputs.words(),
        HOURS_PER_MONTH
    )
}

fn table(rows: &[Row], inputs: &Inputs) -> Table {
    let priced = inputs.core_price.is_some() || inputs.memory_price.is_some();
    let traffic = format!("cores for {}/s", thousands(inputs.traffic()));
    let memory = format!("memory across {} cop{}", inputs.replicas(), if inputs.replicas() == 1 { "y" } else { "ies" });
    // The month's CPU is of the traffic too, which the header names as the cores' does.
    let cpu_hours = format!("CPU-hours a month at {}/s", thousands(inputs.traffic()));
    let mut columns = vec![
        ("subject", Align::Left),
        ("scenario", Align::Left),
        ("capacity", Align::Right),
        (traffic.as_str(), Align::Right),
        (memory.as_str(), Align::Right),
        ("CPU per request", Align::Right),
        (cpu_hours.as_str(), Align::Right),
    ];
    if priced {
        columns.push(("cost a month", Align::Right));
    }
    let mut t = Table::new(&columns);
    for r in rows {
        for s in &r.sizings {
            let name = if r.baseline { format!("{} (baseline)", r.subject) } else { r.subject.clone() };
            let cores = match &s.cores {
                Ok(c) => {
                    let per = if r.cores_used > 1 {
                        format!(" (capacity over its {} cores)", r.cores_used)
                    } else {
                        String::new()
                    };
                    let rough = if s.unconfirmed { " (unconfirmed)" } else { "" };
                    format!("{}{per}{rough}", c.text(thousands, "cores"))
                }
                Err(why) => why.clone(),
            };
            let memory = r.memory.map_or("not measured".into(), |m| {
                let workers = if m.processes > 1 {
                    format!(", {:.1} MiB per worker of {}", m.per_worker_mib(), m.processes)
                } else {
                    String::new()
                };
                format!("{:.2} GiB ({:.1} MiB a copy{workers})", m.total_gib, m.per_copy_mib)
            });
            let mut row = vec![
                name,
                s.scenario.clone(),
                s.capacity.clone(),
                cores,
                memory,
                s.cpu_us.map_or("—".into(), |us| format!("{us:.1} µs")),
                s.cpu_hours.map_or("—".into(), |h| format!("{h:.0}")),
            ];
            if priced {
                row.push(s.cost.map_or("—".into(), |c: Span| c.text(|v| format!("{v:.2}"), "")));
            }
            t.row(row);
        }
    }
    t
}

/// Per scenario: each subject's p50 as a share of a user's wait with the I/O wait, and its difference from the
/// baseline's as a share of the baseline's user's wait; which p50 it is.
fn latency_lines(rows: &[Row], inputs: &Inputs) -> Vec<String> {
    let io = inputs.io_wait_ms();
    let Some(base) = rows.iter().find(|r| r.baseline) else { return vec![] };
    base.sizings
        .iter()
        .filter_map(|bs| {
            let (base_ms, source) = bs.p50?;
            let from = match source {
                LatencySource::Capacity => "the p50 of the capacity search's windows at the capacity".to_string(),
                LatencySource::ClosedLoop { connections } => {
                    format!("the closed-loop p50 at {connections} connections, the lowest count")
                }
            };
            let each: Vec<String> = rows
                .iter()
                .filter_map(|r| {
                    let (ms, own) = r.sizings.iter().find(|s| s.scenario == bs.scenario)?.p50?;
                    let share = server_share_percent(ms, io);
                    let diff = if r.baseline {
                        String::new()
                    } else {
                        let d = difference_share_percent(ms, base_ms, io);
                        format!("; {:+.2} ms against {}, {d:+.1} % of what a user waits", ms - base_ms, base.subject)
                    };
                    // A subject whose p50 came from elsewhere than the baseline's says so.
                    let other = match own {
                        _ if own == source => "",
                        LatencySource::Capacity => " (at its capacity)",
                        LatencySource::ClosedLoop { .. } => " (closed loop: no capacity)",
                    };
                    Some(format!("{}{other} {ms:.2} ms, {share:.1} % of a user's wait{diff}", r.subject))
                })
                .collect();
            Some(format!(
                "{}: the server's own time ({from}) with {io} ms of I/O wait: {}.",
                bs.scenario,
                each.join("; ")
            ))
        })
        .collect()
}
