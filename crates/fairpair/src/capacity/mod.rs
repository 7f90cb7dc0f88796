//! Capacity at a latency objective: the highest offered rate at which a subject keeps `--slo` (p99 ≤ 10 ms by
//! default) with no request failed, aborted or left unsent.
//!
//! Each step is an open-loop run: the load tool sends at a fixed rate whatever the server does (oha `-q RATE
//! --latency-correction`), and measures each latency from the request's *scheduled* start, so a server that falls
//! behind shows its queue in the percentiles instead of slowing the loader down (coordinated omission). A closed-loop
//! peak says how fast the queue drains when it is always full; this says how much traffic fits under a latency bound.
//!
//! The search is a pure function of step results ([`search`]), so its logic is tested in CI against a simulated
//! subject; `execute` gives it a step that runs the real thing. Its definitions:
//!
//! - It starts at [`START_FRACTION`] of an upper bound: the subject's closed-loop throughput measured in the same
//!   run (or a short closed-loop probe under `--capacity-only`). No rate above it can be held.
//! - It halves the rate until a step meets the objective; the lowest rate it tries is [`LOWEST_FRACTION`] of the
//!   first, below which it reports "no rate meets the objective" (naming the lowest rate tried).
//! - It bisects (geometrically) between the last passing and the first failing rate until they are within the
//!   resolution, then repeats the passing rate. When the repeat fails, that rate counts as failing and the search
//!   starts again below it (halving, then bisecting): a capacity has passed twice, and the rate one resolution step
//!   above it has failed. After `max_steps` (a setting, so that the estimate can budget every search at its cap:
//!   [`max_steps`]) it stops, and reports its last passing rate below every failing one, marked unconfirmed.
//! - A capacity is printed as a bound, `≥ N/s`, for a [`BoundBy`] reason: it is at least [`LOADER_BOUND_SHARE`] of
//!   the loader's own open-loop limit (the same search against the `ceiling`, in preflight); or the step that failed
//!   just above it did not hold its rate (the loader's limit reached first, measured or not); or it is the upper
//!   bound itself.
//!
//! Nothing here runs anything: `capacity_phase.rs` runs the search through the run procedure. It lives outside this
//! module because it uses the plan, which uses this module (the search's step count for the estimate).

use anyhow::{Result, bail};

// The records of the search are `benchmark.json` types, defined with the others in `schema/capacity.rs`; how each is
// computed and read is here.
use crate::schema::Latency;
pub use crate::schema::{
    Bound, CapacityRecord, Objective, Outcome, Percentile, Search, SearchSettings, Step, StepResult,
};
use crate::text::thousands;
use crate::usage;

/// The first step's rate, as a fraction of the upper bound.
pub const START_FRACTION: f64 = 0.9;
/// The lowest rate tried, as a fraction of the first step's (four halvings).
pub const LOWEST_FRACTION: f64 = 1.0 / 16.0;
/// A step holds its rate when it achieves at least this fraction of it.
pub const ACHIEVED_SHARE: f64 = 0.95;
/// A capacity at or above this share of the loader's open-loop limit is printed as a bound.
pub const LOADER_BOUND_SHARE: f64 = 0.8;

/// Why a capacity is a lower bound rather than the subject's figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundBy {
    /// It is at least [`LOADER_BOUND_SHARE`] of the loader's measured open-loop limit.
    LoaderLimit,
    /// The lowest failing step above it achieved under [`ACHIEVED_SHARE`] of its rate. No step asks more than the
    /// subject served in its closed-loop run (or probe) of the same run, so a rate not achieved there was held
    /// back by the loader, and the rate above the capacity may have failed for the loader's sake, not the
    /// subject's. This holds when the loader's limit was not measured (`--quick`), where `LoaderLimit` cannot.
    RateNotHeldAbove,
    /// It is the upper bound itself: no rate above it was tried.
    Upper,
}

impl Percentile {
    pub fn label(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P90 => "p90",
            Percentile::P99 => "p99",
            Percentile::P999 => "p99.9",
        }
    }
    /// This percentile of a run's latencies, in milliseconds (`None` when the tool did not report it).
    pub fn of(self, l: &Latency) -> Option<f64> {
        match self {
            Percentile::P50 => Some(l.p50_ms),
            Percentile::P90 => Some(l.p90_ms),
            Percentile::P99 => Some(l.p99_ms),
            Percentile::P999 => l.p99_9_ms,
        }
    }
}

impl Default for Objective {
    fn default() -> Objective {
        Objective(vec![Bound { percentile: Percentile::P99, max_ms: 10.0 }])
    }
}

impl std::fmt::Display for Objective {
    /// `p99 ≤ 10 ms` (bounds joined by ` and `).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words: Vec<String> = self.0.iter().map(|b| format!("{} ≤ {} ms", b.percentile.label(), b.max_ms)).collect();
        f.write_str(&words.join(" and "))
    }
}

impl Objective {
    /// Reads `--slo` values: each `PERCENTILE=DURATION` (`p99=10ms`, `p99.9=25ms`, `p50=500us`, `p90=0.5s`), several
    /// per value when comma-separated; a percentile given twice keeps the last. Bad input is a usage error.
    pub fn parse(values: &[String]) -> Result<Objective> {
        let mut bounds: Vec<Bound> = Vec::new();
        for item in values.iter().flat_map(|v| v.split(',')).map(str::trim).filter(|s| !s.is_empty()) {
            let bad = |why: &str| usage(format!("--slo {item:?}: {why} (e.g. --slo p99=10ms, or p50=2ms,p99.9=25ms)"));
            let (name, duration) = item.split_once('=').ok_or_else(|| bad("expected PERCENTILE=DURATION"))?;
            let percentile = match name.trim() {
                "p50" => Percentile::P50,
                "p90" => Percentile::P90,
                "p99" => Percentile::P99,
                "p99.9" => Percentile::P999,
                _ => return Err(bad("the percentile must be p50, p90, p99 or p99.9")),
            };
            let max_ms =
                parse_ms(duration.trim()).ok_or_else(|| bad("the duration must be a number with us, ms or s"))?;
            bounds.retain(|b| b.percentile != percentile);
            bounds.push(Bound { percentile, max_ms });
        }
        if bounds.is_empty() {
            return Ok(Objective::default());
        }
        Ok(Objective(bounds))
    }

    /// Why a step's result misses the objective, or `None` when it meets it. A request that failed, was aborted at
    /// the deadline or got an unexpected status misses it (no error is served work), and so does a rate the loader
    /// did not hold.
    pub fn misses(&self, r: &StepResult, asked: f64) -> Option<String> {
        let mut why = Vec::new();
        for b in &self.0 {
            match b.percentile.of(&r.latency) {
                Some(v) if v <= b.max_ms => {}
                Some(v) => why.push(format!("{} {v:.1} ms > {} ms", b.percentile.label(), b.max_ms)),
                None => why.push(format!("{} not reported", b.percentile.label())),
            }
        }
        if r.errors + r.unexpected + r.aborted > 0 {
            why.push(format!("{} errors, {} unexpected statuses, {} aborted", r.errors, r.unexpected, r.aborted));
        }
        if !holds_rate(r, asked) {
            why.push(format!("achieved {}/s of {}/s", thousands(r.achieved_rps), thousands(asked)));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// Whether a step achieved its rate (at least [`ACHIEVED_SHARE`] of it).
fn holds_rate(r: &StepResult, asked: f64) -> bool {
    r.achieved_rps >= ACHIEVED_SHARE * asked
}

/// `10ms`, `500us`, `0.5s` → milliseconds.
fn parse_ms(text: &str) -> Option<f64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "us" | "µs" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        _ => return None,
    };
    (n.is_finite() && n > 0.0).then_some(n * scale)
}

impl Step {
    pub fn passed(&self) -> bool {
        self.missed.is_none()
    }
}

impl Search {
    /// Why this search's capacity is a bound (`None`: it is the subject's figure, or there is none), given the
    /// loader's measured open-loop limit. Decided on the steps' rates, never on their verdicts' words.
    pub fn bound_by(&self, loader_limit: Option<f64>) -> Option<BoundBy> {
        let c = self.capacity()?;
        if loader_limit.is_some_and(|l| c >= LOADER_BOUND_SHARE * l) {
            return Some(BoundBy::LoaderLimit);
        }
        let failed_above = self.steps.iter().filter(|s| !s.passed() && s.rate_asked > c);
        let lowest = failed_above.map(|s| s.rate_asked).reduce(f64::min);
        let mut at_lowest = self.steps.iter().filter(|s| Some(s.rate_asked) == lowest && !s.passed());
        if at_lowest.any(|s| !holds_rate(&s.result, s.rate_asked)) {
            return Some(BoundBy::RateNotHeldAbove);
        }
        (c >= whole(self.upper_rps)).then_some(BoundBy::Upper)
    }

    pub fn capacity(&self) -> Option<f64> {
        match self.outcome {
            Outcome::Found { rps, .. } => Some(rps),
            _ => None,
        }
    }
    /// `12,345/s`, `≥ 41,000/s` (a bound), or why there is none.
    pub fn figure(&self) -> String {
        match &self.outcome {
            Outcome::Found { rps, confirmed: false, .. } => {
                let at_least = if self.bound { "≥ " } else { "" };
                format!("{at_least}{}/s (unconfirmed: the search reached its cap of steps)", thousands(*rps))
            }
            Outcome::Found { rps, .. } if self.bound => format!("≥ {}/s", thousands(*rps)),
            Outcome::Found { rps, .. } => format!("{}/s", thousands(*rps)),
            Outcome::NoRate { lowest_rps } => {
                format!("no rate meets the objective (lowest tried {}/s)", thousands(*lowest_rps))
            }
            Outcome::Failed { why } => format!("not measured ({why})"),
        }
    }
}

impl CapacityRecord {
    pub fn loader_limit_rps(&self) -> Option<f64> {
        self.loader_limit.as_ref().and_then(Search::capacity)
    }
    /// Marks as a bound every capacity that has a [`BoundBy`] reason.
    pub fn mark_bounds(&mut self) {
        let limit = self.loader_limit_rps();
        for s in &mut self.searches {
            s.bound = s.bound_by(limit).is_some();
        }
    }
}

/// Steps a search is expected to take on a quiet machine: the first, one halving, the bisection, the repeat.
pub fn expected_steps(resolution_percent: f64) -> usize {
    let bisections = (2f64.ln() / (1.0 + resolution_percent / 100.0).ln()).log2().ceil().max(0.0) as usize;
    3 + bisections
}

/// The cap of one search's steps, which the estimate budgets for every search: the expected steps and one more (a
/// second halving, or a failed repeat and its fallback), or exactly the expected steps under `--quick`, whose whole
/// run must fit two minutes. A noisy machine took 10–16 steps a search; that time is what the cap bounds.
pub fn max_steps(resolution_percent: f64, quick: bool) -> usize {
    expected_steps(resolution_percent) + usize::from(!quick)
}

/// A whole rate, at least 1/s (oha takes whole requests per second).
fn whole(rate: f64) -> f64 {
    rate.round().max(1.0)
}

/// Searches for the capacity below `upper` (see the module header). `run(rate)` runs one step; an error stops the
/// search with the steps so far and [`Outcome::Failed`].
pub fn search(
    upper: f64,
    settings: &SearchSettings,
    mut run: impl FnMut(f64) -> Result<StepResult>,
) -> (Vec<Step>, Outcome) {
    let mut steps: Vec<Step> = Vec::new();
    let mut step = |rate: f64, repeat: bool, steps: &mut Vec<Step>| -> Result<bool> {
        let result = run(rate)?;
        let missed = settings.objective.misses(&result, rate);
        steps.push(Step { rate_asked: rate, result, missed, repeat });
        Ok(steps.last().expect("pushed").passed())
    };
    let top = whole(upper);
    let first = whole(START_FRACTION * upper);
    let lowest = whole(first * LOWEST_FRACTION);
    let close_enough = |lo: f64, hi: f64| hi / lo <= 1.0 + settings.resolution_percent / 100.0 || hi - lo <= 1.0;
    // `hi`: the lowest rate that failed; until one has, the upper bound stands in for it, and is tried before a
    // capacity next to it is accepted, so that every capacity has a failing step above it (or is a bound).
    let (mut rate, mut hi, mut lo) = (first, None::<f64>, None::<f64>);
    let outcome = loop {
        if let Some(last) = steps.last().filter(|_| steps.len() >= settings.max_steps) {
            // At the cap: the last passing rate, or (after a failed repeat reset it) the highest passing rate below
            // the failing one, unconfirmed.
            let below = |hi: f64| steps.iter().filter(move |s| s.passed() && s.rate_asked < hi).map(|s| s.rate_asked);
            break match lo.or_else(|| below(hi.unwrap_or(f64::INFINITY)).reduce(f64::max)) {
                Some(rps) => Outcome::Found { rps, spread_percent: 0.0, confirmed: false },
                None => Outcome::NoRate { lowest_rps: last.rate_asked },
            };
        }
        match step(rate, false, &mut steps) {
            Err(e) => break Outcome::Failed { why: format!("{e:#}") },
            Ok(true) => lo = Some(rate),
            Ok(false) => hi = Some(rate),
        }
        let Some(l) = lo else {
            if rate / 2.0 < lowest - 0.5 {
                break Outcome::NoRate { lowest_rps: rate };
            }
            rate = whole(rate / 2.0).max(lowest);
            continue;
        };
        let above = hi.unwrap_or(top);
        if !close_enough(l, above) {
            rate = whole((l * above).sqrt());
            continue;
        }
        if hi.is_none() && l < top {
            rate = top;
            continue;
        }
        // The repeat is a step like any other: at the cap, the loop's top ends the search unconfirmed instead.
        if steps.len() >= settings.max_steps {
            continue;
        }
        match step(l, true, &mut steps) {
            Err(e) => break Outcome::Failed { why: format!("{e:#}") },
            Ok(true) => {
                break Outcome::Found { rps: l, spread_percent: repeat_spread(&steps, settings), confirmed: true };
            }
            // The repeat failed: the rate is not held reliably, so it counts as failing, and the search starts again
            // below it (halving, then bisecting): on a noisy machine the noise is larger than the resolution.
            // The highest lower rate that already passed is tried again first, rather than halving below rates
            // already met (which ended searches with "no rate" beside steps that had met the objective).
            Ok(false) => {
                (hi, lo) = (Some(l), None);
                let met = steps.iter().filter(|s| s.passed() && s.rate_asked < l).map(|s| s.rate_asked);
                if let Some(floor) = met.reduce(f64::max) {
                    rate = floor;
                    continue;
                }
                if l / 2.0 < lowest - 0.5 {
                    break Outcome::NoRate { lowest_rps: l };
                }
                rate = whole(l / 2.0).max(lowest);
            }
        }
    };
    (steps, outcome)
}

/// How far apart the capacity's repeat (the last step) and the earlier passing step at the same rate are in the
/// first objective percentile, percent of their mean. (A failing step above the capacity may lie between the two.)
fn repeat_spread(steps: &[Step], settings: &SearchSettings) -> f64 {
    let p = settings.objective.0[0].percentile;
    let Some(repeat) = steps.last() else { return 0.0 };
    let first = steps.iter().rev().skip(1).find(|s| s.rate_asked == repeat.rate_asked && s.passed());
    let values: Vec<f64> =
        [Some(repeat), first].into_iter().flatten().filter_map(|s| p.of(&s.result.latency)).collect();
    match values[..] {
        [a, b] if a + b > 0.0 => (a - b).abs() / ((a + b) / 2.0) * 100.0,
        _ => 0.0,
    }
}

/// The sizing line for one scenario: what one core serves at the objective, and what `target` requests/s would take
/// if throughput scaled linearly with cores. `subjects`: (name, search) of the single-worker subjects.
pub fn sizing_line(objective: &Objective, scenario: &str, subjects: &[(&str, &Search)], target: f64) -> Option<String> {
    let found: Vec<(&str, &Search, f64)> =
        subjects.iter().filter_map(|(name, s)| s.capacity().map(|c| (*name, *s, c))).collect();
    if found.is_empty() {
        return None;
    }
    let serves: Vec<String> = found.iter().map(|(name, s, _)| format!("{} with {name}", s.figure())).collect();
    let cores: Vec<String> = found
        .iter()
        .map(|(name, s, c)| {
            let n = (target / c).ceil();
            let cores = if n == 1.0 { "core" } else { "cores" };
            if s.bound { format!("at most {n} {cores} with {name}") } else { format!("{n} {cores} with {name}") }
        })
        .collect();
    let bound_note = if found.iter().any(|(_, s, _)| s.bound) {
        " (a `≥` capacity is the loader's limit, not the server's, so its core count is an upper bound)"
    } else {
        ""
    };
    Some(format!(
        "{scenario}: at {objective} one core of this machine serves {}; {}/s would take {}, if throughput \
         scaled linearly with cores, which `rust-multi` / `node-cluster` on a machine with more cores can check{bound_note}.",
        serves.join(", "),
        thousands(target),
        cores.join(", ")
    ))
}

/// Checks the search's flags: a resolution that can end a bisection, steps of at least a second.
pub fn check_resolution(percent: f64) -> Result<f64> {
    if !(percent.is_finite() && (0.5..=50.0).contains(&percent)) {
        bail!(usage(format!("--capacity-resolution: expected 0.5 to 50 (percent), got {percent}")));
    }
    Ok(percent)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simulated subject: one worker with a fixed service time, loaded at evenly paced arrivals by a loader that
    /// can send at most `loader_limit` requests/s. Latencies are corrected: measured from each request's scheduled
    /// start, as oha `--latency-correction` does.
    struct Simulated {
        service_ms: f64,
        loader_limit: f64,
        duration_s: f64,
    }

    impl Simulated {
        fn step(&self, rate: f64) -> Result<StepResult> {
            let n = (rate * self.duration_s) as usize;
            let (mut done, mut latencies) = (0.0_f64, Vec::with_capacity(n));
            for i in 0..n {
                let scheduled = i as f64 / rate;
                let sent = i as f64 / rate.min(self.loader_limit);
                done = done.max(sent) + self.service_ms / 1000.0;
                latencies.push((done - scheduled) * 1000.0);
            }
            latencies.sort_by(f64::total_cmp);
            let at = |q: f64| latencies[((q * n as f64) as usize).min(n - 1)];
            Ok(StepResult {
                achieved_rps: n as f64 / done.max(self.duration_s),
                requests: n as u64,
                latency: Latency {
                    p50_ms: at(0.5),
                    p90_ms: at(0.9),
                    p99_ms: at(0.99),
                    p99_9_ms: Some(at(0.999)),
                    max_ms: at(1.0),
                },
                ..StepResult::default()
            })
        }
    }

    /// The search's settings, with a cap of steps that does not cut the searches short (the cap has its own test).
    fn settings(resolution_percent: f64) -> SearchSettings {
        let objective = Objective::default();
        SearchSettings { objective, resolution_percent, step_s: 5, warmup_s: 1, connections: 50, max_steps: 16 }
    }

    fn search_of(subject: &str, upper_rps: f64, (steps, outcome): (Vec<Step>, Outcome)) -> Search {
        let (subject, scenario, upper_from) = (subject.into(), "get".into(), "closed-loop".into());
        Search { subject, scenario, upper_rps, upper_from, steps, outcome, bound: false }
    }

    #[test]
    fn finds_a_known_capacity_within_its_resolution() {
        // 2 ms per request on one worker: 500/s when arrivals are evenly paced, and the queue grows above it.
        let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
        for (upper, resolution) in [(520.0, 5.0), (2_000.0, 5.0), (700.0, 20.0)] {
            let (steps, outcome) = search(upper, &settings(resolution), |r| sim.step(r));
            let Outcome::Found { rps, confirmed: true, .. } = outcome else { panic!("{outcome:?}") };
            assert!(rps <= 500.0 && rps >= 500.0 / (1.0 + resolution / 100.0), "{rps} at {resolution} %: {steps:#?}");
            // The capacity passed, and so did its repeat; every failing rate is above it, every passing one at most it.
            assert!(steps.iter().all(|s| s.passed() == (s.rate_asked <= rps)), "{steps:#?}");
            assert!(steps.last().unwrap().repeat && steps.len() <= expected_steps(resolution) + 3, "{steps:#?}");
        }
    }

    #[test]
    fn a_failed_repeat_falls_back_to_a_lower_rate_that_passed() {
        // A noisy subject: 2 ms per request, but the first repeat of a rate misses. Before, the search then halved
        // below its lowest rate and could say "no rate" beside steps that had met the objective.
        let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
        let (mut asked, mut spoiled) = (Vec::new(), false);
        let (steps, outcome) = search(7_000.0, &settings(25.0), |r| {
            let mut result = sim.step(r)?;
            if asked.contains(&r) && !spoiled {
                (spoiled, result.latency.p99_ms) = (true, 50.0);
            }
            asked.push(r);
            Ok(result)
        });
        let Outcome::Found { rps, confirmed: true, .. } = outcome else { panic!("{outcome:?}: {steps:#?}") };
        assert!(rps <= 500.0 && steps.iter().any(|s| s.repeat && !s.passed()), "{rps}: {steps:#?}");
    }

    #[test]
    fn a_subject_whose_every_step_fails_has_no_rate() {
        let sim = Simulated { service_ms: 20.0, loader_limit: 1e9, duration_s: 5.0 };
        let (steps, outcome) = search(50.0, &settings(5.0), |r| sim.step(r));
        assert_eq!(outcome, Outcome::NoRate { lowest_rps: 3.0 }, "{steps:#?}");
        assert!(steps.iter().all(|s| !s.passed()) && steps.len() == 5, "45, 23, 12, 6, 3: {steps:#?}");
    }

    #[test]
    fn the_loaders_limit_reached_first_is_a_bound() {
        // The loader sends at most 300/s: above it the scheduled starts run ahead of the sends, and the corrected
        // latencies grow, so the search ends near the loader's limit and not at the server's 500/s.
        let sim = Simulated { service_ms: 2.0, loader_limit: 300.0, duration_s: 5.0 };
        let set = settings(5.0);
        let limit = search_of("ceiling", 1_000.0, search(1_000.0, &set, |r| sim.step(r)));
        let rust = search_of("rust", 500.0, search(500.0, &set, |r| sim.step(r)));
        let mut record = CapacityRecord {
            settings: set.clone(),
            tool: crate::kinds::Tool::Oha,
            loader_limit: Some(limit),
            searches: vec![rust],
        };
        record.mark_bounds();
        let rust = &record.searches[0];
        assert!(rust.bound, "{rust:#?}");
        assert!(rust.figure().starts_with("≥ "), "{}", rust.figure());
        let line = sizing_line(&set.objective, "get", &[("rust", rust)], 100_000.0).unwrap();
        assert!(line.contains("at most") && line.contains("upper bound"), "{line}");
    }

    #[test]
    fn a_capacity_below_a_rate_the_loader_did_not_hold_is_a_bound_with_no_limit_measured() {
        // As a `--quick` run saw it (25 % resolution, the loader's limit not measured): rust served 131,018/s in its
        // closed-loop run, and its first step of 117,916/s achieved about 107,000/s, the loader's most. The capacity
        // below that step is the loader's figure, whatever the words of the step's verdict.
        let sim = Simulated { service_ms: 0.004, loader_limit: 107_000.0, duration_s: 1.0 };
        let mut record = CapacityRecord {
            settings: settings(25.0),
            tool: crate::kinds::Tool::Oha,
            loader_limit: None,
            searches: vec![search_of("rust", 131_018.0, search(131_018.0, &settings(25.0), |r| sim.step(r)))],
        };
        record.mark_bounds();
        let rust = &record.searches[0];
        assert_eq!(rust.bound_by(None), Some(BoundBy::RateNotHeldAbove), "{rust:#?}");
        assert!(rust.bound && rust.figure().starts_with("≥ "), "{}", rust.figure());
        // A subject whose step above its capacity held the rate and missed the latency is its own figure.
        let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
        let two_ms = search_of("svc", 520.0, search(520.0, &settings(5.0), |r| sim.step(r)));
        assert!(two_ms.capacity().is_some() && two_ms.bound_by(None).is_none(), "{two_ms:#?}");
    }

    #[test]
    fn a_search_at_its_cap_reports_its_last_passing_rate_unconfirmed() {
        // Every repeat fails (a noisy machine): the search stops at its cap with the highest rate that passed below
        // every failing one, and says it is unconfirmed.
        let set = SearchSettings { max_steps: max_steps(5.0, false), ..settings(5.0) };
        let (mut seen, sim) = (Vec::new(), Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 });
        let (steps, outcome) = search(2_000.0, &set, |r| {
            let mut result = sim.step(r)?;
            if seen.contains(&r) {
                result.latency.p99_ms = 50.0;
            }
            seen.push(r);
            Ok(result)
        });
        assert_eq!(steps.len(), 8, "{steps:#?}");
        let Outcome::Found { rps, confirmed: false, .. } = outcome else { panic!("{outcome:?}: {steps:#?}") };
        assert!(steps.iter().any(|s| s.passed() && s.rate_asked == rps), "{steps:#?}");
        assert!(steps.iter().filter(|s| !s.passed()).all(|s| s.rate_asked >= rps), "{steps:#?}");
        let s = search_of("svc", 2_000.0, (steps, outcome));
        assert!(s.figure().contains("unconfirmed: the search reached its cap of steps"), "{}", s.figure());
    }

    #[test]
    fn no_search_runs_more_steps_than_its_cap() {
        // A repeat used to follow the bisection's last step unchecked, so that a search capped at 8 ran 9 steps.
        for max_steps in 3..=10 {
            for service_ms in [0.02, 0.5, 2.0, 20.0] {
                let set = SearchSettings { max_steps, ..settings(5.0) };
                let sim = Simulated { service_ms, loader_limit: 1e9, duration_s: 5.0 };
                let (steps, outcome) = search(2_000.0, &set, |r| sim.step(r));
                assert!(steps.len() <= max_steps, "cap {max_steps}, {service_ms} ms: {outcome:?} {steps:#?}");
            }
        }
    }

    #[test]
    fn a_repeat_that_fails_makes_that_rate_a_failing_one() {
        // A subject that meets the objective up to 400/s, except that the first repeat of a rate fails: the search
        // takes that rate as failing and searches below it again until a rate passes twice.
        let (mut seen, mut failed_once) = (Vec::new(), None);
        let (steps, outcome) = search(800.0, &settings(5.0), |r| {
            let flaky = failed_once.is_none() && seen.contains(&r);
            if flaky {
                failed_once = Some(r);
            }
            seen.push(r);
            let p99 = if r <= 400.0 && !flaky { 5.0 } else { 50.0 };
            Ok(StepResult {
                achieved_rps: r,
                latency: Latency { p99_ms: p99, ..Latency::default() },
                ..StepResult::default()
            })
        });
        let (Outcome::Found { rps, confirmed: true, .. }, Some(flaky)) = (&outcome, failed_once) else {
            panic!("{outcome:?}")
        };
        assert!(*rps < flaky && *rps >= flaky / 1.05 - 1.0, "{rps} below {flaky}: {steps:#?}");
        assert!(steps.iter().filter(|s| s.repeat).count() == 2, "{steps:#?}");
    }

    #[test]
    fn errors_aborts_and_a_rate_not_held_miss_the_objective() {
        let o = Objective::default();
        let ok = StepResult {
            achieved_rps: 100.0,
            latency: Latency { p99_ms: 9.0, ..Latency::default() },
            ..StepResult::default()
        };
        assert_eq!(o.misses(&ok, 100.0), None);
        assert!(o.misses(&StepResult { aborted: 1, ..ok.clone() }, 100.0).unwrap().contains("1 aborted"));
        assert!(o.misses(&StepResult { errors: 2, ..ok.clone() }, 100.0).is_some());
        assert!(o.misses(&ok, 110.0).unwrap().contains("achieved 100/s of 110/s"));
        assert!(o.misses(&StepResult { latency: Latency { p99_ms: 11.0, ..ok.latency }, ..ok }, 100.0).is_some());
    }

    #[test]
    fn slo_flags() {
        let parse = |v: &[&str]| Objective::parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(parse(&[]).unwrap(), Objective::default());
        assert_eq!(parse(&["p99=10ms"]).unwrap().to_string(), "p99 ≤ 10 ms");
        let two = parse(&["p50=500us,p99.9=0.025s"]).unwrap();
        assert_eq!(two.to_string(), "p50 ≤ 0.5 ms and p99.9 ≤ 25 ms");
        assert_eq!(parse(&["p90=2ms", "p99=1s"]).unwrap().0.len(), 2);
        for bad in ["p98=10ms", "p99", "p99=10", "p99=-1ms", "p99=ms", "p99=10min"] {
            let e = parse(&[bad]).unwrap_err();
            assert!(e.downcast_ref::<crate::UsageError>().is_some(), "{bad}: {e}");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }

    #[test]
    fn the_estimate_counts_the_bisection() {
        assert_eq!(expected_steps(5.0), 7);
        assert_eq!(expected_steps(25.0), 5);
        assert_eq!((max_steps(5.0, false), max_steps(25.0, true)), (8, 5));
    }
}
