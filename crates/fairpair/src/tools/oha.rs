//! oha: Rust, tokio. The one tool here that holds a fixed rate *and* corrects the latencies for coordinated omission
//! (`-q RATE --latency-correction`), so it is preferred for the open-loop phase when installed
//! (`cargo install oha --locked`, scripts/setup-tools).
//!
//! Its JSON (`--output-format json`) gives times in seconds: `summary.requestsPerSec`, `summary.total` (duration),
//! `summary.slowest`, `latencyPercentiles.p50 … "p99.9"`, `statusCodeDistribution` and `errorDistribution` (counts).

use anyhow::{Context, Result, anyhow};

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, num};
use crate::schema::Latency;

pub struct Oha;

impl LoadTool for Oha {
    fn name(&self) -> &'static str {
        "oha"
    }
    fn program(&self) -> &'static str {
        "oha"
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let mut v = vec![
            "oha".to_string(),
            "--no-tui".into(),
            "--output-format".into(),
            "json".into(),
            "-c".into(),
            spec.connections.to_string(),
            "-z".into(),
            format!("{}s", spec.duration_s),
        ];
        if let Some(rate) = spec.rate {
            v.push("-q".into());
            v.push(format!("{}", rate.round() as u64));
            v.push("--latency-correction".into());
        }
        if spec.method != "GET" {
            v.push("-m".into());
            v.push(spec.method.clone());
        }
        if let Some(body) = &spec.body {
            v.push("-H".into());
            v.push("Content-Type: application/json".into());
            v.push("-d".into());
            v.push(body.clone());
        }
        v.push(spec.url.clone());
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let start = stdout.find('{').ok_or_else(|| anyhow!("no JSON in oha's output"))?;
        let v: serde_json::Value = serde_json::from_str(stdout[start..].trim()).context("oha's JSON")?;
        let get = |path: &[&str]| num(&v, path).ok_or_else(|| anyhow!("oha JSON lacks {}", path.join(".")));
        let ms = |key: &str| -> Result<f64> { Ok(get(&["latencyPercentiles", key])? * 1000.0) };
        let count = |key: &str| -> (u64, u64) {
            // (all, non-2xx) over a distribution object of "code or message" → count.
            v.get(key).and_then(|d| d.as_object()).map_or((0, 0), |m| {
                m.iter().fold((0, 0), |(all, bad), (k, n)| {
                    let n = n.as_u64().unwrap_or(0);
                    (all + n, bad + if k.starts_with('2') { 0 } else { n })
                })
            })
        };
        let (responses, non_2xx) = count("statusCodeDistribution");
        // With `-z`, requests still in flight when the time is up are aborted and listed as "aborted due to
        // deadline": an artefact of stopping, not a failure of the server, so they are not counted as errors.
        let errors = v.get("errorDistribution").and_then(|d| d.as_object()).map_or(0, |m| {
            m.iter().filter(|(k, _)| !k.contains("deadline")).map(|(_, n)| n.as_u64().unwrap_or(0)).sum()
        });
        let duration_s = get(&["summary", "total"])?;
        Ok(LoadResult {
            requests: responses,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { responses as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: ms("p50")?,
                p90_ms: ms("p90")?,
                p99_ms: ms("p99")?,
                p99_9_ms: Some(ms("p99.9")?),
                max_ms: get(&["summary", "slowest"])? * 1000.0,
            },
            errors,
            non_2xx,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        Some(OpenLoopSupport { latency_corrected: true, max_rate: None })
    }
}
