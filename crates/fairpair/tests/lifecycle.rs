//! The subject process lifecycle on a real server (the ceiling): start, ready, stop, and nothing left behind.

mod common;

use std::time::Duration;

use fairpair::machine::host::Host;
use fairpair::machine::procstat::{self, ProcStat};
use fairpair::plan::names::BuiltinSubject;
use fairpair::subjects::process::{self, Origin, StartOptions, SubjectSpec};

fn ceiling_spec() -> SubjectSpec {
    SubjectSpec {
        name: "ceiling".into(),
        origin: Origin::Builtin {
            subject: BuiltinSubject::Ceiling,
            program: vec![common::sibling_binary("ceiling").display().to_string()],
            accepts_max_users: false,
            implements_contract: false,
        },
        workers: Some(1),
        get_only: true,
        ready_path: "/health".into(),
        per_worker_store: false,
    }
}

fn opts() -> StartOptions<'static> {
    StartOptions {
        max_users: None,
        header_timeout_ms: None,
        cpus: None,
        timeout: Duration::from_secs(10),
        host: &process::LOCAL,
        keep_output: None,
    }
}

#[test]
fn start_ready_stop_leaves_no_process() {
    let server = process::start(&ceiling_spec(), &opts()).unwrap();
    assert_ne!(server.addr.port(), 0, "the real port is read from the start-up line");
    assert_eq!(process::status_of(server.addr, "/users/500"), Some(200));
    assert!(server.startup > Duration::ZERO);
    let pid = server.pid;
    assert_eq!(Host::Local.group_members(pid).unwrap().len(), 1);
    server.stop().unwrap();
    assert!(Host::Local.group_members(pid).unwrap().is_empty());
    assert!(read_stat(pid).is_none(), "the server was reaped, not left a zombie");
}

#[test]
fn stopping_kills_the_whole_tree() {
    // A custom subject that forks a helper, like a Node cluster primary forks workers.
    let ceiling = common::sibling_binary("ceiling");
    let spec = SubjectSpec {
        name: "forking".into(),
        origin: Origin::Custom { template: format!("sleep 300 & {} --port {{port}}", ceiling.display()) },
        workers: None,
        get_only: false,
        ready_path: "/".into(),
        per_worker_store: false,
    };
    let server = process::start(&spec, &opts()).unwrap();
    let pid = server.pid;
    let tree = procstat::tree_of(&Host::Local.processes().unwrap(), pid);
    assert!(tree.len() >= 3, "sh, sleep and ceiling: {tree:?}");
    assert!(tree.iter().any(|p| p.comm == "sleep"));
    assert_eq!(Host::Local.tree_memory(pid).unwrap().processes as usize, tree.len());
    drop(server); // Dropping stops it too, as on an error path.
    assert!(
        Host::Local.group_members(pid).unwrap().is_empty(),
        "left behind: {:?}",
        Host::Local.group_members(pid).unwrap()
    );
}

#[test]
fn a_server_that_exits_is_reported_with_its_stderr() {
    let mut spec = ceiling_spec();
    spec.workers = Some(0); // ceiling rejects 0 workers and exits 2.
    let e = process::start(&spec, &opts()).err().expect("start must fail").to_string();
    assert!(e.contains("exited") && e.contains("--workers"), "{e}");
}

#[test]
fn a_subject_that_never_answers_times_out() {
    let spec = SubjectSpec {
        name: "silent".into(),
        origin: Origin::Custom { template: "sleep 30 # {port}".into() },
        workers: None,
        get_only: false,
        ready_path: "/".into(),
        per_worker_store: false,
    };
    let start = std::time::Instant::now();
    let e = process::start(&spec, &StartOptions { timeout: Duration::from_millis(500), ..opts() })
        .err()
        .expect("must time out")
        .to_string();
    assert!(e.contains("no 200"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn an_interrupted_run_stops_its_servers() {
    common::require_wrk();
    common::sibling_binary("ceiling");
    let out = common::temp_dir("interrupted");
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["run", "--subjects", "ceiling", "--scenarios", "get", "--connections", "2", "--duration", "30"])
        .args(["--warmup", "0", "--repeats", "1", "--memory-repeats", "0", "--idle-wait", "0", "--warmup-probe", "0"])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let harness = run.id() as i32;
    // Wait for the server the harness started (its child, in a process group of its own).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let server = loop {
        if let Some(p) = Host::Local.processes().unwrap().into_iter().find(|p| p.ppid == harness && p.comm == "ceiling")
        {
            break p.pid;
        }
        assert!(std::time::Instant::now() < deadline, "the harness never started the ceiling");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(read_stat(server).unwrap().pgrp, server, "the server leads its own group");
    std::thread::sleep(Duration::from_millis(300));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(harness), nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(Host::Local.group_members(server).unwrap().is_empty(), "the server outlived the harness");
}

/// The stat line of a process of this machine, `None` once it is gone.
fn read_stat(pid: i32) -> Option<ProcStat> {
    procstat::parse_stat(&Host::Local.read(&format!("/proc/{pid}/stat"))?)
}
