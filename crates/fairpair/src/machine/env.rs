//! The machine and software a run happened on, captured automatically so every result carries its context.

use std::collections::BTreeMap;
use std::fs;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;

use crate::analyse::stats::Stat;
use crate::machine::command::shell_words;
use crate::machine::host::{self, COMMAND_LIMIT, Host, SshHost};
use crate::machine::procstat;
use crate::schema::{Environment, NetworkBytes, TwoHosts};
use crate::subjects::java::{Ergonomics, Jvm};
use crate::subjects::node::Node;

/// Captures the environment of `host`: this machine, or a server host (`--server-host`) through a few remote commands,
/// each under its time limit. `dir` is the checkout whose commit is recorded (`.` here: the working directory). `tools`
/// are the load tools whose versions to record (name → version line); none runs on a server host. `node` is the Node
/// the node subjects run on there: its version is the one recorded, with its program and where it came from.
pub fn capture(host: &Host, dir: &str, tools: BTreeMap<String, String>, node: &Node) -> Result<Environment> {
    let read = |path: &str| host.read(path).unwrap_or_default();
    let trimmed =
        |path: &str| Some(read(path).trim().to_string()).filter(|t| !t.is_empty()).unwrap_or("unknown".into());
    // The first line a command prints, whatever its status (`wrk -v` exits 1).
    let first_line = |command: &str| -> Option<String> {
        let out = host.run(&format!("{command} 2>&1; true"), COMMAND_LIMIT).ok()?;
        out.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
    };
    let version = |program: &str| {
        let program = shell_words(&[program.to_string()]);
        first_line(&format!("command -v {program} >/dev/null && {program} --version || echo not found"))
            .unwrap_or_else(|| "not found".into())
    };
    let cpuinfo = read("/proc/cpuinfo");
    let meminfo = read("/proc/meminfo");
    let cpus_allowed = host.allowed_cpus()?;
    let in_dir = |command: &str| format!("cd {} && {command}", shell_words(&[dir.to_string()]));
    let git_commit = host.run(&in_dir("git rev-parse HEAD 2>/dev/null"), COMMAND_LIMIT).ok();
    let dirty = host.run(&in_dir("git status --porcelain --untracked-files=no 2>/dev/null"), COMMAND_LIMIT).ok();
    let mut governors: Vec<String> = Vec::new();
    for cpu in &cpus_allowed {
        let g = read(&format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor")).trim().to_string();
        if !g.is_empty() && !governors.contains(&g) {
            governors.push(g);
        }
    }
    Ok(Environment {
        date: first_line("date -u +%Y-%m-%dT%H:%M:%SZ").unwrap_or_else(utc_now),
        hostname: trimmed("/proc/sys/kernel/hostname"),
        cpu_model: cpu_model(&cpuinfo),
        cpus_online: cpuinfo.lines().filter(|l| l.starts_with("processor")).count().max(1),
        cpus_allowed,
        memory_total_kib: procstat::kib_field(&meminfo, "MemTotal").unwrap_or(0),
        kernel: trimmed("/proc/sys/kernel/osrelease"),
        os: pretty_name(&read("/etc/os-release")),
        rustc: version("rustc"),
        node: version(&node.program),
        node_program: Some(node.program.clone()),
        node_source: Some(node.source),
        go: None,
        java: None,
        tools,
        git_commit: commit_or_phrase(git_commit.is_some(), git_commit.as_deref().unwrap_or("")),
        git_dirty: dirty.is_some_and(|d| !d.trim().is_empty()),
        somaxconn: read("/proc/sys/net/core/somaxconn").trim().parse().ok(),
        cpu_governor: (!governors.is_empty()).then(|| governors.join(",")),
    })
}

/// What a two-host run records before its runs: the server host's environment, the connection's addresses, the
/// loader's interface on the route there and the round-trip time; with the interface's counters at that moment, to
/// count the whole run's bytes at its end. `None` on one machine.
pub fn path_record(host: &Host, node: &Node) -> Result<Option<(TwoHosts, Option<NetworkBytes>)>> {
    let Host::Ssh(ssh @ SshHost { ends: Some(ends), .. }) = host else {
        return Ok(None);
    };
    let interface = host::route_interface(ends.server);
    let counters = interface.as_deref().and_then(host::interface_bytes);
    let record = TwoHosts {
        server_host: ssh.destination.clone(),
        server_dir: ssh.dir.clone(),
        server_environment: capture(host, &ssh.dir, BTreeMap::new(), node)?,
        loader_address: ends.loader.to_string(),
        server_address: ends.server.to_string(),
        interface,
        rtt_ms: Stat::of(&host.round_trips(20)),
        interface_bytes: None,
        same_kernel: host.read(BOOT_ID).is_some_and(|id| Host::Local.read(BOOT_ID) == Some(id)),
    };
    Ok(Some((record, counters)))
}

/// A random id the kernel draws at boot: two hosts showing the same one are one kernel.
const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

/// The Go that built `binary` on `host`: `go version BINARY` prints `BINARY: go1.19.8`, read from the binary itself,
/// so it names the compiler of what is measured, not whichever `go` is on PATH. `None` without `go` there.
pub fn go_version(host: &Host, binary: &str) -> Option<String> {
    let out = host.run(&format!("go version {}", shell_words(&[binary.to_string()])), COMMAND_LIMIT).ok()?;
    let version = out.trim().rsplit(": ").next()?.trim();
    (!version.is_empty()).then(|| version.to_string())
}

/// Adds what the JVM `java` on `host` chooses told it has `cpus` CPUs to `record` (`crate::subjects::java`), reading its
/// version the first time. A JVM that cannot be run leaves the version "unknown" and the choices empty: the run goes
/// on, and the report shows what could not be read.
pub fn jvm(host: &Host, java: &str, cpus: u32, record: &mut Option<Jvm>) {
    let program = shell_words(&[java.to_string()]);
    let jvm = record.get_or_insert_with(|| {
        let out = host.run(&format!("{program} -version 2>&1"), COMMAND_LIMIT).unwrap_or_default();
        // `java -version` prints on stderr; its first line names the release.
        let version = out.lines().next().map(str::trim).filter(|l| !l.is_empty()).unwrap_or("unknown");
        Jvm { program: java.to_string(), version: version.to_string(), ergonomics: Vec::new() }
    });
    if jvm.ergonomics.iter().any(|e| e.cpus == cpus) {
        return;
    }
    let script = format!("{program} -XX:ActiveProcessorCount={cpus} -XX:+PrintFlagsFinal -version 2>/dev/null");
    if let Ok(flags) = host.run(&script, COMMAND_LIMIT) {
        jvm.ergonomics.push(Ergonomics { cpus, ..crate::subjects::java::parse_flags(&flags) });
    }
}

/// This machine's hostname.
pub fn read_hostname() -> String {
    read_trimmed("/proc/sys/kernel/hostname")
}

fn read_trimmed(path: &str) -> String {
    fs::read_to_string(path).map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

fn pretty_name(os_release: &str) -> String {
    os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model(cpuinfo: &str) -> String {
    cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim()))
        .unwrap_or("unknown")
        .to_string()
}

fn commit_or_phrase(success: bool, stdout: &str) -> String {
    match stdout.trim() {
        commit if success && !commit.is_empty() => commit.to_string(),
        _ => "not a git checkout".into(),
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Formats seconds since the epoch as RFC 3339 UTC, to the second.
pub fn format_utc(secs: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string()
}

#[cfg(test)]
mod tests {
    /// A `java` that cannot run is recorded as an unknown JVM that chose nothing, not as an error of the run.
    #[test]
    fn a_jvm_that_cannot_run_is_recorded_as_unknown() {
        let mut jvm = None;
        super::jvm(&super::Host::Local, "/nonexistent/java", 1, &mut jvm);
        let jvm = jvm.unwrap();
        assert_eq!((jvm.version.as_str(), jvm.ergonomics.len()), ("unknown", 0));
    }

    #[test]
    fn outside_a_checkout_the_git_row_says_so_plainly() {
        assert_eq!(commit_or_phrase(true, "0123abcd\n"), "0123abcd");
        assert_eq!(commit_or_phrase(false, ""), "not a git checkout");
        assert_eq!(commit_or_phrase(true, "  \n"), "not a git checkout");
    }

    use super::*;

    #[test]
    fn formats_dates() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_796_000_000), "2026-11-30T00:53:20Z");
    }

    #[test]
    fn captures_something_real() {
        let env = capture(&Host::Local, ".", BTreeMap::new(), &Node::default()).unwrap();
        assert!(env.cpus_online >= 1);
        assert!(!env.cpus_allowed.is_empty());
        assert!(env.memory_total_kib > 0);
        assert_ne!(env.kernel, "unknown");
        assert_ne!(env.date, "");
        assert!(env.rustc.starts_with("rustc ") || env.rustc == "not found", "{}", env.rustc);
        assert!(env.node.starts_with('v') || env.node == "not found", "{}", env.node);
        assert_eq!(env.node_source, Some(crate::subjects::node::NodeSource::Path));
        // A Node given by its path is the one whose version is recorded, and a path that is no program says so.
        let missing = Node { program: "/no/such dir/node".into(), source: crate::subjects::node::NodeSource::Flag };
        let env = capture(&Host::Local, ".", BTreeMap::new(), &missing).unwrap();
        assert_eq!(env.node, "not found");
        assert_eq!(env.node_program.as_deref(), Some("/no/such dir/node"));
    }
}
