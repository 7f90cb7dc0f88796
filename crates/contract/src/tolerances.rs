//! The tolerance table: every difference between the servers that the contract allows, as predicates over the
//! request bytes, each with the outcomes it allows. `contract/CONTRACT.md` points here; the differential fuzzer
//! (`crates/faults`, `fuzz`) is what reads it, and the `match: tolerated` cases of `contract/cases.json` are examples
//! of its predicates (a test checks that each predicate matches its own examples and no valid seed request).
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
//! Each row names the releases of hyper, llhttp, Go and Tomcat it was decided on (`decided_on`, see [`crate::releases`]):
//! net/http and llhttp decide several of these before any handler runs, and their decisions change between
//! releases. `scripts/fuzz --decide` sends every row's examples to the servers at hand with the table emptied and
//! says which rows those releases still need.

use crate::releases::DECIDED_ON_2026_12;
pub use crate::releases::DecidedOn;

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

/// A difference the contract allows in the requests that match a predicate.
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
    /// Cases of `contract/cases.json` that are examples of this predicate.
    pub cases: &'static [&'static str],
    /// More examples, as bytes, where no case is one.
    pub examples: &'static [&'static [u8]],
    /// The release of each stack this row was decided on.
    pub decided_on: DecidedOn,
}

/// Where a tolerated difference may begin on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A difference the contract allows in every request, applied to each interpretation before comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equivalence {
    /// A 400 or 431 may have an empty body, or the stack's own (Go's net/http: `400 Bad Request` as text/plain
    /// without a Content-Length): only the status counts.
    StackErrorBody,
    /// A connection closed by the head time limit may get a 408 first, or not.
    HeadTimeout408,
    /// `Date`, `Connection` and `Keep-Alive` may differ: they are never compared.
    OtherHeaders,
}

/// The equivalences, with the contract's reason for each and the `tolerated` cases of `contract/cases.json` that are
/// examples of them (rather than of a tolerance).
pub const EQUIVALENCES: &[(Equivalence, &str, &[&str])] = &[
    (Equivalence::StackErrorBody, "Transport rules: a 400 or 431 may have an empty body", &[]),
    (
        Equivalence::HeadTimeout408,
        "Time limits: a connection without a complete head is closed (a 408 first is allowed)",
        &["raw-slow-head-closed"],
    ),
    (Equivalence::OtherHeaders, "Identical: other headers (Date, Connection, Keep-Alive) may differ", &[]),
];

const REFUSED: &[Step] = &[Step::Status(400), Step::Closed];

/// A POST that the routes refuse with 400 once its body is read in full (an empty body, a body that is not a
/// JSON object with a valid name and email, judged roughly: serde_json is not `JSON.parse`). Rough is safe here: the
/// row only applies right after a 400 that every server gave, to what each did with the connection next.
fn has_refused_post(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        // Any POST, whatever its target's form or query (`POST /users?1`): the 400 before the difference says the
        // routes refused it.
        let post = m.request_line().starts_with(b"POST ");
        let chunked = m.named(b"transfer-encoding").next().is_some();
        let body = if chunked { dechunked(m.body) } else { Some(m.body.to_vec()) };
        post && m.head_done && m.body_done && !body.is_some_and(|b| is_valid_user(&b))
    })
}

/// The data of a chunked body, or `None` if its sizes do not read.
fn dechunked(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size = usize::from_str_radix(std::str::from_utf8(&body[..line_end]).ok()?, 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        let data = body.get(line_end + 2..line_end + 2 + size)?;
        out.extend_from_slice(data);
        body = body.get(line_end + 4 + size..)?;
    }
}

/// Whether a body is a user the routes would store: an object with a name of 1 to 200 characters and an email of at
/// most 254 holding an `@` (the POST rules of CONTRACT.md).
fn is_valid_user(body: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(user)) = serde_json::from_slice::<serde_json::Value>(body) else { return false };
    let text = |key: &str| user.get(key).and_then(|v| v.as_str()).map(|s| (s.chars().count(), s.contains('@')));
    let name_ok = text("name").is_some_and(|(n, _)| (1..=200).contains(&n));
    let email_ok = text("email").is_some_and(|(n, at)| n <= 254 && at);
    name_ok && email_ok
}

/// A Host value Tomcat refuses: not empty, and not a DNS-style name, an IPv4 address or a bracketed IPv6 address
/// with an optional port of digits (as probed on Tomcat 11.0.22: `.`, `a..b`, `-a`, `a_b`, `a~b`, `:80`, `::1`,
/// `a:0x1` and `[v1.x]` refused; `a.`, `a:`, `a:99999`, `[::1]:80` and `1.2.3` accepted).
fn has_host_outside_dns_syntax(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"host").any(|v| !is_dns_style_host(v)))
}

fn is_dns_style_host(v: &[u8]) -> bool {
    if v.is_empty() {
        return true;
    }
    let (name, port) = if v.first() == Some(&b'[') {
        let Some(end) = v.iter().position(|&b| b == b']') else { return false };
        let inside = &v[1..end];
        if inside.is_empty() || !inside.iter().all(|b| b.is_ascii_hexdigit() || *b == b':' || *b == b'.') {
            return false;
        }
        (None, &v[end + 1..])
    } else {
        let colon = v.iter().position(|&b| b == b':').unwrap_or(v.len());
        (Some(&v[..colon]), &v[colon..])
    };
    let port_ok = port.is_empty() || (port[0] == b':' && port[1..].iter().all(u8::is_ascii_digit));
    let Some(name) = name else { return port_ok };
    let name = name.strip_suffix(b".").unwrap_or(name);
    let label_ok = |l: &[u8]| {
        !l.is_empty()
            && l.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && l.first() != Some(&b'-')
            && l.last() != Some(&b'-')
    };
    port_ok && name.split(|&b| b == b'.').all(label_ok)
}

/// A path Tomcat refuses before any filter runs: one holding an escaped NUL (`%00`), or one whose dot-segments (`..`,
/// also escaped as `%2e`) climb above the root (`/..`, `/a/../..`); the query is not decoded and does not count.
fn has_path_tomcat_refuses(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.target();
        let path = target[..target.iter().position(|&b| b == b'?').unwrap_or(target.len())].to_ascii_lowercase();
        let nul = path.windows(3).any(|w| w == b"%00");
        let dotted = String::from_utf8_lossy(&path).replace("%2e", ".");
        let mut depth = 0i32;
        let mut climbs = false;
        for segment in dotted.split('/').skip(1) {
            match segment {
                ".." => {
                    depth -= 1;
                    climbs |= depth < 0;
                }
                "." | "" => {}
                _ => depth += 1,
            }
        }
        nul || climbs
    })
}

/// An Expect field with an empty value (spaces and tabs aside), which the contract ignores.
fn has_empty_expectation(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"expect").any(|v| v.iter().all(|b| *b == b' ' || *b == b'\t')))
}

/// An absolute-form target whose authority is not the request's Host value.
fn has_absolute_form_host_mismatch(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.request_line().split(|&b| b == b' ').nth(1).unwrap_or_default();
        let Some(at) = target.windows(3).position(|w| w == b"://") else { return false };
        if target.first() == Some(&b'/') {
            return false;
        }
        let rest = &target[at + 3..];
        let authority = &rest[..rest.iter().position(|b| *b == b'/' || *b == b'?').unwrap_or(rest.len())];
        m.named(b"host").any(|host| !host.eq_ignore_ascii_case(authority))
    })
}

/// The table. A new tolerated difference is one entry here, with its case in `contract/cases.json` and its line in
/// `contract/CONTRACT.md`.
pub const TOLERANCES: &[Tolerance] = &[
    Tolerance {
        name: "nonstandard-method",
        reason: "llhttp rejects unknown methods in its parser (and waits for the rest of an HTTP/2 preface after PRI); hyper accepts any token and the router answers 405; CONNECT uses an authority-form target that the stacks handle differently, and Tomcat answers it 501 before any filter runs (RFC 9110 section 9.1: a method the server does not implement SHOULD get 501)",
        matches: has_nonstandard_method,
        refusals: &[
            Step::Status(400),
            Step::Status(404),
            Step::Status(405),
            Step::Status(417),
            Step::Status(431),
            Step::Status(501),
            Step::Closed,
            Step::Open,
        ],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-lowercase-method", "raw-unknown-method", "raw-connect"],
        examples: &[],
    },
    Tolerance {
        name: "bare-lf",
        reason: "RFC 9112 lets a server accept a bare LF as a line ending or reject it",
        matches: has_bare_lf,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-bare-lf"],
        examples: &[],
    },
    Tolerance {
        name: "http10-chunked",
        reason: "chunked encoding is not defined for HTTP/1.0; a stack may decode it or reject it",
        matches: has_http10_transfer_encoding,
        refusals: &[Step::Status(400), Step::Status(501), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-http10-chunked"],
        examples: &[],
    },
    Tolerance {
        name: "other-version",
        reason: "the stacks' parsers disagree on versions they do not speak (HTTP/2.0, the HTTP/2 preface)",
        matches: has_other_version,
        refusals: &[Step::Status(400), Step::Status(505), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-http2-request-line", "raw-http2-prior-knowledge"],
        examples: &[],
    },
    Tolerance {
        name: "odd-target-bytes",
        reason: "RFC 9112 forbids bytes outside visible ASCII in the target; one parser rejects them, another passes them to the routes",
        matches: has_odd_target_bytes,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-non-ascii-target"],
        examples: &[],
    },
    Tolerance {
        name: "fragment",
        reason: "a fragment is never sent by clients; a stack may strip it (and route the path before it), keep it in the path (404) or reject it",
        matches: has_fragment,
        refusals: &[Step::Status(400), Step::Status(404), Step::Status(405), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-fragment-in-target"],
        examples: &[b"\nGET /users/5# HTTP/1.1\r\nHost: x\r\n\r\n"],
    },
    Tolerance {
        name: "request-line-whitespace",
        reason: "RFC 9112 section 3 lets a recipient parse the request line on whitespace boundaries: llhttp accepts repeated spaces, httparse rejects them",
        matches: has_request_line_whitespace,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-bad-request-line-spaces"],
        examples: &[],
    },
    Tolerance {
        name: "content-length-and-transfer-encoding",
        reason: "RFC 9112 section 6.3 lets a server reject the request or process it by its chunked body and close the connection",
        matches: has_length_and_encoding,
        refusals: &[Step::Status(400), Step::Status(501), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-content-length-and-chunked"],
        examples: &[],
    },
    Tolerance {
        name: "malformed-percent-escape",
        reason: "Go's net/http parses the target as a URL before any handler runs and refuses a '%' not followed by two hex digits with 400, and Tomcat decodes the path before it maps a context and refuses it with 400 (an empty body) before any filter runs, neither with a setting to pass the target on; RFC 3986 section 2.1 makes a '%' without two hex digits no URI, and RFC 9110 section 15.5.1 lets 400 refuse it; hyper and llhttp pass the raw path to the routes",
        matches: has_malformed_percent_escape,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["get-malformed-percent-escape"],
        examples: &[],
    },
    Tolerance {
        name: "unsupported-transfer-coding",
        reason: "RFC 9112 section 6.1: 501 to a transfer coding the server does not understand; a stack whose parser refuses the request first answers 400, and Go's net/http sends its own 501; nothing is stored",
        matches: has_unsupported_transfer_coding,
        refusals: &[Step::Status(400), Step::Status(501), Step::Closed],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[
            "raw-te-empty-with-content-length",
            "raw-te-gzip-chunked",
            "raw-te-chunked-twice-one-field",
            "raw-te-chunked-two-fields",
        ],
        examples: &[b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\x0cchunked\r\n\r\n"],
    },
    Tolerance {
        name: "identical-content-lengths",
        reason: "RFC 9110 section 8.6 lets a recipient refuse a repeated Content-Length or take identical values as one (Go's net/http merges them)",
        matches: has_identical_content_lengths,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-content-length-twice-identical"],
        examples: &[],
    },
    Tolerance {
        name: "chunk-size-whitespace",
        reason: "hyper and Go's net/http take whitespace after a chunk size as the start of a chunk extension, llhttp refuses it; a server that accepts it stores the same user",
        matches: has_chunk_size_whitespace,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-chunk-size-trailing-space"],
        examples: &[],
    },
    Tolerance {
        name: "unfinished-request",
        reason: "a request that stops before its head or body ends may be refused as soon as its bytes are malformed, or awaited until its time limit (with or without a 408 for a head)",
        matches: ends_inside_a_request,
        refusals: &[Step::Status(400), Step::Status(408), Step::Status(431), Step::Closed, Step::Open],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[
            b"s HTTP/1.1",
            b"GET /users/1 HTTP/1.1\r\nHost: x\r\nX: \x01",
            b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}X-Big: a",
            b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n{}\r\n0\r\n",
        ],
    },
    Tolerance {
        name: "upgrade-with-body",
        reason: "an Upgrade request (which every server ignores) with a body that has not all come or is malformed: hyper, Go's net/http and the Node server on Node 20 answer a route that does not read its body at once, the Node server on Node 26 waits for the body's end, until the body's time limit (408) at the latest, or refuses it: from Node 26 on, llhttp hands an upgrade request's body to the request rather than to the upgrade, and the server must have it all before it can give the connection back to Node's parser",
        matches: has_upgrade_with_body,
        refusals: &[Step::Status(400), Step::Status(408), Step::Closed, Step::Open],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[
            // The fuzzer's seed 302: Rust and Go answer 404, the Node server on Node 26 waits for the chunked body.
            b"POST /s HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade:e\r\nTransfer-Encoding:chunked\r\n\r\n",
            // Seed 304: Rust and Go answer 405; the body is malformed, and the Node server on Node 26 waits.
            b"POST / HTTP/1.1\r\nHost:\r\nConnection:Upgrade\r\nUpgrade:e\r\nTransfer-Encoding:chunked\r\n\r\n\n0\r\n\r\n",
        ],
    },
    Tolerance {
        name: "closed-after-refused-post",
        reason: "a POST /users whose body was read in full and refused with 400 keeps its connection (the keep-alive rule), but Tomcat ends the connection, saying `Connection: close`, after every answer whose status is 400, 408, 411, 413, 414, 500, 501 or 503 (its Http11Processor decides it once the controller has answered), and has no setting for it; RFC 9112 section 9.6 lets a server close a connection after any response that says `close`, so the requests behind it go unanswered: Tomcat's departure from the contract, not from the RFC, tolerated because no server code can change it",
        matches: has_refused_post,
        refusals: &[Step::Closed],
        served: true,
        follows: Follows::Answer(400),
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-post-refused-then-health"],
        examples: &[
            // The fuzzer's seed 7: no body at all, and Rust, Node and Go keep the connection open after the 400.
            b"POST /users HTTP/1.1\r\nHost:\r\nContent-Type:application/json\r\n\r\n",
            // An empty body, then JSON that fails the email rule, each with a request behind it that Tomcat leaves
            // unanswered.
            b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n",
            b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 24\r\n\r\n{\"name\":\"a\",\"email\":\"b\"}GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n",
        ],
    },
    Tolerance {
        name: "empty-expectation",
        reason: "an empty Expect is ignored (the transport rule), but Tomcat refuses an Expect field without a value with 417 before any filter runs, and has no setting for it; RFC 9110 section 5.6.1 has a recipient ignore empty list elements, so this is Tomcat's departure, tolerated because no server code can run before it",
        matches: has_empty_expectation,
        refusals: &[Step::Status(417)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-expect-empty-ignored", "raw-expect-empty-twice-ignored"],
        examples: &[],
    },
    Tolerance {
        name: "absolute-form-host-mismatch",
        reason: "an absolute-form target is reduced to its path and Host is ignored (RFC 9112 section 3.2.2: an origin server MUST ignore Host then), but Tomcat refuses a target whose host is not Host's with 400 (\"The host specified in the request line is not consistent with the host header\") before any filter runs, and has no setting for it: Tomcat's departure, tolerated because no server code can run before it",
        matches: has_absolute_form_host_mismatch,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["get-absolute-form-query"],
        examples: &[b"GET http://example.com/users/7 HTTP/1.1\r\nHost: x\r\n\r\n"],
    },
    Tolerance {
        name: "unmet-expectation",
        reason: "an Expect other than 100-continue gets 417 (the transport rule), which Go's net/http sends itself before any handler runs, to a HEAD without a Content-Length, and then reads and discards the declared body before closing, up to the body's time limit (RFC 9110 section 10.1.1 lets a server close or read on); a stack that refuses the request's other bytes first answers 400",
        matches: has_unmet_expectation,
        refusals: &[Step::Status(417), Step::Status(400), Step::Closed, Step::Open],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-expect-unknown-417", "raw-expect-unknown-head-417", "raw-expect-unknown-chunked-417"],
        examples: &[],
    },
    Tolerance {
        name: "odd-connection-options",
        reason: "Go's net/http looks for keep-alive and close as substrings of the first Connection field, llhttp does not take an option next to a tab, hyper reads the list: for a Connection value outside the list grammar (`: close`), or on HTTP/1.0 an option beside a tab, two Connection fields, or both keep-alive and close, the connection may close after the answer or stay open (RFC 9112 section 9.3 leaves honouring HTTP/1.0 keep-alive to the server); the answers given must agree",
        matches: has_odd_connection_options,
        refusals: &[Step::Closed, Step::Open],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-connection-option-outside-list-grammar", "raw-http10-keep-alive-next-to-tab"],
        examples: &[b"GET / HTTP/1.1\r\nHost: x\r\nConnection: x close\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"],
    },
    Tolerance {
        name: "malformed-chunk-extension",
        reason: "a `;` after a chunk size with no extension name behind it is malformed (RFC 9112 section 7.1.1): llhttp refuses it with 400, hyper and Go's net/http (removeChunkExtension) skip any extension and read on, and wait for the chunk's data if it is short",
        matches: has_malformed_chunk_extension,
        refusals: &[Step::Status(400), Step::Status(408), Step::Closed, Step::Open],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-chunk-extension-without-name"],
        examples: &[],
    },
    Tolerance {
        name: "long-trailer-field",
        reason: "a trailer field line of 4 KiB or more after a chunked body: Go's net/http reads trailer lines through its 4 KiB connection buffer and fails the body, so the route refuses the request (400) and the connection closes; hyper and llhttp read trailers up to the head limit (16 KiB) and serve the request",
        matches: has_long_trailer_field,
        refusals: &[Step::Status(400), Step::Status(431), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-long-trailer-field"],
        examples: &[],
    },
    Tolerance {
        name: "empty-line-before-request",
        reason: "an empty line before a request line, which RFC 9112 section 2.2 says a server SHOULD ignore: hyper and llhttp ignore it; Go's net/http skips such lines only after a POST on the same connection, and otherwise answers 400 and closes",
        matches: has_empty_line_before_request,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-empty-line-before-request-line"],
        examples: &[
            // The fuzzer's seed 111, mutant 148772: Rust and Node answer both GETs, Go refuses the second.
            b"GET / HTTP/1.1\r\nHost:\r\n\r\n\r\nGET / HTTP/1.1\r\nHost:\r\n\r\n",
        ],
    },
    Tolerance {
        name: "long-chunk-size",
        reason: "a chunk size of more than 16 hex digits (leading zeros count): Go's net/http refuses it (\"http chunk length too large\"), and the body read fails (400, closed); hyper and llhttp read the number",
        matches: has_long_chunk_size,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-chunk-size-leading-zeros"],
        examples: &[],
    },
    Tolerance {
        name: "content-length-beyond-int63",
        reason: "a Content-Length of 2^63 or more: Go's net/http refuses it with 400 before any handler runs (it parses the value as an int64); hyper and llhttp take the number, and the routes answer (a GET, closing the connection behind the unread body) or refuse the body as too large (413). hyper keeps the two largest u64 values as its own markers for a chunked or close-delimited body, so it refuses 2^64-2 and 2^64-1 as too large (431)",
        matches: has_content_length_beyond_int63,
        refusals: &[Step::Status(400), Step::Status(413), Step::Status(431), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-content-length-beyond-int63"],
        examples: &[
            // The fuzzer's seed 604, mutant 156193: hyper answers 431, llhttp routes it (405), Go's net/http 400.
            b"OPTIONS /users/1 HTTP/1.1\r\ncontent-length: 18446744073709551614\r\nHost: 127.0.0.1\r\n\r\n",
        ],
    },
    Tolerance {
        name: "chunk-data-off-its-size",
        reason: "a chunked body whose chunk data does not end where its size says (no CRLF there, or the stream ends first): a stack may refuse it as soon as the bytes are wrong (400) or wait for the rest until the body's time limit (408); nothing is stored",
        matches: has_chunk_data_off_its_size,
        refusals: &[Step::Status(400), Step::Status(408), Step::Closed, Step::Open],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[
            b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n12\r\n{\"nam\"c@d\"}\r\n;0\r\n\r\n",
            // The fuzzer's seed 303: a 1-byte chunk whose data (a CR) is not followed by CRLF; hyper answers 400, Go's
            // net/http waits for more until the body's time limit.
            b"POST /users HTTP/1.1\r\nHost:\r\nContent-Type:application/json\r\nTransfer-Encoding:chunked\r\n\r\n12\r\n{\"name\":\"fz0000000\r\n1;0\r\n\r\n",
        ],
    },
    Tolerance {
        name: "options-asterisk",
        reason: "`OPTIONS *` asks about the server in general (RFC 9110 section 9.3.7), which leaves the answer to the server: Go's net/http (globalOptionsHandler) answers 200 with an empty body before any handler runs; the routes of hyper's and Node's servers have no resource `*` (404), and llhttp refuses it with a bare LF (400)",
        matches: has_options_asterisk,
        refusals: &[Step::Status(404), Step::Status(400), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-options-asterisk"],
        examples: &[
            b"OPTIONS * HTTP/1.1\nHost:\n\n",
            // The fuzzer's seed 43, mutant 79194: hyper and Go refuse the two spaces (400), llhttp reads `*` (404) and
            // Tomcat answers OPTIONS * itself (200).
            b"OPTIONS  * HTTP/1.1\r\nHost:\r\n\r\n",
        ],
    },
    Tolerance {
        name: "asterisk-form-other-method",
        reason: "the asterisk-form target belongs to OPTIONS alone (RFC 9112 section 3.2.4), so `*` with another method is no valid request target; the routes of hyper's, Node's and Go's servers have no resource `*` (404), but Tomcat refuses it with 400 (\"Invalid URI\") before any filter runs, and has no setting for it; RFC 9110 section 15.5.1 lets 400 refuse a malformed request, so either answer is allowed",
        matches: has_asterisk_other_method,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[b"POST * HTTP/1.1\r\nhost:\r\n\r\n"],
    },
    Tolerance {
        name: "framing-field-whitespace",
        reason: "RFC 9110 lets a field value be surrounded by spaces or tabs, which are not part of it; llhttp (Node) refuses a Content-Length or Transfer-Encoding value next to a tab with 400, hyper and Go's net/http trim it",
        matches: has_framing_field_whitespace,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-content-length-trailing-tab", "raw-transfer-encoding-trailing-tab"],
        examples: &[],
    },
    Tolerance {
        name: "empty-chunk-size",
        reason: "a chunked body with an empty line, or a line that does not start with a hex digit, where a chunk size belongs is malformed: hyper and llhttp refuse it with 400, Go's net/http reads on and may serve the request; on a route that does not read its body (every route but POST /users), hyper and Go answer the route and then close, and llhttp does too unless that answer is still queued behind an earlier pipelined one when it finds the body malformed, when its 400 comes instead",
        matches: has_empty_chunk_size,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-empty-chunk-size"],
        examples: &[
            b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\n:0\r\n\r\n",
            b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n;0\r\n\r\n",
            // The fuzzer's seed 109, mutant 9111: Rust and Go answer the GET 200, Node 400.
            b"POST /users HTTP/1.1\r\nHost:\r\nContent-Type:application/json\r\nContent-Length:37\r\n\r\n{\"name\":\"fz0000009111\",\"email\":\"a@b\"}GET / HTTP/1.1\r\nTransfer-Encoding:chunked\r\nHost:\r\n\r\nG",
        ],
    },
    Tolerance {
        name: "large-malformed-body",
        reason: "a body over 64 KiB that is also malformed gets 413 or 400, each stack counting the size and checking the framing in its own order",
        matches: has_large_body,
        refusals: &[Step::Status(413), Step::Status(400), Step::Closed],
        served: false,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-large-chunk-data-off-its-size"],
        examples: &[b"POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n11170\r\n"],
    },
    Tolerance {
        name: "obs-fold",
        reason: "RFC 9112 section 5.2: a server must either refuse a field folded onto a line that starts with a space or tab (obs-fold) with 400, or replace the fold with a space; hyper and llhttp refuse it, Go's net/http (textproto) and Tomcat unfold it before any handler runs, and a Transfer-Encoding unfolded so is one Go's net/http refuses as an unsupported coding with 501 (RFC 9112 section 6.1) where Tomcat reads it as chunked",
        matches: has_obs_fold,
        refusals: &[Step::Status(400), Step::Status(501), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-obs-fold"],
        examples: &[
            // The fuzzer's seed 29, mutant 8016: Rust and Node answer 400, Go 501, and Tomcat routes it (405).
            b"POST / HTTP/1.1\nHost:\nTransfer-Encoding:chunked\n \n\n",
        ],
    },
    Tolerance {
        name: "malformed-host",
        reason: "Go's net/http (readRequest) refuses a Host value holding a byte that no host name, address or port has (a space, a '/', a control byte: \"malformed Host header\") with 400 before any handler runs; hyper and llhttp pass the value on, and the routes ignore Host",
        matches: has_malformed_host,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-malformed-host"],
        examples: &[],
    },
    Tolerance {
        name: "host-outside-dns-syntax",
        reason: "a Host value is ignored by the routes, and RFC 3986 section 3.2.2 lets a reg-name hold sub-delims, '_' and '~' and be empty between dots; Tomcat reads Host as a DNS name (labels of letters, digits and inner hyphens, a trailing dot allowed), an IPv4 address or a bracketed IPv6 one, with an optional port of digits, and refuses anything else with 400 before any filter runs, with no setting for it (RFC 9112 section 3.2: a server MUST answer 400 to a Host field with an invalid value, and Tomcat judges validity more strictly than the URI grammar)",
        matches: has_host_outside_dns_syntax,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[
            // The fuzzer's seed 29, mutant 10: Rust, Node and Go answer 200, Tomcat 400.
            b"GET / HTTP/1.1\r\nHost:.\r\n\r\n",
            b"GET /health HTTP/1.1\r\nHost: a_b\r\n\r\n",
        ],
    },
    Tolerance {
        name: "path-tomcat-refuses",
        reason: "the routes match the raw target, so an escaped NUL (`%00`) or dot-segments that climb above the root (`/..`, `/%2e%2e/`, `/a/../..`) are paths like any other and get 404; Tomcat decodes and normalises the path before it maps a context and refuses both with 400 before any filter runs, with no setting for either (its escaped slash and backslash are set to pass through); RFC 3986 section 5.2.4 leaves no segment above the root, and RFC 9110 section 15.5.1 lets 400 refuse a request the server will not process",
        matches: has_path_tomcat_refuses,
        refusals: &[Step::Status(400)],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &[],
        examples: &[
            // The fuzzer's seed 47: Rust, Node and Go answer 404, Tomcat 400.
            b"GET /%00 HTTP/1.1\r\nHost:\r\n\r\n",
            b"GET /.. HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /%2e%2e/health HTTP/1.1\r\nHost: x\r\n\r\n",
        ],
    },
    Tolerance {
        name: "large-head",
        reason: "Transport rules: a head over 16 KiB or with over 100 fields gets 431, as each stack counts it (the boundary may differ by a few hundred bytes); a large head that is also malformed may get the 400 first, each stack checking size, count and syntax in its own order; Tomcat answers every head over its maxHttpRequestHeaderSize with 400 before any filter runs (RFC 6585 section 5 offers 431, and RFC 9110 section 15.5.1 lets 400 refuse any request the server will not process)",
        matches: has_large_head,
        refusals: &[Step::Status(431), Step::Status(400), Step::Closed],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-head-over-16k-431", "raw-target-over-16k-431", "raw-101-header-fields-431", "raw-large-head-empty-field-name"],
        examples: &[],
    },
    Tolerance {
        name: "bare-cr",
        reason: "RFC 9112 section 2.2 forbids a bare CR outside the line ending: hyper and Go's net/http refuse it with 400 (Go 1.19 kept it in a field value and answered a `chunked\\r` coding with its own 501), and llhttp skips it before a request line and serves the request",
        matches: has_bare_cr,
        refusals: &[Step::Status(400), Step::Status(501), Step::Closed, Step::Open],
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-bare-cr-before-request-line"],
        examples: &[],
    },
    Tolerance {
        name: "trailer-declares-forbidden",
        reason: "a `Trailer` field naming Host, Content-Length or Transfer-Encoding: Go's net/http refuses the request with 400 before any handler runs (\"bad trailer key\"), hyper and llhttp ignore the declaration",
        matches: has_forbidden_trailer_declaration,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-trailer-declares-host"],
        examples: &[],
    },
    Tolerance {
        name: "target-outside-uri-grammar",
        reason: "a target with a byte RFC 3986 does not allow (`<`, `>`, `\"`, `{`, `|` …) or that is neither a path nor a full URI (`h:`, `h://`, `h://:=`): hyper's URI parser refuses it with 400, llhttp and Go's net/http pass it to the routes (404); an authority with a port that is no number (`h://:=`) is the other way round, routed by hyper and llhttp and refused 400 by Go's URL parser; and a scheme with a digit, `+`, `-` or `.` in it (`t0://e`), which RFC 3986 section 3.1 allows, is refused 400 by llhttp, whose URL parser reads letters only there, and routed by hyper and Go; Tomcat refuses with 400, before any filter runs and with no setting, every absolute-form target whose scheme is not http or https (`p://h/`), which the others route. RFC 9112 section 3.2 lets a server answer 400 to a target it cannot use",
        matches: has_target_outside_uri_grammar,
        refusals: REFUSED,
        served: true,
        follows: Follows::Anywhere,
        decided_on: DECIDED_ON_2026_12,
        cases: &["raw-target-outside-uri-grammar"],
        examples: &[
            b"GET ://x HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET h:// HTTP/1.1\r\nHost: x\r\n\r\n",
            // The fuzzer's seed 110, mutant 50561: Rust and Node route it (200), Go's URL parser refuses it (400).
            b"GET h://:= HTTP/1.0\r\n\r\n",
            // The fuzzer's seed 402: Rust and Go route it (200), llhttp refuses the digit in its scheme (400).
            b"GET t0://e HTTP/1.1\r\nHost:\r\n\r\n",
            // The fuzzer's seed 41, mutant 10204: Rust, Node and Go route it (200), Tomcat refuses the scheme (400).
            b"GET p://127.0.0.1 HTTP/1.1\r\nHost:127.0.0.1\r\n\r\n",
        ],
    },
];

/// One request of a stream, as far as a lenient reading can tell: its head (up to its empty line, or to the end of
/// the stream when it has none) and its body.
struct Message<'a> {
    head: &'a [u8],
    /// Whether the head ended (with an empty line).
    head_done: bool,
    /// The body: by the last `Content-Length` of digits, to the chunked body's `0` line, or none.
    body: &'a [u8],
    /// Whether the body is all there (as long as declared, or chunked up to its last chunk and empty line).
    body_done: bool,
}

impl<'a> Message<'a> {
    /// The lines of the head, line endings removed, from the request line on: the empty lines a server ignores
    /// before it (RFC 9112 section 2.2) are skipped.
    fn lines(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).skip_while(|l| l.is_empty())
    }

    /// The request line, without its line ending.
    fn request_line(&self) -> &'a [u8] {
        self.lines().next().unwrap_or(b"")
    }

    /// The header fields of the head as (name, value), trimmed, line endings removed.
    fn fields(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        self.lines().skip(1).filter_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            Some((line[..colon].trim_ascii(), line[colon + 1..].trim_ascii()))
        })
    }

    fn named(&self, name: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.fields().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }

    /// The values of the fields called `name` as sent: not trimmed, so that a control byte next to the value (which
    /// `trim_ascii` would take for whitespace) shows.
    fn raw_named(&self, name: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.lines().skip(1).filter_map(move |line| {
            let colon = line.iter().position(|&b| b == b':')?;
            line[..colon].trim_ascii().eq_ignore_ascii_case(name).then(|| &line[colon + 1..])
        })
    }

    fn target(&self) -> &'a [u8] {
        self.request_line().split(|&b| b == b' ').nth(1).unwrap_or(b"")
    }

    /// The target as a stack that takes a run of spaces for one reads it (`OPTIONS  *`: llhttp and Tomcat do).
    fn loose_target(&self) -> &'a [u8] {
        self.request_line().split(|&b| b == b' ').filter(|part| !part.is_empty()).nth(1).unwrap_or(b"")
    }
}

/// The requests of a stream, read leniently: a predicate asks about each one, so that the body of one request and
/// the request line of the next are never read as one line.
fn messages(bytes: &[u8]) -> Vec<Message<'_>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let crlf = rest.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
        let lf = rest.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
        let Some(end) = [crlf, lf].into_iter().flatten().min() else {
            out.push(Message { head: rest, head_done: false, body: b"", body_done: false });
            break;
        };
        let mut message = Message { head: &rest[..end], head_done: true, body: b"", body_done: true };
        let after = &rest[end..];
        let chunked =
            message.named(b"transfer-encoding").any(|v| v.to_ascii_lowercase().windows(7).any(|w| w == b"chunked"));
        let body_len = if chunked {
            let last = after.windows(5).position(|w| w == b"0\r\n\r\n").map(|i| i + 5);
            message.body_done = last.is_some();
            last.unwrap_or(after.len())
        } else {
            let length = message
                .named(b"content-length")
                .last()
                .and_then(|v| std::str::from_utf8(v).ok()?.parse::<usize>().ok());
            message.body_done = length.unwrap_or(0) <= after.len();
            length.unwrap_or(0).min(after.len())
        };
        message.body = &after[..body_len];
        out.push(message);
        rest = &after[body_len..];
    }
    out
}

/// Whether any request of the stream has the feature.
fn any(bytes: &[u8], feature: impl Fn(&Message) -> bool) -> bool {
    messages(bytes).iter().any(feature)
}

const METHODS: &[&[u8]] = &[b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH"];

fn has_nonstandard_method(bytes: &[u8]) -> bool {
    any(bytes, |m| !METHODS.contains(&m.request_line().split(|&b| b == b' ').next().unwrap_or(b"")))
}

fn has_bare_lf(bytes: &[u8]) -> bool {
    // In a head, or in the lines of a chunked body (sizes, trailers).
    let bare = |part: &[u8]| part.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || part[i - 1] != b'\r'));
    any(bytes, |m| bare(m.head) || (m.named(b"transfer-encoding").next().is_some() && bare(m.body)))
}

fn has_http10_transfer_encoding(bytes: &[u8]) -> bool {
    any(bytes, |m| m.request_line().ends_with(b"HTTP/1.0") && m.named(b"transfer-encoding").next().is_some())
}

fn has_other_version(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let version = m.request_line().rsplit(|&b| b == b' ').next().unwrap_or(b"");
        version != b"HTTP/1.1" && version != b"HTTP/1.0"
    })
}

fn has_odd_target_bytes(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let line = m.request_line();
        let start = line.iter().position(|&b| b == b' ').map_or(line.len(), |i| i + 1);
        let end = line.len().saturating_sub(9).max(start);
        line[start..end].iter().any(|&b| b >= 0x7f || (b < 0x20 && b != b'\t'))
    })
}

fn has_fragment(bytes: &[u8]) -> bool {
    any(bytes, |m| m.target().contains(&b'#'))
}

fn has_request_line_whitespace(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let line = m.request_line();
        line.windows(2).any(|w| w == b"  ") || line.contains(&b'\t') || line.starts_with(b" ") || line.ends_with(b" ")
    })
}

fn has_length_and_encoding(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"content-length").next().is_some() && m.named(b"transfer-encoding").next().is_some())
}

fn has_malformed_percent_escape(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let path = m.target().split(|&b| b == b'?').next().unwrap_or(b"");
        path.iter()
            .enumerate()
            .any(|(i, &b)| b == b'%' && !path.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
    })
}

fn has_unsupported_transfer_coding(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let values: Vec<&[u8]> = m.named(b"transfer-encoding").collect();
        let plain_chunked = values.len() == 1 && values[0].eq_ignore_ascii_case(b"chunked");
        // A control byte beside the value (`\x0cchunked`): hyper and llhttp refuse it, Go keeps it in the coding.
        let control = m.raw_named(b"transfer-encoding").any(|v| v.iter().any(|&b| b < 0x20 && b != b'\t'));
        !values.is_empty() && (!plain_chunked || control)
    })
}

fn has_identical_content_lengths(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        // The same number, however written (`5`, `05`): hyper keeps one of two equal lengths, Go merges them.
        let number = |v: &[u8]| std::str::from_utf8(v).ok().and_then(|v| v.parse::<u64>().ok());
        let values: Vec<Option<u64>> =
            m.named(b"content-length").flat_map(|v| v.split(|&b| b == b',')).map(|v| number(v.trim_ascii())).collect();
        values.len() > 1 && values[0].is_some() && values.windows(2).all(|w| w[0] == w[1])
    })
}

fn has_chunk_size_whitespace(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        m.named(b"transfer-encoding").next().is_some()
            && m.body.split(|&b| b == b'\n').any(|line| {
                let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
                digits > 0 && matches!(line.get(digits), Some(b' ' | b'\t'))
            })
    })
}

fn ends_inside_a_request(bytes: &[u8]) -> bool {
    // The last request stops before its head or its body ends: bytes the servers may refuse at once or wait on.
    messages(bytes).last().is_some_and(|m| !m.head_done || !m.body_done)
}

fn has_upgrade_with_body(bytes: &[u8]) -> bool {
    // A request that asks for an upgrade and declares a body: chunked, or a Content-Length other than 0.
    any(bytes, |m| {
        let declared = m.named(b"transfer-encoding").next().is_some()
            || m.named(b"content-length").any(|v| v.trim_ascii() != b"0");
        m.named(b"upgrade").next().is_some() && declared
    })
}

fn has_chunk_data_off_its_size(bytes: &[u8]) -> bool {
    // Read the chunked body by its sizes (the lenient reader above stops at the first `0` line instead): data that
    // is not followed by CRLF where its size ends, or that runs past the stream. Size lines without a size are other
    // predicates' business (empty-chunk-size).
    let off = |body: &[u8]| {
        let mut rest = body;
        loop {
            let Some(eol) = rest.iter().position(|&b| b == b'\n') else { return false };
            let digits: Vec<u8> = rest[..eol].iter().copied().take_while(u8::is_ascii_hexdigit).collect();
            let Some(size) = std::str::from_utf8(&digits).ok().and_then(|d| usize::from_str_radix(d, 16).ok()) else {
                return false;
            };
            if size == 0 {
                return false;
            }
            let data_end = eol + 1 + size;
            match rest.get(data_end..data_end + 2) {
                Some(b"\r\n") => rest = &rest[data_end + 2..],
                _ => return true,
            }
        }
    };
    messages(bytes).iter().any(|m| {
        let chunked = m.named(b"transfer-encoding").any(|v| v.eq_ignore_ascii_case(b"chunked"));
        let head_len = m.head.len();
        // The message's bytes from its body on, to the end of the stream: the sizes decide where the body ends.
        let start = m.head.as_ptr() as usize - bytes.as_ptr() as usize + head_len;
        chunked && off(&bytes[start..])
    })
}

fn has_unmet_expectation(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"expect").any(|v| !v.is_empty() && !v.eq_ignore_ascii_case(b"100-continue")))
}

fn has_odd_connection_options(bytes: &[u8]) -> bool {
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    any(bytes, |m| {
        let values: Vec<&[u8]> = m.named(b"connection").collect();
        let options = || values.iter().flat_map(|v| v.split(|&b| b == b',')).map(<[u8]>::trim_ascii);
        let outside_grammar = options().any(|o| !o.iter().all(token));
        let has = |name: &[u8]| options().any(|o| o.eq_ignore_ascii_case(name));
        let tab = m.head.split(|&b| b == b'\n').any(|l| {
            let colon = l.iter().position(|&b| b == b':').unwrap_or(0);
            l[..colon].trim_ascii().eq_ignore_ascii_case(b"connection") && l[colon..].contains(&b'\t')
        });
        let http10 = m.request_line().ends_with(b"HTTP/1.0");
        outside_grammar || (http10 && (values.len() > 1 || tab || (has(b"keep-alive") && has(b"close"))))
    })
}

/// The lines of a chunked message's body (chunk sizes, data, trailers): where chunk-line predicates look.
fn chunk_lines<'a>(m: &Message<'a>) -> Vec<&'a [u8]> {
    if m.named(b"transfer-encoding").next().is_none() {
        return Vec::new();
    }
    m.body.split(|&b| b == b'\n').collect()
}

fn has_options_asterisk(bytes: &[u8]) -> bool {
    any(bytes, |m| m.request_line().starts_with(b"OPTIONS ") && m.loose_target() == b"*")
}

fn has_asterisk_other_method(bytes: &[u8]) -> bool {
    any(bytes, |m| !m.request_line().starts_with(b"OPTIONS ") && m.loose_target() == b"*")
}

fn has_malformed_chunk_extension(bytes: &[u8]) -> bool {
    // A chunk size, then `;` with no token behind it (blanks allowed between).
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    any(bytes, |m| {
        chunk_lines(m).iter().any(|line| {
            let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
            let rest = line[digits..].trim_ascii_start();
            digits > 0 && rest.first() == Some(&b';') && !rest[1..].trim_ascii_start().first().is_some_and(token)
        })
    })
}

fn has_long_trailer_field(bytes: &[u8]) -> bool {
    // A line of 4,000 bytes or more after the last chunk's `0` size line (4 KiB less the CRLF and a little slack).
    any(bytes, |m| {
        let lines = chunk_lines(m);
        let zero =
            |l: &&[u8]| l.first() == Some(&b'0') && l.iter().take_while(|b| b.is_ascii_hexdigit()).all(|&b| b == b'0');
        lines.iter().position(zero).is_some_and(|at| lines[at + 1..].iter().any(|l| l.len() >= 4_000))
    })
}

fn has_empty_line_before_request(bytes: &[u8]) -> bool {
    any(bytes, |m| m.head.starts_with(b"\r\n") || m.head.starts_with(b"\n"))
}

fn has_long_chunk_size(bytes: &[u8]) -> bool {
    any(bytes, |m| chunk_lines(m).iter().any(|line| line.iter().take_while(|b| b.is_ascii_hexdigit()).count() > 16))
}

fn has_content_length_beyond_int63(bytes: &[u8]) -> bool {
    // Digits only (a sign or a blank is another tolerance's or a refusal); a number past u128 is beyond too.
    any(bytes, |m| {
        m.named(b"content-length").flat_map(|v| v.split(|&b| b == b',')).map(<[u8]>::trim_ascii).any(|v| {
            !v.is_empty()
                && v.iter().all(u8::is_ascii_digit)
                && std::str::from_utf8(v).ok().and_then(|d| d.parse::<u128>().ok()).is_none_or(|n| n >= 1 << 63)
        })
    })
}

fn has_framing_field_whitespace(bytes: &[u8]) -> bool {
    // A tab inside the raw Content-Length or Transfer-Encoding line, around its value.
    let framing = |l: &[u8]| {
        let colon = l.iter().position(|&b| b == b':').unwrap_or(0);
        let name = &l[..colon];
        let named = name.eq_ignore_ascii_case(b"content-length") || name.eq_ignore_ascii_case(b"transfer-encoding");
        named && l[colon..].contains(&b'\t')
    };
    any(bytes, |m| m.head.split(|&b| b == b'\n').any(framing))
}

fn has_bare_cr(bytes: &[u8]) -> bool {
    // A CR not followed by LF anywhere in the stream's heads or chunk lines.
    bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

fn has_forbidden_trailer_declaration(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        m.named(b"trailer").any(|v| {
            v.split(|&b| b == b',').map(<[u8]>::trim_ascii).any(|name| {
                [b"host".as_slice(), b"content-length", b"transfer-encoding"]
                    .iter()
                    .any(|f| name.eq_ignore_ascii_case(f))
            })
        })
    })
}

fn has_target_outside_uri_grammar(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.target();
        let odd = |b: &u8| b"\"<>\\^`{|}".contains(b);
        // An absolute-form target starts with a scheme (a letter, then letters, digits, `+`, `-`, `.`) before `://`.
        let scheme = |s: &[u8]| {
            s.first().is_some_and(u8::is_ascii_alphabetic)
                && s.iter().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
        };
        // … and an authority after it: a host (`h://` has none), and a port of digits if any (`h://:=` has neither).
        let authority = |rest: &[u8]| {
            let a = &rest[..rest.iter().position(|b| b"/?#".contains(b)).unwrap_or(rest.len())];
            let port_at = a.iter().rposition(|&b| b == b':').filter(|_| !a.ends_with(b"]"));
            let (host, port) = port_at.map_or((a, &b""[..]), |c| (&a[..c], &a[c + 1..]));
            !host.is_empty() && port.iter().all(u8::is_ascii_digit)
        };
        let absolute = target
            .windows(3)
            .position(|w| w == b"://")
            .is_some_and(|i| scheme(&target[..i]) && authority(&target[i + 3..]));
        let origin_or_absolute = target.starts_with(b"/") || absolute || target == b"*";
        // llhttp reads a scheme of letters alone: `t0://e` is a full URI to hyper and Go, and a malformed one to it.
        let scheme_part: Vec<u8> = target.iter().copied().take_while(|&b| b != b':').collect();
        let scheme_beyond_letters = absolute && scheme_part.iter().any(|b| !b.is_ascii_alphabetic());
        // Tomcat serves the http and https schemes alone and refuses any other (`p://h/`).
        let other_scheme =
            absolute && !(scheme_part.eq_ignore_ascii_case(b"http") || scheme_part.eq_ignore_ascii_case(b"https"));
        target.iter().any(odd) || (!target.is_empty() && !origin_or_absolute) || scheme_beyond_letters || other_scheme
    })
}

fn has_empty_chunk_size(bytes: &[u8]) -> bool {
    // An empty line where a size belongs (after a chunk's data and its CRLF, or first), or a first size line that
    // starts with no hex digit.
    any(bytes, |m| {
        // The first size line empty, or starting with a byte that is no hex digit (`G`).
        let first_empty = m.body.first().is_some_and(|b| !b.is_ascii_hexdigit());
        // A size line with no digit at all where the sizes say one belongs (`;0`, an extension alone).
        let no_digit = m.body.split(|&b| b == b'\n').any(|l| l.starts_with(b";"));
        m.named(b"transfer-encoding").next().is_some()
            && (first_empty
                || no_digit
                || (m.body.windows(4).any(|w| w == b"\r\n\r\n") && !m.body.ends_with(b"0\r\n\r\n")))
    })
}

fn has_large_body(bytes: &[u8]) -> bool {
    // A declared length or a chunk size over 64 KiB.
    const LIMIT: u64 = 64 * 1024;
    any(bytes, |m| {
        let declared = m
            .named(b"content-length")
            .any(|v| std::str::from_utf8(v).ok().and_then(|v| v.parse::<u64>().ok()).is_some_and(|n| n > LIMIT));
        let chunk = m.body.split(|&b| b == b'\n').any(|line| {
            let digits: Vec<u8> = line.iter().copied().take_while(u8::is_ascii_hexdigit).collect();
            std::str::from_utf8(&digits).ok().and_then(|d| u64::from_str_radix(d, 16).ok()).is_some_and(|n| n > LIMIT)
        });
        declared || chunk
    })
}

fn has_obs_fold(bytes: &[u8]) -> bool {
    // A line of a head that starts with a space or tab.
    any(bytes, |m| m.head.split(|&b| b == b'\n').skip(1).any(|l| l.starts_with(b" ") || l.starts_with(b"\t")))
}

fn has_malformed_host(bytes: &[u8]) -> bool {
    // The bytes Go's httpguts.ValidHostHeader accepts.
    let valid = |b: &u8| b.is_ascii_alphanumeric() || b"!$%&'()*+,-.:;=@[]_~".contains(b);
    any(bytes, |m| m.named(b"host").any(|v| !v.iter().all(valid)))
}

/// The contract's head limit, 16 KiB.
const HEAD_LIMIT: usize = 16 * 1024;

fn has_large_head(bytes: &[u8]) -> bool {
    // Within a kilobyte of 16 KiB (as each stack counts), or over; or near or over 100 fields.
    any(bytes, |m| m.head.len() >= HEAD_LIMIT - 1024 || m.head.split(|&b| b == b'\n').count() > 95)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A POST /users is "refused" when its body is missing or no valid user, chunked or not; a valid one is not, and
    /// the row begins only right after a 400.
    #[test]
    fn a_refused_post_is_told_from_a_valid_one() {
        let post = |framing: &str, body: &str| {
            format!("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n{body}")
        };
        let valid = r#"{"name":"a","email":"a@b"}"#;
        let sized = |body: &str| post(&format!("Content-Length: {}\r\n", body.len()), body);
        assert!(!has_refused_post(sized(valid).as_bytes()));
        assert!(has_refused_post(sized("").as_bytes()));
        assert!(has_refused_post(sized(r#"{"name":"","email":"a@b"}"#).as_bytes()));
        assert!(has_refused_post(sized(r#"{"name":"a","email":"ab"}"#).as_bytes()));
        let chunked = post("Transfer-Encoding: chunked\r\n", &format!("{:x}\r\n{valid}\r\n0\r\n\r\n", valid.len()));
        assert!(!has_refused_post(chunked.as_bytes()), "{chunked}");
        assert!(!has_refused_post(b"GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n"));
        let with_query = sized(r#"{"NAME":"Q","EMAIL":"Q@R"}"#).replacen("/users", "/users?1", 1);
        assert!(has_refused_post(with_query.as_bytes()), "{with_query}");
        assert!(Follows::Answer(400).holds(Some(400)) && !Follows::Answer(400).holds(Some(201)));
        assert!(!Follows::Answer(400).holds(None) && Follows::Anywhere.holds(None));
    }

    /// The Host values Tomcat 11.0.22 was seen to accept and refuse (the predicate's doc comment).
    #[test]
    fn a_host_outside_tomcat_syntax_is_found() {
        for ok in ["", "x", "a.", "a:", "a:80", "a:99999", "[::1]", "[::1]:80", "1.2.3.4", "1.2.3", "A.B", "0a"] {
            assert!(is_dns_style_host(ok.as_bytes()), "{ok:?}");
        }
        for bad in [".", "a..b", "-a", "a-", "a_b", ".a", "!", "a~b", ":80", "a b", "a%20b", "a:0x1", "a.-b", "::1"] {
            assert!(!is_dns_style_host(bad.as_bytes()), "{bad:?}");
        }
        assert!(!is_dns_style_host(b"[v1.x]") && !is_dns_style_host(b"a:80:80") && !is_dns_style_host(b"a@b"));
    }

    /// The paths Tomcat 11.0.22 was seen to refuse (400) where the routes answer 404, and some it serves.
    #[test]
    fn a_path_tomcat_refuses_is_found() {
        let get = |target: &str| format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
        for refused in ["/%00", "/users/1%00", "/..", "/%2e%2e/", "/%2E%2E/health", "/a/../.."] {
            assert!(has_path_tomcat_refuses(get(refused).as_bytes()), "{refused}");
        }
        for served in ["/health", "/%2e", "/a/../health", "/users/1?x=%00", "/%01", "/%2F"] {
            assert!(!has_path_tomcat_refuses(get(served).as_bytes()), "{served}");
        }
    }

    #[test]
    fn every_tolerance_has_a_reason_and_a_unique_name() {
        let mut names: Vec<&str> = TOLERANCES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOLERANCES.len());
        assert!(TOLERANCES.iter().all(|t| !t.reason.is_empty() && !t.refusals.is_empty()));
    }

    #[test]
    fn allowed_steps() {
        let lf = TOLERANCES.iter().find(|t| t.name == "bare-lf").unwrap();
        assert!(lf.allows(&[Step::Status(200), Step::Status(400), Step::Closed]));
        assert!(!lf.allows(&[Step::Status(200), Step::Status(404)]));
        let method = TOLERANCES.iter().find(|t| t.name == "nonstandard-method").unwrap();
        assert!(!method.allows(&[Step::Status(200), Step::Status(405)]));
    }

    #[test]
    fn two_features_of_one_request_are_allowed_together_where_neither_alone_allows_it() {
        // The fuzzer's seed 501: an Upgrade with a body that never came (the Node server waits) and a fragment in the
        // target (Go keeps it in the path and answers 404), where Rust routes the path before the fragment (200).
        let bytes = b"GET /users/5# HTTP/1.1\r\ncontent-length:7\r\nConnection:Upgrade\r\nUpgrade:t\r\nHost:\r\n\r\n";
        let steps = [Step::Status(200), Step::Open, Step::Status(404)];
        let row = |name: &str| TOLERANCES.iter().find(|t| t.name == name).expect("the row exists");
        let (upgrade, fragment) = (row("upgrade-with-body"), row("fragment"));
        assert!((upgrade.matches)(bytes) && (fragment.matches)(bytes));
        assert!(!upgrade.allows(&steps) && !fragment.allows(&steps));
        assert!(allow_together(&[upgrade, fragment], &steps));
        // Two different served answers are still a divergence, and so is one row alone.
        assert!(!allow_together(&[upgrade, fragment], &[Step::Status(200), Step::Status(201), Step::Open]));
        assert!(!allow_together(&[upgrade], &steps));
        // A third row that matches too but forbids serving (the body never came) does not spoil the pair.
        let unfinished = row("unfinished-request");
        let found = allowing_together(&[unfinished, upgrade, fragment], &steps).expect("two rows allow it");
        assert_eq!(found.iter().map(|t| t.name).collect::<Vec<_>>(), ["upgrade-with-body", "fragment"]);
    }

    #[test]
    fn the_predicates_read_the_features() {
        assert!(has_nonstandard_method(b"get / HTTP/1.1\r\n\r\n"));
        assert!(!has_nonstandard_method(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST /users HTTP/1.1\r\n"));
        assert!(has_bare_lf(b"GET / HTTP/1.1\nHost: x\r\n\r\n"));
        assert!(has_identical_content_lengths(b"POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n"));
        assert!(!has_identical_content_lengths(b"POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n"));
        assert!(has_malformed_percent_escape(b"GET /%zz HTTP/1.1\r\n"));
        assert!(has_empty_expectation(b"GET / HTTP/1.1\r\nHost: x\r\nExpect: \r\n\r\n"));
        assert!(!has_empty_expectation(b"GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n"));
        assert!(has_absolute_form_host_mismatch(b"GET http://a/users/1 HTTP/1.1\r\nHost: b\r\n\r\n"));
        assert!(!has_absolute_form_host_mismatch(b"GET http://a:80/users/1?x HTTP/1.1\r\nHost: a:80\r\n\r\n"));
        assert!(!has_absolute_form_host_mismatch(b"GET /users/1 HTTP/1.1\r\nHost: b\r\n\r\n"));
        assert!(!has_malformed_percent_escape(b"GET /%35?%z HTTP/1.1\r\n"));
    }
}
