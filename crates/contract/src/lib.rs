//! The fairpair API contract as data.
//!
//! `contract/cases.json` lists every rule of `contract/CONTRACT.md` as a request and the response it must get (the
//! file's shape is described in `contract/README.md`). This crate is the one Rust reader of that file, shared by the
//! users-api tests, `fairpair verify` and the fault suites, so that they cannot drift apart:
//!
//! - [`cases`] parses the copy embedded at build time (once); [`parse`] parses any other text.
//! - [`Case::request_bytes`] gives the exact bytes a case puts on the wire.
//! - [`send`] writes bytes to a server over plain TCP and reads one HTTP/1 response (or notices a closed connection).
//! - [`check`] compares what came back with what the case expects; [`run_case`] does all of it, round trip included,
//!   and says why a case failed as [`Mismatch`]es, whose kind a runner can act on.
//! - [`differences`] compares two servers' answers to the same case (the "identical" of the contract).
//! - [`tolerances`] reads `contract/tolerances.json`, the differences between the servers that the contract allows,
//!   and holds each row's predicate over the request bytes.
//! - [`releases`] says which release of each HTTP stack the tolerance table was decided on, and which is at hand.
//! - [`json_bodies`] reads `contract/json-bodies.json`, the JSON bodies every twin's scanner and writer are tested on.
//! - [`StartupLine`] reads the line a server prints once it listens, for the harness and every test that starts one.
//!
//! A raw socket rather than an HTTP client library is deliberate: several cases send bytes that a client library
//! would refuse to produce (a bare LF, a missing `Host`, two `Content-Length`s), and the point of the contract is to
//! see what each server does with exactly those bytes.
//!
//! Layout: `cases.rs` (the file format and its validation), `tolerances/` (the tolerance table's loading, predicates
//! and request splitter), `json_bodies.rs`, `wire.rs` (request bytes, the socket client and the response parser),
//! `startup.rs` (the start-up line), this file (checking).

mod cases;
pub mod json_bodies;
pub mod releases;
pub mod startup;
pub mod tolerances;
mod wire;

pub use cases::{AnyOf, Case, Expect, HeaderExpect, Level, Match, Request, Requires, Wire, cases, parse};
pub use startup::StartupLine;
pub use wire::{Connection, Outcome, Response, send, send_and_rest};

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

/// How long one case may take to answer before it counts as a failure. The contract's own time limits are 10 s, and
/// no case waits for them, so a healthy server answers every case in well under this.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(5);

/// The result of running one case against one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    pub name: String,
    pub verdict: Verdict,
    /// What the server answered (`None` when the case was skipped or no usable response came).
    pub outcome: Option<Outcome>,
}

/// Whether a case passed, failed (with every mismatch found) or could not be run against this server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed(Vec<Mismatch>),
    Skipped(String),
}

/// One reason a case failed. The kind is what a runner decides on (a server that no longer answers, a read-back
/// that another cluster worker answered); the sentence is for people and is rendered only when shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// No usable response came: the connection was refused or timed out, or the bytes were not an HTTP/1 response.
    /// The text is the error.
    NoResponse(String),
    /// The response differs from what the case expects (the status, a header, the body …); the text says how.
    Response(String),
    /// The response was right, but reading the created user back (`roundtrip`) did not give the same bytes.
    RoundTrip(String),
    /// The case was not sent: the server had stopped answering this many cases earlier, so the runner gave up on it.
    NotRun { silent_cases: usize },
}

impl Mismatch {
    /// Whether the server failed to answer at all (or was given up on): the sign that it may be gone.
    pub fn is_silence(&self) -> bool {
        matches!(self, Mismatch::NoResponse(_) | Mismatch::NotRun { .. })
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NoResponse(e) => write!(f, "no usable response: {e}"),
            Mismatch::Response(what) => f.write_str(what),
            Mismatch::RoundTrip(what) => write!(f, "round trip: {what}"),
            Mismatch::NotRun { silent_cases } => {
                write!(f, "not run: the server stopped answering {silent_cases} cases ago")
            }
        }
    }
}

/// The mismatches of a failure joined by `sep`, as one line of text.
pub fn join_mismatches(mismatches: &[Mismatch], sep: &str) -> String {
    mismatches.iter().map(Mismatch::to_string).collect::<Vec<_>>().join(sep)
}

impl fmt::Display for CaseResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.verdict {
            Verdict::Passed => write!(f, "pass  {}", self.name),
            Verdict::Skipped(why) => write!(f, "skip  {} ({why})", self.name),
            Verdict::Failed(mismatches) => {
                write!(f, "FAIL  {}", self.name)?;
                for m in mismatches {
                    write!(f, "\n      {m}")?;
                }
                Ok(())
            }
        }
    }
}

/// Counts of passed, failed and skipped cases, for the `N passed, N failed` line.
pub fn tally(results: &[CaseResult]) -> (usize, usize, usize) {
    let mut counts = (0, 0, 0);
    for r in results {
        match r.verdict {
            Verdict::Passed => counts.0 += 1,
            Verdict::Failed(_) => counts.1 += 1,
            Verdict::Skipped(_) => counts.2 += 1,
        }
    }
    counts
}

/// Runs one case against the server at `addr`, whose settings are `server` (what it was started with).
///
/// A case runs only against a server whose settings are exactly the ones it requires: a `max_users: 10000` case
/// needs a full store, and every other case needs a store with room, so each kind is skipped on the other server.
pub fn run_case(addr: SocketAddr, case: &Case, server: &Requires) -> CaseResult {
    let name = case.name.clone();
    if case.requires != *server {
        let why = if case.requires.is_empty() {
            "needs a server started with the default settings".to_owned()
        } else {
            format!("needs a server started with {}", case.requires.flags().join(" "))
        };
        return CaseResult { name, verdict: Verdict::Skipped(why), outcome: None };
    }
    let (outcome, rest) = match send_and_rest(addr, &case.request_bytes(), CASE_TIMEOUT, case.expect.closes) {
        Ok(sent) => sent,
        Err(e) => {
            return CaseResult {
                name,
                verdict: Verdict::Failed(vec![Mismatch::NoResponse(e.to_string())]),
                outcome: None,
            };
        }
    };
    let mut mismatches: Vec<Mismatch> = check(case, &outcome).into_iter().map(Mismatch::Response).collect();
    if case.expect.nothing_after && !rest.is_empty() {
        let what = format!("expected nothing after the response (it ends the connection), got {}", show(&rest));
        mismatches.push(Mismatch::Response(what));
    }
    if mismatches.is_empty() && case.roundtrip {
        mismatches.extend(roundtrip(addr, &outcome));
    }
    let verdict = if mismatches.is_empty() { Verdict::Passed } else { Verdict::Failed(mismatches) };
    CaseResult { name, verdict, outcome: Some(outcome) }
}

/// Reads back the user a 201 created, and requires the very same bytes (strings are stored exactly as sent).
fn roundtrip(addr: SocketAddr, created: &Outcome) -> Vec<Mismatch> {
    let Outcome::Response { response, .. } = created else {
        return vec![Mismatch::RoundTrip("no response to read back".to_owned())];
    };
    let Some(location) = response.header("location") else {
        return vec![Mismatch::RoundTrip("the 201 has no Location".to_owned())];
    };
    match send(addr, &Request::get(location).to_bytes(), CASE_TIMEOUT, false) {
        Ok(Outcome::Response { response: got, .. }) => {
            let mut out = Vec::new();
            if got.status != 200 {
                out.push(format!("GET {location}: expected status 200, got {}", got.status));
            }
            if got.body != response.body {
                out.push(format!(
                    "GET {location}: expected the POST's body {}, got {}",
                    show(&response.body),
                    show(&got.body)
                ));
            }
            out.into_iter().map(Mismatch::RoundTrip).collect()
        }
        Ok(Outcome::Closed) => {
            vec![Mismatch::RoundTrip(format!("GET {location}: connection closed without a response"))]
        }
        Err(e) => vec![Mismatch::RoundTrip(format!("GET {location}: {e}"))],
    }
}

/// Compares a response with what the case expects, and returns every mismatch (empty means the case passed).
pub fn check(case: &Case, outcome: &Outcome) -> Vec<String> {
    let expect = &case.expect;
    let (response, closed) = match (outcome, case.matching) {
        (Outcome::Closed, Match::Tolerated) if expect.any_of.contains(&AnyOf::Closed) => return Vec::new(),
        (Outcome::Closed, _) => {
            return vec![format!(
                "expected {}, got the connection closed without a response",
                expect.describe_status()
            )];
        }
        (Outcome::Response { response, closed }, _) => (response, *closed),
    };
    let mut out = Vec::new();
    if !status_matches(case, response.status) {
        out.push(format!("status: expected {}, got {}", expect.describe_status(), response.status));
    }
    // Only an exact case says more than the status and whether the connection is closed.
    if case.matching == Match::Exact {
        check_body(expect, response, &mut out);
        check_headers(expect, response, &mut out);
    }
    if expect.closes && closed == Some(false) {
        out.push("connection: expected the server to close it after the response, it stayed open".to_owned());
    }
    out
}

/// Whether the status is one the case allows: one of `any_of` (tolerated), the status or its class (status class),
/// or exactly the status (exact).
fn status_matches(case: &Case, status: u16) -> bool {
    let expect = &case.expect;
    match case.matching {
        Match::Tolerated => expect.any_of.contains(&AnyOf::Status(status)),
        Match::StatusClass => match (expect.status, expect.status_class) {
            (Some(s), _) => status == s,
            (None, Some(class)) => status / 100 == u16::from(class),
            (None, None) => false,
        },
        Match::Exact => Some(status) == expect.status,
    }
}

/// The body and what describes it: its `Content-Type`; none, the exact bytes, or a pattern; a `Content-Length`
/// equal to it.
fn check_body(expect: &Expect, response: &Response, out: &mut Vec<String>) {
    if let Some(want) = &expect.content_type {
        match response.header("content-type") {
            Some(got) if got == want => {}
            Some(got) => out.push(format!("content-type: expected {want:?}, got {got:?}")),
            None => out.push(format!("content-type: expected {want:?}, got none")),
        }
    }
    if expect.no_body {
        if !response.body.is_empty() {
            out.push(format!("body: expected none, got {}", show(&response.body)));
        }
        return;
    }
    if let Some(want) = &expect.body {
        if response.body != want.as_bytes() {
            out.push(format!("body: expected {}, got {}", show(want.as_bytes()), show(&response.body)));
        }
    }
    if let Some(pattern) = &expect.body_pattern {
        let matched = std::str::from_utf8(&response.body).is_ok_and(|b| pattern.is_match(b));
        if !matched {
            out.push(format!("body: expected to match {}, got {}", pattern.as_str(), show(&response.body)));
        }
    }
    // Every response carries a Content-Length equal to its body: never chunked, HTTP/1.0 included.
    let len = response.body.len().to_string();
    match response.header("content-length") {
        Some(got) if got == len => {}
        Some(got) => out.push(format!("content-length: expected {len} (the body's length), got {got}")),
        None => out.push("content-length: expected one, got none".to_owned()),
    }
}

/// No `Transfer-Encoding`, and every header the case names (a value, a pattern, or absent).
fn check_headers(expect: &Expect, response: &Response, out: &mut Vec<String>) {
    if response.header("transfer-encoding").is_some() {
        out.push("transfer-encoding: expected none (responses are never chunked), got one".to_owned());
    }
    for (name, want) in &expect.headers {
        match (want, response.header(name)) {
            (HeaderExpect::Absent, None) => {}
            (HeaderExpect::Absent, Some(g)) => out.push(format!("{name}: expected no such header, got {g:?}")),
            (HeaderExpect::Value(w), Some(g)) if w == g => {}
            (HeaderExpect::Pattern(p), Some(g)) if p.is_match(g) => {}
            (want, Some(g)) => out.push(format!("{name}: expected {want}, got {g:?}")),
            (want, None) => out.push(format!("{name}: expected {want}, got none")),
        }
    }
}

/// The differences between two servers' answers to one case, as the contract defines "identical": same status,
/// `Content-Type`, body bytes, `Content-Length`, `Location` and `Allow`. Only `exact` cases must be identical; for
/// the others, the status class must agree unless the case is `tolerated`.
pub fn differences(matching: Match, a: &Outcome, b: &Outcome) -> Vec<String> {
    let (ra, rb) = match (a, b) {
        (Outcome::Closed, Outcome::Closed) => return Vec::new(),
        (Outcome::Response { response: ra, .. }, Outcome::Response { response: rb, .. }) => (ra, rb),
        _ if matching == Match::Tolerated => return Vec::new(),
        _ => return vec![format!("one closed without a response, the other answered: {a} vs {b}")],
    };
    let mut out = Vec::new();
    match matching {
        Match::Tolerated => {}
        Match::StatusClass => {
            if ra.status / 100 != rb.status / 100 {
                out.push(format!("status class: {} vs {}", ra.status, rb.status));
            }
        }
        Match::Exact => {
            if ra.status != rb.status {
                out.push(format!("status: {} vs {}", ra.status, rb.status));
            }
            for name in ["content-type", "content-length", "location", "allow"] {
                if ra.header(name) != rb.header(name) {
                    out.push(format!("{name}: {:?} vs {:?}", ra.header(name), rb.header(name)));
                }
            }
            if ra.body != rb.body {
                out.push(format!("body: {} vs {}", show(&ra.body), show(&rb.body)));
            }
        }
    }
    out
}

/// Shows bytes for a mismatch message: printable as a quoted string, cut short when long.
pub fn show(bytes: &[u8]) -> String {
    const MAX: usize = 160;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX)]);
    let mut out = format!("{text:?}");
    if bytes.len() > MAX {
        out.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_reads_as_the_sentence_people_see() {
        let shown = [
            (Mismatch::NoResponse("connection refused".into()), "no usable response: connection refused"),
            (Mismatch::Response("status: expected 404, got 200".into()), "status: expected 404, got 200"),
            (Mismatch::RoundTrip("GET /users/10001: x".into()), "round trip: GET /users/10001: x"),
            (Mismatch::NotRun { silent_cases: 5 }, "not run: the server stopped answering 5 cases ago"),
        ];
        for (mismatch, text) in &shown {
            assert_eq!(mismatch.to_string(), *text);
        }
        let silent: Vec<bool> = shown.iter().map(|(m, _)| m.is_silence()).collect();
        assert_eq!(silent, [true, false, false, true]);
        let all: Vec<Mismatch> = shown.into_iter().map(|(m, _)| m).collect();
        assert!(join_mismatches(&all[1..3], "; ").ends_with("got 200; round trip: GET /users/10001: x"));
    }

    #[test]
    fn a_server_that_is_not_there_gives_no_response() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let case = cases().iter().find(|c| c.requires.is_empty()).unwrap();
        let result = run_case(addr, case, &Requires::default());
        assert!(matches!(&result.verdict, Verdict::Failed(m) if matches!(m[..], [Mismatch::NoResponse(_)])));
    }
}
