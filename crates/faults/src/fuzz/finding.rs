//! A finding: a divergence (or a failure) minimised, replayed several times, and written as a file that replays.
//!
//! Minimising removes whole lines, then ever smaller runs of bytes, keeping each removal after which the servers
//! still disagree in a way the table does not allow (or a server still fails). Split writes and close timing are not
//! deterministic, so a finding counts only if it reproduces in most of its replays; the file says in how many.

use super::interpret::{self, Comparison, Interpretation};
use super::mutate::Mutant;
use super::{LIMITS, Settings, Table, Target, framing, hang_deadline, probe, prompt};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Candidates tried at once while minimising.
const AT_ONCE: usize = 8;

/// One server's interpretation, as written in a finding.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    pub server: String,
    pub interpretation: Interpretation,
}

/// A finding, as written to its file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finding {
    /// What differs or failed, in words.
    pub what: String,
    pub seed: u64,
    pub mutant: u64,
    /// The seed request the mutant grew from.
    pub grown_from: String,
    /// The minimised bytes, as hex (exact) and as text (for people).
    pub hex: String,
    pub text: String,
    /// Offsets where a new write starts.
    pub splits: Vec<usize>,
    /// The bytes before minimising, as hex.
    pub original_hex: String,
    /// Each server's interpretation of the minimised bytes.
    pub servers: Vec<Seen>,
    /// (reproduced, tried): replays of the minimised bytes.
    pub replayed: (usize, usize),
    /// The file, and the command that replays it.
    pub file: PathBuf,
    pub replay: String,
}

impl Finding {
    pub fn bytes(&self) -> Vec<u8> {
        from_hex(&self.hex)
    }

    /// The finding read back from its file.
    pub fn load(path: &Path) -> Result<Finding, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a finding: {e}", path.display()))
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect()
}

/// Sends `mutant` to every target at once and judges the interpretations: `Some(what)` when they diverge in a way
/// `table` does not allow, or a server fails; also returns the interpretations.
pub fn check(addrs: &[(String, SocketAddr)], mutant: &Mutant, table: &Table) -> (Option<String>, Vec<Interpretation>) {
    let replies: Vec<probe::Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            addrs.iter().map(|(_, addr)| scope.spawn(move || probe::probe(*addr, mutant, hang_deadline()))).collect();
        handles.into_iter().map(|h| h.join().expect("a probe does not panic")).collect()
    });
    let requests = framing::requests(&mutant.bytes);
    let interps: Vec<Interpretation> = replies.iter().map(|r| interpret::interpret(r, &requests, prompt())).collect();
    let names: Vec<&str> = addrs.iter().map(|(n, _)| n.as_str()).collect();
    let mut problems = Vec::new();
    for (name, interp) in names.iter().zip(&interps) {
        for failure in interpret::absolute_failures(interp, &requests, LIMITS.header.min(LIMITS.body)) {
            problems.push(format!("{name}: {failure}"));
        }
    }
    if let Comparison::Divergent { what, .. } =
        interpret::compare(&mutant.bytes, requests.tail, &names, &interps, table)
    {
        problems.push(what);
    }
    ((!problems.is_empty()).then(|| problems.join("; ")), interps)
}

/// How many of `times` runs of `mutant` show a problem.
pub fn replay(addrs: &[(String, SocketAddr)], mutant: &Mutant, table: &Table, times: usize) -> usize {
    (0..times).filter(|_| check(addrs, mutant, table).0.is_some()).count()
}

/// Minimises `mutant` while it still shows a problem (for at most `budget`).
pub fn minimise(addrs: &[(String, SocketAddr)], mutant: &Mutant, table: &Table, budget: Duration) -> Mutant {
    let started = Instant::now();
    let mut best = mutant.clone();
    let fails = |m: &Mutant| check(addrs, m, table).0.is_some();
    if !best.splits.is_empty() {
        let whole = Mutant { splits: Vec::new(), ..best.clone() };
        if fails(&whole) {
            best = whole;
        }
    }
    // Whole lines first, then runs of bytes of halving length.
    let mut size = 0; // 0: lines.
    loop {
        if started.elapsed() > budget || super::stopping() {
            break;
        }
        let candidates = shorter(&best.bytes, size);
        if candidates.is_empty() && size == 1 {
            break;
        }
        let mut improved = false;
        for group in candidates.chunks(AT_ONCE) {
            if started.elapsed() > budget {
                break;
            }
            let tried: Vec<Mutant> =
                group.iter().map(|bytes| Mutant { bytes: bytes.clone(), splits: Vec::new(), ..best.clone() }).collect();
            let verdicts: Vec<bool> = std::thread::scope(|scope| {
                let handles: Vec<_> = tried.iter().map(|m| scope.spawn(move || fails(m))).collect();
                handles.into_iter().map(|h| h.join().expect("a check does not panic")).collect()
            });
            if let Some(i) = verdicts.iter().position(|&v| v) {
                best = tried[i].clone();
                improved = true;
                break;
            }
        }
        if !improved {
            size = match size {
                0 => best.bytes.len().next_power_of_two() / 2,
                1 => break,
                n => n / 2,
            };
            if size == 0 {
                break;
            }
        }
    }
    best
}

/// The candidates one step shorter than `bytes`: without one line (`size` 0), or without one run of `size` bytes.
fn shorter(bytes: &[u8], size: usize) -> Vec<Vec<u8>> {
    if size == 0 {
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        return (0..lines.len())
            .rev()
            .map(|skip| {
                lines.iter().enumerate().filter(|(i, _)| *i != skip).flat_map(|(_, l)| l.iter().copied()).collect()
            })
            .collect();
    }
    (0..bytes.len().div_ceil(size))
        .rev()
        .map(|i| [&bytes[..i * size], &bytes[((i + 1) * size).min(bytes.len())..]].concat())
        .collect()
}

/// Minimises (if `minimise`), replays and writes a finding.
pub fn record(
    targets: &[Target],
    mutant: &Mutant,
    interps: &[Interpretation],
    what: &str,
    settings: &Settings,
    minimise_it: bool,
) -> Finding {
    let addrs: Vec<(String, SocketAddr)> = targets.iter().map(|t| (t.name.clone(), t.addr)).collect();
    let (small, replayed, seen, what) = if minimise_it {
        let original = replay(&addrs, mutant, &settings.table, settings.replays);
        if original * 2 <= settings.replays {
            (mutant.clone(), (original, settings.replays), interps.to_vec(), what.to_owned())
        } else {
            let small = minimise(&addrs, mutant, &settings.table, settings.minimise_for);
            let (now, seen) = check(&addrs, &small, &settings.table);
            let replayed = replay(&addrs, &small, &settings.table, settings.replays);
            (small, (replayed, settings.replays), seen, now.unwrap_or_else(|| what.to_owned()))
        }
    } else {
        (mutant.clone(), (1, 1), interps.to_vec(), what.to_owned())
    };
    let dir = settings.out_dir.join("findings");
    let file = dir.join(format!("seed{}-mutant{}.json", settings.seed, mutant.n));
    let replay = format!("scripts/fuzz --replay {}", file.display());
    let finding = Finding {
        what,
        seed: settings.seed,
        mutant: mutant.n,
        grown_from: mutant.seed.clone(),
        hex: to_hex(&small.bytes),
        text: String::from_utf8_lossy(&small.bytes).into_owned(),
        splits: small.splits.clone(),
        original_hex: to_hex(&mutant.bytes),
        servers: addrs
            .iter()
            .zip(seen)
            .map(|((server, _), interpretation)| Seen { server: server.clone(), interpretation })
            .collect(),
        replayed,
        file: file.clone(),
        replay,
    };
    if replayed.0 * 2 > replayed.1 {
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            std::fs::write(&file, serde_json::to_string_pretty(&finding).expect("a finding serialises"))
        });
        match written {
            Ok(()) => eprintln!(
                "fuzz: divergence: {}\n  bytes: {}\n  replayed {}/{}; replay: {}",
                finding.what,
                contract::show(&small.bytes),
                replayed.0,
                replayed.1,
                finding.replay
            ),
            Err(e) => eprintln!("fuzz: writing {}: {e}", file.display()),
        }
    }
    finding
}
