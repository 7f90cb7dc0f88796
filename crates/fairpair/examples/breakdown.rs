//! Prints a folded profile's parts, as the rules of a language sort it, with the frames that most need a rule or a
//! symbol: for tuning `src/profile/rules/*.tsv` on a new recording.
//!
//! `cargo run --example breakdown -- LANGUAGE < x.folded` (LANGUAGE: rust, javascript, go, java, or none for the
//! shared rules alone).

use std::io::{self, Read};

use std::collections::BTreeMap;

use fairpair::profile::parts::{Language, Leaves, Part, Rules, breakdown, folded_line, top_leaves};

fn main() -> io::Result<()> {
    let language = match std::env::args().nth(1).as_deref() {
        Some("rust") => Some(Language::Rust),
        Some("javascript") => Some(Language::JavaScript),
        Some("go") => Some(Language::Go),
        Some("java") => Some(Language::Java),
        Some("none") => None,
        other => return Err(io::Error::other(format!("LANGUAGE: rust, javascript, go, java or none, not {other:?}"))),
    };
    let mut folded = String::new();
    io::stdin().read_to_string(&mut folded)?;
    let rules = Rules::of(language);
    let b = breakdown(&folded, &rules);
    println!("samples {}, resolved {} ({:.1} %)", b.samples, b.resolved, 100.0 * b.resolved_share());
    for part in Part::ALL {
        println!("  {:<24} {:>7} {:>6.1} %", part.label(), b.parts.get(&part).unwrap_or(&0), 100.0 * b.share(part));
    }
    // Which rules decided how many samples: a rule that decides too much, or the wrong part, shows here.
    let mut by_rule: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (frames, count) in folded.lines().filter_map(folded_line) {
        if let (part, Some(rule)) = rules.decide(&frames) {
            *by_rule.entry((part.key().to_string(), rule.pattern.clone())).or_default() += count;
        }
    }
    let mut by_rule: Vec<_> = by_rule.into_iter().collect();
    by_rule.sort_by_key(|rule| std::cmp::Reverse(rule.1));
    println!("samples by rule:");
    for ((part, pattern), n) in by_rule.iter().take(40) {
        println!("  {n:>6} {part:<8} {pattern}");
    }
    for (title, which) in [("other, nearest named frame", Leaves::Other), ("unresolved leaves", Leaves::Unresolved)] {
        println!("{title}:");
        for (frame, n) in top_leaves(&folded, &rules, which, 25) {
            println!("  {n:>6} {frame}");
        }
    }
    Ok(())
}
