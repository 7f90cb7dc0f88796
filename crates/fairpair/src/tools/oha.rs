//! oha: Rust, tokio. The one tool here that holds a fixed rate *and* corrects the latencies for coordinated omission
//! (`-q RATE --latency-correction`), so it is preferred for the open-loop phase when installed
//! (`cargo install oha --locked --version 1.16.0`, scripts/setup-tools: `--worker-threads` is recent).
//!
//! Its JSON (`--output-format json`) gives times in seconds: `summary.requestsPerSec`, `summary.total` (duration),
//! `summary.slowest`, `latencyPercentiles.p50 … "p99.9"`, `statusCodeDistribution` and `errorDistribution` (counts).

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Deserialize;

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, Tool, from_json, request_args, words};
use crate::schema::Latency;

pub struct Oha;

impl LoadTool for Oha {
    fn kind(&self) -> Tool {
        Tool::Oha
    }
    fn install_hint(&self) -> &'static str {
        "install it with `cargo install oha --locked --version 1.16.0` (scripts/setup-tools)"
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let (c, z) = (spec.connections.to_string(), format!("{}s", spec.duration_s));
        // oha's default is one worker thread per physical core of the machine, whatever CPUs it is pinned to: two
        // threads on one loader CPU added milliseconds of its own to every p99 at a fixed rate.
        let threads = spec.threads.max(1).to_string();
        let mut v =
            words(&["oha", "--no-tui", "--output-format", "json", "-c", &c, "-z", &z, "--worker-threads", &threads]);
        if let Some(rate) = spec.rate {
            v.extend(["-q".to_string(), format!("{}", rate.round() as u64), "--latency-correction".into()]);
            // At a fixed rate the requests still in flight when `-z` ends are the slowest ones: waited for (`-w`),
            // they count in the percentiles instead of being dropped as "aborted due to deadline".
            v.push("-w".into());
        }
        v.extend(request_args(spec, "Content-Type: application/json", "-d"));
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let out: Output = from_json("oha", stdout)?;
        let ms = |s: f64| s * 1000.0;
        let responses: u64 = out.status_code_distribution.values().sum();
        let non_2xx =
            out.status_code_distribution.iter().filter(|(code, _)| !code.starts_with('2')).map(|(_, n)| n).sum();
        // With `-z`, requests still in flight when the time is up are aborted and listed as "aborted due to
        // deadline": an artefact of stopping, not a failure of the server, so they are not counted as errors.
        // oha names its errors only by their message, so the message is all there is to tell them apart by.
        let errors = out.error_distribution.iter().filter(|(what, _)| !what.contains("deadline")).map(|(_, n)| n).sum();
        let duration_s = out.summary.total;
        let p = &out.latency_percentiles;
        Ok(LoadResult {
            requests: responses,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { responses as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: ms(p.p50),
                p90_ms: ms(p.p90),
                p99_ms: ms(p.p99),
                p99_9_ms: Some(ms(p.p99_9)),
                max_ms: ms(out.summary.slowest),
                mean_ms: None,
            },
            errors,
            non_2xx,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        Some(OpenLoopSupport { latency_corrected: true, max_rate: None })
    }
}

/// Requests oha dropped unanswered at its deadline ("aborted due to deadline" in its JSON's `errorDistribution`):
/// none with `-w`; a capacity step counts any against the objective.
pub fn aborted(stdout: &str) -> u64 {
    let Some(start) = stdout.find('{') else { return 0 };
    from_json::<Output>("oha", stdout[start..].trim())
        .map(|o| o.error_distribution.iter().filter(|(what, _)| what.contains("deadline")).map(|(_, n)| n).sum())
        .unwrap_or(0)
}

/// The parts of oha's JSON the harness reads (times in seconds).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    summary: Summary,
    latency_percentiles: Percentiles,
    /// Status code → responses; absent when nothing answered.
    #[serde(default)]
    status_code_distribution: BTreeMap<String, u64>,
    /// Error message → count.
    #[serde(default)]
    error_distribution: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
struct Summary {
    /// The run's duration.
    total: f64,
    slowest: f64,
}

#[derive(Deserialize)]
struct Percentiles {
    p50: f64,
    p90: f64,
    p99: f64,
    #[serde(rename = "p99.9")]
    p99_9: f64,
}
