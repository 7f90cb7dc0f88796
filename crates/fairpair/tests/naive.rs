//! What the naive servers fail, measured rather than asserted: every contract case against the plain axum server
//! (`cargo run -p users-api --example naive`) and the plain `node:http` server (`servers-node/examples/naive.js`),
//! with the failing cases grouped by the sentence of the contract rule they check.
//!
//! The sets of failing rules are pinned in `tests/fixtures/naive/{rust,node}.txt` (one rule per line, plus one
//! `crashes after: CASE` line per case that took the server down), so that a change in axum, hyper, serde or Node
//! that moves them shows up here. After a deliberate change, regenerate them with `FAIRPAIR_BLESS=1 cargo test -p
//! fairpair --test naive` and read the diff.
//!
//! A naive server may crash on a case (the Node one does on a `null` body). The runner then restarts it and notes
//! the case, so that every later case still meets a live server and the result does not depend on the order of the
//! cases.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A naive server started on a free port, killed when dropped.
struct Naive {
    child: Child,
    addr: std::net::SocketAddr,
}

impl Naive {
    fn start(command: &[PathBuf]) -> Naive {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr =
            fairpair::subjects::process::parse_listening(&line).unwrap_or_else(|| panic!("no start-up line: {line:?}"));
        Naive { child, addr }
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Naive {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs every case that needs no special store, restarting the server after a case that killed it. Returns the
/// failing rules and the cases after which the server was found dead, as the lines of the pinned fixture.
///
/// The head-time-limit cases ask for a server started with a 1 s limit; a naive server takes no such flag and has
/// no limit at all, so they run against it as it is, and find the connection still open when the case gives up.
fn failures(command: &[PathBuf]) -> (BTreeSet<String>, usize) {
    let mut server = Naive::start(command);
    let mut results = Vec::new();
    let mut lines = BTreeSet::new();
    for case in contract::cases().iter().filter(|c| c.requires.max_users.is_none()) {
        results.push(contract::run_case(server.addr, case, &case.requires));
        // A crash shows a moment after the answer (or the missing answer); give it that moment.
        std::thread::sleep(std::time::Duration::from_millis(5));
        if !server.alive() {
            lines.insert(format!("crashes after: {}", case.name));
            server = Naive::start(command);
        }
    }
    let answered = results.iter().filter(|r| r.outcome.is_some()).count();
    // The rule sentences, not the coarser `rule_id`s `fairpair verify` groups by: a move within a rule shows too.
    for r in results.iter().filter(|r| matches!(r.verdict, contract::Verdict::Failed(_))) {
        let case = contract::cases().iter().find(|c| c.name == r.name).expect("a result of a known case");
        lines.insert(case.rule.clone());
    }
    (lines, answered)
}

fn check_against_fixture(name: &str, command: &[PathBuf]) {
    let (found, answered) = failures(command);
    // Guard against a vacuous pass: a server that answered nothing would fail every rule, which is no finding.
    assert!(answered > contract::cases().len() / 2, "{name}: only {answered} cases got an answer");
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/naive/{name}.txt"));
    if std::env::var_os("FAIRPAIR_BLESS").is_some() {
        std::fs::create_dir_all(fixture.parent().unwrap()).unwrap();
        std::fs::write(&fixture, found.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }
    let pinned: BTreeSet<String> =
        std::fs::read_to_string(&fixture).unwrap().lines().filter(|l| !l.is_empty()).map(String::from).collect();
    let newly: Vec<_> = found.difference(&pinned).collect();
    let no_longer: Vec<_> = pinned.difference(&found).collect();
    assert!(
        newly.is_empty() && no_longer.is_empty(),
        "{name}: the naive server's failures moved.\n  now failing: {newly:#?}\n  no longer failing: {no_longer:#?}"
    );
}

#[test]
fn the_naive_axum_server_fails_these_rules() {
    let fairpair = PathBuf::from(env!("CARGO_BIN_EXE_fairpair"));
    // cargo builds the examples of every package when it builds the workspace's tests, next to `deps/`.
    let naive = fairpair.parent().unwrap().join("examples/naive");
    assert!(
        naive.is_file(),
        "{} not found: run `cargo test --workspace` (or `cargo build -p users-api --example naive`)",
        naive.display()
    );
    check_against_fixture("rust", &[naive]);
}

#[test]
fn the_naive_node_server_fails_these_rules() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../servers-node/examples/naive.js");
    check_against_fixture("node", &[PathBuf::from("node"), script]);
}
