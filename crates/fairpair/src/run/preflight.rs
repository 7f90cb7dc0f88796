//! Preflight: the stage between the plan and the runs, which checks the subjects and calibrates the plan to this
//! machine. Typed data in (a [`Plan`]), typed data out (an [`Outcome`]: the calibration the runs read, the verifications, which
//! subjects may be measured, and the [`Preflight`] record stored in `benchmark.json`).
//!
//! 1. **Verify** every subject against the contract; a failing one is not measured (unless `--allow-unverified`).
//! 2. **Loader capacity**: what the load tool can generate on the loader CPUs, per scenario and connection count,
//!    measured against the `ceiling` server on the server CPUs. A figure near it may be the loader's limit rather than
//!    the server's, so a subject above [`LOADER_LIMITED_SHARE_PERCENT`] of it is *loader-limited* and every ratio
//!    involving it is reported as a bound.
//! 3. **POST rate**: a short POST run per subject that takes `--max-users`, on a store as large as the servers allow,
//!    gives the rate (and the memory per user) the store of the measured runs is sized from
//!    ([`crate::run::store_size::size_store`]): a full store answers 507, which is not served work.
//!
//! Preflight does not revise the plan: what it decides is a [`Calibration`] the runs read. Every measurement goes
//! through the one run procedure, [`Runner::run`].
//!
//! The machine-dependent constants of earlier versions (a POST rate "generously above what one core reaches") were
//! wrong on the next machine; everything here is measured where the run happens.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::analyse::summarise::{LOADER_LIMITED_SHARE_PERCENT, capacity_from, store_sentence};
use crate::machine::procstat;
use crate::plan::{CALIBRATION_WARMUP_S, Plan, Scenario};
use crate::run::console;
use crate::run::measure::{RunSpec, Runner};
use crate::run::store_size::{Calibration, bytes_per_user, given_store, size_store};
use crate::schema::{
    CapacityBasis, LoaderCapacity, MAX_MAX_USERS, PostCalibration, Preflight, SubjectKind, SubjectRecord, Verification,
    VerificationStatus,
};
use crate::subjects::process::{Origin, SubjectSpec};
use crate::text::thousands;
use crate::verify;

/// What preflight hands to the runs.
pub struct Outcome {
    /// What the runs read: the store of the POST runs.
    pub calibration: Calibration,
    pub subjects: Vec<SubjectRecord>,
    /// Per subject of the plan: whether it may be measured.
    pub measurable: Vec<bool>,
    pub skipped: Vec<String>,
    pub record: Preflight,
}

/// What preflight needs from the run around it: the run procedure (with the tool and the scripts), and a way to say
/// what it does.
pub struct Stage<'a> {
    pub runner: &'a Runner<'a>,
    pub say: &'a dyn Fn(String),
}

/// Verifies, then calibrates: the whole preflight stage.
pub fn run(plan: &Plan, stage: &Stage) -> Result<Outcome> {
    let started = Instant::now();
    let mut out = Outcome {
        calibration: Calibration::default(),
        subjects: Vec::new(),
        measurable: vec![true; plan.subjects.len()],
        skipped: Vec::new(),
        record: Preflight { loader_limited_share_percent: LOADER_LIMITED_SHARE_PERCENT, ..Preflight::default() },
    };
    let mut records: Vec<Option<SubjectRecord>> = vec![None; plan.subjects.len()];
    for i in verification_order(plan) {
        let spec = &plan.subjects[i];
        if spec.implements_contract() {
            (stage.say)(format!(
                "verifying {} (contract level {}{})",
                spec.name,
                plan.level_for(spec),
                scope_words(plan, spec)
            ));
        }
        let (record, measurable) = verify_one(plan, stage, spec, &mut out.skipped);
        // Said at once, not only in the report: a subject that will not be measured is the first thing to know.
        let attached = matches!(spec.origin, Origin::External { .. });
        if let Some(line) = console::verdict_line(&spec.name, &record.verification, measurable, attached) {
            (stage.say)(line);
        }
        if stops_the_run(spec, &record.verification, measurable) {
            record.verification.failed_rules.iter().for_each(|line| (stage.say)(line.clone()));
            return Err(anyhow::anyhow!(
                "{} fails the contract, so the run stops before measuring anything: fix what the lines above name \
                 (fairpair verify --level {} URL checks it alone), or give --allow-unverified to measure it anyway",
                spec.name,
                record.verification.level
            ));
        }
        out.measurable[i] = measurable;
        records[i] = Some(record);
    }
    out.subjects = records.into_iter().flatten().collect();
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
        out.calibration.store = out.record.store.clone();
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
        out.calibration.store = sizing.clone();
        out.record.store = sizing;
    }
}

/// Verifies one subject; returns whether it may be measured.
/// A subject that does not start (it exits, or never answers 200) is left out like one that fails: loudly, the
/// others measured, and `fairpair run` exits 1 at the end.
fn verify_one(plan: &Plan, stage: &Stage, spec: &SubjectSpec, skipped: &mut Vec<String>) -> (SubjectRecord, bool) {
    let (level, scope) = (plan.level_for(spec), plan.scope_for(spec));
    let start = |r: &contract::Requires| stage.runner.start(spec, r.max_users, r.header_timeout_ms);
    let mut verification = verify::verify_subject(spec, level, scope, &start).unwrap_or_else(|e| {
        skipped.push(format!("{}: did not start ({e:#}), so it is not measured", spec.name));
        Verification {
            status: VerificationStatus::DidNotStart,
            level,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: vec![format!("{e:#}")],
            measured_unverified: false,
            notes: vec![],
            scope,
            failed_rules: vec![],
        }
    });
    let mut measurable = verification.status != VerificationStatus::DidNotStart;
    if verification.status == VerificationStatus::Failed {
        let first = verification.failures.first().cloned().unwrap_or_default();
        if plan.settings.allow_unverified {
            verification.measured_unverified = true;
        } else {
            measurable = false;
            skipped.push(format!(
                "{}: fails {} contract cases (e.g. {first}), so it is not measured (use --allow-unverified to measure it anyway)",
                spec.name, verification.failed
            ));
        }
    }
    let record = SubjectRecord {
        name: spec.name.clone(),
        kind: match spec.origin {
            Origin::Builtin { .. } => SubjectKind::Builtin,
            Origin::Custom { .. } => SubjectKind::Custom,
            Origin::External { .. } => SubjectKind::External,
        },
        command: spec.command_template_on(&plan.server_host),
        workers: spec.workers,
        get_only: spec.get_only,
        verification,
    };
    (record, measurable)
}

/// The order subjects are verified in: the user's own services first (a `--subject`), so that one which fails is
/// known in seconds, before the built-in servers' longer verifications; then the plan's order.
fn verification_order(plan: &Plan) -> Vec<usize> {
    let (own, builtin): (Vec<usize>, Vec<usize>) =
        (0..plan.subjects.len()).partition(|&i| !matches!(plan.subjects[i].origin, Origin::Builtin { .. }));
    own.into_iter().chain(builtin).collect()
}

/// Whether a verification ends the run: a service of the user's that fails the contract, unless
/// `--allow-unverified` measures it anyway (`measurable` is then true). Measuring the references for twenty minutes
/// and then exiting 1 would cost the user a whole run to learn what verification knew at once. A built-in server
/// that fails is left out and the others are measured, as is a service that did not start (its own message says
/// why).
fn stops_the_run(spec: &SubjectSpec, v: &Verification, measurable: bool) -> bool {
    !measurable && v.status == VerificationStatus::Failed && !matches!(spec.origin, Origin::Builtin { .. })
}

/// `, GET and HEAD cases only` when a service is asked only the reading cases (`Plan::scope_for`).
fn scope_words(plan: &Plan, spec: &SubjectSpec) -> &'static str {
    match plan.scope_for(spec) {
        crate::schema::CaseScope::Reads => ", GET and HEAD cases only: the run loads no POST",
        crate::schema::CaseScope::Every => "",
    }
}

/// Number of calibration measurements preflight will make (for the plan's estimate): the loader's capacity on every
/// cell when the ceiling exists, and the POST rate of every subject whose store a writing scenario fills. A new
/// calibration counts its runs here.
pub fn planned_runs(plan: &Plan) -> usize {
    let capacity = if plan.capacity_target.is_some() { plan.capacity_cells().len() } else { 0 };
    capacity + plan.post_subjects().len()
}

/// What preflight measured and decided, as the console says it once preflight is over (a new calibration adds its
/// lines here; `console::preflight` adds the revised estimate).
pub fn lines(r: &Preflight) -> Vec<String> {
    let mut lines = Vec::new();
    for c in &r.loader_capacity {
        lines.push(format!(
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
        lines.push(format!(
            "preflight: a subject above {LOADER_LIMITED_SHARE_PERCENT:.0} % of that is loader-limited: its ratios are \
             printed as bounds"
        ));
    }
    for p in &r.post_calibration {
        lines.push(format!(
            "preflight: {} rate of {}: {} requests/s at {} connections{}",
            p.scenario,
            p.subject,
            thousands(p.requests_per_sec),
            p.connections,
            if p.machine_idle { "" } else { " (the machine was busy)" }
        ));
    }
    if let Some(s) = &r.store {
        lines.push(format!("preflight: store of the POST runs: {}", store_sentence(s)));
    }
    lines
}

/// A calibration run: the plan's closed-loop tool, a short warm-up, then the calibration's length.
fn calibration_spec<'a>(
    plan: &Plan,
    stage: &'a Stage,
    subject: &'a SubjectSpec,
    scenario: &'a Scenario,
    connections: u32,
) -> RunSpec<'a> {
    RunSpec {
        warmup_s: CALIBRATION_WARMUP_S,
        duration_s: plan.calibration_s,
        ..stage.runner.spec(subject, scenario, connections)
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
    let rec =
        stage.runner.run(&calibration_spec(plan, stage, spec, scenario, connections)).context("loader capacity")?;
    let (inv, cpu_percent, machine_idle) = (rec.load, rec.loader_cpu_percent, rec.machine_idle);
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

/// A short POST run on a fresh server whose store is as large as the servers allow, at the plan's smallest
/// connection count; the warm-up's users count for the memory per user.
fn calibrate_post(plan: &Plan, stage: &Stage, spec: &SubjectSpec, scenario: &Scenario) -> Result<PostCalibration> {
    let connections = plan.settings.connections.iter().copied().min().unwrap_or(50);
    let run = RunSpec {
        max_users: Some(MAX_MAX_USERS),
        memory_after: Some(Duration::ZERO),
        ..calibration_spec(plan, stage, spec, scenario, connections)
    };
    let rec = stage.runner.run(&run).context("POST calibration")?;
    let (w, inv) = (rec.warmup.expect("a calibration warms up"), rec.load);
    let (before, after) = rec.memory.map_or((0, 0), |(b, a)| (b.rss_kib, a.rss_kib));
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
        rss_before_kib: Some(before),
        rss_after_kib: Some(after),
        machine_idle: rec.machine_idle,
    })
}

/// `MemAvailable` from `/proc/meminfo`, in KiB.
fn memory_available_kib() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    procstat::kib_field(&text, "MemAvailable").unwrap_or(0)
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
            scope: crate::schema::CaseScope::Every,
            failed_rules: vec![],
        }
    }

    #[test]
    fn the_console_says_which_subject_fails_and_that_it_is_not_measured() {
        let failed = verification(VerificationStatus::Failed, contract::Level::Api);
        let line = console::verdict_line("mine", &failed, false, false).unwrap();
        assert!(
            line.starts_with("mine: FAILED verification at level api (2 of 42 cases, e.g. post-name-empty"),
            "{line}"
        );
        assert!(line.contains("will NOT be measured"), "{line}");
        let line = console::verdict_line("mine", &failed, true, false).unwrap();
        assert!(line.contains("measured anyway") && line.contains("UNVERIFIED"), "{line}");
        let passed = console::verdict_line(
            "rust",
            &verification(VerificationStatus::Passed, contract::Level::Full),
            true,
            false,
        )
        .unwrap();
        assert_eq!(passed, "rust: verified at level full (40 cases passed)");
        assert_eq!(
            console::verdict_line(
                "ceiling",
                &verification(VerificationStatus::NotApplicable, contract::Level::Full),
                true,
                false
            ),
            None
        );
        // A URL subject fairpair never started is not ready, not "did not start".
        let not_ready = verification(VerificationStatus::DidNotStart, contract::Level::Api);
        assert!(console::verdict_line("mine", &not_ready, false, true).unwrap().starts_with("mine: NOT READY ("));
        assert!(console::verdict_line("mine", &not_ready, false, false).unwrap().starts_with("mine: DID NOT START ("));
    }

    use super::*;
    use crate::schema::CapacityBasis;
    use crate::tools::LoadTool;
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
    fn calibration_reads_the_unexpected_statuses_of_the_fake_output() {
        use crate::schema::ExpectedStatus;
        let r = Wrk.parse(&fake_wrk(300_000, 3_000_000, 1_200)).unwrap();
        assert_eq!(ExpectedStatus::Success.unexpected(r.requests, r.non_2xx), 1_200);
        assert_eq!(ExpectedStatus::Status(201).unexpected(r.requests, r.non_2xx), 1_200);
        // Loading a 404 on purpose: only the responses wrk did not count as errors are unexpected.
        assert_eq!(ExpectedStatus::Status(404).unexpected(r.requests, r.non_2xx), 300_000 - 1_200);
    }
}
