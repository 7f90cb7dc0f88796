//! A profile's samples, sorted into named parts by the frames of their stacks.
//!
//! A sample is one folded stack line (`frame;frame;…;leaf COUNT`, as `inferno`'s perf collapser writes it, with
//! kernel frames annotated `_[k]` and JIT frames `_[j]`). Which part it belongs to is decided by the rule table of
//! its language (`rules/*.tsv`), so that the rules are data a reader can check, and tested on recorded stacks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The named parts of a request's CPU time, the same for every stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The network stack and system calls.
    Kernel,
    /// Parsing requests and writing responses.
    Http,
    /// Reading and writing JSON bodies.
    Json,
    /// Routing and the application's own code (the store).
    App,
    /// The garbage collector or the allocator.
    Memory,
    /// The runtime: scheduler, event loop, JIT compiler, interpreter.
    Runtime,
    /// Everything no rule names.
    Other,
}

impl Part {
    /// Every part, in the order tables print them.
    pub const ALL: [Part; 7] =
        [Part::Kernel, Part::Http, Part::Json, Part::App, Part::Memory, Part::Runtime, Part::Other];

    /// Its name in a table's heading.
    pub fn label(self) -> &'static str {
        match self {
            Part::Kernel => "kernel",
            Part::Http => "HTTP",
            Part::Json => "JSON",
            Part::App => "routing and app",
            Part::Memory => "memory (GC, allocator)",
            Part::Runtime => "runtime and JIT",
            Part::Other => "other",
        }
    }
}

/// The language whose rule table sorts a subject's stacks. A subject of unknown language (`--subject`) gets only
/// the rules every table shares (the kernel's frames, the C library's allocator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Rust,
    JavaScript,
    Go,
    Java,
}

/// One language's rules, parsed from its table.
#[derive(Clone, Debug, Default)]
pub struct Rules {}

impl Rules {
    /// The rules for a language, or the shared ones alone for `None`.
    pub fn of(_language: Option<Language>) -> Rules {
        Rules {}
    }
}

/// A profile's samples by part, and how many of them resolved to named functions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Every sample of the profile.
    pub samples: u64,
    /// The samples whose leaf frame is a named function (not a bare address or `[unknown]`).
    pub resolved: u64,
    /// Samples per part; the counts add up to `samples`.
    pub parts: BTreeMap<Part, u64>,
}

/// Sorts a folded profile's samples into parts.
pub fn breakdown(folded: &str, _rules: &Rules) -> Breakdown {
    let samples =
        folded.lines().filter_map(|l| l.rsplit_once(' ')).filter_map(|(_, n)| n.trim().parse::<u64>().ok()).sum();
    Breakdown { samples, resolved: 0, parts: BTreeMap::from([(Part::Other, samples)]) }
}
