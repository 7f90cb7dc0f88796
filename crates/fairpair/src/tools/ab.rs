//! ab (ApacheBench, from apache2-utils): the tool of the "Node vs Go, hello world" study. C, one thread, one core.
//!
//! Three habits of ab shape this adapter:
//!
//! - `-k` is HTTP/1.0 keep-alive: ab sends `HTTP/1.0` requests with `Connection: Keep-Alive` and keeps a connection
//!   only when the answer carries a length and says keep-alive. All the built-in servers do (the faults suite checks
//!   it), so the connections persist as they do with the other tools; a server that closed them would show as a
//!   `Keep-Alive requests` count below `Complete requests` in the raw output.
//! - ab counts a response whose length differs from the first one's as a failed request ("Length"). Every POST
//!   answer carries a new id, so its length changes when the ids gain a digit: those are not errors, and only the
//!   Connect, Receive and Exceptions failures count as errors here. Non-2xx answers are counted apart by ab.
//! - ab's summary rounds its percentile table to whole milliseconds. `-e` writes a CSV with every percentile from 0 to
//!   100 % at microsecond resolution, which is what is read here; it has nothing between 99 % and 100 %, so p99.9 is
//!   not reported (`None`). The CSV goes to standard output after the summary: ab writes it with unbuffered writes
//!   and its summary through stdio, so ab runs under `stdbuf -oL` to keep both whole and in order.
//!
//! A body is sent from a file (`-p`), written by [`LoadTool::prepare`]. ab stops at `-t` seconds or `-n` requests,
//! whichever comes first, and `-t` alone would stop it at 50,000 requests, so `-n` is set far beyond what ab can send
//! in the time (it is also the size of the table ab allocates, lazily, one small entry per request).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

use super::{LoadResult, LoadSpec, LoadTool, Method, OpenLoopSupport, Tool, words};
use crate::schema::Latency;

pub struct Ab;

/// An upper bound on ab's request rate, for `-n`: one ab process on one core sends far fewer (tens of thousands).
const MAX_REQUESTS_PER_SECOND: u64 = 200_000;

impl LoadTool for Ab {
    fn kind(&self) -> Tool {
        Tool::Ab
    }
    fn install_hint(&self) -> &'static str {
        "install it with `apt-get install apache2-utils` (scripts/setup-tools)"
    }

    fn prepare(&self, dir: &Path, scenario: &str, spec: &LoadSpec) -> Result<Option<(PathBuf, Option<String>)>> {
        let Some(body) = &spec.body else { return Ok(None) };
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("ab-{scenario}.body"));
        std::fs::write(&path, body).with_context(|| format!("cannot write {}", path.display()))?;
        // The body is already recorded with the scenario; the file holds nothing else worth keeping.
        Ok(Some((path, None)))
    }

    fn argv(&self, spec: &LoadSpec) -> Vec<String> {
        let requests = (spec.duration_s.max(1) * MAX_REQUESTS_PER_SECOND).min(i32::MAX as u64);
        let mut v =
            words(&["stdbuf", "-oL", "ab", "-q", "-k", "-r", "-s", "10", "-c", &spec.connections.max(1).to_string()]);
        // -t before -n: -t sets -n to 50,000, and a later -n overrides that.
        v.extend(["-t".into(), spec.duration_s.to_string(), "-n".into(), requests.to_string()]);
        v.extend(["-e".into(), "/dev/stdout".into()]);
        // `-p` makes the request a POST; `-m` names any other method, with or without a body.
        if !matches!(spec.method, Method::Get | Method::Post) {
            v.extend(["-m".into(), spec.method.to_string()]);
        }
        if let Some(body_file) = &spec.script {
            v.extend(["-p".into(), body_file.display().to_string(), "-T".into(), "application/json".into()]);
        }
        v.push(spec.url.clone());
        v
    }

    fn parse(&self, stdout: &str) -> Result<LoadResult> {
        let field = |label: &str| -> Option<&str> {
            stdout.lines().find_map(|l| l.strip_prefix(label)).map(|rest| rest.trim())
        };
        let number = |label: &str| -> Result<f64> {
            let text = field(label).ok_or_else(|| anyhow!("ab's output lacks {label:?}"))?;
            let first = text.split_whitespace().next().unwrap_or("");
            first.parse().map_err(|_| anyhow!("ab's {label:?} is not a number: {text:?}"))
        };
        let requests = number("Complete requests:")? as u64;
        let duration_s = number("Time taken for tests:")?;
        let percentile = percentiles(stdout)?;
        let at = |p: usize| percentile[p].ok_or_else(|| anyhow!("ab's CSV lacks the {p} % line"));
        Ok(LoadResult {
            requests,
            duration_s,
            requests_per_sec: if duration_s > 0.0 { requests as f64 / duration_s } else { 0.0 },
            latency: Latency {
                p50_ms: at(50)?,
                p90_ms: at(90)?,
                p99_ms: at(99)?,
                p99_9_ms: None,
                max_ms: at(100)?,
                mean_ms: None,
            },
            errors: failures(stdout)?,
            // Present only when there were any.
            non_2xx: field("Non-2xx responses:").map_or(Ok(0.0), |_| number("Non-2xx responses:"))? as u64,
        })
    }

    fn open_loop(&self) -> Option<OpenLoopSupport> {
        // ab has no rate limit: closed-loop only.
        None
    }

    fn version(&self) -> String {
        // `ab -V` prints "This is ApacheBench, Version 2.3 <$Revision: … $>".
        crate::machine::command::first_line_of(&["ab", "-V"])
            .and_then(|l| l.split("Version ").nth(1).map(|v| format!("ab {}", v.split(' ').next().unwrap_or(v))))
            .unwrap_or_else(|| "not installed".into())
    }
}

/// The CSV of `-e`: "Percentage served,Time in ms", then one line per percent from 0 to 100.
fn percentiles(stdout: &str) -> Result<Vec<Option<f64>>> {
    let mut found = vec![None; 101];
    let mut lines = 0;
    for line in stdout.lines() {
        let Some((percent, ms)) = line.trim().split_once(',') else { continue };
        let (Ok(percent), Ok(ms)) = (percent.parse::<usize>(), ms.parse::<f64>()) else { continue };
        if let Some(slot) = found.get_mut(percent) {
            *slot = Some(ms);
            lines += 1;
        }
    }
    if lines == 0 {
        return Err(anyhow!("no percentile CSV in ab's output (was ab run with -e /dev/stdout?)"));
    }
    Ok(found)
}

/// Failed requests that are errors: Connect, Receive and Exceptions, not Length (see the module comment). ab prints
/// the breakdown on the line after "Failed requests:", and only when there were any.
fn failures(stdout: &str) -> Result<u64> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("Failed requests:"));
    let total_line = lines.next().ok_or_else(|| anyhow!("ab's output lacks \"Failed requests:\""))?;
    let total: u64 = total_line["Failed requests:".len()..].trim().parse().context("ab's failed requests")?;
    if total == 0 {
        return Ok(0);
    }
    let breakdown = lines.next().unwrap_or("").trim();
    let count = |kind: &str| -> Result<u64> {
        let rest = breakdown
            .split_once(&format!("{kind}: "))
            .map(|(_, rest)| rest)
            .ok_or_else(|| anyhow!("ab's failure breakdown lacks {kind}: {breakdown:?}"))?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().with_context(|| format!("ab's {kind} failures"))
    };
    Ok(count("Connect")? + count("Receive")? + count("Exceptions")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(method: &str, script: Option<&str>) -> LoadSpec {
        LoadSpec {
            url: "http://127.0.0.1:9/users".into(),
            method: Method::from_name(method),
            body: script.map(|_| "{}".into()),
            connections: 50,
            duration_s: 15,
            threads: 1,
            rate: None,
            script: script.map(PathBuf::from),
        }
    }

    #[test]
    fn get_and_post_command_lines() {
        assert_eq!(
            Ab.argv(&spec("GET", None)).join(" "),
            "stdbuf -oL ab -q -k -r -s 10 -c 50 -t 15 -n 3000000 -e /dev/stdout http://127.0.0.1:9/users"
        );
        assert_eq!(
            Ab.argv(&spec("POST", Some("/o/ab-post.body"))).join(" "),
            "stdbuf -oL ab -q -k -r -s 10 -c 50 -t 15 -n 3000000 -e /dev/stdout -p /o/ab-post.body -T application/json \
             http://127.0.0.1:9/users"
        );
    }

    #[test]
    fn length_failures_are_not_errors() {
        let out = "Failed requests:        7\n   (Connect: 1, Receive: 2, Length: 300, Exceptions: 4)\n";
        assert_eq!(failures(out).unwrap(), 7);
        assert_eq!(failures("Failed requests:        0\nWrite errors: 0\n").unwrap(), 0);
    }
}
