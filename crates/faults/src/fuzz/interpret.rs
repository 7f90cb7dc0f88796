//! A server's interpretation of a mutant, and the comparison of interpretations.
//!
//! An interpretation is what the issue asks to compare: the responses in order (status, the body with the ids of
//! created users normalised, `Content-Type`, `Location`, `Allow`, and the framing: a `Content-Length` equal to the
//! body, chunked, or read to the close), how the connection ended (closed at once after the last answer, closed when
//! a time limit ran out, or never: a hang), and the users the mutant stored, read back through `GET /users/{id}`.
//! `Date`, `Connection` and `Keep-Alive` are not part of it: the contract lets them differ.

use super::Table;
use super::framing::{Requests, Tail};
use super::probe::Reply;
use contract::tolerances::{Equivalence, Step, Tolerance};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How a response's body was delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framing {
    /// A `Content-Length` equal to the body (the contract's only framing).
    Length,
    /// No `Content-Length`: a HEAD answer, a 1xx/204/304, or a body read to the close.
    NoLength,
    Chunked,
}

/// One response as compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub allow: Option<String>,
    pub body: String,
    pub framing: Framing,
    /// When it arrived after the last write, in milliseconds (shown, never compared).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub at_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Answer {
    /// The parts that are compared.
    fn key(&self) -> (u16, &Option<String>, &Option<String>, &Option<String>, &str, Framing) {
        (self.status, &self.content_type, &self.location, &self.allow, &self.body, self.framing)
    }

    /// A 400 or 431 that is not one of POST /users's own (a refusal of the transport, whose body may be empty or
    /// the stack's own text).
    fn is_transport_refusal(&self) -> bool {
        const POST_ERRORS: &[&str] = &[
            r#"{"error":"invalid json"}"#,
            r#"{"error":"name required"}"#,
            r#"{"error":"name too long"}"#,
            r#"{"error":"invalid email"}"#,
        ];
        matches!(self.status, 400 | 431) && !POST_ERRORS.contains(&self.body.as_str())
    }
}

/// How the connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// Closed at once after the last answer (or after the last write, with no answer).
    Closed,
    /// Kept open until a time limit closed it.
    AtLimit,
    /// Still open when the deadline passed: a hang.
    Hang,
    /// The server could not be reached.
    Refused,
}

/// One server's interpretation of one mutant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interpretation {
    pub answers: Vec<Answer>,
    pub end: End,
    /// The users the mutant stored, as read back (normalised), in id order.
    pub stored: Vec<String>,
}

/// Replaces the id of a created user (above the 10,000 seed users) by `N`, in a body and in a `/users/…` path: ids
/// depend on what ran before.
pub fn normalise_ids(text: &str) -> String {
    normalise_after(&normalise_after(text, "\"id\":"), "/users/")
}

/// Whether a request line of the stream names a user that an earlier mutant created (`/users/N` above the seed
/// users). The fuzzer reuses its servers, and once a tolerated difference has stored a user on one side only, the same
/// id names different users (or none) on each server: the answers to such a request follow each server's history,
/// not its reading of the bytes, so a difference in them is not judged. What the mutant itself stores is still
/// compared, by its marker.
pub fn names_created_user(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').any(|line| {
        let method = line.iter().take_while(|b| b.is_ascii_uppercase()).count();
        let path = &line[method..];
        method > 0
            && path.starts_with(b" /users/")
            && normalise_location(&String::from_utf8_lossy(path)).contains("/users/N")
    })
}

fn normalise_location(text: &str) -> String {
    normalise_after(text, "/users/")
}

/// Every number after `prefix` that is a created user's id, replaced by `N`.
fn normalise_after(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let start = at + prefix.len();
        out.push_str(&rest[..start]);
        let digits = rest[start..].bytes().take_while(u8::is_ascii_digit).count();
        let number = &rest[start..start + digits];
        let created = !number.starts_with('0') && (number.len() > 5 || (number.len() == 5 && number > "10000"));
        out.push_str(if created { "N" } else { number });
        rest = &rest[start + digits..];
    }
    out.push_str(rest);
    out
}

/// Reads the responses in `reply`: `requests` says which were HEADs (no body whatever the headers say).
pub fn interpret(reply: &Reply, requests: &Requests, prompt: Duration) -> Interpretation {
    if reply.refused {
        return Interpretation { answers: Vec::new(), end: End::Refused, stored: Vec::new() };
    }
    let mut answers = Vec::new();
    let mut at = 0;
    let bytes = &reply.bytes;
    while at < bytes.len() {
        let head_request = match requests.methods.get(answers.len()) {
            Some(method) => method == b"HEAD",
            None => answers.len() == requests.methods.len() && requests.tail_is_head,
        };
        // A response whose declared body never came is read as a HEAD's (the request's method was not known), and so
        // is one whose body would be the next response: a HEAD's answer behind a request the framing could not read
        // (`GET ht://x`), then a 408, read the 408 as the HEAD's body (seed 110, mutant 20053).
        let known = requests.methods.get(answers.len()).is_some();
        let parsed = parse_response(&bytes[at..], head_request)
            .filter(|(answer, _)| known || !answer.body.starts_with("HTTP/1."))
            .or_else(|| parse_response(&bytes[at..], true));
        match parsed {
            Some((mut answer, used)) => {
                answer.at_ms = reply.arrival_of(at).as_millis() as u64;
                at += used;
                if !(100..200).contains(&answer.status) {
                    answers.push(answer);
                }
            }
            None => {
                answers.push(Answer {
                    status: 0,
                    content_type: None,
                    location: None,
                    allow: None,
                    body: format!("unreadable bytes: {}", contract::show(&bytes[at..])),
                    framing: Framing::NoLength,
                    at_ms: reply.arrival_of(at).as_millis() as u64,
                });
                break;
            }
        }
    }
    let last = answers.last().map_or(Duration::ZERO, |a| Duration::from_millis(a.at_ms));
    let end = match reply.closed_at {
        None => End::Hang,
        Some(t) if t.saturating_sub(last) < prompt => End::Closed,
        Some(_) => End::AtLimit,
    };
    Interpretation { answers, end, stored: Vec::new() }
}

/// One response at the start of `bytes` and the bytes it used; `None` if it is not a whole HTTP/1 response.
fn parse_response(bytes: &[u8], head_request: bool) -> Option<(Answer, usize)> {
    let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&bytes[..head_end]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next()?;
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    // A HEAD answer has no body, except an answer that has no framing at all and closes: Go's net/http writes its own
    // refusals (`400 Bad Request: …` as text/plain, read to the close) whatever the method.
    let unframed_close = header("content-length").is_none()
        && header("transfer-encoding").is_none()
        && header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"));
    let no_body = (head_request && !unframed_close) || (100..200).contains(&status) || status == 204 || status == 304;
    let (body, used, framing) = if no_body {
        (
            &bytes[head_end..head_end],
            head_end,
            if header("content-length").is_some() { Framing::Length } else { Framing::NoLength },
        )
    } else if header("transfer-encoding").is_some() {
        (&bytes[head_end..], bytes.len(), Framing::Chunked)
    } else if let Some(len) = header("content-length") {
        let len: usize = len.parse().ok()?;
        let end = head_end.checked_add(len).filter(|&e| e <= bytes.len())?;
        (&bytes[head_end..end], end, Framing::Length)
    } else {
        (&bytes[head_end..], bytes.len(), Framing::NoLength)
    };
    let answer = Answer {
        status,
        content_type: header("content-type"),
        location: header("location").map(|l| normalise_location(&l)),
        allow: header("allow"),
        body: normalise_ids(&String::from_utf8_lossy(body)),
        framing,
        at_ms: 0,
    };
    Some((answer, used))
}

/// Applies the table's equivalences, so that differences the contract allows everywhere do not count.
pub fn normalised(interp: &Interpretation, equivalences: &[Equivalence], tail: Tail) -> Interpretation {
    let mut out = interp.clone();
    for eq in equivalences {
        match eq {
            Equivalence::StackErrorBody => {
                for a in out.answers.iter_mut().filter(|a| a.is_transport_refusal()) {
                    a.body = String::new();
                    a.content_type = None;
                    a.framing = Framing::Length;
                }
            }
            Equivalence::HeadTimeout408 => {
                // A 408 that a head time limit sent before closing may or may not come first.
                // Not a body time limit: that 408 is the contract's own and required.
                let not_a_body = !matches!(tail, Tail::Incomplete { head_done: true });
                if not_a_body && out.end != End::Hang && out.answers.last().is_some_and(|a| a.status == 408) {
                    out.answers.pop();
                    out.end = End::AtLimit;
                }
            }
            Equivalence::OtherHeaders => {}
        }
        for a in out.answers.iter_mut() {
            a.at_ms = 0;
        }
    }
    out
}

/// What comparing one mutant's interpretations found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    Same,
    /// Different, as tolerances of the table allow (their names).
    Tolerated(Vec<String>),
    /// Different, and nothing allows it: what differs, in words, and its class (each server's step where they first
    /// differ), by which findings of one kind are told apart.
    Divergent {
        what: String,
        class: String,
    },
}

/// The step of an interpretation at answer index `k`.
fn step_at(interp: &Interpretation, k: usize) -> Step {
    match interp.answers.get(k) {
        Some(a) => Step::Status(a.status),
        None if interp.end == End::AtLimit => Step::Open,
        None => Step::Closed,
    }
}

/// Compares the interpretations of one mutant by several servers (the first is the reference).
pub fn compare(bytes: &[u8], tail: Tail, names: &[&str], interps: &[Interpretation], table: &Table) -> Comparison {
    let norm: Vec<Interpretation> = interps.iter().map(|i| normalised(i, &table.equivalences, tail)).collect();
    let reference = &norm[0];
    if norm.iter().all(|i| i == reference) {
        return Comparison::Same;
    }
    // The first answer index where any server differs from the reference (the length of the common prefix).
    let k = norm
        .iter()
        .map(|i| i.answers.iter().zip(&reference.answers).take_while(|(a, b)| a.key() == b.key()).count())
        .min()
        .unwrap_or(0);
    let steps: Vec<Step> = norm.iter().map(|i| step_at(i, k)).collect();
    // The answer every server gave just before the difference (they agree up to `k`), which some rows require.
    let previous = k.checked_sub(1).and_then(|j| reference.answers.get(j)).map(|a| a.status);
    let matching: Vec<&Tolerance> =
        table.tolerances.iter().filter(|t| (t.matches)(bytes) && t.follows.holds(previous)).collect();
    // Every tolerance that allows it, so that the count of each (what the emptied table would report) does not
    // depend on the table's order.
    let allowing: Vec<String> = matching.iter().filter(|t| t.allows(&steps)).map(|t| t.name.to_owned()).collect();
    if !allowing.is_empty() {
        return Comparison::Tolerated(allowing);
    }
    // No one row allows it: some of the rows that match may still allow it together.
    if let Some(rows) = contract::tolerances::allowing_together(&matching, &steps) {
        return Comparison::Tolerated(rows.iter().map(|t| t.name.to_owned()).collect());
    }
    let mut words = Vec::new();
    for (name, i) in names.iter().zip(&norm).skip(1) {
        if i == reference {
            continue;
        }
        let what = describe(reference, i, k);
        words.push(format!("{} vs {name}: {what}", names[0]));
    }
    let class: Vec<String> = names.iter().zip(&steps).map(|(n, s)| format!("{n} {}", s.word())).collect();
    let part = if k < reference.answers.len() || norm.iter().any(|i| k < i.answers.len()) { "answer" } else { "end" };
    Comparison::Divergent { what: words.join("; "), class: format!("{part} {}: {}", k + 1, class.join(", ")) }
}

/// How `b` differs from `a`, from answer `k` on.
fn describe(a: &Interpretation, b: &Interpretation, k: usize) -> String {
    let show = |i: &Interpretation| match i.answers.get(k) {
        Some(x) => format!("{} {:?} {}", x.status, x.body, framing_word(x.framing)),
        None => format!("no answer ({:?})", i.end),
    };
    if a.answers.get(k) != b.answers.get(k) {
        return format!("answer {}: {} vs {}", k + 1, show(a), show(b));
    }
    if a.end != b.end {
        return format!("end: {:?} vs {:?}", a.end, b.end);
    }
    format!("stored: {:?} vs {:?}", a.stored, b.stored)
}

fn framing_word(f: Framing) -> &'static str {
    match f {
        Framing::Length => "with Content-Length",
        Framing::NoLength => "without Content-Length",
        Framing::Chunked => "chunked",
    }
}

/// Failures whatever the others did: a hang, a 2xx to an incomplete request, an answer to an incomplete request
/// before its time limit. (A crash and an unreported stored user are found by the runner.)
pub fn absolute_failures(interp: &Interpretation, requests: &Requests, limit: Duration) -> Vec<String> {
    let mut out = Vec::new();
    if interp.end == End::Hang {
        out.push("hang: the connection was still open after every time limit had passed".to_owned());
    }
    if let Tail::Incomplete { head_done } = requests.tail {
        let complete = requests.methods.len();
        for (i, a) in interp.answers.iter().enumerate().skip(complete) {
            // A route that ignores the body may answer once the head is complete (and close: the body is unread);
            // POST /users cannot succeed without its body, and nothing can without a complete head.
            let needs_more = !head_done || (i == complete && requests.tail_is_post);
            if (200..300).contains(&a.status) && needs_more {
                out.push(format!("answer {}: {} to an incomplete request", i + 1, a.status));
            }
            let early = Duration::from_millis(a.at_ms) < limit.mul_f64(0.8);
            if a.status == 408 && early {
                let what = if head_done { "body" } else { "head" };
                out.push(format!("answer {}: 408 after {} ms, before the {what} time limit", i + 1, a.at_ms));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_ids_are_normalised_and_seed_ids_kept() {
        assert_eq!(normalise_ids(r#"{"id":10001,"name":"a"}"#), r#"{"id":N,"name":"a"}"#);
        assert_eq!(normalise_ids(r#"{"id":500,"name":"/users/10000"}"#), r#"{"id":500,"name":"/users/10000"}"#);
        assert_eq!(normalise_location("/users/123456"), "/users/N");
    }
    #[test]
    fn a_response_is_not_read_as_the_body_of_an_answer_whose_method_is_unknown() {
        let stream = b"GET ht://x HTTP/1.1\r\nHost:\r\n\r\nHEAD /7 HTTP/1.1\r\nHost:\r\n\r\nPOST / HTTP/1.1\r\n";
        let requests = crate::fuzz::framing::requests(stream);
        assert!(requests.methods.is_empty(), "{requests:?}");
        let bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi\
            HTTP/1.1 404 Not Found\r\nContent-Length: 21\r\n\r\n\
            HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n";
        let reply = Reply {
            bytes: bytes.to_vec(),
            arrivals: vec![(0, Duration::ZERO)],
            closed_at: Some(Duration::ZERO),
            refused: false,
        };
        let read = interpret(&reply, &requests, Duration::from_millis(100));
        assert_eq!(read.answers.iter().map(|a| a.status).collect::<Vec<_>>(), [200, 404, 408], "{read:#?}");
    }

    #[test]
    fn a_request_line_naming_a_created_user_is_found_and_a_seed_user_or_a_body_is_not() {
        assert!(names_created_user(b"POST /users HTTP/1.1\r\n\r\nGET /users/10080 HTTP/1.1\r\nHost:\r\n\r\n"));
        assert!(!names_created_user(b"GET /users/10000?x=1 HTTP/1.1\r\nHost:\r\n\r\n"));
        assert!(!names_created_user(b"POST /users HTTP/1.1\r\n\r\n{\"name\":\"/users/10080\"}"));
    }
}
