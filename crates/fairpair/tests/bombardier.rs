//! `fairpair run --tool bombardier`, briefly, against the built-in `rust` subject for each built-in scenario (GET,
//! POST with its body, and the studies' hello route): every run is bombardier's, the results name its version, and
//! each run's throughput is made of answers with the expected status only, none of them failed requests.
//!
//! Needs the HTTP load tool bombardier on PATH (`GOTOOLCHAIN=local go install github.com/codesenberg/bombardier@v1.2.6`;
//! scripts/test puts Go's bin folder on PATH). Without it the test is recorded as skipped, which CI counts as a
//! failure, since `.ci/provides` says CI installs it.

mod common;

use std::path::PathBuf;
use std::process::Command;

use fairpair::schema::Benchmark;
use fairpair::tools::Tool;
use testkit::Need;

const TEST: &str = "bombardier_measures_get_post_and_hello_with_its_version_named";

#[test]
fn bombardier_measures_get_post_and_hello_with_its_version_named() {
    if !testkit::require(TEST, Need::Tool("bombardier")) {
        return;
    }
    // A `bombardier` on PATH may be Debian's game of that name, which the harness refuses: that is no skip, it is a
    // machine that lacks the tool while looking as if it had it.
    assert!(Tool::Bombardier.adapter().available(), "the bombardier on PATH is not the HTTP tool (a games folder?)");
    common::sibling_binary("users-server");
    let out_dir = common::temp_dir("bombardier");
    let output = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["run", "--quick", "--tool", "bombardier", "--subjects", "rust", "--scenarios", "get,post,hello"])
        .args(["--connections", "4", "--duration", "1", "--warmup", "0", "--repeats", "1", "--open-loop-rates", "0"])
        // Other tests run at once: a busy machine here is no reason to rerun. Nor is a store sized in preflight from
        // a POST rate measured while the machine was busy, which a faster run then fills (507s, and a rerun): one of a
        // million users is more than 1 s of POSTs can fill.
        .args(["--idle-threshold", "100", "--memory-repeats", "0", "--idle-wait", "0"])
        .args(["--post-max-users", "1000000"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let bench: Benchmark =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("benchmark.json")).unwrap()).unwrap();

    // The version is read from the binary's Go build info (or a release build's --version), never "unspecified".
    let version = bench.environment.tools.get("bombardier").cloned().unwrap_or_default();
    assert!(version.starts_with("bombardier v"), "bombardier's version is named: {version:?}");
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains(&format!("`bombardier` ({version})")), "the method names it: {report}");

    let mut scenarios: Vec<&str> = bench.runs.iter().map(|r| r.scenario.as_str()).collect();
    scenarios.sort_unstable();
    assert_eq!(scenarios, ["get", "hello", "post"], "one run per scenario: {stderr}");
    for r in &bench.runs {
        let cell = format!("{} {}", r.subject, r.scenario);
        assert_eq!(r.tool, Tool::Bombardier, "{cell}");
        assert!(r.command.split(' ').any(|w| w == "bombardier"), "{cell}: {}", r.command);
        assert!(r.requests > 0 && r.requests_per_sec > 0.0, "{cell}: a throughput: {}", r.raw_output);
        // Failed requests are no answers and error statuses no served work: none here, and the run is a figure.
        assert_eq!((r.errors, r.non_2xx, r.unexpected_responses), (0, 0, 0), "{cell}: {}", r.raw_output);
        assert_eq!(r.left_out, None, "{cell}");
        assert!(r.latency.p50_ms > 0.0 && r.latency.p99_9_ms.is_none(), "{cell}: {:?}", r.latency);
    }
    let post = bench.runs.iter().find(|r| r.scenario == "post").unwrap();
    assert!(post.command.contains("-m POST") && post.command.contains(" -b "), "{}", post.command);
    assert!(post.raw_output.contains(r#""req2xx":"#) && post.raw_output.contains(r#""method":"POST""#));
    assert!(bench.summaries.iter().all(|s| s.requests_per_sec.median > 0.0), "{:?}", bench.summaries);
}
