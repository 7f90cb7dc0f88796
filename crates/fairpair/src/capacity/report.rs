//! The capacity section: the capacity at the latency objective per subject and scenario (bounds as bounds), the
//! sizing line, one chart per scenario of the latency against the offered rate (the hockey stick), and every step.

use std::fmt::Write;

use crate::capacity::{Bound, CapacityRecord, Outcome, Search, SearchSettings, Verdict, sizing_line};
use crate::report::document::{Align, Block, Document, Table};
use crate::report::ratios::{baseline, percent_text, ratio_text};
use crate::report::svg::{COLOURS, esc, opening, short};
use crate::schema::{Benchmark, Disturbance};
use crate::text::thousands;

/// The traffic the sizing line sizes for: the decision section's when `--traffic` is not given, so that the two
/// never size for different figures.
const SIZING_TARGET_RPS: f64 = crate::decision::DEFAULT_TRAFFIC_RPS;

pub(crate) fn capacity(doc: &mut Document, b: &Benchmark) {
    let Some(c) = &b.capacity else { return };
    let s = &c.settings;
    doc.heading(2, format!("Capacity at {}", s.objective));
    let limit = match (&c.loader_limit, c.loader_limit_rps()) {
        (_, Some(l)) => format!(
            "The loader's own open-loop limit, the same search against the ceiling, is **{}/s**; a capacity of 80 % \
             of it or more is the loader's figure as much as the subject's, and is printed as a bound (`≥`).",
            thousands(l)
        ),
        (Some(l), None) => format!(
            "The loader's own open-loop limit was not found ({}): no capacity is printed as its bound, though one \
             above a rate the loader's search missed is no capacity (see below the table).",
            l.figure()
        ),
        // `--quick` searches no loader's limit: neither rule has a figure to check against there, and its
        // capacities, cold and at 25 %, are rough anyway (the summary gives no ratio of them).
        (None, None) => "The loader's own open-loop limit was not measured: no capacity is checked against it, \
                         neither as a bound nor for a rate the machine itself cannot meet the objective at."
            .into(),
    };
    let held = "A capacity just below a step the loader did not hold (achieved under 95 % of asked, at a rate the \
                subject served in its closed-loop run) is a bound too: that step may have failed for the loader's sake. \
                So is a capacity with no failing step above it (the search reached its cap still stepping up). The \
                loader's limit is searched on GET: a POST capacity is compared with it too, though the loader's own \
                POST limit may be lower.";
    doc.paragraph(method(c, &limit, held));
    doc.push(Block::Table(table(b, c)));
    doc.list(above_closed_loop(c));
    if let Some(note) = unresolved_note(c) {
        doc.push(Block::Note(note));
    }
    let busy = c.searches.iter().chain(&c.loader_limit).flat_map(|s| &s.steps).any(|s| !s.result.machine_idle);
    rest(doc, b, c, busy);
}

/// The method paragraph: what a capacity is and how the search finds it (the one of files written before a rate
/// was decided by several windows, with its repeat, for those).
fn method(c: &CapacityRecord, limit: &str, held: &str) -> String {
    let s = &c.settings;
    if s.max_windows > 1 {
        return format!(
            "The highest offered rate at which {obj} holds in most windows, every request answered with the expected \
             status, none aborted and the rate held (achieved ≥ 95 % of asked). Each window is an open-loop run with \
             {tool} on a fresh server at a fixed rate (`-q RATE --latency-correction -w`, {conns} connections, {w} s \
             warm-up, {d} s measured): latencies count from each request's scheduled start, so a server that falls \
             behind shows its queue. A rate is decided by its windows: {rule} The search starts at 90 % of the subject's \
             closed-loop throughput, halves until a rate is met (a rate missed by its first window is left there, \
             as not met, until the search brackets the capacity), doubles until one is not, and bisects to within \
             {res} %{confirm}. The capacity is the highest rate decided met, given with its bracket: up to the lowest \
             rate decided missed. A search stops at {cap} windows, with the bracket it has then.{disturbed} {limit} \
             {held}",
            obj = s.objective,
            tool = c.tool,
            conns = s.connections,
            w = s.warmup_s,
            d = s.step_s,
            rule = rule(s),
            res = s.resolution_percent,
            cap = s.max_steps,
            confirm = confirm_text(s),
            disturbed = disturbed_rule(c),
        );
    }
    format!(
        "The highest offered rate at which every request is answered with the expected status, none is aborted, the \
         loader holds the rate (achieved ≥ 95 % of asked) and {obj} holds. Each step is an open-loop run with {tool} \
         at a fixed rate (`-q RATE --latency-correction -w`, {conns} connections, {w} s warm-up, {d} s measured): \
         latencies count from each request's scheduled start, so a server that falls behind shows its queue. The \
         search starts at 90 % of the subject's closed-loop throughput, halves the rate until a step passes (or, \
         when the objective holds at the closed-loop throughput, tries above it: one resolution step, then doubling, \
         until a step fails), bisects to within {res} % and repeats the result; the change on repeat is the objective \
         percentile's difference between the two passing runs, a latency change. A search stops at {cap} steps and \
         then gives its last passing rate, unconfirmed (a bound, `≥`, when no step above it failed). {limit} {held}",
        cap = s.max_steps,
        obj = s.objective,
        tool = c.tool,
        conns = s.connections,
        w = s.warmup_s,
        d = s.step_s,
        res = s.resolution_percent,
    )
}

/// The confirmation of a closing bracket's ends, in the files whose search did it.
fn confirm_text(s: &SearchSettings) -> String {
    let c = crate::capacity::confirming(s);
    match s.confirm_ends {
        true => format!(
            ", where both ends of the bracket are decided again by a lead of {}, up to {} windows",
            c.margin(),
            c.max_windows
        ),
        false => String::new(),
    }
}

/// The disturbance rule, in the files whose windows read the other processes' CPU (none before they did).
fn disturbed_rule(c: &CapacityRecord) -> String {
    use crate::run::disturbance::{DISTURBED_SLICE_MS, DISTURBED_TOTAL_MS};
    let steps = c.searches.iter().chain(&c.loader_limit).flat_map(|s| &s.steps);
    let read = steps.filter_map(|s| s.result.disturbance).any(|d| d.others_cpu_ms.is_some());
    match read {
        true => format!(
            " A window in which other processes ran {DISTURBED_SLICE_MS} ms within 0.1 s, or {DISTURBED_TOTAL_MS} ms \
             over the window, was disturbed: it is run again (once a rate) and counts in no verdict."
        ),
        false => String::new(),
    }
}

/// How the file's search decided a rate from its windows: by a lead of its margin, or (files written before the
/// margin) by a Wilson interval.
fn rule(s: &SearchSettings) -> String {
    let win = s.max_windows;
    match s.margin {
        Some(m) => format!(
            "met once the windows meeting the objective outnumber those missing it by {m}, missed once those missing \
             it outnumber the others by {m}, otherwise one more window, up to {win}, after which the majority decides \
             (a tie is undecided, neither)."
        ),
        None => format!(
            "met when the 80 % Wilson interval of the share of its windows meeting the objective lies above one half, \
             missed when below, otherwise one more window, up to {win}, after which it is undecided (neither)."
        ),
    }
}

/// The note on capacities above the rate at which the loader's own search missed the objective: they are no
/// capacities this machine resolved. `None` when there are none.
fn unresolved_note(c: &CapacityRecord) -> Option<String> {
    let from = c.unresolved_from()?;
    let who: Vec<String> = c
        .searches
        .iter()
        .filter(|s| c.unresolved(s).is_some())
        .map(|s| format!("{} on {}", s.subject, s.scenario))
        .collect();
    (!who.is_empty()).then(|| {
        format!(
            "**Not capacities: {}.** The loader's own search, against the ceiling (a fixed response that costs the \
             server nothing), missed {} at {}/s: at and above that rate this machine cannot show the objective met, \
             loader and all, so a subject that met it higher up measured the machine's noise, not its own limit. No \
             ratio or sizing is drawn from them; rerun on a quieter machine, or with the loader on its own cores.",
            who.join(", "),
            c.settings.objective,
            thousands(from)
        )
    })
}

/// The notes on busy and cold steps, the sizing lines, the charts and the steps table.
fn rest(doc: &mut Document, b: &Benchmark, c: &CapacityRecord, busy: bool) {
    let s = &c.settings;
    if busy {
        doc.push(Block::Note(
            "**Steps began on a busy machine** (other processes above the idle threshold after the bounded wait; \
             counted in the table): a capacity is the machine's as much as the subject's, so such a figure is no \
             verdict on the subject, and no sizing is drawn from it; rerun on an idle machine."
                .into(),
        ));
    }
    // Steps without a warm-up (`--quick`) measure a freshly started server: a runtime that compiles as it runs
    // (Node's JIT) pays most, so the figures are not each subject's capacity, and no sizing is drawn from them.
    let cold = s.warmup_s == 0;
    if cold {
        doc.push(Block::Note(
            "**Steps without a warm-up** (`--quick`): each step measured a freshly started server, so a runtime that \
             compiles as it runs (Node's JIT) is measured cold. These capacities are a smoke test of the search, not \
             the subjects' figures, and no sizing is drawn from them; the default plan warms up each step."
                .into(),
        ));
    }
    // A subject whose windows measured its warm-up (a JVM's JIT on a fresh process) keeps its steps, but its figure
    // is no capacity: it gets no sizing, and the reader is told why.
    let mut warming: Vec<String> =
        c.searches.iter().filter_map(|s| crate::analyse::warmup::warming_in_windows(b, &s.subject)).collect();
    warming.dedup();
    for why in &warming {
        doc.push(Block::Note(format!(
            "**No capacity to quote**: {why}. Its figure above is a fresh process's, not its capacity: no ratio or \
             sizing is drawn from it. Its capacity needs windows that warm each fresh process up for as long as the probe \
             shows, which this search does not do."
        )));
    }
    let mut scenarios: Vec<&str> = c.searches.iter().map(|s| s.scenario.as_str()).collect();
    scenarios.dedup();
    let one_core: Vec<&str> = b.subjects.iter().filter(|r| r.workers == Some(1)).map(|r| r.name.as_str()).collect();
    let lines: Vec<String> = scenarios
        .iter()
        .filter_map(|scenario| {
            let of: Vec<(&str, &Search)> = c
                .searches
                .iter()
                .filter(|s| s.scenario == *scenario && one_core.contains(&s.subject.as_str()))
                .filter(|s| c.unresolved(s).is_none())
                .filter(|s| crate::analyse::warmup::warming_in_windows(b, &s.subject).is_none())
                .map(|s| (s.subject.as_str(), s))
                .collect();
            sizing_line(&s.objective, scenario, &of, SIZING_TARGET_RPS)
        })
        .collect();
    if !busy && !cold {
        doc.list(lines);
    }
    for scenario in &scenarios {
        let alt = format!("latency against offered rate, {scenario}");
        doc.chart(format!("capacity-{scenario}.svg"), alt, chart(c, scenario), true);
    }
    doc.push(Block::Table(steps_table(c)));
}

/// A sentence for each capacity above the closed-loop throughput its search started from, which a reader would
/// otherwise take for an error: the two loops load a server differently.
fn above_closed_loop(c: &CapacityRecord) -> Vec<String> {
    c.searches
        .iter()
        .filter(|s| s.upper_from == "closed-loop")
        .filter_map(|s| Some((s, s.capacity().filter(|&cap| cap > s.upper_rps)?)))
        .map(|(s, cap)| {
            format!(
                "{}'s capacity on {} ({}/s) is above its closed-loop throughput ({}/s, {} connections): a closed loop \
                 sends each connection's next request only once its answer is in, so a stall on every answer (Nagle's \
                 algorithm with delayed ACK, a slow accept, a lock) holds all of them back, where an open loop's \
                 arrivals are spread in time and do not wait on one another. The Diagnoses section says whether a \
                 known stall matches.",
                s.subject,
                s.scenario,
                thousands(cap),
                thousands(s.upper_rps),
                c.settings.connections
            )
        })
        .collect()
}

/// The repeat's column: how far the two passing steps' latency moved, or, for an unconfirmed capacity, whether a
/// repeat was tried and failed (a search whose repeat missed the objective was once labelled "not repeated").
fn repeat_text(s: &Search, windows: bool) -> String {
    match s.outcome {
        // The windows at the capacity's rate, which decided it: how far apart their percentile was.
        Outcome::Found { spread_percent, .. } if windows => {
            let n = s.steps.iter().filter(|st| Some(st.rate_asked) == s.capacity() && st.counts()).count();
            format!("{spread_percent:.0} % over {n} windows")
        }
        Outcome::Found { spread_percent, confirmed: true, .. } => format!("{spread_percent:.0} %"),
        Outcome::Found { .. } => match s.steps.iter().rev().find(|step| step.repeat && step.missed.is_some()) {
            Some(step) => format!(
                "repeated at {}/s, failed ({})",
                thousands(step.rate_asked),
                step.missed.as_deref().unwrap_or("missed the objective")
            ),
            None => "not repeated".into(),
        },
        _ => "—".into(),
    }
}

fn table(b: &Benchmark, c: &CapacityRecord) -> Table {
    let base = baseline(b);
    let ratio_title = format!("ratio to {}", base.unwrap_or("the baseline"));
    // The repeat's change is in latency (the objective's first percentile), not in requests/s: said in the title.
    let windows = c.settings.max_windows > 1;
    let what = if windows { "spread at the capacity" } else { "change on repeat" };
    let repeat_title = match c.settings.objective.0.first() {
        Some(first) => format!("{} {what}", first.percentile.label()),
        None => what.into(),
    };
    let mut t = Table::new(&[
        ("subject", Align::Left),
        ("scenario", Align::Left),
        ("capacity", Align::Right),
        (repeat_title.as_str(), Align::Right),
        ("share of loader's limit", Align::Right),
        (ratio_title.as_str(), Align::Right),
        ("closed-loop throughput (start)", Align::Right),
        ("steps (on a busy machine)", Align::Right),
    ]);
    let limit = c.loader_limit_rps();
    for s in &c.searches {
        let base_search = c.searches.iter().find(|o| Some(o.subject.as_str()) == base && o.scenario == s.scenario);
        let spread = repeat_text(s, windows);
        // A capacity above the limit means the loader held more against this subject than against the ceiling (a
        // POST, say, against a GET limit): no share above 100 % is printed as a figure.
        let share = match (s.capacity(), limit) {
            (Some(cap), Some(l)) if cap > l => "100 % (the loader held more here than against the ceiling)".into(),
            (Some(cap), Some(l)) => format!("{} %", percent_text(cap / l * 100.0)),
            _ => "—".into(),
        };
        t.row(vec![
            s.subject.clone(),
            s.scenario.clone(),
            match c.unresolved(s) {
                Some(from) => {
                    format!("not a capacity: met at {}/s, above {}/s (see below)", thousands_of(s), thousands(from))
                }
                None => s.figure(),
            },
            spread,
            share,
            match base_search.filter(|o| [s, *o].iter().all(|x| c.unresolved(x).is_none())) {
                // Either side's windows measured a warm-up: the ratio would be the warm-up's (see the note).
                Some(o)
                    if [s, o].iter().any(|x| crate::analyse::warmup::warming_in_windows(b, &x.subject).is_some()) =>
                {
                    "— (warm-up, see below)".into()
                }
                o => o.map_or("—".into(), |o| ratio_to(s, o)),
            },
            format!("{}/s ({})", thousands(s.upper_rps), s.upper_from),
            format!("{} ({})", s.steps.len(), s.steps.iter().filter(|st| !st.result.machine_idle).count()),
        ]);
    }
    t
}

/// `a / b`, as a bound when either is one: `≥` when only `a` is a bound, `≤` when only `b` is, nothing when both.
fn ratio_to(a: &Search, b: &Search) -> String {
    match (a.capacity(), b.capacity()) {
        (Some(x), Some(y)) if y > 0.0 => match (a.bound, b.bound) {
            (false, false) => format!("{}×", ratio_text(x / y)),
            // A bound that allows either answer (at least something under 1×, at most something over) is none.
            (true, false) if x < y => "— (a lower bound under 1× says nothing)".into(),
            (false, true) if x > y => "— (an upper bound over 1× says nothing)".into(),
            (true, false) => format!("≥ {}×", ratio_text(x / y)),
            (false, true) => format!("≤ {}×", ratio_text(x / y)),
            (true, true) => "— (both bounds)".into(),
        },
        _ => "—".into(),
    }
}

/// A capacity's figure alone, `12,345`.
fn thousands_of(s: &Search) -> String {
    s.capacity().map_or("—".into(), thousands)
}

/// What a window settled of its rate: `rate met (2 of 2 windows)`, or nothing when it settled nothing.
fn rate_text(search: &Search, i: usize) -> String {
    let step = &search.steps[i];
    let Some(verdict) = step.verdict else { return String::new() };
    let same: Vec<&crate::capacity::Step> =
        search.steps[..=i].iter().filter(|s| s.rate_asked == step.rate_asked && s.counts()).collect();
    let met = same.iter().filter(|s| s.passed()).count();
    let word = match verdict {
        Verdict::Met => "met",
        Verdict::Missed => "missed",
        Verdict::Undecided => "undecided",
    };
    format!("; rate {word} ({met} of {} windows met)", same.len())
}

/// Why a window was run again: the others' CPU that decided it, or, in a file written before that was read, the
/// machine's stall beyond the subject's and the loader's own wait (the rule then).
fn disturbed_text(d: Option<Disturbance>) -> String {
    use crate::run::disturbance::{DISTURBED_SLICE_MS, DISTURBED_TOTAL_MS};
    match d.and_then(|d| d.others_cpu_ms.zip(d.others_max_slice_ms)) {
        Some((_, slice)) if slice >= DISTURBED_SLICE_MS => {
            format!("other processes ran {slice:.1} ms within 0.1 s")
        }
        Some((total, _)) if total >= DISTURBED_TOTAL_MS => format!("other processes ran {total:.1} ms in the window"),
        _ => "the machine stalled beyond the two's own wait".into(),
    }
}

fn steps_table(c: &CapacityRecord) -> Table {
    let mut t = Table::new(&[
        ("search", Align::Left),
        ("#", Align::Right),
        ("asked/s", Align::Right),
        ("achieved/s", Align::Right),
        ("p50 ms", Align::Right),
        ("p99 ms", Align::Right),
        ("p99.9 ms", Align::Right),
        ("errors · aborted", Align::Right),
        ("others' CPU ms (busiest 0.1 s)", Align::Right),
        ("CPU stall · own run delay ms", Align::Right),
        ("verdict", Align::Left),
    ]);
    let limit = c.loader_limit.iter().map(|s| (format!("loader's limit (ceiling {})", s.scenario), s));
    let all = limit.chain(c.searches.iter().map(|s| (format!("{} {}", s.subject, s.scenario), s)));
    for (name, search) in all {
        for (i, step) in search.steps.iter().enumerate() {
            let r = &step.result;
            let verdict = match (&step.missed, step.repeat) {
                (None, false) => "met".to_string(),
                (None, true) => "met (repeat)".to_string(),
                (Some(why), repeat) => format!("missed{}: {why}", if repeat { " (repeat)" } else { "" }),
            };
            let verdict = match step.counts() {
                true => format!("{verdict}{}", rate_text(search, i)),
                false => format!("{verdict}; disturbed ({}): run again", disturbed_text(r.disturbance)),
            };
            let verdict = if r.machine_idle { verdict } else { format!("{verdict} (busy machine)") };
            t.row(vec![
                name.clone(),
                (i + 1).to_string(),
                thousands(step.rate_asked),
                thousands(r.achieved_rps),
                format!("{:.2}", r.latency.p50_ms),
                format!("{:.2}", r.latency.p99_ms),
                r.latency.p99_9_ms.map_or("n/r".into(), |v| format!("{v:.2}")),
                format!("{} · {}", r.errors + r.unexpected, r.aborted),
                // Other processes' CPU over the window and in its busiest slice: what decides a disturbance.
                r.disturbance
                    .and_then(|d| Some(format!("{:.1} ({:.1})", d.others_cpu_ms?, d.others_max_slice_ms?)))
                    .unwrap_or_else(|| "—".into()),
                // The machine's CPU stall over the window, and the subject's and the loader's own run-queue wait.
                r.disturbance.map_or("—".into(), |d| {
                    format!("{:.1} · {:.1}", d.cpu_stall_ms, d.subject_run_delay_ms + d.loader_run_delay_ms)
                }),
                verdict,
            ]);
        }
    }
    t
}

// The capacity chart's size and margins (taller than the bar charts, with room for the capacities' labels).
const W: f64 = 760.0;
const H: f64 = 400.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 80.0;
const PLOT_W: f64 = W - LEFT - RIGHT;
const PLOT_H: f64 = H - TOP - BOTTOM;

/// One step on the chart: the offered rate, the objective's percentile (ms), and whether the step met the objective.
type Point = (f64, f64, bool);

/// The hockey stick of one scenario: the objective's percentile (log scale) against the offered rate, a line per
/// subject through its steps (a filled dot met the objective, a hollow one missed it), the objective as a dashed
/// line, and each capacity marked by a vertical line.
fn chart(c: &CapacityRecord, scenario: &str) -> String {
    let bound = c.settings.objective.0[0];
    let searches: Vec<&Search> = c.searches.iter().filter(|s| s.scenario == scenario).collect();
    let all: Vec<Point> = searches.iter().flat_map(|s| points(s, &bound)).collect();
    let scale = Scale::new(&all, bound.max_ms);
    let mut s = String::new();
    let title = format!("{} against offered rate, {scenario} (ms, log scale)", bound.percentile.label());
    axes(&mut s, &scale, &title);
    // The chart draws the objective's first percentile, so its line is that bound alone; a step can still be hollow
    // below it when another bound of the objective (or an error, or a rate not held) missed.
    objective_line(&mut s, &scale, bound.max_ms, &format!("{} ≤ {} ms", bound.percentile.label(), bound.max_ms));
    for (i, search) in searches.iter().enumerate() {
        subject_line(&mut s, &scale, i, search, &points(search, &bound));
    }
    s.push_str("</svg>\n");
    s
}

/// A search's steps that have the objective's percentile, by offered rate (a latency below 0.01 ms drawn at 0.01,
/// which the log axis can hold).
fn points(s: &Search, bound: &Bound) -> Vec<Point> {
    let mut p: Vec<Point> = s
        .steps
        .iter()
        .filter_map(|st| bound.percentile.of(&st.result.latency).map(|v| (st.rate_asked, v.max(0.01), st.passed())))
        .collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p
}

/// Where values lie on the chart: the offered rate linear from 0 to a little past the highest step, the latency
/// logarithmic between the powers of ten around every step and the objective.
struct Scale {
    x_max: f64,
    lo: i32,
    hi: i32,
}

impl Scale {
    fn new(all: &[Point], objective_ms: f64) -> Scale {
        let x_max = all.iter().map(|p| p.0).fold(1.0, f64::max) * 1.05;
        let (lo, hi) = all
            .iter()
            .map(|p| p.1)
            .chain([objective_ms])
            .fold((f64::INFINITY, 0.0_f64), |(l, h), v| (l.min(v), h.max(v)));
        let (lo, hi) = (lo.log10().floor() as i32, (hi.log10().ceil() as i32).max(lo.log10().floor() as i32 + 1));
        Scale { x_max, lo, hi }
    }

    fn x(&self, v: f64) -> f64 {
        LEFT + v / self.x_max * PLOT_W
    }

    fn y(&self, v: f64) -> f64 {
        TOP + PLOT_H - (v.log10() - self.lo as f64) / (self.hi - self.lo) as f64 * PLOT_H
    }
}

/// The opening of the chart: the `<svg>` element, a white background, the title, the latency gridlines at each power
/// of ten, and the offered rate's ticks and label.
fn axes(s: &mut String, scale: &Scale, title: &str) {
    opening(s, W, H, title);
    for e in scale.lo..=scale.hi {
        let (v, yy) = (10f64.powi(e), scale.y(10f64.powi(e)));
        let _ =
            writeln!(s, r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#dddddd"/>"##, W - RIGHT);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, yy + 4.0, short(v));
    }
    for i in 0..=5 {
        let v = scale.x_max / 5.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            scale.x(v),
            TOP + PLOT_H + 18.0,
            short(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">offered rate (requests/s)</text>"#,
        LEFT + PLOT_W / 2.0,
        TOP + PLOT_H + 36.0
    );
}

/// The objective's bound as a dashed red line across the chart, labelled with the objective.
fn objective_line(s: &mut String, scale: &Scale, max_ms: f64, objective: &str) {
    let oy = scale.y(max_ms);
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{oy:.1}" x2="{:.1}" y2="{oy:.1}" stroke="#cc0000" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#cc0000">objective {}</text>"##,
        W - RIGHT,
        W - RIGHT,
        oy - 5.0,
        esc(objective)
    );
}

/// One subject (the `i`-th search): its line through the steps, a dot per step (hollow where it missed), its
/// capacity as a dotted vertical line with its figure, and its entry in the legend.
fn subject_line(s: &mut String, scale: &Scale, i: usize, search: &Search, points: &[Point]) {
    let colour = COLOURS[i % COLOURS.len()];
    let path: Vec<String> = points.iter().map(|(r, v, _)| format!("{:.1},{:.1}", scale.x(*r), scale.y(*v))).collect();
    let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#, path.join(" "));
    for (r, v, passed) in points {
        let fill = if *passed { colour } else { "white" };
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{fill}" stroke="{colour}" stroke-width="2"><title>{} at {}/s: {v:.2} ms</title></circle>"#,
            scale.x(*r),
            scale.y(*v),
            esc(&search.subject),
            thousands(*r)
        );
    }
    if let Some(cap) = search.capacity() {
        let xx = scale.x(cap);
        let at_least = if search.bound { "≥ " } else { "" };
        let label = format!(
            "{} {at_least}{}/s{}",
            search.subject,
            thousands(cap),
            if search.unconfirmed() { " (unconfirmed)" } else { "" }
        );
        // Right of its line, or left of it in the chart's right part, so that the label stays on the chart.
        let (tx, anchor) = if xx > LEFT + PLOT_W * 0.6 { (xx - 3.0, "end") } else { (xx + 3.0, "start") };
        let _ = writeln!(
            s,
            r#"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="{colour}" stroke-dasharray="2 3"/><text x="{tx:.1}" y="{:.1}" text-anchor="{anchor}" fill="{colour}">{}</text>"#,
            TOP + PLOT_H,
            TOP + 12.0 + 14.0 * i as f64,
            esc(&label)
        );
    }
    let lx = LEFT + 160.0 * i as f64;
    let _ = writeln!(
        s,
        r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="12" fill="{colour}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
        H - 22.0,
        lx + 16.0,
        H - 12.0,
        esc(&search.subject)
    );
}
