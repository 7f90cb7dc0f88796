//! The types of `benchmark.json`, the one file a run produces and a report reads.
//!
//! Everything a reader needs to check a figure is in it: the machine, every setting, the exact command of every load
//! run with the tool's raw output, and the summaries computed from them. Field meanings and units are documented in
//! `docs/benchmark-schema.md`; bump [`SCHEMA_VERSION`] on any change a reader of an older file would misread.
//! Units are in the field names (`_ms`, `_us`, `_kib`, `_s`, `_percent`) so the file explains itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analyse::stats::Stat;
use crate::plan::names::{Preset, Tool};

mod capacity;
mod preflight;
mod profiles;
mod runs;
mod summaries;

pub use capacity::*;
pub use preflight::*;
pub use profiles::*;
pub use runs::*;
pub use summaries::*;

/// Version of this layout. A report reads this version and every earlier one (version 1 upgraded on load, see
/// [`upgrade_from_v1`]; version 2 has no capacity search) and refuses any other rather than misreading it.
pub const SCHEMA_VERSION: u32 = 3;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Benchmark {
    pub schema_version: u32,
    /// `fairpair X.Y.Z`.
    pub generator: String,
    /// Whether the run finished. `fairpair run` rewrites the file after every run with `false`, and with `true` once
    /// it is over, so that an interrupted run leaves its runs so far in a file marked incomplete. Files written
    /// before this field existed were written only at the end: a missing field reads as complete.
    #[serde(default = "complete_when_absent")]
    pub complete: bool,
    pub environment: Environment,
    pub settings: Settings,
    pub subjects: Vec<SubjectRecord>,
    pub scenarios: Vec<ScenarioRecord>,
    /// What was planned but not measured, and why (one sentence each).
    pub skipped: Vec<String>,
    /// What the preflight stage measured to calibrate the run to this machine (absent in version 1 files).
    #[serde(default)]
    pub preflight: Option<Preflight>,
    /// Closed-loop load runs (fixed connections, as fast as the server answers), in the order they ran.
    pub runs: Vec<LoadRun>,
    /// Open-loop runs at fixed request rates.
    pub open_loop: Vec<OpenLoopRun>,
    /// Memory and start-up runs, separate from the latency runs.
    pub memory: Vec<MemoryRun>,
    pub summaries: Vec<Summary>,
    pub memory_summaries: Vec<MemorySummary>,
    pub flags: Vec<Flag>,
    /// A two-host run (`--server-host`): the server host and the network path. Absent when everything ran on one
    /// machine, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_hosts: Option<TwoHosts>,
    /// The capacity search at a latency objective: every step of every search (version 3; absent when it did not
    /// run, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityRecord>,
    /// The warm-up probe: each subject's per-second throughput over one long run on a fresh process, apart from
    /// every measured figure (`crate::analyse::warmup`). Empty when it did not run, and in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warmup_probes: Vec<WarmupProbe>,
    /// The profiled runs (`--profile`), apart from every measured figure: absent when it was not asked for, and in
    /// older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<ProfileRecord>,
}

/// The server host of a two-host run, and the path between it and the loader, which ran on the machine that
/// `environment` describes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TwoHosts {
    /// `--server-host` as given: `[USER@]HOST`.
    pub server_host: String,
    /// `--server-dir`: the checkout the servers were started from.
    pub server_dir: String,
    /// The server host's machine and software (its `tools` map is empty: no load tool runs there).
    pub server_environment: Environment,
    /// The loader's and the server's addresses on the path between them (from the ssh connection); the servers
    /// listened on `server_address`.
    pub loader_address: String,
    pub server_address: String,
    /// The loader's network interface on the route to the server host (`ip route get`), whose byte counters each run
    /// records; `None` when it could not be found.
    pub interface: Option<String>,
    /// Round-trip times to the server host measured before the runs (TCP connections to its ssh port: one SYN,
    /// one SYN-ACK), in milliseconds.
    pub rtt_ms: Option<Stat>,
    /// The interface's byte counters over the whole run, preflight included.
    pub interface_bytes: Option<NetworkBytes>,
    /// Whether both hosts run on one kernel (the same `/proc/sys/kernel/random/boot_id`): namespaces or containers
    /// of one machine, as in `scripts/two-hosts`, which then share CPUs, caches and memory bandwidth after all.
    #[serde(default)]
    pub same_kernel: bool,
}

/// Bytes through a network interface during a span of time, as its kernel counters show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkBytes {
    pub rx_bytes: u64,
    pub tx_bytes: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Environment {
    /// UTC, RFC 3339, when the run started.
    pub date: String,
    pub hostname: String,
    pub cpu_model: String,
    /// CPUs the kernel has online.
    pub cpus_online: usize,
    /// CPUs this process may run on (its affinity mask), the ones pinning chooses from.
    pub cpus_allowed: Vec<usize>,
    pub memory_total_kib: u64,
    pub kernel: String,
    pub os: String,
    pub rustc: String,
    /// `--version` of the Node the node subjects run on (`node_program`), or "not found".
    pub node: String,
    /// That Node's program as run (`crate::subjects::node`'s rule); absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_program: Option<String>,
    /// Where that Node came from: `flag` (--node), `env` (FAIRPAIR_NODE), `project` (tools/node) or `path` (the
    /// machine's, the project's not being installed); absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_source: Option<crate::subjects::node::NodeSource>,
    /// The Go that built the Go server (`go version` of its binary, `go1.19.8`), when a Go subject ran; absent
    /// otherwise, and in files written before this field existed. Optional, so no version bump.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go: Option<String>,
    /// The JVM that ran the Java server, and the collector and heap it chose for each CPU count it was given, when a
    /// Java subject ran; absent otherwise, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub java: Option<crate::subjects::java::Jvm>,
    /// Load tool name → its version line (or "not installed").
    pub tools: BTreeMap<String, String>,
    pub git_commit: String,
    /// Uncommitted changes in the work tree when the run started.
    pub git_dirty: bool,
    /// `net.core.somaxconn`: the most a listen backlog can be, whatever a server asks for (absent in version 1).
    #[serde(default)]
    pub somaxconn: Option<u32>,
    /// The CPU frequency governors of the allowed CPUs (`scaling_governor`), distinct values joined by `,`; `None`
    /// where the kernel does not expose them (common in virtual machines).
    #[serde(default)]
    pub cpu_governor: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    /// Closed-loop load tool: `wrk`, `oha`, `autocannon`, `ab` or `bombardier`.
    pub tool: Tool,
    pub connections: Vec<u32>,
    pub duration_s: u64,
    pub warmup_s: u64,
    pub repeats: u32,
    pub quick: bool,
    /// Whether server and load generator were pinned to disjoint CPUs.
    pub pinned: bool,
    pub server_cpus: Vec<usize>,
    pub loader_cpus: Vec<usize>,
    /// Load-generator threads (wrk `-t`): one per loader CPU.
    pub loader_threads: u32,
    /// Before each run the harness waits up to this long for the machine's other CPU use to drop below
    /// `idle_threshold_percent` of the machine.
    pub idle_wait_max_s: f64,
    pub idle_threshold_percent: f64,
    /// `--post-max-users` as given: the store every POST run starts with; `None` (written 0, as it always was) when not
    /// given, the store is then sized in preflight from the measured POST rate (`Preflight::store`). Version 1: the store of every POST run, sized from a
    /// fixed guess. Each run records the store it got (`LoadRun::max_users`): a rerun after a full store gets a
    /// larger one, which the later runs keep.
    #[serde(with = "zero_is_none")]
    pub post_max_users: Option<u64>,
    /// Open-loop rates as fractions of the slowest subject's median GET throughput.
    pub open_loop_fractions: Vec<f64>,
    pub open_loop_duration_s: u64,
    pub open_loop_connections: u32,
    pub memory_repeats: u32,
    pub memory_connections: u32,
    pub memory_duration_s: u64,
    /// Idle settle time between readiness and the idle memory sample.
    pub memory_settle_ms: u64,
    /// `--warmup-probe`: seconds of the warm-up probe, one subject at a time, 0 when it did not run (and in files
    /// written before it existed).
    #[serde(default)]
    pub warmup_probe_s: u64,
    pub allow_unverified: bool,
    /// `--baseline`: the subject ratios are taken against; absent, the first built-in subject that implements the API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// `--preset`: the published study whose method the run reproduced. Absent without one, and in files written
    /// before this field existed (see [`Settings::preset_used`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// The command line `fairpair` was started with.
    pub argv: Vec<String>,
}

/// A count whose absence `benchmark.json` writes as 0, as it did before the type said so.
mod zero_is_none {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(value.unwrap_or(0))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Ok(Some(u64::deserialize(d)?).filter(|&n| n > 0))
    }
}

impl Settings {
    /// The run's preset: the recorded field, or, in a file written before it existed, the `--preset` of the recorded
    /// command line.
    pub fn preset_used(&self) -> Option<Preset> {
        self.preset.or_else(|| Preset::from_argv(&self.argv))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubjectRecord {
    pub name: String,
    pub kind: SubjectKind,
    /// The command that starts it; `{port}` stands for the port, `{max_users}` for the capacity when one is set.
    pub command: String,
    /// Worker count given (`--workers`), when the harness sets it.
    pub workers: Option<u32>,
    /// Fixed-response baseline measured on GET scenarios only.
    pub get_only: bool,
    pub verification: Verification,
}

/// How the harness gets a subject to load: which of `subject::Origin`'s cases it is, as written in `benchmark.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubjectKind {
    /// One of this repository's servers (or the ceiling), started by the harness.
    Builtin,
    /// A command given with `--subject NAME=COMMAND`, started by the harness.
    Custom,
    /// A service someone else runs, given by its URL; the harness neither starts nor measures its processes.
    External,
}

impl SubjectKind {
    /// The name as written in `benchmark.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Builtin => "builtin",
            SubjectKind::Custom => "custom",
            SubjectKind::External => "external",
        }
    }
}

impl std::fmt::Display for SubjectKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn complete_when_absent() -> bool {
    true
}

impl Benchmark {
    /// The closed-loop summary of one cell of one subject, if it was measured.
    pub fn summary(&self, subject: &str, scenario: &str, connections: u32) -> Option<&Summary> {
        self.summaries.iter().find(|s| s.subject == subject && s.scenario == scenario && s.connections == connections)
    }

    /// The memory summary of one subject, if its memory was measured.
    pub fn memory_summary(&self, subject: &str) -> Option<&MemorySummary> {
        self.memory_summaries.iter().find(|s| s.subject == subject)
    }

    /// The subjects asked for that were not measured: they did not start, or failed verification and
    /// `--allow-unverified` was not given. `fairpair run` exits 1 when there is any, after writing the report for the
    /// others.
    pub fn unmeasured_subjects(&self) -> Vec<&str> {
        use VerificationStatus::{DidNotStart, Failed};
        self.subjects
            .iter()
            .filter(|s| match s.verification.status {
                Failed => !s.verification.measured_unverified,
                status => status == DidNotStart,
            })
            .map(|s| s.name.as_str())
            .collect()
    }
}

fn full_level() -> contract::Level {
    contract::Level::Full
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verification {
    pub status: VerificationStatus,
    /// The contract level verified: `api` (the API only) or `full` (everything). Results written before levels
    /// existed were verified against every case, hence the default.
    #[serde(default = "full_level")]
    pub level: contract::Level,
    pub passed: u32,
    pub failed: u32,
    pub skipped: u32,
    /// The first mismatches, `case: expected …, got …`.
    pub failures: Vec<String>,
    /// Measured although verification failed (`--allow-unverified`).
    pub measured_unverified: bool,
    /// What was tolerated and why (e.g. read-backs across Node cluster workers, which have a store each).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Which of the level's cases were asked: every one, or (a service in a run that loads only GET) the GET and
    /// HEAD ones. Absent in older files, which asked every case.
    #[serde(default, skip_serializing_if = "CaseScope::is_every")]
    pub scope: CaseScope,
    /// One line per contract rule some cases failed (`FAIL  post-json: 3 of 30 cases (…): …`), as `fairpair verify`
    /// prints them. Absent when none failed, and in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_rules: Vec<String>,
}

/// Which of a level's cases a verification asks (`contract::Case::only_reads`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseScope {
    /// Every case of the level.
    #[default]
    Every,
    /// The GET and HEAD cases alone: the run loads only GET scenarios, so a service need not take a POST.
    Reads,
}

impl CaseScope {
    pub fn is_every(&self) -> bool {
        *self == CaseScope::Every
    }

    /// Whether a case is asked in this scope.
    pub fn asks(self, case: &contract::Case) -> bool {
        self == CaseScope::Every || case.only_reads()
    }
}

/// The outcome of verifying a subject against the contract (written `passed`, `failed`, `not-applicable`,
/// `did-not-start`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerificationStatus {
    /// Every case that could run passed.
    Passed,
    /// At least one case failed.
    Failed,
    /// The contract does not apply: the ceiling, a fixed-response baseline that does not implement the API.
    NotApplicable,
    /// The subject exited, or gave no 200 on its ready path, before it was ready: nothing could be verified, and it is
    /// not measured (`--allow-unverified` does not change that). `failures` holds why.
    DidNotStart,
}

impl VerificationStatus {
    /// The name as written in `benchmark.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerificationStatus::Passed => "passed",
            VerificationStatus::Failed => "failed",
            VerificationStatus::NotApplicable => "not-applicable",
            VerificationStatus::DidNotStart => "did-not-start",
        }
    }
}

impl std::fmt::Display for VerificationStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioRecord {
    pub name: String,
    pub method: String,
    pub path: String,
    /// Request body, sent with `Content-Type: application/json`.
    pub body: Option<String>,
    /// The wrk Lua script used for it, exactly as written to disk.
    pub wrk_script: Option<String>,
    /// The status a run of it must answer; any other makes the run no throughput figure.
    #[serde(default)]
    pub expected_status: ExpectedStatus,
}

/// The status a scenario's responses must have for the run to count as served work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExpectedStatus {
    /// Any 2xx: the built-in scenarios (`get` answers 200, `post` 201).
    #[default]
    Success,
    /// Exactly this status (a custom `--scenario NAME=METHOD:PATH[:BODY_FILE][:STATUS]`), e.g. 404 to load the
    /// not-found path on purpose.
    Status(u16),
}

impl ExpectedStatus {
    /// Responses of a run that do not count as served work. The load tools count statuses, not each one: wrk counts
    /// every status ≥ 400 together, oha and autocannon everything but 2xx (`non_2xx`). So an expected success is
    /// broken by any counted error status, and an expected error status (≥ 400) by any response the tool did *not*
    /// count as an error; which error status came back cannot be told apart from these counts.
    pub fn unexpected(self, requests: u64, non_2xx: u64) -> u64 {
        match self {
            ExpectedStatus::Status(code) if code >= 400 => requests.saturating_sub(non_2xx),
            _ => non_2xx,
        }
    }
}

impl std::fmt::Display for ExpectedStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpectedStatus::Success => f.write_str("2xx"),
            ExpectedStatus::Status(code) => write!(f, "{code}"),
        }
    }
}

/// Why a text is not a `benchmark.json` this build reads; each command words it for its own use.
#[derive(Debug)]
pub enum ReadError {
    NotJson(serde_json::Error),
    /// Valid JSON without a numeric `schema_version`: not a fairpair results file.
    NoVersion,
    /// A version this build does not know (a newer fairpair wrote it); a reader refuses it rather than misread it.
    Version(u64),
    /// A known version whose content does not have the shape of that version.
    Shape(serde_json::Error),
}

/// Parses a `benchmark.json` of this version or an earlier one, version 1 upgraded (see [`upgrade_from_v1`], which
/// recomputes summaries with `summarise`).
pub fn read(text: &str, summarise: impl Fn(&[LoadRun]) -> Vec<Summary>) -> Result<Benchmark, ReadError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(ReadError::NotJson)?;
    match value.get("schema_version").and_then(serde_json::Value::as_u64) {
        None => return Err(ReadError::NoVersion),
        Some(v) if !(1..=u64::from(SCHEMA_VERSION)).contains(&v) => return Err(ReadError::Version(v)),
        Some(_) => {}
    }
    let bench: Benchmark = serde_json::from_value(value).map_err(ReadError::Shape)?;
    Ok(if bench.schema_version == 1 { upgrade_from_v1(bench, summarise) } else { bench })
}

/// Reads a version 1 file into this version's types: the fields added since are left at their defaults, and every
/// run with error statuses, which version 1 still counted as throughput, is left out of the summaries it is in.
pub fn upgrade_from_v1(mut b: Benchmark, summarise: impl Fn(&[LoadRun]) -> Vec<Summary>) -> Benchmark {
    let mut changed = false;
    for r in &mut b.runs {
        // Version 1 had only scenarios that expect a success (its custom scenarios declared no status).
        r.unexpected_responses = r.non_2xx;
        if r.non_2xx > 0 {
            r.left_out = Some(format!(
                "{} responses with an error status (a version 1 file, which still counted them as throughput)",
                r.non_2xx
            ));
            changed = true;
        }
    }
    if changed {
        b.summaries = summarise(&b.runs);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verification_recorded_before_levels_existed_was_at_full() {
        let old =
            r#"{"status":"passed","passed":200,"failed":0,"skipped":3,"failures":[],"measured_unverified":false}"#;
        let v: Verification = serde_json::from_str(old).unwrap();
        assert_eq!(v.level, contract::Level::Full);
        let json = serde_json::to_string(&Verification { level: contract::Level::Api, ..v }).unwrap();
        assert!(json.contains(r#""level":"api""#), "{json}");
    }

    #[test]
    fn statuses_and_kinds_are_written_as_the_strings_older_files_hold() {
        for status in [VerificationStatus::Passed, VerificationStatus::Failed, VerificationStatus::NotApplicable] {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{status}\""));
            assert_eq!(serde_json::from_str::<VerificationStatus>(&json).unwrap(), status);
        }
        assert_eq!(serde_json::to_string(&VerificationStatus::NotApplicable).unwrap(), r#""not-applicable""#);
        for (kind, word) in
            [(SubjectKind::Builtin, "builtin"), (SubjectKind::Custom, "custom"), (SubjectKind::External, "external")]
        {
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{word}\""));
            assert_eq!(serde_json::from_str::<SubjectKind>(&format!("\"{word}\"")).unwrap(), kind);
        }
        assert!(serde_json::from_str::<VerificationStatus>(r#""maybe""#).is_err());
    }
}
