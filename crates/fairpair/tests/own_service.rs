//! The README's "Compare your own service" recipe, run on its worked example (`docs/examples/users_service.py`, a
//! Python `http.server`): `fairpair verify` passes everything but the transport rules, and a tiny `fairpair run`
//! measures it twice, once writing each response in one piece and once with `--split-writes` (head, then body,
//! without `TCP_NODELAY`), where the report must diagnose Nagle with delayed ACK and only there. Needs python3 and
//! wrk (CI has both); fails, rather than passes, without them.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use fairpair::diagnose::{Diagnosis, diagnose};
use fairpair::schema::Benchmark;

fn example() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/users_service.py");
    assert!(path.is_file(), "{} not found: the README's worked example", path.display());
    path.canonicalize().unwrap()
}

/// The example on a free port, killed when dropped (also when an assertion fails).
struct Example(Child);

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_example() -> (Example, String) {
    let mut child = Command::new("python3")
        .arg(example())
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for this test (CI has it)");
    let stdout = child.stdout.take().unwrap();
    let child = Example(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("listening on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no start-up line: {line:?}"))
        .to_string();
    (child, url)
}

#[test]
fn the_example_passes_everything_but_the_transport_rules() {
    let (_server, url) = start_example();
    // The full contract, for now: this becomes `verify --level api URL`, expecting exit 0 and no failure at all,
    // once the contract levels of issue 10 land. Until then the example fails only the transport-hardening cases
    // (`raw-…`: missing Host, malformed heads, 431s, odd methods), which `http.server` leaves to its own parser.
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair")).args(["verify", &url]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // One line per failing rule: `FAIL  Section: rule (2 of 4 cases: name-a, name-b)`; the tally last.
    let failed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .flat_map(|l| {
            let names = l.rsplit_once("cases: ").map_or(l, |(_, names)| names.trim_end_matches(')'));
            names.split(", ")
        })
        .collect();
    let tally = stdout.lines().last().unwrap_or_default();
    let count = |word: &str| -> usize {
        let before = tally.split(&format!(" {word}")).next().unwrap_or_default();
        before.rsplit(' ').next().unwrap_or_default().parse().unwrap_or_else(|_| panic!("{word} in {tally:?}"))
    };
    // Guard against a vacuous pass: the API cases were really run and passed, and every failure was read.
    assert!(count("passed") >= 190, "{tally}");
    assert_eq!(failed.len(), count("failed"), "{stdout}");
    for name in &failed {
        assert!(name.starts_with("raw-"), "an API case failed: {name}\n{stdout}");
    }
    assert_eq!(out.status.code(), Some(if failed.is_empty() { 0 } else { 1 }), "{stdout}");
}

#[test]
fn a_quick_run_diagnoses_split_writes_and_only_them() {
    common::require_wrk();
    let script = example();
    let script = script.to_str().unwrap();
    let out_dir = common::temp_dir("own-service");
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["run", "--quick", "--subjects", ""])
        .args(["--subject", &format!("mine=python3 {script} --port {{port}}")])
        .args(["--subject", &format!("mine-split=python3 {script} --port {{port}} --split-writes")])
        .args(["--ready-path", "/health", "--scenarios", "get", "--connections", "8"])
        .args(["--duration", "1", "--warmup", "0", "--repeats", "1", "--open-loop-rates", "0"])
        .args(["--memory-repeats", "0", "--idle-wait", "0"])
        // Until the contract levels land the example fails the full contract's transport cases; with `--level api`
        // (the default for a custom subject then) this flag goes.
        .arg("--allow-unverified")
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap();
    let bench: Benchmark = serde_json::from_str(&text).unwrap();
    let p50 = |name: &str| {
        let s = bench.summaries.iter().find(|s| s.subject == name).unwrap_or_else(|| panic!("{name}: {stderr}"));
        s.p50_ms.median
    };
    // The mistake costs the delayed-ACK timer on every response; one write costs nothing like it.
    assert!(p50("mine-split") > 30.0 && p50("mine") < 20.0, "p50 {} vs {}", p50("mine-split"), p50("mine"));
    let found = diagnose(&bench);
    let nagle: Vec<&str> =
        found.iter().filter(|d| matches!(d, Diagnosis::NagleDelayedAck { .. })).map(|d| d.subject()).collect();
    assert_eq!(nagle, ["mine-split"], "{found:?}");
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("## Diagnoses"), "{report}");
    assert!(report.contains("**mine-split: Nagle's algorithm with delayed ACK?**"), "{report}");
    assert!(!report.contains("**mine: Nagle"), "{report}");
}
