//! Capacity at a latency objective: the highest offered rate at which a subject keeps `--slo` (p99 ≤ 10 ms by
//! default) with no request failed, aborted or left unsent.
//!
//! Each step is an open-loop run: the load tool sends at a fixed rate whatever the server does (oha `-q RATE
//! --latency-correction`), and measures each latency from the request's *scheduled* start, so a server that falls
//! behind shows its queue in the percentiles instead of slowing the loader down (coordinated omission). A closed-loop
//! peak says how fast the queue drains when it is always full; this says how much traffic fits under a latency bound.
//!
//! The search is a pure function of step results ([`search`]), so its logic is tested in CI against a simulated
//! subject; `execute` gives it a step that runs the real thing. Its definitions:
//!
//! - It starts at [`START_FRACTION`] of what the code calls the upper bound: the subject's closed-loop throughput
//!   measured in the same run (or a short closed-loop probe under `--capacity-only`). It is where the search starts,
//!   not a limit: with a fixed connection count a closed loop is held down by latency (Little's law), so a service
//!   with a long but concurrent service time can serve more open-loop than closed-loop.
//! - Each rate is decided by several windows (steps), each a fresh server at that rate: met or missed once the
//!   windows that met lead those that missed (or trail them) by a margin, by their majority at the most windows a
//!   rate may take, undecided on a tie or when the search's cap cuts it short ([`verdict`]).
//! - It halves the rate until a rate is met; the lowest rate it tries is [`LOWEST_FRACTION`] of the first, below
//!   which it reports "no rate meets the objective" (naming the lowest rate tried).
//! - Until a rate is not met, it doubles the rate, past the upper bound too.
//! - It bisects (geometrically) between the highest rate met and the lowest not met until they are within the
//!   resolution ([`bracket`]). The capacity is the highest rate met, reported with its bracket: up to the lowest rate
//!   decided missed. After `max_steps` windows (a setting, so that the estimate can budget every search at its cap:
//!   [`max_steps`]) it stops with the bracket it has, marked as not closed.
//! - A capacity is printed as a bound, `≥ N/s`, for a [`BoundBy`] reason: it is at least [`LOADER_BOUND_SHARE`] of
//!   the loader's own open-loop limit (the same search against the `ceiling`, in preflight); or the step that failed
//!   just above it, at a rate the subject served in closed loop, did not hold its rate (the loader's limit reached
//!   first, measured or not); or no step above it failed (the search reached its cap still stepping up).
//!
//! Beside the search, the rest of the capability: `plan.rs` (what a run's searches will be, and their share of the
//! estimate), `phase.rs` (the search run through the run procedure, one window a step) and `report.rs` (its part of
//! the report). The schema's records of a search are in `schema/capacity.rs`, with the rest of `benchmark.json`.

use anyhow::{Result, bail};

mod bracket;
pub mod phase;
pub mod plan;
pub mod report;
pub mod verdict;

use bracket::whole;
pub use bracket::{confirming, expected_steps, max_steps, search, verdicts};

// The records of the search are `benchmark.json` types, defined with the others in `schema/capacity.rs`; how each is
// computed and read is here.
use crate::schema::Latency;
pub use crate::schema::{
    Bound, Bracket, CapacityRecord, Objective, Outcome, Percentile, Search, SearchSettings, Step, StepResult, Verdict,
};
use crate::text::thousands;
use crate::usage;

/// The first step's rate, as a fraction of the upper bound.
pub const START_FRACTION: f64 = 0.9;
/// The lowest rate tried, as a fraction of the first step's (four halvings).
pub const LOWEST_FRACTION: f64 = 1.0 / 16.0;
/// A step holds its rate when it achieves at least this fraction of it.
pub const ACHIEVED_SHARE: f64 = 0.95;
/// A capacity at or above this share of the loader's open-loop limit is printed as a bound.
pub const LOADER_BOUND_SHARE: f64 = 0.8;

/// Why a capacity is a lower bound rather than the subject's figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundBy {
    /// It is at least [`LOADER_BOUND_SHARE`] of the loader's measured open-loop limit.
    LoaderLimit,
    /// The lowest failing step above it achieved under [`ACHIEVED_SHARE`] of its rate, and asked no more than the
    /// upper bound: the subject served that much in its closed-loop run (or probe) of the same run, so a rate not
    /// achieved there was held back by the loader, and the step may have failed for the loader's sake, not the
    /// subject's. This holds when the loader's limit was not measured (`--quick`), where `LoaderLimit` cannot.
    /// A failing step above the upper bound proves nothing of the kind: a server past its own maximum, its
    /// connections all busy, cannot achieve the rate asked either, so such a step is the subject's boundary.
    RateNotHeldAbove,
    /// No step above it failed, and it is at or above the upper bound: it is the highest rate the search tried, not a
    /// boundary it found. The search tries above the upper bound until a step fails, so this is a search that reached
    /// its cap still stepping up (or a record from before it tried above the upper bound, where the capacity was
    /// that bound itself). Below the upper bound no search with its cap from [`max_steps`] stops without a failing
    /// step, since it reaches the upper bound before its cap.
    Upper,
}

impl Percentile {
    pub fn label(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P90 => "p90",
            Percentile::P99 => "p99",
            Percentile::P999 => "p99.9",
        }
    }
    /// This percentile of a run's latencies, in milliseconds (`None` when the tool did not report it).
    pub fn of(self, l: &Latency) -> Option<f64> {
        match self {
            Percentile::P50 => Some(l.p50_ms),
            Percentile::P90 => Some(l.p90_ms),
            Percentile::P99 => Some(l.p99_ms),
            Percentile::P999 => l.p99_9_ms,
        }
    }
}

impl Default for Objective {
    fn default() -> Objective {
        Objective(vec![Bound { percentile: Percentile::P99, max_ms: 10.0 }])
    }
}

impl std::fmt::Display for Objective {
    /// `p99 ≤ 10 ms` (bounds joined by ` and `).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words: Vec<String> = self.0.iter().map(|b| format!("{} ≤ {} ms", b.percentile.label(), b.max_ms)).collect();
        f.write_str(&words.join(" and "))
    }
}

impl Objective {
    /// Reads `--slo` values: each `PERCENTILE=DURATION` (`p99=10ms`, `p99.9=25ms`, `p50=500us`, `p90=0.5s`), several
    /// per value when comma-separated. No `--slo` at all is the default objective. Bad input is a usage error, and so
    /// is a percentile given twice (which bound was meant?) or a `--slo` with no bound in it (`--slo ""`).
    pub fn parse(values: &[String]) -> Result<Objective> {
        let mut bounds: Vec<Bound> = Vec::new();
        for item in values.iter().flat_map(|v| v.split(',')).map(str::trim) {
            let bad = |why: &str| usage(format!("--slo {item:?}: {why} (e.g. --slo p99=10ms, or p50=2ms,p99.9=25ms)"));
            let (name, duration) = item.split_once('=').ok_or_else(|| bad("expected PERCENTILE=DURATION"))?;
            let percentile = match name.trim() {
                "p50" => Percentile::P50,
                "p90" => Percentile::P90,
                "p99" => Percentile::P99,
                "p99.9" => Percentile::P999,
                _ => return Err(bad("the percentile must be p50, p90, p99 or p99.9")),
            };
            let max_ms = parse_ms(duration.trim())
                .ok_or_else(|| bad("the duration must be a number above 0 with us, ms or s"))?;
            if bounds.iter().any(|b| b.percentile == percentile) {
                return Err(bad(&format!("{} is given twice", percentile.label())));
            }
            bounds.push(Bound { percentile, max_ms });
        }
        if bounds.is_empty() {
            return Ok(Objective::default());
        }
        Ok(Objective(bounds))
    }

    /// Why a step's result misses the objective, or `None` when it meets it. A request that failed, was aborted at
    /// the deadline or got an unexpected status misses it (no error is served work), and so does a rate the loader
    /// did not hold.
    pub fn misses(&self, r: &StepResult, asked: f64) -> Option<String> {
        let mut why = Vec::new();
        for b in &self.0 {
            match b.percentile.of(&r.latency) {
                Some(v) if v <= b.max_ms => {}
                Some(v) => why.push(format!("{} {v:.1} ms > {} ms", b.percentile.label(), b.max_ms)),
                None => why.push(format!("{} not reported", b.percentile.label())),
            }
        }
        if r.errors + r.unexpected + r.aborted > 0 {
            why.push(format!("{} errors, {} unexpected statuses, {} aborted", r.errors, r.unexpected, r.aborted));
        }
        if !holds_rate(r, asked) {
            why.push(format!("achieved {}/s of {}/s", thousands(r.achieved_rps), thousands(asked)));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// Whether a step achieved its rate (at least [`ACHIEVED_SHARE`] of it).
fn holds_rate(r: &StepResult, asked: f64) -> bool {
    r.achieved_rps >= ACHIEVED_SHARE * asked
}

/// `10ms`, `500us`, `0.5s` → milliseconds.
fn parse_ms(text: &str) -> Option<f64> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "us" | "µs" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        _ => return None,
    };
    (n.is_finite() && n > 0.0).then_some(n * scale)
}

impl Step {
    pub fn passed(&self) -> bool {
        self.missed.is_none()
    }

    /// Whether the window counts: not one the machine disturbed, which was run again.
    pub fn counts(&self) -> bool {
        !self.result.disturbance.is_some_and(|d| d.rerun)
    }
}

impl Search {
    /// Why this search's capacity is a bound (`None`: it is the subject's figure, or there is none), given the
    /// loader's measured open-loop limit. Decided on the steps' rates, never on their verdicts' words.
    pub fn bound_by(&self, loader_limit: Option<f64>) -> Option<BoundBy> {
        let c = self.capacity()?;
        if loader_limit.is_some_and(|l| c >= LOADER_BOUND_SHARE * l) {
            return Some(BoundBy::LoaderLimit);
        }
        let top = whole(self.upper_rps);
        let failed_above = self.steps.iter().filter(|s| s.counts() && !s.passed() && s.rate_asked > c);
        let Some(lowest) = failed_above.clone().map(|s| s.rate_asked).reduce(f64::min) else {
            return (c >= top).then_some(BoundBy::Upper);
        };
        // Only a step at a rate the subject served in closed loop says the loader held it back.
        let mut at_lowest = failed_above.filter(|s| s.rate_asked == lowest && s.rate_asked <= top);
        at_lowest.any(|s| !holds_rate(&s.result, s.rate_asked)).then_some(BoundBy::RateNotHeldAbove)
    }

    /// Whether the search stopped at its cap of steps before its bracket closed to the resolution (before brackets:
    /// the search's last passing rate, never repeated).
    pub fn unconfirmed(&self) -> bool {
        matches!(self.outcome, Outcome::Found { confirmed: false, .. })
    }

    pub fn capacity(&self) -> Option<f64> {
        match self.outcome {
            Outcome::Found { rps, .. } => Some(rps),
            _ => None,
        }
    }
    /// `12,345/s (bracket 12,345–12,900/s)`, `≥ 41,000/s` (a bound), or why there is none.
    pub fn figure(&self) -> String {
        match &self.outcome {
            Outcome::Found { rps, confirmed, .. } => {
                let at_least = if self.bound { "≥ " } else { "" };
                let bracket = self.bracket().map_or(String::new(), |b| format!(" ({})", bracket_text(&b)));
                let cap = if *confirmed { "" } else { " (unconfirmed: the search reached its cap of steps)" };
                format!("{at_least}{}/s{bracket}{cap}", thousands(*rps))
            }
            Outcome::NoRate { lowest_rps } => {
                format!("no rate meets the objective (lowest tried {}/s)", thousands(*lowest_rps))
            }
            Outcome::Failed { why } => format!("not measured ({why})"),
        }
    }
}

/// `bracket 20,838–21,769/s`, or `bracket from 20,838/s, no rate above it decided missed`.
pub fn bracket_text(b: &Bracket) -> String {
    match b.high {
        Some(high) => format!("bracket {}–{}/s", thousands(b.low), thousands(high)),
        None => format!("bracket from {}/s, no rate above it decided missed", thousands(b.low)),
    }
}

impl CapacityRecord {
    pub fn loader_limit_rps(&self) -> Option<f64> {
        self.loader_limit.as_ref().and_then(Search::capacity)
    }
    /// The lowest rate at which the loader's own search (against the ceiling, the fixed response that costs the
    /// server nothing) missed the objective: at and above it this machine, loader and all, cannot show the objective
    /// met, so a subject's rate above it that met the objective is no capacity the machine resolved. `None` when
    /// the loader's limit was not searched (`--quick`) or missed at no rate.
    pub fn unresolved_from(&self) -> Option<f64> {
        self.loader_limit.as_ref()?.lowest_missed()
    }

    /// When `s`'s capacity is above [`CapacityRecord::unresolved_from`], that rate: its figure is then not a capacity.
    pub fn unresolved(&self, s: &Search) -> Option<f64> {
        let from = self.unresolved_from()?;
        (s.capacity()? > from).then_some(from)
    }

    /// Marks as a bound every capacity that has a [`BoundBy`] reason.
    pub fn mark_bounds(&mut self) {
        let limit = self.loader_limit_rps();
        for s in &mut self.searches {
            s.bound = s.bound_by(limit).is_some();
        }
    }
}

/// The sizing line for one scenario: what one core serves at the objective, and what `target` requests/s would take
/// if throughput scaled linearly with cores. `subjects`: (name, search) of the single-worker subjects.
pub fn sizing_line(objective: &Objective, scenario: &str, subjects: &[(&str, &Search)], target: f64) -> Option<String> {
    let found: Vec<(&str, &Search, f64)> =
        subjects.iter().filter_map(|(name, s)| s.capacity().map(|c| (*name, *s, c))).collect();
    if found.is_empty() {
        return None;
    }
    let serves: Vec<String> = found.iter().map(|(name, s, _)| format!("{} with {name}", s.figure())).collect();
    let cores: Vec<String> = found
        .iter()
        .map(|(name, s, c)| {
            let n = (target / c).ceil();
            let cores = if n == 1.0 { "core" } else { "cores" };
            let rough = if s.unconfirmed() { " (unconfirmed)" } else { "" };
            if s.bound {
                format!("at most {n} {cores} with {name}{rough}")
            } else {
                format!("{n} {cores} with {name}{rough}")
            }
        })
        .collect();
    // A bound is the loader's figure, or the search's own (it tried no higher rate), never the server's measured
    // limit: its core count is at most what the line says.
    let bound_note = if found.iter().any(|(_, s, _)| s.bound) {
        " (a `≥` capacity is a lower bound, set by the loader or by the search, not the server's limit, so its core \
         count is an upper bound)"
    } else {
        ""
    };
    Some(format!(
        "{scenario}: at {objective} one core of this machine serves {}; {}/s would take {}, if throughput \
         scaled linearly with cores, which `rust-multi` / `node-cluster` on a machine with more cores can check{bound_note}.",
        serves.join(", "),
        thousands(target),
        cores.join(", ")
    ))
}

/// Checks the search's flags: a resolution that can end a bisection, steps of at least a second.
pub fn check_resolution(percent: f64) -> Result<f64> {
    if !(percent.is_finite() && (0.5..=50.0).contains(&percent)) {
        bail!(usage(format!("--capacity-resolution: expected 0.5 to 50 (percent), got {percent}")));
    }
    Ok(percent)
}

#[cfg(test)]
mod tests;
