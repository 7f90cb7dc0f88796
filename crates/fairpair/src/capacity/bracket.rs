//! The search itself: a bracket around the capacity, narrowed by bisection, each rate decided by its windows
//! ([`super::verdict`]).
//!
//! The search keeps two rates: `lo`, the highest rate decided met, and `up`, the lowest rate not decided met (missed,
//! or undecided: a rate near the boundary, where the windows split). It halves from the first rate until a rate is
//! met, doubles until one is not, then bisects (geometrically) between the two until they are within the resolution.
//! The capacity is `lo`; the bracket reported with it is `lo` and the lowest rate above it decided *missed*, since
//! an undecided rate is no evidence that the capacity is below it. A search at its cap of windows stops with the
//! bracket it has, wider than the resolution, and says so (`confirmed: false`).
//!
//! There is no separate repeat of the result any more: the rate reported was decided met by two windows or more, and
//! a rate that met once and missed on its repeat is now one rate whose windows split, decided by more of them.

use anyhow::Result;

use super::verdict::{Tally, decide, judge};
use super::{Bracket, LOWEST_FRACTION, Outcome, START_FRACTION, Search, SearchSettings, Step, StepResult, Verdict};

/// Searches for the capacity, starting below `upper` (see the module header and `capacity/`'s). `run(rate)` runs one
/// window; an error stops the search with the windows so far and [`Outcome::Failed`].
pub fn search(
    upper: f64,
    settings: &SearchSettings,
    mut run: impl FnMut(f64) -> Result<StepResult>,
) -> (Vec<Step>, Outcome) {
    let mut steps: Vec<Step> = Vec::new();
    let first = whole(START_FRACTION * upper);
    let lowest = whole(first * LOWEST_FRACTION);
    let resolution = settings.resolution_percent;
    // `not_met`: every rate not met, with its windows so far (one, when the search left it exploring: see `judge`).
    // The bracket's upper end is the lowest of them above `lo`.
    let (mut rate, mut lo, mut not_met) = (first, None::<f64>, Vec::<(f64, Tally)>::new());
    let mut tally = Tally::default();
    let lowest_above = |not_met: &[(f64, Tally)], l: Option<f64>| {
        let above = not_met.iter().filter(|(r, _)| l.is_none_or(|l| *r > l)).copied();
        above.min_by(|a, b| a.0.total_cmp(&b.0))
    };
    let outcome = loop {
        let room = settings.max_steps.saturating_sub(steps.len());
        if room == 0 {
            // At the cap: the bracket so far, unless no rate was decided met.
            break match lo {
                Some(rps) => found(&steps, rps, settings, false),
                None => Outcome::NoRate { lowest_rps: steps.last().map_or(rate, |s| s.rate_asked) },
            };
        }
        let exploring = (lo.is_none() || lowest_above(&not_met, lo).is_none()) && rate > lowest && tally.n == 0;
        let record = |result: StepResult, verdict: Option<Verdict>| {
            let missed = settings.objective.misses(&result, rate);
            steps.push(Step { rate_asked: rate, result, missed, repeat: false, verdict });
        };
        match judge(rate, (room, exploring), &mut tally, settings, &mut run, record) {
            Err(e) => break Outcome::Failed { why: format!("{e:#}") },
            Ok(Some(Verdict::Met)) => lo = Some(lo.map_or(rate, |l| l.max(rate))),
            Ok(_) => not_met.push((rate, tally)),
        }
        tally = Tally::default();
        let Some(l) = lo else {
            if rate / 2.0 < lowest - 0.5 {
                break Outcome::NoRate { lowest_rps: rate };
            }
            rate = whole(rate / 2.0).max(lowest);
            continue;
        };
        match lowest_above(&not_met, lo) {
            None => rate = climb(l),
            Some((u, t)) if close_enough(l, u, resolution) => {
                if t.n > 1 || decide(t.met, t.n, settings.max_windows, settings.margin()).is_some() {
                    break found(&steps, l, settings, true);
                }
                // The bracket would close on a rate missed by one window while exploring: it is decided in full
                // first, so that one stalled window cannot set the capacity. Met, the next rate not met above it
                // is the bracket's end.
                not_met.retain(|(r, _)| *r != u);
                (rate, tally) = (u, t);
            }
            Some((u, _)) => rate = whole((l * u).sqrt()),
        }
    };
    (steps, outcome)
}

/// The outcome of a search whose capacity is `rps`: `confirmed` when its bracket closed to the resolution.
fn found(steps: &[Step], rps: f64, settings: &SearchSettings, confirmed: bool) -> Outcome {
    Outcome::Found { rps, spread_percent: window_spread(steps, rps, settings), confirmed }
}

/// A whole rate, at least 1/s (oha takes whole requests per second).
pub(super) fn whole(rate: f64) -> f64 {
    rate.round().max(1.0)
}

/// Whether a met rate `lo` and a rate `hi` not met are within the resolution of each other (or 1/s apart, the finest
/// step oha takes).
fn close_enough(lo: f64, hi: f64, resolution_percent: f64) -> bool {
    hi / lo <= 1.0 + resolution_percent / 100.0 || hi - lo <= 1.0
}

/// The next rate after `l` was met while no rate has been not met yet: double it, past the upper bound too, which is
/// no limit (see `capacity/`'s header). Bisecting up to the upper bound first, then one resolution step above it,
/// took several rates that the cap of windows cannot pay for, two windows each; a miss at the doubled rate is one
/// window while the search explores, and the bisection then narrows the bracket from below it.
fn climb(l: f64) -> f64 {
    whole(2.0 * l)
}

/// How far apart the windows at the capacity's rate are in the first objective percentile: the highest less the
/// lowest, percent of their mean (0 with one window).
fn window_spread(steps: &[Step], rps: f64, settings: &SearchSettings) -> f64 {
    let p = settings.objective.0[0].percentile;
    let values: Vec<f64> =
        steps.iter().filter(|s| s.rate_asked == rps && s.counts()).filter_map(|s| p.of(&s.result.latency)).collect();
    let (low, high) = values.iter().fold((f64::INFINITY, 0.0_f64), |(l, h), v| (l.min(*v), h.max(*v)));
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    if values.len() < 2 || mean <= 0.0 { 0.0 } else { (high - low) / mean * 100.0 }
}

impl Search {
    /// The bracket of the capacity: the one recorded, or, in a file written before it was, the capacity and the
    /// lowest failing step above it (each step then a rate's whole verdict). `None` when there is no capacity.
    pub fn bracket(&self) -> Option<Bracket> {
        let low = self.capacity()?;
        if let Some(b) = self.bracket {
            return Some(b);
        }
        Some(Bracket { low, high: self.missed_rates().filter(|&r| r > low).reduce(f64::min) })
    }

    /// The lowest rate this search decided missed: where its subject (for the ceiling, the machine) is known not to
    /// meet the objective. `None` when no rate was.
    pub fn lowest_missed(&self) -> Option<f64> {
        self.missed_rates().reduce(f64::min)
    }

    /// The rates decided missed: by their windows' verdict, or, in a file written before rates were decided by
    /// several windows (no step has a verdict), every failing step.
    fn missed_rates(&self) -> impl Iterator<Item = f64> + '_ {
        let old = self.steps.iter().all(|s| s.verdict.is_none());
        let missed = move |s: &&Step| if old { !s.passed() } else { s.verdict == Some(Verdict::Missed) };
        self.steps.iter().filter(missed).map(|s| s.rate_asked)
    }

    /// Records the bracket its steps establish (see [`Search::bracket`]), for `benchmark.json`'s readers.
    pub fn with_bracket(mut self) -> Search {
        self.bracket = None;
        self.bracket = self.bracket();
        self
    }
}

/// Windows a search is expected to take on a quiet machine: two per rate (two agreeing windows decide one), for the
/// first rate, one halving and the bisection to the resolution; a rate missed while the search explores takes one.
/// (A capacity above the first rate takes about as many: the first rate, a doubling, the bisection.)
pub fn expected_steps(resolution_percent: f64) -> usize {
    let bisections = (2f64.ln() / (1.0 + resolution_percent / 100.0).ln()).log2().ceil().max(0.0) as usize;
    2 * (2 + bisections)
}

/// The cap of one search's windows, which the estimate budgets for every search: 11 in the default plan (at 5 %,
/// where a quiet search expects 12, so a search far from its start ends at the cap with a bracket wider than the
/// resolution, and says so), 14 under `--quick` (25 %, 1-second windows). These are set by the time budget, not the
/// statistics: the default plan's five searches at 11 windows of 8 s take 7 min 20 s (the whole plan 21 min 37 s,
/// under 22 minutes); `--quick`'s two at 14 windows of 2.75 s take 77 s (the whole plan 2 min 46 s, under 3). One
/// rate takes at most [`super::verdict::max_windows`] of them (5, or 3 under `--quick`), and a rate the cap cuts
/// short is undecided: the cap is the worst case of a search, whatever its rates take. A search that finds a
/// coin-toss boundary within ±5 % in 95 of 100 searches takes about 30 windows (`verdict.rs`): five searches of
/// 30 windows of 8 s would be 20 minutes of searching, 34 minutes for the whole plan, which is why the plan keeps 11
/// and reports the bracket it reaches.
pub fn max_steps(_resolution_percent: f64, quick: bool) -> usize {
    if quick { 14 } else { 11 }
}
