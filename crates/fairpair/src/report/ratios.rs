//! Ratios against the baseline, and how far each can be trusted: a measured ratio, a bound (one side is
//! loader-limited or loader-bound), or none (both are). Every ratio runs one way: a subject's figure over the
//! baseline's.

use crate::schema::{Benchmark, SubjectKind, Summary};

/// The subject every ratio is taken against: `--baseline`, else the first built-in subject that implements the API
/// (rust by default), else the first that implements it, of those measured. `None` when no subject that implements
/// it was measured.
pub fn baseline(b: &Benchmark) -> Option<&str> {
    // Only a subject with figures: one that did not start, or failed verification, has nothing to divide by.
    let api: Vec<&crate::schema::SubjectRecord> =
        b.subjects.iter().filter(|s| !s.get_only && measured(b, &s.name)).collect();
    let given = b.settings.baseline.as_deref().and_then(|n| api.iter().find(|s| s.name == n));
    let builtin = api.iter().find(|s| s.kind == SubjectKind::Builtin);
    given.or(builtin).or(api.first()).map(|s| s.name.as_str())
}

/// Whether a subject has any figure in `b`: a closed-loop run, a capacity search or a memory run.
pub fn measured(b: &Benchmark, name: &str) -> bool {
    b.runs.iter().any(|r| r.subject == name)
        || b.memory.iter().any(|m| m.subject == name)
        || b.capacity.iter().flat_map(|c| &c.searches).any(|s| s.subject == name)
}

/// `a / b` when both were measured and positive; `None` where a ratio would mean nothing (a subject with no
/// throughput figure, or a zero), so that no table prints `0.00×` for "not measured".
pub(crate) fn ratio(a: f64, b: f64) -> Option<f64> {
    (a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite()).then(|| a / b)
}

/// A percentage: whole numbers, but two significant digits below 10 % (`0.96 %`, never `0 %` for a small share).
pub(crate) fn percent_text(p: f64) -> String {
    if p >= 10.0 {
        format!("{p:.0}")
    } else if p >= 1.0 {
        format!("{p:.1}")
    } else if p > 0.0 {
        let decimals = (1 - p.log10().floor() as i32) as usize;
        format!("{p:.decimals$}")
    } else {
        "—".into()
    }
}

/// A ratio with two significant digits at least: `2.10`, `0.48`, `0.0096` (never `0.00` for a small one).
pub fn ratio_text(r: f64) -> String {
    if r <= 0.0 || !r.is_finite() {
        return "—".into();
    }
    let decimals = if r >= 0.1 { 2 } else { (1 - r.log10().floor() as i32).max(2) as usize };
    format!("{r:.decimals$}")
}

/// Why a cell's figures are the loader's rather than the server's, if they are: `loader-limited` (above the measured
/// share of the loader's capacity) or, where no capacity was measured or the cell stayed under it, `loader-bound`
/// (the load generator used ≥ 90 % of its CPUs in a run). Either makes the cell's ratios bounds.
pub fn loader_limit(s: &Summary) -> Option<&'static str> {
    if s.loader_limited {
        Some("loader-limited")
    } else if s.loader_bound_runs > 0 {
        Some("loader-bound")
    } else {
        None
    }
}

/// How far a ratio `a / b` can be trusted, given which side is loader-limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Neither side is loader-limited: a measured ratio.
    Exact,
    /// The true ratio is at least the measured one.
    AtLeast,
    /// The true ratio is at most the measured one.
    AtMost,
    /// Both sides are loader-limited: the ratio compares the loader with itself.
    Unknown,
}

impl Bound {
    /// A loader-limited subject's throughput is at most what it could do (the loader held it back), and its latency
    /// at least what it would be (the loader's queueing is in it). So for a metric where higher is better, `a`
    /// limited makes `a / b` a lower bound; where lower is better (latency), an upper bound.
    pub fn of(a: &Summary, b: &Summary, higher_is_better: bool) -> Bound {
        Bound::from_limits(loader_limit(a).is_some(), loader_limit(b).is_some(), higher_is_better)
    }

    pub fn from_limits(a_limited: bool, b_limited: bool, higher_is_better: bool) -> Bound {
        match (a_limited, b_limited, higher_is_better) {
            (false, false, _) => Bound::Exact,
            (true, true, _) => Bound::Unknown,
            (true, false, true) | (false, true, false) => Bound::AtLeast,
            _ => Bound::AtMost,
        }
    }

    /// `2.10×`, `≥ 2.10×`, `≤ 0.48×`, or a dash when both sides are limited.
    pub fn format(self, ratio: f64) -> String {
        match self {
            Bound::Exact => format!("{}×", ratio_text(ratio)),
            Bound::AtLeast => format!("≥ {}×", ratio_text(ratio)),
            Bound::AtMost => format!("≤ {}×", ratio_text(ratio)),
            Bound::Unknown => "— (both loader-limited)".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_follow_the_limited_side_and_the_metric() {
        use Bound::*;
        // Throughput (higher is better): the limited side could have done more.
        assert_eq!(Bound::from_limits(false, false, true), Exact);
        assert_eq!(Bound::from_limits(true, false, true), AtLeast);
        assert_eq!(Bound::from_limits(false, true, true), AtMost);
        assert_eq!(Bound::from_limits(true, true, true), Unknown);
        // Latency (lower is better): the limited side's figure includes the loader's queueing.
        assert_eq!(Bound::from_limits(true, false, false), AtMost);
        assert_eq!(Bound::from_limits(false, true, false), AtLeast);
        assert_eq!(AtLeast.format(2.104), "≥ 2.10×");
        assert_eq!(AtMost.format(0.4789), "≤ 0.48×");
        assert_eq!(Exact.format(3.25), "3.25×");
        assert!(!Unknown.format(1.0).contains('×'), "no number when both sides are limited");
    }
}
