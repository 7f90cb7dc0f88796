//! docs/ci.md and its example workflow (docs/examples/fairpair-ci.yml) name only commands that exist: their
//! `fairpair run` commands pass `--dry-run`, and their `fairpair report` commands run on committed fixture pairs
//! (tests/fixtures/gate) with the exit status the recipe promises.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `fairpair …` command of a file: lines that start with it once indentation is trimmed, with shell line
/// continuations (`\` at the end) joined.
fn commands(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut out = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if !line.starts_with("fairpair ") {
            continue;
        }
        let mut command = line.to_string();
        while command.ends_with('\\') {
            command.pop();
            command.push(' ');
            command.push_str(lines.next().unwrap_or_default());
        }
        out.push(command);
    }
    out
}

/// Runs `command` with `sh` in `dir`, this build's `fairpair` first on `PATH`.
fn sh(dir: &Path, command: &str) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_fairpair")).parent().unwrap().to_path_buf();
    let path =
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())));
    Command::new("sh").args(["-c", command]).current_dir(dir).env("PATH", path.unwrap()).output().unwrap()
}

/// A directory laid out as the recipe's job has it after measuring: `baseline/` and `results/new/`.
fn job_dir(name: &str, new: &str) -> PathBuf {
    let dir = common::temp_dir(name);
    for (sub, fixture) in [("baseline", "baseline"), ("results/new", new)] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        let from = root().join(format!("crates/fairpair/tests/fixtures/gate/{fixture}.json"));
        std::fs::copy(from, dir.join(sub).join("benchmark.json")).unwrap();
    }
    dir
}

#[test]
fn the_recipes_run_commands_are_valid_plans() {
    for file in ["docs/ci.md", "docs/examples/fairpair-ci.yml"] {
        let runs: Vec<String> = commands(file).into_iter().filter(|c| c.starts_with("fairpair run ")).collect();
        assert_eq!(runs.len(), 1, "{file}: {runs:?}");
        let dir = common::temp_dir("ci-example-run");
        let out = sh(&dir, &format!("{} --dry-run", runs[0]));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{file}: {}\n{stderr}", runs[0]);
        assert!(stderr.contains("cell get at 50 connections: rust ceiling mine × 5"), "{stderr}");
        assert!(stderr.contains("cell post at 50 connections: rust mine × 5"), "{stderr}");
    }
    assert_eq!(
        commands("docs/ci.md").iter().find(|c| c.starts_with("fairpair run ")),
        commands("docs/examples/fairpair-ci.yml").iter().find(|c| c.starts_with("fairpair run ")),
        "the recipe and the workflow measure with the same plan"
    );
}

#[test]
fn the_recipes_report_commands_gate_as_promised() {
    for file in ["docs/ci.md", "docs/examples/fairpair-ci.yml"] {
        let reports: Vec<String> = commands(file).into_iter().filter(|c| c.starts_with("fairpair report ")).collect();
        assert!(reports.iter().any(|c| c.contains("--fail-on-regression")), "{file}: {reports:?}");
        for (new, gate_status) in [("within-noise", 0), ("bound", 0), ("regressed", 1)] {
            let dir = job_dir("ci-example-report", new);
            for command in &reports {
                let out = sh(&dir, command);
                let want = if command.contains("--fail-on-regression") { gate_status } else { 0 };
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(want), "{file}, new = {new}: {command}\n{stderr}");
            }
            let json = std::fs::read_to_string(dir.join("results/comparison.json")).unwrap();
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(v["counts"]["compared"], 10, "{file}: {json}");
        }
    }
}
