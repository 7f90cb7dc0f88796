//! Preflight: the stage between the plan and the runs, which checks the subjects and calibrates the plan to this
//! machine. Typed data in (a [`Plan`]), typed data out (an [`Outcome`]: the revised plan, the verifications and the
//! [`Preflight`] record stored in `benchmark.json`).
//!
//! 1. **Verify** every subject against the contract; a failing one is not measured (unless `--allow-unverified`).
//! 2. **Loader capacity**: what the load tool can generate on the loader CPUs, per scenario and connection count,
//!    measured against the `ceiling` server on the server CPUs. A figure near it may be the loader's limit rather than
//!    the server's, so a subject above [`LOADER_LIMITED_SHARE_PERCENT`] of it is *loader-limited* and every ratio
//!    involving it is reported as a bound.
//! 3. **POST rate**: a short POST run per subject that takes `--max-users`, on a store as large as the servers allow,
//!    gives the rate (and the memory per user) the store of the measured runs is sized from ([`size_store`]): a full
//!    store answers 507, which is not served work.
//!
//! The machine-dependent constants of earlier versions (a POST rate "generously above what one core reaches") were
//! wrong on the next machine; everything here is measured where the run happens.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::plan::{CALIBRATION_WARMUP_S, Plan, Scenario};
use crate::schema::{
    CapacityBasis, Flag, FlagKind, LoaderCapacity, MAX_MAX_USERS, MIN_MAX_USERS, PostCalibration, Preflight,
    StoreLimit, StoreSizing, SubjectKind, SubjectRecord, VerificationStatus,
};
use crate::subject::{self, Kind, SubjectSpec};
use crate::summary::{LOADER_LIMITED_SHARE_PERCENT, store_sentence};
use crate::text::{minutes, thousands};
use crate::tools::{self, LoadSpec, LoadTool};
use crate::{procstat, verify};

/// The loader counts as saturated during the capacity measurement when it uses this much of its CPUs.
pub const SATURATED_LOADER_PERCENT: f64 = 90.0;
/// The store is sized for this multiple of the measured POST rate: a measured run may be faster than the short
/// calibration (a warmer JIT, a quieter machine), and a rerun with a larger store catches what is left.
pub const STORE_MARGIN: f64 = 1.5;
/// The least memory assumed per stored user, measured or not: RSS grows in steps (a heap doubling), so a short run
/// can show less than the store will take, and a user with its map entry and strings takes a few hundred bytes in
/// either server.
pub const MIN_BYTES_PER_USER: f64 = 512.0;
/// Fewer users than this in a calibration say nothing about memory per user: a single heap step dominates (seen: 8 KB
/// "per user" from 1,700 users on a busy machine).
pub const MIN_USERS_FOR_MEMORY: u64 = 50_000;
/// A rerun after unexpected statuses gets this many times the store.
pub const RERUN_STORE_FACTOR: u64 = 4;

/// What preflight hands to the runs.
pub struct Outcome {
    /// The plan with what preflight decided filled in (`post_max_users`).
    pub plan: Plan,
    pub subjects: Vec<SubjectRecord>,
    /// Per subject of the plan: whether it may be measured.
    pub measurable: Vec<bool>,
    pub flags: Vec<Flag>,
    pub skipped: Vec<String>,
    pub record: Preflight,
}

/// What preflight needs from the run around it: the tool, the scripts it wrote, and a way to say what it does.
pub struct Stage<'a> {
    pub tool: &'a dyn LoadTool,
    pub scripts: &'a BTreeMap<String, PathBuf>,
    pub say: &'a dyn Fn(String),
}

/// Verifies, then calibrates: the whole preflight stage.
pub fn run(plan: &Plan, stage: &Stage) -> Result<Outcome> {
    let started = Instant::now();
    let mut out = Outcome {
        plan: plan.clone(),
        subjects: Vec::new(),
        measurable: vec![true; plan.subjects.len()],
        flags: Vec::new(),
        skipped: Vec::new(),
        record: Preflight { loader_limited_share_percent: LOADER_LIMITED_SHARE_PERCENT, ..Preflight::default() },
    };
    for (i, spec) in plan.subjects.iter().enumerate() {
        if spec.implements_contract() {
            (stage.say)(format!("verifying {} (contract level {})", spec.name, plan.level_for(spec)));
        }
        let measurable = verify_one(plan, spec, &mut out)?;
        out.measurable[i] = measurable;
        // Said at once, not only in the report: a subject that will not be measured is the first thing to know.
        let verification = &out.subjects.last().expect("verify_one records the subject").verification;
        if let Some(line) = verdict_line(&spec.name, verification, measurable) {
            (stage.say)(line);
        }
    }
    measure_capacities(plan, stage, &mut out);
    calibrate_store(plan, stage, &mut out);
    out.record.duration_s = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The loader's capacity on every cell of the plan (see the module header).
fn measure_capacities(plan: &Plan, stage: &Stage, out: &mut Outcome) {
    match &plan.capacity_target {
        Some(target) => {
            for (scenario, connections) in plan.capacity_cells() {
                (stage.say)(format!("preflight: loader capacity, {} at {connections} connections", scenario.name));
                match measure_capacity(plan, stage, target, scenario, connections) {
                    Ok(c) => out.record.loader_capacity.push(c),
                    // Not fatal: the runs can go on, only without a capacity (and so without bounds) for this cell.
                    Err(e) => out.skipped.push(format!(
                        "loader capacity, {} at {connections} connections: the measurement failed ({e:#}), so no \
                         figure of that cell is marked loader-limited",
                        scenario.name
                    )),
                }
            }
        }
        None => out.skipped.push(
            "loader capacity: the ceiling binary was not found, so the loader's limit is not measured and no figure \
             is marked loader-limited (build it: cargo build --release -p ceiling)"
                .into(),
        ),
    }
}

/// The store of the POST runs: given with `--post-max-users`, or sized from a POST run per subject.
fn calibrate_store(plan: &Plan, stage: &Stage, out: &mut Outcome) {
    if let (Some(given), Some(_)) = (plan.post_max_users(), plan.writing_scenario()) {
        out.record.store = Some(given_store(given, memory_available_kib() / 2));
    } else if let Some(scenario) = plan.writing_scenario() {
        for i in plan.post_subjects().into_iter().filter(|&i| out.measurable[i]) {
            let spec = &plan.subjects[i];
            (stage.say)(format!("preflight: {} rate of {}", scenario.name, spec.name));
            match calibrate_post(plan, stage, spec, scenario) {
                Ok(c) => out.record.post_calibration.push(c),
                Err(e) => out.skipped.push(format!(
                    "{} rate of {}: the calibration failed ({e:#}); the store is sized from the other subjects' \
                     rates, or is the largest the servers accept if there are none",
                    scenario.name, spec.name
                )),
            }
        }
        let rates: Vec<(String, f64)> =
            out.record.post_calibration.iter().map(|c| (c.subject.clone(), c.requests_per_sec)).collect();
        let bytes = out.record.post_calibration.iter().filter_map(|c| c.bytes_per_user).fold(0.0, f64::max);
        let budget = memory_available_kib() / 2;
        let sizing = size_store(&rates, plan.settings.warmup_s + plan.settings.duration_s, bytes, budget);
        out.plan.settings.post_max_users = sizing.as_ref().map_or(MAX_MAX_USERS, |s| s.max_users);
        out.record.store = sizing;
    }
}

/// What the console says about a subject's verification; nothing for one the contract does not apply to.
pub fn verdict_line(name: &str, v: &crate::schema::Verification, measurable: bool) -> Option<String> {
    let first = v.failures.first().map(|f| format!(", e.g. {f}")).unwrap_or_default();
    match v.status {
        VerificationStatus::Passed => {
            Some(format!("{name}: verified at level {} ({} cases passed)", v.level, v.passed))
        }
        VerificationStatus::Failed if measurable => Some(format!(
            "{name}: FAILED verification at level {} ({} of {} cases{first}); measured anyway (--allow-unverified), \
             and marked UNVERIFIED in every table and chart",
            v.level,
            v.failed,
            v.passed + v.failed
        )),
        VerificationStatus::Failed => Some(format!(
            "{name}: FAILED verification at level {} ({} of {} cases{first}); it will NOT be measured \
             (fairpair verify --level {} URL shows why; --allow-unverified measures it anyway)",
            v.level,
            v.failed,
            v.passed + v.failed,
            v.level
        )),
        VerificationStatus::NotApplicable => None,
    }
}

/// Verifies one subject; returns whether it may be measured.
fn verify_one(plan: &Plan, spec: &SubjectSpec, out: &mut Outcome) -> Result<bool> {
    let mut verification = verify::verify_subject(spec, &plan.start_options(None), plan.level_for(spec))
        .with_context(|| format!("verifying {}", spec.name))?;
    let mut measurable = true;
    if verification.status == VerificationStatus::Failed {
        let first = verification.failures.first().cloned().unwrap_or_default();
        if plan.settings.allow_unverified {
            verification.measured_unverified = true;
            out.flags.push(Flag {
                kind: FlagKind::Unverified,
                subject: spec.name.clone(),
                scenario: None,
                connections: None,
                message: format!(
                    "{} failed {} contract cases (e.g. {first}); its figures do not measure the same work",
                    spec.name, verification.failed
                ),
            });
        } else {
            measurable = false;
            out.skipped.push(format!(
                "{}: fails {} contract cases (e.g. {first}), so it is not measured (use --allow-unverified to measure it anyway)",
                spec.name, verification.failed
            ));
        }
    }
    out.subjects.push(SubjectRecord {
        name: spec.name.clone(),
        kind: match spec.kind {
            Kind::Builtin { .. } => SubjectKind::Builtin,
            Kind::Custom { .. } => SubjectKind::Custom,
            Kind::External { .. } => SubjectKind::External,
        },
        command: spec.command_template_on(&plan.server_host),
        workers: spec.workers,
        get_only: spec.get_only,
        verification,
    });
    Ok(measurable)
}

fn spec_for(plan: &Plan, stage: &Stage, s: &Scenario, base: &str, connections: u32, secs: u64) -> LoadSpec {
    LoadSpec {
        url: format!("{base}{}", s.path),
        method: s.method.clone(),
        body: s.body.clone(),
        connections,
        duration_s: secs,
        threads: plan.settings.loader_threads,
        rate: None,
        script: stage.scripts.get(&s.name).cloned(),
    }
}

/// Loads the ceiling, as many workers as server CPUs so that it is the fastest target the machine has, and reads
/// what the loader generated and how busy it was.
fn measure_capacity(
    plan: &Plan,
    stage: &Stage,
    spec: &SubjectSpec,
    scenario: &Scenario,
    connections: u32,
) -> Result<LoaderCapacity> {
    let (_, machine_idle) =
        procstat::wait_for_idle(plan.settings.idle_wait_max_s, plan.settings.idle_threshold_percent);
    let server = subject::start(spec, &plan.start_options(None))?;
    let base = format!("http://{}", server.addr);
    let warm = spec_for(plan, stage, scenario, &base, connections, CALIBRATION_WARMUP_S);
    tools::invoke(stage.tool, &warm, plan.loader_pin()).context("loader capacity warm-up")?;
    let load = spec_for(plan, stage, scenario, &base, connections, plan.calibration_s);
    let inv = tools::invoke(stage.tool, &load, plan.loader_pin()).context("loader capacity")?;
    server.stop()?;
    let cpu_percent = plan.loader_cpu_percent(stage.tool, inv.cpu_us, inv.wall_s);
    let (capacity, basis) = capacity_from(inv.result.requests_per_sec, cpu_percent);
    Ok(LoaderCapacity {
        scenario: scenario.name.clone(),
        connections,
        target: spec.name.clone(),
        command: inv.command,
        loader_capacity_rps: capacity,
        measured_rps: inv.result.requests_per_sec,
        loader_cpu_percent: cpu_percent,
        basis,
        machine_idle,
    })
}

/// The loader's capacity from one measurement: the rate itself when the loader was saturated; otherwise the target
/// was the limit, and the rate is scaled to a fully busy loader. Per-request loader cost is, if anything, higher when
/// it is not saturated (fewer events per wake-up), so the scaled figure errs low: more subjects then count as
/// loader-limited, never fewer.
pub fn capacity_from(measured_rps: f64, loader_cpu_percent: f64) -> (f64, CapacityBasis) {
    if loader_cpu_percent >= SATURATED_LOADER_PERCENT || loader_cpu_percent <= 0.0 {
        (measured_rps, CapacityBasis::Saturated)
    } else {
        (measured_rps * 100.0 / loader_cpu_percent, CapacityBasis::Extrapolated)
    }
}

/// A short POST run on a fresh server whose store is as large as the servers allow, at the plan's smallest
/// connection count; the warm-up's users count for the memory per user.
fn calibrate_post(plan: &Plan, stage: &Stage, spec: &SubjectSpec, scenario: &Scenario) -> Result<PostCalibration> {
    let connections = plan.settings.connections.iter().copied().min().unwrap_or(50);
    let (_, machine_idle) =
        procstat::wait_for_idle(plan.settings.idle_wait_max_s, plan.settings.idle_threshold_percent);
    let server = subject::start(spec, &plan.start_options(Some(MAX_MAX_USERS)))?;
    let base = format!("http://{}", server.addr);
    let before = procstat::tree_memory(server.pid).rss_kib;
    let warm = spec_for(plan, stage, scenario, &base, connections, CALIBRATION_WARMUP_S);
    let w = tools::invoke(stage.tool, &warm, plan.loader_pin()).context("POST calibration warm-up")?;
    let load = spec_for(plan, stage, scenario, &base, connections, plan.calibration_s);
    let inv = tools::invoke(stage.tool, &load, plan.loader_pin()).context("POST calibration")?;
    let after = procstat::tree_memory(server.pid).rss_kib;
    server.stop()?;
    let r = &inv.result;
    let created = (w.result.requests - w.result.non_2xx) + (r.requests - r.non_2xx);
    Ok(PostCalibration {
        subject: spec.name.clone(),
        scenario: scenario.name.clone(),
        connections,
        command: inv.command,
        duration_s: r.duration_s,
        requests_per_sec: r.requests_per_sec,
        unexpected_responses: scenario.expected.unexpected(r.requests, r.non_2xx),
        bytes_per_user: bytes_per_user(before, after, created),
        machine_idle,
    })
}

/// Resident memory grown per created user, when both are measurable (enough users, some growth).
pub fn bytes_per_user(rss_before_kib: u64, rss_after_kib: u64, created: u64) -> Option<f64> {
    (rss_after_kib > rss_before_kib && created >= MIN_USERS_FOR_MEMORY)
        .then(|| (rss_after_kib - rss_before_kib) as f64 * 1024.0 / created as f64)
}

/// `MemAvailable` from `/proc/meminfo`, in KiB.
fn memory_available_kib() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    procstat::kib_field(&text, "MemAvailable").unwrap_or(0)
}

/// Sizes the store from the fastest measured POST rate: the seed plus `rate × window × margin` users, within the
/// servers' cap and half of the machine's available memory (one server runs at a time). `None` without any rate.
pub fn size_store(rates: &[(String, f64)], window_s: u64, bytes_per_user: f64, budget_kib: u64) -> Option<StoreSizing> {
    let (from_subject, from_rps) = rates.iter().max_by(|a, b| a.1.total_cmp(&b.1)).cloned()?;
    let bytes_per_user = bytes_per_user.max(MIN_BYTES_PER_USER);
    let by_rate = MIN_MAX_USERS + (from_rps * window_s as f64 * STORE_MARGIN).ceil() as u64;
    let by_memory = (budget_kib as f64 * 1024.0 / bytes_per_user) as u64;
    let (max_users, limited_by) = if by_rate <= MAX_MAX_USERS.min(by_memory) {
        (by_rate, StoreLimit::Rate)
    } else if MAX_MAX_USERS <= by_memory {
        (MAX_MAX_USERS, StoreLimit::Cap)
    } else {
        (by_memory.max(MIN_MAX_USERS), StoreLimit::Memory)
    };
    Some(StoreSizing {
        max_users,
        from_subject,
        from_rps,
        window_s,
        margin: STORE_MARGIN,
        limited_by,
        memory_budget_kib: budget_kib,
        bytes_per_user,
    })
}

/// The record of a store size given with `--post-max-users`: nothing calibrated, the memory limit still known for a
/// rerun.
pub fn given_store(max_users: u64, budget_kib: u64) -> StoreSizing {
    StoreSizing {
        max_users,
        from_subject: String::new(),
        from_rps: 0.0,
        window_s: 0,
        margin: 1.0,
        limited_by: StoreLimit::Given,
        memory_budget_kib: budget_kib,
        bytes_per_user: MIN_BYTES_PER_USER,
    }
}

/// The store for a rerun after unexpected statuses: [`RERUN_STORE_FACTOR`] times larger, or sized like preflight
/// does from the rate the failed run reached if that is more (the calibration may have met a busy machine), within
/// the same limits; `None` when it cannot grow (already at a limit), so rerunning would change nothing.
pub fn larger_store(current: u64, observed_rps: f64, window_s: u64, sizing: Option<&StoreSizing>) -> Option<u64> {
    let memory_cap = sizing.map_or(MAX_MAX_USERS, |s| (s.memory_budget_kib as f64 * 1024.0 / s.bytes_per_user) as u64);
    let by_rate = MIN_MAX_USERS + (observed_rps.max(0.0) * window_s as f64 * STORE_MARGIN).ceil() as u64;
    let larger = current.saturating_mul(RERUN_STORE_FACTOR).max(by_rate).min(MAX_MAX_USERS).min(memory_cap);
    (larger > current).then_some(larger)
}

/// Prints what preflight measured and decided, and the revised estimate (on stderr).
pub fn announce(outcome: &Outcome, say: &dyn Fn(String)) {
    let r = &outcome.record;
    for c in &r.loader_capacity {
        say(format!(
            "preflight: loader capacity, {} at {} connections: {} requests/s ({}; measured {} against the {} with the \
             loader {:.0} % busy{})",
            c.scenario,
            c.connections,
            thousands(c.loader_capacity_rps),
            match c.basis {
                CapacityBasis::Saturated => "saturated loader",
                CapacityBasis::Extrapolated => "scaled to a fully busy loader",
            },
            thousands(c.measured_rps),
            c.target,
            c.loader_cpu_percent,
            if c.machine_idle { "" } else { "; the machine was busy" }
        ));
    }
    if !r.loader_capacity.is_empty() {
        say(format!(
            "preflight: a subject above {LOADER_LIMITED_SHARE_PERCENT:.0} % of that is loader-limited: its ratios are \
             printed as bounds"
        ));
    }
    for p in &r.post_calibration {
        say(format!(
            "preflight: {} rate of {}: {} requests/s at {} connections{}",
            p.scenario,
            p.subject,
            thousands(p.requests_per_sec),
            p.connections,
            if p.machine_idle { "" } else { " (the machine was busy)" }
        ));
    }
    if let Some(s) = &r.store {
        say(format!("preflight: store of the POST runs: {}", store_sentence(s)));
    }
    let e = outcome.plan.estimate();
    say(format!(
        "revised estimate after preflight ({:.0} s): {} left (load {}, open-loop {}, memory {})",
        r.duration_s,
        minutes(e.load + e.open_loop + e.memory),
        minutes(e.load),
        minutes(e.open_loop),
        minutes(e.memory)
    ));
}

#[cfg(test)]
mod tests {
    use crate::schema::Verification;

    fn verification(status: VerificationStatus, level: contract::Level) -> Verification {
        Verification {
            status,
            level,
            passed: 40,
            failed: if status == VerificationStatus::Failed { 2 } else { 0 },
            skipped: 0,
            failures: vec!["post-name-empty: status: expected 400, got 201".into()],
            measured_unverified: false,
            notes: vec![],
        }
    }

    #[test]
    fn the_console_says_which_subject_fails_and_that_it_is_not_measured() {
        let failed = verification(VerificationStatus::Failed, contract::Level::Api);
        let line = verdict_line("mine", &failed, false).unwrap();
        assert!(
            line.starts_with("mine: FAILED verification at level api (2 of 42 cases, e.g. post-name-empty"),
            "{line}"
        );
        assert!(line.contains("will NOT be measured"), "{line}");
        let line = verdict_line("mine", &failed, true).unwrap();
        assert!(line.contains("measured anyway") && line.contains("UNVERIFIED"), "{line}");
        let passed =
            verdict_line("rust", &verification(VerificationStatus::Passed, contract::Level::Full), true).unwrap();
        assert_eq!(passed, "rust: verified at level full (40 cases passed)");
        assert_eq!(
            verdict_line("ceiling", &verification(VerificationStatus::NotApplicable, contract::Level::Full), true),
            None
        );
    }

    use super::*;
    use crate::tools::wrk::Wrk;

    /// A wrk output line as the fairpair script prints it (the figures of a real 2-core run, shortened).
    fn fake_wrk(requests: u64, duration_us: u64, status_errors: u64) -> String {
        format!(
            "Running 3s test @ http://127.0.0.1:1/users\n{{\"fairpair_wrk\":1,\"requests\":{requests},\
             \"duration_us\":{duration_us},\"bytes\":1,\"errors\":{{\"connect\":0,\"read\":0,\"write\":0,\
             \"status\":{status_errors},\"timeout\":0}},\"latency_us\":{{\"min\":1,\"mean\":2.0,\"stdev\":1.0,\
             \"max\":9,\"p50\":2,\"p90\":3,\"p99\":4,\"p99_9\":5}}}}\n"
        )
    }

    #[test]
    fn a_saturated_loader_gives_its_rate_as_the_capacity() {
        let r = Wrk.parse(&fake_wrk(585_000, 3_000_000, 0)).unwrap();
        let (capacity, basis) = capacity_from(r.requests_per_sec, 99.0);
        assert_eq!((capacity.round(), basis), (195_000.0, CapacityBasis::Saturated));
    }

    #[test]
    fn a_loader_with_idle_cpu_is_scaled_to_a_full_one() {
        // The target was the limit: 150,000/s with the loader 75 % busy → 200,000/s at 100 %.
        let r = Wrk.parse(&fake_wrk(450_000, 3_000_000, 0)).unwrap();
        let (capacity, basis) = capacity_from(r.requests_per_sec, 75.0);
        assert_eq!((capacity.round(), basis), (200_000.0, CapacityBasis::Extrapolated));
        // No CPU measurement (0 %): the rate is all that is known.
        assert_eq!(capacity_from(1000.0, 0.0), (1000.0, CapacityBasis::Saturated));
    }

    #[test]
    fn the_store_is_sized_from_the_fastest_measured_rate() {
        let rates = vec![("rust".to_string(), 125_000.0), ("node".to_string(), 20_000.0)];
        let s = size_store(&rates, 20, 150.0, 8 * 1024 * 1024).unwrap();
        assert_eq!((s.from_subject.as_str(), s.limited_by), ("rust", StoreLimit::Rate));
        assert_eq!(s.max_users, 10_000 + 125_000 * 20 * 3 / 2);
        let line = store_sentence(&s);
        assert!(line.starts_with("`--max-users 3760000` = 10,000 + 125,000 POST/s (rust"), "{line}");
    }

    #[test]
    fn the_store_stays_within_the_cap_and_the_memory() {
        let fast = vec![("rust".to_string(), 1_000_000.0)];
        let s = size_store(&fast, 20, 150.0, 64 * 1024 * 1024).unwrap();
        assert_eq!((s.max_users, s.limited_by), (MAX_MAX_USERS, StoreLimit::Cap));
        // 1 GiB budget at 1 KiB per user: a million users at most.
        let s = size_store(&fast, 20, 1024.0, 1024 * 1024).unwrap();
        assert_eq!((s.max_users, s.limited_by), (1024 * 1024, StoreLimit::Memory));
        assert!(store_sentence(&s).contains("limited by memory"));
        // An unmeasurable memory per user falls back to the floor; a tiny machine still gets the seed's room.
        let s = size_store(&fast, 20, 0.0, 100).unwrap();
        assert_eq!((s.bytes_per_user, s.max_users), (MIN_BYTES_PER_USER, MIN_MAX_USERS));
        assert_eq!(size_store(&[], 20, 150.0, 1 << 30), None);
    }

    #[test]
    fn memory_per_user_needs_growth_and_users() {
        assert_eq!(bytes_per_user(1_000, 101_000, 102_400), Some(1000.0));
        assert_eq!(bytes_per_user(2_000, 2_000, 102_400), None);
        assert_eq!(bytes_per_user(1_000, 2_000, 0), None);
        assert_eq!(bytes_per_user(1_000, 15_000, 1_700), None, "too few users to tell a heap step from a user");
    }

    #[test]
    fn a_rerun_gets_a_larger_store_only_when_one_fits() {
        assert_eq!(larger_store(1_000_000, 0.0, 20, None), Some(4_000_000));
        // Calibrated on a busy machine (a store of 44,341), then the run went at 100,000/s: sized from that rate.
        assert_eq!(larger_store(44_341, 100_000.0, 20, None), Some(10_000 + 3_000_000));
        assert_eq!(larger_store(10_000_000, 0.0, 20, None), Some(MAX_MAX_USERS));
        assert_eq!(larger_store(MAX_MAX_USERS, 1e6, 20, None), None);
        let tight = size_store(&[("rust".into(), 1e6)], 20, 1024.0, 1024 * 1024).unwrap();
        assert_eq!(larger_store(tight.max_users, 1e6, 20, Some(&tight)), None, "already at the memory limit");
    }

    #[test]
    fn calibration_reads_the_unexpected_statuses_of_the_fake_output() {
        use crate::schema::ExpectedStatus;
        let r = Wrk.parse(&fake_wrk(300_000, 3_000_000, 1_200)).unwrap();
        assert_eq!(ExpectedStatus::Success.unexpected(r.requests, r.non_2xx), 1_200);
        assert_eq!(ExpectedStatus::Status(201).unexpected(r.requests, r.non_2xx), 1_200);
        // Loading a 404 on purpose: only the responses wrk did not count as errors are unexpected.
        assert_eq!(ExpectedStatus::Status(404).unexpected(r.requests, r.non_2xx), 300_000 - 1_200);
    }
}
