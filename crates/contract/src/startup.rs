//! The start-up line: what a server prints on stdout once it accepts connections (`contract/CONTRACT.md`, "Running a
//! server"), `listening on http://HOST:PORT (N users, W worker[s])`.
//!
//! [`StartupLine::parse`] is the one Rust reader of that line, used by the harness and by every test that starts a
//! server, so that none of them can read it differently. A line with only `listening on http://HOST:PORT` reads
//! too, with the counts `None`. (A custom subject of the harness need print no line at all: the harness gives it
//! its port and waits for a 200 on its ready path.)

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// What every start-up line begins with.
pub const PREFIX: &str = "listening on http://";

/// A start-up line, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartupLine {
    /// The address the server listens on (`localhost` is read as 127.0.0.1).
    pub addr: SocketAddr,
    /// `N` of `(N users, W workers)`: the users in the store at start-up.
    pub users: Option<u64>,
    /// `W` of `(N users, W workers)`: worker threads (Rust, Go) or processes (Node).
    pub workers: Option<u32>,
}

impl StartupLine {
    /// Reads a start-up line; a trailing newline is allowed. `HOST` is an IP address (IPv6 with or without brackets)
    /// or `localhost`, and a `/` may follow the port. The counts are read only when the rest of the line is exactly
    /// `(N users, W worker)` or `(N users, W workers)`, with `worker` singular exactly when `W` is 1; any other rest is
    /// ignored, since a custom subject may print anything after its address. `None` when the line does not start with
    /// [`PREFIX`] or has no address the harness could connect to.
    pub fn parse(line: &str) -> Option<StartupLine> {
        let rest = line.trim_end().strip_prefix(PREFIX)?;
        let (host_port, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let addr = address(host_port.trim_end_matches('/'))?;
        let counts = counts(tail.trim());
        Some(StartupLine { addr, users: counts.map(|(users, _)| users), workers: counts.map(|(_, workers)| workers) })
    }

    /// The base URL to reach the server: `http://HOST:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// `HOST:PORT`, where `HOST` may be `localhost` or an IPv6 address the servers printed without brackets.
fn address(host_port: &str) -> Option<SocketAddr> {
    if let Ok(addr) = host_port.parse() {
        return Some(addr);
    }
    let (host, port) = host_port.rsplit_once(':')?;
    let ip = match host {
        "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        _ => host.parse().ok()?,
    };
    Some(SocketAddr::new(ip, number(port)?))
}

/// `(N users, W worker[s])`.
fn counts(tail: &str) -> Option<(u64, u32)> {
    let inner = tail.strip_prefix('(')?.strip_suffix(')')?;
    let (users, workers) = inner.split_once(", ")?;
    let users = number(users.strip_suffix(" users")?)?;
    let (workers, word) = workers.split_once(' ')?;
    let workers = number(workers)?;
    (word == if workers == 1 { "worker" } else { "workers" }).then_some((users, workers))
}

/// A decimal number of digits only (no sign, no spaces).
fn number<T: std::str::FromStr>(digits: &str) -> Option<T> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What follows `listening on http://`, and what it reads as.
    #[test]
    fn reads_every_form_a_server_prints() {
        type Read = Option<(&'static str, Option<u64>, Option<u32>)>;
        let cases: &[(&str, &str, Read)] = &[
            ("one worker", "127.0.0.1:4321 (10000 users, 1 worker)", Some(("127.0.0.1:4321", Some(10000), Some(1)))),
            ("workers", "127.0.0.1:3000 (10000 users, 4 workers)\n", Some(("127.0.0.1:3000", Some(10000), Some(4)))),
            ("address only", "127.0.0.1:8080", Some(("127.0.0.1:8080", None, None))),
            (
                "localhost and a slash",
                "localhost:80/ (10000 users, 2 workers)",
                Some(("127.0.0.1:80", Some(10000), Some(2))),
            ),
            ("any bind address", "0.0.0.0:3000 (10000 users, 1 worker)", Some(("0.0.0.0:3000", Some(10000), Some(1)))),
            ("IPv6 in brackets", "[::1]:3000", Some(("[::1]:3000", None, None))),
            ("IPv6 without brackets", "::1:3000 (10 users, 1 worker)", Some(("[::1]:3000", Some(10), Some(1)))),
            ("CRLF", "127.0.0.1:1\r\n", Some(("127.0.0.1:1", None, None))),
            ("other text after the address", "127.0.0.1:9 (ceiling)", Some(("127.0.0.1:9", None, None))),
            ("plural for one", "127.0.0.1:9 (10000 users, 1 workers)", Some(("127.0.0.1:9", None, None))),
            ("singular for two", "127.0.0.1:9 (10000 users, 2 worker)", Some(("127.0.0.1:9", None, None))),
            ("signed count", "127.0.0.1:9 (+5 users, 1 worker)", Some(("127.0.0.1:9", None, None))),
            ("host name", "example.com:80", None),
            ("no port", "127.0.0.1", None),
            ("port too large", "127.0.0.1:65536", None),
            ("nothing", "", None),
        ];
        for (case, rest, expected) in cases {
            let got = StartupLine::parse(&format!("{PREFIX}{rest}")).map(|s| (s.addr, s.users, s.workers));
            let expected = expected.map(|(addr, users, workers)| (addr.parse().unwrap(), users, workers));
            assert_eq!(got, expected, "case {case:?}");
        }
    }

    #[test]
    fn other_lines_are_not_start_up_lines() {
        let lines = [
            "ready",
            "",
            "listening on 127.0.0.1:3000",
            "listening on https://127.0.0.1:3000",
            " listening on http://127.0.0.1:3000",
        ];
        for line in lines {
            assert_eq!(StartupLine::parse(line), None, "{line:?}");
        }
    }

    #[test]
    fn the_url_is_the_address() {
        let line = StartupLine::parse("listening on http://localhost:3000/").unwrap();
        assert_eq!(line.url(), "http://127.0.0.1:3000");
        let line = StartupLine::parse("listening on http://[::1]:3000").unwrap();
        assert_eq!(line.url(), "http://[::1]:3000");
    }
}
