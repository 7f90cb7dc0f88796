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

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fairpair::plan::args::{ReportArgs, RunArgs};
use fairpair::plan::{Plan, ServerSide};
use fairpair::run::{console, execute};
use fairpair::text::path_list;
use fairpair::{UsageError, compare, export, report, usage, verify};

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
    Report(ReportArgs),
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
        fairpair::subjects::process::stop_all();
        fairpair::machine::host::close_all();
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
            exit_code(verify::verify_url(&url, level, verbose, on_silence))
        }
        Cmd::Run(args) => {
            // A two-host run connects first: the plan needs the server host's CPUs, and an unreachable host is
            // best told before anything else is printed. The connection lives until the run ends.
            let inputs = args.decision.inputs()?;
            let server = ServerSide::connect(&args)?;
            let plan = Plan::from_args_on(&args, server.as_ref().map(|(side, _)| side))?;
            if args.dry_run {
                plan.print_dry_run();
                return Ok(ExitCode::SUCCESS);
            }
            // `execute` has written benchmark.json, after every run and complete at the end.
            let result = execute::run(&plan)?;
            let mut files = vec![plan.out.join("benchmark.json")];
            files.extend(report::write_with(&result, &plan.out, &inputs)?);
            console::print_console_summary(&result, &inputs);
            eprintln!("fairpair: wrote {}", path_list(&files));
            // A subject asked for and not measured is a failed run, though the others' figures are written.
            exit_code(Ok(console::print_unmeasured_subjects(&result)))
        }
        Cmd::Report(ReportArgs { compare: Some(files), fail_on_regression, threshold, format, out, .. }) => {
            let threshold = threshold.map_or(Ok(0.0), |t| compare::gate::parse_threshold(&t)).map_err(usage)?;
            let gate = fail_on_regression.then_some(threshold);
            exit_code(compare::compare_files(&files[0], &files[1], out.as_deref(), format.unwrap_or_default(), gate))
        }
        Cmd::Report(ReportArgs { fail_on_regression: true, .. }) => {
            Err(usage("--fail-on-regression needs --compare OLD.json NEW.json"))
        }
        Cmd::Report(ReportArgs { format: Some(_), .. }) => Err(usage("--format needs --compare OLD.json NEW.json")),
        Cmd::Report(ReportArgs { file, export: Some(export), decision, .. }) => {
            let file = file.expect("clap requires a file without --compare");
            export::export_file(&file, &export[0], &export[1], &decision.inputs()?)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Report(ReportArgs { file, out, decision, .. }) => {
            let file = file.expect("clap requires a file without --compare");
            let reports = report::write_from_file(&file, out.as_deref(), &decision.inputs()?)?;
            eprintln!("fairpair: wrote {}", path_list(&reports));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A command's verdict as its exit status, 0 passed and 1 failed; an error is left to `main`, which tells 2 from 1.
fn exit_code(passed: anyhow::Result<bool>) -> anyhow::Result<ExitCode> {
    passed.map(|passed| if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
