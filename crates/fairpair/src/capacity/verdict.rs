//! The verdict on one rate, from several windows of it.
//!
//! Near a subject's boundary the objective percentile of one window is bimodal: a few milliseconds, or tens once a
//! queue forms (a stall of the subject's, or another process's). One window's verdict is then a coin toss, and a
//! search built on single windows wanders. So each window is one trial, met or missed, and a rate is decided by the
//! share of its windows that met the objective: **met** when the Wilson confidence interval of that share lies wholly
//! above one half (most windows at that rate meet it), **missed** when it lies wholly below, and otherwise one more
//! window, up to [`SearchSettings::max_windows`]; a rate whose interval still straddles one half is **undecided**,
//! neither met nor missed.
//!
//! Why windows and not requests: oha's JSON gives each window's percentiles, not its latencies (its histogram has
//! eleven buckets), so the share of requests within a bound is not there to count; and the requests of one window
//! are not independent trials anyway (one stall delays thousands of them), where windows on fresh servers are.
//! Why one half: it makes the capacity the rate whose median window meets the objective, the rate a reader of one
//! window would most often see. Why [`Z`] = 1.28 (an 80 % two-sided interval, 90 % on the side decided): two
//! windows that agree decide a rate, so a rate far from the boundary costs two windows, and a split pair takes at
//! most three more (four of five decide); a wider interval needs four agreeing windows per rate, which the time
//! budget cannot pay for every rate of a search.

use super::{SearchSettings, StepResult, Verdict};

/// The normal quantile of the Wilson interval: 1.28 is the 90th percentile of the normal distribution.
pub const Z: f64 = 1.28;
/// The share of windows that must meet the objective: a rate is met when most of its windows meet it.
pub const TARGET_SHARE: f64 = 0.5;

/// The Wilson score interval of `met` successes in `n` trials at [`Z`]: unlike the normal approximation it stays
/// within 0 and 1 and is sensible for the few trials (2–5) a rate gets.
pub fn wilson(met: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (met as f64, n as f64);
    let (p, z2) = (k / n, Z * Z);
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The verdict after `met` of `n` windows met the objective, or `None` when another window is needed and allowed
/// (`n` below `max_windows`). With one window per rate (`max_windows` 1: files written before this rule, or a
/// setting asking for it) that window is the verdict, as it used to be.
pub fn decide(met: usize, n: usize, max_windows: usize) -> Option<Verdict> {
    if max_windows <= 1 && n >= 1 {
        return Some(if met == n { Verdict::Met } else { Verdict::Missed });
    }
    let (low, high) = wilson(met, n);
    if low > TARGET_SHARE {
        Some(Verdict::Met)
    } else if high < TARGET_SHARE {
        Some(Verdict::Missed)
    } else if n >= max_windows {
        Some(Verdict::Undecided)
    } else {
        None
    }
}

/// The windows one rate takes at most: a first pair that splits, then three that decide four of five. The estimate
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
/// closes on it. A window the machine disturbed (`crate::disturbance`) is run again, once a rate, and counts in no
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
        let verdict = match decide(tally.met, tally.n, settings.max_windows) {
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
        assert_eq!(decide(2, 2, 5), Some(Verdict::Met));
        assert_eq!(decide(0, 2, 5), Some(Verdict::Missed));
        assert_eq!(decide(1, 1, 5), None, "one window decides nothing");
        assert_eq!(decide(1, 2, 5), None);
        assert_eq!(decide(2, 3, 5), None);
        assert_eq!(decide(3, 4, 5), None);
        assert_eq!(decide(4, 5, 5), Some(Verdict::Met));
        assert_eq!(decide(1, 5, 5), Some(Verdict::Missed));
        assert_eq!(decide(3, 5, 5), Some(Verdict::Undecided));
        assert_eq!(decide(1, 2, 2), Some(Verdict::Undecided));
        // One window per rate is the old rule: that window is the verdict.
        assert_eq!((decide(1, 1, 1), decide(0, 1, 1)), (Some(Verdict::Met), Some(Verdict::Missed)));
    }

    #[test]
    fn the_interval_is_within_zero_and_one_and_narrows_with_windows() {
        let (low, high) = wilson(2, 2);
        assert!(low > 0.5 && high == 1.0, "{low} {high}");
        let (l5, h5) = wilson(5, 10);
        let (l50, h50) = wilson(50, 100);
        assert!(l5 < l50 && h50 < h5 && l50 < 0.5 && h50 > 0.5, "{l5} {h5} {l50} {h50}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
