//! The tolerance table: every difference between the servers that the contract allows, as predicates over the
//! request bytes, each with the outcomes it allows. `contract/CONTRACT.md` points here; the differential fuzzer
//! (`crates/faults`, `fuzz`) is what reads it.
//!
//! The table itself is data, `contract/tolerances.json` (its fields are described in `contract/README.md`): each
//! row's name, the contract's reason, the outcomes it allows, the releases it was decided on and its examples. What
//! must be code is here: the types, each row's predicate (`predicates.rs`, keyed by the row's name) and the lenient
//! request splitter the predicates share (`split.rs`). The file is embedded at build time and read once; a mistake
//! in it stops the first use with a message that names the row. The cases of `contract/cases.json` that name a row
//! (`"tolerance": "…"`) are examples of its predicate too (a faults test checks that each predicate matches its own
//! examples and no valid seed request).
//!
//! Two kinds of entry:
//!
//! - a [`Tolerance`]: where the servers' interpretations first differ, each server's step there (an answer's status,
//!   or the connection closed or kept open with no answer) must be one of the tolerance's `refusals`, or, where
//!   `served` is true, the servers that did not refuse must agree with each other (the request "accepted per the
//!   routes"). Once a tolerated difference happened, what follows on that connection is not compared.
//! - an [`Equivalence`]: a difference the contract allows in any request (an error body left empty, a 408 before a
//!   head time limit closes, the headers `Date`, `Connection`, `Keep-Alive`), applied before comparing.
//!
//! Each row names the releases of hyper, llhttp, Go and Tomcat it was decided on (`decided_on`, see
//! [`crate::releases`]): net/http and llhttp decide several of these before any handler runs, and their decisions
//! change between releases. `scripts/fuzz --decide` sends every row's examples to the servers at hand with the table emptied and
//! says which rows those releases still need.

mod predicates;
mod split;

pub use crate::releases::DecidedOn;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

/// The table as it stood when this crate was built.
const EMBEDDED: &str = include_str!("../../../../contract/tolerances.json");

/// Where interpretations first differ, for one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// An answer with this status.
    Status(u16),
    /// No answer there: the server closed the connection.
    Closed,
    /// No answer there: the connection stayed open until a time limit closed it.
    Open,
}

impl Step {
    /// The status, or `closed` / `open`.
    pub fn word(self) -> String {
        match self {
            Step::Status(s) => s.to_string(),
            Step::Closed => "closed".to_owned(),
            Step::Open => "open".to_owned(),
        }
    }
}

/// A difference the contract allows in the requests that match a predicate: a row of the data file with its
/// predicate and the cases that name it.
#[derive(Debug, Clone, Copy)]
pub struct Tolerance {
    /// A short kebab-case name, printed when a mutant is tolerated by it.
    pub name: &'static str,
    /// Why the difference is allowed (the contract's words).
    pub reason: &'static str,
    /// Whether a request's bytes show the feature.
    pub matches: fn(&[u8]) -> bool,
    /// The outcomes any server may have whatever the others did (refusals, mostly).
    pub refusals: &'static [Step],
    /// Whether a server may serve the request instead (all servers that do not refuse answering alike).
    pub served: bool,
    /// Where the difference may begin: anywhere, or only right after an answer that every server gave alike.
    pub follows: Follows,
    /// Cases of `contract/cases.json` that are examples of this predicate (those that name it).
    pub cases: &'static [&'static str],
    /// More examples, as bytes, where no case is one.
    pub examples: &'static [Vec<u8>],
    /// The release of each stack this row was decided on.
    pub decided_on: DecidedOn,
}

/// Where a tolerated difference may begin on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Follows {
    /// At any answer, the first included: the request's bytes alone explain it.
    Anywhere,
    /// Only right after an answer with this status, which every server gave: the difference is in what a server does
    /// with its connection once it has answered so (Tomcat closes after every 400).
    Answer(u16),
}

impl Follows {
    /// Whether a difference that begins after `previous` (the status every server answered just before it, `None` at
    /// the first answer) may be this one.
    pub fn holds(self, previous: Option<u16>) -> bool {
        match self {
            Follows::Anywhere => true,
            Follows::Answer(status) => previous == Some(status),
        }
    }
}

impl Tolerance {
    /// Whether the steps of the servers (where they first differ) are what this tolerance allows.
    pub fn allows(&self, steps: &[Step]) -> bool {
        let served: Vec<Step> = steps.iter().copied().filter(|s| !self.refusals.contains(s)).collect();
        served.is_empty() || (self.served && served.windows(2).all(|w| w[0] == w[1]))
    }
}

/// Whether tolerances that all match one request allow its steps together, where no one of them does alone: a
/// request with two features (an Upgrade with a body that has not come, and a fragment in its target) may meet one
/// server's refusal of the first and another's answer to the second. Every step must be a refusal of one of them,
/// or served alike by the rest, and serving is allowed only when each of them allows it.
pub fn allow_together(rows: &[&Tolerance], steps: &[Step]) -> bool {
    if rows.len() < 2 {
        return false;
    }
    let served: Vec<Step> = steps.iter().copied().filter(|s| !rows.iter().any(|t| t.refusals.contains(s))).collect();
    served.is_empty() || (rows.iter().all(|t| t.served) && served.windows(2).all(|w| w[0] == w[1]))
}

/// The fewest of `rows` (all of which match one request) that allow `steps` together ([`allow_together`]), if any
/// do: a row that matches as well but forbids serving (an unfinished request) must not spoil two that explain it.
/// A request matches a handful of rows at most, so every subset is tried, smallest first.
pub fn allowing_together<'a>(rows: &[&'a Tolerance], steps: &[Step]) -> Option<Vec<&'a Tolerance>> {
    let rows = &rows[..rows.len().min(12)];
    let mut subsets: Vec<u32> = (0..1u32 << rows.len()).filter(|s| s.count_ones() >= 2).collect();
    subsets.sort_by_key(|s| s.count_ones());
    let pick = |s: u32| (0..rows.len()).filter(|i| s & (1 << i) != 0).map(|i| rows[i]).collect::<Vec<_>>();
    subsets.into_iter().map(pick).find(|subset| allow_together(subset, steps))
}

/// A difference the contract allows in every request, applied to each interpretation before comparing. Each is
/// code (what the comparison does with it is in `crates/faults`); its name and reason are in the data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equivalence {
    /// A 400 or 431 counts by its status alone: its body and headers are not compared.
    StackErrorBody,
    /// A connection closed by the head time limit counts the same with a 408 before the close or without.
    HeadTimeout408,
    /// `Date`, `Connection` and `Keep-Alive` are left out of the comparison.
    OtherHeaders,
}

impl Equivalence {
    /// Every equivalence, with its name in the data file.
    const NAMED: [(&str, Equivalence); 3] = [
        ("stack-error-body", Equivalence::StackErrorBody),
        ("head-timeout-408", Equivalence::HeadTimeout408),
        ("other-headers", Equivalence::OtherHeaders),
    ];

    fn named(name: &str) -> Option<Equivalence> {
        Self::NAMED.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
    }
}

/// The table: every row of `contract/tolerances.json` with its predicate and the cases that name it, in the file's
/// order.
pub static TOLERANCES: LazyLock<Vec<Tolerance>> = LazyLock::new(|| {
    let file: &'static File = &FILE;
    file.tolerances.iter().map(Row::tolerance).collect()
});

/// The equivalences, with the contract's reason for each and the `tolerated` cases of `contract/cases.json` that
/// name them (rather than a tolerance).
pub static EQUIVALENCES: LazyLock<Vec<(Equivalence, &'static str, &'static [&'static str])>> = LazyLock::new(|| {
    let file: &'static File = &FILE;
    file.equivalences.iter().map(|e| (e.equivalence, e.reason.as_str(), cited(&e.name))).collect()
});

/// The embedded file, read once. A broken file is a bug in this repository, caught by this crate's own tests.
static FILE: LazyLock<File> =
    LazyLock::new(|| parse(EMBEDDED).unwrap_or_else(|e| panic!("contract/tolerances.json is invalid: {e}")));

/// The cases of `contract/cases.json` that name each entry, by the entry's name.
static CITED: LazyLock<BTreeMap<&'static str, Vec<&'static str>>> = LazyLock::new(|| {
    let mut cited: BTreeMap<&'static str, Vec<&'static str>> = BTreeMap::new();
    for case in crate::cases() {
        if let Some(name) = &case.tolerance {
            cited.entry(name.as_str()).or_default().push(case.name.as_str());
        }
    }
    cited
});

fn cited(name: &str) -> &'static [&'static str] {
    let cited: &'static BTreeMap<&'static str, Vec<&'static str>> = &CITED;
    cited.get(name).map_or(&[], Vec::as_slice)
}

/// What the table says about an entry that a case names, for `contract/cases.json`'s checks: a tolerance's allowed
/// outcomes, or that it is an equivalence.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Entry {
    Tolerance { refusals: &'static [Step], served: bool },
    Equivalence,
}

/// The entry called `name` in the embedded table, if there is one.
pub(crate) fn entry(name: &str) -> Option<Entry> {
    let file: &'static File = &FILE;
    if let Some(row) = file.tolerances.iter().find(|r| r.name == name) {
        return Some(Entry::Tolerance { refusals: &row.refusals, served: row.served });
    }
    file.equivalences.iter().any(|e| e.name == name).then_some(Entry::Equivalence)
}

// ---- The file, as read and checked. ----

/// The file after its checks: every row valid, every name unique and known to the code.
#[derive(Debug)]
struct File {
    tolerances: Vec<Row>,
    equivalences: Vec<EquivalenceRow>,
}

/// A row of the file, read and checked: the data of a [`Tolerance`] without its predicate and cases.
#[derive(Debug)]
struct Row {
    name: String,
    reason: String,
    matches: predicates::Predicate,
    refusals: Vec<Step>,
    served: bool,
    follows: Follows,
    decided_on: Releases,
    examples: Vec<Vec<u8>>,
}

impl Row {
    /// The public view of a row of the embedded file, which lives as long as the program.
    fn tolerance(&'static self) -> Tolerance {
        let d = &self.decided_on;
        Tolerance {
            name: &self.name,
            reason: &self.reason,
            matches: self.matches,
            refusals: &self.refusals,
            served: self.served,
            follows: self.follows,
            cases: cited(&self.name),
            examples: &self.examples,
            decided_on: DecidedOn { hyper: &d.hyper, llhttp: &d.llhttp, go: &d.go, tomcat: &d.tomcat },
        }
    }
}

#[derive(Debug)]
struct EquivalenceRow {
    name: String,
    equivalence: Equivalence,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[allow(dead_code)] // For people: how to read the file.
    about: Vec<String>,
    version: u32,
    tolerances: Vec<RawRow>,
    equivalences: Vec<RawEquivalence>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    name: String,
    reason: String,
    refusals: Vec<RawStep>,
    served: bool,
    follows: Follows,
    decided_on: Releases,
    examples: Vec<RawExample>,
}

/// A step as the file writes it: a status, or `closed` / `open`.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawStep {
    Status(u16),
    Word(String),
}

/// The release of each stack, as [`DecidedOn`] names them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Releases {
    hyper: String,
    llhttp: String,
    go: String,
    tomcat: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExample {
    #[allow(dead_code)] // For people: where the example came from.
    note: Option<String>,
    bytes: crate::cases::BytesSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEquivalence {
    name: String,
    reason: String,
}

/// Parses and checks a tolerance file; the error names the entry and what is wrong with it.
fn parse(json: &str) -> Result<File, String> {
    let raw: RawFile = serde_json::from_str(json).map_err(|e| format!("not a tolerance file: {e}"))?;
    if raw.version != 1 {
        return Err(format!("version {} is not supported (this reader knows version 1)", raw.version));
    }
    let mut seen = HashSet::new();
    let names = raw.tolerances.iter().map(|r| &r.name).chain(raw.equivalences.iter().map(|e| &e.name));
    for name in names {
        if !seen.insert(name.clone()) {
            return Err(format!("{name:?}: the name is used twice"));
        }
    }
    let tolerances = raw.tolerances.into_iter().map(|r| {
        let name = r.name.clone();
        convert(r).map_err(|e| format!("tolerance {name:?}: {e}"))
    });
    let tolerances = tolerances.collect::<Result<Vec<Row>, String>>()?;
    let mut equivalences = Vec::new();
    for e in raw.equivalences {
        let Some(equivalence) = Equivalence::named(&e.name) else {
            return Err(format!("equivalence {:?}: no such equivalence in the code", e.name));
        };
        if e.reason.is_empty() {
            return Err(format!("equivalence {:?}: needs a reason", e.name));
        }
        equivalences.push(EquivalenceRow { name: e.name, equivalence, reason: e.reason });
    }
    Ok(File { tolerances, equivalences })
}

/// One row as the file has it → a checked [`Row`] with its predicate.
fn convert(raw: RawRow) -> Result<Row, String> {
    let Some(matches) = predicates::predicate(&raw.name) else {
        return Err("no predicate has this name (crates/contract/src/tolerances/predicates.rs)".to_owned());
    };
    if raw.reason.is_empty() {
        return Err("needs a reason".to_owned());
    }
    let mut refusals = Vec::new();
    for step in raw.refusals {
        let step = match step {
            RawStep::Status(s) if (100..=599).contains(&s) => Step::Status(s),
            RawStep::Status(s) => return Err(format!("refusals: {s} is not a status")),
            RawStep::Word(w) if w == "closed" => Step::Closed,
            RawStep::Word(w) if w == "open" => Step::Open,
            RawStep::Word(w) => return Err(format!("refusals: {w:?} is neither a status, \"closed\" nor \"open\"")),
        };
        if refusals.contains(&step) {
            return Err(format!("refusals: {} is there twice", step.word()));
        }
        refusals.push(step);
    }
    if refusals.is_empty() {
        return Err("needs at least one refusal".to_owned());
    }
    let d = &raw.decided_on;
    if [&d.hyper, &d.llhttp, &d.go, &d.tomcat].iter().any(|r| r.is_empty()) {
        return Err("decided_on: every stack's release is needed".to_owned());
    }
    let examples = raw.examples.into_iter().map(|e| crate::cases::expand(e.bytes));
    let examples = examples.collect::<Result<Vec<Vec<u8>>, String>>().map_err(|e| format!("examples: {e}"))?;
    Ok(Row {
        name: raw.name,
        reason: raw.reason,
        matches,
        refusals,
        served: raw.served,
        follows: raw.follows,
        decided_on: raw.decided_on,
        examples,
    })
}

#[cfg(test)]
mod tests;
