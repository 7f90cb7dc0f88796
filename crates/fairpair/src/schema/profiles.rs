//! The profiled runs' records (`fairpair run --profile`): apart from every measured figure, one run per subject and
//! scenario under `perf record`, its samples sorted into parts, and the runtime's own account of its pauses.
//! Every field is new in schema version 3 and optional: a file without them reads as a run without profiles.

use serde::{Deserialize, Serialize};

use crate::profile::parts::Part;
use crate::profile::pauses::{LoopDelay, Pauses};

/// The profile phase: its runs, and why some subjects (or all) were not profiled.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileRecord {
    /// The sampling frequency (`perf record -F`), per second.
    pub frequency_hz: u32,
    /// One sentence per subject, or for the whole phase, that was not profiled, and why.
    #[serde(default)]
    pub not_profiled: Vec<String>,
    #[serde(default)]
    pub runs: Vec<ProfileRun>,
}

/// One profiled run: a fresh server, the measured runs' warm-up, then `perf record` for the window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileRun {
    pub subject: String,
    pub scenario: String,
    pub connections: u32,
    /// The profiled window, as the load tool measured it.
    pub window_s: f64,
    /// Requests the load tool had answered in the window.
    pub requests: u64,
    /// Samples of the subject's processes in the window (the folded total, before any bound).
    pub samples: u64,
    /// The samples `perf script` printed; the folded total (`samples`) equals it unless a sample had no stack.
    #[serde(default)]
    pub perf_samples: u64,
    /// Samples whose leaf frame is a named function.
    pub resolved: u64,
    /// Samples per part of the request's CPU (`profile::parts`).
    #[serde(default)]
    pub parts: Vec<PartSamples>,
    /// The garbage collector's pauses in the window, when the runtime logs them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pauses: Option<Pauses>,
    /// Node's event-loop delay in the window (every worker's, the worst of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_delay: Option<LoopDelay>,
    /// The server command of the profiled run, and what differs from the measured runs (flags, build).
    pub server_command: String,
    #[serde(default)]
    pub differences: Vec<String>,
    /// The exact `perf record` and `perf script` commands (empty in files written before they were recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub perf_command: String,
    /// The folded stacks, relative to the results folder (`profiles/SUBJECT-SCENARIO.folded`).
    pub folded_file: String,
    /// Samples of the stacks left out of the folded file by its size bound (the lightest stacks).
    #[serde(default)]
    pub folded_dropped_samples: u64,
    /// The subject's measured median CPU per request at the same scenario and connections (closed loop), in µs.
    #[serde(default)]
    pub measured_cpu_us_per_request: Option<f64>,
    /// Whether that median is of closed-loop runs left out of the summaries (a busy machine), there being no summary.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub measured_from_left_out: bool,
    /// The folded stacks themselves, for the flame graph: read from `folded_file` beside `benchmark.json`, never
    /// written into it.
    #[serde(skip)]
    pub stacks: Option<String>,
}

/// The samples of one part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSamples {
    pub part: Part,
    pub samples: u64,
}

impl ProfileRun {
    /// The profile's CPU per request in µs: each sample stands for 1/frequency s of CPU.
    pub fn cpu_us_per_request(&self, frequency_hz: u32) -> Option<f64> {
        cpu_us_per_request(self.samples, frequency_hz, self.requests)
    }

    /// A part's CPU per request in µs (0 for a part with no sample).
    pub fn part_us_per_request(&self, part: Part, frequency_hz: u32) -> Option<f64> {
        let samples = self.parts.iter().find(|p| p.part == part).map_or(0, |p| p.samples);
        cpu_us_per_request(samples, frequency_hz, self.requests)
    }

    /// The share of samples that resolved to named functions, in percent.
    pub fn resolved_percent(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.resolved as f64 / self.samples as f64 * 100.0)
    }
}

/// Samples ÷ frequency ÷ requests, in µs: `None` without requests or frequency.
pub fn cpu_us_per_request(samples: u64, frequency_hz: u32, requests: u64) -> Option<f64> {
    (requests > 0 && frequency_hz > 0).then(|| samples as f64 / frequency_hz as f64 / requests as f64 * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_per_request_is_samples_over_frequency_over_requests() {
        // 999 samples at 999 Hz is one second of CPU; over 50 000 requests, 20 µs each.
        assert_eq!(cpu_us_per_request(999, 999, 50_000), Some(20.0));
        assert_eq!(cpu_us_per_request(999, 999, 0), None);
        let run = ProfileRun {
            samples: 1998,
            requests: 100_000,
            parts: vec![PartSamples { part: Part::Kernel, samples: 999 }],
            resolved: 1998,
            ..ProfileRun::default()
        };
        assert_eq!(run.cpu_us_per_request(999), Some(20.0));
        assert_eq!(run.part_us_per_request(Part::Kernel, 999), Some(10.0));
        assert_eq!(run.part_us_per_request(Part::Json, 999), Some(0.0));
        assert_eq!(run.resolved_percent(), Some(100.0));
    }

    #[test]
    fn a_file_without_profiles_reads() {
        let r: ProfileRecord = serde_json::from_str(r#"{"frequency_hz": 999}"#).unwrap();
        assert!(r.runs.is_empty() && r.not_profiled.is_empty());
    }
}
