//! Presets: one command per published study that fairpair grew out of (`fairpair run --preset NAME`).
//!
//! A preset only sets defaults: it fills in the settings the command line left open, so a flag given on the command
//! line always wins over the preset's. Each study's published
//! figures are kept here as data, so that its report can quote them beside the ones measured on this machine; their
//! methods, and how each preset departs from them, are in `docs/prior-results.md`.

use crate::kinds::BuiltinScenario::{self, Get, Hello, Post};
use crate::kinds::BuiltinSubject::{self, Go, GoMulti, Java, JavaMulti, Node, NodeCluster, Rust};
pub use crate::kinds::Preset;
use crate::kinds::Tool;

/// A study's method: the settings its preset fills in wherever the command line left them open (the plan does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StudyMethod {
    pub tool: Tool,
    pub subjects: &'static [BuiltinSubject],
    pub scenarios: &'static [BuiltinScenario],
    pub connections: &'static [u32],
    /// Run length and memory repeats: left alone under `--quick`, so that `--preset NAME --quick` is still a quick
    /// run of that method.
    pub duration_s: u64,
    pub memory_repeats: u32,
    /// The study's load tool shared the machine with the servers (unless CPUs are given on the command line).
    pub unpinned: bool,
}

/// One figure a study published, for one subject.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// The subject it belongs to here.
    pub subject: BuiltinSubject,
    pub scenario: BuiltinScenario,
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
    /// The study's method; `None` for fairpair's own, whose settings are the defaults.
    pub fn method(self) -> Option<StudyMethod> {
        let method = |tool, subjects, scenarios, connections, duration_s, unpinned| StudyMethod {
            tool,
            subjects,
            scenarios,
            connections,
            duration_s,
            memory_repeats: 3,
            unpinned,
        };
        Some(match self {
            Preset::Fairpair => return None,
            Preset::Article => method(Tool::Autocannon, &[Node, Go, Rust], &[Get, Post], &[50, 300], 15, true),
            // The study ran 300 s per run on 8 cores; 60 s keeps three repeats of four subjects near an hour.
            Preset::Wrk => method(Tool::Wrk, &[Go, Node, GoMulti, NodeCluster], &[Hello], &[1000], 60, false),
            Preset::AbHello => method(Tool::Ab, &[Go, Node], &[Hello], &[1, 100], 15, false),
            Preset::Bombardier => method(Tool::Bombardier, &[Node, Go, Rust], &[Hello], &[50, 100, 200], 15, false),
        })
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
    pub fn departures(self, quick: bool, measured: &[BuiltinSubject]) -> Vec<&'static str> {
        let has = |subject: BuiltinSubject| measured.contains(&subject);
        let mut out = Vec::new();
        match self {
            Preset::Fairpair => return out,
            Preset::Article => {
                if has(Go) {
                    out.push("Go ran with GOMAXPROCS=1 (`--workers 1`), where the study gave Go all cores.");
                }
                if has(Rust) {
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
                if !has(GoMulti) && !has(NodeCluster) {
                    out.push("go-multi and node-cluster were skipped: the server side had fewer than 2 CPUs.");
                }
            }
            Preset::Bombardier => {
                out.push("Runs were timed, where the study sent 5 million requests.");
                // The preset's own subjects stay node, go and rust until the Java server is built everywhere the
                // preset runs; `--subjects node,java` names Spring Boot meanwhile, and the departure says which ran.
                if has(Java) || has(JavaMulti) {
                    out.push("Spring Boot ran as one JVM told the CPUs it had (`-XX:ActiveProcessorCount`), untuned.");
                } else {
                    out.push("No Spring Boot: node, go and rust instead.");
                }
                out.push("No published figure is quoted: the study gave none per connection count.");
            }
        }
        if quick {
            out.push("`--quick` replaced the study's run lengths and memory repeats with the quick run's.");
        }
        out
    }
}

const fn p(
    subject: BuiltinSubject,
    scenario: BuiltinScenario,
    connections: u32,
    metric: Metric,
    value: f64,
) -> Published {
    Published { subject, scenario, connections, metric, value }
}

// The article printed memory only; its throughput was "no winner" (Node ahead by about 5,000 requests/s on GET at 50
// connections, the rest within a few hundred).
const ARTICLE: &[Published] = &[
    p(Go, Get, 300, Metric::RssIdleMb, 13.0),
    p(Node, Get, 300, Metric::RssIdleMb, 49.0),
    p(Go, Get, 300, Metric::RssAfterLoadMb, 32.0),
    p(Node, Get, 300, Metric::RssAfterLoadMb, 84.0),
];
const WRK: &[Published] = &[
    p(Go, Hello, 1000, Metric::RequestsPerSec, 63_298.78),
    p(Node, Hello, 1000, Metric::RequestsPerSec, 42_067.40),
    p(GoMulti, Hello, 1000, Metric::RequestsPerSec, 378_829.42),
    p(NodeCluster, Hello, 1000, Metric::RequestsPerSec, 339_722.35),
];
const AB_HELLO: &[Published] = &[
    p(Go, Hello, 1, Metric::RequestsPerSec, 7_270.51),
    p(Node, Hello, 1, Metric::RequestsPerSec, 4_989.26),
    p(Go, Hello, 100, Metric::RequestsPerSec, 7_051.02),
    p(Node, Hello, 100, Metric::RequestsPerSec, 5_634.68),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The bombardier preset measures node, go and rust; a run of it that names java says Spring Boot ran instead
    /// of saying it did not.
    #[test]
    fn the_bombardier_preset_says_whether_spring_boot_ran() {
        let said = |measured: &[BuiltinSubject]| Preset::Bombardier.departures(false, measured).join(" ");
        assert!(said(&[Node, Go, Rust]).contains("No Spring Boot"));
        let with_java = said(&[Node, Java]);
        assert!(
            !with_java.contains("No Spring Boot") && with_java.contains("Spring Boot ran as one JVM"),
            "{with_java}"
        );
    }
}
