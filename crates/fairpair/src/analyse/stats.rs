//! Summary statistics of repeated measurements: median, min, max and the coefficient of variation.
//!
//! Medians rather than means: one run disturbed by a neighbour's compile should not move the headline figure, and
//! min–max shows the whole spread instead of hiding it behind a standard error that assumes a normal distribution.

use serde::{Deserialize, Serialize};

/// One metric over the repeats of one cell (subject × scenario × connections).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// How many values went in.
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation divided by the mean; `None` with fewer than two values (noise not measured) or a
    /// mean of zero.
    pub cv: Option<f64>,
}

impl Stat {
    /// Summarises `values`; `None` when there are none. Non-finite values are ignored, since they mean "not measured".
    pub fn of(values: &[f64]) -> Option<Stat> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(Stat {
            n: v.len(),
            median: median_of_sorted(&v),
            min: v[0],
            max: v[v.len() - 1],
            cv: coefficient_of_variation(&v),
        })
    }

    /// The same figures divided by 1,024: KiB as MiB.
    pub fn kib_to_mib(&self) -> Stat {
        Stat { n: self.n, median: self.median / 1024.0, min: self.min / 1024.0, max: self.max / 1024.0, cv: self.cv }
    }

    /// The spread `(max − min) / median`, the noise figure the verdicts use; `None` for one value or a zero median.
    pub fn spread(&self) -> Option<f64> {
        if self.n < 2 || self.median == 0.0 { None } else { Some((self.max - self.min) / self.median.abs()) }
    }
}

/// The median of already sorted values: the middle one, or the mean of the two middle ones.
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 }
}

/// Sample standard deviation (n − 1) over the mean.
pub fn coefficient_of_variation(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if mean == 0.0 {
        return None;
    }
    let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(var.sqrt() / mean.abs())
}

/// How two medians compare against the noise measured around them.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Fewer than two runs on a side: nothing can be said about noise.
    NoiseUnknown,
    /// The min–max ranges overlap: the difference is within the measured noise.
    WithinNoise,
    /// The ranges are disjoint: the difference is larger than anything the repeats showed.
    Exceeds,
}

/// Compares two summaries: a difference "exceeds the noise" only when the min–max ranges do not overlap, a
/// deliberately strict test for three repeats (no distributional assumption).
pub fn verdict(a: &Stat, b: &Stat) -> Verdict {
    if a.n < 2 || b.n < 2 {
        Verdict::NoiseUnknown
    } else if a.max < b.min || b.max < a.min {
        Verdict::Exceeds
    } else {
        Verdict::WithinNoise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(Stat::of(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(Stat::of(&[4.0, 1.0, 3.0, 2.0]).unwrap().median, 2.5);
        assert_eq!(Stat::of(&[7.0]).unwrap().median, 7.0);
    }

    #[test]
    fn min_max_and_count() {
        let s = Stat::of(&[5.0, 9.0, 1.0, f64::NAN]).unwrap();
        assert_eq!((s.n, s.min, s.max), (3, 1.0, 9.0));
    }

    #[test]
    fn empty_input_has_no_summary() {
        assert_eq!(Stat::of(&[]), None);
        assert_eq!(Stat::of(&[f64::INFINITY]), None);
    }

    #[test]
    fn coefficient_of_variation_uses_the_sample_deviation() {
        // Mean 10, sample variance ((−2)² + 0 + 2²) / 2 = 4, deviation 2: CV 0.2.
        let cv = Stat::of(&[8.0, 10.0, 12.0]).unwrap().cv.unwrap();
        assert!((cv - 0.2).abs() < 1e-12, "{cv}");
        assert_eq!(Stat::of(&[8.0]).unwrap().cv, None);
        assert_eq!(Stat::of(&[0.0, 0.0]).unwrap().cv, None);
        assert_eq!(Stat::of(&[5.0, 5.0, 5.0]).unwrap().cv, Some(0.0));
    }

    #[test]
    fn spread_is_range_over_median() {
        let s = Stat::of(&[90.0, 100.0, 110.0]).unwrap();
        assert!((s.spread().unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(Stat::of(&[1.0]).unwrap().spread(), None);
    }

    #[test]
    fn verdicts() {
        let a = Stat::of(&[100.0, 101.0, 102.0]).unwrap();
        let b = Stat::of(&[110.0, 111.0, 112.0]).unwrap();
        let c = Stat::of(&[101.5, 105.0, 108.0]).unwrap();
        assert_eq!(verdict(&a, &b), Verdict::Exceeds);
        assert_eq!(verdict(&b, &a), Verdict::Exceeds);
        assert_eq!(verdict(&a, &c), Verdict::WithinNoise);
        assert_eq!(verdict(&a, &Stat::of(&[200.0]).unwrap()), Verdict::NoiseUnknown);
    }
}
