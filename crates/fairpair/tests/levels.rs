//! Contract levels end to end: a users API in a few dozen lines of Python (`fixtures/api_only.py`), which implements
//! the API and leaves the transport to `http.server`, passes `fairpair verify --level api` and fails `--level full`
//! with its failures grouped by rule. Needs python3 (CI has it); fails, rather than passes, without it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// The Python service on a port of its choosing, killed when dropped.
struct Service {
    child: Child,
    url: String,
}

impl Service {
    fn start() -> Service {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/api_only.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg("0")
            .stdout(Stdio::piped())
            // http.server prints a traceback for each connection the full level's cases break; not a finding.
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start python3 {}: {e}", script.display()));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = contract::StartupLine::parse(&line).unwrap_or_else(|| panic!("start-up line {line:?}")).url();
        Service { child, url }
    }

    fn verify(&self, level: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_fairpair")).args(["verify", "--level", level, &self.url]).output().unwrap()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_service_implementing_the_api_passes_api_and_fails_full_by_rule() {
    let service = Service::start();
    let api = service.verify("api");
    let stdout = String::from_utf8_lossy(&api.stdout);
    assert_eq!(api.status.code(), Some(0), "{stdout}");
    let want = contract::cases().iter().filter(|c| c.level == contract::Level::Api).count();
    assert_eq!(stdout.lines().last(), Some(format!("{want} passed, 0 failed").as_str()), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "the level line and the tally only:\n{stdout}");

    let full = service.verify("full");
    let stdout = String::from_utf8_lossy(&full.stdout);
    assert_eq!(full.status.code(), Some(1), "{stdout}");
    let rules: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL  ")).collect();
    // http.server's transport is not the contract's: these rules fail, each on one line.
    for id in ["transport-host", "transport-head-limits", "post-chunked", "post-unicode"] {
        assert_eq!(rules.iter().filter(|l| l.starts_with(&format!("FAIL  {id}: "))).count(), 1, "{id}:\n{stdout}");
    }
    assert!(rules.len() < 30, "{stdout}");
}

#[test]
fn an_unknown_level_is_bad_input() {
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["verify", "--level", "most", "http://127.0.0.1:9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
