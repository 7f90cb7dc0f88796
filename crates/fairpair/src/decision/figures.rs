//! The decision's figures per subject, read from a [`Benchmark`]: each scenario's cores at the traffic (from its
//! capacity search), CPU per request and CPU-hours, memory across the replicas, and the p50 the latency share uses.

use super::{Inputs, PerCore, Span, cores, cpu_hours_per_month, monthly_cost};
use crate::analyse::stats::median_of_sorted;
use crate::report::baseline;
use crate::schema::{Benchmark, CapacityRecord, Search};

/// Where the server's own time (the p50) was taken from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LatencySource {
    /// The capacity search's windows at the capacity's rate: open loop, the latency at the traffic sized for.
    Capacity,
    /// The closed-loop runs at the lowest connection count (the least queueing of them).
    ClosedLoop { connections: u32 },
}

/// One subject on one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizing {
    pub scenario: String,
    /// The capacity as the capacity section prints it (`≥ 41,000/s`, a bracket, or why there is none).
    pub capacity: String,
    /// The cores for the traffic, or why they cannot be sized.
    pub cores: Result<Span, String>,
    /// Whether the search stopped at its cap before its bracket closed.
    pub unconfirmed: bool,
    /// Server CPU per request (µs), median at the lowest connection count.
    pub cpu_us: Option<f64>,
    pub cpu_hours: Option<f64>,
    /// The month's cost of the cores and the memory, with a price given.
    pub cost: Option<Span>,
    /// The server's own time, ms, and where it came from.
    pub p50: Option<(f64, LatencySource)>,
}

/// Memory across the replicas: after-load RSS (summed over the subject's processes) times the replicas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryFigure {
    pub per_copy_mib: f64,
    pub processes: u32,
    pub total_gib: f64,
}

impl MemoryFigure {
    /// One worker's share of a copy's RSS (a multi-process subject's workers are summed in its figure).
    pub fn per_worker_mib(&self) -> f64 {
        self.per_copy_mib / self.processes.max(1) as f64
    }
}

/// One subject's decision figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub subject: String,
    pub baseline: bool,
    /// The cores one copy of the subject used for its capacity: one per worker, up to the server's CPUs.
    pub cores_used: u32,
    pub memory: Option<MemoryFigure>,
    pub sizings: Vec<Sizing>,
}

/// Why no capacity of `c` is sized at all (`None`: they can be): steps on a busy machine, or without a warm-up, as
/// the capacity section's sizing line says.
pub fn sizing(c: &CapacityRecord) -> Option<&'static str> {
    let busy = c.searches.iter().chain(&c.loader_limit).flat_map(|s| &s.steps).any(|s| !s.result.machine_idle);
    if busy {
        return Some("steps began on a busy machine, so no sizing is drawn from them");
    }
    c.settings.cold().then_some("steps without a warm-up (`--quick`) measure cold servers, so no sizing is drawn")
}

/// The decision rows: the baseline first, then every other subject that implements the API (the ceiling, a fixed
/// response, is no service to size).
pub fn rows(b: &Benchmark, inputs: &Inputs) -> Vec<Row> {
    let base = baseline(b);
    let mut subjects: Vec<&crate::schema::SubjectRecord> = b.subjects.iter().filter(|s| !s.get_only).collect();
    subjects.sort_by_key(|s| Some(s.name.as_str()) != base);
    let cpus = (b.settings.server_cpus.len() as u32).max(1);
    subjects
        .into_iter()
        .filter(|s| crate::report::measured(b, &s.name))
        .map(|s| {
            let cores_used = s.workers.unwrap_or(1).clamp(1, cpus);
            let memory = b.memory_summary(&s.name).map(|m| {
                let per_copy_mib = m.after_rss_kib.median / 1024.0;
                let total_gib = per_copy_mib * inputs.replicas() as f64 / 1024.0;
                MemoryFigure { per_copy_mib, processes: m.processes, total_gib }
            });
            let sizings = scenarios(b)
                .iter()
                .map(|scenario| sized(b, &s.name, scenario, cores_used, memory.map(|m| m.total_gib), inputs))
                .collect();
            Row { subject: s.name.clone(), baseline: Some(s.name.as_str()) == base, cores_used, memory, sizings }
        })
        .collect()
}

/// The scenarios sized: the capacity search's, else the closed-loop runs'.
fn scenarios(b: &Benchmark) -> Vec<String> {
    let mut from: Vec<String> = match &b.capacity {
        Some(c) => c.searches.iter().map(|s| s.scenario.clone()).collect(),
        None => b.summaries.iter().map(|s| s.scenario.clone()).collect(),
    };
    let mut seen = Vec::new();
    from.retain(|s| {
        let new = !seen.contains(s);
        seen.push(s.clone());
        new
    });
    from
}

fn sized(b: &Benchmark, subject: &str, scenario: &str, used: u32, gib: Option<f64>, inputs: &Inputs) -> Sizing {
    let search = b.capacity.iter().flat_map(|c| &c.searches).find(|s| s.subject == subject && s.scenario == scenario);
    let lowest =
        b.summaries.iter().filter(|s| s.subject == subject && s.scenario == scenario).min_by_key(|s| s.connections);
    let cpu_us = lowest.and_then(|s| s.server_cpu_us_per_request.as_ref()).map(|c| c.median);
    let cores = match crate::analyse::warmup::warming_in_windows(b, subject) {
        Some(why) => Err(format!("not sized: {why}")),
        None => cores_of(b.capacity.as_ref(), search, used, inputs.traffic()),
    };
    let cost = cores.as_ref().ok().and_then(|c| monthly_cost(*c, gib?, inputs.core_price, inputs.memory_price));
    // The p50 at the capacity only where that capacity sized cores: a search that measured a warm-up, a bound the
    // loader set or no capacity at all has no rate that means "this subject, as loaded as it can be at the
    // objective", so its p50 there is no server's own time; the closed-loop p50 at the lowest count is.
    let p50 = search
        .filter(|_| cores.is_ok())
        .and_then(capacity_p50)
        .map(|v| (v, LatencySource::Capacity))
        .or_else(|| lowest.map(|s| (s.p50_ms.median, LatencySource::ClosedLoop { connections: s.connections })));
    Sizing {
        scenario: scenario.into(),
        capacity: search.map_or("—".into(), Search::figure),
        cores,
        unconfirmed: search.is_some_and(Search::unconfirmed),
        cpu_us,
        cpu_hours: cpu_us.map(|us| cpu_hours_per_month(us, inputs.traffic())),
        cost,
        p50,
    }
}

/// The cores for `traffic` from a search's capacity, per core of the `used` it ran on, or why there are none.
fn cores_of(c: Option<&CapacityRecord>, s: Option<&Search>, used: u32, traffic: f64) -> Result<Span, String> {
    let Some(c) = c else {
        return Err("no capacity search in this run: cores cannot be sized".into());
    };
    let Some(s) = s else { return Err("not searched".into()) };
    if let Some(why) = sizing(c) {
        return Err(format!("not sized: {why}"));
    }
    if let Some(from) = c.unresolved(s) {
        return Err(format!(
            "not sized: not a capacity (above {}/s, where the loader missed)",
            crate::text::thousands(from)
        ));
    }
    let (Some(capacity), Some(bracket)) = (s.capacity(), s.bracket()) else {
        return Err(format!("not sized: {}", s.figure()));
    };
    let per = |v: f64| v / used as f64;
    let per_core = match bracket.high {
        Some(high) if !s.bound => PerCore::Bracket { low: per(bracket.low), high: per(high) },
        _ => PerCore::AtLeast(per(capacity)),
    };
    Ok(cores(traffic, per_core))
}

/// The median p50 of the windows at the capacity's rate that met the objective and count.
fn capacity_p50(s: &Search) -> Option<f64> {
    let rate = s.capacity()?;
    let mut v: Vec<f64> = s
        .steps
        .iter()
        .filter(|st| st.rate_asked == rate && st.counts() && st.passed())
        .map(|st| st.result.latency.p50_ms)
        .collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| median_of_sorted(&v))
}
