//! Keeps a folded profile small enough to commit as a test fixture: reads folded lines (`stack COUNT`) on stdin and
//! writes the heaviest stacks on stdout, heaviest first, until the next one would pass the size limit.
//!
//! Before that, each stack's kernel frames (`_[k]`, always the leaf end of a stack) are cut to the outermost (the
//! system call's or the interrupt's entry) and the leaf, and the stacks that become the same are merged: the rules
//! ask only whether a frame is the kernel's, and the network stack's twenty frames would otherwise leave room for
//! few stacks.
//!
//! Given a language, it first keeps, for each rule of that language's table that decides some stack (or passes one
//! of its frames on), the shortest such stack, so that the fixture still shows every rule the recording exercised (the test of the tables asks that
//! of every rule), and fills the rest heaviest first.
//!
//! `cargo run --example trim-folded -- [MAX_BYTES [LANGUAGE]] < big.folded > fixture.folded` (MAX_BYTES: 60000 when
//! not given; LANGUAGE: rust, javascript, go, java).
//! It prints on stderr how many samples of how many it kept, for the fixture's provenance.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use fairpair::profile::parts::{Language, Rules};

fn main() -> io::Result<()> {
    let max_bytes: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse().map_err(|_| io::Error::other(format!("MAX_BYTES: not a number: {arg:?}")))?,
        None => 60_000,
    };
    let mut input = String::new();
    io::stdin().read_to_string(&mut input)?;
    // A line that is not `stack COUNT` is kept out: a fixture holds stacks only.
    let mut merged: HashMap<String, u64> = HashMap::new();
    for (stack, count) in input.lines().filter_map(|line| line.rsplit_once(' ')) {
        let Ok(count) = count.trim().parse::<u64>() else { continue };
        *merged.entry(cut_kernel(stack)).or_default() += count;
    }
    let mut stacks: Vec<(&str, u64)> = merged.iter().map(|(s, c)| (s.as_str(), *c)).collect();
    stacks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total: u64 = stacks.iter().map(|s| s.1).sum();
    let language = match std::env::args().nth(2).as_deref() {
        None => None,
        Some("rust") => Some(Language::Rust),
        Some("javascript") => Some(Language::JavaScript),
        Some("go") => Some(Language::Go),
        Some("java") => Some(Language::Java),
        Some(other) => return Err(io::Error::other(format!("LANGUAGE: rust, javascript, go or java, not {other:?}"))),
    };
    let mut order: Vec<usize> = match language {
        Some(language) => shortest_by_rule(&stacks, &Rules::of(Some(language))),
        None => Vec::new(),
    };
    order.extend(0..stacks.len());
    let mut taken = vec![false; stacks.len()];
    let (mut bytes, mut kept, mut lines) = (0, 0, 0);
    let mut out = Vec::new();
    for index in order {
        let (stack, count) = stacks[index];
        let line = format!("{stack} {count}\n");
        if taken[index] || bytes + line.len() > max_bytes {
            continue;
        }
        taken[index] = true;
        out.push((count, line.clone()));
        (bytes, kept, lines) = (bytes + line.len(), kept + count, lines + 1);
    }
    // Heaviest first in the file too, whatever the order they were chosen in.
    out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut stdout = io::stdout().lock();
    for (_, line) in out {
        stdout.write_all(line.as_bytes())?;
    }
    eprintln!("kept {kept} of {total} samples in {lines} of {} stacks, {bytes} bytes", stacks.len());
    Ok(())
}

/// The stack with its kernel frames cut to the outermost and the leaf.
fn cut_kernel(stack: &str) -> String {
    let frames: Vec<&str> = stack.split(';').collect();
    match frames.iter().position(|f| f.ends_with("_[k]")) {
        Some(first) if first + 1 < frames.len() - 1 => {
            let mut kept = frames[..=first].to_vec();
            kept.push(frames[frames.len() - 1]);
            kept.join(";")
        }
        _ => stack.to_string(),
    }
}

/// For each rule that decides some stack (or, for a `pass` rule, passes one of its frames on), the index of the
/// shortest such stack (the heavier of two as short).
fn shortest_by_rule(stacks: &[(&str, u64)], rules: &Rules) -> Vec<usize> {
    let key = |i: usize| (stacks[i].0.len(), std::cmp::Reverse(stacks[i].1));
    let mut best: HashMap<(String, usize), usize> = HashMap::new();
    for (index, (stack, _)) in stacks.iter().enumerate() {
        let frames: Vec<&str> = stack.split(';').collect();
        // The rule that decides the stack, and every `pass` rule whose frame it passes on.
        let decided = rules.decide(&frames).1.into_iter();
        let passes = rules.rules.iter().filter(|r| r.part.is_none() && frames[1..].iter().any(|f| r.matches(f, false)));
        for rule in decided.chain(passes) {
            let old = best.entry(rule.source.clone()).or_insert(index);
            if key(index) < key(*old) {
                *old = index;
            }
        }
    }
    let mut chosen: Vec<usize> = best.into_values().collect();
    chosen.sort_unstable();
    chosen
}
