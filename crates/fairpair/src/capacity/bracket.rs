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
    let confirming = confirming(settings);
    // `met` and `not_met`: every rate decided so far, with its windows (one, for a rate the search left as not met
    // while it explored: see `judge`). The capacity's bracket is the highest met and the lowest not met above it.
    let (mut rate, mut met, mut not_met) = (first, Vec::<(f64, Tally)>::new(), Vec::<(f64, Tally)>::new());
    let (mut tally, mut confirm) = (Tally::default(), false);
    let highest = |rates: &[(f64, Tally)]| rates.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0));
    let lowest_above = |not_met: &[(f64, Tally)], l: Option<f64>| {
        let above = not_met.iter().filter(|(r, _)| l.is_none_or(|l| *r > l)).copied();
        above.min_by(|a, b| a.0.total_cmp(&b.0))
    };
    let outcome = loop {
        let room = settings.max_steps.saturating_sub(steps.len());
        let lo = highest(&met).map(|m| m.0);
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
        let rule = if confirm { &confirming } else { settings };
        let verdict = judge(rate, (room, exploring), &mut tally, rule, &mut run, record);
        // A rate decided again (confirmed, or decided in full after exploring) replaces its first verdict, unless
        // the cap cut it short: undecided then, it keeps the verdict it had.
        let again = met.iter().chain(&not_met).any(|(r, _)| *r == rate);
        match verdict {
            Err(e) => break Outcome::Failed { why: format!("{e:#}") },
            Ok(Some(Verdict::Undecided)) if again => {}
            Ok(v) => {
                met.retain(|(r, _)| *r != rate);
                not_met.retain(|(r, _)| *r != rate);
                match v {
                    Some(Verdict::Met) => met.push((rate, tally)),
                    _ => not_met.push((rate, tally)),
                }
            }
        }
        (tally, confirm) = (Tally::default(), false);
        let Some((l, lt)) = highest(&met) else {
            if rate / 2.0 < lowest - 0.5 {
                break Outcome::NoRate { lowest_rps: rate };
            }
            rate = whole(rate / 2.0).max(lowest);
            continue;
        };
        match lowest_above(&not_met, Some(l)) {
            None => rate = climb(l),
            Some((u, t)) if close_enough(l, u, resolution) => {
                let decided = |t: Tally, rule: &SearchSettings| decide(t.met, t.n, rule.max_windows, rule.margin());
                // The bracket would close on a rate missed by one window while exploring: it is decided in full
                // first, so that one stalled window cannot set the capacity. Met, the next rate not met above it
                // is the bracket's end.
                if t.n == 1 && decided(t, settings).is_none() {
                    (rate, tally) = (u, t);
                    continue;
                }
                // Then both ends are decided again by the stronger rule, the low end first, on more windows: a
                // wrong verdict at either end is what would put the capacity outside its bracket. Reversed, the
                // bracket opens again and the bisection goes on.
                if !settings.confirm_ends {
                    break found(&steps, l, settings, true);
                }
                if decided(lt, &confirming).is_none() {
                    (rate, tally, confirm) = (l, lt, true);
                } else if decided(t, &confirming).is_none() {
                    (rate, tally, confirm) = (u, t, true);
                } else {
                    break found(&steps, l, settings, true);
                }
            }
            Some((u, _)) => rate = whole((l * u).sqrt()),
        }
    };
    (steps, outcome)
}

/// The rule that confirms the ends of a closing bracket: a lead of one window more than the search's, and two more
/// windows at most (a lead of 3, up to 7 windows, by default; the first two agreeing windows then take one more).
pub fn confirming(settings: &SearchSettings) -> SearchSettings {
    SearchSettings { margin: Some(settings.margin() + 1), max_windows: settings.max_windows + 2, ..settings.clone() }
}

/// The verdict of each rate a search decided: the last one recorded at it (a rate confirmed at the bracket's end has
/// two), unless that one is undecided, cut short by the cap, in the order the rates were first decided.
pub fn verdicts(steps: &[Step]) -> Vec<(f64, Verdict)> {
    let mut out: Vec<(f64, Verdict)> = Vec::new();
    for s in steps {
        let Some(v) = s.verdict else { continue };
        match out.iter_mut().find(|(r, _)| *r == s.rate_asked) {
            Some(at) if v != Verdict::Undecided => at.1 = v,
            Some(_) => {}
            None => out.push((s.rate_asked, v)),
        }
    }
    out
}

/// The outcome of a search whose capacity is `rps`, the highest rate decided met: `confirmed` when its bracket
/// closed to the resolution.
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
    /// lowest rate above it decided missed (in a file written before rates had verdicts, the lowest failing step
    /// above it, each step then a rate's whole verdict). `None` when there is no capacity.
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

    /// The rates decided missed: by their windows' last verdict ([`verdicts`]), or, in a file written before rates
    /// were decided by several windows (no step has a verdict), every failing step.
    fn missed_rates(&self) -> impl Iterator<Item = f64> + '_ {
        let old = self.steps.iter().all(|s| s.verdict.is_none());
        let failed = self.steps.iter().filter(move |s| old && !s.passed()).map(|s| s.rate_asked);
        let missed = verdicts(&self.steps).into_iter().filter(|&(_, v)| v == Verdict::Missed).map(|(r, _)| r);
        failed.chain(missed)
    }

    /// Records the bracket its steps establish (see [`Search::bracket`]), for `benchmark.json`'s readers.
    pub fn with_bracket(mut self) -> Search {
        self.bracket = None;
        self.bracket = self.bracket();
        self
    }
}

/// Windows a search is expected to take on a quiet machine: two per rate (two agreeing windows decide one), for the
/// first rate, one halving and the bisection to the resolution, and one more at each end of the bracket to confirm
/// it; a rate missed while the search explores takes one. (A capacity above the first rate takes about as many: the
/// first rate, a doubling, the bisection.)
pub fn expected_steps(resolution_percent: f64) -> usize {
    let bisections = (2f64.ln() / (1.0 + resolution_percent / 100.0).ln()).log2().ceil().max(0.0) as usize;
    2 * (2 + bisections) + 2
}

/// The cap of one search's windows, which the estimate budgets for every search: 18 in the default plan (at 5 %,
/// where a quiet search expects 14 with the confirmation of its bracket's ends, and the simulated coin-toss
/// subject's searches take 17 on average), 14 under `--quick` (25 %, 1-second windows). They are set by the time
/// budget: the default plan's five searches at 18 windows of 5.6 s take 8 min 24 s; `--quick`'s two at 14 windows of
/// 1.6 s take 45 s. One rate takes at most [`super::verdict::max_windows`] of them (5, or 3 under `--quick`; 7 to
/// confirm a bracket's end), and a rate the cap cuts short is undecided: the cap is the worst case of a search,
/// whatever its rates take.
pub fn max_steps(_resolution_percent: f64, quick: bool) -> usize {
    if quick { 14 } else { 18 }
}
