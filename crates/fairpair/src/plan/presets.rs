//! Presets: one command per published study that fairpair grew out of (`fairpair run --preset NAME`).
//!
//! A preset only sets defaults: it fills in the settings the command line left open, so a flag given on the command
//! line always wins over the preset's. Each study's published
//! figures are kept here as data, so that its report can quote them beside the ones measured on this machine; their
//! methods, and how each preset departs from them, are in `docs/prior-results.md`.

use crate::plan::names::BuiltinScenario::{self, Get, Hello, Post};
use crate::plan::names::BuiltinSubject::{self, Go, GoMulti, Java, JavaMulti, Node, NodeCluster, Rust};
pub use crate::plan::names::Preset;
use crate::plan::names::Tool;

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
    /// The connections of the load before the after-load memory sample: those of the study's figure.
    pub memory_connections: u32,
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

/// One finding of a study, put as the order of two subjects on one figure: `above`'s was higher than `below`'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finding {
    pub figure: Figure,
    pub above: BuiltinSubject,
    pub below: BuiltinSubject,
    pub scenario: BuiltinScenario,
    /// The cell's connection count; memory is measured apart from the cells, so its finding has none.
    pub connections: Option<u32>,
    /// The study's figures behind the finding, as it gave them.
    pub study: &'static str,
}

/// The figure a finding orders two subjects by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    RequestsPerSec,
    /// The server's CPU time per request: a share of a core compares nothing when servers are pinned alike.
    CpuPerRequest,
    /// Resident memory right after the load.
    RssAfterLoad,
    MeanLatency,
    MaxLatency,
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
            memory_connections: 300,
            unpinned,
        };
        Some(match self {
            Preset::Fairpair => return None,
            Preset::Article => method(Tool::Autocannon, &[Node, Go, Rust], &[Get, Post], &[50, 300], 15, true),
            // The study ran 300 s per run on 8 cores; 60 s keeps three repeats of four subjects near an hour.
            Preset::Wrk => method(Tool::Wrk, &[Go, Node, GoMulti, NodeCluster], &[Hello], &[1000], 60, false),
            Preset::AbHello => method(Tool::Ab, &[Go, Node], &[Hello], &[1, 100], 15, false),
            // Its CPU and memory figures were taken at 200 connections.
            Preset::Bombardier => StudyMethod {
                memory_connections: 200,
                ..method(Tool::Bombardier, &[Node, Java], &[Hello], &[50, 100, 200], 15, false)
            },
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

    /// What the study found, as the order of two subjects on one figure, for the report to check against this run's
    /// (its "Did the study's shape hold?" table). Empty for a study that published figures only.
    pub fn findings(self) -> &'static [Finding] {
        match self {
            Preset::Bombardier => BOMBARDIER,
            Preset::Fairpair | Preset::Article | Preset::Wrk | Preset::AbHello => &[],
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
                // `--subjects` may leave java out (no JDK, say); the study is then only half reproduced.
                if has(Java) || has(JavaMulti) {
                    out.push("Spring Boot ran as one JVM told the CPUs it had (`-XX:ActiveProcessorCount`), untuned.");
                } else {
                    out.push("No Spring Boot: the java subject did not run.");
                }
                out.push(
                    "CPU is compared per request, where the study gave each server's share of a core: here every \
                     server is pinned to the same CPUs.",
                );
                out.push("The study gave no requests/s per connection count, only which server led: that is checked.");
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

// The study gave its figures as a chart and prose: which server led at each connection count, and the CPU, memory
// and latency at 200 connections.
const BOMBARDIER: &[Finding] = &[
    f(Figure::RequestsPerSec, Node, Java, Some(50), "Node ahead (no figure per connection count)"),
    f(Figure::RequestsPerSec, Node, Java, Some(100), "Node ahead (no figure per connection count)"),
    f(Figure::RequestsPerSec, Node, Java, Some(200), "Node ahead (no figure per connection count)"),
    f(Figure::CpuPerRequest, Java, Node, Some(200), "Spring ~190 % of a core, Node 95 %: about 2×"),
    f(Figure::RssAfterLoad, Java, Node, None, "Spring 470 MB, Node 82 MB at 200 connections: about 5.7×"),
    f(Figure::MeanLatency, Node, Java, Some(200), "Spring 0.6 ms, Node 2.5 ms: Spring lower"),
    f(Figure::MaxLatency, Java, Node, Some(200), "Spring's reached seconds, Node's 123 ms"),
];

const fn f(
    figure: Figure,
    above: BuiltinSubject,
    below: BuiltinSubject,
    connections: Option<u32>,
    study: &'static str,
) -> Finding {
    Finding { figure, above, below, scenario: Hello, connections, study }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bombardier preset measures the study's two servers, node and java; a run of it without java says Spring
    /// Boot did not run instead of saying how it ran.
    #[test]
    fn the_bombardier_preset_says_whether_spring_boot_ran() {
        assert_eq!(Preset::Bombardier.method().unwrap().subjects, [Node, Java]);
        let said = |measured: &[BuiltinSubject]| Preset::Bombardier.departures(false, measured).join(" ");
        let with_java = said(&[Node, Java]);
        assert!(
            !with_java.contains("No Spring Boot") && with_java.contains("Spring Boot ran as one JVM"),
            "{with_java}"
        );
        let without = said(&[Node, Go]);
        assert!(without.contains("No Spring Boot") && !without.contains("Spring Boot ran as"), "{without}");
    }

    /// Every finding orders the study's own two subjects, on a connection count the preset runs.
    #[test]
    fn the_bombardier_findings_are_about_what_the_preset_measures() {
        let m = Preset::Bombardier.method().unwrap();
        for f in Preset::Bombardier.findings() {
            assert!(m.subjects.contains(&f.above) && m.subjects.contains(&f.below) && f.above != f.below, "{f:?}");
            assert!(f.connections.is_none_or(|c| m.connections.contains(&c)) && m.scenarios.contains(&f.scenario));
        }
        assert!(Preset::Article.findings().is_empty());
    }
}
