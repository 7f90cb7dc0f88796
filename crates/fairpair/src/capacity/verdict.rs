//! The verdict on one rate, from several windows of it.
//!
//! Near a subject's boundary the objective percentile of one window is bimodal: a few milliseconds, or tens once a
//! queue forms (a stall of the subject's, or another process's). One window's verdict is then a coin toss, and a
//! search built on single windows wanders. So each window is one trial, met or missed, and a rate is decided
//! sequentially by the count of its windows: **met** as soon as those that met outnumber those that missed by the
//! margin ([`SearchSettings::margin`], [`MARGIN`] = 2), **missed** as soon as those that missed outnumber the others
//! by it, and otherwise one more window, up to [`SearchSettings::max_windows`], where the majority decides (an odd
//! count always has one); a rate is **undecided** only when the search's cap of windows cuts it short, or an even
//! count of windows ties.
//!
//! Why windows and not requests: oha's JSON gives each window's percentiles, not its latencies (its histogram has
//! eleven buckets), so the share of requests within a bound is not there to count; and the requests of one window
//! are not independent trials anyway (one stall delays thousands of them), where windows on fresh servers are.
//! Why one half: it makes the capacity the rate whose median window meets the objective, the rate a reader of one
//! window would most often see, and the majority at the cap puts the verdict's threshold there too.
//!
//! Why a margin: the rule is Wald's sequential probability-ratio test between a rate whose windows meet the objective
//! three times in four and one whose windows meet it once in four (the rates 5 % either side of the capacity, the
//! default resolution, for a subject whose share falls from 1 to 0 across ±10 %): each window multiplies the
//! likelihood ratio of the two by 3 or by 1/3, so the ratio is 3 to the power of the margin by which met windows
//! lead, and a margin of 2 stops at odds of 9 to 1. The error of the rule at those two rates, with `p` the share of
//! windows that meet and `q = 1 - p` (two agreeing windows decide, a split pair takes two more, a second split the
//! fifth window's majority):
//!
//! - P(met) = p² + 2pq·p² + (2pq)²·p. At p = 0.75: 0.5625 + 0.375 × 0.5625 + 0.1406 × 0.75 = 0.879, so a rate 5 %
//!   below the capacity is missed 12 % of the time; at p = 0.25 it is met 12 % of the time (the rule is symmetric);
//!   it takes 2 + 2 × 2pq + (2pq)² = 2.9 windows on average there, 3.25 at p = 0.5 and 2 far from the boundary.
//! - The rule it replaced (met or missed when the 80 % Wilson interval of the share of met windows lay wholly above
//!   or below one half, undecided after 5 windows otherwise) needed four of five once the first pair split: P(met) =
//!   p² + 2pq·p³ = 0.5625 + 0.375 × 0.4219 = 0.721 at p = 0.75, P(missed) = q² + 2pq·q³ = 0.068, undecided 0.211,
//!   in 3.1 windows on average. Since the search treats an undecided rate as not met, a rate 5 % below the capacity
//!   was not met 28 % of the time, against 7 % for a rate 5 % above it being met: the capacity drifted low.
//!
//! Why the search still lands outside ±5 % of the capacity in about a third of searches (the coin-toss test in
//! `tests.rs`): the capacity is the highest rate decided met and the bracket closes once it is 5 % wide, so the
//! capacity is within 5 % below the boundary only when the last rates of the bisection, between 0.95 and 1 times it
//! (p from 0.75 to 0.5), are decided met, each at odds from 0.88 down to a coin toss. A search cannot do much better
//! on a window budget of eleven: a window at the boundary carries a Fisher information about C of (dp/dC)² / pq =
//! (5 / C)² / 0.25 = 100 / C², so even eleven windows all at C leave a standard error of C / √(100 × 11) = 3 % of C,
//! within ±5 % in 90 % of searches; 95 % needs 1.96 × 0.1 / √n ≤ 0.05, n ≥ 16 windows at C before any is spent
//! finding it. With a margin of 3, 9 windows a rate and a bisection to 2.5 %, the capacity is within
//! ±5 % in at least 97 of 100 searches, in about 30 windows a search, which the default plan's time budget cannot pay
//! (see [`super::max_steps`]).

use super::{SearchSettings, StepResult, Verdict};

/// The margin of the default plan and of `--quick`: two agreeing windows decide a rate.
pub const MARGIN: usize = 2;

impl SearchSettings {
    /// The margin that decides a rate ([`MARGIN`] when the settings do not say, as no search of today's omits it).
    pub fn margin(&self) -> usize {
        self.margin.unwrap_or(MARGIN)
    }
}

/// The verdict after `met` of `n` windows met the objective, or `None` when another window is needed and allowed
/// (`n` below `max_windows`). With one window per rate (`max_windows` 1: files written before this rule, or a
/// setting asking for it) that window is the verdict, as it used to be.
pub fn decide(met: usize, n: usize, max_windows: usize, margin: usize) -> Option<Verdict> {
    if max_windows <= 1 && n >= 1 {
        return Some(if met == n { Verdict::Met } else { Verdict::Missed });
    }
    let (met, missed) = (met as i64, (n - met) as i64);
    let lead = met - missed;
    let margin = margin.max(1) as i64;
    if lead >= margin {
        Some(Verdict::Met)
    } else if -lead >= margin {
        Some(Verdict::Missed)
    } else if n >= max_windows {
        Some(match lead.signum() {
            1 => Verdict::Met,
            -1 => Verdict::Missed,
            _ => Verdict::Undecided,
        })
    } else {
        None
    }
}

/// The windows one rate takes at most: a first pair that splits, a second that splits, and a fifth whose majority
/// decides (under `--quick` a split pair and a third). The estimate
/// does not count this per rate: it counts every search at its cap of windows ([`super::max_steps`]).
pub fn max_windows(quick: bool) -> usize {
    if quick { 3 } else { 5 }
}

/// The windows run so far at one rate, and how many met the objective.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub met: usize,
    pub n: usize,
}

/// Runs windows at `rate` (after those of `tally`) until they decide it, or until the search's cap of windows (`room`
/// windows left) leaves none: then the rate is undecided, whatever its windows said. While `exploring` (the search
/// has no bracket yet), a first window that misses ends the rate as not met with no verdict (`None`): far from the
/// boundary that is cheap and almost always right, and the search decides such a rate in full before its bracket
/// closes on it. A window the machine disturbed (`crate::run::disturbance`) is run again, once a rate, and counts in no
/// verdict; the rerun is a window of the search's cap like any other. Each window's result is handed to `record`,
/// with the verdict when it settled the rate.
pub fn judge(
    rate: f64,
    (room, exploring): (usize, bool),
    tally: &mut Tally,
    settings: &SearchSettings,
    run: &mut impl FnMut(f64) -> anyhow::Result<StepResult>,
    mut record: impl FnMut(StepResult, Option<Verdict>),
) -> anyhow::Result<Option<Verdict>> {
    let (mut used, mut rerun) = (0, false);
    loop {
        let mut result = run(rate)?;
        used += 1;
        if let Some(d) = result.disturbance.as_mut().filter(|d| d.disturbed() && !rerun && used < room) {
            (d.rerun, rerun) = (true, true);
            record(result, None);
            continue;
        }
        let met = settings.objective.misses(&result, rate).is_none();
        (tally.met, tally.n) = (tally.met + usize::from(met), tally.n + 1);
        if exploring && tally.n == 1 && !met {
            record(result, None);
            return Ok(None);
        }
        // The cap cutting a rate short leaves it undecided, not met on one window.
        let verdict = match decide(tally.met, tally.n, settings.max_windows, settings.margin()) {
            None if used >= room => Some(Verdict::Undecided),
            v => v,
        };
        record(result, verdict);
        if verdict.is_some() {
            return Ok(verdict);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_agreeing_windows_decide_a_rate_and_a_split_takes_more() {
        let d = |met, n| decide(met, n, 5, MARGIN);
        assert_eq!((d(2, 2), d(0, 2)), (Some(Verdict::Met), Some(Verdict::Missed)));
        assert_eq!((d(1, 1), d(0, 1)), (None, None), "one window decides nothing");
        assert_eq!((d(1, 2), d(2, 3), d(1, 3)), (None, None, None));
        // A split pair and an agreeing pair: the met windows lead by two.
        assert_eq!((d(3, 4), d(1, 4), d(2, 4)), (Some(Verdict::Met), Some(Verdict::Missed), None));
        // At the cap the majority decides, so an odd cap leaves nothing undecided.
        assert_eq!((d(3, 5), d(2, 5)), (Some(Verdict::Met), Some(Verdict::Missed)));
        // An even cap can tie.
        assert_eq!(decide(1, 2, 2, MARGIN), Some(Verdict::Undecided));
        // A margin of 3 takes three agreeing windows, or a lead of three after a split, and the majority at the cap.
        assert_eq!((decide(2, 2, 9, 3), decide(3, 3, 9, 3), decide(3, 4, 9, 3)), (None, Some(Verdict::Met), None));
        assert_eq!((decide(4, 5, 9, 3), decide(5, 9, 9, 3)), (Some(Verdict::Met), Some(Verdict::Met)));
        // One window per rate is the old rule: that window is the verdict.
        assert_eq!((decide(1, 1, 1, MARGIN), decide(0, 1, 1, MARGIN)), (Some(Verdict::Met), Some(Verdict::Missed)));
    }

    #[test]
    fn the_rules_error_at_the_resolutions_edges_is_the_one_worked_out_above() {
        // Every sequence of windows at share p, weighted by its probability: P(met) at p = 0.75 (a rate 5 % below a
        // coin-toss subject's capacity) is 0.879, and P(missed) at p = 0.25 the same, in 2.9 windows on average.
        fn walk(p: f64, met: usize, n: usize) -> (f64, f64) {
            match decide(met, n, 5, MARGIN) {
                Some(Verdict::Met) => (1.0, n as f64),
                Some(_) => (0.0, n as f64),
                None => {
                    let (a, wa) = walk(p, met + 1, n + 1);
                    let (b, wb) = walk(p, met, n + 1);
                    (p * a + (1.0 - p) * b, p * wa + (1.0 - p) * wb)
                }
            }
        }
        let (met, windows) = walk(0.75, 0, 0);
        assert!((met - 0.879).abs() < 0.001 && (windows - 2.89).abs() < 0.01, "{met} {windows}");
        let (met, _) = walk(0.25, 0, 0);
        assert!((met - 0.121).abs() < 0.001, "{met}");
    }
}
