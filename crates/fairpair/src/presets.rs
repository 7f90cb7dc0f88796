//! Presets: one command per published study that fairpair grew out of (`fairpair run --preset NAME`).
//!
//! A preset only sets defaults: it fills in the settings the command line left open, so a flag given on the command
//! line always wins over the preset's. Each study's published
//! figures are kept here as data, so that its report can quote them beside the ones measured on this machine; their
//! methods, and how each preset departs from them, are in `docs/prior-results.md`.

use clap::ValueEnum;

use crate::args::RunArgs;

/// A published comparison, reproduced with its own method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    /// fairpair's own defaults (wrk, pinned, one core each, 50 and 300 connections).
    Fairpair,
    /// "Node.js vs Go for a JSON API": autocannon sharing the machine, 50 and 300 connections, 15 s, memory ×3.
    Article,
    /// "Go goroutines vs Node cluster": wrk at 1,000 connections against a hello-world route, one thread and all.
    Wrk,
    /// "Node vs Go, hello world": ab against a hello-world route, 1 and 100 concurrent requests, one core.
    AbHello,
    /// "Node.js vs Spring Boot": bombardier against a hello-world route at 50, 100 and 200 connections.
    Bombardier,
}

/// One figure a study published, for one subject.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// The subject it belongs to here (`go`, `node`, `node-cluster`, `go-multi`).
    pub subject: &'static str,
    pub scenario: &'static str,
    pub connections: u32,
    pub metric: Metric,
    pub value: f64,
}

/// What a published figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    RequestsPerSec,
    /// Resident memory in MB (decimal, as `ps` and the articles print it) right after the load.
    RssAfterLoadMb,
    /// Resident memory in MB while idle.
    RssIdleMb,
}

impl Preset {
    /// Fills in the study's method wherever the command line left a setting to its default. Run lengths and memory
    /// repeats are left alone under `--quick`, so that `--preset NAME --quick` is still a quick run of that method.
    pub fn apply(self, args: &mut RunArgs) {
        let list = |items: &[&str]| Some(items.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let (tool, subjects, scenarios, connections, duration, memory_repeats, unpinned) = match self {
            Preset::Fairpair => return,
            Preset::Article => {
                ("autocannon", &["node", "go", "rust"][..], &["get", "post"][..], &[50, 300][..], 15, 3, true)
            }
            // The study ran 300 s per run on 8 cores; 60 s keeps three repeats of four subjects near an hour.
            Preset::Wrk => {
                ("wrk", &["go", "node", "go-multi", "node-cluster"][..], &["hello"][..], &[1000][..], 60, 3, false)
            }
            Preset::AbHello => ("ab", &["go", "node"][..], &["hello"][..], &[1, 100][..], 15, 3, false),
            Preset::Bombardier => {
                ("bombardier", &["node", "go", "rust"][..], &["hello"][..], &[50, 100, 200][..], 15, 3, false)
            }
        };
        args.tool.get_or_insert_with(|| tool.to_string());
        args.subjects = args.subjects.take().or_else(|| list(subjects));
        args.scenarios = args.scenarios.take().or_else(|| list(scenarios));
        args.connections.get_or_insert_with(|| connections.to_vec());
        if !args.quick {
            args.duration.get_or_insert(duration);
            args.memory_repeats.get_or_insert(memory_repeats);
        }
        // The article's load tool shared the machine with the servers; the user may still pin with --server-cpus.
        if unpinned && args.server_cpus.is_none() && args.loader_cpus.is_none() {
            args.no_pin = true;
        }
    }

    /// The study's title, as `docs/prior-results.md` names it.
    pub fn study(self) -> Option<&'static str> {
        match self {
            Preset::Fairpair => None,
            Preset::Article => Some("Node.js vs Go for a JSON API: same throughput, 2.6× less memory"),
            Preset::Wrk => Some("Go goroutines vs Node cluster & worker threads, part 1"),
            Preset::AbHello => Some("Node vs Go, hello world"),
            Preset::Bombardier => Some("Node.js vs Spring Boot, hello world"),
        }
    }

    /// What the study measured on its own machine, for the report to quote beside our figures.
    pub fn published(self) -> &'static [Published] {
        match self {
            Preset::Fairpair | Preset::Bombardier => &[],
            Preset::Article => ARTICLE,
            Preset::Wrk => WRK,
            Preset::AbHello => AB_HELLO,
        }
    }

    /// How this preset's run departed from the study's method (the table in `docs/prior-results.md`), given what
    /// the run recorded: whether it was `--quick`, and which subjects it measured.
    pub fn departures(self, quick: bool, measured: &[&str]) -> Vec<&'static str> {
        let has = |name: &str| measured.contains(&name);
        let mut out = Vec::new();
        match self {
            Preset::Fairpair => return out,
            Preset::Article => {
                if has("go") {
                    out.push("Go ran with GOMAXPROCS=1 (`--workers 1`), where the study gave Go all cores.");
                }
                if has("rust") {
                    out.push("Rust was measured beside Node and Go; the study had no Rust server.");
                }
                out.push("The machine has the cores it has, not the study's 16.");
            }
            Preset::AbHello => {
                out.push("ab used keep-alive (`-k`) and timed runs (`-t`), where the study ran `ab -n 1000000` without `-k`.");
                out.push("The server was pinned to its own core and ab to another; the study's one-core VM shared it.");
            }
            Preset::Wrk => {
                if !quick {
                    out.push("Runs lasted 60 s, where the study ran 300 s.");
                }
                out.push("wrk ran one thread per loader CPU, where the study gave it 8.");
                if !has("go-multi") && !has("node-cluster") {
                    out.push("go-multi and node-cluster were skipped: the server side had fewer than 2 CPUs.");
                }
            }
            Preset::Bombardier => {
                out.push("Runs were timed, where the study sent 5 million requests.");
                out.push("No Spring Boot: node, go and rust instead.");
                out.push("No published figure is quoted: the study gave none per connection count.");
            }
        }
        if quick {
            out.push("`--quick` replaced the study's run lengths and memory repeats with the quick run's.");
        }
        out
    }

    /// The preset named in a recorded command line (`--preset NAME` or `--preset=NAME`), if any.
    pub fn from_argv(argv: &[String]) -> Option<Preset> {
        let value = argv.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--preset") {
            Some("") => argv.get(i + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        })?;
        Preset::from_str(value, true).ok()
    }
}

const fn p(subject: &'static str, scenario: &'static str, connections: u32, metric: Metric, value: f64) -> Published {
    Published { subject, scenario, connections, metric, value }
}

// The article printed memory only; its throughput was "no winner" (Node ahead by about 5,000 requests/s on GET at 50
// connections, the rest within a few hundred).
const ARTICLE: &[Published] = &[
    p("go", "get", 300, Metric::RssIdleMb, 13.0),
    p("node", "get", 300, Metric::RssIdleMb, 49.0),
    p("go", "get", 300, Metric::RssAfterLoadMb, 32.0),
    p("node", "get", 300, Metric::RssAfterLoadMb, 84.0),
];
const WRK: &[Published] = &[
    p("go", "hello", 1000, Metric::RequestsPerSec, 63_298.78),
    p("node", "hello", 1000, Metric::RequestsPerSec, 42_067.40),
    p("go-multi", "hello", 1000, Metric::RequestsPerSec, 378_829.42),
    p("node-cluster", "hello", 1000, Metric::RequestsPerSec, 339_722.35),
];
const AB_HELLO: &[Published] = &[
    p("go", "hello", 1, Metric::RequestsPerSec, 7_270.51),
    p("node", "hello", 1, Metric::RequestsPerSec, 4_989.26),
    p("go", "hello", 100, Metric::RequestsPerSec, 7_051.02),
    p("node", "hello", 100, Metric::RequestsPerSec, 5_634.68),
];

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn args(line: &str) -> RunArgs {
        let mut args = Cli::parse_from(std::iter::once("run").chain(line.split_whitespace())).run;
        if let Some(preset) = args.preset {
            preset.apply(&mut args);
        }
        args
    }

    #[test]
    fn a_preset_fills_in_what_the_command_line_left_open() {
        let a = args("--preset article");
        assert_eq!(a.tool.as_deref(), Some("autocannon"));
        assert_eq!(a.subjects, Some(vec!["node".into(), "go".into(), "rust".into()]));
        assert_eq!(a.connections, Some(vec![50, 300]));
        assert_eq!((a.duration, a.memory_repeats, a.no_pin), (Some(15), Some(3), true));
    }

    #[test]
    fn the_command_line_wins_over_a_preset() {
        let a = args("--preset article --tool wrk --subjects node --duration 5 --server-cpus 0");
        assert_eq!(a.tool.as_deref(), Some("wrk"));
        assert_eq!(a.subjects, Some(vec!["node".into()]));
        assert_eq!(a.duration, Some(5));
        assert!(!a.no_pin, "given CPUs mean pinned");
        let quick = args("--preset wrk --quick");
        assert_eq!((quick.duration, quick.memory_repeats), (None, None), "--quick keeps its own short runs");
        assert_eq!(quick.connections, Some(vec![1000]));
    }

    #[test]
    fn the_preset_is_read_back_from_a_recorded_command_line() {
        let argv = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(Preset::from_argv(&argv("fairpair run --preset ab-hello --quick")), Some(Preset::AbHello));
        assert_eq!(Preset::from_argv(&argv("fairpair run --preset=wrk")), Some(Preset::Wrk));
        assert_eq!(Preset::from_argv(&argv("fairpair run --quick")), None);
    }
}
