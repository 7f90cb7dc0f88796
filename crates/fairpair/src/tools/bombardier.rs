//! bombardier: the tool of the "Node.js vs Spring Boot" study. Go, fasthttp, one goroutine per connection on as
//! many threads as it is given.
//!
//! This is codesenberg/bombardier, the HTTP benchmarking tool, a Go program installed with `GOTOOLCHAIN=local go
//! install github.com/codesenberg/bombardier@v1.2.6` (scripts/setup-tools), which puts it in `$(go env GOPATH)/bin`.
//! Debian's package of the same name is a different program, a curses game installed as `/usr/games/bombardier`
//! that never exits on its own, so [`LoadTool::available`] refuses a `bombardier` found in a `games` directory
//! rather than run it.
//!
//! With `-o json -p r -l` bombardier v1.2.6 prints one JSON object (its `templates.go`): under `result`, the
//! measured `timeTakenSeconds`, a count per status class (`req1xx` … `req5xx`, and `others` for any other status),
//! an `errors` list of `{description, count}` only when there were errors, and `latency` in microseconds from its
//! full histogram (exact percentiles 50, 75, 90, 95 and 99, the mean and the maximum) only when any request was
//! timed. It gives no p99.9, which is reported as `None`; its mean is kept (`mean_ms`), since the study quoted it.
//!
//! A request that got no answer (refused, reset, timed out) is counted twice by bombardier: once in `errors`, and
//! once in `others`, with the status -1 its client gives a failed request. Those are taken out of `others` here, so
//! `requests` counts answers only, `non_2xx` the answers with a status other than 2xx, and `errors` the requests that
//! got no answer: no failed request is counted as throughput. bombardier also times a failed request until it
//! failed, and that time is in its latency histogram; the percentiles of a run with errors include them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

use super::{LoadResult, LoadSpec, LoadTool, OpenLoopSupport, Tool, from_json, request_args, words};
use crate::machine::command::{first_line_of, output_within};
use crate::schema::Latency;

/// The Go module bombardier is built from, as `go version -m` names it.
const MODULE: &str = "github.com/codesenberg/bombardier";

pub struct Bombardier;

impl LoadTool for Bombardier {
    fn kind(&self) -> Tool {
        Tool::Bombardier
    }
    fn install_hint(&self) -> &'static str {
        "install codesenberg/bombardier with `GOTOOLCHAIN=local go install \
         github.com/codesenberg/bombardier@v1.2.6` (scripts/setup-tools) and put `$(go env GOPATH)/bin` on PATH; \
         Debian's `bombardier` package is a game, not this tool"
    }

    fn available(&self) -> bool {
        http_bombardier().is_some()
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let (c, d) = (spec.connections.max(1).to_string(), format!("{}s", spec.duration_s));
        let mut v = words(&["bombardier", "-c", &c, "-d", &d, "-t", "10s", "-l", "-o", "json", "-p", "r"]);
        v.extend(request_args(spec, "Content-Type: application/json", "-b"));
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let r = from_json::<Output>("bombardier", stdout)?.result;
        let ms = |us: f64| us / 1000.0;
        let errors: u64 = r.errors.iter().map(|e| e.count).sum();
        // Every failed request is also in `others` (see the module comment): what is left there are answers.
        let other_answers = r.others.saturating_sub(errors);
        let non_2xx = r.req1xx + r.req3xx + r.req4xx + r.req5xx + other_answers;
        let requests = r.req2xx + non_2xx;
        let duration_s = r.time_taken_seconds;
        // No latency object means no request was timed at all; the run then has no latency to report, only zeros.
        let latency = r.latency.map_or_else(Latency::default, |l| Latency {
            p50_ms: ms(l.percentiles.p50),
            p90_ms: ms(l.percentiles.p90),
            p99_ms: ms(l.percentiles.p99),
            p99_9_ms: None,
            max_ms: ms(l.max),
            mean_ms: Some(ms(l.mean)),
        });
        Ok(LoadResult {
            requests,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { requests as f64 / duration_s } else { 0.0 },
            latency,
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
        match http_bombardier() {
            Some(path) => installed_version(&path),
            None => "not installed".into(),
        }
    }
}

/// bombardier's `-o json -p r` output: the run's `result` (its `spec` echoes the command line).
#[derive(Deserialize)]
struct Output {
    result: RunResult,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunResult {
    time_taken_seconds: f64,
    req1xx: u64,
    req2xx: u64,
    req3xx: u64,
    req4xx: u64,
    req5xx: u64,
    /// Answers with a status outside 1xx–5xx, and every request that got no answer.
    others: u64,
    /// There only when there were any: refused connections, resets, timeouts.
    #[serde(default)]
    errors: Vec<ErrorCount>,
    /// In microseconds; there only when any request was timed.
    #[serde(default)]
    latency: Option<LatencyUs>,
}

#[derive(Deserialize)]
struct ErrorCount {
    count: u64,
}

#[derive(Deserialize)]
struct LatencyUs {
    mean: f64,
    max: f64,
    /// There because the harness passes `-l`: without it bombardier prints only the mean and the maximum.
    percentiles: Percentiles,
}

#[derive(Deserialize)]
struct Percentiles {
    #[serde(rename = "50")]
    p50: f64,
    #[serde(rename = "90")]
    p90: f64,
    #[serde(rename = "99")]
    p99: f64,
}

/// The first `bombardier` on `PATH` that is not the curses game of the same name (in a `games` directory): a
/// `/usr/games` early on `PATH` does not hide the HTTP tool in Go's bin folder after it.
fn http_bombardier() -> Option<PathBuf> {
    let in_games = |found: &PathBuf| found.parent().and_then(|d| d.file_name()).is_some_and(|name| name == "games");
    which::which_all("bombardier").ok()?.find(|found| !in_games(found))
}

/// "bombardier v1.2.6", read from the binary's Go build info, else from `--version`, else a line that says neither
/// named one. A `go install`ed bombardier answers `--version` with "bombardier version unspecified linux/amd64":
/// only a release binary, built with the version passed to the linker, names its version there. The build info is
/// in every binary Go builds, and `go version -m` reads it without running the binary.
fn installed_version(path: &Path) -> String {
    if let Some(v) = go_build_info(path).as_deref().and_then(module_version) {
        return format!("bombardier {v}");
    }
    match first_line_of(&[&path.display().to_string(), "--version"]).as_deref().and_then(flag_version) {
        Some(v) => format!("bombardier {v}"),
        None => "bombardier, version unknown (no module version in `go version -m`, none named by `--version`)".into(),
    }
}

/// What `go version -m PATH` prints, or `None` without Go or when it cannot read the file. `GOTOOLCHAIN=local` keeps
/// a `go` line of some other module from making Go fetch a toolchain just to print this.
fn go_build_info(path: &Path) -> Option<String> {
    let mut cmd = Command::new("go");
    cmd.env("GOTOOLCHAIN", "local").args(["version", "-m"]).arg(path);
    let out = output_within(&mut cmd, Duration::from_secs(10)).ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The version on the `mod` line of `go version -m`, whose tab-separated fields are `mod`, the module
/// (`github.com/codesenberg/bombardier`), its version (`v1.2.6`) and its checksum. A build from a checkout says
/// `(devel)` there, which names no version.
fn module_version(build_info: &str) -> Option<String> {
    let version = build_info.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        (fields.next() == Some("mod") && fields.next() == Some(MODULE)).then(|| fields.next()).flatten()
    })?;
    version.starts_with('v').then(|| version.to_string())
}

/// The version in `--version`'s "bombardier version v1.2.6 linux/amd64"; `None` for "unspecified".
fn flag_version(line: &str) -> Option<String> {
    let version = line.strip_prefix("bombardier version ")?.split_whitespace().next()?;
    version.starts_with('v').then(|| version.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Method;

    #[test]
    fn post_command_line() {
        let spec = LoadSpec {
            url: "http://127.0.0.1:9/users".into(),
            method: Method::Post,
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

    #[test]
    fn the_version_comes_from_the_go_build_info() {
        // The first lines of `go version -m` on a `go install`ed bombardier, as go1.26.8 prints them.
        let info = "/root/go/bin/bombardier: go1.26.8\n\tpath\tgithub.com/codesenberg/bombardier\n\
                    \tmod\tgithub.com/codesenberg/bombardier\tv1.2.6\th1:NYLeXFTuICfisqkjtyZqBDEzgTSIx3ox1UgJHdkAIjQ=\n\
                    \tdep\tgithub.com/alecthomas/kingpin\tv2.2.6+incompatible\th1:5svnBTFgJjZvGKyYBtMB0+m5wvrbUHiqye8wRJMlnYI=\n";
        assert_eq!(module_version(info).as_deref(), Some("v1.2.6"));
        let devel = "x: go1.26.8\n\tpath\tgithub.com/codesenberg/bombardier\n\tmod\tgithub.com/codesenberg/bombardier\t(devel)\t\n";
        assert_eq!(module_version(devel), None);
        // Another program's build info names no bombardier version, even with a dependency of that name.
        assert_eq!(module_version("y: go1.26.8\n\tmod\texample.com/other\tv0.1.0\n"), None);
    }

    #[test]
    fn the_version_flag_names_one_only_in_a_release_build() {
        assert_eq!(flag_version("bombardier version v1.2.6 linux/amd64").as_deref(), Some("v1.2.6"));
        assert_eq!(flag_version("bombardier version unspecified linux/amd64"), None);
        assert_eq!(flag_version("usage: bombardier [<flags>] <url>"), None);
    }
}
