//! The differential fuzzer, for what hand-written cases miss: the same mutated HTTP/1.1 byte streams, each on a fresh
//! connection, to every server; their interpretations compared; every difference the contract does not allow
//! reported, minimised and written down so that it replays.
//!
//! - [`seeds`]: what mutants grow from; [`mutate`]: the grammar-aware mutations, from a seeded generator ([`rng`]);
//! - [`probe`]: one mutant on one connection; [`framing`]: the fuzzer's own strict reading of a request stream;
//! - [`interpret`]: a server's interpretation and the comparison, through the contract's tolerance table
//!   (`contract::tolerances`);
//! - [`run`] (this file): servers reused across mutants, batches of mutants in flight, the stores read back;
//!   [`finding`]: minimising, replaying and writing a finding; [`decide`]: each tolerance's examples against the
//!   releases at hand, with the table emptied (is the row still needed?).
//!
//! The binary `fuzz` (`src/bin/fuzz.rs`, wrapped by `scripts/fuzz`) and the test `tests/fuzz.rs` drive it.

pub mod decide;
pub mod finding;
pub mod framing;
pub mod interpret;
pub mod mutate;
pub mod probe;
pub mod rng;
pub mod seeds;

use crate::{Kind, Limits, Server};
use contract::tolerances::{EQUIVALENCES, Equivalence, TOLERANCES, Tolerance};
use finding::Finding;
use framing::Requests;
use interpret::{Comparison, Interpretation};
use mutate::Mutant;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The tolerance table the comparison uses: the contract's, or emptied.
#[derive(Debug, Clone)]
pub struct Table {
    pub tolerances: Vec<Tolerance>,
    pub equivalences: Vec<Equivalence>,
}

impl Table {
    /// The contract's table (`contract::tolerances`).
    pub fn contract() -> Table {
        Table { tolerances: TOLERANCES.to_vec(), equivalences: EQUIVALENCES.iter().map(|(e, _, _)| *e).collect() }
    }

    /// The table with its tolerances emptied (the equivalences stay: they are not differences between stacks).
    pub fn emptied() -> Table {
        Table { tolerances: Vec::new(), ..Table::contract() }
    }
}

/// The short time limits every fuzzed server runs with: a truncated mutant waits them out.
pub const LIMITS: Limits =
    Limits { header: Duration::from_millis(500), body: Duration::from_millis(500), shutdown: Duration::from_secs(1) };

/// A server is restarted once it has stored this many users, long before its store (1,000,000) fills.
const RESTART_AFTER: u64 = 400_000;

/// A server the fuzzer sends mutants to: one it started (and can restart), or one at an address (a stand-in).
pub struct Target {
    pub name: String,
    pub addr: SocketAddr,
    server: Option<Server>,
    /// The next id to read back.
    next_id: u64,
}

impl Target {
    /// Starts a server of `kind` with the fuzzer's limits.
    pub fn start(kind: Kind) -> Target {
        let server = Server::start(kind, LIMITS, &[]);
        Target { name: kind.name().to_owned(), addr: server.addr, server: Some(server), next_id: 10_001 }
    }

    /// A server someone else runs, at `addr` (not restarted; its store is assumed to start at id 10,001).
    pub fn at(name: &str, addr: SocketAddr) -> Target {
        Target { name: name.to_owned(), addr, server: None, next_id: 10_001 }
    }

    /// Whether the process has exited (`false` for a server someone else runs).
    fn died(&mut self) -> bool {
        self.server.as_mut().is_some_and(|s| s.wait_exit(Duration::ZERO).is_some())
    }

    fn restart(&mut self) {
        if let Some(old) = self.server.take() {
            let kind = old.kind;
            drop(old);
            let server = Server::start(kind, LIMITS, &[]);
            self.addr = server.addr;
            self.server = Some(server);
            self.next_id = 10_001;
        }
    }
}

static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks a run to stop after its current batch (Ctrl-C in the binary): the summary is still printed and the servers
/// stopped.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether a stop was requested.
pub fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// What a run is asked to do.
#[derive(Debug, Clone)]
pub struct Settings {
    pub seed: u64,
    /// Stop starting batches after this long.
    pub duration: Duration,
    /// Probes in flight at once (spread over the servers).
    pub in_flight: usize,
    pub table: Table,
    /// Where findings are written.
    pub out_dir: PathBuf,
    /// How many times a divergence is replayed before it counts.
    pub replays: usize,
    /// Print a progress line every this often (`None`: quiet).
    pub progress: Option<Duration>,
    /// The first mutant number (a run is mutants `first..`).
    pub first: u64,
    /// How long minimising one finding may take.
    pub minimise_for: Duration,
    /// Stop after this many mutants (whole batches; the seeds sent first not counted), whatever the time: a run of
    /// fixed content (CI).
    pub max_mutants: Option<u64>,
    /// Send every seed once as it is before the mutants (each contract case, so that every tolerance with a case is
    /// met at least once).
    pub seeds_first: bool,
}

impl Settings {
    pub fn new(seed: u64, duration: Duration) -> Settings {
        Settings {
            seed,
            duration,
            in_flight: 96,
            table: Table::contract(),
            out_dir: crate::repo_root().join("target/fuzz"),
            replays: 5,
            progress: None,
            first: 1,
            minimise_for: Duration::from_secs(30),
            max_mutants: None,
            seeds_first: false,
        }
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Summary {
    pub seed: u64,
    pub mutants: u64,
    pub elapsed: Duration,
    /// Divergences and failures that replayed, each minimised and written down.
    pub findings: Vec<Finding>,
    /// Divergences that did not replay (timing): counted, not reported as findings.
    pub unconfirmed: u64,
    /// Mutants that diverged like an earlier finding (the same class): counted, not minimised again.
    pub repeats: BTreeMap<String, u64>,
    /// Mutants that some server answered 2xx.
    pub served_2xx: u64,
    /// How many mutants each tolerance allowed (a mutant may be allowed by several): with the table emptied, each of
    /// these is a divergence.
    pub tolerated: BTreeMap<String, u64>,
    /// Mutants that differed as the table allows.
    pub tolerated_mutants: u64,
    /// Server restarts (store filled or process died).
    pub restarts: u64,
    /// Mutants whose interpretations differed but which name a user an earlier mutant created: not judged (see
    /// [`interpret::names_created_user`]).
    pub store_dependent: u64,
}

impl Summary {
    pub fn rate(&self) -> f64 {
        self.mutants as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Every divergence or failure that counted: the distinct findings and their repeats.
    pub fn divergences(&self) -> u64 {
        self.findings.len() as u64 + self.repeats.values().sum::<u64>()
    }

    /// The closing line.
    pub fn line(&self) -> String {
        format!(
            "fuzz summary: seed {}, {} mutants in {:.0} s, {:.1} mutants/s, {} divergences ({} distinct; {} more did not replay), {:.1} % of mutants answered 2xx by some server, {} differences not judged (they name a user an earlier mutant created)",
            self.seed,
            self.mutants,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.divergences(),
            self.findings.len(),
            self.unconfirmed,
            100.0 * self.served_2xx as f64 / self.mutants.max(1) as f64,
            self.store_dependent
        )
    }
}

/// How long after its last write a connection may stay open before it counts as a hang: both limits, Node's
/// one-second keep-alive buffer, and slack for a busy machine.
pub fn hang_deadline() -> Duration {
    LIMITS.header + LIMITS.body + Duration::from_secs(3)
}

/// A connection closed this soon after its last answer was closed "at once"; later, by a time limit.
pub fn prompt() -> Duration {
    LIMITS.header / 2
}

/// One mutant's results on every target.
struct Probed {
    mutant: Mutant,
    requests: Requests,
    interps: Vec<Interpretation>,
    /// Ids each target reported created (from `Location`).
    reported: Vec<Vec<u64>>,
}

/// Runs mutants against `targets` until the settings' duration has passed.
pub fn run(targets: &mut [Target], settings: &Settings) -> Summary {
    let seeds = seeds::seeds();
    let start = Instant::now();
    let mut summary = Summary { seed: settings.seed, ..Summary::default() };
    let mut last_progress = Instant::now();
    let batch = (settings.in_flight * 2).max(8) as u64;
    let mut next = settings.first;
    let more = |done: u64| settings.max_mutants.is_none_or(|max| done < max);
    if settings.seeds_first {
        // Numbered after the mutants' range, so that their markers never meet a mutant's.
        let unmutated: Vec<Mutant> =
            seeds.iter().enumerate().map(|(i, s)| mutate::unmutated(s, 9_000_000_000 + i as u64)).collect();
        for chunk in unmutated.chunks(batch as usize) {
            run_batch(targets, chunk.to_vec(), settings, &mut summary);
        }
    }
    let unmutated = summary.mutants;
    while start.elapsed() < settings.duration && !stopping() && more(summary.mutants - unmutated) {
        let mutants: Vec<Mutant> = (next..next + batch).map(|n| mutate::mutant(&seeds, settings.seed, n)).collect();
        next += batch;
        run_batch(targets, mutants, settings, &mut summary);
        summary.elapsed = start.elapsed();
        if let Some(every) = settings.progress {
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                eprintln!(
                    "fuzz: {} mutants, {:.1}/s, {} divergences so far, {} tolerated",
                    summary.mutants,
                    summary.rate(),
                    summary.findings.len(),
                    summary.tolerated_mutants
                );
            }
        }
    }
    summary.elapsed = start.elapsed();
    summary
}

/// Sends one batch of mutants to every target, reads the stores back, judges each mutant, and restarts a server that
/// died or has stored many users.
fn run_batch(targets: &mut [Target], mutants: Vec<Mutant>, settings: &Settings, summary: &mut Summary) {
    let (first, last) = (mutants.first().map_or(0, |m| m.n), mutants.last().map_or(0, |m| m.n));
    let mut probed = probe_all(targets, mutants, settings.in_flight);
    let unreported = read_back(targets, &mut probed);
    summary.mutants += probed.len() as u64;
    for p in &probed {
        judge(targets, p, settings, summary);
    }
    for (target, n) in unreported {
        let p = probed.iter().find(|p| p.mutant.n == n);
        let what = format!("{} stored a user that no answer reported (marker of mutant {n})", targets[target].name);
        if let Some(p) = p {
            summary.findings.push(finding::record(targets, p_mutant(p), &p.interps, &what, settings, false));
        }
    }
    for i in 0..targets.len() {
        if targets[i].died() {
            let what = format!("{} exited while serving mutants {}..{}", targets[i].name, first, last);
            let p = &probed[0];
            summary.findings.push(finding::record(targets, p_mutant(p), &p.interps, &what, settings, false));
            targets[i].restart();
            summary.restarts += 1;
        } else if targets[i].next_id - 10_001 > RESTART_AFTER {
            targets[i].restart();
            summary.restarts += 1;
        }
    }
}

fn p_mutant(p: &Probed) -> &Mutant {
    &p.mutant
}

/// Compares one mutant's interpretations; a divergence or failure is minimised, replayed and recorded.
fn judge(targets: &[Target], p: &Probed, settings: &Settings, summary: &mut Summary) {
    if p.interps.iter().any(|i| i.answers.iter().any(|a| (200..300).contains(&a.status))) {
        summary.served_2xx += 1;
    }
    let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    let mut problems: Vec<String> = Vec::new();
    for (name, interp) in names.iter().zip(&p.interps) {
        for failure in interpret::absolute_failures(interp, &p.requests, LIMITS.header.min(LIMITS.body)) {
            problems.push(format!("{name}: {failure}"));
        }
    }
    let mut class = problems.iter().map(|p| p.split(':').take(2).collect::<String>()).collect::<Vec<_>>().join("; ");
    match interpret::compare(&p.mutant.bytes, p.requests.tail, &names, &p.interps, &settings.table) {
        Comparison::Same => {}
        Comparison::Tolerated(names) => {
            summary.tolerated_mutants += 1;
            for name in names {
                *summary.tolerated.entry(name).or_default() += 1;
            }
        }
        Comparison::Divergent { .. } if interpret::names_created_user(&p.mutant.bytes) => summary.store_dependent += 1,
        Comparison::Divergent { what, class: c } => {
            problems.push(what);
            class = c;
        }
    }
    if problems.is_empty() {
        return;
    }
    if let Some(count) = summary.repeats.get_mut(&class) {
        *count += 1;
        return;
    }
    let what = problems.join("; ");
    let found = finding::record(targets, &p.mutant, &p.interps, &what, settings, true);
    if found.replayed.0 * 2 > found.replayed.1 {
        summary.repeats.insert(class, 0);
        summary.findings.push(found);
    } else {
        summary.unconfirmed += 1;
    }
}

/// Sends every mutant to every target, `in_flight` probes at a time.
fn probe_all(targets: &[Target], mutants: Vec<Mutant>, in_flight: usize) -> Vec<Probed> {
    let jobs: Vec<(usize, usize)> = (0..mutants.len()).flat_map(|m| (0..targets.len()).map(move |t| (m, t))).collect();
    let addrs: Vec<SocketAddr> = targets.iter().map(|t| t.addr).collect();
    let next = AtomicUsize::new(0);
    let replies = std::sync::Mutex::new(HashMap::new());
    std::thread::scope(|scope| {
        for _ in 0..in_flight.min(jobs.len()) {
            std::thread::Builder::new()
                .stack_size(128 * 1024)
                .spawn_scoped(scope, || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(m, t)) = jobs.get(i) else { break };
                        let reply = probe::probe(addrs[t], &mutants[m], hang_deadline());
                        replies.lock().expect("no probe panics").insert((m, t), reply);
                    }
                })
                .expect("a probe thread starts");
        }
    });
    let mut replies = replies.into_inner().expect("no probe panicked");
    mutants
        .into_iter()
        .enumerate()
        .map(|(m, mutant)| {
            let requests = framing::requests(&mutant.bytes);
            let mut interps = Vec::new();
            let mut reported = Vec::new();
            for t in 0..targets.len() {
                let reply = replies.remove(&(m, t)).expect("every job ran");
                reported.push(reported_ids(&reply.bytes));
                interps.push(interpret::interpret(&reply, &requests, prompt()));
            }
            Probed { mutant, requests, interps, reported }
        })
        .collect()
}

/// The ids in the `Location: /users/N` headers of a reply (the users its answers said were created).
fn reported_ids(bytes: &[u8]) -> Vec<u64> {
    let text = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    text.match_indices("\r\nlocation: /users/")
        .filter_map(|(at, m)| {
            let rest = &text[at + m.len()..];
            rest[..rest.find('\r').unwrap_or(rest.len())].parse().ok()
        })
        .collect()
}

/// Reads back every user stored since the last batch on each target (`GET /users/{id}` from the next unread id until
/// a 404), ties each to its mutant by the marker in its body, and adds it to that mutant's interpretation. Returns
/// the users that no answer reported, as (target, mutant).
fn read_back(targets: &mut [Target], probed: &mut [Probed]) -> Vec<(usize, u64)> {
    let index: HashMap<u64, usize> = probed.iter().enumerate().map(|(i, p)| (p.mutant.n, i)).collect();
    let mut unreported = Vec::new();
    for (t, target) in targets.iter_mut().enumerate() {
        let all_reported: std::collections::HashSet<u64> =
            probed.iter().flat_map(|p| p.reported[t].iter().copied()).collect();
        let Ok(mut conn) = contract::Connection::open(target.addr, Duration::from_secs(5)) else { continue };
        loop {
            let id = target.next_id;
            if conn.write(&contract::Request::get(&format!("/users/{id}")).to_bytes()).is_err() {
                break;
            }
            let Ok(Some(response)) = conn.response(false, Duration::from_secs(5)) else { break };
            if response.status != 200 {
                break;
            }
            target.next_id += 1;
            let mutant = seeds::find_marker(&response.body).and_then(|n| index.get(&n).copied());
            if let Some(i) = mutant {
                probed[i].interps[t].stored.push(interpret::normalise_ids(&String::from_utf8_lossy(&response.body)));
            }
            if !all_reported.contains(&id) {
                if let Some(i) = mutant {
                    unreported.push((t, probed[i].mutant.n));
                }
            }
        }
    }
    unreported
}
