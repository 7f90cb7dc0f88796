//! The article's checklist, answered by the run: build both versions, load them at your real concurrency with
//! writes included, give Node `cluster` first, measure memory apart from latency, rerun every surprising figure on
//! a quiet machine. Each answer says whether this run did it, and what its figures say.

use crate::plan::names::BuiltinSubject;
use crate::schema::Benchmark;
use crate::text::count;

/// One item: what the article asks, and what this run did.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub ask: &'static str,
    pub answer: String,
}

pub fn checklist(b: &Benchmark) -> Vec<Item> {
    let measured = |name: &str| crate::report::measured(b, name);
    let built: Vec<&str> =
        b.subjects.iter().filter(|s| !s.get_only && measured(&s.name)).map(|s| s.name.as_str()).collect();
    let conns: Vec<String> = b.settings.connections.iter().map(u32::to_string).collect();
    let posts = b.scenarios.iter().filter(|s| s.method == "POST").map(|s| s.name.as_str()).collect::<Vec<_>>();
    let (node, node_cluster) = (BuiltinSubject::Node.name(), BuiltinSubject::NodeCluster.name());
    let cluster = if !measured(node) && !measured(node_cluster) {
        "no Node subject in this run: nothing to cluster".to_string()
    } else if measured(node_cluster) {
        "yes: `node-cluster` measured".to_string()
    } else if b.settings.server_cpus.len() < 2 {
        "no: it needs a machine with more server CPUs (this run had one)".to_string()
    } else {
        "no: `node-cluster` not measured, though the server side had the CPUs".to_string()
    };
    let memory = match b.memory_summaries.len() {
        0 => "no: no memory phase in this run".to_string(),
        n => format!(
            "yes: {} measured in its own phase (fresh processes, idle and after load)",
            count(n as u64, "subject")
        ),
    };
    vec![
        Item {
            ask: "Build both versions",
            answer: match built.len() {
                0 | 1 => format!("no: {} implements the API", if built.is_empty() { "no subject" } else { built[0] }),
                _ => format!("yes: {}", built.join(", ")),
            },
        },
        Item {
            ask: "Load them at your real concurrency",
            answer: format!("{} connections (the run cannot know yours: compare them with it)", conns.join(", ")),
        },
        Item {
            ask: "With writes included",
            answer: if posts.is_empty() {
                "no: no POST measured".into()
            } else {
                format!("yes: POST ({})", posts.join(", "))
            },
        },
        Item { ask: "Give Node `cluster` first", answer: cluster },
        Item { ask: "Measure memory apart from latency", answer: memory },
        Item { ask: "Rerun every surprising figure on a quiet machine", answer: reruns(b) },
    ]
}

/// What the harness reran or left out: closed-loop runs left out (a busy machine, an unexpected status), capacity
/// windows disturbed and run again, steps begun on a busy machine.
fn reruns(b: &Benchmark) -> String {
    let left_out = b.runs.iter().filter(|r| r.left_out.is_some()).count() as u64;
    let steps = || b.capacity.iter().flat_map(|c| c.searches.iter().chain(&c.loader_limit)).flat_map(|s| &s.steps);
    let disturbed = steps().filter(|s| !s.counts()).count() as u64;
    let busy = steps().filter(|s| !s.result.machine_idle).count() as u64;
    if left_out + disturbed + busy == 0 {
        return "nothing to rerun: no run left out, no window disturbed, no step on a busy machine".into();
    }
    let parts: Vec<String> = [
        (left_out, "closed-loop run", "left out (rerun in its place when clean)"),
        (disturbed, "disturbed capacity window", "run again"),
        (busy, "capacity step", "begun on a busy machine (no sizing is drawn from those)"),
    ]
    .into_iter()
    .filter(|(n, ..)| *n > 0)
    .map(|(n, noun, what)| format!("{} {what}", count(n, noun)))
    .collect();
    format!("the harness reran or marked {}", parts.join(", "))
}
