//! autocannon: the article's tool, kept so `--tool autocannon --no-pin` reproduces its exact method. Node, one
//! process: on one core it saturates its own CPU at about 20,000 requests/s, so a fast server can make it the
//! bottleneck (the harness flags such runs as loader-bound).

use anyhow::Result;
use serde::Deserialize;

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, Tool, from_json, request_args, words};
use crate::schema::Latency;

pub struct Autocannon;

/// What one autocannon process can hold as a fixed rate on one core, with margin (it saturates at ~20–23k req/s).
pub const MAX_RATE: f64 = 18_000.0;

impl LoadTool for Autocannon {
    fn kind(&self) -> Tool {
        Tool::Autocannon
    }
    fn install_hint(&self) -> &'static str {
        "install it with `npm install -g autocannon` (scripts/setup-tools)"
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let (c, d) = (spec.connections.to_string(), spec.duration_s.to_string());
        let mut v = words(&["autocannon", "-j", "-n", "-c", &c, "-d", &d]);
        if let Some(rate) = spec.rate {
            v.extend(["-R".to_string(), format!("{}", rate.round() as u64)]);
        }
        v.extend(request_args(spec, "Content-Type=application/json", "-b"));
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        // With -j the whole output is one JSON object (progress goes to stderr, and -n turns it off).
        let out: Output = from_json("autocannon", stdout)?;
        let total = out.requests.total;
        // `duration` is the measured time in seconds; `requests.average` is a mean of per-second samples, which
        // drops the last partial second, so the rate is computed from the total instead.
        let duration_s = out.duration;
        let l = &out.latency;
        Ok(LoadResult {
            requests: total,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { total as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: l.p50,
                p90_ms: l.p90,
                p99_ms: l.p99,
                p99_9_ms: Some(l.p99_9),
                max_ms: l.max,
                ..Latency::default()
            },
            errors: out.errors + out.timeouts.unwrap_or(0),
            non_2xx: out.non2xx,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        Some(OpenLoopSupport { latency_corrected: false, max_rate: Some(MAX_RATE) })
    }
}

/// The parts of autocannon's `-j` JSON the harness reads.
#[derive(Deserialize)]
struct Output {
    requests: Requests,
    /// Measured seconds.
    duration: f64,
    /// Latency percentiles in milliseconds.
    latency: Percentiles,
    /// Socket errors (timeouts included in some versions, counted apart in others).
    errors: u64,
    #[serde(default)]
    timeouts: Option<u64>,
    non2xx: u64,
}

#[derive(Deserialize)]
struct Requests {
    total: u64,
}

#[derive(Deserialize)]
struct Percentiles {
    p50: f64,
    p90: f64,
    p99: f64,
    p99_9: f64,
    max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Method;

    #[test]
    fn post_carries_method_header_and_body() {
        let spec = LoadSpec {
            url: "http://127.0.0.1:9/users".into(),
            method: Method::Post,
            body: Some("{}".into()),
            connections: 50,
            duration_s: 15,
            threads: 1,
            rate: Some(1234.4),
            script: None,
        };
        let argv = Autocannon.argv(&spec).join(" ");
        assert_eq!(
            argv,
            "autocannon -j -n -c 50 -d 15 -R 1234 -m POST -H Content-Type=application/json -b {} http://127.0.0.1:9/users"
        );
    }
}
