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

use anyhow::{Context, Result, anyhow};

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, num};
use crate::schema::Latency;

pub struct Bombardier;

impl LoadTool for Bombardier {
    fn name(&self) -> &'static str {
        "bombardier"
    }
    fn program(&self) -> &'static str {
        "bombardier"
    }

    fn available(&self) -> bool {
        http_bombardier().is_some()
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let mut v = vec![
            "bombardier".to_string(),
            "-c".into(),
            spec.connections.max(1).to_string(),
            "-d".into(),
            format!("{}s", spec.duration_s),
            "-t".into(),
            "10s".into(),
            "-l".into(),
            "-o".into(),
            "json".into(),
            "-p".into(),
            "r".into(),
        ];
        if spec.method != "GET" {
            v.push("-m".into());
            v.push(spec.method.clone());
        }
        if let Some(body) = &spec.body {
            v.push("-H".into());
            v.push("Content-Type: application/json".into());
            v.push("-b".into());
            v.push(body.clone());
        }
        v.push(spec.url.clone());
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let start =
            stdout.find('{').ok_or_else(|| anyhow!("no JSON in bombardier's output (was it run with -o json?)"))?;
        let v: serde_json::Value = serde_json::from_str(stdout[start..].trim()).context("bombardier's JSON")?;
        let get = |path: &[&str]| num(&v, path).ok_or_else(|| anyhow!("bombardier JSON lacks {}", path.join(".")));
        let us_as_ms = |path: &[&str]| -> Result<f64> { Ok(get(path)? / 1000.0) };
        let count = |key: &str| -> Result<u64> { Ok(get(&["result", key])? as u64) };
        let ok = count("req2xx")?;
        let non_2xx = count("req1xx")? + count("req3xx")? + count("req4xx")? + count("req5xx")? + count("others")?;
        let requests = ok + non_2xx;
        let duration_s = get(&["result", "timeTakenSeconds"])?;
        // The errors list is there only when there were any: timeouts, resets, refused connections.
        let errors = v["result"]["errors"]
            .as_array()
            .map(|list| list.iter().filter_map(|e| e["count"].as_u64()).sum())
            .unwrap_or(0);
        Ok(LoadResult {
            requests,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { requests as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: us_as_ms(&["result", "latency", "percentiles", "50"])?,
                p90_ms: us_as_ms(&["result", "latency", "percentiles", "90"])?,
                p99_ms: us_as_ms(&["result", "latency", "percentiles", "99"])?,
                p99_9_ms: None,
                max_ms: us_as_ms(&["result", "latency", "max"])?,
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
            Some(path) => crate::env::first_line_of(&[&path.display().to_string(), "--version"])
                .unwrap_or_else(|| "unknown version".into()),
            None => "not installed".into(),
        }
    }
}

/// The first `bombardier` on `PATH`, unless it is the curses game of the same name (in a `games` directory).
fn http_bombardier() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    let found = std::env::split_paths(&paths).map(|dir| dir.join("bombardier")).find(|p| super::is_executable(p))?;
    let in_games = found.parent().and_then(|d| d.file_name()).is_some_and(|name| name == "games");
    (!in_games).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_command_line() {
        let spec = LoadSpec {
            url: "http://127.0.0.1:9/users".into(),
            method: "POST".into(),
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
