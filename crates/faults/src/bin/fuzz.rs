//! `fuzz`: the differential fuzzer across the servers (see `faults::fuzz`). Usage:
//!
//! ```text
//! cargo run -p faults --release --bin fuzz -- --seconds 60 --seed 7
//! cargo run -p faults --release --bin fuzz -- --replay target/fuzz/findings/seed7-mutant123.json
//! cargo run -p faults --release --bin fuzz -- --decide
//! ```
//!
//! Starts Rust, Node (one process) and Go (when installed) with short time limits, sends them mutants until the time
//! is up, prints a progress line every ten seconds and a closing summary line, and exits 1 when a divergence
//! replayed. `scripts/fuzz` wraps it with a release build.

use clap::Parser;
use faults::Kind;
use faults::fuzz::{self, Settings, Table, Target, finding};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    about = "Differential fuzzing of the fairpair servers: the same mutated requests to each, their interpretations compared"
)]
struct Args {
    /// How long to run, in seconds.
    #[arg(long, conflicts_with = "minutes")]
    seconds: Option<u64>,
    /// How long to run, in minutes.
    #[arg(long)]
    minutes: Option<u64>,
    /// The generator's seed: the same seed gives the same mutants (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Probes in flight at once, over all servers.
    #[arg(long, default_value_t = 96, value_parser = clap::value_parser!(u64).range(1..=2048))]
    in_flight: u64,
    /// How many times a divergence is replayed before it counts.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    replays: u64,
    /// How long minimising one finding may take, in seconds.
    #[arg(long, default_value_t = 30)]
    minimise_seconds: u64,
    /// Where findings are written (default: target/fuzz).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Compare without the contract's tolerances (every tolerated difference becomes a divergence).
    #[arg(long)]
    empty_table: bool,
    /// Replay a finding's file instead of fuzzing.
    #[arg(long, conflicts_with_all = ["seconds", "minutes", "seed"])]
    replay: Option<PathBuf>,
    /// Instead of fuzzing, send every tolerance's examples to the servers and say which rows these releases still
    /// need (a row whose examples are all answered alike can go, and its cases become exact).
    #[arg(long, conflicts_with_all = ["seconds", "minutes", "seed", "replay", "empty_table"])]
    decide: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Ctrl-C or SIGTERM ends the run after its batch: the summary is printed and the servers are stopped.
    if let Err(e) = ctrlc::set_handler(fuzz::request_stop) {
        eprintln!("fuzz: cannot handle Ctrl-C: {e}");
        return ExitCode::from(2);
    }
    let table = if args.empty_table { Table::emptied() } else { Table::contract() };
    let kinds = faults::kinds("fuzz");
    let mut targets: Vec<Target> = kinds.iter().map(|&k| Target::start(k)).collect();
    // Go and Java are compared when their toolchains are installed; say which servers this run compares without them.
    if !kinds.contains(&Kind::Go) || !kinds.contains(&Kind::Java) {
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        eprintln!("fuzz: comparing {} only (the others' toolchains are not installed)", names.join(", "));
    }
    // What the servers run on, and whether the table was decided on it: printed first, and again beside the summary.
    let releases = faults::release_lines(&kinds);
    for line in &releases {
        eprintln!("fuzz: {line}");
    }
    if let Some(path) = args.replay {
        return replay(&path, &targets, &table, args.replays as usize);
    }
    if args.decide {
        let code = decide(&targets);
        releases.iter().for_each(|line| println!("decide releases: {line}"));
        return code;
    }
    let seconds = args.seconds.or(args.minutes.map(|m| m * 60)).unwrap_or(60);
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let mut settings = Settings::new(seed, Duration::from_secs(seconds));
    settings.in_flight = args.in_flight as usize;
    settings.replays = args.replays as usize;
    settings.table = table;
    settings.minimise_for = Duration::from_secs(args.minimise_seconds);
    settings.progress = Some(Duration::from_secs(10));
    if let Some(out) = args.out {
        settings.out_dir = out;
    }
    let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    eprintln!("fuzz: seed {seed}, {seconds} s, servers {}, {} probes in flight", names.join(", "), settings.in_flight);
    let summary = fuzz::run(&mut targets, &settings);
    for (name, count) in &summary.tolerated {
        eprintln!("fuzz: tolerated {name}: {count} mutants");
    }
    for f in &summary.findings {
        eprintln!("fuzz: finding: {} (replayed {}/{}): {}", f.what, f.replayed.0, f.replayed.1, f.replay);
    }
    println!("{}", summary.line());
    releases.iter().for_each(|line| println!("fuzz releases: {line}"));
    if summary.findings.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Prints each tolerance's decision on the servers at hand; exits 1 when a needed row no longer allows what the
/// servers do (the table is wrong for these releases), 0 otherwise (rows no longer needed are listed, not failed).
fn decide(targets: &[Target]) -> ExitCode {
    let addrs: Vec<(String, std::net::SocketAddr)> = targets.iter().map(|t| (t.name.clone(), t.addr)).collect();
    let decisions = fuzz::decide::decide(&addrs);
    for d in &decisions {
        println!("{}", d.line());
    }
    let unneeded: Vec<&str> = decisions.iter().filter(|d| !d.needed()).map(|d| d.name).collect();
    let wrong = decisions.iter().filter(|d| !d.allows()).count();
    println!(
        "decide summary: {} tolerances, {} not needed by these releases{}, {wrong} that do not allow what the servers do",
        decisions.len(),
        unneeded.len(),
        if unneeded.is_empty() { String::new() } else { format!(" ({})", unneeded.join(", ")) }
    );
    if wrong > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Replays a finding `times` times against fresh servers and prints each server's interpretation.
fn replay(path: &std::path::Path, targets: &[Target], table: &Table, times: usize) -> ExitCode {
    let found = match finding::Finding::load(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let mutant = fuzz::mutate::Mutant {
        n: found.mutant,
        seed: found.grown_from.clone(),
        bytes: found.bytes(),
        splits: found.splits.clone(),
    };
    let addrs: Vec<(String, std::net::SocketAddr)> = targets.iter().map(|t| (t.name.clone(), t.addr)).collect();
    println!(
        "replaying {} (seed {}, mutant {}): {}",
        path.display(),
        found.seed,
        found.mutant,
        contract::show(&mutant.bytes)
    );
    let mut reproduced = 0;
    for i in 1..=times {
        let (problem, interps) = finding::check(&addrs, &mutant, table);
        for ((name, _), interp) in addrs.iter().zip(&interps) {
            println!("  run {i} {name}: {}", serde_json::to_string(interp).expect("serialises"));
        }
        match problem {
            Some(what) => {
                reproduced += 1;
                println!("  run {i}: diverges: {what}");
            }
            None => println!("  run {i}: no divergence"),
        }
    }
    println!("reproduced {reproduced}/{times}");
    if reproduced > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
