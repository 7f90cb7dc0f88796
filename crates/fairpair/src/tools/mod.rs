//! Load tools behind one trait, so every subject is loaded by the same command with only the port changed.
//!
//! Each adapter knows three things: the exact command line for a load (closed-loop at a connection count, or
//! open-loop at a rate), how to read the tool's machine-readable output, and how to ask the tool its version. Running
//! the command, pinning it and measuring its CPU time is shared here, so no adapter can do it differently.

pub mod ab;
pub mod autocannon;
pub mod bombardier;
pub mod oha;
pub mod wrk;

crate::plan::names::kind! {
    /// A load tool (`--tool`). A new one is a variant here, its arm in [`Tool::adapter`] and its file in `tools/`
    /// (and its install in `scripts/setup-tools`).
    Tool { Wrk = "wrk", Oha = "oha", Autocannon = "autocannon", Ab = "ab", Bombardier = "bombardier", }
}

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::machine::command::pinned;
pub use crate::machine::command::{installed, shell_words};
pub use crate::plan::names::Method;
use crate::schema::Latency;
use crate::usage;

/// What to load: one scenario against one address.
#[derive(Clone, Debug)]
pub struct LoadSpec {
    pub url: String,
    pub method: Method,
    pub body: Option<String>,
    pub connections: u32,
    pub duration_s: u64,
    /// Load-generator threads, for tools that take them (wrk `-t`).
    pub threads: u32,
    /// Open-loop: total requests per second to send, or `None` for as fast as answered.
    pub rate: Option<f64>,
    /// A file the tool needs (the wrk Lua script), written by [`LoadTool::prepare`].
    pub script: Option<PathBuf>,
}

/// What a tool reports about one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadResult {
    pub requests: u64,
    pub duration_s: f64,
    pub requests_per_sec: f64,
    pub latency: Latency,
    pub errors: u64,
    pub non_2xx: u64,
}

pub trait LoadTool {
    fn kind(&self) -> Tool;
    /// How to install it, for the error that says it is missing.
    fn install_hint(&self) -> &'static str;
    fn name(&self) -> &'static str {
        self.kind().name()
    }
    /// The executable looked up on `PATH`: every tool's is its name.
    fn program(&self) -> &'static str {
        self.name()
    }
    /// Writes any file the tool needs for this scenario into `dir` and returns its path, with its text when that is
    /// worth recording in the results (wrk's Lua script; ab's body file holds only the scenario's body).
    fn prepare(&self, _dir: &Path, _scenario: &str, _spec: &LoadSpec) -> Result<Option<(PathBuf, Option<String>)>> {
        Ok(None)
    }
    /// Whether the tool can be run: its program is on `PATH` (bombardier also checks it is the right program).
    fn available(&self) -> bool {
        installed(self.program())
    }
    /// The command line, program first.
    fn argv(&self, spec: &LoadSpec) -> Vec<String>;
    fn parse(&self, stdout: &str) -> Result<LoadResult>;
    /// Whether it can hold a fixed rate, and whether its latencies are then corrected for coordinated omission.
    fn open_loop(&self) -> Option<OpenLoopSupport>;
    fn version(&self) -> String {
        crate::machine::command::first_line_of(&[self.program(), "--version"]).unwrap_or_else(|| "not installed".into())
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpenLoopSupport {
    pub latency_corrected: bool,
    /// The highest rate it can drive, requests/s per loader CPU it may use; `None` when not limited in practice.
    pub max_rate: Option<f64>,
}

impl Tool {
    /// The tool's adapter: with its variant above, the one place a new tool is added to the harness.
    pub fn adapter(self) -> Box<dyn LoadTool> {
        match self {
            Tool::Wrk => Box::new(wrk::Wrk),
            Tool::Oha => Box::new(oha::Oha),
            Tool::Autocannon => Box::new(autocannon::Autocannon),
            Tool::Ab => Box::new(ab::Ab),
            Tool::Bombardier => Box::new(bombardier::Bombardier),
        }
    }
}

/// Fails with a one-line, actionable message when the tool is missing.
pub fn require(tool: &dyn LoadTool) -> Result<()> {
    if tool.available() {
        return Ok(());
    }
    let how = tool.install_hint();
    Err(usage(format!("load tool `{}` not found on PATH: {how}", tool.name())))
}

/// One finished tool invocation.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub command: String,
    pub stdout: String,
    pub result: LoadResult,
    /// CPU time the tool used (user + system, all its threads), microseconds.
    pub cpu_us: f64,
    pub wall_s: f64,
}

/// Runs the tool to completion, pinned to `cpus` when given, and measures its CPU time.
///
/// The tool's CPU time comes from `getrusage(RUSAGE_CHILDREN)` before and after reaping it: the servers are still
/// running (not yet reaped) at that point, so the difference is the tool's alone.
pub fn invoke(tool: &dyn LoadTool, spec: &LoadSpec, cpus: Option<&[usize]>) -> Result<Invocation> {
    invoke_sampled(tool, spec, cpus, None).map(|(i, _)| i)
}

/// [`invoke`], and when `sample` gives the subject's processes, what [`crate::run::disturbance::Sampler`] read while the
/// tool ran: its own run-queue delay (its counters are gone once it has exited) and the other processes' CPU time.
pub fn invoke_sampled(
    tool: &dyn LoadTool,
    spec: &LoadSpec,
    cpus: Option<&[usize]>,
    sample: Option<&[i32]>,
) -> Result<(Invocation, Option<crate::run::disturbance::Sampled>)> {
    let argv = tool.argv(spec);
    let full = pinned(argv, cpus);
    let command = shell_words(&full);
    let before = children_cpu_us();
    let start = Instant::now();
    let child = Command::new(&full[0])
        .args(&full[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", full[0]))?;
    let sampler = sample.map(|ours| crate::run::disturbance::Sampler::start(child.id() as i32, ours));
    let out = child.wait_with_output().with_context(|| format!("cannot run {}", full[0]));
    let delay = sampler.map(crate::run::disturbance::Sampler::finish);
    let out = out?;
    let wall_s = start.elapsed().as_secs_f64();
    let cpu_us = children_cpu_us() - before;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        bail!("`{command}` failed ({}): {}", out.status, stderr.lines().last().unwrap_or("").trim());
    }
    let result = tool.parse(&stdout).with_context(|| {
        format!("cannot read the output of `{command}` (stderr: {})", String::from_utf8_lossy(&out.stderr).trim())
    })?;
    Ok((Invocation { command, stdout, result, cpu_us, wall_s }, delay))
}

fn children_cpu_us() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    match getrusage(UsageWho::RUSAGE_CHILDREN) {
        Ok(u) => {
            let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 * 1e6 + tv.tv_usec() as f64;
            t(u.user_time()) + t(u.system_time())
        }
        Err(_) => 0.0,
    }
}

/// Reads a tool's JSON output (from its first `{`) into the adapter's typed view of it. The error names the tool, and
/// serde names the field: `oha's JSON output: missing field `summary` at line 1 column 2`.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(tool: &str, stdout: &str) -> Result<T> {
    let start = stdout.find('{').ok_or_else(|| anyhow::anyhow!("no JSON in {tool}'s output"))?;
    serde_json::from_str(stdout[start..].trim()).map_err(|e| anyhow::anyhow!("{tool}'s JSON output: {e}"))
}

/// Words of a command line, as owned strings.
pub(crate) fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The end of a command line for the tools that take the request as flags: `-m METHOD` unless it is GET, the JSON
/// body after `-H CONTENT_TYPE BODY_FLAG` (each tool spells them its own way), then the URL.
pub(crate) fn request_args(spec: &LoadSpec, content_type: &str, body_flag: &str) -> Vec<String> {
    let mut v = Vec::new();
    if spec.method != Method::Get {
        v.extend(["-m".to_string(), spec.method.to_string()]);
    }
    if let Some(body) = &spec.body {
        v.extend([String::from("-H"), content_type.into(), body_flag.into(), body.clone()]);
    }
    v.push(spec.url.clone());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_adapter_is_its_own() {
        assert!(Tool::ALL.iter().all(|&tool| tool.adapter().kind() == tool));
    }
}
