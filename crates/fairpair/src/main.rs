//! `fairpair`: the command line of the harness. Only argument parsing and exit codes live here; the work is in the
//! library (see `lib.rs` for the layout).
//!
//! - `fairpair verify [--level api|full] http://127.0.0.1:3000` — run the contract's cases against a running server.
//! - `fairpair run [--quick] [--subjects rust,node] …` — verify, measure, write `results/benchmark.json` and the report.
//! - `fairpair report results/benchmark.json` — regenerate `report.md` and the charts from a results file.
//! - `fairpair report --compare OLD.json NEW.json [--fail-on-regression]` — two runs side by side, Markdown on stdout.
//! - `fairpair report results/benchmark.json --export csv|bmf FILE` — the figures for a spreadsheet or Bencher.
//!
//! Exit status: 0 success, 1 a failed verification or run (or, with `--fail-on-regression`, a figure worse beyond
//! the noise), 2 bad input (one line on stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fairpair::args::{DecisionArgs, RunArgs};
use fairpair::compare::gate;
use fairpair::plan::{Plan, ServerSide};
use fairpair::schema::FlagKind;
use fairpair::{UsageError, compare, execute, export, report, verify};

#[derive(Parser)]
#[command(
    name = "fairpair",
    version,
    about = "Load implementations of the same API (Rust, Node, Go, Java, or your own) identically and report what differs."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the contract's cases against a running server; exit 1 on any failure.
    Verify {
        /// The server, e.g. http://127.0.0.1:3000
        url: String,
        /// Print every case as it runs, with its time and mismatches, not one line per failing rule.
        #[arg(long, short)]
        verbose: bool,
        /// Run every case even after the server stopped answering several in a row (a server that hangs on some
        /// cases then still gets every later one, so what fails does not depend on the order of the cases).
        #[arg(long)]
        every_case: bool,
        /// How much of the contract to check: `api` (the routes, statuses, bodies and POST validation a service
        /// implementing the API must get right) or `full` (also the transport's hardening and JSON.parse's edge cases).
        #[arg(long, default_value = "full")]
        level: contract::Level,
    },
    /// Verify and measure the subjects; write benchmark.json, report.md and the charts.
    // A negative number after a flag is that flag's value, refused with a reason (`--duration -1`: below 0), not
    // an unknown flag `-1`.
    #[command(allow_negative_numbers = true)]
    Run(Box<RunArgs>),
    /// Write report.md and the charts from a benchmark.json, or compare two of them (--compare).
    #[command(allow_negative_numbers = true)]
    Report {
        /// The results file.
        #[arg(required_unless_present = "compare")]
        file: Option<PathBuf>,
        /// Directory for report.md, report.html and the SVGs [default: the file's directory]; with --compare, for
        /// compare.md and compare.html instead of the Markdown on stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Compare two results files (before/after, or two machines): Markdown on stdout (or compare.md and
        /// compare.html in --out), a one-line count on stderr.
        #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with = "file")]
        compare: Option<Vec<PathBuf>>,
        /// With --compare: the comparison as `markdown` (for people) or `json` (every figure, for a script); the
        /// exit status is the same either way.
        #[arg(long, value_enum)]
        format: Option<CompareFormat>,
        /// With --compare: exit with status 1 when a figure got worse beyond the noise. The figures gated are each
        /// cell's throughput, p50, p99 and server CPU per request, and each subject's idle and after-load RSS and
        /// start-up; one fails when the min–max ranges of its repeats in the two files do not overlap, it is worse
        /// by at least --threshold, and it is a value in both files: a throughput or latency that is a bound
        /// (loader-limited, or loader-bound) never fails it on its own. The capacity at the latency objective is
        /// compared and shown, never gated: it is one search in each file, and searches spread more than its
        /// resolution.
        #[arg(long)]
        fail_on_regression: bool,
        /// With --fail-on-regression: a figure worse beyond the noise by less than this share of its old median is
        /// tolerated, e.g. 5% [default: 0%].
        #[arg(long, value_name = "PERCENT", requires = "fail_on_regression")]
        threshold: Option<String>,
        /// Write the figures for other tools instead of the report files: FORMAT `csv` (a row per figure) or `bmf`
        /// (Bencher Metric Format) to FILE (`-` for stdout).
        #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"], conflicts_with_all = ["compare", "out"])]
        export: Option<Vec<String>>,
        #[command(flatten)]
        decision: DecisionArgs,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!("fairpair: a command is required: verify, run or report (see fairpair --help)");
                return ExitCode::from(2);
            }
            // One line, not clap's usage block: the first paragraph names the problem (for a missing argument it
            // spans two lines, which are joined).
            let text = e.render().to_string();
            let first = text.split("\n\n").next().unwrap_or("bad arguments").trim_start_matches("error: ");
            let first: Vec<&str> = first.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            eprintln!("fairpair: {} (see fairpair --help)", first.join(" "));
            return ExitCode::from(2);
        }
    };
    // An interrupted run stops the servers it started before exiting: they live in process groups of their own.
    let _ = ctrlc::set_handler(|| {
        eprintln!("\nfairpair: interrupted; stopping the servers it started");
        fairpair::subject::stop_all();
        fairpair::host::close_all();
        std::process::exit(130);
    });
    match execute(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fairpair: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}

fn execute(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd {
        Cmd::Verify { url, verbose, every_case, level } => {
            let on_silence = if every_case { verify::OnSilence::KeepGoing } else { verify::OnSilence::GiveUp };
            Ok(if verify::verify_url(&url, level, verbose, on_silence)? {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Cmd::Run(args) => {
            // A two-host run connects first: the plan needs the server host's CPUs, and an unreachable host is
            // best told before anything else is printed. The connection lives until the run ends.
            let inputs = args.decision.inputs()?;
            let server = ServerSide::connect(&args)?;
            let plan = Plan::from_args_on(&args, server.as_ref().map(|(side, _)| side))?;
            if args.dry_run {
                dry_run(&plan);
                return Ok(ExitCode::SUCCESS);
            }
            // `execute` has written benchmark.json, after every run and complete at the end.
            let result = execute::run(&plan)?;
            let mut files = vec![plan.out.join("benchmark.json")];
            files.extend(report::write_with(&result, &plan.out, &inputs)?);
            print_summary(&result, &inputs);
            eprintln!("fairpair: wrote {}", paths(&files));
            // A subject asked for and not measured is a failed run, though the others' figures are written.
            let unmeasured = result.unmeasured_subjects();
            if unmeasured.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!(
                "fairpair: NOT measured (did not start, or failed verification): {}; see report.md (--allow-unverified \
                 measures a subject that fails verification)",
                unmeasured.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
        Cmd::Report { compare: Some(files), fail_on_regression, threshold, format, out, .. } => {
            let threshold = threshold.map_or(Ok(0.0), |t| gate::parse_threshold(&t)).map_err(fairpair::usage)?;
            let gate = fail_on_regression.then_some(threshold);
            compare_files(&files[0], &files[1], out.as_deref(), format.unwrap_or(CompareFormat::Markdown), gate)
        }
        Cmd::Report { fail_on_regression: true, .. } => {
            Err(fairpair::usage("--fail-on-regression needs --compare OLD.json NEW.json"))
        }
        Cmd::Report { format: Some(_), .. } => Err(fairpair::usage("--format needs --compare OLD.json NEW.json")),
        Cmd::Report { file, export: Some(export), decision, .. } => {
            let inputs = decision.inputs()?;
            export_file(&file.expect("clap requires a file without --compare"), &export, &inputs)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Report { file, out, decision, .. } => {
            let inputs = decision.inputs()?;
            let file = file.expect("clap requires a file without --compare");
            let bench = report::load(&file)?;
            let dir = out.unwrap_or_else(|| file.parent().map(PathBuf::from).unwrap_or_default());
            let reports = report::write_with(&bench, &dir, &inputs)?;
            eprintln!("fairpair: wrote {}", paths(&reports));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `run --dry-run`: what would run (the plan's announcement, the tools, every cell), and nothing run.
fn dry_run(plan: &Plan) {
    plan.announce();
    eprintln!("fairpair: load tool: {}", plan.settings.tool);
    for cell in &plan.cells {
        let names: Vec<&str> = cell.subjects.iter().map(|&i| plan.subjects[i].name.as_str()).collect();
        eprintln!(
            "fairpair: cell {} at {} connections: {} × {}",
            plan.scenarios[cell.scenario].name,
            cell.connections,
            names.join(" "),
            plan.settings.repeats
        );
    }
    eprintln!("fairpair: open-loop tool: {}", open_loop_tool(plan));
    for run in plan.profiled_runs() {
        eprintln!(
            "fairpair: profile {} {} at {} connections: one run under perf record, apart from every figure",
            run.subject.name, run.scenario.name, run.connections
        );
    }
    if plan.profile && !plan.server_host.is_local() {
        eprintln!("fairpair: profile: none, the servers run on a server host (perf is not run there)");
    }
}

/// `report FILE --export FORMAT TO`: the run's figures in FORMAT, written to TO (`-`: stdout).
fn export_file(file: &Path, export: &[String], inputs: &fairpair::decision::Inputs) -> anyhow::Result<()> {
    let format = <export::Format as clap::ValueEnum>::from_str(&export[0], true)
        .map_err(|_| fairpair::usage(format!("--export wants csv or bmf, got {:?}", export[0])))?;
    let text = export::export_with(&report::load(file)?, format, inputs);
    if export[1] == "-" {
        print!("{text}");
    } else {
        std::fs::write(&export[1], text).map_err(|e| fairpair::usage(format!("cannot write {}: {e}", export[1])))?;
        eprintln!("fairpair: wrote {}", export[1]);
    }
    Ok(())
}

/// Paths for a closing line: `results/benchmark.json, results/report.md and results/report.html`.
fn paths(files: &[PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    match names.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// `report --compare`: the comparison on stdout (Markdown or JSON: redirect it to keep it), or in `--out` as
/// compare.md and compare.html (and compare.json with `--format json`); the verdict counts and the gate's failures on
/// stderr. `gate` is the threshold of `--fail-on-regression`, when given.
fn compare_files(
    old: &Path,
    new: &Path,
    out: Option<&Path>,
    format: CompareFormat,
    gate: Option<f64>,
) -> anyhow::Result<ExitCode> {
    let (a, b) = (report::load(old)?, report::load(new)?);
    let c = compare::compare(&a, &b);
    let (old_name, new_name) = (old.display().to_string(), new.display().to_string());
    let json = || compare::json::comparison(&old_name, &new_name, &a, &b, gate.unwrap_or(0.0));
    let doc = compare::document(&old_name, &new_name, &a, &b, &c);
    match (out, format) {
        (None, CompareFormat::Markdown) => print!("{}", report::markdown(&doc)),
        (None, CompareFormat::Json) => print!("{}", json()),
        (Some(dir), format) => {
            let mut files = report::write_document(&doc, dir, "compare")?;
            if format == CompareFormat::Json {
                let path = dir.join("compare.json");
                std::fs::write(&path, json()).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
                files.push(path);
            }
            eprintln!("fairpair: wrote {}", paths(&files));
        }
    }
    eprintln!(
        "fairpair: {} figures compared: {} worse beyond the noise, {} better, {} within the noise, {} without a verdict",
        c.rows.len(),
        c.regressions(),
        c.count(compare::Change::Better),
        c.count(compare::Change::WithinNoise),
        c.count(compare::Change::NoiseUnknown)
    );
    let Some(threshold) = gate else { return Ok(ExitCode::SUCCESS) };
    let failures = gate::failures(&c, threshold);
    for r in &failures {
        let place = r.cell.as_ref().map_or("memory".into(), |(s, n)| format!("{s} at {n} connections"));
        let worse = gate::worsening(r).map_or(String::new(), |w| format!(", {:.1} % worse", w * 100.0));
        eprintln!("fairpair: REGRESSION {} {place}: {}{worse}", r.subject, r.metric.label());
    }
    // A figure with a single run or search on either side has no verdict: the gate cannot judge it, and says so
    // rather than let a green build read as "checked".
    let unjudged = c.count(compare::Change::NoiseUnknown);
    if unjudged > 0 {
        eprintln!(
            "fairpair: {unjudged} figure(s) without a verdict (a single run or capacity search per file) not judged by \
             the gate"
        );
    }
    let tolerated = c.regressions() - failures.len();
    if tolerated > 0 {
        eprintln!(
            "fairpair: {tolerated} figure(s) worse beyond the noise tolerated by the gate (a bound, or under --threshold)"
        );
    }
    Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// How `report --compare` writes the comparison.
#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
enum CompareFormat {
    Markdown,
    Json,
}

/// Which tool the open-loop phase will use, as the plan chose it. Printed by `--dry-run`, so a setup can be checked
/// without a run.
fn open_loop_tool(plan: &Plan) -> &'static str {
    use fairpair::kinds::Tool;
    match plan.open_loop_tool {
        _ if plan.capacity.is_some() => "oha, for the capacity search (latencies corrected for coordinated omission)",
        _ if plan.settings.open_loop_fractions.is_empty() => {
            "none: no capacity search and no fixed-fraction open-loop runs"
        }
        Some(Tool::Oha) => "oha (latencies corrected for coordinated omission)",
        Some(Tool::Autocannon) => "autocannon (not corrected for coordinated omission; oha is not installed)",
        Some(_) | None => "none: neither oha nor autocannon is installed, so the open-loop phase will be skipped",
    }
}

/// The summary table on stdout: one line per cell and subject; `cap. %` is the share of the loader's measured capacity.
fn print_summary(plain: &fairpair::schema::Benchmark, inputs: &fairpair::decision::Inputs) {
    let b = &report::marked(plain);
    println!(
        "{:<20} {:<8} {:>5} {:>12} {:>8} {:>9} {:>9} {:>9} {:>8}  flags",
        "subject", "scenario", "conns", "req/s", "cap. %", "p50 ms", "p99 ms", "CPU µs/r", "CV %"
    );
    for s in &b.summaries {
        let flags: Vec<&str> = b
            .flags
            .iter()
            .filter(|f| {
                // `rate-not-reached` belongs to the open-loop phase, not to these closed-loop runs.
                f.kind != FlagKind::RateNotReached
                    && f.subject == s.subject
                    && f.scenario.as_deref() == Some(&s.scenario)
                    && f.connections == Some(s.connections)
            })
            .map(|f| f.kind.as_str())
            .collect();
        println!(
            "{:<20} {:<8} {:>5} {:>12} {:>8} {:>9.2} {:>9.2} {:>9} {:>8}  {}",
            s.subject,
            s.scenario,
            s.connections,
            fairpair::text::thousands(s.requests_per_sec.median),
            s.loader_capacity_share_percent.map_or("—".into(), |p| format!("{p:.0}")),
            s.p50_ms.median,
            s.p99_ms.median,
            s.server_cpu_us_per_request.as_ref().map_or("—".into(), |c| format!("{:.1}", c.median)),
            s.requests_per_sec.cv.map_or("—".into(), |c| format!("{:.1}", c * 100.0)),
            flags.join(",")
        );
    }
    if b.summaries.is_empty() {
        println!("(no closed-loop run was measured: see the skipped list in the report)");
    }
    let left_out = b.runs.iter().filter(|r| r.left_out.is_some()).count();
    if left_out > 0 {
        println!("({left_out} runs are left out: unexpected statuses or a busy machine; see the report)");
    }
    for m in &b.memory_summaries {
        println!(
            "{:<20} memory: idle {:.1} MiB, after load {:.1} MiB RSS ({}), start-up {:.0} ms",
            m.subject,
            m.idle_rss_kib.median / 1024.0,
            m.after_rss_kib.median / 1024.0,
            fairpair::text::count(u64::from(m.processes), "process"),
            m.startup_ms.median
        );
    }
    // The report's summary, in the same words: what the figures above say, and how far to trust each. It marks the
    // unverified subjects itself, so it is given the plain names (marked twice, "x (UNVERIFIED) (UNVERIFIED)").
    let verdicts = report::verdict_lines(plain);
    if !verdicts.is_empty() {
        println!();
    }
    for line in verdicts {
        println!("{line}");
    }
    // The decision section's table and sentence, as plain lines.
    println!();
    for line in report::decision_lines(plain, inputs) {
        println!("{line}");
    }
}
