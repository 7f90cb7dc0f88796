//! `fairpair`: the command line of the harness. Only argument parsing and exit codes live here; the work is in the
//! library (see `lib.rs` for the layout).
//!
//! - `fairpair verify [--level api|full] http://127.0.0.1:3000` — run the contract's cases against a running server.
//! - `fairpair run [--quick] [--subjects rust,node] …` — verify, measure, write `results/benchmark.json` and the report.
//! - `fairpair report results/benchmark.json` — regenerate `report.md` and the charts from a results file.
//! - `fairpair report --compare OLD.json NEW.json [--fail-on-regression]` — two runs side by side, Markdown on stdout.
//!
//! Exit status: 0 success, 1 a failed verification or run (or, with `--fail-on-regression`, a figure worse beyond
//! the noise), 2 bad input (one line on stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fairpair::args::RunArgs;
use fairpair::plan::{Plan, ServerSide};
use fairpair::schema::FlagKind;
use fairpair::{UsageError, compare, execute, report, verify};

#[derive(Parser)]
#[command(
    name = "fairpair",
    version,
    about = "Load two implementations of the same API identically and report what differs."
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
    Run(Box<RunArgs>),
    /// Write report.md and the charts from a benchmark.json, or compare two of them (--compare).
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
        /// With --compare: exit with status 1 when a figure got worse beyond the measured noise.
        #[arg(long)]
        fail_on_regression: bool,
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
            let server = ServerSide::connect(&args)?;
            let plan = Plan::from_args_on(&args, server.as_ref().map(|(side, _)| side))?;
            if args.dry_run {
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
                eprintln!("fairpair: open-loop tool: {}", open_loop_tool(&plan));
                return Ok(ExitCode::SUCCESS);
            }
            // `execute` has written benchmark.json, after every run and complete at the end.
            let result = execute::run(&plan)?;
            let mut files = vec![plan.out.join("benchmark.json")];
            files.extend(report::write(&result, &plan.out)?);
            print_summary(&result);
            eprintln!("fairpair: wrote {}", paths(&files));
            // A subject asked for and not measured is a failed run, though the others' figures are written.
            let unmeasured = result.unmeasured_subjects();
            if unmeasured.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!(
                "fairpair: NOT measured (failed verification): {}; see report.md, or measure anyway with --allow-unverified",
                unmeasured.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
        Cmd::Report { compare: Some(files), fail_on_regression, out, .. } => {
            compare_files(&files[0], &files[1], out.as_deref(), fail_on_regression)
        }
        Cmd::Report { fail_on_regression: true, .. } => {
            Err(fairpair::usage("--fail-on-regression needs --compare OLD.json NEW.json"))
        }
        Cmd::Report { file, out, .. } => {
            let file = file.expect("clap requires a file without --compare");
            let bench = report::load(&file)?;
            let dir = out.unwrap_or_else(|| file.parent().map(PathBuf::from).unwrap_or_default());
            let reports = report::write(&bench, &dir)?;
            eprintln!("fairpair: wrote {}", paths(&reports));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Paths for a closing line: `results/benchmark.json, results/report.md and results/report.html`.
fn paths(files: &[PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    match names.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// `report --compare`: the Markdown on stdout (redirect it to keep it), or compare.md and compare.html in `--out`;
/// the verdict counts on stderr.
fn compare_files(old: &Path, new: &Path, out: Option<&Path>, fail_on_regression: bool) -> anyhow::Result<ExitCode> {
    let (a, b) = (report::load(old)?, report::load(new)?);
    let c = compare::compare(&a, &b);
    let doc = compare::document(&old.display().to_string(), &new.display().to_string(), &a, &b, &c);
    match out {
        Some(dir) => eprintln!("fairpair: wrote {}", paths(&report::write_document(&doc, dir, "compare")?)),
        None => print!("{}", report::markdown(&doc)),
    }
    eprintln!(
        "fairpair: {} figures compared: {} worse beyond the noise, {} better, {} within the noise, {} without a verdict",
        c.rows.len(),
        c.regressions(),
        c.count(compare::Change::Better),
        c.count(compare::Change::WithinNoise),
        c.count(compare::Change::NoiseUnknown)
    );
    Ok(if fail_on_regression && c.regressions() > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Which tool the open-loop phase will use, as the plan chose it. Printed by `--dry-run`, so a setup can be checked
/// without a run.
fn open_loop_tool(plan: &Plan) -> &'static str {
    use fairpair::kinds::Tool;
    match plan.open_loop_tool {
        _ if plan.settings.open_loop_fractions.is_empty() => {
            "none: the open-loop phase is disabled (--open-loop-rates 0)"
        }
        Some(Tool::Oha) => "oha (latencies corrected for coordinated omission)",
        Some(Tool::Autocannon) => "autocannon (not corrected for coordinated omission; oha is not installed)",
        Some(_) | None => "none: neither oha nor autocannon is installed, so the open-loop phase will be skipped",
    }
}

/// The summary table on stdout: one line per cell and subject; `cap. %` is the share of the loader's measured capacity.
fn print_summary(b: &fairpair::schema::Benchmark) {
    let b = &report::marked(b);
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
        println!("({left_out} runs had statuses their scenario does not expect and are left out: see the report)");
    }
    for m in &b.memory_summaries {
        println!(
            "{:<20} memory: idle {:.1} MiB, after load {:.1} MiB RSS ({} processes), start-up {:.0} ms",
            m.subject,
            m.idle_rss_kib.median / 1024.0,
            m.after_rss_kib.median / 1024.0,
            m.processes,
            m.startup_ms.median
        );
    }
}
