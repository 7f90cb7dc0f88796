//! The search's tests: a simulated subject with a known service time and a known loader limit, so that what the
//! search finds can be checked against what it should find.

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
                mean_ms: None,
            },
            ..StepResult::default()
        })
    }
}

/// The search's settings, with a cap of steps that does not cut the searches short (the cap has its own test).
fn settings(resolution_percent: f64) -> SearchSettings {
    let objective = Objective::default();
    SearchSettings {
        objective,
        resolution_percent,
        step_s: 5,
        warmup_s: 1,
        connections: 50,
        max_steps: 40,
        max_windows: 5,
        margin: Some(verdict::MARGIN),
        confirm_ends: true,
    }
}

/// The default plan's settings: its resolution, its cap of windows, its verdict rule.
fn default_settings() -> SearchSettings {
    let resolution = crate::capacity::plan::DEFAULT_RESOLUTION_PERCENT;
    SearchSettings { max_steps: max_steps(resolution, false), ..settings(resolution) }
}

fn search_of(subject: &str, upper_rps: f64, (steps, outcome): (Vec<Step>, Outcome)) -> Search {
    let (subject, scenario, upper_from) = (subject.into(), "get".into(), "closed-loop".into());
    Search { subject, scenario, upper_rps, upper_from, steps, outcome, bound: false, bracket: None }.with_bracket()
}

#[test]
fn finds_a_known_capacity_within_its_resolution() {
    // 2 ms per request on one worker: 500/s when arrivals are evenly paced, and the queue grows above it.
    let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
    for (upper, resolution) in [(520.0, 5.0), (2_000.0, 5.0), (700.0, 20.0)] {
        let s = search_of("svc", upper, search(upper, &settings(resolution), |r| sim.step(r)));
        let Outcome::Found { rps, confirmed: true, .. } = s.outcome else { panic!("{:?}", s.outcome) };
        let Some(Bracket { low, high: Some(high) }) = s.bracket else { panic!("{s:#?}") };
        // The bracket holds 500/s and is at most the resolution wide; the capacity is its low end.
        assert!(low <= 500.0 && 500.0 < high && high / low <= 1.0 + resolution / 100.0, "{low}–{high}: {s:#?}");
        assert_eq!(rps, low, "{s:#?}");
        // Every failing window is above the bracket's low end, every passing one at most it.
        let steps = s.steps;
        assert!(steps.iter().all(|s| s.passed() == (s.rate_asked <= low)), "{steps:#?}");
        // No repeat: each rate is decided by its windows, two that agree on a subject with no noise (or one that
        // missed while the search explored).
        let mut rates: Vec<f64> = steps.iter().map(|s| s.rate_asked).collect();
        rates.dedup();
        assert!(!steps.iter().any(|s| s.repeat) && steps.len() <= 2 * rates.len(), "{steps:#?}");
        assert!(steps.len() <= expected_steps(resolution) + 4, "{steps:#?}");
    }
}

#[test]
fn a_capacity_at_the_closed_loop_throughput_has_a_failing_step_just_above_it() {
    // A one-worker 2 ms service serves 500/s in closed loop as well as open: every step up to that upper bound
    // meets the objective. The search used to stop there and print "≥ 500/s", the closed-loop figure and no
    // boundary; it now tries one resolution step above, which fails, and confirms the capacity within the cap.
    let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
    for (resolution, quick) in [(5.0, false), (25.0, true)] {
        let set = SearchSettings { max_steps: max_steps(resolution, quick), ..settings(resolution) };
        let s = search_of("svc", 500.0, search(500.0, &set, |r| sim.step(r)));
        let Outcome::Found { confirmed: true, .. } = s.outcome else { panic!("{s:#?}") };
        let low = s.capacity().unwrap();
        assert!(low <= 500.0 && low >= 500.0 / (1.0 + resolution / 100.0), "{low} at {resolution} %: {s:#?}");
        let above = s.steps.iter().filter(|st| !st.passed() && st.rate_asked > low).map(|st| st.rate_asked);
        let lowest = above.reduce(f64::min).unwrap_or_else(|| panic!("no failing step above: {s:#?}"));
        assert!(lowest <= low * (1.0 + resolution / 100.0), "{lowest} above {low}: {s:#?}");
        assert_eq!(s.bound_by(None), None, "{s:#?}");
        assert!(s.steps.len() <= expected_steps(resolution), "{s:#?}");
    }
}

#[test]
fn a_capacity_far_above_the_closed_loop_throughput_is_found_above_it() {
    // A subject that serves three times what its closed loop did (as a service with a long but concurrent service
    // time does, its closed loop held down by latency): the search steps up past the upper bound, doubling, until a
    // step fails, and bisects there. With room for the steps, it confirms the capacity within the resolution.
    let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
    let upper = 500.0 / 3.0;
    let s = search_of("svc", upper, search(upper, &settings(5.0), |r| sim.step(r)));
    let Outcome::Found { rps, confirmed: true, .. } = s.outcome else { panic!("{s:#?}") };
    assert!((500.0 / 1.05..=500.0).contains(&rps), "{rps}: {s:#?}");
    assert!(s.steps.iter().all(|st| st.passed() == (st.rate_asked <= rps)), "{s:#?}");
    assert_eq!(s.bound_by(None), None, "{s:#?}");
    // With a cap of 8 windows the doubling and the bisection do not fit: the search stops with its highest rate
    // met, well above the upper bound and below a failing window, marked unconfirmed, and no bound.
    let set = SearchSettings { max_steps: 8, ..settings(5.0) };
    let s = search_of("svc", upper, search(upper, &set, |r| sim.step(r)));
    let Outcome::Found { rps, confirmed: false, .. } = s.outcome else { panic!("{s:#?}") };
    assert!(rps > 2.0 * upper && rps <= 500.0 && s.steps.len() == 8, "{rps}: {s:#?}");
    assert!(s.steps.iter().any(|st| !st.passed() && st.rate_asked > rps), "{s:#?}");
    assert_eq!(s.bound_by(None), None, "{s:#?}");
    assert!(s.figure().contains("unconfirmed") && !s.figure().starts_with("≥"), "{}", s.figure());
    // The default plan's search (5 %, 18 windows) has room for both, and confirms it.
    let s = search_of("svc", upper, search(upper, &default_settings(), |r| sim.step(r)));
    let Outcome::Found { rps, confirmed: true, .. } = s.outcome else { panic!("{s:#?}") };
    assert!((500.0 / 1.05..=500.0).contains(&rps) && s.steps.len() <= 18, "{rps}: {s:#?}");
}

#[test]
fn a_rate_not_held_above_the_closed_loop_throughput_is_the_subjects_not_the_loaders() {
    // A subject that holds p99 ≤ 10 ms up to 500/s, whose closed loop served 200/s; past 500/s its connections are
    // all busy and it achieves only 90 % of the rate asked. The failing steps above the capacity did not hold their
    // rate, but they asked more than the subject served in closed loop: nothing says the loader held them back.
    let subject = |r: f64| {
        let (achieved_rps, p99_ms) = if r <= 500.0 { (r, 5.0) } else { (0.9 * r, 50.0) };
        Ok(StepResult { achieved_rps, latency: Latency { p99_ms, ..Latency::default() }, ..StepResult::default() })
    };
    let mut s = search_of("svc", 200.0, search(200.0, &settings(5.0), subject));
    let Outcome::Found { rps, confirmed: true, .. } = s.outcome else { panic!("{s:#?}") };
    assert!((500.0 / 1.05..=500.0).contains(&rps), "{rps}: {s:#?}");
    let above: Vec<&Step> = s.steps.iter().filter(|st| !st.passed() && st.rate_asked > rps).collect();
    assert!(!above.is_empty() && above.iter().all(|st| !holds_rate(&st.result, st.rate_asked)), "{s:#?}");
    assert_eq!(s.bound_by(None), None, "{s:#?}");
    // The same steps below a closed-loop throughput above them: the loader did not hold a rate the subject served,
    // so the capacity is a bound.
    s.upper_rps = 1_000.0;
    assert_eq!(s.bound_by(None), Some(BoundBy::RateNotHeldAbove), "{s:#?}");
}

#[test]
fn a_search_that_never_fails_reaches_its_cap_above_the_upper_bound_as_a_bound() {
    // A subject that meets the objective at every rate: the search climbs past the upper bound until its cap, and
    // its capacity is the highest rate it tried, printed as a bound, since no step above it failed.
    let always = |r: f64| {
        let latency = Latency { p99_ms: 1.0, ..Latency::default() };
        Ok(StepResult { achieved_rps: r, latency, ..StepResult::default() })
    };
    for resolution in [0.5, 5.0, 25.0, 50.0] {
        for quick in [false, true] {
            let set = SearchSettings { max_steps: max_steps(resolution, quick), ..settings(resolution) };
            let mut s = search_of("svc", 1_000.0, search(1_000.0, &set, always));
            let Outcome::Found { rps, confirmed: false, .. } = s.outcome else { panic!("{s:#?}") };
            // The capacity is the highest rate decided met; a rate the cap cut short above it is undecided.
            let met = s.steps.iter().filter(|st| st.verdict == Some(Verdict::Met)).map(|st| st.rate_asked);
            assert!(rps > 1_000.0 && met.reduce(f64::max) == Some(rps) && s.steps.len() == set.max_steps, "{s:#?}");
            assert_eq!(s.bound_by(None), Some(BoundBy::Upper), "{resolution} %: {s:#?}");
            s.bound = true;
            assert!(s.figure().starts_with("≥ "), "{}", s.figure());
        }
    }
}

#[test]
fn a_rate_whose_windows_split_is_decided_by_more_of_them() {
    // A noisy subject: 2 ms per request, but the second window of the first rate that gets one misses. Before, a
    // repeat that missed made the rate a failing one; now the rate's windows split, and two more decide it.
    let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
    let (mut asked, mut spoiled) = (Vec::new(), false);
    let (steps, outcome) = search(7_000.0, &settings(25.0), |r| {
        let mut result = sim.step(r)?;
        if asked.contains(&r) && !spoiled && r <= 500.0 {
            (spoiled, result.latency.p99_ms) = (true, 50.0);
        }
        asked.push(r);
        Ok(result)
    });
    let s = search_of("svc", 7_000.0, (steps, outcome));
    let (Outcome::Found { confirmed: true, .. }, Some(low)) = (&s.outcome, s.capacity()) else { panic!("{s:#?}") };
    assert!(low <= 500.0 && spoiled, "{low}: {s:#?}");
    let steps = s.steps;
    // The split rate took four windows, three of which met the objective: a lead of two, met.
    let split = steps.iter().find(|s| !s.passed() && s.rate_asked <= 500.0).unwrap().rate_asked;
    let at_split: Vec<&Step> = steps.iter().filter(|s| s.rate_asked == split).collect();
    assert_eq!(at_split.len(), 4, "{steps:#?}");
    assert_eq!(at_split.last().unwrap().verdict, Some(Verdict::Met), "{steps:#?}");
}

#[test]
fn an_undecided_rate_is_neither_the_capacity_nor_the_brackets_high_end() {
    // A subject that meets the objective up to 400/s, misses above 440/s, and between the two alternates window by
    // window: with an even cap of windows a rate (an odd one always has a majority) rates there tie, undecided. The
    // capacity is a rate decided met, and the bracket's high end a rate decided missed, never an undecided one.
    let mut n = 0;
    let set = SearchSettings { max_windows: 4, ..settings(5.0) };
    let s = search_of(
        "svc",
        800.0,
        search(800.0, &set, |r| {
            n += 1;
            let met = r <= 400.0 || (r <= 440.0 && n % 2 == 0);
            let latency = Latency { p99_ms: if met { 5.0 } else { 50.0 }, ..Latency::default() };
            Ok(StepResult { achieved_rps: r, latency, ..StepResult::default() })
        }),
    );
    let Some(Bracket { low, high }) = s.bracket else { panic!("{s:#?}") };
    let verdict_at = |rate: f64| s.steps.iter().find(|st| st.rate_asked == rate && st.verdict.is_some()).unwrap();
    assert!(low <= 400.0 && verdict_at(low).verdict == Some(Verdict::Met), "{s:#?}");
    if let Some(high) = high {
        assert!(high > 440.0 && verdict_at(high).verdict == Some(Verdict::Missed), "{s:#?}");
    }
    assert!(s.steps.iter().any(|st| st.verdict == Some(Verdict::Undecided)), "{s:#?}");
}

#[test]
fn a_subject_whose_every_step_fails_has_no_rate() {
    let sim = Simulated { service_ms: 20.0, loader_limit: 1e9, duration_s: 5.0 };
    let (steps, outcome) = search(50.0, &settings(5.0), |r| sim.step(r));
    assert_eq!(outcome, Outcome::NoRate { lowest_rps: 3.0 }, "{steps:#?}");
    // One window each while exploring (45, 23, 12, 6), two at the lowest rate, which decide it.
    assert!(steps.iter().all(|s| !s.passed()) && steps.len() == 6, "45, 23, 12, 6, 3, 3: {steps:#?}");
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
        tool: crate::plan::names::Tool::Oha,
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
        tool: crate::plan::names::Tool::Oha,
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
fn a_search_at_its_cap_reports_the_bracket_it_has_unconfirmed() {
    // 2 ms per request from 2,000/s, at a cap of 11 windows and 5 %: 1,800 and 900 missed on one window each while
    // the search explores, 450 met, 636 and 535 missed, 491 met, two windows each; 513 gets the one window left, and
    // is undecided. The capacity is 491/s, with the bracket up to 535/s, wider than the resolution, and the search
    // says it reached its cap.
    let set = SearchSettings { max_steps: 11, ..settings(5.0) };
    let sim = Simulated { service_ms: 2.0, loader_limit: 1e9, duration_s: 5.0 };
    let s = search_of("svc", 2_000.0, search(2_000.0, &set, |r| sim.step(r)));
    assert_eq!(s.steps.len(), 11, "{s:#?}");
    let Outcome::Found { rps, confirmed: false, .. } = s.outcome else { panic!("{s:#?}") };
    assert_eq!((rps, s.bracket), (491.0, Some(Bracket { low: 491.0, high: Some(535.0) })), "{s:#?}");
    assert_eq!(s.steps.last().map(|st| (st.rate_asked, st.verdict)), Some((513.0, Some(Verdict::Undecided))));
    let figure = s.figure();
    assert!(figure.contains("bracket 491–535/s") && figure.contains("reached its cap"), "{figure}");
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
    for bad in ["p98=10ms", "p99", "p99=10", "p99=-1ms", "p99=0ms", "p99=ms", "p99=10min", "", ",", "p99=10ms,p99=5ms"]
    {
        let e = parse(&[bad]).unwrap_err();
        assert!(e.downcast_ref::<crate::UsageError>().is_some(), "{bad}: {e}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}

#[test]
fn the_estimate_counts_the_bisection() {
    // Two windows a rate: the first, one halving, the bisections (4 at 5 %, 3 at 10 %, 2 at 25 %), and one more at
    // each end of the bracket.
    assert_eq!((expected_steps(5.0), expected_steps(10.0), expected_steps(25.0)), (14, 12, 10));
    assert_eq!((max_steps(5.0, false), max_steps(25.0, true)), (18, 14));
}

/// A small deterministic generator (splitmix64), so that the noisy subject's runs are the same on every machine.
struct SplitMix(u64);

impl SplitMix {
    /// A uniform draw in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / 2f64.powi(64)
    }
}

/// A subject whose window meets the objective with a probability that falls linearly from 1 at 0.9 × `c` to 0 at
/// 1.1 × `c`, as near a real boundary, where one window's p99 is a few milliseconds or tens: `c` is the rate whose
/// median window meets it, the capacity the search is after.
fn coin_toss_subject(c: f64, rng: &mut SplitMix) -> impl FnMut(f64) -> Result<StepResult> + '_ {
    move |r: f64| {
        let p = ((1.1 - r / c) / 0.2).clamp(0.0, 1.0);
        let p99_ms = if rng.next() < p { 4.0 } else { 40.0 };
        Ok(StepResult { achieved_rps: r, latency: Latency { p99_ms, ..Latency::default() }, ..StepResult::default() })
    }
}

/// How many of 100 seeded searches put the capacity within `within` (a fraction) of `c`, how many brackets hold `c`,
/// and how many windows the searches took in all, for the search's settings and upper bound.
fn coin_toss_searches(set: &SearchSettings, c: f64, upper: f64, within: f64) -> (usize, usize, usize) {
    let (mut near, mut held, mut windows) = (0, 0, 0);
    for seed in 0..100 {
        let mut rng = SplitMix(seed);
        let s = search_of("svc", upper, search(upper, set, coin_toss_subject(c, &mut rng)));
        windows += s.steps.len();
        let (Some(Bracket { low, high }), Some(capacity)) = (s.bracket, s.capacity()) else { continue };
        near += usize::from((capacity / c - 1.0).abs() <= within);
        held += usize::from(low <= c && high.is_none_or(|h| c <= h));
    }
    (near, held, windows)
}

#[test]
fn a_coin_toss_boundary_is_found_within_5_percent_in_95_of_100_searches_given_the_windows() {
    // The subject's window verdict is a coin toss within 10 % of its capacity (`verdict.rs` works out why a few
    // windows a rate cannot decide it reliably there). A search that decides each rate by a lead of three windows
    // (up to nine, then the majority) and bisects to 2.5 % finds the capacity within ±5 % of 20,000/s in at least 95
    // of 100 searches, from an upper bound at the capacity, below it and far above it (node's closed loop serves
    // about 2.5 times its capacity), with no cap on its windows: it takes about 30 a search, more than the default
    // plan's time budget pays for, and so it is a setting of this test, not of the plan.
    let c = 20_000.0;
    let set = SearchSettings { resolution_percent: 2.5, max_windows: 9, margin: Some(3), ..settings(2.5) };
    for upper in [c, 0.7 * c, 2.5 * c] {
        let (near, held, windows) = coin_toss_searches(&set, c, upper, 0.05);
        assert!(near >= 95, "from {upper}/s: {near} of 100 within 5 %, {held} brackets hold it, {windows} windows");
    }
}

#[test]
fn the_default_plans_search_finds_a_coin_toss_boundary_within_10_percent() {
    // The default plan's search: a lead of two windows decides a rate (up to five, then the majority), the ends of a
    // closing bracket are confirmed by a lead of three (up to seven), the bracket closes at 5 %, and the search runs
    // at most 18 windows. Its capacity (the highest rate decided met) is within 10 % of C in at least 95 of 100
    // searches from each upper bound: at C, below it, at node's ratio on GET, and far above it (node's closed loop
    // serves up to 2.5 times its capacity). Within ±5 %, the resolution, it is in 65-88 of 100: `verdict.rs` and
    // docs/harness.md work out why the windows a 22-minute plan pays for cannot do better near a coin-toss boundary.
    let c = 20_000.0;
    for upper in [c, 0.7 * c, 1.37 * c, 2.5 * c] {
        let (near, held, windows) = coin_toss_searches(&default_settings(), c, upper, 0.10);
        let (within_5, _, _) = coin_toss_searches(&default_settings(), c, upper, 0.05);
        assert!(near >= 95, "from {upper}/s: {near} of 100 within 10 %, {held} brackets hold C, {windows} windows");
        assert!(within_5 >= 60, "from {upper}/s: {within_5} of 100 within 5 %");
    }
}

/// The figures docs/harness.md quotes for the default plan's search of the coin-toss subject, printed
/// (`cargo test -p fairpair --lib coin_toss_figures -- --ignored --nocapture`).
#[test]
#[ignore]
fn coin_toss_figures() {
    let c = 20_000.0;
    for upper in [c, 0.7 * c, 1.37 * c, 2.5 * c] {
        let (near_10, held, windows) = coin_toss_searches(&default_settings(), c, upper, 0.10);
        let (near_5, _, _) = coin_toss_searches(&default_settings(), c, upper, 0.05);
        eprintln!(
            "from {:.2} C: within 10 % {near_10}, within 5 % {near_5}, held {held}, {windows} windows",
            upper / c
        );
    }
}
