//! `fairpair report RESULTS --export FORMAT FILE`: a results file's headline figures for other tools — a CSV for a
//! spreadsheet or pandas, the Bencher Metric Format for Bencher (`docs/benchmark-schema.md` describes both).
//!
//! Every export, and `report --compare`, reads one list: [`figures`], one [`Figure`] per subject, cell and headline
//! figure. So a CSV row, a BMF value and a comparison row are the same figures by construction, and a figure added
//! here (the capacity at a latency objective, say) reaches all three at once. Each format is one file with one
//! function from that list to text, as hyperfine's exporters are.

mod bmf;
mod csv;
mod decision;

use std::path::Path;

use crate::analyse::stats::Stat;
use crate::capacity::{BoundBy, Bracket};
use crate::schema::{Benchmark, FlagKind, Summary, VerificationStatus};

/// The formats of `--export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One row per figure, with a header row (RFC 4180).
    Csv,
    /// Bencher Metric Format: `{benchmark: {measure: {value, lower_value, upper_value}}}`.
    Bmf,
}

/// The export of `b`'s figures in `format`.
pub fn export(b: &Benchmark, format: Format) -> String {
    let figures = figures(b);
    match format {
        Format::Csv => csv::write(&figures),
        Format::Bmf => bmf::write(&figures),
    }
}

/// [`export`], with the decision figures for `inputs` after the others when any decision flag was given
/// (`export/decision.rs`).
pub fn export_with(b: &Benchmark, format: Format, inputs: &crate::decision::Inputs) -> String {
    if !inputs.any_given() {
        return export(b, format);
    }
    let figures = figures(b);
    match format {
        Format::Csv => csv::write_with(&figures, |line| decision::csv_rows(b, inputs, line)),
        Format::Bmf => bmf::write_with(&figures, |map| decision::bmf_benchmarks(b, inputs, map)),
    }
}

/// `report FILE --export FORMAT TO`: the figures of the results file `file` in `format` (`csv` or `bmf`, in any
/// case), written to the file `to`, or to stdout when `to` is `-` so that a pipe gets them without a file. An unknown
/// format or a `to` that cannot be written is a mistake in the command line, so a usage error (exit 2, one line).
pub fn export_file(file: &Path, format: &str, to: &str, inputs: &crate::decision::Inputs) -> anyhow::Result<()> {
    let format = <Format as clap::ValueEnum>::from_str(format, true)
        .map_err(|_| crate::usage(format!("--export wants csv or bmf, got {format:?}")))?;
    let text = export_with(&crate::report::load(file)?, format, inputs);
    if to == "-" {
        print!("{text}");
    } else {
        std::fs::write(to, text).map_err(|e| crate::usage(format!("cannot write {to}: {e}")))?;
        eprintln!("fairpair: wrote {to}");
    }
    Ok(())
}

/// The headline figures: what a run is judged on, each once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Throughput,
    P50,
    P99,
    CpuPerRequest,
    IdleRss,
    AfterLoadRss,
    Startup,
    /// The capacity at the latency objective (`capacity/`). A file holds one search per subject and scenario, so
    /// the figure is one sample: its median, min and max are the capacity, its repeats 1. (The search's own repeat
    /// of its last passing step confirms that step; it is no second search, and the spread between searches is far
    /// wider than one resolution step.)
    Capacity,
}

impl Metric {
    /// The name in the CSV and the BMF measure's slug (Bencher's `latency` is in nanoseconds, and a benchmark holds
    /// one value per measure, so each percentile is a measure of its own).
    pub fn slug(self) -> &'static str {
        match self {
            Metric::Throughput => "throughput",
            Metric::P50 => "latency-p50",
            Metric::P99 => "latency-p99",
            Metric::CpuPerRequest => "server-cpu-per-request",
            Metric::IdleRss => "rss-idle",
            Metric::AfterLoadRss => "rss-after-load",
            Metric::Startup => "startup",
            Metric::Capacity => "capacity",
        }
    }

    /// The unit of the report, the CSV and the comparison.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Throughput | Metric::Capacity => "requests/s",
            Metric::P50 | Metric::P99 | Metric::Startup => "ms",
            Metric::CpuPerRequest => "µs",
            Metric::IdleRss | Metric::AfterLoadRss => "MiB",
        }
    }

    /// The comparison's label: the figure and its unit.
    pub fn label(self) -> &'static str {
        match self {
            Metric::Throughput => "throughput (req/s)",
            Metric::P50 => "p50 (ms)",
            Metric::P99 => "p99 (ms)",
            Metric::CpuPerRequest => "server CPU per request (µs)",
            Metric::IdleRss => "idle RSS (MiB)",
            Metric::AfterLoadRss => "after-load RSS (MiB)",
            Metric::Startup => "start-up to first 200 (ms)",
            Metric::Capacity => "capacity at the latency objective (req/s)",
        }
    }

    /// Only throughput and capacity are better higher; latency, CPU, memory and start-up are better lower.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Throughput | Metric::Capacity)
    }

    /// Whether a loader at its limit distorts the figure: throughput (held back) and latency (the loader's queueing
    /// is in it). CPU per request and memory are the server's own, whoever loads it.
    fn loader_distorts(self) -> bool {
        matches!(self, Metric::Throughput | Metric::P50 | Metric::P99 | Metric::Capacity)
    }
}

/// Why a figure is a bound rather than a measured value: the loader (or, for a capacity, the search's own cap of
/// steps), not the server, may have set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The throughput was at least the measured share of the loader's capacity (80 % by default); a capacity, at
    /// least 80 % of the loader's open-loop limit.
    LoaderLimited,
    /// The load tool used 90 % or more of its CPUs in a run.
    LoaderBound,
    /// A capacity whose failing step just above it, at a rate no higher than the subject's closed-loop throughput,
    /// achieved under 95 % of the rate asked: the loader's limit, measured or not ([`BoundBy::RateNotHeldAbove`]).
    RateNotHeld,
    /// A capacity with no failing step above it: the search reached its cap still stepping up past the subject's
    /// closed-loop throughput (in files written before the search tried above it, that throughput itself;
    /// [`BoundBy::Upper`]).
    SearchUpper,
}

impl From<BoundBy> for Limit {
    fn from(b: BoundBy) -> Limit {
        match b {
            BoundBy::LoaderLimit => Limit::LoaderLimited,
            BoundBy::RateNotHeldAbove => Limit::RateNotHeld,
            BoundBy::Upper => Limit::SearchUpper,
        }
    }
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::LoaderLimited => "loader-limited",
            Limit::LoaderBound => "loader-bound",
            Limit::RateNotHeld => "rate-not-held",
            Limit::SearchUpper => "search-upper-bound",
        }
    }

    fn of(s: &Summary) -> Option<Limit> {
        if s.loader_limited {
            Some(Limit::LoaderLimited)
        } else if s.loader_bound_runs > 0 {
            Some(Limit::LoaderBound)
        } else {
            None
        }
    }
}

/// One figure of one subject, over its repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub subject: String,
    /// Scenario and connections; `None` for the memory phase's figures, one per subject.
    pub cell: Option<(String, u32)>,
    pub metric: Metric,
    pub stat: Stat,
    /// Set when the figure is a bound: throughput at least, latency at most, what was measured.
    pub limit: Option<Limit>,
    /// The flags of the subject's cell (or of the subject, for memory figures), as `benchmark.json` names them.
    pub flags: Vec<FlagKind>,
    /// `full` or `api` (verified at that level), `unverified` (measured although it failed), `not-applicable`.
    pub verified: &'static str,
    /// A capacity's bracket: the highest rate decided met (the figure) and the lowest above it decided missed, when
    /// one was (`None` for every other figure).
    pub bracket: Option<Bracket>,
}

impl Figure {
    /// Why the figure is a bound (`loader-limited`, `loader-bound`, `rate-not-held`, `search-upper-bound`), or
    /// empty for a value.
    pub fn bound_reason(&self) -> &'static str {
        self.limit.map_or("", Limit::as_str)
    }

    /// `value`, or the side a bound is on: a loader at its limit holds throughput down and adds to latency.
    pub fn reading(&self) -> &'static str {
        match (self.limit, self.metric.higher_is_better()) {
            (None, _) => "value",
            (Some(_), true) => "lower bound",
            (Some(_), false) => "upper bound",
        }
    }

    /// Whether `other` is the same figure (subject, cell, metric), in another file.
    pub fn same(&self, other: &Figure) -> bool {
        self.subject == other.subject && self.cell == other.cell && self.metric == other.metric
    }

    /// `rust get at 50 connections`, or `rust memory`.
    pub fn place(&self) -> String {
        match &self.cell {
            Some((scenario, conns)) => format!("{} {scenario} at {conns} connections", self.subject),
            None => format!("{} memory", self.subject),
        }
    }
}

/// Every headline figure of `b`: per closed-loop summary throughput, p50, p99 and server CPU per request (when
/// measured), then per memory summary idle and after-load RSS and the start-up time.
pub fn figures(b: &Benchmark) -> Vec<Figure> {
    let verified = |subject: &str| {
        let Some(s) = b.subjects.iter().find(|s| s.name == subject) else { return "unknown" };
        match s.verification.status {
            VerificationStatus::Passed => s.verification.level.as_str(),
            VerificationStatus::Failed => "unverified",
            VerificationStatus::NotApplicable => "not-applicable",
            VerificationStatus::DidNotStart => "did-not-start",
        }
    };
    let flags = |subject: &str, cell: Option<(&str, u32)>| -> Vec<FlagKind> {
        // A subject's own flags (unverified) and its cell's; `rate-not-reached` is the open-loop phase's, not these.
        let mut kinds = Vec::new();
        for f in b.flags.iter().filter(|f| f.subject == subject && f.kind != FlagKind::RateNotReached) {
            let here = f.scenario.is_none()
                || cell.is_some_and(|(s, c)| f.scenario.as_deref() == Some(s) && f.connections == Some(c));
            if here && !kinds.contains(&f.kind) {
                kinds.push(f.kind);
            }
        }
        kinds
    };
    let mut out = Vec::new();
    for s in &b.summaries {
        let cell = Some((s.scenario.clone(), s.connections));
        let cell_flags = flags(&s.subject, Some((&s.scenario, s.connections)));
        let limit = Limit::of(s);
        let mut push = |metric: Metric, stat: &Stat| {
            out.push(Figure {
                subject: s.subject.clone(),
                cell: cell.clone(),
                metric,
                stat: stat.clone(),
                limit: limit.filter(|_| metric.loader_distorts()),
                flags: cell_flags.clone(),
                verified: verified(&s.subject),
                bracket: None,
            })
        };
        push(Metric::Throughput, &s.requests_per_sec);
        push(Metric::P50, &s.p50_ms);
        push(Metric::P99, &s.p99_ms);
        if let Some(cpu) = &s.server_cpu_us_per_request {
            push(Metric::CpuPerRequest, cpu);
        }
    }
    // A cold capacity (steps with no warm-up, `--quick`) is no headline figure: a JIT is measured before it warms.
    // It stays in the report's Capacity section, with its steps.
    for c in b.capacity.iter().filter(|c| !c.settings.cold()) {
        for s in &c.searches {
            // Above the rate the loader's own search missed the objective at, a rate met is no capacity.
            let Some(rps) = s.capacity().filter(|_| c.unresolved(s).is_none()) else { continue };
            // One search, one sample: no range is claimed that the search did not measure (nothing above a bound
            // was tried, and the failing step above a capacity may be far above it), and with one sample on each
            // side a comparison gives no verdict, as for a single run.
            let stat = Stat { n: 1, median: rps, min: rps, max: rps, cv: None };
            out.push(Figure {
                subject: s.subject.clone(),
                cell: Some((s.scenario.clone(), c.settings.connections)),
                metric: Metric::Capacity,
                stat,
                // The reason is decided again from the steps, as when the file was written. A file whose bound
                // rule has since changed (one the rules of today would not call a bound) keeps the old reading.
                limit: s.bound.then(|| s.bound_by(c.loader_limit_rps()).map_or(Limit::LoaderLimited, Limit::from)),
                flags: flags(&s.subject, None),
                verified: verified(&s.subject),
                bracket: s.bracket(),
            });
        }
    }
    for m in &b.memory_summaries {
        for (metric, stat) in [
            (Metric::IdleRss, m.idle_rss_kib.kib_to_mib()),
            (Metric::AfterLoadRss, m.after_rss_kib.kib_to_mib()),
            (Metric::Startup, m.startup_ms.clone()),
        ] {
            out.push(Figure {
                subject: m.subject.clone(),
                cell: None,
                metric,
                stat,
                limit: None,
                flags: flags(&m.subject, None),
                verified: verified(&m.subject),
                bracket: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::{CapacityRecord, Objective, Outcome, Search, SearchSettings};

    /// The gate's baseline fixture (rust and mine at get/50) with a capacity search of each, mine's a loader bound.
    fn with_capacities() -> Benchmark {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gate/baseline.json");
        let mut b = crate::report::load(std::path::Path::new(path)).unwrap();
        let search = |subject: &str, rps: f64, bound: bool| Search {
            subject: subject.into(),
            scenario: "get".into(),
            upper_rps: 2.0 * rps,
            upper_from: "closed-loop".into(),
            steps: Vec::new(),
            outcome: Outcome::Found { rps, spread_percent: 0.0, confirmed: true },
            bound,
            bracket: None,
        };
        let (objective, resolution_percent) = (Objective::default(), 5.0);
        b.capacity = Some(CapacityRecord {
            settings: SearchSettings {
                objective,
                resolution_percent,
                step_s: 4,
                warmup_s: 1,
                connections: 50,
                max_steps: 8,
                max_windows: 1,
                margin: None,
                confirm_ends: false,
            },
            tool: crate::plan::names::Tool::Oha,
            loader_limit: None,
            searches: vec![search("rust", 30_000.0, false), search("mine", 8_000.0, true)],
        });
        // rust's search recorded its bracket; mine's is read from its steps (none), as in a file written before.
        b.capacity.as_mut().unwrap().searches[0].bracket = Some(Bracket { low: 30_000.0, high: Some(31_500.0) });
        b
    }

    #[test]
    fn a_capacity_is_a_headline_figure_of_the_csv_and_the_bmf_one_search_one_sample() {
        let b = with_capacities();
        let csv = export(&b, Format::Csv);
        // Median, min and max are the capacity, one repeat: no range above it that the search never measured. The
        // bracket comes last: the capacity, and the lowest rate decided missed above it (empty when none was).
        let rust = "\r\nrust,get,50,capacity,requests/s,30000,30000,30000,1,value,,full,,30000,31500\r\n";
        assert!(csv.contains(rust), "{csv}");
        let mine = "\r\nmine,get,50,capacity,requests/s,8000,8000,8000,1,lower bound,,api,loader-limited,8000,\r\n";
        assert!(csv.contains(mine), "{csv}");
        let bmf: serde_json::Value = serde_json::from_str(&export(&b, Format::Bmf)).unwrap();
        let c = &bmf["rust/get/50"]["capacity"];
        assert_eq!(
            (c["value"].as_f64(), c["lower_value"].as_f64(), c["upper_value"].as_f64()),
            (Some(30_000.0), Some(30_000.0), Some(31_500.0))
        );
        let c = &bmf["mine/get/50"]["capacity"];
        assert_eq!(c["upper_value"].as_f64(), Some(8_000.0), "no rate above it decided missed: no range");
        let values: usize = bmf.as_object().unwrap().values().map(|m| m.as_object().unwrap().len()).sum();
        assert_eq!(values, csv.lines().count() - 1, "one BMF value per CSV row");
    }

    #[test]
    fn the_csv_names_each_bounds_reason_in_its_column() {
        let mut b = with_capacities();
        // rust's cell loader-limited, mine's loader-bound in a run; mine's capacity the search's upper bound.
        b.summaries[0].loader_limited = true;
        b.summaries[1].loader_bound_runs = 1;
        b.capacity.as_mut().unwrap().searches[1].upper_rps = 8_000.0;
        let csv = export(&b, Format::Csv);
        let header = csv.lines().next().unwrap();
        assert!(header.starts_with("subject,scenario,connections,figure,unit,median,min,max,repeats,bound_or_value,"));
        assert!(header.ends_with(",flags,verified,bound_reason,bracket_low,bracket_high"), "{header}");
        let reason = |subject: &str, figure: &str| {
            let row = csv.lines().find(|l| l.starts_with(&format!("{subject},get,50,{figure},"))).unwrap();
            (row.split(',').nth(9).unwrap().to_string(), row.split(',').nth(12).unwrap().to_string())
        };
        assert_eq!(reason("rust", "throughput"), ("lower bound".into(), "loader-limited".into()));
        assert_eq!(reason("rust", "latency-p99"), ("upper bound".into(), "loader-limited".into()));
        assert_eq!(reason("rust", "server-cpu-per-request"), ("value".into(), String::new()));
        assert_eq!(reason("mine", "throughput"), ("lower bound".into(), "loader-bound".into()));
        assert_eq!(reason("mine", "capacity"), ("lower bound".into(), "search-upper-bound".into()));
        assert_eq!(reason("rust", "capacity"), ("value".into(), String::new()));
    }

    #[test]
    fn a_capacity_bound_names_its_reason() {
        let mut b = with_capacities();
        let capacity = |b: &Benchmark, subject: &str| {
            figures(b).into_iter().find(|f| f.subject == subject && f.metric == Metric::Capacity).unwrap()
        };
        // The search met the objective at its upper bound, the closed-loop throughput: no rate above was tried.
        let mine = &mut b.capacity.as_mut().unwrap().searches[1];
        mine.upper_rps = 8_000.0;
        assert_eq!(capacity(&b, "mine").limit, Some(Limit::SearchUpper));
        assert_eq!(capacity(&b, "mine").limit.map(Limit::as_str), Some("search-upper-bound"));
        // A bound recorded by a rule of the past that today's rules do not make: read as before, loader-limited.
        b.capacity.as_mut().unwrap().searches[1].upper_rps = 16_000.0;
        assert_eq!(capacity(&b, "mine").limit, Some(Limit::LoaderLimited));
        assert_eq!(capacity(&b, "rust").limit, None);
    }

    #[test]
    fn a_cold_capacity_is_no_headline_figure() {
        let mut b = with_capacities();
        b.capacity.as_mut().unwrap().settings.warmup_s = 0;
        assert!(figures(&b).iter().all(|f| f.metric != Metric::Capacity));
        assert!(!export(&b, Format::Csv).contains(",capacity,"));
    }
}
