//! The command line of `fairpair run`: every flag, its default and what it means, as clap reads it. `plan/` turns
//! these words into a [`crate::plan::Plan`] (checking them there), filling in what the command line left open from
//! a preset's method (`presets.rs`) when one is given. A new flag goes here, and what it means goes into the plan.
//! `fairpair report`'s flags ([`ReportArgs`]) are here too; `main.rs` has only the commands and `verify`'s few.

use std::path::PathBuf;

use clap::Args;

use crate::plan::names::{Preset, Tool};

#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    /// Built-in subjects, comma-separated: rust, node, go, java, ceiling, rust-multi, node-cluster, go-multi,
    /// java-multi
    /// [default: rust,node,ceiling, plus rust-multi and node-cluster when the server side has ≥ 2 CPUs].
    #[arg(long, value_delimiter = ',')]
    pub subjects: Option<Vec<String>>,
    /// A subject of your own: NAME='COMMAND with {port}' (repeatable). It is verified first.
    #[arg(long = "subject", value_name = "NAME=COMMAND")]
    pub custom_subjects: Vec<String>,
    /// Scenarios, comma-separated: get (GET /users/500), post (POST /users), hello (GET /) [default: get,post].
    #[arg(long, value_delimiter = ',')]
    pub scenarios: Option<Vec<String>>,
    /// A scenario of your own: NAME=METHOD:PATH[:BODY_FILE][:STATUS] (repeatable; a body is sent as
    /// application/json; STATUS, three digits, is the status every response must have [default: any 2xx]).
    #[arg(long = "scenario", value_name = "NAME=METHOD:PATH[:BODY_FILE][:STATUS]")]
    pub custom_scenarios: Vec<String>,
    /// Connection counts, comma-separated [default: 50,300].
    #[arg(long, value_parser = whole::<u32>, value_delimiter = ',')]
    pub connections: Option<Vec<u32>>,
    /// Seconds per measured run [default: 15; --quick: 2].
    #[arg(long, value_parser = whole::<u64>)]
    pub duration: Option<u64>,
    /// Seconds of discarded warm-up load before each measured run [default: 5; --quick: 1].
    #[arg(long, value_parser = whole::<u64>)]
    pub warmup: Option<u64>,
    /// Measured runs per subject and cell [default: 3; --quick: 1].
    #[arg(long, value_parser = whole::<u32>)]
    pub repeats: Option<u32>,
    /// Short runs, one repeat: a smoke test of the whole pipeline in under two minutes.
    #[arg(long)]
    pub quick: bool,
    /// One of the published studies, reproduced with its own method: article, wrk, ab-hello, bombardier, or
    /// fairpair (today's defaults). It only sets defaults: every flag given on the command line wins.
    #[arg(long, value_enum)]
    pub preset: Option<Preset>,
    /// Load tool for the closed-loop runs [default: wrk].
    #[arg(long, value_enum)]
    pub tool: Option<Tool>,
    /// Do not pin server and load generator to CPUs (the article's method).
    #[arg(long)]
    pub no_pin: bool,
    /// CPUs for the servers, e.g. 0 or 0-3 [default: the first half of the allowed CPUs].
    #[arg(long)]
    pub server_cpus: Option<String>,
    /// CPUs for the load generator [default: the other half].
    #[arg(long)]
    pub loader_cpus: Option<String>,
    /// Output directory for benchmark.json, report.md and the charts.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Instead of the capacity search, open-loop runs at these fractions of the slowest subject's GET throughput,
    /// comma-separated (e.g. 0.5,0.8); 0: no open-loop runs at all.
    #[arg(long, value_parser = non_negative, value_delimiter = ',')]
    pub open_loop_rates: Option<Vec<f64>>,
    /// The latency objective of the capacity search, PERCENTILE=DURATION with p50, p90, p99 or p99.9 (repeatable, or
    /// comma-separated; all must hold) [default: p99=10ms]. Given, it runs the search even with --open-loop-rates.
    #[arg(long, value_name = "PERCENTILE=DURATION")]
    pub slo: Vec<String>,
    /// The capacity search stops bisecting when the failing rate is within this many percent above the passing one:
    /// the widest bracket it reports as closed [default: 5; --quick: 25].
    #[arg(long, value_parser = non_negative, value_name = "PERCENT")]
    pub capacity_resolution: Option<f64>,
    /// Seconds of each step of the capacity search [default: 4; --quick: 1].
    #[arg(long, value_parser = whole::<u64>)]
    pub capacity_step: Option<u64>,
    /// Only the capacity search (and verification): no closed-loop or memory runs; each search's upper bound comes
    /// from a short closed-loop probe. For sizing a service of your own (--subject NAME=URL or a command).
    #[arg(long)]
    pub capacity_only: bool,
    /// Seconds per open-loop run [default: 10; --quick: 2].
    #[arg(long, value_parser = whole::<u64>)]
    pub open_loop_duration: Option<u64>,
    /// Memory runs per subject (fresh process each) [default: 3; --quick: 1]; 0 disables the phase.
    #[arg(long, value_parser = whole::<u32>)]
    pub memory_repeats: Option<u32>,
    /// Seconds of the GET load between the idle and the after-load memory samples [default: 10; --quick: 2].
    #[arg(long, value_parser = whole::<u64>)]
    pub memory_duration: Option<u64>,
    /// Seconds of the warm-up probe: one fresh process per subject, loaded by back-to-back one-second runs, to see
    /// how long each takes to reach a steady throughput (never counted in any figure) [default: 30 when a JVM
    /// subject is planned, else 0; --quick: 0]; 0 disables the phase.
    #[arg(long, value_parser = whole::<u64>, value_name = "SECONDS")]
    pub warmup_probe: Option<u64>,
    /// Profile where each subject's CPU goes (off by default): after the memory phase, one run per subject and
    /// scenario under `perf record` (999 Hz, call graphs), apart from every measured figure, at the plan's lowest
    /// connection count; each takes a measured run's warm-up and duration plus 3 to 8 s (perf, folding). Needs
    /// perf (linux-perf); the Rust servers are profiled in a frame-pointer build (scripts/compare --profile
    /// builds it).
    #[arg(long)]
    pub profile: bool,
    /// Connections of the memory phase's load [default: 300, or the preset's study's].
    #[arg(long, value_parser = whole::<u32>)]
    pub memory_connections: Option<u32>,
    /// --max-users of the servers in POST runs, instead of sizing it in preflight from a measured POST rate
    /// (10000 to 16777216; to repeat an earlier run, or to see what a full store does).
    #[arg(long, value_parser = whole::<u64>)]
    pub post_max_users: Option<u64>,
    /// Measure subjects that fail verification (the report marks them unverified). Without it, a --subject that fails
    /// ends the run before anything is measured.
    #[arg(long)]
    pub allow_unverified: bool,
    /// The subject every ratio is taken against [default: the first built-in subject that implements the API].
    #[arg(long)]
    pub baseline: Option<String>,
    /// Contract level to verify the subjects at: `api` or `full` [default: api for custom subjects, full for the
    /// built-in ones, which implement the whole contract].
    #[arg(long)]
    pub level: Option<contract::Level>,
    /// Path of the Rust server binary [default: users-server next to this executable].
    #[arg(long)]
    pub users_server: Option<PathBuf>,
    /// Path of the ceiling binary [default: ceiling next to this executable].
    #[arg(long)]
    pub ceiling: Option<PathBuf>,
    /// Path of the Go server binary [default: ../go/users-server-go from this executable, as scripts/build-go
    /// writes it].
    #[arg(long)]
    pub go_server: Option<PathBuf>,
    /// Path of the Java server's jar [default: ../java/users-server-java.jar from this executable, as
    /// scripts/build-java writes it].
    #[arg(long)]
    pub java_server: Option<PathBuf>,
    /// A built-in server's program, as NAME=PATH (`--server-program go=/opt/users-server-go`); repeatable. The same as
    /// the server's own flag above, where it has one.
    #[arg(long, value_name = "NAME=PATH")]
    pub server_program: Vec<String>,
    /// Path of the Node server script [default: servers-node/server.js of the project this executable was built in
    /// (found from its own path, so that fairpair runs from any directory), else of the current directory].
    #[arg(long)]
    pub node_server: Option<PathBuf>,
    /// The node executable [default: FAIRPAIR_NODE when set, else the project's tools/node/node_modules/.bin/node
    /// when installed (npm ci --prefix tools/node), else node on PATH; on a server host, its checkout's tools/node].
    #[arg(long, value_name = "PATH")]
    pub node: Option<String>,
    /// The java executable that runs the Java server's jar [default: java on PATH, on the server host when there is
    /// one].
    #[arg(long, value_name = "PATH")]
    pub java: Option<String>,
    /// Path a custom subject answers 200 on once it is ready.
    #[arg(long, default_value = "/")]
    pub ready_path: String,
    /// Seconds a subject may take to print its start-up line and answer its first 200 [default: 15, or longer when
    /// a built-in server of the run needs longer to start (its entry in builtins.rs)].
    #[arg(long, value_parser = whole::<u64>)]
    pub start_timeout: Option<u64>,
    /// Most seconds to wait before each run for the machine to be idle [default: 3; --quick: 0.5].
    #[arg(long, value_parser = non_negative)]
    pub idle_wait: Option<f64>,
    /// The machine counts as idle when other processes use less than this percentage of all its CPUs.
    #[arg(long, value_parser = non_negative, default_value_t = 10.0)]
    pub idle_threshold: f64,
    /// Print the plan and its time estimate, and exit without running anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Start, pin, sample and stop the subjects on another machine, reached over ssh as [USER@]HOST; the load
    /// generator stays on this one (docs/two-hosts.md).
    #[arg(long, value_name = "[USER@]HOST")]
    pub server_host: Option<String>,
    /// With --server-host: the project's checkout on the server host, where its servers are built (the binaries
    /// are taken from the same target/PROFILE directory as this fairpair's, e.g. target/release).
    #[arg(long, value_name = "PATH", requires = "server_host")]
    pub server_dir: Option<String>,
    /// With --server-host: an ssh configuration file, passed as `ssh -F FILE` [default: ssh's own].
    #[arg(long, value_name = "FILE", requires = "server_host")]
    pub ssh_config: Option<PathBuf>,
    #[command(flatten)]
    pub decision: DecisionArgs,
}

/// The command line of `fairpair report`: one results file to write the report of, or two to compare (`--compare`),
/// or one to export (`--export`). Its flags are here beside `fairpair run`'s, so that every flag of the harness is
/// in one file and `main.rs` keeps only the commands.
#[derive(Args, Clone, Debug)]
pub struct ReportArgs {
    /// The results file.
    #[arg(required_unless_present = "compare")]
    pub file: Option<PathBuf>,
    /// Directory for report.md, report.html and the SVGs [default: the file's directory]; with --compare, for
    /// compare.md and compare.html instead of the Markdown on stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Compare two results files (before/after, or two machines): Markdown on stdout (or compare.md and
    /// compare.html in --out), a one-line count on stderr.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with = "file")]
    pub compare: Option<Vec<PathBuf>>,
    /// With --compare: the comparison as `markdown` (for people) or `json` (every figure, for a script); the
    /// exit status is the same either way.
    #[arg(long, value_enum)]
    pub format: Option<crate::compare::Format>,
    /// With --compare: exit with status 1 when a figure got worse beyond the noise. The figures gated are each
    /// cell's throughput, p50, p99 and server CPU per request, and each subject's idle and after-load RSS and
    /// start-up; one fails when the min–max ranges of its repeats in the two files do not overlap, it is worse
    /// by at least --threshold, and it is a value in both files: a throughput or latency that is a bound
    /// (loader-limited, or loader-bound) never fails it on its own. The capacity at the latency objective is
    /// compared and shown, never gated: it is one search in each file, and searches spread more than its
    /// resolution.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// With --fail-on-regression: a figure worse beyond the noise by less than this share of its old median is
    /// tolerated, e.g. 5% [default: 0%].
    #[arg(long, value_name = "PERCENT", requires = "fail_on_regression")]
    pub threshold: Option<String>,
    /// Write the figures for other tools instead of the report files: FORMAT `csv` (a row per figure) or `bmf`
    /// (Bencher Metric Format) to FILE (`-` for stdout).
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"], conflicts_with_all = ["compare", "out"])]
    pub export: Option<Vec<String>>,
    #[command(flatten)]
    pub decision: DecisionArgs,
}

/// The team's own numbers for the report's decision section, on `fairpair run` and on `fairpair report` (which
/// re-reads a `benchmark.json` without running anything). Not given, each is assumed, and the section says so.
#[derive(Args, Clone, Debug, Default)]
pub struct DecisionArgs {
    /// The peak requests per second to serve, which the decision section sizes cores and CPU-hours for
    /// [default: 100000, the capacity section's sizing line's].
    #[arg(long, value_parser = non_negative, value_name = "RATE")]
    pub traffic: Option<f64>,
    /// How many copies of the service run, each with its own memory [default: 1].
    #[arg(long, value_parser = whole::<u32>, value_name = "N")]
    pub replicas: Option<u32>,
    /// Time per request spent waiting on a database or other services, which no rewrite changes, e.g. 25ms or 1s
    /// [default: 0].
    #[arg(long, value_parser = crate::decision::parse_duration_ms, value_name = "DURATION")]
    pub io_wait: Option<f64>,
    /// Price of one core for an hour, in your currency (no unit assumed): the section then gives a monthly cost.
    #[arg(long, value_parser = non_negative, value_name = "PRICE")]
    pub core_price: Option<f64>,
    /// Price of one GiB of memory for an hour, in the same currency.
    #[arg(long, value_parser = non_negative, value_name = "PRICE")]
    pub memory_price: Option<f64>,
}

impl DecisionArgs {
    /// The inputs, checked: a traffic and a replica count of 0 are refused (bad input, exit 2).
    pub fn inputs(&self) -> anyhow::Result<crate::decision::Inputs> {
        crate::decision::Inputs {
            traffic_rps: self.traffic,
            replicas: self.replicas,
            io_wait_ms: self.io_wait,
            core_price: self.core_price,
            memory_price: self.memory_price,
        }
        .checked()
    }
}

/// A whole-number flag (a count, or seconds), worded as the servers word a bad number: clap's own "invalid digit
/// found in string" names Rust's parser, not the problem. With negative numbers read as values (see `main.rs`),
/// `--duration -1` is a value below 0, not an unknown flag.
fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse().map_err(|_| {
        let negative = text.strip_prefix('-').is_some_and(|rest| rest.parse::<T>().is_ok());
        if negative { "below 0: it is a whole number, 0 or more".into() } else { "not a whole number".into() }
    })
}

/// A flag's number that may have a fraction (a rate, a percentage, seconds), 0 or more: a negative rate would
/// otherwise be dropped from the list without a word.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        Ok(_) => Err("below 0 or not finite: it is a number, 0 or more".into()),
        Err(_) => Err("not a number".into()),
    }
}
