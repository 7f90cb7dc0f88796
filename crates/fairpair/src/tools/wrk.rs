//! wrk: the default tool. C, epoll, one thread per loader CPU; on one core it drives far more requests per second
//! than autocannon, so the server, not the tool, is what gets measured.
//!
//! The request (method, body, headers) is set at the top level of a Lua script, the only place wrk applies it to
//! every connection, and the script's `done()` prints the exact percentiles from wrk's own histogram as one JSON line
//! (the text summary rounds them and has no p99.9).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, Tool, from_json, words};
use crate::schema::Latency;

pub struct Wrk;

/// The marker that starts the JSON line our `done()` prints.
const MARKER: &str = "{\"fairpair_wrk\":1";

impl LoadTool for Wrk {
    fn kind(&self) -> Tool {
        Tool::Wrk
    }
    fn install_hint(&self) -> &'static str {
        "install it with `apt-get install wrk` (or run scripts/compare, which does)"
    }

    fn prepare(&self, dir: &Path, scenario: &str, spec: &LoadSpec) -> Result<Option<(PathBuf, Option<String>)>> {
        let text = script(spec.method.as_str(), spec.body.as_deref());
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("wrk-{scenario}.lua"));
        std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Some((path, Some(text))))
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        // wrk refuses fewer connections than threads.
        let threads = spec.threads.clamp(1, spec.connections.max(1)).to_string();
        let (c, d) = (spec.connections.to_string(), format!("{}s", spec.duration_s));
        let mut v = words(&["wrk", "-t", &threads, "-c", &c, "-d", &d, "--timeout", "10s"]);
        if let Some(script) = &spec.script {
            v.extend(["-s".to_string(), script.display().to_string()]);
        }
        v.push(spec.url.clone());
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(MARKER))
            .ok_or_else(|| anyhow!("no JSON line from the fairpair wrk script (was wrk run with -s?)"))?;
        let out: Output = from_json("wrk", line)?;
        let ms = |us: f64| us / 1000.0;
        let duration_s = out.duration_us / 1e6;
        let e = &out.errors;
        Ok(LoadResult {
            requests: out.requests,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { out.requests as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: ms(out.latency_us.p50),
                p90_ms: ms(out.latency_us.p90),
                p99_ms: ms(out.latency_us.p99),
                p99_9_ms: Some(ms(out.latency_us.p99_9)),
                max_ms: ms(out.latency_us.max),
                mean_ms: None,
            },
            errors: e.connect + e.read + e.write + e.timeout,
            // wrk's `status` errors are the responses with a status of 400 or more.
            non_2xx: e.status,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        // wrk has no rate limit (wrk2 has, but is not packaged); it is closed-loop only.
        None
    }

    fn version(&self) -> String {
        // `wrk -v` prints "wrk 4.1.0 [epoll] Copyright …" and exits 1.
        crate::machine::command::first_line_of(&["wrk", "-v"])
            .map(|l| l.split(" Copyright").next().unwrap_or(&l).to_string())
            .unwrap_or_else(|| "not installed".into())
    }
}

/// The JSON line of [`script`]'s `done()` (the fields the harness reads; `bytes`, `min`, `mean` and `stdev` are
/// there for a reader of the raw output).
#[derive(Deserialize)]
struct Output {
    requests: u64,
    duration_us: f64,
    errors: Errors,
    latency_us: Percentiles,
}

/// wrk's `summary.errors`: socket errors by kind, and `status`, the responses with a status ≥ 400.
#[derive(Deserialize)]
struct Errors {
    connect: u64,
    read: u64,
    write: u64,
    status: u64,
    timeout: u64,
}

/// From wrk's latency histogram, in microseconds.
#[derive(Deserialize)]
struct Percentiles {
    max: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    p99_9: f64,
}

/// The Lua script: the request at the top level, and a `done()` that prints one JSON line.
pub fn script(method: &str, body: Option<&str>) -> String {
    let mut s =
        String::from("-- Written by fairpair. The request is set at the top level so every connection uses it.\n");
    s.push_str(&format!("wrk.method = {}\n", lua_string(method)));
    if let Some(body) = body {
        s.push_str(&format!("wrk.body = {}\n", lua_string(body)));
        s.push_str("wrk.headers[\"Content-Type\"] = \"application/json\"\n");
    }
    s.push_str(
        r#"
-- Exact figures from wrk's histogram (microseconds), as one JSON line the harness reads.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"fairpair_wrk":1,"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.3f,"stdev":%.3f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p99_9":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
"#,
    );
    s
}

/// A Lua string literal: printable ASCII as is, every other byte as a decimal escape, so any body survives.
fn lua_string(text: &str) -> String {
    let mut out = String::from("\"");
    for b in text.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Method;

    #[test]
    fn lua_strings_escape_quotes_and_bytes() {
        assert_eq!(lua_string(r#"{"a":"\n"}"#), r#""{\"a\":\"\\n\"}""#);
        assert_eq!(lua_string("é\n"), r#""\195\169\010""#);
    }

    #[test]
    fn post_script_sets_the_request_at_top_level() {
        let s = script("POST", Some(r#"{"name":"x"}"#));
        assert!(s.contains("wrk.method = \"POST\"\n"));
        assert!(s.contains("wrk.body = \"{\\\"name\\\":\\\"x\\\"}\"\n"));
        assert!(s.contains("wrk.headers[\"Content-Type\"] = \"application/json\"\n"));
        assert!(!script("GET", None).contains("wrk.body"));
    }

    #[test]
    fn threads_never_exceed_connections() {
        let spec = LoadSpec {
            url: "http://127.0.0.1:1/".into(),
            method: Method::Get,
            body: None,
            connections: 1,
            duration_s: 2,
            threads: 4,
            rate: None,
            script: None,
        };
        let argv = Wrk.argv(&spec);
        assert_eq!(argv[..7], ["wrk", "-t", "1", "-c", "1", "-d", "2s"]);
    }
}
