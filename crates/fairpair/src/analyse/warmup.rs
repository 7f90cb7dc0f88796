//! The warm-up probe's analysis: from a subject's per-second throughput over one long run on a fresh process, its
//! steady throughput and the time it took to reach it, and whether the measured runs' warm-up covers that time.
//! Pure functions of the series; `execute` runs the probe (`measure::Runner::series`), the report says what they
//! found.
//!
//! A JIT (the JVM's C1 then C2, V8's Sparkplug then TurboFan) compiles the hot paths while the first requests are
//! served, so a fresh process answers slower for a while; a compiled server is at its speed from the first second.
//! The measured runs throw away `warmup_s` seconds of load on each fresh process: a subject whose time to steady is
//! longer would have part of its warm-up inside its measured figures. So the probe lengthens that subject's warm-up,
//! and only that subject's ([`extended_warmup`]): a warm-up is load that no figure counts, so the windows every
//! subject is measured over stay the same, and a JVM's capacity windows, each on a fresh process, measure the JVM
//! rather than its compiler. Lengthening every subject's warm-up would add the same seconds to the 80-odd fresh
//! processes of a default run (half an hour more) and change nothing the others' figures show.

use crate::analyse::stats::median_of_sorted;
use crate::run::measure::Series;
use crate::schema::WarmupProbe;
use crate::text::thousands;

/// A second is steady when its throughput is within this share of the steady throughput.
pub const STEADY_TOLERANCE: f64 = 0.05;

/// The steady throughput of a series: the median of its last third (at least its last second); `None` for an empty
/// series. The median, not the mean, so that one slow second of a busy machine does not move it.
pub fn steady_rps(series: &[f64]) -> Option<f64> {
    let tail = &series[series.len() - last_third(series.len())..];
    let mut sorted = tail.to_vec();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| median_of_sorted(&sorted))
}

/// How many seconds make the last third of a series of `n`: the stretch the steady throughput is read from.
fn last_third(n: usize) -> usize {
    n.div_ceil(3)
}

/// Seconds until the throughput first stays within [`STEADY_TOLERANCE`] of `steady` for the rest of the series: 0
/// when it is steady from its first second. `None` ("not steady within the probe") when the steady stretch does not
/// reach back over the whole last third: the steady figure itself would then be read from seconds that are not
/// steady, and a stretch of the last few seconds is too short to say the subject settled.
pub fn seconds_to_steady(series: &[f64], steady: f64) -> Option<u64> {
    let within = |rps: f64| steady > 0.0 && ((rps - steady) / steady).abs() <= STEADY_TOLERANCE;
    let start = series.iter().rposition(|&rps| !within(rps)).map_or(0, |last_out| last_out + 1);
    (start <= series.len() - last_third(series.len()) && !series.is_empty()).then_some(start as u64)
}

/// Whether the measured runs' warm-up covered a subject's time to steady.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Steady within `warmup_s`: the measured figures are of the steady subject.
    Covered,
    /// Steady after `warmup_s`: its first measured seconds were still warming up.
    Short,
    /// Not steady within the probe: at least as long as the probe, which may be longer than the warm-up.
    Unknown,
}

/// Which way a warm-up left in the measured figures moves them: a subject that starts slower than it ends
/// (a JIT) is measured slower than it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bias {
    Low,
    High,
}

impl WarmupProbe {
    /// Whether `warmup_s` seconds of discarded load cover this subject's time to steady.
    pub fn coverage(&self, warmup_s: u64) -> Coverage {
        match self.seconds_to_steady {
            Some(s) if s <= warmup_s => Coverage::Covered,
            Some(_) => Coverage::Short,
            // Not steady, but plainly still rising after the warm-up (a JVM's JIT): short, not unknown.
            None if self.rising_after(warmup_s).is_some() => Coverage::Short,
            // Not steady by the 5 % rule (a noisy end), but warm from within the warm-up on: covered.
            None if self.warm_after().is_some_and(|w| w <= warmup_s) => Coverage::Covered,
            None => Coverage::Unknown,
        }
    }

    /// Seconds until every later second of the probe serves at least [`RISING_SHARE`] of the steady rate: when a
    /// subject is warm, a looser mark than steady (a JVM's last seconds move by more than 5 % once compiled, with its
    /// collector and its compiler's late work). `None` when that stretch does not reach back over the whole last
    /// third, as for steady: the steady rate is read from it.
    pub fn warm_after(&self) -> Option<u64> {
        let warm = |rps: f64| self.steady_rps > 0.0 && rps >= RISING_SHARE * self.steady_rps;
        let series = &self.per_second_rps;
        let start = series.iter().rposition(|&rps| !warm(rps)).map_or(0, |last_cold| last_cold + 1);
        (start <= series.len() - last_third(series.len()) && !series.is_empty()).then_some(start as u64)
    }

    /// The warm-up its runs had: the probe's lengthened one, or else the plan's `warmup_s`.
    pub fn applied_warmup(&self, warmup_s: u64) -> u64 {
        self.warmup_s.unwrap_or(warmup_s)
    }

    /// Its mean throughput between `warmup_s` and the probe's last third, when that is below [`RISING_SHARE`] of
    /// the steady rate: the seconds right after the warm-up were still well below the steady state, whatever the
    /// noise of the last third.
    pub fn rising_after(&self, warmup_s: u64) -> Option<f64> {
        let n = self.per_second_rps.len() as u64;
        let until = n - last_third(n as usize) as u64;
        let mean = self.mean_over(warmup_s, until.checked_sub(warmup_s)?)?;
        (mean < RISING_SHARE * self.steady_rps).then_some(mean)
    }

    /// The direction of the bias a warm-up left in the measured figures gives them: the first second against the
    /// steady rate.
    pub fn bias(&self) -> Bias {
        match self.first_rps() <= self.steady_rps {
            true => Bias::Low,
            false => Bias::High,
        }
    }

    /// The throughput of the probe's first second (0 when it has none).
    pub fn first_rps(&self) -> f64 {
        self.per_second_rps.first().copied().unwrap_or(0.0)
    }

    /// One sentence on whether the warm-up of its measured runs (the plan's `warmup_s`, or the probe's lengthened one)
    /// covers this subject's time to steady, and where it does not, what that does to its figures.
    pub fn sentence(&self, warmup_s: u64) -> String {
        let bias = match self.bias() {
            Bias::Low => "lower throughput (and higher latency) than its steady state",
            Bias::High => "higher throughput than its steady state",
        };
        let (name, probe) = (&self.subject, self.per_second_rps.len());
        let applied = self.applied_warmup(warmup_s);
        let of_runs = match self.warmup_s {
            Some(w) => format!(
                "the {w} s warm-up its measured runs and capacity windows had (lengthened from {warmup_s} s for it \
                 by this probe)"
            ),
            None => format!("the {warmup_s} s warm-up of the measured runs"),
        };
        let finding = match (self.coverage(applied), self.seconds_to_steady) {
            (Coverage::Covered, Some(s)) => {
                format!("{name} is steady after {s} s, within {of_runs}: the warm-up covers it.")
            }
            (Coverage::Covered, None) => format!(
                "{name} served at least {:.0} % of its steady {}/s from second {} on (its last seconds still moved by \
                 more than 5 %, so not steady by that rule), within {of_runs}: the warm-up covers it.",
                RISING_SHARE * 100.0,
                thousands(self.steady_rps),
                self.warm_after().unwrap_or_default() + 1
            ),
            (Coverage::Short, Some(s)) => format!(
                "{name} is steady only after {s} s, longer than {of_runs}: its measured figures include part of its \
                 warm-up, which biases them towards {bias}."
            ),
            (Coverage::Short, None) => format!(
                "{name} was still warming up after {of_runs}: between it and the probe's last third it served {}/s on \
                 average, against {}/s steady (and it was not steady within the {probe} s probe): its measured \
                 figures include part of its warm-up, which biases them towards {bias}.",
                thousands(self.rising_after(applied).unwrap_or_default()),
                thousands(self.steady_rps)
            ),
            (Coverage::Unknown, _) => format!(
                "{name} was not steady within the {probe} s probe (its last seconds still moved by more than 5 %: a \
                 warm-up still going on, or noise), so whether {of_runs} covers it cannot be told from this run; if \
                 it is a warm-up, its measured figures lean towards {bias}."
            ),
        };
        match self.busy() {
            true => format!(
                "{finding} Other processes used {:.0} % of the machine during its probe: part of what the series \
                 shows may be their noise rather than a warm-up.",
                self.other_cpu_percent
            ),
            false => finding,
        }
    }

    /// Whether the machine was busy during the probe: not idle when it began, or other processes used more than
    /// [`BUSY_PROBE_PERCENT`] of it.
    pub fn busy(&self) -> bool {
        !self.machine_idle || self.other_cpu_percent > BUSY_PROBE_PERCENT
    }
}

/// Above this share of the machine used by other processes, a probe's series is said to be possibly their noise
/// (the idle threshold's default).
pub const BUSY_PROBE_PERCENT: f64 = 10.0;

/// Below this share of its steady throughput, over the seconds a capacity window measures, a subject's fresh process
/// is still warming up there (the JVM's first seconds run at a few percent of its steady rate; Node's at about three
/// quarters, which one-second noise alone also gives).
pub const WARMING_SHARE: f64 = 0.5;

/// Below this share of its steady throughput on average, the seconds after a warm-up are still rising: twice the
/// steadiness tolerance, so that one-second noise alone does not reach it.
pub const RISING_SHARE: f64 = 1.0 - 2.0 * STEADY_TOLERANCE;

impl WarmupProbe {
    /// Its mean throughput over the probe's seconds `from_s..from_s + len_s` (counted from the process's start), if the
    /// probe reached all of them.
    pub fn mean_over(&self, from_s: u64, len_s: u64) -> Option<f64> {
        let seconds = self.per_second_rps.get(from_s as usize..(from_s + len_s) as usize)?;
        (!seconds.is_empty()).then(|| seconds.iter().sum::<f64>() / seconds.len() as f64)
    }
}

/// The subjects whose warm-up their measured runs' warm-up did not cover, by their probes.
pub fn not_covered(b: &crate::schema::Benchmark) -> Vec<&str> {
    let short = |p: &&WarmupProbe| p.coverage(p.applied_warmup(b.settings.warmup_s)) == Coverage::Short;
    b.warmup_probes.iter().filter(short).map(|p| p.subject.as_str()).collect()
}

/// The warm-up a subject's runs need instead of the plan's `warmup_s`, by its probe: its time to steady, or to warm
/// when its end is too noisy to be steady, or the whole probe when it was still rising at its end; rounded up to
/// whole 5 seconds, so that a second of noise does not decide the figure. `None` when the plan's covers it (or the
/// probe cannot tell: a noisy series that never rose is no reason to lengthen anything).
pub fn extended_warmup(p: &WarmupProbe, warmup_s: u64) -> Option<u64> {
    if p.coverage(warmup_s) != Coverage::Short {
        return None;
    }
    let probe_s = p.per_second_rps.len() as u64;
    let needed = p.seconds_to_steady.or_else(|| p.warm_after()).unwrap_or(probe_s);
    Some(needed.div_ceil(5).max(1) * 5).filter(|&w| w > warmup_s)
}

/// Why the capacity windows of `subject` measured its warm-up rather than its capacity, if its warm-up probe says so:
/// each window starts a fresh server and discards only its first seconds, and where the probe's throughput over the
/// seconds a window then measures was below [`WARMING_SHARE`] of the steady rate, the window's latency is the warm-up's
/// (a JIT still compiling on the server's one CPU), so no capacity ratio or sizing may rest on it.
pub fn warming_in_windows(b: &crate::schema::Benchmark, subject: &str) -> Option<String> {
    let c = b.capacity.as_ref()?;
    let probe = b.warmup_probes.iter().find(|p| p.subject == subject)?;
    let warmup_s = capacity_warmup(probe.warmup_s, c.settings.warmup_s);
    let during = probe.mean_over(warmup_s, c.settings.step_s)?;
    (during < WARMING_SHARE * probe.steady_rps).then(|| {
        format!(
            "{subject}'s capacity windows measured its warm-up: in the warm-up probe, a fresh {subject} served {}/s over \
             the seconds a window measures (after its {warmup_s} s warm-up), against {}/s steady",
            thousands(during),
            thousands(probe.steady_rps)
        )
    })
}

/// The warm-up of a subject's capacity windows: the search's own (`warmup_s`, a second), or the longer one its probe
/// gave its runs.
pub fn capacity_warmup(lengthened: Option<u64>, warmup_s: u64) -> u64 {
    lengthened.map_or(warmup_s, |w| w.max(warmup_s))
}

/// The warm-up that would cover every probed subject's time to steady, when a subject's runs had a shorter one
/// (`None` when the warm-up covers them all, or none was steady within its probe). Since the probe lengthens a
/// short warm-up by itself, only a file written before it did can need this.
pub fn warmup_needed(probes: &[WarmupProbe], warmup_s: u64) -> Option<u64> {
    let short = |p: &&WarmupProbe| p.coverage(p.applied_warmup(warmup_s)) == Coverage::Short;
    let needed = probes.iter().filter(short).filter_map(|p| p.seconds_to_steady).max();
    needed.filter(|&s| s > warmup_s)
}

/// A probe's record from its per-second series (`measure::Runner::series`).
pub fn probe_record(subject: &str, scenario: &str, connections: u32, series: Series) -> WarmupProbe {
    let steady = steady_rps(&series.per_second_rps).unwrap_or(0.0);
    WarmupProbe {
        subject: subject.to_string(),
        scenario: scenario.to_string(),
        connections,
        command: series.command,
        seconds_to_steady: seconds_to_steady(&series.per_second_rps, steady),
        steady_rps: steady,
        per_second_rps: series.per_second_rps,
        machine_idle: series.machine_idle,
        other_cpu_percent: series.other_cpu_percent,
        warmup_s: None,
    }
}

/// A probe's series as a test makes it up: on an idle machine.
#[cfg(test)]
pub(crate) fn idle_series(per_second_rps: Vec<f64>) -> Series {
    Series { command: "wrk -c 50 -d 1s …".into(), per_second_rps, machine_idle: true, other_cpu_percent: 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(series: Vec<f64>) -> WarmupProbe {
        probe_record("java", "get", 50, idle_series(series))
    }

    /// The JVM measured on this project's 2-vCPU machine (the bombardier preset, 2026-12-03): a ramp over about 21 s
    /// with a noisy end, never steady by the 5 % rule, yet plainly short of its steady rate after a 5 s warm-up; and
    /// the capacity windows (1 s warm-up, 4 s measured) saw a fifth of it. Node's series of the same run is noise only.
    #[test]
    fn a_jvm_still_rising_after_the_warm_up_is_short_and_node_noise_is_not() {
        let java = vec![
            2511.0, 3986.0, 6474.0, 13154.0, 17415.0, 17431.0, 19200.0, 20446.0, 24812.0, 22764.0, 24890.0, 23301.0,
            24878.0, 28773.0, 27940.0, 27965.0, 32081.0, 34674.0, 33887.0, 39949.0, 51845.0, 50942.0, 55441.0, 55772.0,
            54726.0, 54038.0, 52607.0, 47889.0, 50826.0, 47815.0,
        ];
        let mut p = probe(java);
        assert_eq!((p.seconds_to_steady, p.coverage(5)), (None, Coverage::Short));
        assert!(p.sentence(5).contains("was still warming up after the 5 s warm-up"), "{}", p.sentence(5));
        assert!(p.mean_over(1, 4).unwrap() < WARMING_SHARE * p.steady_rps);
        // Not steady by the 5 % rule, but at 90 % of its steady rate from the 21st second on: its runs get 20 s,
        // which covers it, and a capacity window after them measures the compiled JVM.
        assert_eq!((p.warm_after(), extended_warmup(&p, 5)), (Some(20), Some(20)));
        p.warmup_s = Some(20);
        assert_eq!((p.applied_warmup(5), p.coverage(20), capacity_warmup(p.warmup_s, 1)), (20, Coverage::Covered, 20));
        assert!(p.mean_over(20, 4).unwrap() >= WARMING_SHARE * p.steady_rps);
        assert!(p.sentence(5).contains("from second 21 on"), "{}", p.sentence(5));
        assert!(p.sentence(5).contains("(lengthened from 5 s for it by this probe)"), "{}", p.sentence(5));
        let node = vec![
            71401.0, 89712.0, 88795.0, 85941.0, 92717.0, 94997.0, 99057.0, 97303.0, 96912.0, 96545.0, 95833.0, 96900.0,
            97177.0, 95491.0, 96669.0, 97666.0, 93937.0, 83409.0, 100128.0, 97756.0, 97411.0, 98581.0, 97886.0,
            97019.0, 96860.0, 96652.0, 97203.0, 97226.0, 86457.0, 82993.0,
        ];
        let p = probe(node);
        assert_eq!((p.seconds_to_steady, p.coverage(5)), (None, Coverage::Unknown));
        assert_eq!(extended_warmup(&p, 5), None, "noise is no reason to lengthen a warm-up");
        assert!(p.mean_over(1, 4).unwrap() >= WARMING_SHARE * p.steady_rps);
    }

    /// A JVM-like ramp: a slow first second, compiled code after a few, steady from the 9th second.
    fn jvm_ramp() -> Vec<f64> {
        let ramp = [2000.0, 4500.0, 6800.0, 8200.0, 9000.0, 9300.0, 9600.0, 9700.0];
        ramp.into_iter().chain([9900.0, 10_050.0, 9980.0, 10_010.0, 9950.0, 10_100.0].repeat(4)).collect()
    }

    #[test]
    fn a_jvm_like_ramp_is_steady_once_it_stays_within_five_percent() {
        let s = jvm_ramp();
        let steady = steady_rps(&s).unwrap();
        assert!((steady - 10_000.0).abs() < 50.0, "{steady}");
        // 9600 and 9700 are within 5 % of 10 000 too, 9300 is not: steady from the 7th second (after 6 s).
        assert_eq!(seconds_to_steady(&s, steady), Some(6));
        let p = probe(s);
        assert_eq!((p.coverage(5), p.coverage(6), p.bias()), (Coverage::Short, Coverage::Covered, Bias::Low));
        assert_eq!(p.first_rps(), 2000.0);
    }

    #[test]
    fn a_flat_series_is_steady_from_its_first_second() {
        let s = vec![50_000.0; 30];
        assert_eq!(steady_rps(&s), Some(50_000.0));
        assert_eq!(seconds_to_steady(&s, 50_000.0), Some(0));
        assert_eq!(probe(s).coverage(0), Coverage::Covered);
    }

    #[test]
    fn noise_within_the_tolerance_is_steady_and_an_outlier_late_in_the_probe_moves_the_time() {
        let noisy: Vec<f64> = (0..30).map(|i| 20_000.0 * (1.0 + 0.03 * if i % 2 == 0 { 1.0 } else { -1.0 })).collect();
        let steady = steady_rps(&noisy).unwrap();
        assert_eq!(seconds_to_steady(&noisy, steady), Some(0));
        // One second of a busy machine at second 15: the time to steady is after it, as the definition says.
        let mut dipped = noisy.clone();
        dipped[15] = 12_000.0;
        assert_eq!(seconds_to_steady(&dipped, steady_rps(&dipped).unwrap()), Some(16));
        // In the last third it leaves too short a steady stretch: not steady.
        dipped[25] = 12_000.0;
        assert_eq!(seconds_to_steady(&dipped, steady_rps(&dipped).unwrap()), None);
    }

    #[test]
    fn a_series_that_never_settles_is_not_steady_within_the_probe() {
        // Still climbing 3 % a second at the end of a 30 s probe.
        let s: Vec<f64> = (0..30).map(|i| 1000.0 * 1.03f64.powi(i)).collect();
        assert_eq!(seconds_to_steady(&s, steady_rps(&s).unwrap()), None);
        let p = probe(s);
        assert_eq!((p.coverage(600), p.bias(), p.warm_after()), (Coverage::Unknown, Bias::Low, None));
        // Still rising after a 5 s warm-up and never warm: the whole probe.
        assert_eq!((p.coverage(5), extended_warmup(&p, 5)), (Coverage::Short, Some(30)));
        assert!(p.sentence(5).contains("was not steady within the 30 s probe"), "{}", p.sentence(5));
        assert_eq!(steady_rps(&[]), None);
        assert_eq!(seconds_to_steady(&[], 0.0), None);
    }

    #[test]
    fn the_sentence_says_whether_the_warm_up_covers_it_and_which_way_it_biases_the_figures() {
        let p = probe(jvm_ramp());
        assert_eq!(
            p.sentence(5),
            "java is steady only after 6 s, longer than the 5 s warm-up of the measured runs: its measured figures \
             include part of its warm-up, which biases them towards lower throughput (and higher latency) than its \
             steady state."
        );
        assert_eq!(
            p.sentence(10),
            "java is steady after 6 s, within the 10 s warm-up of the measured runs: the warm-up covers it."
        );
        // A server that starts fast and slows (a cache filling, a collector starting) is measured high.
        let slowing = probe([vec![30_000.0, 26_000.0], vec![20_000.0; 10]].concat());
        assert_eq!(slowing.bias(), Bias::High);
        assert!(slowing.sentence(1).ends_with("towards higher throughput than its steady state."));
        assert_eq!(warmup_needed(&[p.clone(), slowing], 5), Some(6));
        assert_eq!(warmup_needed(std::slice::from_ref(&p), 6), None);
        // On a busy machine the sentence says the series may be its noise.
        let busy = WarmupProbe { machine_idle: false, other_cpu_percent: 82.4, ..p };
        assert!(busy.sentence(10).ends_with(
            "the warm-up covers it. Other processes used 82 % of the machine during its probe: part of what the series \
             shows may be their noise rather than a warm-up."
        ));
    }
}
