//! The machine and software a run happened on, captured automatically so every result carries its context.

use std::collections::BTreeMap;
use std::fs;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;

use crate::host::{COMMAND_LIMIT, Host};
use crate::procstat;
use crate::schema::Environment;
use crate::tools::shell_words;

/// Captures the environment. `tools` are the load tools whose versions to record (name → version line).
pub fn capture(tools: BTreeMap<String, String>) -> Environment {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    Environment {
        date: utc_now(),
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        cpu_model: cpu_model(&cpuinfo),
        cpus_online: cpuinfo.lines().filter(|l| l.starts_with("processor")).count().max(1),
        cpus_allowed: procstat::allowed_cpus(),
        memory_total_kib: procstat::kib_field(&meminfo, "MemTotal").unwrap_or(0),
        kernel: read_trimmed("/proc/sys/kernel/osrelease"),
        os: os_name(),
        rustc: first_line_of(&["rustc", "--version"]).unwrap_or_else(|| "not found".into()),
        node: first_line_of(&["node", "--version"]).unwrap_or_else(|| "not found".into()),
        go: None,
        tools,
        git_commit: git_commit(),
        git_dirty: Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=no"])
            .output()
            .is_ok_and(|o| o.status.success() && !o.stdout.is_empty()),
        somaxconn: read_trimmed("/proc/sys/net/core/somaxconn").parse().ok(),
        cpu_governor: governors(&procstat::allowed_cpus()),
    }
}

/// The environment of a server host (`--server-host`): the same fields, read there through `host` (a few remote
/// commands, each under its time limit). `dir` is the checkout whose commit is recorded. No load tool runs there, so
/// `tools` is empty.
pub fn capture_on(host: &Host, dir: &str) -> Result<Environment> {
    let read = |path: &str| host.read(path).unwrap_or_default();
    let trimmed =
        |path: &str| Some(read(path).trim().to_string()).filter(|t| !t.is_empty()).unwrap_or("unknown".into());
    // The first line a command prints, whatever its status, as `first_line_of` does here.
    let first_line = |command: &str| -> Option<String> {
        let out = host.run(&format!("{command} 2>&1; true"), COMMAND_LIMIT).ok()?;
        out.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
    };
    let cpuinfo = read("/proc/cpuinfo");
    let meminfo = read("/proc/meminfo");
    let cpus_allowed = host.allowed_cpus()?;
    let in_dir = |command: &str| format!("cd {} && {command}", shell_words(&[dir.to_string()]));
    let git_commit = host.run(&in_dir("git rev-parse HEAD"), COMMAND_LIMIT).ok();
    let dirty = host.run(&in_dir("git status --porcelain --untracked-files=no"), COMMAND_LIMIT).ok();
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
        rustc: first_line("command -v rustc >/dev/null && rustc --version || echo not found").unwrap_or_default(),
        node: first_line("command -v node >/dev/null && node --version || echo not found").unwrap_or_default(),
        go: None,
        tools: BTreeMap::new(),
        git_commit: commit_or_phrase(git_commit.is_some(), git_commit.as_deref().unwrap_or("")),
        git_dirty: dirty.is_some_and(|d| !d.trim().is_empty()),
        somaxconn: read("/proc/sys/net/core/somaxconn").trim().parse().ok(),
        cpu_governor: (!governors.is_empty()).then(|| governors.join(",")),
    })
}

/// The Go that built `binary` on `host`: `go version BINARY` prints `BINARY: go1.19.8`, read from the binary itself,
/// so it names the compiler of what is measured, not whichever `go` is on PATH. `None` without `go` there.
pub fn go_version(host: &Host, binary: &str) -> Option<String> {
    let out = host.run(&format!("go version {}", shell_words(&[binary.to_string()])), COMMAND_LIMIT).ok()?;
    let version = out.trim().rsplit(": ").next()?.trim();
    (!version.is_empty()).then(|| version.to_string())
}

/// The distinct frequency governors of `cpus`, or `None` when the kernel exposes none (virtual machines often do
/// not): a `powersave` governor can halve a figure, so it belongs beside every result.
pub fn governors(cpus: &[usize]) -> Option<String> {
    let mut seen: Vec<String> = Vec::new();
    for cpu in cpus {
        let path = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor");
        if let Ok(text) = fs::read_to_string(path) {
            let g = text.trim().to_string();
            if !seen.contains(&g) {
                seen.push(g);
            }
        }
    }
    (!seen.is_empty()).then(|| seen.join(","))
}

/// The accept backlog the socket listening on `port` really got: `ss` shows it as the Send-Q of a listening
/// socket. The kernel silently caps what a server asks for at `net.core.somaxconn`, so this is the figure that
/// decides whether a burst of connections is queued or refused. The smallest, if several sockets share the port
/// (`SO_REUSEPORT`); `None` when `ss` is missing or shows none.
pub fn listen_backlog(port: u16) -> Option<u32> {
    let out = Command::new("ss").args(["-Hltn", &format!("sport = :{port}")]).output().ok()?;
    parse_listen_backlog(&String::from_utf8_lossy(&out.stdout), port)
}

/// [`listen_backlog`] of a socket on `host`: `ss` run there.
pub fn listen_backlog_on(host: &Host, port: u16) -> Option<u32> {
    match host {
        Host::Local => listen_backlog(port),
        Host::Ssh(_) => {
            let out = host.run(&format!("ss -Hltn 'sport = :{port}'"), COMMAND_LIMIT).ok()?;
            parse_listen_backlog(&out, port)
        }
    }
}

/// Reads `ss -Hltn` lines (`LISTEN 0 4096 127.0.0.1:3000 0.0.0.0:*`): state, Recv-Q, Send-Q, local address.
pub fn parse_listen_backlog(text: &str, port: u16) -> Option<u32> {
    let suffix = format!(":{port}");
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4 && f[0] == "LISTEN" && f[3].ends_with(&suffix)).then(|| f[2].parse().ok())?
        })
        .min()
}

/// This machine's hostname.
pub fn read_hostname() -> String {
    read_trimmed("/proc/sys/kernel/hostname")
}

fn read_trimmed(path: &str) -> String {
    fs::read_to_string(path).map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

fn os_name() -> String {
    pretty_name(&fs::read_to_string("/etc/os-release").unwrap_or_default())
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

/// The first non-empty line a command prints on stdout or stderr, whatever its exit status (`wrk -v` exits 1).
/// The commit checked out, or a plain phrase instead of git's own error ("fatal: not a git repository …") when the
/// run is not inside a checkout, or git is missing.
fn git_commit() -> String {
    match Command::new("git").args(["rev-parse", "HEAD"]).output() {
        Ok(out) => commit_or_phrase(out.status.success(), &String::from_utf8_lossy(&out.stdout)),
        Err(_) => "unknown (git not found)".into(),
    }
}

fn commit_or_phrase(success: bool, stdout: &str) -> String {
    match stdout.trim() {
        commit if success && !commit.is_empty() => commit.to_string(),
        _ => "not a git checkout".into(),
    }
}

pub fn first_line_of(argv: &[&str]) -> Option<String> {
    let out = Command::new(argv[0]).args(&argv[1..]).output().ok()?;
    let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
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
    fn reads_the_backlog_a_listening_socket_got() {
        let text = "LISTEN 0      511    127.0.0.1:46141 0.0.0.0:*\nLISTEN 0      4096   127.0.0.1:3000 0.0.0.0:*\n\
                    LISTEN 0      128    127.0.0.1:3000 0.0.0.0:*\nLISTEN 3      9      [::1]:30000 [::]:*\n";
        assert_eq!(parse_listen_backlog(text, 3000), Some(128));
        assert_eq!(parse_listen_backlog(text, 46141), Some(511));
        assert_eq!(parse_listen_backlog(text, 4614), None);
        assert_eq!(parse_listen_backlog("", 3000), None);
    }

    #[test]
    fn a_real_listening_socket_has_a_backlog() {
        if !crate::tools::installed("ss") {
            return; // iproute2 absent: the harness records None, which is what this would assert.
        }
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        // Whatever std asks for, the kernel caps it at somaxconn.
        let somaxconn: u32 = read_trimmed("/proc/sys/net/core/somaxconn").parse().unwrap();
        let got = listen_backlog(port).expect("ss shows our listening socket");
        assert!((1..=somaxconn).contains(&got), "{got} vs somaxconn {somaxconn}");
    }

    #[test]
    fn captures_something_real() {
        let env = capture(BTreeMap::new());
        assert!(env.cpus_online >= 1);
        assert!(!env.cpus_allowed.is_empty());
        assert!(env.memory_total_kib > 0);
        assert_ne!(env.kernel, "unknown");
    }
}
