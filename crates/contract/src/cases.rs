//! The format of `contract/cases.json` (described for people in `contract/README.md`) and its validation.
//!
//! The JSON is read into plain serde structs first, then checked and turned into [`Case`]s: regular expressions
//! compiled, byte parts expanded, and every rule of the README enforced (a `tolerated` case needs a reason, and so
//! on), so that a mistake in the file is reported once, by name, instead of surfacing as a puzzling test failure.

use regex::Regex;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::LazyLock;

/// The cases file as it stood when this crate was built.
const EMBEDDED: &str = include_str!("../../../contract/cases.json");

/// The embedded cases, parsed once. A broken file is a bug in this repository, caught by this crate's own tests.
pub fn cases() -> &'static [Case] {
    static CASES: LazyLock<Vec<Case>> =
        LazyLock::new(|| parse(EMBEDDED).unwrap_or_else(|e| panic!("contract/cases.json is invalid: {e}")));
    &CASES
}

/// One case: a request and the response the contract requires.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub rule: String,
    /// The stable, kebab-case name of the contract rule; several cases share one. Output is grouped by it.
    pub rule_id: String,
    pub level: Level,
    pub matching: Match,
    /// The entry of the tolerance table (`contract/tolerances.json`) this case is an example of, by name: a
    /// tolerance, or an equivalence. Its reason is the case's reason.
    pub tolerance: Option<String>,
    /// The case's own note: why it is not `exact` where it names no entry of the table, or what it adds to the
    /// entry's reason where it names one.
    pub reason: Option<String>,
    pub requires: Requires,
    pub roundtrip: bool,
    pub send: Wire,
    pub expect: Expect,
}

/// How strictly a response is compared (see `contract/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Match {
    Exact,
    StatusClass,
    Tolerated,
}

/// How much of the contract a case belongs to (see `contract/README.md`).
///
/// `Api` is what any service implementing the API must get right: well-formed HTTP/1.1 on the documented routes.
/// `Full` adds the transport, `JSON.parse`'s own edge cases and the cases that need server flags. The order matters:
/// verifying at a level checks every case at that level or below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Api,
    Full,
}

impl Level {
    /// The word used in `cases.json`, on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Api => "api",
            Level::Full => "full",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "api" => Ok(Level::Api),
            "full" => Ok(Level::Full),
            other => Err(format!("{other:?} is not a level (api or full)")),
        }
    }
}

/// Server settings a case needs. The default (nothing required) is a server started with the default flags.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// The store capacity, `--max-users` (10,000: a store that is full from the start).
    pub max_users: Option<u64>,
    /// The head time limit, `--header-timeout-ms`: a case that waits for the limit to pass cannot wait the
    /// contract's 10 s in every suite, so it asks for a server started with a short one.
    pub header_timeout_ms: Option<u64>,
}

impl Requires {
    pub fn is_empty(&self) -> bool {
        self.max_users.is_none() && self.header_timeout_ms.is_none()
    }

    /// The flags that start a server with these settings (every reference server takes them).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(n) = self.max_users {
            flags.extend(["--max-users".to_owned(), n.to_string()]);
        }
        if let Some(ms) = self.header_timeout_ms {
            flags.extend(["--header-timeout-ms".to_owned(), ms.to_string()]);
        }
        flags
    }
}

/// What a case sends: an ordinary request the runner completes, or raw bytes sent as they are.
#[derive(Debug, Clone)]
pub enum Wire {
    Request(Request),
    Raw(Vec<u8>),
}

/// An ordinary HTTP/1.1 request.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// The `Host` a request names when it sets none.
    pub const DEFAULT_HOST: &str = "127.0.0.1";

    /// A `GET` of `target` with no header of its own.
    pub fn get(target: &str) -> Request {
        Request { method: "GET".to_owned(), target: target.to_owned(), headers: Vec::new(), body: None }
    }

    /// A `POST` of a JSON text to `target`, with its `Content-Type`.
    pub fn post_json(target: &str, body: &[u8]) -> Request {
        Request {
            method: "POST".to_owned(),
            target: target.to_owned(),
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: Some(body.to_vec()),
        }
    }

    /// The headers as sent: `Host: 127.0.0.1` first unless the request sets a `Host`, then its own in order, then,
    /// with a body, its `Content-Length` unless it sets `Content-Length` or `Transfer-Encoding`. Nothing else is
    /// added: this is the one place a request is completed, for the socket runner and the in-process router tests.
    pub fn completed_headers(&self) -> Vec<(String, String)> {
        let has = |name: &str| self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
        let mut out = Vec::with_capacity(self.headers.len() + 2);
        if !has("host") {
            out.push(("Host".to_owned(), Self::DEFAULT_HOST.to_owned()));
        }
        out.extend(self.headers.iter().cloned());
        if let Some(body) = &self.body {
            if !has("content-length") && !has("transfer-encoding") {
                out.push(("Content-Length".to_owned(), body.len().to_string()));
            }
        }
        out
    }

    /// The exact bytes on the wire: the request line, [`Request::completed_headers`], the body.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, self.target).into_bytes();
        for (name, value) in self.completed_headers() {
            out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        if let Some(body) = &self.body {
            out.extend_from_slice(body);
        }
        out
    }
}

/// One accepted outcome of a `tolerated` case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnyOf {
    Status(u16),
    Closed,
}

/// What a response header must be.
#[derive(Debug, Clone)]
pub enum HeaderExpect {
    Value(String),
    Pattern(Regex),
    Absent,
}

impl fmt::Display for HeaderExpect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderExpect::Value(v) => write!(f, "{v:?}"),
            HeaderExpect::Pattern(p) => write!(f, "a match for {}", p.as_str()),
            HeaderExpect::Absent => write!(f, "no such header"),
        }
    }
}

/// The expected response.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    pub status: Option<u16>,
    pub status_class: Option<u8>,
    pub any_of: Vec<AnyOf>,
    pub content_type: Option<String>,
    pub body: Option<String>,
    pub body_pattern: Option<Regex>,
    pub no_body: bool,
    /// Header names are lower-case.
    pub headers: BTreeMap<String, HeaderExpect>,
    pub closes: bool,
    /// Nothing may follow the response on the connection (no second answer to bytes behind a request the server
    /// refused and closed on); checked while waiting for the close, so it goes with `closes`.
    pub nothing_after: bool,
}

impl Expect {
    /// The expected status in words, for mismatch messages.
    pub fn describe_status(&self) -> String {
        if !self.any_of.is_empty() {
            let all: Vec<String> = self
                .any_of
                .iter()
                .map(|a| match a {
                    AnyOf::Status(s) => s.to_string(),
                    AnyOf::Closed => "closed".to_owned(),
                })
                .collect();
            return format!("one of {}", all.join(", "));
        }
        match (self.status, self.status_class) {
            (Some(s), _) => s.to_string(),
            (None, Some(c)) => format!("{c}xx"),
            (None, None) => "a response".to_owned(),
        }
    }
}

impl Case {
    /// The exact bytes this case puts on the wire: raw bytes as they are, a `request` completed by
    /// [`Request::completed_headers`] (a `Host` and a `Content-Length` when it has none; nothing else).
    pub fn request_bytes(&self) -> Vec<u8> {
        match &self.send {
            Wire::Raw(bytes) => bytes.clone(),
            Wire::Request(request) => request.to_bytes(),
        }
    }

    /// Whether the request is a HEAD (its response has no body whatever its `Content-Length` says).
    pub fn is_head(&self) -> bool {
        match &self.send {
            Wire::Request(r) => r.method == "HEAD",
            Wire::Raw(bytes) => bytes.starts_with(b"HEAD "),
        }
    }

    /// Whether it only reads: a GET or a HEAD (a raw case: its first request line), of any route but `/users`, the
    /// route of POST (whose 405 names POST in `Allow`). A run that loads only GET scenarios asks a service for these
    /// cases alone (RFC 9110 section 9.1: every general-purpose server supports GET and HEAD), not for the POST,
    /// PUT or DELETE ones.
    pub fn only_reads(&self) -> bool {
        let (method, target) = match &self.send {
            Wire::Request(r) => (r.method.as_bytes(), r.target.as_bytes()),
            Wire::Raw(bytes) => {
                let mut words = bytes.split(|&b| b == b' ');
                (words.next().unwrap_or_default(), words.next().unwrap_or_default())
            }
        };
        let path = target.split(|&b| b == b'?').next().unwrap_or_default();
        (method == b"GET" || method == b"HEAD") && path != b"/users"
    }
}

// ---- The file as serde reads it. ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    #[allow(dead_code)] // Documentation for people: which contract the cases describe.
    contract: Option<String>,
    cases: Vec<RawCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: String,
    rule: String,
    rule_id: String,
    level: Level,
    #[serde(rename = "match")]
    matching: Match,
    tolerance: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    requires: Requires,
    #[serde(default)]
    roundtrip: bool,
    request: Option<RawRequest>,
    raw: Option<BytesSpec>,
    expect: RawExpect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequest {
    method: String,
    target: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    body: Option<BytesSpec>,
}

/// Bytes as the files write them: a string, or a list of parts (text, `{"hex": …}`, `{"repeat": …, "times": …}`).
#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum BytesSpec {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum Part {
    Text(String),
    Hex { hex: String },
    Repeat { repeat: String, times: usize },
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawAnyOf {
    Status(u16),
    Word(String),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawHeader {
    Value(String),
    Pattern { pattern: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    status: Option<u16>,
    status_class: Option<u8>,
    #[serde(default)]
    any_of: Vec<RawAnyOf>,
    content_type: Option<String>,
    body: Option<String>,
    body_pattern: Option<String>,
    #[serde(default)]
    no_body: bool,
    #[serde(default)]
    headers: BTreeMap<String, Option<RawHeader>>,
    #[serde(default)]
    closes: bool,
    #[serde(default)]
    nothing_after: bool,
}

/// Parses and validates a cases file; the error names the case and what is wrong with it.
pub fn parse(json: &str) -> Result<Vec<Case>, String> {
    let file: File = serde_json::from_str(json).map_err(|e| format!("not a cases file: {e}"))?;
    if file.version != 1 {
        return Err(format!("version {} is not supported (this reader knows version 1)", file.version));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(file.cases.len());
    for raw in file.cases {
        if !seen.insert(raw.name.clone()) {
            return Err(format!("case {:?}: the name is used twice", raw.name));
        }
        let name = raw.name.clone();
        out.push(convert(raw).map_err(|e| format!("case {name:?}: {e}"))?);
    }
    Ok(out)
}

/// One case as the file has it → a `Case`: what to send, what to expect, and whether the two agree with its match.
fn convert(raw: RawCase) -> Result<Case, String> {
    let send = convert_send(raw.request, raw.raw)?;
    let expect = convert_expect(raw.expect)?;
    check_match(raw.matching, raw.reason.as_deref(), raw.tolerance.as_deref(), &expect)?;
    if let Some(name) = &raw.tolerance {
        check_tolerance(name, raw.matching, &expect)?;
    }
    if !is_kebab(&raw.rule_id) {
        return Err(format!("rule_id {:?} is not kebab-case (a-z, 0-9 and single dashes)", raw.rule_id));
    }
    if !raw.requires.is_empty() && raw.level != Level::Full {
        return Err("a case that `requires` server settings is `full`: a service run by someone else cannot meet them"
            .to_owned());
    }
    if matches!(send, Wire::Raw(_)) && raw.level != Level::Full {
        return Err("a `raw` case is `full`: it checks the transport, not the API".to_owned());
    }
    if raw.roundtrip && expect.status != Some(201) {
        return Err("`roundtrip` only makes sense for a 201".to_owned());
    }
    Ok(Case {
        name: raw.name,
        rule: raw.rule,
        rule_id: raw.rule_id,
        level: raw.level,
        matching: raw.matching,
        tolerance: raw.tolerance,
        reason: raw.reason,
        requires: raw.requires,
        roundtrip: raw.roundtrip,
        send,
        expect,
    })
}

/// What to send: a request built from its parts, or raw bytes; exactly one of them.
fn convert_send(request: Option<RawRequest>, raw: Option<BytesSpec>) -> Result<Wire, String> {
    match (request, raw) {
        (Some(r), None) => Ok(Wire::Request(Request {
            method: r.method,
            target: r.target,
            headers: r.headers,
            body: r.body.map(expand).transpose()?,
        })),
        (None, Some(bytes)) => Ok(Wire::Raw(expand(bytes)?)),
        _ => Err("needs exactly one of `request` and `raw`".to_owned()),
    }
}

/// What to expect, with `any_of`'s words, header expectations and patterns read.
fn convert_expect(e: RawExpect) -> Result<Expect, String> {
    let mut any_of = Vec::new();
    for a in e.any_of {
        any_of.push(match a {
            RawAnyOf::Status(s) => AnyOf::Status(s),
            RawAnyOf::Word(w) if w == "closed" => AnyOf::Closed,
            RawAnyOf::Word(w) => return Err(format!("any_of: {w:?} is neither a status nor \"closed\"")),
        });
    }
    let mut headers = BTreeMap::new();
    for (name, want) in e.headers {
        let want = match want {
            None => HeaderExpect::Absent,
            Some(RawHeader::Value(v)) => HeaderExpect::Value(v),
            Some(RawHeader::Pattern { pattern }) => HeaderExpect::Pattern(regex(&pattern)?),
        };
        headers.insert(name.to_ascii_lowercase(), want);
    }
    Ok(Expect {
        status: e.status,
        status_class: e.status_class,
        any_of,
        content_type: e.content_type,
        body: e.body,
        body_pattern: e.body_pattern.as_deref().map(regex).transpose()?,
        no_body: e.no_body,
        headers,
        closes: e.closes,
        nothing_after: e.nothing_after,
    })
}

/// Whether the expectation says what its match needs: a reason for any match but `exact` (its own, or the reason of
/// the table's entry it names), and for each match the fields it compares.
fn check_match(matching: Match, reason: Option<&str>, tolerance: Option<&str>, expect: &Expect) -> Result<(), String> {
    if reason.is_some_and(str::is_empty) {
        return Err("an empty `reason`: leave it out".to_owned());
    }
    if matching != Match::Exact && reason.is_none() && tolerance.is_none() {
        return Err("a case that is not `exact` needs a `reason`, or a `tolerance` whose reason it is".to_owned());
    }
    match matching {
        Match::Exact => {
            if expect.status.is_none() || expect.content_type.is_none() {
                return Err("an `exact` case needs `status` and `content_type`".to_owned());
            }
            let bodies = [expect.body.is_some(), expect.body_pattern.is_some(), expect.no_body];
            if bodies.iter().filter(|b| **b).count() != 1 {
                return Err("an `exact` case needs exactly one of `body`, `body_pattern` and `no_body`".to_owned());
            }
        }
        Match::StatusClass if expect.status.is_none() == expect.status_class.is_none() => {
            return Err("a `status-class` case needs exactly one of `status` and `status_class`".to_owned());
        }
        Match::Tolerated if expect.any_of.is_empty() => {
            return Err("a `tolerated` case needs `any_of`".to_owned());
        }
        _ => {}
    }
    Ok(())
}

/// Whether the table's entry called `name` exists and allows what the case accepts. A tolerance allows its refusals,
/// and any other status where it allows serving; a case that accepts a status class needs one of them in that class.
/// An equivalence is an example of no predicate: only a `tolerated` case names one.
fn check_tolerance(name: &str, matching: Match, expect: &Expect) -> Result<(), String> {
    use crate::tolerances::{Entry, Step};
    let not_allowed = |what: String| Err(format!("tolerance {name:?} does not allow {what}"));
    let (refusals, served) = match crate::tolerances::entry(name) {
        None => return Err(format!("tolerance {name:?}: no entry of contract/tolerances.json has this name")),
        Some(Entry::Equivalence) if matching != Match::Tolerated => {
            return Err(format!("{name:?} is an equivalence, which only a `tolerated` case names"));
        }
        Some(Entry::Equivalence) => return Ok(()),
        Some(Entry::Tolerance { refusals, served }) => (refusals, served),
    };
    let status_allowed = |s: u16| served || refusals.contains(&Step::Status(s));
    for outcome in &expect.any_of {
        match outcome {
            AnyOf::Closed if !refusals.contains(&Step::Closed) => return not_allowed("a closed connection".to_owned()),
            AnyOf::Status(s) if !status_allowed(*s) => return not_allowed(format!("status {s}")),
            _ => {}
        }
    }
    if let Some(s) = expect.status.filter(|s| !status_allowed(*s)) {
        return not_allowed(format!("status {s}"));
    }
    let in_class = |c: u8| refusals.iter().any(|r| matches!(r, Step::Status(s) if s / 100 == u16::from(c)));
    if let Some(c) = expect.status_class.filter(|c| !served && !in_class(*c)) {
        return not_allowed(format!("a {c}xx status"));
    }
    Ok(())
}

/// Lower-case letters and digits in words joined by single dashes, as `get-user` or `transport-head-limits`.
fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id
            .split('-')
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn regex(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| format!("bad pattern {pattern:?}: {e}"))
}

pub(crate) fn expand(spec: BytesSpec) -> Result<Vec<u8>, String> {
    let parts = match spec {
        BytesSpec::Text(text) => return Ok(text.into_bytes()),
        BytesSpec::Parts(parts) => parts,
    };
    let mut out = Vec::new();
    for part in parts {
        match part {
            Part::Text(text) => out.extend_from_slice(text.as_bytes()),
            Part::Repeat { repeat, times } => out.extend_from_slice(repeat.repeat(times).as_bytes()),
            Part::Hex { hex } => out.extend(decode_hex(&hex)?),
        }
    }
    Ok(out)
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    if hex.len() % 2 != 0 {
        return Err(format!("hex {hex:?} has an odd number of digits"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| format!("hex {hex:?} is not hexadecimal")))
        .collect()
}

#[cfg(test)]
mod tests;
