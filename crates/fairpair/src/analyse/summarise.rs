//! Summary: statistics and flags, pure functions of the raw records. `execute` calls them once the runs of a phase
//! are in; `report` calls [`summarise`] again to upgrade a version 1 file. Nothing here runs anything or reads the
//! machine, so every rule is tested on records made up in the tests.
//!
//! A new flag goes here: a [`FlagKind`] in `schema/summaries.rs`, its threshold as a constant below, and its rule in [`flags`].

use crate::analyse::stats::Stat;
use crate::schema::*;
use crate::text::{count, thousands};

/// A subject whose throughput exceeds this share of the loader's measured capacity is loader-limited. Measured on
/// two machines (docs/harness.md, "Loader capacity"): wrk uses its CPU in proportion to the rate it drives, so at
/// 80 % of its capacity it is ~80–88 % busy, and a queue in front of a single busy server grows as ρ / (1 − ρ): at
/// 80 % a request already waits about four service times in the loader. Above that, part of what is measured is the
/// loader's own queueing, and a faster server could not show more than the remaining fifth.
pub const LOADER_LIMITED_SHARE_PERCENT: f64 = 80.0;
/// A run uses "≥ 90 % of the loader's CPUs": its figures may be the tool's limit.
pub const LOADER_BOUND_PERCENT: f64 = 90.0;
/// Coefficient of variation above which a cell is flagged noisy.
pub const NOISY_CV: f64 = 0.05;
/// Steal time (percent of the machine) above which a cell is flagged: a neighbour on the host took CPU time.
pub const STEAL_PERCENT: f64 = 1.0;

/// A flag on a subject (and, when it is about one cell, its scenario and connection count).
pub fn flag(kind: FlagKind, subject: &str, scenario: Option<&str>, connections: Option<u32>, message: String) -> Flag {
    Flag { kind, subject: subject.into(), scenario: scenario.map(String::from), connections, message }
}

/// The loader counts as saturated during a measurement when it uses this much of its CPUs.
pub const SATURATED_LOADER_PERCENT: f64 = 90.0;

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

/// The loader's capacity on one cell, as [`cell_capacity`] takes it.
#[derive(Clone, Debug)]
pub struct CellCapacity<'a> {
    /// The capacity the shares are of: preflight's figure, or the fastest run's when that is higher.
    pub rps: f64,
    /// What preflight measured against the ceiling.
    pub preflight_rps: f64,
    /// The run that raised the capacity above preflight's figure, when one did.
    pub exceeded_by: Option<&'a LoadRun>,
}

/// The loader's capacity on a cell: the highest it was seen to reach, preflight's measurement or any run of the cell
/// (each through [`capacity_from`]); `None` when preflight did not measure the cell. A run above preflight's figure
/// shows the calibration was wrong (a busy machine, a cold loader), not that a subject beat the loader: a share above
/// 100 % is never a figure.
pub fn cell_capacity<'a>(
    runs: &'a [LoadRun],
    p: &Preflight,
    scenario: &str,
    connections: u32,
) -> Option<CellCapacity<'a>> {
    let c = p.loader_capacity.iter().find(|c| c.scenario == scenario && c.connections == connections)?;
    let mut cell = CellCapacity { rps: c.loader_capacity_rps, preflight_rps: c.loader_capacity_rps, exceeded_by: None };
    for r in runs.iter().filter(|r| r.scenario == scenario && r.connections == connections) {
        let reached = capacity_from(r.requests_per_sec, r.loader_cpu_percent).0;
        if reached > cell.rps {
            (cell.rps, cell.exceeded_by) = (reached, Some(r));
        }
    }
    Some(cell)
}

/// Each summary's share of the loader's capacity for its scenario and connection count ([`cell_capacity`]), and
/// whether that share makes it loader-limited.
pub fn apply_capacity(summaries: &mut [Summary], runs: &[LoadRun], preflight: Option<&Preflight>) {
    let Some(p) = preflight else { return };
    for s in summaries {
        let Some(cell) = cell_capacity(runs, p, &s.scenario, s.connections) else { continue };
        if cell.rps > 0.0 {
            let share = s.requests_per_sec.median / cell.rps * 100.0;
            s.loader_capacity_rps = Some(cell.rps);
            s.loader_capacity_share_percent = Some(share);
            s.loader_limited = share > p.loader_limited_share_percent;
        }
    }
}

/// Applies [`apply_capacity`] to a file as read. Files written before the capacity took the fastest run into
/// account hold shares of preflight's figure alone, above 100 % where a run beat it, and loader-limited flags that
/// say so; their shares are recomputed and those flags redrawn from them (a capacity can only have risen, so a flag
/// is only ever dropped). A newer file comes out unchanged.
pub fn reapply_capacity(b: &mut Benchmark) {
    apply_capacity(&mut b.summaries, &b.runs, b.preflight.as_ref());
    let summaries = &b.summaries;
    b.flags.retain_mut(|f| {
        if f.kind != FlagKind::LoaderLimited {
            return true;
        }
        let cell = summaries.iter().find(|s| {
            s.subject == f.subject && Some(&s.scenario) == f.scenario.as_ref() && Some(s.connections) == f.connections
        });
        match cell.and_then(loader_limited_flag) {
            Some(redrawn) => *f = redrawn,
            None => return false,
        }
        true
    });
}

/// Groups the runs that are throughput figures by subject × scenario × connections, in first-seen order. Runs left
/// out (unexpected statuses) are counted in `left_out_runs` and nowhere else; a cell with no run left has no
/// summary.
pub fn summarise(runs: &[LoadRun]) -> Vec<Summary> {
    let mut keys: Vec<(&str, &str, u32)> = Vec::new();
    for r in runs.iter().filter(|r| r.left_out.is_none()) {
        let k = (r.subject.as_str(), r.scenario.as_str(), r.connections);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(subject, scenario, connections)| {
            let cell: Vec<&LoadRun> = runs
                .iter()
                .filter(|r| r.subject == subject && r.scenario == scenario && r.connections == connections)
                .collect();
            summarise_cell(&cell)
        })
        .collect()
}

/// The summary of one cell's runs (at least one of them kept).
fn summarise_cell(cell: &[&LoadRun]) -> Summary {
    let group: Vec<&LoadRun> = cell.iter().copied().filter(|r| r.left_out.is_none()).collect();
    let stat = |f: &dyn Fn(&LoadRun) -> f64| {
        Stat::of(&group.iter().map(|r| f(r)).collect::<Vec<_>>()).expect("non-empty group")
    };
    let first = group[0];
    Summary {
        subject: first.subject.clone(),
        scenario: first.scenario.clone(),
        connections: first.connections,
        requests_per_sec: stat(&|r| r.requests_per_sec),
        p50_ms: stat(&|r| r.latency.p50_ms),
        p90_ms: stat(&|r| r.latency.p90_ms),
        p99_ms: stat(&|r| r.latency.p99_ms),
        p99_9_ms: Stat::of(&group.iter().filter_map(|r| r.latency.p99_9_ms).collect::<Vec<_>>()),
        max_ms: stat(&|r| r.latency.max_ms),
        mean_ms: Stat::of(&group.iter().filter_map(|r| r.latency.mean_ms).collect::<Vec<_>>()),
        server_cpu_us_per_request: Stat::of(
            &group.iter().filter_map(|r| r.server_cpu_us_per_request).collect::<Vec<_>>(),
        ),
        loader_cpu_percent: stat(&|r| r.loader_cpu_percent),
        loader_bound_runs: group.iter().filter(|r| r.loader_bound).count() as u32,
        errors: group.iter().map(|r| r.errors).sum(),
        non_2xx: group.iter().map(|r| r.non_2xx).sum(),
        loader_capacity_rps: None,
        loader_capacity_share_percent: None,
        loader_limited: false,
        steal_percent_max: group.iter().filter_map(|r| r.steal_percent).reduce(f64::max),
        listen_backlog: group.iter().filter_map(|r| r.listen_backlog).min(),
        left_out_runs: (cell.len() - group.len()) as u32,
    }
}

pub fn summarise_memory(runs: &[MemoryRun]) -> Vec<MemorySummary> {
    let mut subjects: Vec<String> = Vec::new();
    for r in runs {
        if !subjects.contains(&r.subject) {
            subjects.push(r.subject.clone());
        }
    }
    subjects
        .into_iter()
        .map(|subject| {
            let group: Vec<&MemoryRun> = runs.iter().filter(|r| r.subject == subject).collect();
            let stat = |f: &dyn Fn(&MemoryRun) -> u64| {
                Stat::of(&group.iter().map(|r| f(r) as f64).collect::<Vec<_>>()).expect("non-empty")
            };
            MemorySummary {
                startup_ms: Stat::of(&group.iter().map(|r| r.startup_ms).collect::<Vec<_>>()).expect("non-empty"),
                idle_rss_kib: stat(&|r| r.idle.rss_kib),
                idle_hwm_kib: stat(&|r| r.idle.hwm_kib),
                idle_pss_kib: stat(&|r| r.idle.pss_kib),
                after_rss_kib: stat(&|r| r.after_load.rss_kib),
                after_hwm_kib: stat(&|r| r.after_load.hwm_kib),
                after_pss_kib: stat(&|r| r.after_load.pss_kib),
                processes: group.iter().map(|r| r.after_load.processes).max().unwrap_or(0),
                subject,
            }
        })
        .collect()
}

/// The loader-limited flag of a cell, when its share of the loader's capacity makes it so.
fn loader_limited_flag(s: &Summary) -> Option<Flag> {
    let share = s.loader_capacity_share_percent.filter(|_| s.loader_limited)?;
    let message = format!(
        "{} {} at {} connections: {share:.0} % of what the load generator can drive here; the figure may be the \
         loader's, so ratios involving it are bounds (compare CPU per request instead)",
        s.subject, s.scenario, s.connections
    );
    Some(flag(FlagKind::LoaderLimited, &s.subject, Some(&s.scenario), Some(s.connections), message))
}

/// Every flag of a run, derived from its records: subjects measured unverified, runs left out (unexpected statuses,
/// a machine busy through its reruns), open-loop rates not reached, and per cell noisy, loader-limited, loader-bound,
/// errors, non-2xx, busy machine, steal. The one flag raised elsewhere is a failed run, which leaves no record but
/// its flag (`execute`, through [`flag`]).
pub fn flags(bench: &Benchmark) -> Vec<Flag> {
    let mut out = Vec::new();
    for s in bench.subjects.iter().filter(|s| s.verification.measured_unverified) {
        let v = &s.verification;
        let first = v.failures.first().cloned().unwrap_or_default();
        let message = format!(
            "{} failed {} (e.g. {first}); its figures do not measure the same work",
            s.name,
            count(v.failed.into(), "contract case")
        );
        out.push(flag(FlagKind::Unverified, &s.name, None, None, message));
    }
    out.extend(left_out_flags(bench));
    for r in bench.open_loop.iter().filter(|r| r.achieved_rps < 0.95 * r.asked_rps) {
        let message =
            format!("{} open loop: asked {:.0} requests/s, achieved {:.0}", r.subject, r.asked_rps, r.achieved_rps);
        out.push(flag(FlagKind::RateNotReached, &r.subject, Some(&r.scenario), Some(r.connections), message));
    }
    for s in &bench.summaries {
        let at = |kind, message: String| flag(kind, &s.subject, Some(&s.scenario), Some(s.connections), message);
        let cell = format!("{} {} at {} connections", s.subject, s.scenario, s.connections);
        if let Some(cv) = s.requests_per_sec.cv.filter(|&cv| cv > NOISY_CV) {
            out.push(at(
                FlagKind::Noisy,
                format!("{cell}: throughput varies by {:.1} % (CV) across {}", cv * 100.0, runs(s)),
            ));
        }
        out.extend(loader_limited_flag(s));
        if s.loader_bound_runs > 0 {
            out.push(at(FlagKind::LoaderBound, format!(
                "{cell}: the load generator used ≥ {LOADER_BOUND_PERCENT:.0} % of its CPUs in {} of {}; the figure may be the tool's limit",
                s.loader_bound_runs, runs(s)
            )));
        }
        if s.errors > 0 {
            let what = if s.errors == 1 { "socket error or timeout" } else { "socket errors or timeouts" };
            out.push(at(FlagKind::Errors, format!("{cell}: {} {what}", s.errors)));
        }
        if s.non_2xx > 0 {
            out.push(at(FlagKind::Non2xx, format!("{cell}: {} with an error status", count(s.non_2xx, "response"))));
        }
        if let Some(steal) = s.steal_percent_max.filter(|&p| p > STEAL_PERCENT) {
            out.push(at(
                FlagKind::Steal,
                format!("{cell}: the hypervisor took up to {steal:.1} % of the machine's CPU time during a run"),
            ));
        }
        if let Some(f) = busy_flag(bench, s, &cell) {
            out.push(f);
        }
    }
    out
}

/// The flags of runs left out: each run with unexpected statuses (rerun or not), and each run the machine was busy
/// during that was not rerun (its reruns were used up). A rerun is the next run of the same cell and repeat.
fn left_out_flags(bench: &Benchmark) -> Vec<Flag> {
    let threshold = bench.settings.idle_threshold_percent;
    let mut out = Vec::new();
    for (i, r) in bench.runs.iter().enumerate() {
        let Some(why) = &r.left_out else { continue };
        let rerun = bench.runs[i + 1..].iter().any(|n| {
            (n.subject.as_str(), n.scenario.as_str(), n.connections, n.repeat)
                == (r.subject.as_str(), r.scenario.as_str(), r.connections, r.repeat)
        });
        let kind = if r.unexpected_responses > 0 {
            FlagKind::UnexpectedStatus
        } else if busy_percent(r) > threshold && !rerun {
            FlagKind::BusyMachine
        } else {
            continue;
        };
        let message = format!("{} {} at {} connections: {why}", r.subject, r.scenario, r.connections);
        out.push(flag(kind, &r.subject, Some(&r.scenario), Some(r.connections), message));
    }
    out
}

/// What other processes used during a run, on this machine or (two hosts) on the server host, whichever is more.
pub fn busy_percent(r: &LoadRun) -> f64 {
    r.other_cpu_percent.max(r.server_host_other_cpu_percent.unwrap_or(0.0))
}

/// A cell's run count with its noun: `1 run`, `3 runs`.
fn runs(s: &Summary) -> String {
    count(s.requests_per_sec.n as u64, "run")
}

/// Runs kept in a cell although other processes used more than the idle threshold during them: files written before
/// busy runs were rerun and left out (their summaries are recomputed on load, without that exclusion: a verdict
/// written then stays as it was, flagged).
fn busy_flag(bench: &Benchmark, s: &Summary, cell: &str) -> Option<Flag> {
    let busy: Vec<&LoadRun> = bench
        .runs
        .iter()
        .filter(|r| r.subject == s.subject && r.scenario == s.scenario && r.connections == s.connections)
        .filter(|r| r.left_out.is_none() && r.other_cpu_percent > bench.settings.idle_threshold_percent)
        .collect();
    let worst = busy.iter().map(|r| r.other_cpu_percent).reduce(f64::max)?;
    Some(flag(
        FlagKind::BusyMachine,
        &s.subject,
        Some(&s.scenario),
        Some(s.connections),
        format!("{cell}: other processes used up to {worst:.0} % of the machine during {} of {}", busy.len(), runs(s)),
    ))
}

/// One sentence saying what store size was chosen and why; also used by the report.
pub fn store_sentence(s: &StoreSizing) -> String {
    if s.limited_by == StoreLimit::Given {
        return format!("`--max-users {}`, given with --post-max-users (no POST rate calibrated)", s.max_users);
    }
    let basis = format!(
        "{} + {} POST/s ({}, measured in preflight) × {} s (warm-up + run) × {}",
        thousands(MIN_MAX_USERS as f64),
        thousands(s.from_rps),
        s.from_subject,
        s.window_s,
        s.margin
    );
    let limit = match s.limited_by {
        StoreLimit::Rate | StoreLimit::Given => String::new(),
        StoreLimit::Cap => format!(", capped at the servers' limit of {}", thousands(MAX_MAX_USERS as f64)),
        StoreLimit::Memory => format!(
            ", limited by memory: half the available {:.1} GiB at {:.0} bytes per user",
            s.memory_budget_kib as f64 * 2.0 / 1024.0 / 1024.0,
            s.bytes_per_user
        ),
    };
    format!("`--max-users {}` = {basis}{limit}", s.max_users)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(subject: &str, rps: f64, unexpected: u64, left_out: bool) -> LoadRun {
        LoadRun {
            subject: subject.into(),
            scenario: "post".into(),
            connections: 50,
            repeat: 1,
            tool: crate::plan::names::Tool::Wrk,
            command: String::new(),
            server_command: String::new(),
            max_users: Some(100_000),
            duration_s: 1.0,
            requests: rps as u64,
            requests_per_sec: rps,
            latency: Latency::default(),
            errors: 0,
            non_2xx: unexpected,
            server_cpu_ms: 1.0,
            server_cpu_us_per_request: Some(5.0),
            loader_cpu_percent: 50.0,
            loader_bound: false,
            other_cpu_percent: 0.0,
            idle_wait_s: 0.0,
            machine_idle: true,
            steal_percent: Some(0.5),
            listen_backlog: Some(511),
            unexpected_responses: unexpected,
            left_out: left_out.then(|| "store full".to_string()),
            network: None,
            server_host_other_cpu_percent: None,
            raw_output: String::new(),
        }
    }

    #[test]
    fn runs_left_out_count_in_no_summary() {
        let runs = vec![
            run("rust", 100_000.0, 5_000, true),
            run("rust", 90_000.0, 0, false),
            run("rust", 92_000.0, 0, false),
            run("node", 20_000.0, 0, false),
            run("lost", 1e9, 7, true),
        ];
        let s = summarise(&runs);
        let names: Vec<&str> = s.iter().map(|s| s.subject.as_str()).collect();
        assert_eq!(names, ["rust", "node"], "a cell with every run left out has no summary");
        assert_eq!((s[0].requests_per_sec.n, s[0].requests_per_sec.max, s[0].left_out_runs), (2, 92_000.0, 1));
        assert_eq!((s[0].non_2xx, s[0].listen_backlog, s[0].steal_percent_max), (0, Some(511), Some(0.5)));
    }

    #[test]
    fn the_capacity_share_decides_loader_limited() {
        let nearly_saturated = |mut r: LoadRun| {
            r.loader_cpu_percent = 89.0;
            r
        };
        let runs =
            [nearly_saturated(run("rust", 90_000.0, 0, false)), nearly_saturated(run("node", 20_000.0, 0, false))];
        let mut s = summarise(&runs);
        let capacity = |rps| Preflight {
            loader_capacity: vec![LoaderCapacity {
                scenario: "post".into(),
                connections: 50,
                target: "ceiling".into(),
                command: String::new(),
                loader_capacity_rps: rps,
                measured_rps: rps,
                loader_cpu_percent: 99.0,
                basis: CapacityBasis::Saturated,
                machine_idle: true,
            }],
            loader_limited_share_percent: LOADER_LIMITED_SHARE_PERCENT,
            ..Preflight::default()
        };
        // 90,000/s with the loader 89 % busy: the loader can drive 101,124/s, more than preflight's 100,000.
        apply_capacity(&mut s, &runs, Some(&capacity(100_000.0)));
        assert_eq!((s[0].loader_capacity_share_percent.map(f64::round), s[0].loader_limited), (Some(89.0), true));
        assert_eq!((s[1].loader_capacity_share_percent.map(f64::round), s[1].loader_limited), (Some(20.0), false));
        // The loader-CPU flag is not what decides: these runs used 89 % of it, under the loader-bound 90 %.
        assert_eq!(s[0].loader_bound_runs, 0);
        let mut s = summarise(&runs[..1]);
        apply_capacity(&mut s, &runs[..1], Some(&capacity(200_000.0)));
        assert!(!s[0].loader_limited);
        let flags = flags(&Benchmark { summaries: s, ..empty_bench() });
        assert!(flags.iter().all(|f| f.kind != FlagKind::LoaderLimited));
    }

    #[test]
    fn a_count_of_one_is_said_in_the_singular() {
        let mut one = run("rust", 90_000.0, 1, false);
        (one.errors, one.loader_cpu_percent, one.loader_bound) = (1, 95.0, true);
        let summaries = summarise(&[one.clone()]);
        let bench = Benchmark { runs: vec![one], summaries, ..empty_bench() };
        let messages: Vec<String> = flags(&bench).into_iter().map(|f| f.message).collect();
        let expected =
            ["of its CPUs in 1 of 1 run;", ": 1 socket error or timeout", ": 1 response with an error status"];
        for part in expected {
            assert!(messages.iter().any(|m| m.contains(part)), "{part:?} in {messages:#?}");
        }
    }

    /// A preflight that measured the loader at `rps` on POST at 50 connections.
    fn preflight_measuring_post_at(rps: f64) -> Preflight {
        Preflight {
            loader_capacity: vec![LoaderCapacity {
                scenario: "post".into(),
                connections: 50,
                target: "ceiling".into(),
                command: String::new(),
                loader_capacity_rps: rps,
                measured_rps: rps,
                loader_cpu_percent: 95.0,
                basis: CapacityBasis::Saturated,
                machine_idle: false,
            }],
            loader_limited_share_percent: LOADER_LIMITED_SHARE_PERCENT,
            ..Preflight::default()
        }
    }

    #[test]
    fn a_run_faster_than_preflight_measured_raises_the_capacity() {
        let mut fast = run("rust", 120_000.0, 0, false);
        fast.loader_cpu_percent = 80.0;
        let runs = vec![fast, run("node", 20_000.0, 0, false)];
        let mut s = summarise(&runs);
        let p = preflight_measuring_post_at(50_000.0);
        apply_capacity(&mut s, &runs, Some(&p));
        // 120,000/s with the loader 80 % busy: the loader can drive 150,000/s, whatever preflight saw.
        let cell = cell_capacity(&runs, &p, "post", 50).unwrap();
        assert_eq!((cell.rps, cell.preflight_rps), (150_000.0, 50_000.0));
        assert_eq!(cell.exceeded_by.map(|r| r.subject.as_str()), Some("rust"));
        assert_eq!((s[0].loader_capacity_rps, s[0].loader_capacity_share_percent), (Some(150_000.0), Some(80.0)));
        assert!(!s[0].loader_limited, "80 % is the threshold, not above it");
        assert!(s.iter().all(|s| s.loader_capacity_share_percent.unwrap() <= 100.0));
    }

    #[test]
    fn a_file_with_shares_of_preflight_alone_is_read_with_the_capacity_the_runs_reached() {
        // As a file written before the fastest run counted: shares of preflight's 50,000/s, rust at 240 %.
        let mut fast = run("rust", 120_000.0, 0, false);
        fast.loader_cpu_percent = 100.0;
        let runs = vec![fast, run("node", 20_000.0, 0, false)];
        let mut summaries = summarise(&runs);
        for s in &mut summaries {
            let share = s.requests_per_sec.median / 50_000.0 * 100.0;
            (s.loader_capacity_rps, s.loader_capacity_share_percent, s.loader_limited) =
                (Some(50_000.0), Some(share), true);
        }
        let p = preflight_measuring_post_at(50_000.0);
        let mut b = Benchmark { runs, summaries, preflight: Some(p), ..empty_bench() };
        b.flags = flags(&b);
        let limited = |b: &Benchmark| -> Vec<String> {
            b.flags.iter().filter(|f| f.kind == FlagKind::LoaderLimited).map(|f| f.message.clone()).collect()
        };
        assert!(limited(&b)[0].starts_with("rust post at 50 connections: 240 % of what"), "{:?}", limited(&b));
        let others = b.flags.len() - limited(&b).len();
        reapply_capacity(&mut b);
        let shares: Vec<f64> = b.summaries.iter().filter_map(|s| s.loader_capacity_share_percent).collect();
        assert_eq!(shares, [100.0, 20_000.0 / 120_000.0 * 100.0]);
        // rust is still loader-limited (at 100 %, said so), node no longer; no other flag is touched.
        assert_eq!(limited(&b).len(), 1, "{:?}", limited(&b));
        assert!(limited(&b)[0].starts_with("rust post at 50 connections: 100 % of what"), "{:?}", limited(&b));
        assert_eq!(b.flags.len() - 1, others);
    }

    fn empty_bench() -> Benchmark {
        serde_json::from_str(include_str!("../../tests/fixtures/golden/benchmark.json")).unwrap()
    }
}
