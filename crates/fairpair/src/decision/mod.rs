//! The decision figures: what the measured figures mean for a team's own traffic, in cores, memory, CPU-hours and
//! money, and how much of a user's wait the server's own time is once the service's I/O wait is added.
//!
//! Everything here is arithmetic over a [`Benchmark`] and the team's [`Inputs`] (`--traffic`, `--replicas`,
//! `--io-wait`, `--core-price`, `--memory-price`); nothing is measured. A capacity keeps what the search established
//! of it: a bracket `[low, high]` of rates gives a range of cores, a lower bound (`≥`, loader-limited or the search's
//! own) gives an upper bound on cores, never a point. `advice.rs` turns the figures into the one sentence of the
//! decision, `checklist.rs` answers the article's checklist from the run.

pub mod advice;
pub mod checklist;
mod figures;
#[cfg(test)]
mod tests;

pub use figures::{LatencySource, MemoryFigure, Row, Sizing, rows, sizing};

use anyhow::{Result, bail};

use crate::usage;

/// The traffic sized for when `--traffic` is not given: the capacity section's sizing line's.
pub const DEFAULT_TRAFFIC_RPS: f64 = 100_000.0;
/// The hours of a month, as cloud price lists count them (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The team's own numbers. `None`: not given, and the figures assume the default each accessor names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    /// The peak requests per second to serve.
    pub traffic_rps: Option<f64>,
    /// How many copies of the service run (each holds its own memory).
    pub replicas: Option<u32>,
    /// Time per request spent waiting on a database or other services, which no rewrite changes.
    pub io_wait_ms: Option<f64>,
    /// Price of a core for an hour, in the user's currency.
    pub core_price: Option<f64>,
    /// Price of a GiB of memory for an hour, in the same currency.
    pub memory_price: Option<f64>,
}

impl Inputs {
    /// Checks the flags' values: a traffic and a replica count above 0, prices of 0 or more. (Durations are checked
    /// where they are parsed, [`parse_duration_ms`].)
    pub fn checked(self) -> Result<Inputs> {
        if let Some(t) = self.traffic_rps
            && !(t.is_finite() && t > 0.0)
        {
            bail!(usage(format!("--traffic {t}: expected a rate above 0 (requests per second)")));
        }
        if self.replicas == Some(0) {
            bail!(usage("--replicas 0: expected a whole number of copies, 1 or more"));
        }
        for (flag, price) in [("--core-price", self.core_price), ("--memory-price", self.memory_price)] {
            if let Some(p) = price
                && !(p.is_finite() && p >= 0.0)
            {
                bail!(usage(format!("{flag} {p}: expected a price of 0 or more")));
            }
        }
        Ok(self)
    }

    pub fn traffic(&self) -> f64 {
        self.traffic_rps.unwrap_or(DEFAULT_TRAFFIC_RPS)
    }

    pub fn replicas(&self) -> u32 {
        self.replicas.unwrap_or(1)
    }

    pub fn io_wait_ms(&self) -> f64 {
        self.io_wait_ms.unwrap_or(0.0)
    }

    /// Whether any flag was given: the exports mark their decision figures with the flags they depend on.
    pub fn any_given(&self) -> bool {
        *self != Inputs::default()
    }

    /// The inputs as flags, the given ones as given and the assumed ones marked so: `--traffic 20000 --replicas 1
    /// (assumed)`. What the section and the exports say the figures depend on.
    pub fn words(&self) -> String {
        let assumed = |given: bool| if given { "" } else { " (assumed)" };
        let mut w = vec![
            format!("--traffic {}{}", self.traffic(), assumed(self.traffic_rps.is_some())),
            format!("--replicas {}{}", self.replicas(), assumed(self.replicas.is_some())),
            format!("--io-wait {}ms{}", self.io_wait_ms(), assumed(self.io_wait_ms.is_some())),
        ];
        w.extend(self.core_price.map(|p| format!("--core-price {p}")));
        w.extend(self.memory_price.map(|p| format!("--memory-price {p}")));
        w.join(" ")
    }
}

/// `25ms`, `500us`, `1s`, `0` → milliseconds, as `--slo` reads a duration; 0 is allowed (no I/O wait).
pub fn parse_duration_ms(text: &str) -> Result<f64, String> {
    let bad = || format!("{text:?} is not a duration (e.g. 25ms, 500us, 1s)");
    if text.trim() == "0" {
        return Ok(0.0);
    }
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().map_err(|_| bad())?;
    let scale = match unit.trim() {
        "us" | "µs" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        _ => return Err(bad()),
    };
    if text.starts_with('-') || !n.is_finite() {
        return Err(bad());
    }
    Ok(n * scale)
}

/// A figure as the capacity search bounds it: a range, or an upper bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Span {
    /// Between the two, both included.
    Between(f64, f64),
    /// At most this (from a capacity that is a lower bound).
    AtMost(f64),
}

impl Span {
    /// The same span through a rising function (a cost of cores).
    pub fn map(self, f: impl Fn(f64) -> f64) -> Span {
        match self {
            Span::Between(low, high) => Span::Between(f(low), f(high)),
            Span::AtMost(high) => Span::AtMost(f(high)),
        }
    }

    /// The highest value the span allows.
    pub fn high(self) -> f64 {
        match self {
            Span::Between(_, high) | Span::AtMost(high) => high,
        }
    }

    /// The lowest value the span allows, `None` for an upper bound (it could be anything below).
    pub fn low(self) -> Option<f64> {
        match self {
            Span::Between(low, _) => Some(low),
            Span::AtMost(_) => None,
        }
    }

    /// `15–16 cores`, `16 cores (either end of the bracket)`, `at most 4 cores`, with `fmt` writing a number.
    pub fn text(self, fmt: impl Fn(f64) -> String, unit: &str) -> String {
        // "at most 1 core", not "1 cores": the plural's `s` goes when the highest figure reads as one.
        let one = fmt(self.high()) == "1";
        let unit = match (one, unit.strip_suffix('s')) {
            (true, Some(single)) => single,
            _ => unit,
        };
        let text = match self {
            Span::Between(low, high) if fmt(low) == fmt(high) => {
                format!("{} {unit} (either end of the bracket)", fmt(low))
            }
            Span::Between(low, high) => format!("{}–{} {unit}", fmt(low), fmt(high)),
            Span::AtMost(high) => format!("at most {} {unit}", fmt(high)),
        };
        text.trim_end().to_string()
    }
}

/// What the search established of a capacity per core, in requests per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PerCore {
    /// From the highest rate decided met to the lowest above it decided missed.
    Bracket { low: f64, high: f64 },
    /// At least this: a bound (`≥`), or a bracket with no rate above it decided missed.
    AtLeast(f64),
}

/// The whole cores `traffic` requests/s take at a capacity of `per_core` each, if throughput scaled linearly with
/// cores: a bracket of capacity gives a range (the high capacity the fewest cores), a lower bound of capacity an
/// upper bound of cores. A part of a core counts as one, since a core is bought whole.
pub fn cores(traffic: f64, per_core: PerCore) -> Span {
    match per_core {
        PerCore::Bracket { low, high } => Span::Between((traffic / high).ceil(), (traffic / low).ceil()),
        PerCore::AtLeast(low) => Span::AtMost((traffic / low).ceil()),
    }
}

/// CPU-hours a month of `us_per_request` microseconds of server CPU at `traffic` requests/s: the cores kept busy
/// on average (`us × traffic / 10⁶`) times the month's hours.
pub fn cpu_hours_per_month(us_per_request: f64, traffic: f64) -> f64 {
    us_per_request * traffic / 1e6 * HOURS_PER_MONTH
}

/// A month's cost of `cores` and `memory_gib`: cores × hours × core price + GiB × hours × memory price; a price
/// not given counts as nothing, and `None` when neither is given.
pub fn monthly_cost(cores: Span, memory_gib: f64, core_price: Option<f64>, memory_price: Option<f64>) -> Option<Span> {
    if core_price.is_none() && memory_price.is_none() {
        return None;
    }
    let memory = memory_gib * HOURS_PER_MONTH * memory_price.unwrap_or(0.0);
    Some(cores.map(|c| c * HOURS_PER_MONTH * core_price.unwrap_or(0.0) + memory))
}

/// The share (percent) of what a user waits that `server_ms` of the server's own time is, with `io_wait_ms` of
/// I/O wait beside it.
pub fn server_share_percent(server_ms: f64, io_wait_ms: f64) -> f64 {
    server_ms / (server_ms + io_wait_ms) * 100.0
}

/// The share (percent) of what a user of the baseline waits that a difference in server time is: with 25 ms of I/O
/// wait, 0.3 ms is about 1 %.
pub fn difference_share_percent(subject_ms: f64, baseline_ms: f64, io_wait_ms: f64) -> f64 {
    (subject_ms - baseline_ms) / (baseline_ms + io_wait_ms) * 100.0
}
