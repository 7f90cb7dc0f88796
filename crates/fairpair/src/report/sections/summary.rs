//! The answer first: the report opens with one line naming the machine and the run, a table of each subject's
//! headline figures as ratios to the baseline, each with how far to trust it in words ("0.29× (beyond the noise)",
//! "≤ 0.41× (rust is loader-limited)": an upper bound, and why), and the few facts a reader must know before quoting them.
//! The console's closing lines are the same verdicts ([`lines`]), so the terminal and the report cannot disagree.
//!
//! The ratios run one way everywhere in the report: a subject's figure over the baseline's.

use crate::analyse::stats::{self, Stat};
use crate::report::document::{Align, Document, Table};
use crate::report::ratios::{Bound, baseline, loader_limit, ratio, ratio_text};
use crate::schema::{Benchmark, CapacityRecord, FlagKind, SubjectKind, Summary};
use crate::text::{count, thousands};

/// A figure the summary leads with: one column of its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Headline {
    Throughput,
    P99,
    CpuPerRequest,
    /// The capacity at the latency objective (`capacity/`): a column only when the run searched for it, kept in the
    /// cell of the search's connection count.
    Capacity,
}

impl Headline {
    pub const ALL: [Headline; 4] = [Headline::Throughput, Headline::P99, Headline::CpuPerRequest, Headline::Capacity];

    pub fn label(self) -> &'static str {
        match self {
            Headline::Throughput => "throughput",
            Headline::P99 => "p99 latency",
            Headline::CpuPerRequest => "CPU per request",
            Headline::Capacity => "capacity at the SLO",
        }
    }

    /// The headlines of `b`: the capacity only when it was searched for.
    fn of(b: &Benchmark) -> Vec<Headline> {
        if searched_only(b).is_some() {
            return vec![Headline::Capacity];
        }
        Headline::ALL.into_iter().filter(|h| *h != Headline::Capacity || b.capacity.is_some()).collect()
    }

    /// A closed-loop figure of a cell; the capacity is not one (see [`capacity_answer`]).
    fn figure(self, s: &Summary) -> Option<&Stat> {
        match self {
            Headline::Throughput => Some(&s.requests_per_sec),
            Headline::P99 => Some(&s.p99_ms),
            Headline::CpuPerRequest => s.server_cpu_us_per_request.as_ref(),
            Headline::Capacity => None,
        }
    }

    fn higher_is_better(self) -> bool {
        self == Headline::Throughput
    }

    /// CPU per request is the server's own time for each answer: a loader that cannot push harder does not change
    /// it, so it is never a bound.
    fn loader_distorts(self) -> bool {
        self != Headline::CpuPerRequest
    }
}

/// How far one ratio can be trusted.
#[derive(Clone, Debug, PartialEq)]
pub enum Trust {
    /// The two subjects' min–max ranges do not overlap.
    BeyondNoise,
    WithinNoise,
    /// One run a side: nothing is known of the noise.
    OneRun,
    /// Two capacities within one resolution step of each other: the search cannot tell them apart.
    WithinResolution,
    /// Two capacities further apart than the resolution, each from one search: their spread over repeated searches
    /// is not measured in a run.
    OneSearch,
    /// One side has no capacity: why, with whose it is.
    NoCapacity(String),
    /// Two capacities with their brackets: the ratio of the two brackets is a bracket, from the lowest the ratio can
    /// be (the one's low end over the other's high end) to the highest (`None`: unbounded, where a bracket has no
    /// high end). One search each, whose spread over repeated searches a run does not measure.
    Brackets {
        low: Option<f64>,
        high: Option<f64>,
    },
    /// A side's capacity is above the rate at which the loader's own search missed the objective: the machine
    /// cannot resolve the objective there, so that figure is no capacity, and no ratio is given (why, named).
    Unresolved(String),
    /// The figure belongs to another cell (a capacity is searched at one connection count).
    OtherCell,
    /// One side was held by the loader: the true ratio is at least (or at most) this. `why` names who and how.
    Bound {
        at_least: bool,
        why: String,
    },
    /// Both sides were held by the loader: the ratio compares the loader with itself.
    BothHeld,
    /// Both capacities are lower bounds (the loader's, or the search's own): nothing is known of their ratio.
    BothBounds,
    /// A capacity the search gave at its cap of steps, unconfirmed (whose, named): the ratio is no figure to quote.
    Unconfirmed(String),
    /// A bound on the side that says nothing: a lower bound under 1×, or an upper bound over 1× (`why` names whose
    /// figure is a bound). "At least 0.93×" allows anything from slower to faster, so no ratio is given.
    NoInformation(String),
    /// Capacities from steps with no warm-up (`--quick`): a JIT-compiled server is measured cold, and its ratio to
    /// a compiled one would be the warm-up's, not the server's. The Capacity section keeps the steps.
    Cold,
    /// A side's capacity windows measured its warm-up (its warm-up probe says so: why, named), so its capacity is
    /// no figure to compare.
    Warming(String),
    /// Every run of a side was left out (its reason, shortened).
    LeftOut(String),
    NotMeasured,
}

/// One cell of the summary: a ratio and how far to trust it.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub ratio: Option<f64>,
    pub trust: Trust,
}

impl Answer {
    /// `0.29× (beyond the noise)`, `≤ 0.41× (rust is loader-limited)` (an upper bound), `left out: …`.
    pub fn text(&self) -> String {
        let r = self.ratio.map_or("—".into(), ratio_text);
        match &self.trust {
            Trust::BeyondNoise => format!("{r}× (beyond the noise)"),
            Trust::WithinNoise => format!("{r}× (within the noise)"),
            Trust::OneRun => format!("{r}× (one run: noise not measured)"),
            Trust::WithinResolution => format!("{r}× (within the search's resolution)"),
            Trust::OneSearch => format!("{r}× (one search each: noise not measured)"),
            Trust::NoCapacity(why) => why.clone(),
            Trust::Brackets { low, high } => brackets_text(&r, *low, *high),
            Trust::Unresolved(why) => format!("no ratio ({why})"),
            Trust::OtherCell => "—".into(),
            // The sign says which bound, and the words why: the table's preamble explains the signs, so that a
            // row of four subjects' bounds stays on one line of the first screen.
            Trust::Bound { at_least: true, why } => format!("≥ {r}× ({why})"),
            Trust::Bound { at_least: false, why } => format!("≤ {r}× ({why})"),
            Trust::BothHeld => "no ratio (both held by the loader)".into(),
            Trust::BothBounds => "no ratio (both capacities are bounds)".into(),
            Trust::Unconfirmed(who) => format!("{r}× ({who} unconfirmed: the search reached its cap of steps)"),
            Trust::NoInformation(why) => {
                let side = if self.ratio.is_some_and(|x| x < 1.0) {
                    "a lower bound under 1×"
                } else {
                    "an upper bound over 1×"
                };
                format!("no ratio ({why}, and {side} says nothing)")
            }
            Trust::Cold => "no ratio (cold: --quick steps have no warm-up)".into(),
            Trust::Warming(who) => format!("no ratio ({who}'s capacity windows measured its warm-up: see Warm-up)"),
            Trust::LeftOut(reason) => format!("left out: {reason}"),
            Trust::NotMeasured => "not measured".into(),
        }
    }
}

/// `0.45× (bracket 0.40–0.52×; one search each: …)`; a bracket that holds 1× cannot tell the two apart, and says
/// so. A side without a high end leaves the ratio's bracket open at one end.
fn brackets_text(r: &str, low: Option<f64>, high: Option<f64>) -> String {
    let apart = if low.unwrap_or(0.0) <= 1.0 && high.is_none_or(|h| h >= 1.0) {
        "the brackets overlap, so the search does not tell the two apart"
    } else {
        "one search each: noise not measured"
    };
    let bracket = match (low, high) {
        (Some(l), Some(h)) => format!("bracket {}–{}×", ratio_text(l), ratio_text(h)),
        (Some(l), None) => format!("bracket from {}×, no upper end", ratio_text(l)),
        (None, Some(h)) => format!("bracket up to {}×, no lower end", ratio_text(h)),
        (None, None) => "no bracket".into(),
    };
    format!("{r}× ({bracket}; {apart})")
}

/// One row: a subject against the baseline, in one cell ("get, 50 connections") or for memory and start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub subject: String,
    pub place: String,
    pub answers: Vec<Answer>,
}

/// The memory columns: measured once per subject, not per cell.
const MEMORY: [&str; 3] = ["idle RSS", "after-load RSS", "start-up"];

/// Everything the summary says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdicts {
    pub line: String,
    pub baseline: Option<String>,
    /// The columns of `cells`, in order.
    pub headlines: Vec<Headline>,
    pub cells: Vec<Row>,
    pub memory: Vec<Row>,
    /// The few facts to know before quoting a figure, most important first.
    pub notes: Vec<String>,
    /// The subjects that implement the API but were not measured (did not start, not ready, failed verification).
    pub unmeasured: Vec<String>,
}

/// The summary of `b` (already [`crate::report::marked`]).
pub fn verdicts(b: &Benchmark, cells: &[(String, u32)]) -> Verdicts {
    let base = baseline(b).map(str::to_owned);
    // A run that only searched for capacity (`--capacity-only`) has no closed-loop cell: its rows are the searches'.
    let searched = searched_only(b);
    let mut search_cells: Vec<(String, u32)> = Vec::new();
    for s in searched.iter().flat_map(|c| &c.searches) {
        let cell = (s.scenario.clone(), searched.map_or(0, |c| c.settings.connections));
        if !search_cells.contains(&cell) {
            search_cells.push(cell);
        }
    }
    let cells = if searched.is_some() { &search_cells[..] } else { cells };
    let others: Vec<&str> = b
        .subjects
        .iter()
        .filter(|s| !s.get_only && Some(&s.name) != base.as_ref())
        .map(|s| s.name.as_str())
        .filter(|n| {
            b.runs.iter().any(|r| r.subject == *n)
                || searched.is_some_and(|c| c.searches.iter().any(|s| s.subject == *n))
        })
        .collect();
    let unmeasured = b
        .subjects
        .iter()
        .filter(|s| !s.get_only && !crate::report::ratios::measured(b, &s.name))
        .map(|s| s.name.clone())
        .collect();
    let mut v =
        Verdicts { line: run_line(b), notes: notes(b), headlines: Headline::of(b), unmeasured, ..Default::default() };
    let Some(base_name) = base.as_deref() else { return v };
    for other in &others {
        for (scenario, conns) in cells {
            let answers = v.headlines.iter().map(|h| cell_answer(b, other, base_name, scenario, *conns, *h)).collect();
            let place = format!("{scenario}, {}", count(u64::from(*conns), "connection"));
            v.cells.push(Row { subject: other.to_string(), place, answers });
        }
    }
    if let Some(mb) = b.memory_summary(base_name) {
        for other in &others {
            let Some(ma) = b.memory_summary(other) else { continue };
            let pairs = [
                (ma.idle_rss_kib.clone(), mb.idle_rss_kib.clone()),
                (ma.after_rss_kib.clone(), mb.after_rss_kib.clone()),
                (ma.startup_ms.clone(), mb.startup_ms.clone()),
            ];
            let answers =
                pairs.iter().map(|(a, b)| Answer { ratio: ratio(a.median, b.median), trust: noise(a, b) }).collect();
            v.memory.push(Row { subject: other.to_string(), place: "memory and start-up".into(), answers });
        }
    }
    v.baseline = base;
    v
}

fn cell_answer(b: &Benchmark, other: &str, base: &str, scenario: &str, conns: u32, h: Headline) -> Answer {
    if h == Headline::Capacity {
        return capacity_answer(b, other, base, scenario, conns);
    }
    let (Some(sa), Some(sb)) = (b.summary(other, scenario, conns), b.summary(base, scenario, conns)) else {
        let missing = if b.summary(other, scenario, conns).is_none() { other } else { base };
        let reason = b
            .runs
            .iter()
            .find(|r| r.subject == missing && r.scenario == scenario && r.connections == conns)
            .and_then(|r| r.left_out.as_deref());
        // A reason's details in parentheses are in the Left out section; the summary keeps its first clause.
        let trust = reason.map_or(Trust::NotMeasured, |r| {
            Trust::LeftOut(format!("{missing}, {}", r.split(" (").next().unwrap_or(r)))
        });
        return Answer { ratio: None, trust };
    };
    let (Some(fa), Some(fb)) = (h.figure(sa), h.figure(sb)) else {
        return Answer { ratio: None, trust: Trust::NotMeasured };
    };
    let r = ratio(fa.median, fb.median);
    let why = || {
        let held: Vec<String> =
            [sa, sb].iter().filter_map(|s| Some(format!("{} is {}", s.subject, loader_limit(s)?))).collect();
        held.join(", ")
    };
    let trust = match Bound::of(sa, sb, h.higher_is_better()) {
        _ if !h.loader_distorts() => noise(fa, fb),
        Bound::Exact => noise(fa, fb),
        Bound::AtLeast => informative(r, true, why()),
        Bound::AtMost => informative(r, false, why()),
        Bound::Unknown => Trust::BothHeld,
    };
    Answer { ratio: r, trust }
}

/// The capacity cell: the ratio of the two subjects' capacities, in the row of the search's connection count. A bound
/// on either side makes the ratio a bound, as a loader-held throughput does. A capacity the search gave at its cap of
/// steps is unconfirmed, and so is the ratio. A confirmed capacity is only known to within the search's resolution (it
/// passed twice, the rate one step above failed), so two within one step of each other are not told apart; further
/// apart, each is still one search, whose spread over repeats a run does not measure.
fn capacity_answer(b: &Benchmark, other: &str, base: &str, scenario: &str, conns: u32) -> Answer {
    let none = |trust| Answer { ratio: None, trust };
    let Some(c) = b.capacity.as_ref().filter(|c| c.settings.connections == conns) else {
        return none(Trust::OtherCell);
    };
    if c.settings.cold() {
        return none(Trust::Cold);
    }
    let find = |name: &str| c.searches.iter().find(|s| s.subject == name && s.scenario == scenario);
    let (Some(sa), Some(sb)) = (find(other), find(base)) else { return none(Trust::NotMeasured) };
    if let Some(s) = [sa, sb].into_iter().find(|s| crate::analyse::warmup::warming_in_windows(b, &s.subject).is_some())
    {
        return none(Trust::Warming(s.subject.clone()));
    }
    let (x, y) = match (sa.capacity(), sb.capacity()) {
        (Some(x), Some(y)) => (x, y),
        (None, None) => {
            return none(Trust::NoCapacity(format!(
                "{}: {}; {}: {}",
                sa.subject,
                sa.figure(),
                sb.subject,
                sb.figure()
            )));
        }
        (None, _) => return none(Trust::NoCapacity(format!("{}: {}", sa.subject, sa.figure()))),
        (_, None) => return none(Trust::NoCapacity(format!("{}: {}", sb.subject, sb.figure()))),
    };
    let unresolved: Vec<String> = [sa, sb]
        .into_iter()
        .filter_map(|s| {
            Some(format!("{} met it at {}/s", s.subject, thousands(s.capacity()?)))
                .filter(|_| c.unresolved(s).is_some())
        })
        .collect();
    if let (false, Some(from)) = (unresolved.is_empty(), c.unresolved_from()) {
        return none(Trust::Unresolved(format!(
            "the machine cannot resolve {} at {}/s, where the loader's own search missed it; {}",
            c.settings.objective,
            thousands(from),
            unresolved.join(", ")
        )));
    }
    let unconfirmed: Vec<&str> = [sa, sb].into_iter().filter(|s| s.unconfirmed()).map(|s| s.subject.as_str()).collect();
    // Files written before a rate was decided by several windows: a capacity at the cap was one step, unrepeated.
    let old = c.settings.max_windows <= 1;
    let trust = match (sa.bound, sb.bound) {
        (true, true) => Trust::BothBounds,
        (true, false) => informative(ratio(x, y), true, format!("{other}'s capacity is a bound")),
        (false, true) => informative(ratio(x, y), false, format!("{base}'s capacity is a bound")),
        _ if old && !unconfirmed.is_empty() => Trust::Unconfirmed(unconfirmed.join(" and ")),
        _ if old && x.max(y) / x.min(y) <= 1.0 + c.settings.resolution_percent / 100.0 => Trust::WithinResolution,
        _ if old => Trust::OneSearch,
        _ => {
            let (a, b) = (sa.bracket(), sb.bracket());
            let low = a.zip(b).and_then(|(a, b)| Some(a.low / b.high?));
            let high = a.zip(b).and_then(|(a, b)| Some(a.high? / b.low));
            Trust::Brackets { low, high }
        }
    };
    Answer { ratio: ratio(x, y), trust }
}

/// A bound, or no ratio where the bound allows either answer: at least something under 1×, at most something over.
fn informative(ratio: Option<f64>, at_least: bool, why: String) -> Trust {
    let says_nothing = ratio.is_some_and(|r| if at_least { r < 1.0 } else { r > 1.0 });
    if says_nothing { Trust::NoInformation(why) } else { Trust::Bound { at_least, why } }
}

fn noise(a: &Stat, b: &Stat) -> Trust {
    match stats::verdict(a, b) {
        stats::Verdict::Exceeds => Trust::BeyondNoise,
        stats::Verdict::WithinNoise => Trust::WithinNoise,
        stats::Verdict::NoiseUnknown => Trust::OneRun,
    }
}

/// The capacity searches of a run that ran nothing else (`--capacity-only`).
fn searched_only(b: &Benchmark) -> Option<&CapacityRecord> {
    b.capacity.as_ref().filter(|_| b.runs.is_empty())
}

/// One line naming the machine and the run.
fn run_line(b: &Benchmark) -> String {
    let (e, s) = (&b.environment, &b.settings);
    let names: Vec<&str> = b.subjects.iter().map(|s| s.name.as_str()).collect();
    // A two-host run names both: the servers' host, and the loader's (whose machine the line describes).
    let host = match &b.two_hosts {
        Some(t) => format!("`{}`, loaded from `{}`", t.server_environment.hostname, e.hostname),
        None => format!("`{}`", e.hostname),
    };
    let method = match searched_only(b) {
        Some(c) => format!(
            "a capacity search at {} with `{}` (open loop, {}, steps of {} s after {} s of warm-up)",
            c.settings.objective,
            c.tool,
            count(u64::from(c.settings.connections), "connection"),
            c.settings.step_s,
            c.settings.warmup_s
        ),
        None => format!(
            "`{}`, {} of {} s per cell after {} s of warm-up",
            s.tool,
            count(u64::from(s.repeats), "run"),
            s.duration_s,
            s.warmup_s
        ),
    };
    format!(
        "{} on {host} ({} × {}, Linux {}), {}: {method}, {}.",
        names.join(", "),
        e.cpu_model,
        e.cpus_online,
        e.kernel,
        e.date.split('T').next().unwrap_or(&e.date),
        if s.pinned { "servers and loader pinned apart" } else { "not pinned" }
    )
}

/// The facts a reader must know before quoting a figure, most important first, at most five; then the runtimes'.
fn notes(b: &Benchmark) -> Vec<String> {
    let mut out = Vec::new();
    // An incomplete run is said under the title, before the summary.
    if b.settings.quick {
        out.push(
            "**A `--quick` smoke run**: one short run per cell, so no noise was measured: do not quote it.".into(),
        );
    }
    if b.two_hosts.as_ref().is_some_and(|t| t.same_kernel) {
        out.push("Both hosts ran on **one kernel**: this run shows the two-host mechanics, not two machines.".into());
    }
    let unverified: Vec<&str> =
        b.subjects.iter().filter(|s| s.verification.measured_unverified).map(|s| s.name.as_str()).collect();
    if !unverified.is_empty() {
        out.push(format!(
            "{} failed the contract and {} measured anyway (`--allow-unverified`): not the same work as the others.",
            unverified.join(", "),
            if unverified.len() == 1 { "was" } else { "were" }
        ));
    }
    out.extend(held_by_loader(b));
    // A warm-up the measured runs did not cover is a caveat on every figure of that subject, so it comes before the
    // machine's and the noise's.
    let warming = crate::analyse::warmup::not_covered(b);
    if !warming.is_empty() {
        out.push(format!(
            "The {} s warm-up did not cover the warm-up of {} (see *Warm-up*): {} measured figures include part of \
             it, lower throughput and higher latency than a warm process gives.",
            b.settings.warmup_s,
            warming.join(" and "),
            if warming.len() == 1 { "its" } else { "their" }
        ));
    }
    let busy: Vec<_> = b.runs.iter().filter(|r| !r.machine_idle).collect();
    if !busy.is_empty() {
        let worst = busy.iter().map(|r| r.other_cpu_percent).fold(0.0, f64::max);
        out.push(format!(
            "{} of {} began on a busy machine (other processes used up to {worst:.0} % of it): their figures may be \
             low.",
            busy.len(),
            count(b.runs.len() as u64, "run")
        ));
    }
    let noisy = b.flags.iter().filter(|f| f.kind == FlagKind::Noisy).count() as u64;
    if noisy > 0 {
        out.push(format!("{} spread more than 5 % between runs (see *Flags*).", count(noisy, "cell")));
    }
    let left_out = b.runs.iter().filter(|r| r.left_out.is_some()).count() as u64;
    if left_out > 0 {
        out.push(format!("{} left out of every figure (see *Left out*).", count(left_out, "run")));
    }
    out.truncate(5);
    // Beyond the five: what the runtimes were is not one of the figures' caveats, and must not push one out.
    out.extend(runtimes(b));
    out
}

/// What a reader should know of the runtimes the subjects ran on: that the node subjects ran on the machine's Node
/// because the project's was not installed, and any runtime past its end of life on the run's date.
fn runtimes(b: &Benchmark) -> Vec<String> {
    use crate::subjects::node::NodeSource;
    use crate::subjects::runtimes::{Runtime, end_of_life_note};
    // The host the subjects ran on records the runtimes they used.
    let e = b.two_hosts.as_ref().map_or(&b.environment, |t| &t.server_environment);
    let date = &b.environment.date;
    let ran_node = b.subjects.iter().any(|s| s.kind == SubjectKind::Builtin && s.name.starts_with("node"));
    let mut out = Vec::new();
    if ran_node && e.node_source == Some(NodeSource::Path) {
        out.push(format!(
            "The node subjects ran on the machine's node ({}, on PATH): the project's, pinned in tools/node, is not \
             installed (`npm ci --prefix tools/node`).",
            e.node
        ));
    }
    if ran_node {
        out.extend(end_of_life_note(Runtime::Node, &e.node, date));
    }
    if let Some(go) = &e.go {
        out.extend(end_of_life_note(Runtime::Go, go, date));
    }
    out
}

/// One sentence per subject whose figures are the loader's in some cell.
fn held_by_loader(b: &Benchmark) -> Vec<String> {
    let mut out = Vec::new();
    for subject in &b.subjects {
        let held: Vec<&Summary> =
            b.summaries.iter().filter(|s| s.subject == subject.name && loader_limit(s).is_some()).collect();
        if held.is_empty() {
            continue;
        }
        // Each cell with its own median and its own word: a cell that was loader-bound in a run is not
        // loader-limited, and one word for the subject put "loader-limited" beside cells that were not.
        let cells = |limited: bool| -> Vec<String> {
            held.iter()
                .filter(|s| s.loader_limited == limited)
                .map(|s| format!("{} {} ({}/s)", s.scenario, s.connections, thousands(s.requests_per_sec.median)))
                .collect()
        };
        let parts: Vec<String> = [(true, "loader-limited"), (false, "loader-bound")]
            .into_iter()
            .filter_map(|(limited, word)| {
                let at = cells(limited);
                (!at.is_empty()).then(|| format!("{word} at {}", at.join(", ")))
            })
            .collect();
        let those = if held.len() == 1 { "that figure is" } else { "those figures are" };
        out.push(format!(
            "{} is {}: {those} the loader's, not the server's (bounds, not ratios).",
            subject.name,
            parts.join(", and ")
        ));
    }
    out
}

/// The section: the line, the tables, the notes.
pub(crate) fn section(doc: &mut Document, v: &Verdicts) {
    doc.heading(2, "Summary");
    doc.paragraph(v.line.clone());
    let Some(base) = &v.baseline else {
        doc.paragraph(if v.unmeasured.is_empty() {
            "No subject implements the API: there is no baseline to compare with.".to_string()
        } else {
            format!(
                "No subject that implements the API was measured ({} not: see Subjects), so there is no baseline to \
                 compare with; the figures of what was measured are in the tables below.",
                v.unmeasured.join(", ")
            )
        });
        doc.list(v.notes.clone());
        return;
    };
    if v.cells.is_empty() && v.memory.is_empty() {
        doc.paragraph(format!(
            "No other subject that implements the API was measured beside {base}: no ratio to give; the figures are \
             in the tables below."
        ));
    } else {
        if v.headlines == [Headline::Capacity] {
            doc.paragraph(format!(
                "Each cell: a subject's capacity over {base}'s, the baseline (above 1×: more requests/s at the \
                 objective), and how far to trust it: `≥` a lower bound, `≤` an upper bound, for the reason beside it."
            ));
        } else {
            doc.paragraph(format!(
                "Each cell: a subject's median over {base}'s, the baseline (above 1×: more requests/s, or more latency \
             and CPU), and how far to trust it: `≥` a lower bound, `≤` an upper bound, for the reason beside it.{}",
                if v.headlines.contains(&Headline::Capacity) {
                    " The capacity at the latency objective is in the row of the connection count its search used."
                } else {
                    ""
                }
            ));
        }
    }
    // With one subject beside the baseline the header names the pair; with more, each row names its subject.
    let mut subjects = v.cells.iter().chain(&v.memory).map(|r| &r.subject);
    let first_subject = subjects.next();
    let single = subjects.all(|s| Some(s) == first_subject);
    let headlines: Vec<&str> = v.headlines.iter().map(|h| h.label()).collect();
    for (rows, labels) in [(&v.cells, headlines.as_slice()), (&v.memory, MEMORY.as_slice())] {
        let Some(first) = rows.first() else { continue };
        let title = if single { format!("{} / {base}", first.subject) } else { "subject / baseline".into() };
        let mut columns = vec![(title.as_str(), Align::Left)];
        columns.extend(labels.iter().map(|l| (*l, Align::Left)));
        let mut t = Table { stacked: true, ..Table::new(&columns) };
        for r in rows {
            let place = if single { r.place.clone() } else { format!("{}, {}", r.subject, r.place) };
            t.row([vec![place], r.answers.iter().map(Answer::text).collect()].concat());
        }
        doc.push(crate::report::Block::Table(t));
    }
    doc.list(v.notes.clone());
}

/// The verdicts as lines of plain text, the console's closing lines.
pub fn lines(v: &Verdicts) -> Vec<String> {
    let base = v.baseline.as_deref().unwrap_or_default();
    let headlines: Vec<&str> = v.headlines.iter().map(|h| h.label()).collect();
    let mut out = Vec::new();
    for (rows, labels) in [(&v.cells, headlines.as_slice()), (&v.memory, MEMORY.as_slice())] {
        for r in rows {
            let figures: Vec<String> =
                labels.iter().zip(&r.answers).map(|(l, a)| format!("{l} {}", a.text())).collect();
            out.push(format!("{} / {base}, {}: {}", r.subject, r.place, figures.join("; ")));
        }
    }
    out.extend(v.notes.iter().map(|n| n.replace(['*', '`'], "")));
    out
}
