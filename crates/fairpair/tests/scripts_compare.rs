//! `scripts/compare` on a fresh machine: its first run installs oha (announced, with its cost), later runs reuse it,
//! `--quick` and `--open-loop-rates 0` install nothing, and `fairpair run` finds oha in `$CARGO_HOME/bin` although
//! that folder is not on the caller's PATH; and what it reads from its arguments (the load tool, whether Go is needed)
//! agrees with what `fairpair run --dry-run` plans for the same arguments, for every preset.
//!
//! The ten-minute `cargo install oha --locked` is played by a fake `cargo` that records its arguments and writes a
//! fake `oha` where cargo would; `FAIRPAIR_BIN` skips the build and `--dry-run` the load, so each run takes moments.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Machine {
    home: PathBuf,
    cargo_home: PathBuf,
    fake_bin: PathBuf,
}

impl Machine {
    /// An empty home with no oha, and a PATH on which `cargo` is the fake and no folder holds an `oha`. The fake oha's
    /// help names `--worker-threads`, which is how scripts/compare and scripts/setup-tools tell a usable oha.
    fn fresh(name: &str) -> Machine {
        let home = common::temp_dir(name);
        let cargo_home = home.join(".cargo");
        let fake_bin = home.join("fake-bin");
        std::fs::create_dir_all(cargo_home.join("bin")).unwrap();
        std::fs::create_dir_all(&fake_bin).unwrap();
        let cargo = fake_bin.join("cargo");
        std::fs::write(
            &cargo,
            "#!/bin/sh\n\
             echo \"$*\" >> \"$CARGO_HOME/fake-cargo.log\"\n\
             if [ \"$1 $2 $3\" = 'install oha --locked' ]; then\n\
               printf '#!/bin/sh\\necho oha 0.0.0-fake --worker-threads\\n' > \"$CARGO_HOME/bin/oha\"\n\
               chmod +x \"$CARGO_HOME/bin/oha\"\n\
             fi\n",
        )
        .unwrap();
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        Machine { home, cargo_home, fake_bin }
    }

    fn path(&self) -> String {
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::env::split_paths(&inherited).filter(|d| !d.join("oha").exists());
        let all: Vec<PathBuf> = std::iter::once(self.fake_bin.clone()).chain(dirs).collect();
        std::env::join_paths(all).unwrap().into_string().unwrap()
    }

    /// Runs `scripts/compare --dry-run --subjects node ARGS`; returns (exit code, stderr).
    fn compare(&self, args: &[&str]) -> (Option<i32>, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/compare");
        let out = Command::new(script)
            .args(["--dry-run", "--subjects", "node"])
            .args(args)
            .env("HOME", &self.home)
            .env("CARGO_HOME", &self.cargo_home)
            .env("PATH", self.path())
            .env("FAIRPAIR_BIN", env!("CARGO_BIN_EXE_fairpair"))
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// The fake cargo's calls, one line each.
    fn cargo_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.cargo_home.join("fake-cargo.log"))
            .map(|t| t.lines().map(String::from).collect())
            .unwrap_or_default()
    }
}

#[test]
fn the_first_run_installs_oha_and_later_runs_reuse_it() {
    common::require_wrk();
    let m = Machine::fresh("compare-first-run");
    assert!(!m.path().split(':').any(|d| Path::new(d).join("oha").exists()), "no oha on the test's PATH");

    let (code, stderr) = m.compare(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("scripts/compare: installing oha (first run on this machine"), "{stderr}");
    assert!(stderr.contains("7 to 17 minutes of compiling on 2 cores"), "{stderr}");
    assert_eq!(m.cargo_calls(), ["install oha --locked --version 1.16.0"]);
    assert!(m.cargo_home.join("bin/oha").is_file());
    // The script puts $CARGO_HOME/bin on the PATH it gives fairpair, which then chooses the oha just installed.
    assert!(stderr.contains("fairpair: open-loop tool: oha, for the capacity search (latencies corrected"), "{stderr}");
    // The announcement comes before anything else is done.
    assert!(stderr.starts_with("scripts/compare: installing oha"), "{stderr}");

    let (code, stderr) = m.compare(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("installing"), "a second run installs nothing: {stderr}");
    assert_eq!(m.cargo_calls().len(), 1, "no second cargo call");
    assert!(stderr.contains("fairpair: open-loop tool: oha"), "{stderr}");
}

#[test]
fn quick_and_no_open_loop_install_nothing() {
    common::require_wrk();
    let m = Machine::fresh("compare-quick");
    let (code, stderr) = m.compare(&["--quick"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("--quick does not wait ten minutes to compile it"), "{stderr}");
    assert!(stderr.contains("run scripts/setup-tools oha once"), "{stderr}");
    assert!(!stderr.contains("fairpair: open-loop tool: oha"), "{stderr}");

    let (code, stderr) = m.compare(&["--open-loop-rates", "0"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("oha is not installed") && !stderr.contains("installing"), "{stderr}");
    assert!(stderr.contains("open-loop tool: none: no capacity search"), "{stderr}");
    assert!(m.cargo_calls().is_empty(), "{:?}", m.cargo_calls());
    assert!(!m.cargo_home.join("bin/oha").exists());
}

/// What `scripts/compare ARGS` reads from its arguments: `(tool, needs Go, needs Java)`.
fn script_needs(args: &[&str]) -> (String, bool, bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/compare");
    let out = Command::new(script).args(args).env("FAIRPAIR_COMPARE_PRINT_NEEDS", "1").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let words: Vec<&str> = text.split_whitespace().collect();
    let [tool, go, java] = words[..] else { panic!("tool=… go=… java=…, got {text:?}") };
    (tool.trim_start_matches("tool=").to_string(), go == "go=true", java == "java=true")
}

/// What `fairpair run --dry-run ARGS` plans: `(tool, has a Go subject, has a Java subject)`, as its plan lines print
/// them. `--go-server`, `--java-server` and `--java` name any existing file, so that the plan does not refuse the Go
/// and Java subjects where their servers are not built.
fn plan_needs(args: &[&str]) -> (String, bool, bool) {
    let exe = env!("CARGO_BIN_EXE_fairpair");
    let programs = ["--go-server", exe, "--java-server", exe, "--java", exe];
    let out = Command::new(exe).args(["run", "--dry-run"]).args(programs).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    let tool = text.lines().find_map(|l| l.strip_prefix("fairpair: load tool: ")).unwrap_or_else(|| panic!("{text}"));
    // The subjects of the cells, and those planned but skipped on this machine (go-multi on 2 cores).
    let cells = text.lines().filter_map(|l| l.strip_prefix("fairpair: cell "));
    let skipped = text.lines().filter_map(|l| l.strip_prefix("fairpair: skipped: ")?.split(':').next());
    let words: Vec<&str> = cells.flat_map(|l| l.split_whitespace()).chain(skipped).collect();
    let go = words.iter().any(|&w| w == "go" || w == "go-multi");
    let java = words.iter().any(|&w| w == "java" || w == "java-multi");
    (tool.split_whitespace().next().unwrap().to_string(), go, java)
}

#[test]
fn the_script_installs_what_each_preset_and_tool_needs() {
    let cases: &[&[&str]] = &[
        &[],
        &["--preset", "fairpair"],
        &["--preset", "article"],
        &["--preset=wrk"],
        &["--preset", "ab-hello"],
        &["--preset", "bombardier"],
        &["--preset", "ab-hello", "--tool", "wrk", "--subjects", "node"],
        &["--subjects", "rust,go-multi"],
        &["--tool=ab", "--subjects=go"],
        &["--subjects", "java,rust"],
        &["--preset", "bombardier", "--subjects", "node,java-multi"],
    ];
    for args in cases {
        let (tool, go, java) = script_needs(args);
        let (planned_tool, planned_go, planned_java) = plan_needs(args);
        assert_eq!(tool, planned_tool, "the tool of {args:?}");
        assert_eq!(java, planned_java, "Java for {args:?}");
        // bombardier is a Go program: the script installs Go for it even without a Go subject.
        assert_eq!(go, planned_go || tool == "bombardier", "Go for {args:?}");
    }
}
