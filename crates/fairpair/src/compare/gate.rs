//! The regression gate of `report --compare OLD NEW --fail-on-regression`: which compared figures fail a build.
//!
//! A pure function of the comparison's rows. Every figure the comparison shows is considered (throughput, p50, p99
//! and server CPU per request of every cell; the capacity at the latency objective; idle and after-load RSS and
//! start-up of every subject), and one fails the gate only when all of these hold:
//!
//! - it got worse *beyond the noise*: the min–max ranges of its repeats in the two files do not overlap (so a single
//!   run on either side never fails it: its noise is unknown). A capacity is one search in each file, so it never
//!   fails the gate either: it is compared and shown, without a verdict, because repeated searches on one machine
//!   spread by tens of percent (docs/harness.md), far more than the search's resolution;
//! - it got worse by at least the threshold (`--threshold 5%`; none by default), relative to the old median;
//! - it is a value in both files, not a bound: a throughput or latency measured while the loader was at its limit
//!   (loader-limited: at least the measured share, 80 % by default, of the loader's capacity; or loader-bound: the
//!   load tool's CPU at 90 % or more) says what the loader did as much as the server, so it never fails the gate on
//!   its own. The same cell's CPU per request is the server's own and is still gated.

use super::{Change, Comparison, Row};
use crate::export::Limit;

/// What the gate made of one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Not worse beyond the noise: nothing to gate.
    Passes,
    /// No verdict, a single run or search on either side: its noise is unknown, so it is not judged (and never
    /// fails), whatever its ratio.
    NoVerdict,
    /// Worse beyond the noise, and it fails the gate.
    Fails,
    /// Worse beyond the noise, but a bound in one of the files.
    Bound(Limit),
    /// Worse beyond the noise by less than the threshold (the relative change, e.g. 0.03).
    BelowThreshold(f64),
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passes => "passes",
            Outcome::NoVerdict => "not judged: no verdict",
            Outcome::Fails => "fails",
            Outcome::Bound(_) => "tolerated: a bound",
            Outcome::BelowThreshold(_) => "tolerated: below the threshold",
        }
    }
}

/// How much worse the new median is than the old, as a fraction of the old (0.1: 10 % worse); `None` when the old
/// median is zero.
pub fn worsening(row: &Row) -> Option<f64> {
    if row.old.median == 0.0 {
        return None;
    }
    let change = (row.new.median - row.old.median) / row.old.median.abs();
    Some(if row.metric.higher_is_better() { -change } else { change })
}

/// The gate's outcome for one row, with `threshold` a fraction (0.05 for `--threshold 5%`).
pub fn judge(row: &Row, threshold: f64) -> Outcome {
    match row.change {
        Change::NoiseUnknown => return Outcome::NoVerdict,
        Change::Better | Change::WithinNoise => return Outcome::Passes,
        Change::Worse => {}
    }
    if let Some(limit) = row.limit {
        return Outcome::Bound(limit);
    }
    match worsening(row) {
        Some(w) if w < threshold => Outcome::BelowThreshold(w),
        _ => Outcome::Fails,
    }
}

/// The rows that fail the gate.
pub fn failures(c: &Comparison, threshold: f64) -> Vec<&Row> {
    c.rows.iter().filter(|r| judge(r, threshold) == Outcome::Fails).collect()
}

/// Reads `--threshold`: a percentage, `5%` or `5`.
pub fn parse_threshold(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p / 100.0),
        _ => Err(format!("--threshold wants a percentage such as 5%, got {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::stats::Stat;
    use crate::export::Metric;

    fn row(metric: Metric, old: &[f64], new: &[f64], limit: Option<Limit>) -> Row {
        let (old, new) = (Stat::of(old).unwrap(), Stat::of(new).unwrap());
        let change = Change::of(metric, &old, &new);
        Row { cell: None, subject: "mine".into(), metric, old, new, change, limit, notes: vec![] }
    }

    #[test]
    fn only_a_value_worse_beyond_the_noise_and_the_threshold_fails() {
        let down = row(Metric::Throughput, &[100.0, 101.0, 102.0], &[90.0, 91.0, 92.0], None);
        assert_eq!(judge(&down, 0.0), Outcome::Fails);
        assert!((worsening(&down).unwrap() - 10.0 / 101.0).abs() < 1e-12);
        assert_eq!(judge(&down, 0.09), Outcome::Fails);
        assert!(matches!(judge(&down, 0.15), Outcome::BelowThreshold(_)));
        let bound = Row { limit: Some(Limit::LoaderLimited), ..down.clone() };
        assert_eq!(judge(&bound, 0.0), Outcome::Bound(Limit::LoaderLimited));
        let up = row(Metric::P99, &[5.0, 5.1, 5.2], &[6.0, 6.1, 6.2], None);
        assert_eq!(judge(&up, 0.0), Outcome::Fails);
        let better = row(Metric::P99, &[6.0, 6.1, 6.2], &[5.0, 5.1, 5.2], None);
        assert_eq!(judge(&better, 0.0), Outcome::Passes);
    }

    #[test]
    fn a_single_run_or_search_is_not_judged() {
        // A capacity is one search per file: 30 % lower is no verdict, so it never fails, whatever the threshold.
        let capacity = row(Metric::Capacity, &[10_000.0], &[7_000.0], None);
        assert_eq!(capacity.change, Change::NoiseUnknown);
        assert_eq!(judge(&capacity, 0.0), Outcome::NoVerdict);
        assert_eq!(judge(&capacity, 0.0).as_str(), "not judged: no verdict");
        let quick = row(Metric::Throughput, &[100.0], &[50.0, 51.0, 52.0], None);
        assert_eq!(judge(&quick, 0.0), Outcome::NoVerdict);
    }

    #[test]
    fn thresholds_are_percentages() {
        assert_eq!(parse_threshold("5%"), Ok(0.05));
        assert_eq!(parse_threshold("2.5"), Ok(0.025));
        assert!(parse_threshold("-1%").is_err() && parse_threshold("five").is_err());
    }
}
