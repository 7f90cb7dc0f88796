//! bombardier: the tool of the "Node.js vs Spring Boot" study. Go, fasthttp, one goroutine per connection on as
//! many threads as it is given.
//!
//! This is codesenberg/bombardier, the HTTP benchmarking tool (a Go program: `go install
//! github.com/codesenberg/bombardier@latest`, or a release binary). Debian's package of the same name is a different
//! program, a curses game installed as `/usr/games/bombardier` that never exits on its own, so [`LoadTool::available`]
//! refuses a `bombardier` found in a `games` directory rather than run it.
//!
//! With `-o json -p r -l` bombardier prints one JSON object: the latency percentiles 50, 75, 90 and 99 in
//! microseconds from its full histogram (exact), the mean and the maximum, the count of each status class and the
//! connection errors. It gives no p99.9, which is reported as `None`.

use std::path::PathBuf;

use anyhow::Result;
use serde::Deserialize;

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, Tool, from_json, request_args, words};
use crate::schema::Latency;

pub struct Bombardier;

impl LoadTool for Bombardier {
    fn kind(&self) -> Tool {
        Tool::Bombardier
    }

    fn available(&self) -> bool {
        http_bombardier().is_some()
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let (c, d) = (spec.connections.max(1).to_string(), format!("{}s", spec.duration_s));
        let mut v = words(&["bombardier", "-c", &c, "-d", &d, "-t", "10s", "-l", "-o", "json", "-p", "r"]);
        v.extend(request_args(spec, "Content-Type: application/json", "-b"));
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let r = from_json::<Output>("bombardier", stdout)?.result;
        let ms = |us: f64| us / 1000.0;
        let non_2xx = r.req1xx + r.req3xx + r.req4xx + r.req5xx + r.others;
        let requests = r.req2xx + non_2xx;
        let duration_s = r.time_taken_seconds;
        let errors = r.errors.unwrap_or_default().iter().map(|e| e.count).sum();
        let p = &r.latency.percentiles;
        Ok(LoadResult {
            requests,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { requests as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: ms(p.p50),
                p90_ms: ms(p.p90),
                p99_ms: ms(p.p99),
                p99_9_ms: None,
                max_ms: ms(r.latency.max),
            },
            errors,
            non_2xx,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        // `-r` limits the rate, but the latencies are not corrected for coordinated omission, and the harness's open
        // loop has oha and autocannon for that; bombardier is used closed-loop only.
        None
    }

    fn version(&self) -> String {
        // `bombardier --version` prints "bombardier version v1.2.6 linux/amd64".
        match http_bombardier() {
            Some(path) => crate::command::first_line_of(&[&path.display().to_string(), "--version"])
                .unwrap_or_else(|| "unknown version".into()),
            None => "not installed".into(),
        }
    }
}

/// bombardier's `-o json -p r` output: the run's `result` (its `spec` echoes the command line).
#[derive(Deserialize)]
struct Output {
    result: RunResult,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunResult {
    time_taken_seconds: f64,
    req1xx: u64,
    req2xx: u64,
    req3xx: u64,
    req4xx: u64,
    req5xx: u64,
    /// Responses with a status outside 1xx–5xx.
    others: u64,
    /// There only when there were any: timeouts, resets, refused connections.
    #[serde(default)]
    errors: Option<Vec<ErrorCount>>,
    /// In microseconds.
    latency: LatencyUs,
}

#[derive(Deserialize)]
struct ErrorCount {
    count: u64,
}

#[derive(Deserialize)]
struct LatencyUs {
    max: f64,
    percentiles: Percentiles,
}

#[derive(Deserialize)]
struct Percentiles {
    #[serde(rename = "50")]
    p50: f64,
    #[serde(rename = "90")]
    p90: f64,
    #[serde(rename = "99")]
    p99: f64,
}

/// The first `bombardier` on `PATH`, unless it is the curses game of the same name (in a `games` directory).
fn http_bombardier() -> Option<PathBuf> {
    let found = which::which("bombardier").ok()?;
    let in_games = found.parent().and_then(|d| d.file_name()).is_some_and(|name| name == "games");
    (!in_games).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Method;

    #[test]
    fn post_command_line() {
        let spec = LoadSpec {
            url: "http://127.0.0.1:9/users".into(),
            method: Method::Post,
            body: Some(r#"{"a":1}"#.into()),
            connections: 50,
            duration_s: 15,
            threads: 1,
            rate: None,
            script: None,
        };
        assert_eq!(
            Bombardier.argv(&spec).join(" "),
            r#"bombardier -c 50 -d 15s -t 10s -l -o json -p r -m POST -H Content-Type: application/json -b {"a":1} http://127.0.0.1:9/users"#
        );
    }
}
