//! Every committed report is what today's `fairpair report` makes of the `benchmark.json` beside it, byte for byte:
//! `report.md`, `report.html` and every SVG chart in each folder of `docs/results` and in `docs/tour`, and the two
//! committed comparisons (`fairpair report --compare`). A change to the report that is not carried into them fails
//! here, so a reader never finds a committed report in an older format than the code's.
//!
//! After a deliberate change to the report, regenerate them all and read the diff before committing it:
//!
//! ```sh
//! FAIRPAIR_BLESS=1 cargo test -p fairpair --test committed_reports
//! git diff --stat docs/
//! ```

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn bless() -> bool {
    std::env::var_os("FAIRPAIR_BLESS").is_some_and(|v| v == "1")
}

/// Every folder under `docs/results` and `docs/tour` that holds a `benchmark.json`, sorted.
fn committed_runs() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        if dir.join("benchmark.json").is_file() {
            out.push(dir.to_path_buf());
        }
        let mut dirs: Vec<PathBuf> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        for d in dirs {
            walk(&d, out);
        }
    }
    let mut out = Vec::new();
    for top in ["docs/results", "docs/tour"] {
        walk(&workspace().join(top), &mut out);
    }
    out
}

/// The report files in `dir`: `report.md`, `report.html` and the SVG charts (not the run's README, Lua scripts or
/// other records kept beside them).
fn report_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name == "report.md" || name == "report.html" || name.ends_with(".svg"))
        .collect()
}

/// `fairpair ARGS` from the workspace root; its stdout. Fails the test on a non-zero exit.
fn fairpair(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair")).args(args).current_dir(workspace()).output().unwrap();
    assert!(out.status.success(), "fairpair {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn every_committed_report_is_what_fairpair_report_makes_of_its_benchmark_today() {
    let runs = committed_runs();
    assert!(runs.len() >= 8, "the committed runs were not found: {runs:?}");
    let mut stale = Vec::new();
    for dir in &runs {
        let name = dir.strip_prefix(workspace()).unwrap().display().to_string();
        let tmp = common::temp_dir(&format!("committed-{}", name.replace('/', "-")));
        std::fs::copy(dir.join("benchmark.json"), tmp.join("benchmark.json")).unwrap();
        fairpair(&["report", tmp.join("benchmark.json").to_str().unwrap()]);
        let made = report_files(&tmp);
        assert!(made.contains("report.md") && made.contains("report.html"), "{name}: {made:?}");
        let committed = report_files(dir);
        if bless() {
            for file in &committed {
                std::fs::remove_file(dir.join(file)).unwrap();
            }
            for file in &made {
                std::fs::copy(tmp.join(file), dir.join(file)).unwrap();
            }
            continue;
        }
        for file in committed.symmetric_difference(&made) {
            let why = if made.contains(file) { "not committed" } else { "committed, but no longer made" };
            stale.push(format!("{name}/{file}: {why}"));
        }
        for file in committed.intersection(&made) {
            if std::fs::read(dir.join(file)).unwrap() != std::fs::read(tmp.join(file)).unwrap() {
                stale.push(format!("{name}/{file}: differs from what `fairpair report` makes today"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "committed reports out of date (regenerate: FAIRPAIR_BLESS=1 cargo test -p fairpair --test \
         committed_reports):\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_committed_comparisons_are_what_fairpair_report_compare_prints_today() {
    let comparisons = [
        ("docs/results/compare-a-b.md", "docs/results/epyc-2vcpu-a", "docs/results/epyc-2vcpu-b/before-1b793e4"),
        (
            "docs/results/compare-b-before-after.md",
            "docs/results/epyc-2vcpu-b/before-1b793e4",
            "docs/results/epyc-2vcpu-b/after-dfe9152",
        ),
    ];
    let mut stale = Vec::new();
    for (file, old, new) in comparisons {
        let (old, new) = (format!("{old}/benchmark.json"), format!("{new}/benchmark.json"));
        // Paths relative to the workspace root, as the comparison names them.
        let made = fairpair(&["report", "--compare", &old, &new]);
        let path = workspace().join(file);
        if bless() {
            std::fs::write(&path, &made).unwrap();
        } else if std::fs::read(&path).unwrap() != made {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from `fairpair report --compare OLD NEW` (regenerate: FAIRPAIR_BLESS=1 cargo test -p \
         fairpair --test committed_reports)"
    );
}

/// The absolute paths in `text` that lead into a checkout of this repository (a path with one of its top-level
/// folders in it, such as `/home/me/fairpair/servers-node/server.js`), system paths aside.
fn checkout_paths(text: &str) -> BTreeSet<String> {
    const TOP: [&str; 6] = ["servers-node", "servers-go", "servers-java", "target", "tools", "crates"];
    let is_path = |c: char| c.is_ascii_alphanumeric() || "._+-/".contains(c);
    let mut found = BTreeSet::new();
    for top in TOP {
        for (at, _) in text.match_indices(&format!("/{top}/")) {
            let start = text[..at].rfind(|c: char| !is_path(c)).map_or(0, |i| i + 1);
            let path = &text[start..at + top.len() + 1];
            if path.starts_with('/') && !["/usr/", "/proc/", "/sys/"].iter().any(|s| path.starts_with(s)) {
                found.insert(path.to_string());
            }
        }
    }
    found
}

/// A committed run names no reader's checkout: paths into the repository are written from its root, as
/// `scripts/relative-paths` rewrites them before a run is committed.
#[test]
fn no_committed_run_names_the_checkout_it_ran_in() {
    assert_eq!(
        checkout_paths(
            r#"["taskset -c 0 /home/me/fairpair/tools/node/node_modules/.bin/node", "target/release/users-server"]"#
        ),
        BTreeSet::from(["/home/me/fairpair/tools".to_string()]),
        "the check finds an absolute checkout path and leaves a relative one"
    );
    for dir in committed_runs() {
        let text = std::fs::read_to_string(dir.join("benchmark.json")).unwrap();
        let found = checkout_paths(&text);
        assert!(found.is_empty(), "{}: {found:?}: run scripts/relative-paths on it", dir.display());
    }
}
