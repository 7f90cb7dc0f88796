//! A profile's samples, sorted into named parts by the frames of their stacks.
//!
//! A sample is one folded stack line (`comm;frame;…;leaf COUNT`, as `inferno`'s perf collapser writes it, with
//! kernel frames annotated `_[k]` and JIT frames `_[j]`). Which part it belongs to is decided by the rule table of
//! its language (`rules/*.tsv`), so that the rules are data a reader can check, and tested on recorded stacks.
//!
//! How a stack is decided, in this order:
//!
//! 1. A `thread` rule on the stack's first frame, the thread's name: a thread that does one job only (a JVM's
//!    compiler or garbage collector) is that job whole, whatever it calls, the kernel included.
//! 2. Otherwise the frame nearest the leaf that some rule matches decides: a `malloc` called from the JSON encoder is
//!    memory, the JSON encoder called from the HTTP writer is JSON, a system call made by the HTTP writer is the
//!    kernel's. Frames no rule names (`memcpy`, an unresolved address) pass the question to their caller.
//!    A `pass` rule names such a frame explicitly, where a broader rule would otherwise claim it (Go's
//!    `runtime.mapaccess…` under `runtime.`).
//! 3. A stack no rule matches is `Other`.
//!
//! Within one frame the first matching rule wins, the language's table before the shared one (`rules/shared.tsv`),
//! so that a language can claim a frame the shared table would sort otherwise.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

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

    /// Its name in a rule table's first column.
    pub fn key(self) -> &'static str {
        match self {
            Part::Kernel => "kernel",
            Part::Http => "http",
            Part::Json => "json",
            Part::App => "app",
            Part::Memory => "memory",
            Part::Runtime => "runtime",
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

impl Language {
    /// Every language with a table of its own.
    pub const ALL: [Language; 4] = [Language::Rust, Language::JavaScript, Language::Go, Language::Java];

    /// Its table's file name under `rules/`, and the table.
    pub fn table(self) -> (&'static str, &'static str) {
        match self {
            Language::Rust => ("rust.tsv", include_str!("rules/rust.tsv")),
            Language::JavaScript => ("javascript.tsv", include_str!("rules/javascript.tsv")),
            Language::Go => ("go.tsv", include_str!("rules/go.tsv")),
            Language::Java => ("java.tsv", include_str!("rules/java.tsv")),
        }
    }
}

/// The table every language's rules end with.
pub const SHARED_TABLE: (&str, &str) = ("shared.tsv", include_str!("rules/shared.tsv"));

/// How a rule's pattern is compared with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// The stack's first frame, the thread's name, starts with the pattern.
    Thread,
    /// A frame is a kernel frame (`_[k]`); the pattern is `*`.
    Kernel,
    /// A frame's name (without `inferno`'s `_[k]`, `_[j]`, `_[i]` marks) is the pattern.
    Exact,
    /// A frame's name starts with the pattern.
    Prefix,
    /// A frame's name contains the pattern.
    Contains,
}

impl Match {
    fn parse(word: &str) -> Option<Match> {
        Some(match word {
            "thread" => Match::Thread,
            "kernel" => Match::Kernel,
            "exact" => Match::Exact,
            "prefix" => Match::Prefix,
            "contains" => Match::Contains,
            _ => return None,
        })
    }
}

/// One line of a rule table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The part of the stacks it decides, or `None` for a `pass` rule: the frame decides nothing (a runtime's helper
    /// that the compiler calls for the program's own maps and copies), and its caller is asked instead.
    pub part: Option<Part>,
    pub kind: Match,
    pub pattern: String,
    /// Why the frame belongs to the part, for the reader of the table.
    pub why: String,
    /// Where it was read: the table's name and the line's number, from 1.
    pub source: (String, usize),
}

impl Rule {
    /// Whether the rule matches a stack's frame, as folded (`tcp_sendmsg_[k]`); a `thread` rule matches the thread's
    /// name, the stack's first frame, only.
    pub fn matches(&self, frame: &str, is_thread: bool) -> bool {
        match self.kind {
            Match::Thread => is_thread && frame.starts_with(&self.pattern),
            _ => !is_thread && self.matches_frame(&Frame::of(frame)),
        }
    }

    fn matches_frame(&self, frame: &Frame) -> bool {
        match self.kind {
            Match::Thread => false,
            Match::Kernel => frame.kernel,
            Match::Exact => frame.name == self.pattern,
            Match::Prefix => frame.name.starts_with(&self.pattern),
            Match::Contains => frame.name.contains(&self.pattern),
        }
    }
}

/// A table that does not parse: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub table: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}: {}", self.table, self.line, self.message)
    }
}

impl std::error::Error for RuleError {}

/// One language's rules, parsed from its table.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    /// Every rule, in the order they are tried on a frame: the language's, then the shared ones.
    pub rules: Vec<Rule>,
}

impl Rules {
    /// The rules for a language, or the shared ones alone for `None`.
    pub fn of(language: Option<Language>) -> Rules {
        let mut tables = Vec::new();
        tables.extend(language.map(Language::table));
        tables.push(SHARED_TABLE);
        let mut rules = Rules::default();
        for (name, text) in tables {
            // The tables are the crate's own, and a test parses every one: a failure here is a bug of the build.
            let table = Rules::parse(name, text).unwrap_or_else(|e| panic!("a shipped rule table: {e}"));
            rules.rules.extend(table.rules);
        }
        rules
    }

    /// Reads a table: one rule a line, `part<TAB>match<TAB>pattern<TAB>why`, `#` comments and blank lines skipped
    /// (`rules/shared.tsv`'s header says it in full).
    /// `name` says which table in the errors.
    pub fn parse(name: &str, text: &str) -> Result<Rules, RuleError> {
        let mut rules = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let error = |message: String| RuleError { table: name.to_string(), line: index + 1, message };
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let [part, kind, pattern, why] = fields[..] else {
                return Err(error(format!(
                    "{} tab-separated fields, not the 4 of `part<TAB>match<TAB>pattern<TAB>why`: {line:?}",
                    fields.len()
                )));
            };
            let part = match part {
                "pass" => None,
                _ => Some(Part::ALL.into_iter().find(|p| p.key() == part).ok_or_else(|| {
                    let keys: Vec<&str> = Part::ALL.iter().map(|p| p.key()).collect();
                    error(format!("unknown part {part:?}; the parts are {} (or pass)", keys.join(", ")))
                })?),
            };
            let kind = Match::parse(kind).ok_or_else(|| {
                error(format!("unknown match {kind:?}; the matches are thread, kernel, exact, prefix, contains"))
            })?;
            if pattern.is_empty() || pattern != pattern.trim() {
                return Err(error(format!("the pattern {pattern:?} is empty or has spaces at an end")));
            }
            if (kind == Match::Kernel) != (pattern == "*") {
                return Err(error("`kernel` takes the pattern `*`, and only it does".to_string()));
            }
            if why.trim().is_empty() {
                return Err(error("the rule does not say why (the fourth field is empty)".to_string()));
            }
            if kind == Match::Thread && part.is_none() {
                return Err(error("a `thread` rule must name a part: a thread cannot pass".to_string()));
            }
            let source = (name.to_string(), index + 1);
            rules.push(Rule { part, kind, pattern: pattern.to_string(), why: why.to_string(), source });
        }
        Ok(Rules { rules })
    }

    /// Which part a stack (its frames from the thread's name to the leaf) belongs to, and by which rule.
    pub fn decide(&self, frames: &[&str]) -> (Part, Option<&Rule>) {
        if let Some(thread) = frames.first()
            && let Some(rule) = self.rules.iter().find(|r| r.kind == Match::Thread && thread.starts_with(&r.pattern))
            && let Some(part) = rule.part
        {
            return (part, Some(rule));
        }
        // The thread's name is no function: only the frames after it are matched.
        for raw in frames.iter().skip(1).rev() {
            let frame = Frame::of(raw);
            if let Some(rule) = self.rules.iter().find(|r| r.matches_frame(&frame))
                && let Some(part) = rule.part
            {
                return (part, Some(rule));
            }
        }
        (Part::Other, None)
    }
}

/// A folded frame, its annotation read.
struct Frame<'a> {
    name: &'a str,
    kernel: bool,
}

impl Frame<'_> {
    fn of(raw: &str) -> Frame<'_> {
        for (mark, kernel) in [("_[k]", true), ("_[j]", false), ("_[i]", false)] {
            if let Some(name) = raw.strip_suffix(mark) {
                return Frame { name, kernel };
            }
        }
        Frame { name: raw, kernel: false }
    }

    /// Whether the frame names a function: not `[unknown]`, not `[libc.so.6]` (a library without symbols), not a bare
    /// address.
    fn resolved(&self) -> bool {
        let bracketed = self.name.starts_with('[') && self.name.ends_with(']');
        // `add` or `face` is a hex number too: without `0x`, only a long run of hex digits is taken for an address.
        let all_hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
        let address = self.name.strip_prefix("0x").is_some_and(all_hex) || (self.name.len() >= 8 && all_hex(self.name));
        !(bracketed || address || self.name.trim().is_empty())
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

impl Breakdown {
    /// A part's share of the samples, 0 to 1 (0 for an empty profile).
    pub fn share(&self, part: Part) -> f64 {
        ratio(self.parts.get(&part).copied().unwrap_or(0), self.samples)
    }

    /// The share of the samples whose leaf resolved, 0 to 1.
    pub fn resolved_share(&self) -> f64 {
        ratio(self.resolved, self.samples)
    }
}

fn ratio(n: u64, of: u64) -> f64 {
    if of == 0 { 0.0 } else { n as f64 / of as f64 }
}

/// A folded line's frames (the thread's name first) and its count; `None` for a line that is not one.
pub fn folded_line(line: &str) -> Option<(Vec<&str>, u64)> {
    let (stack, count) = line.trim_end().rsplit_once(' ')?;
    let count = count.parse().ok()?;
    let frames: Vec<&str> = stack.split(';').collect();
    Some((frames, count))
}

/// Sorts a folded profile's samples into parts. Lines that are not `stack COUNT` are skipped.
pub fn breakdown(folded: &str, rules: &Rules) -> Breakdown {
    let mut out = Breakdown::default();
    for (frames, count) in folded.lines().filter_map(folded_line) {
        out.samples += count;
        // A stack of the thread's name alone has no leaf to resolve.
        if frames.len() > 1 && frames.last().is_some_and(|leaf| Frame::of(leaf).resolved()) {
            out.resolved += count;
        }
        *out.parts.entry(rules.decide(&frames).0).or_default() += count;
    }
    out
}

/// Which leaves [`top_leaves`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaves {
    /// The leaves that name no function: where symbols are missing.
    Unresolved,
    /// The nearest named frame to the leaf of each stack no rule sorted: where a rule is missing.
    Other,
}

/// The `n` commonest leaves of one kind, with their samples, commonest first: what a report shows under a table
/// whose resolved share is low or whose `Other` is large.
pub fn top_leaves(folded: &str, rules: &Rules, which: Leaves, n: usize) -> Vec<(String, u64)> {
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for (frames, count) in folded.lines().filter_map(folded_line) {
        let leaf = match which {
            Leaves::Unresolved => frames.last().copied().filter(|leaf| !Frame::of(leaf).resolved()),
            Leaves::Other if rules.decide(&frames).0 == Part::Other => {
                frames.iter().skip(1).rev().find(|f| Frame::of(f).resolved()).or(frames.last()).copied()
            }
            Leaves::Other => None,
        };
        if let Some(leaf) = leaf {
            *counts.entry(leaf).or_default() += count;
        }
    }
    let mut top: Vec<(String, u64)> = counts.into_iter().map(|(f, c)| (f.to_string(), c)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(n);
    top
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "# a test table\n\
        json\tprefix\tserde_json::\tthe JSON crate\n\
        http\tprefix\thyper::\tthe HTTP crate\n\
        runtime\tthread\tGC_Thread\ta collector's thread\n";

    fn rules() -> Rules {
        let mut rules = Rules::parse("test.tsv", TABLE).unwrap();
        rules.rules.extend(Rules::of(None).rules);
        rules
    }

    #[test]
    fn the_frame_nearest_the_leaf_that_a_rule_names_decides() {
        let folded = "srv;main;hyper::write;serde_json::to_vec;malloc 3\n\
            srv;main;hyper::write;serde_json::to_vec;memcpy 2\n\
            srv;main;hyper::write;__writev;do_syscall_64_[k] 5\n\
            srv;main;[unknown] 1\n\
            GC_Thread#0;collect;page_fault_[k] 4\n\
            not a folded line\n";
        let b = breakdown(folded, &rules());
        assert_eq!(b.samples, 15);
        assert_eq!(b.resolved, 14);
        let want = BTreeMap::from([
            (Part::Memory, 3),
            (Part::Json, 2),
            (Part::Kernel, 5),
            (Part::Other, 1),
            (Part::Runtime, 4),
        ]);
        assert_eq!(b.parts, want);
        assert_eq!(b.share(Part::Kernel), 5.0 / 15.0);
        assert_eq!(top_leaves(folded, &rules(), Leaves::Other, 5), vec![("main".to_string(), 1)]);
        assert_eq!(top_leaves(folded, &rules(), Leaves::Unresolved, 5), vec![("[unknown]".to_string(), 1)]);
    }

    #[test]
    fn a_pass_rule_hands_its_frame_to_the_caller() {
        let table = "pass\tprefix\truntime.map\ta map's lookup\nruntime\tprefix\truntime.\tthe runtime\n\
            http\tprefix\tnet/http.\tthe HTTP server\n";
        let rules = Rules::parse("go-test.tsv", table).unwrap();
        let frames = ["srv", "runtime.goexit", "net/http.Header.Get", "runtime.mapaccess1_faststr"];
        let (part, rule) = rules.decide(&frames);
        assert_eq!((part, rule.map(|r| r.source.1)), (Part::Http, Some(3)));
        assert_eq!(rules.decide(&["srv", "runtime.mapaccess1"]), (Part::Other, None));
    }

    #[test]
    fn leaves_without_a_name_are_unresolved() {
        for name in ["[unknown]", "[libc.so.6]", "0x7f00aa", "7f00aa12", "[unknown]_[k]", " "] {
            assert!(!Frame::of(name).resolved(), "{name}");
        }
        for name in ["malloc", "JS:*get file:///x.js:1:1_[j]", "tcp_sendmsg_[k]", "add"] {
            assert!(Frame::of(name).resolved(), "{name}");
        }
    }
}
