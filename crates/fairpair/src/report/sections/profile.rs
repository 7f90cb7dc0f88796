//! The "Where the time goes" section (`--profile`): each subject's CPU per request, from the samples of its
//! profiled run, split into parts (kernel, HTTP, JSON, …) beside its measured median; how much of each profile
//! resolved to named functions; the part where each pair of subjects differs most; the runtimes' pauses beside the
//! measured tail latencies; a flame graph per subject and scenario. Left out when `--profile` was not given.

use crate::profile::flame;
use crate::profile::parts::Part;
use crate::report::document::{Align, Block, Document, Table};
use crate::report::format::ms;
use crate::schema::{Benchmark, ProfileRecord, ProfileRun, Summary};

/// Below this share of resolved samples a profile's parts are not a breakdown of the subject's code.
pub const RESOLVED_ENOUGH_PERCENT: f64 = 90.0;
/// The agreement the profile's total CPU per request must have with the measured median.
pub const AGREEMENT_PERCENT: f64 = 10.0;

pub(crate) fn profile(doc: &mut Document, b: &Benchmark) {
    let Some(record) = &b.profiles else { return };
    doc.heading(2, "Where the time goes");
    let hz = record.frequency_hz;
    doc.paragraph(format!(
        "Each subject fairpair started was run once more per scenario, apart from every measured run: a fresh \
         server, the measured runs' warm-up, then the same load under `perf record -e cpu-clock -F {hz} -g` of all \
         its processes. No throughput, latency or CPU figure of this report counts these runs. A sample stands for \
         1/{hz} s of CPU, so a profile's CPU per request is its samples ÷ {hz} ÷ the requests the load tool counted \
         in the window, in µs; each part is the same for the samples the stack rules put in it. The measured median \
         is the closed-loop runs' server CPU per request at the same scenario and connections; the two should agree \
         within {AGREEMENT_PERCENT:.0} %."
    ));
    if record.runs.is_empty() {
        doc.push(Block::Note("No subject was profiled.".into()));
    }
    let scenarios = scenarios(record);
    for scenario in &scenarios {
        let runs: Vec<&ProfileRun> = record.runs.iter().filter(|r| &r.scenario == scenario).collect();
        doc.push(Block::Table(parts_table(&runs, hz)));
        doc.list(runs.iter().map(|r| breakdown_sentence(r, hz)).collect());
        doc.list(pair_sentences(&runs, hz));
    }
    if !record.runs.is_empty() {
        doc.push(Block::Table(pauses_table(record, &b.summaries)));
        doc.list(record.runs.iter().flat_map(differences).collect());
    }
    doc.list(record.not_profiled.clone());
    if record.runs.iter().any(|r| r.stacks.is_some()) {
        doc.paragraph(
            "In each flame graph a box is a function, its width its share of the profile's samples, each box above \
             the one that called it; the colours carry no meaning. The stacks are those of the folded file, the \
             heaviest up to its bound.",
        );
    }
    for run in &record.runs {
        flame_graph(doc, run);
    }
}

/// The scenarios profiled, in the order of their first run.
fn scenarios(record: &ProfileRecord) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in &record.runs {
        if !out.contains(&r.scenario) {
            out.push(r.scenario.clone());
        }
    }
    out
}

/// µs with one decimal, or an empty cell.
fn us(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v:.1}"))
}

/// The table of one scenario: µs per request per part, the profile's total beside the measured median.
fn parts_table(runs: &[&ProfileRun], hz: u32) -> Table {
    let scenario = runs.first().map_or("", |r| r.scenario.as_str());
    let subject_title = format!("Subject ({scenario}, µs per request)");
    // The totals first, beside the measured median, so that they show before a narrow screen scrolls the parts.
    let mut columns: Vec<(&str, Align)> = vec![
        (subject_title.as_str(), Align::Left),
        ("Profile total", Align::Right),
        ("Measured median", Align::Right),
        ("Profile ÷ measured", Align::Right),
        ("Resolved", Align::Right),
    ];
    columns.extend(Part::ALL.iter().map(|p| (p.label(), Align::Right)));
    let mut t = Table::new(&columns);
    for r in runs {
        let mut row = vec![format!("{} (c={})", r.subject, r.connections)];
        let total = r.cpu_us_per_request(hz);
        let ratio = total.zip(r.measured_cpu_us_per_request).filter(|(_, m)| *m > 0.0).map(|(t, m)| t / m);
        row.extend([
            us(total),
            match r.measured_from_left_out {
                true => format!("{} (runs left out)", us(r.measured_cpu_us_per_request)),
                false => us(r.measured_cpu_us_per_request),
            },
            ratio.map_or(String::new(), |x| match (x - 1.0).abs() * 100.0 <= AGREEMENT_PERCENT {
                true => format!("{x:.2}"),
                false => format!("**{x:.2}**"),
            }),
            r.resolved_percent().map_or(String::new(), |p| format!("{p:.1} %")),
        ]);
        row.extend(Part::ALL.iter().map(|&p| us(r.part_us_per_request(p, hz))));
        t.row(row);
    }
    t
}

/// "node's 21.0 µs on get: 8.1 kernel, 5.0 HTTP, …; 98.7 % of samples resolved".
fn breakdown_sentence(r: &ProfileRun, hz: u32) -> String {
    let Some(total) = r.cpu_us_per_request(hz) else {
        return format!("{} on {}: no request was counted in the profiled window", r.subject, r.scenario);
    };
    let mut parts: Vec<(Part, f64)> = Part::ALL
        .iter()
        .filter_map(|&p| r.part_us_per_request(p, hz).map(|v| (p, v)))
        .filter(|(_, v)| *v > 0.0)
        .collect();
    parts.sort_by(|a, b| b.1.total_cmp(&a.1));
    let listed: Vec<String> = parts.iter().map(|(p, v)| format!("{v:.1} {}", p.label())).collect();
    let resolved = match r.resolved_percent() {
        Some(p) if p >= RESOLVED_ENOUGH_PERCENT => format!("{p:.1} % of samples resolved"),
        Some(p) => format!(
            "**only {p:.1} % of samples resolved** to named functions: below {RESOLVED_ENOUGH_PERCENT:.0} %, its parts \
             are not a breakdown of its code"
        ),
        None => "no samples".to_string(),
    };
    let counted = match r.perf_samples {
        n if n > 0 && n != r.samples => format!("; perf printed {n} samples, the folded stacks hold {}", r.samples),
        _ => String::new(),
    };
    let dropped = match r.folded_dropped_samples {
        0 => String::new(),
        n => format!("; the folded file keeps the heaviest stacks, {n} samples of lighter ones left out of it"),
    };
    format!(
        "{}'s {total:.1} µs per request on {} ({} samples, {} requests in {:.1} s): {}; {resolved}{counted}{dropped}",
        r.subject,
        r.scenario,
        r.samples,
        r.requests,
        r.window_s,
        listed.join(", ")
    )
}

/// One sentence per pair of subjects: the part where their CPU per request differs most.
fn pair_sentences(runs: &[&ProfileRun], hz: u32) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            let diff = |p: Part| Some(b.part_us_per_request(p, hz)? - a.part_us_per_request(p, hz)?);
            let largest = Part::ALL
                .iter()
                .filter_map(|&p| diff(p).map(|d| (p, d)))
                .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()));
            let Some((part, d)) = largest else { continue };
            let (more, less) = if d >= 0.0 { (b, a) } else { (a, b) };
            out.push(format!(
                "{} and {} on {}: the largest difference is in {}, where {} spends {:.1} µs more per request than {}",
                a.subject,
                b.subject,
                a.scenario,
                part.label(),
                more.subject,
                d.abs(),
                less.subject
            ));
        }
    }
    out
}

/// The runtimes' pauses in each profiled window beside the subject's measured tail latency.
fn pauses_table(record: &ProfileRecord, summaries: &[Summary]) -> Table {
    let mut t = Table::new(&[
        ("Subject", Align::Left),
        ("Scenario", Align::Left),
        ("GC pauses", Align::Right),
        ("GC total (ms)", Align::Right),
        ("Longest GC pause (ms)", Align::Right),
        ("Event-loop delay p99 / max (ms)", Align::Right),
        ("Measured p99 latency (ms)", Align::Right),
        ("Measured max latency (ms)", Align::Right),
    ]);
    for r in &record.runs {
        let summary = summaries
            .iter()
            .find(|s| s.subject == r.subject && s.scenario == r.scenario && s.connections == r.connections);
        let (count, total, longest) = match &r.pauses {
            Some(p) => (p.count.to_string(), ms(p.total_ms), ms(p.longest_ms)),
            None => ("not logged".to_string(), String::new(), String::new()),
        };
        t.row(vec![
            r.subject.clone(),
            format!("{} (c={})", r.scenario, r.connections),
            count,
            total,
            longest,
            r.loop_delay.as_ref().map_or(String::new(), |d| format!("{} / {}", ms(d.p99_ms), ms(d.max_ms))),
            summary.map_or(String::new(), |s| ms(s.p99_ms.median)),
            summary.map_or(String::new(), |s| ms(s.max_ms.median)),
        ]);
    }
    t
}

/// What the profiled run of a subject changed from its measured runs (said once per subject).
fn differences(r: &ProfileRun) -> Vec<String> {
    r.differences.iter().map(|d| format!("{} ({}): {d}", r.subject, r.scenario)).collect()
}

/// The flame graph of a run: embedded in HTML, linked from Markdown, written beside the report.
fn flame_graph(doc: &mut Document, r: &ProfileRun) {
    let title = format!("{} {} (c={}): {} samples", r.subject, r.scenario, r.connections, r.samples);
    let file = r.folded_file.strip_suffix(".folded").unwrap_or(&r.folded_file).to_string() + ".svg";
    let id =
        format!("flame-{}-{}", r.subject, r.scenario).replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "-");
    match r.stacks.as_deref().and_then(|s| flame::svg(s, &title, &id)) {
        Some(svg) => doc.chart(file, format!("flame graph {} {}", r.subject, r.scenario), svg, true),
        None => doc.paragraph(format!(
            "No flame graph of {} on {}: its folded stacks ({}) were not found beside `benchmark.json`, or are empty.",
            r.subject, r.scenario, r.folded_file
        )),
    }
}
