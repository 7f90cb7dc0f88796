//! Bad input: exit status 2 and one line on stderr, never a panic or a usage block.

mod common;

use std::process::{Command, Output};

fn fairpair(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairpair")).args(args).output().unwrap()
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let out = fairpair(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    assert_usage_error(&["run", "--subjects", "ruby"], "unknown subject \"ruby\"");
    assert_usage_error(&["run", "--subjects", "ceiling", "--scenarios", "put"], "unknown scenario \"put\"");
    assert_usage_error(&["run", "--subjects", "ceiling", "--scenario", "x=GET"], "--scenario expects NAME=METHOD:PATH");
    assert_usage_error(&["run", "--subjects", "ceiling", "--scenario", "x=get:/"], "must be upper-case");
    assert_usage_error(
        &["run", "--subjects", "ceiling", "--subject", "mine=python3 -m http.server"],
        "must contain {port}",
    );
    assert_usage_error(&["run", "--subjects", "ceiling", "--subject", "no equals sign"], "--subject expects NAME=");
    assert_usage_error(&["run", "--subjects", "ceiling", "--scenario", "x=GET:/:999"], "is not an HTTP status");
    assert_usage_error(&["run", "--subjects", "ceiling", "--post-max-users", "5"], "--post-max-users: expected");
    assert_usage_error(&["run", "--subjects", "ceiling", "--tool", "nope"], "invalid value 'nope' for '--tool");
    assert_usage_error(&["run", "--subjects", "ceiling", "--connections", "0"], "--connections");
    assert_usage_error(&["run", "--subjects", "ceiling", "--connections", "many"], "invalid value 'many'");
    // A bad number says what is wrong with it, in words, as the servers do; a negative one is a value, not a flag.
    assert_usage_error(&["run", "--duration", "-1"], "invalid value '-1' for '--duration <DURATION>': below 0");
    assert_usage_error(&["run", "--duration", "abc"], "'--duration <DURATION>': not a whole number");
    assert_usage_error(&["run", "--repeats", "1.5"], "'--repeats <REPEATS>': not a whole number");
    assert_usage_error(&["run", "--open-loop-rates", "100,-5"], "invalid value '-5' for '--open-loop-rates");
    assert_usage_error(&["run", "--idle-wait", "soon"], "'--idle-wait <IDLE_WAIT>': not a number");
    assert_usage_error(&["run", "--subjects", "ceiling", "--server-cpus", "0-"], "--server-cpus");
    assert_usage_error(
        &["run", "--subjects", "ceiling", "--server-program", "ruby=/x"],
        "--server-program ruby=/x: give NAME=PATH, NAME one of rust, node, go, java, ceiling",
    );
    assert_usage_error(
        &["run", "--subjects", "rust", "--users-server", "/no/such/users-server"],
        "the Rust server not found",
    );
    assert_usage_error(
        &["run", "--subjects", "node", "--node-server", "/no/such/server.js"],
        "the Node server not found",
    );
    // Two hosts: what is missing or cannot work is refused before any connection is tried.
    assert_usage_error(&["run", "--server-host", "bench@server.example"], "--server-host needs --server-dir");
    assert_usage_error(&["run", "--server-dir", "/srv/fairpair"], "--server-host");
    assert_usage_error(
        &["run", "--server-host", "h", "--server-dir", "/d", "--subject", "mine=python3 -m http.server {port}"],
        "runs on this machine only",
    );
    assert_usage_error(&["run", "--bogus"], "unexpected argument '--bogus'");
    assert_usage_error(&["frobnicate"], "unrecognized subcommand");
    assert_usage_error(&[], "a command is required");
    assert_usage_error(&["verify"], "were not provided: <URL>");
    assert_usage_error(&["report", "/no/such/benchmark.json"], "cannot read");
}

/// The decision section's flags, on `report` (no run needed) and on `run` (refused before anything runs).
#[test]
fn bad_decision_flags_are_one_line_and_status_2() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/golden/benchmark.json");
    let out = std::env::temp_dir().join(format!("fairpair-cli-decision-{}", std::process::id()));
    let out = out.to_str().unwrap();
    for cmd in [vec!["report", file, "--out", out], vec!["run", "--dry-run", "--subjects", "ceiling"]] {
        let with = |flags: &[&'static str]| -> Vec<&str> { cmd.iter().chain(flags).copied().collect() };
        assert_usage_error(&with(&["--traffic", "0"]), "--traffic 0: expected a rate above 0");
        assert_usage_error(&with(&["--replicas", "-1"]), "'--replicas <N>': below 0");
        assert_usage_error(&with(&["--replicas", "0"]), "--replicas 0: expected");
        assert_usage_error(&with(&["--io-wait", "5parsecs"]), "\"5parsecs\" is not a duration");
        assert_usage_error(&with(&["--core-price", "-0.04"]), "'--core-price <PRICE>': below 0");
        assert_usage_error(&with(&["--memory-price", "-1"]), "'--memory-price <PRICE>': below 0");
    }
    assert!(!std::path::Path::new(out).exists(), "nothing was written");
}

#[test]
fn a_missing_load_tool_is_named_with_how_to_install_it() {
    common::sibling_binary("ceiling");
    let dir = common::temp_dir("cli-no-tool");
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["run", "--subjects", "ceiling", "--out"])
        .arg(&dir)
        .env("PATH", &dir) // An empty directory: no wrk on this PATH.
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("load tool `wrk` not found") && stderr.contains("apt-get install wrk"), "{stderr}");
}

/// A Java subject without its jar, or without a `java` to run it, is refused before anything runs: exit 2, one line
/// saying how to build or install what is missing (as for the Go server).
#[test]
fn a_java_subject_without_its_jar_or_java_is_refused_in_one_line() {
    let jar = "/nonexistent/users-server-java.jar";
    assert_usage_error(
        &["run", "--dry-run", "--subjects", "java", "--java-server", jar],
        "build it with scripts/build-java",
    );
    let exe = env!("CARGO_BIN_EXE_fairpair");
    let no_java = ["run", "--dry-run", "--subjects", "java", "--java-server", exe, "--java", "/nonexistent/java"];
    assert_usage_error(&no_java, "java not found: /nonexistent/java (install a JDK 17 or later");
}

#[test]
fn help_exits_0() {
    let out = fairpair(&["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("--allow-unverified"));
}

/// `--preset` only sets defaults: the dry run shows the study's method (article: autocannon, node, go and rust, 50 and
/// 300 connections), and a flag given on the command line wins over the preset's. Needs the Go server, which it builds
/// where fairpair looks for it.
#[test]
fn a_preset_sets_defaults_that_flags_override() {
    if !testkit::require("a_preset_sets_defaults_that_flags_override", testkit::Need::Tool("go")) {
        return;
    }
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fairpair"));
    let go_server = exe.parent().unwrap().join("../go/users-server-go");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let built = Command::new(root.join("scripts/build-go")).arg(&go_server).output().unwrap();
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    common::sibling_binary("users-server");

    let dry = |extra: &[&str]| {
        let mut args = vec!["run", "--preset", "article", "--quick", "--dry-run"];
        args.extend_from_slice(extra);
        let out = Command::new(&exe).current_dir(&root).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        stderr
    };
    let preset = dry(&[]);
    assert!(preset.contains("load tool: autocannon"), "{preset}");
    assert!(preset.contains("cell get at 300 connections: node go rust"), "{preset}");
    assert!(!preset.contains("servers on CPU"), "the article's method is unpinned: {preset}");

    // Every study's preset makes a valid plan (CI checks them dry: their real runs take minutes each).
    for preset in ["fairpair", "wrk", "ab-hello", "bombardier"] {
        let out = Command::new(&exe)
            .current_dir(&root)
            .args(["run", "--preset", preset, "--quick", "--dry-run"])
            .output()
            .unwrap();
        assert!(out.status.success(), "--preset {preset}: {}", String::from_utf8_lossy(&out.stderr));
    }

    let overridden = dry(&["--tool", "wrk", "--connections", "7"]);
    assert!(overridden.contains("load tool: wrk"), "{overridden}");
    assert!(overridden.contains("cell get at 7 connections: node go rust"), "{overridden}");
    assert!(!overridden.contains("at 300 connections"), "{overridden}");
}
