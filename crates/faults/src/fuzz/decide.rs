//! Re-deciding the tolerance table on the releases at hand (`fuzz --decide`): every tolerance's examples (its cases
//! of `contract/cases.json` and its own bytes) go to every server, and their interpretations are compared with the
//! table emptied. A tolerance whose every example the servers now answer alike is no longer needed by these
//! releases: its row can go, and its cases can become exact. One that still shows a difference is needed, and the
//! comparison with the whole table says whether the row still allows what the servers do.
//!
//! Run it when a stack moves to a new release (a new Go, Node's llhttp, hyper); the fuzzer then finds what no
//! example shows.

use super::interpret::{self, Comparison};
use super::mutate::Mutant;
use super::{Table, finding};
use contract::tolerances::{TOLERANCES, Tolerance};
use std::net::SocketAddr;

/// One example of a tolerance, as the servers answered it.
#[derive(Debug, Clone)]
pub struct Example {
    /// The case's name, or the example's bytes shown.
    pub label: String,
    /// With the table emptied: `None` when the servers agree, or each server's step where they first differ.
    pub differs: Option<String>,
    /// Whether the whole table allows what the servers did (or there was nothing to allow).
    pub allowed: bool,
}

/// One tolerance and its examples.
#[derive(Debug, Clone)]
pub struct Decision {
    pub name: &'static str,
    pub examples: Vec<Example>,
}

impl Decision {
    /// Whether some example still shows a difference between the servers.
    pub fn needed(&self) -> bool {
        self.examples.iter().any(|e| e.differs.is_some())
    }

    /// Whether the contract's table allows what the servers did with every example.
    pub fn allows(&self) -> bool {
        self.examples.iter().all(|e| e.allowed)
    }

    /// The decision in one line: needed or not, and each example's step where the servers differ.
    pub fn line(&self) -> String {
        let verdict = match (self.needed(), self.allows()) {
            (false, _) => "not needed by these releases: every example is answered alike",
            (true, true) => "needed, and allows what the servers do",
            (true, false) => "needed, but does NOT allow what the servers do now",
        };
        let shown: Vec<String> =
            self.examples.iter().map(|e| format!("{}: {}", e.label, e.differs.as_deref().unwrap_or("alike"))).collect();
        format!("{}: {verdict} ({})", self.name, shown.join("; "))
    }
}

/// Decides every tolerance of the contract's table against the servers at `addrs` (the first is the reference).
pub fn decide(addrs: &[(String, SocketAddr)]) -> Vec<Decision> {
    let cases = contract::cases();
    TOLERANCES
        .iter()
        .map(|t| {
            let mut inputs: Vec<(String, Vec<u8>)> = t
                .cases
                .iter()
                .filter_map(|name| cases.iter().find(|c| c.name == *name))
                .map(|c| (c.name.clone(), c.request_bytes()))
                .collect();
            inputs.extend(t.examples.iter().map(|b| (contract::show(b), b.to_vec())));
            let examples = inputs.into_iter().map(|(label, bytes)| example(addrs, t, label, bytes)).collect();
            Decision { name: t.name, examples }
        })
        .collect()
}

/// Sends one example to every server at once (as the fuzzer sends a mutant), judges the answers with the contract's
/// table, then compares the same answers with the table emptied.
fn example(addrs: &[(String, SocketAddr)], t: &Tolerance, label: String, bytes: Vec<u8>) -> Example {
    let mutant = Mutant { n: 0, seed: t.name.to_owned(), bytes, splits: Vec::new() };
    let (problem, interps) = finding::check(addrs, &mutant, &Table::contract());
    let requests = super::framing::requests(&mutant.bytes);
    let names: Vec<&str> = addrs.iter().map(|(n, _)| n.as_str()).collect();
    let differs = match interpret::compare(&mutant.bytes, requests.tail, &names, &interps, &Table::emptied()) {
        Comparison::Divergent { class, .. } => Some(class),
        Comparison::Same | Comparison::Tolerated(_) => None,
    };
    Example { label, differs, allowed: problem.is_none() }
}
