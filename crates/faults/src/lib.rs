//! Faults, hostile input and load: the suite that proves the fairpair servers survive and agree.
//!
//! The tests live in `tests/` and run with `cargo test -p faults` (and so in `scripts/test`). Each starts the real
//! servers — `users-server` (Rust), `servers-node/server.js` (Node), `servers-go` (Go, when installed) and
//! `servers-java` (Java, when its jar can be built: a JDK 17 or later and Maven), and the
//! Node `cluster` where it matters — as child processes on free ports, sends them identical bytes, and requires that
//! each answers as the contract says and as the others do:
//!
//! - `differential.rs`: every case of `contract/cases.json`, every method on every route, pipelining, bodies
//!   shorter and longer than declared, the servers compared byte for byte;
//! - `properties.rs`: random JSON bodies and paths (proptest), the servers agreeing, POST → GET round trips;
//! - `slow_clients.rs`: dribbled heads and bodies, silent sockets, idle keep-alive, all cut in time while a
//!   normal client keeps being served;
//! - `shutdown.rs`: SIGTERM under load, a client reset mid-body, the capacity limit;
//! - `hostile.rs`: hostile input, round two (what a second review found): half-closed connections, a burst of 1,000
//!   connects, the memory of draining oversize bodies, ignored signals, chunk sizes followed by blanks, unsupported
//!   transfer codings. Written over a list of server kinds, so a new server is one line there.
//!
//! This file holds what they share: starting and stopping a server ([`Server`]); its memory is read with the
//! harness's own `/proc` code (`fairpair::machine::host`).
//! Slow parts that need minutes (the soak, slowhttptest with the real 10 s limits, schemathesis) are scripts in
//! `scripts/`, not tests.

use nix::sys::signal::{kill, killpg};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{OnceLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

pub use contract;
use fairpair::subjects::builtins::{Location, Server as Builtin, ServerId};
pub use nix::sys::signal::Signal;

/// Which server to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Rust,
    Node,
    /// The Node `cluster` primary with this many workers.
    NodeCluster(u32),
    /// `servers-go`, when Go is installed (see [`kinds`]).
    Go,
    /// `servers-java`, one JVM, when its jar can be built: a JDK 17 or later and Maven (see [`kinds`]).
    Java,
}

/// The single-process servers a differential test compares, Rust first. Go and Java are left out, each with a
/// `skipped:` line naming `test`, when their toolchain is not installed: the test then still compares the others, and
/// the line says what it did not check. A new server is one more entry here.
pub fn kinds(test: &str) -> Vec<Kind> {
    let mut kinds = vec![Kind::Rust, Kind::Node];
    if go_binary().is_some() {
        kinds.push(Kind::Go);
    } else {
        skipped(&format!("{test} (go)"), "no Go 1.26 or later installed (scripts/build-go --check)");
    }
    match (java_jar(), java_fails(test)) {
        (Ok(_), None) => kinds.push(Kind::Java),
        (Ok(_), Some(found)) => testkit::skip(&format!("{test} (java)"), testkit::Need::Passing("java"), found),
        (Err((need, why)), _) => testkit::skip(&format!("{test} (java)"), need, &why),
    }
    kinds
}

/// What the Java server did in `test` that it must not, if `test` is one it does not pass yet ([`JAVA_FAILS`]).
pub fn java_fails(test: &str) -> Option<&'static str> {
    JAVA_FAILS.iter().find(|(name, _)| *name == test).map(|(_, found)| *found)
}

/// The tests the Java server does not pass yet, each with what it found. They leave java out, and say so among the
/// tests not run, until the server (or, where Tomcat decides and the RFC allows either answer, the tolerance table)
/// is fixed; every other suite compares java with the others. Remove a line when its test passes on java.
const JAVA_FAILS: &[(&str, &str)] = &[];

/// Says that a test (or part of one) did not run for want of Go, through `testkit`: a line on stderr and a record
/// that `scripts/test` lists at the end (and that fails CI, which installs Go).
pub fn skipped(test: &str, why: &str) {
    testkit::skip(test, testkit::Need::Tool("go"), why);
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rust => "rust",
            Kind::Node => "node",
            Kind::NodeCluster(_) => "node-cluster",
            Kind::Go => "go",
            Kind::Java => "java",
        }
    }
}

/// The time limits a test server runs with. The contract's are 10 s each; tests lower them so that a test which
/// waits for a cut-off finishes in seconds. Every server takes the same test-only flags for them.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header: Duration,
    pub body: Duration,
    pub shutdown: Duration,
}

impl Limits {
    /// Short limits for the tests that wait for them.
    pub const SHORT: Limits =
        Limits { header: Duration::from_secs(1), body: Duration::from_secs(1), shutdown: Duration::from_secs(3) };
    /// The contract's own limits.
    pub const CONTRACT: Limits =
        Limits { header: Duration::from_secs(10), body: Duration::from_secs(10), shutdown: Duration::from_secs(10) };
}

/// A server running as a child process; killed (with all its processes) when dropped.
pub struct Server {
    pub kind: Kind,
    pub addr: SocketAddr,
    pub limits: Limits,
    child: Child,
    stopped: bool,
}

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root exists")
}

/// The Node that runs the Node server, by the harness's rule (`fairpair::subjects::node`): FAIRPAIR_NODE, else the project's
/// tools/node when installed, else `node` on PATH. The machine's Node is said once per test process, so that a run on
/// it is not taken for one on the project's.
pub fn node() -> fairpair::subjects::node::Node {
    static NODE: OnceLock<fairpair::subjects::node::Node> = OnceLock::new();
    NODE.get_or_init(|| {
        let node = fairpair::subjects::node::find(&[repo_root()]);
        if node.source == fairpair::subjects::node::NodeSource::Path {
            eprintln!("faults: the Node server runs on the machine's node: tools/node is not installed");
        }
        node
    })
    .clone()
}

/// The `users-server` binary of this build profile, built first if `cargo test` has not built it already.
fn rust_binary() -> PathBuf {
    let profile_dir = profile_dir();
    let bin = profile_dir.join("users-server");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let release = profile_dir.ends_with("release");
        let status = Command::new(cargo)
            .args(["build", "-p", "users-server", "--bin", "users-server"])
            .args(release.then_some("--release"))
            .current_dir(repo_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building users-server failed");
    }
    bin
}

/// target/<profile>: where this binary's profile puts the Rust binaries. Test binaries live in
/// target/<profile>/deps, the fuzzer's binary in target/<profile> itself.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("this binary has a path");
    let dir = exe.parent().expect("a binary lives in a directory");
    if dir.ends_with("deps") { dir.parent().expect("target/<profile>/deps").to_owned() } else { dir.to_owned() }
}

/// Whether the path of a request target holds a `%` not followed by two hex digits. Go's net/http parses the
/// target as a URL (`url.ParseRequestURI`) before any handler runs and answers such a target 400 (text/plain, no
/// Content-Length, connection closed), and Tomcat decodes the path before it maps a context and answers 400 with an
/// empty body (the Java server's host report valve), where Rust and Node route the raw path and answer 404: a
/// difference between the stacks, shown by `differential.rs`, that the comparisons must allow for.
pub fn has_malformed_percent_escape(target: &str) -> bool {
    let path = target.split('?').next().unwrap_or("");
    let bytes = path.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'%' && !(bytes.get(i + 1..i + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))))
}

/// The Go server's binary, built by `scripts/build-go` once per test process (Go's build cache makes a rebuild of
/// unchanged sources take a moment), or `None` when no Go that can build it is installed (`scripts/build-go --check`
/// decides: Go 1.26 or later). A failing build is a test failure.
pub fn go_binary() -> Option<PathBuf> {
    static BINARY: OnceLock<Option<PathBuf>> = OnceLock::new();
    BINARY.get_or_init(|| built_by("scripts/build-go", ServerId::Go).ok()).clone()
}

/// Why a build script of `scripts/` made nothing: it is not in this checkout, or its `--check` failed with this line.
enum Unbuilt {
    NoScript(String),
    CheckFailed(String),
}

/// The Java server's jar, built by `scripts/build-java` once per test process (Maven's own checks make a rebuild
/// of unchanged sources short), or why not: the need-key a skip records and its reason, when the script is not in
/// this checkout or `scripts/build-java --check` finds no JDK 17 or later, or no Maven. A failing build is a test
/// failure.
pub fn java_jar() -> Result<PathBuf, (testkit::Need, String)> {
    static JAR: OnceLock<Result<PathBuf, (testkit::Need, String)>> = OnceLock::new();
    JAR.get_or_init(|| {
        built_by("scripts/build-java", ServerId::Java).map_err(|unbuilt| match unbuilt {
            // Without the script, what is wanted is the Java server's branch, whose build needs Maven.
            Unbuilt::NoScript(why) => (testkit::Need::Tool("mvn"), why),
            // The line of --check names what is missing: a JVM to run the jar, or Maven to build it.
            Unbuilt::CheckFailed(why) => {
                let no_maven = why.contains("mvn") || why.contains("Maven");
                (testkit::Need::Tool(if no_maven { "mvn" } else { "java" }), why)
            }
        })
    })
    .clone()
}

/// The program a build script of `scripts/` makes for a built-in server, at the place of its entry in the harness's
/// table (`fairpair::subjects::builtins`, under the target directory), once its `--check` passes; else the check's line.
fn built_by(script: &str, server: ServerId) -> Result<PathBuf, Unbuilt> {
    let name = script;
    let script = repo_root().join(name);
    if !script.is_file() {
        return Err(Unbuilt::NoScript(format!("{name} is not in this checkout")));
    }
    let check = Command::new(&script).arg("--check").stdin(Stdio::null()).output().expect("the build script runs");
    if !check.status.success() {
        let said = String::from_utf8_lossy(&check.stderr).to_string() + &String::from_utf8_lossy(&check.stdout);
        return Err(Unbuilt::CheckFailed(said.lines().next().unwrap_or("--check failed").trim().to_string()));
    }
    let Location::Target(relative) = Builtin::get(server).location else {
        unreachable!("a script of scripts/ builds into the target directory")
    };
    let target = profile_dir().parent().expect("target/<profile>").to_owned();
    let program = target.join(relative);
    let status = Command::new(&script).arg(&program).stdout(Stdio::null()).status().expect("the build script runs");
    assert!(status.success(), "{} failed", script.display());
    Ok(program)
}

/// The releases of the HTTP stacks under the servers in `kinds`, for the lines that name them (see
/// `contract::releases`): hyper from Cargo.lock, llhttp from the Node that runs the Node server, Go from the Go
/// server's binary, Tomcat from the Java server's jar. A stack whose server is not in `kinds` is left unknown.
pub fn releases(kinds: &[Kind]) -> contract::releases::AtHand {
    use contract::releases::{go_release, hyper_release, llhttp_release, tomcat_release};
    let node = kinds.iter().any(|k| matches!(k, Kind::Node | Kind::NodeCluster(_)));
    contract::releases::AtHand {
        hyper: kinds.contains(&Kind::Rust).then(hyper_release).flatten(),
        llhttp: node.then(|| llhttp_release(Path::new(&self::node().program))).flatten(),
        go: kinds.contains(&Kind::Go).then(|| go_binary().and_then(|b| go_release(&b))).flatten(),
        tomcat: kinds.contains(&Kind::Java).then(|| java_jar().ok().and_then(|j| tomcat_release(&j))).flatten(),
    }
}

/// The line of each stack under the servers in `kinds`: its release here, and a warning where tolerance rows were
/// decided on another.
pub fn release_lines(kinds: &[Kind]) -> Vec<String> {
    use contract::releases::{Stack, line};
    let at_hand = releases(kinds);
    let decided: Vec<contract::releases::DecidedOn> =
        contract::tolerances::TOLERANCES.iter().map(|t| t.decided_on).collect();
    let present = |stack: Stack| match stack {
        Stack::Hyper => kinds.contains(&Kind::Rust),
        Stack::Llhttp => kinds.iter().any(|k| matches!(k, Kind::Node | Kind::NodeCluster(_))),
        Stack::NetHttp => kinds.contains(&Kind::Go),
        Stack::Tomcat => kinds.contains(&Kind::Java),
    };
    Stack::ALL.into_iter().filter(|&s| present(s)).map(|s| line(s, at_hand.release(s), &decided)).collect()
}

impl Server {
    /// Starts a server on a free port with the contract's default settings and the given time limits, plus any
    /// extra flags (`--max-users 10000`, say), and waits for its start-up line.
    pub fn start(kind: Kind, limits: Limits, extra: &[&str]) -> Server {
        Server::start_with_workers(kind, limits, Server::start_workers(kind), extra)
    }

    /// The worker count [`Server::start`] gives a kind.
    fn start_workers(kind: Kind) -> u32 {
        match kind {
            Kind::NodeCluster(n) => n,
            // Go with two threads, like Rust, so that the store's lock is exercised.
            Kind::Rust | Kind::Go | Kind::Java => 2,
            Kind::Node => 1,
        }
    }

    /// Like [`Server::start`], with `--workers N` (a cluster's worker count is the kind's own).
    pub fn start_with_workers(kind: Kind, limits: Limits, workers: u32, extra: &[&str]) -> Server {
        Server::spawn(kind, limits, workers, extra, Stdio::inherit())
    }

    /// Like [`Server::start`], with the server's stderr written to `path` instead of the test's own, for the tests
    /// that read what a server says there.
    pub fn start_with_stderr(kind: Kind, limits: Limits, extra: &[&str], path: &Path) -> Server {
        let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
        let workers = Server::start_workers(kind);
        Server::spawn(kind, limits, workers, extra, Stdio::from(file))
    }

    fn spawn(kind: Kind, limits: Limits, workers: u32, extra: &[&str], stderr: Stdio) -> Server {
        let mut command = match kind {
            Kind::Rust => Command::new(rust_binary()),
            Kind::Go => Command::new(go_binary().expect("Go is installed (check with faults::kinds)")),
            Kind::Java => {
                // As the harness starts it (`fairpair::subjects::builtins`): one JVM told it has as many CPUs as workers.
                let jar = java_jar().expect("the jar is built (check with faults::kinds)");
                let mut c = Command::new("java");
                c.arg(format!("-XX:ActiveProcessorCount={workers}")).arg("-jar").arg(jar);
                c
            }
            Kind::Node | Kind::NodeCluster(_) => {
                let mut c = Command::new(node().program);
                c.arg(repo_root().join("servers-node/server.js"));
                c
            }
        };
        let workers = match kind {
            Kind::NodeCluster(n) => n,
            Kind::Rust | Kind::Node | Kind::Go | Kind::Java => workers,
        };
        command
            .args(["--host", "127.0.0.1", "--port", "0", "--workers", &workers.to_string()])
            .args(["--header-timeout-ms", &limits.header.as_millis().to_string()])
            .args(["--body-timeout-ms", &limits.body.as_millis().to_string()])
            .args(["--shutdown-timeout-ms", &limits.shutdown.as_millis().to_string()])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        // A process group of its own, so that a cluster's workers die with it when a test ends early.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().unwrap_or_else(|e| panic!("starting the {} server: {e}", kind.name()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let addr = wait_for_listening_line(stdout, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("the {} server did not start: {e}", kind.name()));
        Server { kind, addr, limits, child, stopped: false }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal (`Signal::SIGTERM`, say) to the server's main process.
    pub fn signal(&self, signal: Signal) {
        kill(self.nix_pid(), signal).unwrap_or_else(|e| panic!("sending {signal} to {} failed: {e}", self.pid()));
    }

    fn nix_pid(&self) -> Pid {
        Pid::from_raw(i32::try_from(self.pid()).expect("pids fit in an i32"))
    }

    /// Sends SIGTERM and waits up to `within` for the process to exit; returns its status and how long it took.
    pub fn terminate(&mut self, within: Duration) -> Option<(ExitStatus, Duration)> {
        self.signal(Signal::SIGTERM);
        self.wait_exit(within)
    }

    /// Waits up to `within` for the process to exit; returns its status and how long the wait took.
    pub fn wait_exit(&mut self, within: Duration) -> Option<(ExitStatus, Duration)> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the server") {
                self.stopped = true;
                return Some((status, start.elapsed()));
            }
            if start.elapsed() >= within {
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resident memory in KiB, summed over the server's process and its children (the cluster's workers), read
    /// the same way the harness reads it.
    pub fn rss_kib(&self) -> u64 {
        fairpair::machine::host::Host::Local
            .tree_memory(self.nix_pid().as_raw())
            .expect("the server's memory is read from /proc")
            .rss_kib
    }

    /// Peak resident memory (VmHWM) in KiB, summed the same way.
    pub fn hwm_kib(&self) -> u64 {
        fairpair::machine::host::Host::Local
            .tree_memory(self.nix_pid().as_raw())
            .expect("the server's memory is read from /proc")
            .hwm_kib
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !self.stopped {
            // The whole process group: a cluster primary's workers included.
            let _ = killpg(self.nix_pid(), Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn wait_for_listening_line(stdout: std::process::ChildStdout, within: Duration) -> Result<SocketAddr, String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next();
        let _ = tx.send(first);
        // Keep draining stdout, so that a server which prints more never blocks on a full pipe.
        for _ in lines {}
    });
    let line = match rx.recv_timeout(within) {
        Ok(Some(Ok(line))) => line,
        Ok(_) => return Err("it exited without printing its start-up line".to_owned()),
        Err(_) => return Err(format!("no start-up line within {within:?}")),
    };
    // "listening on http://127.0.0.1:PORT (10000 users, N workers)"
    contract::StartupLine::parse(&line)
        .map(|startup| startup.addr)
        .ok_or_else(|| format!("unexpected start-up line {line:?}"))
}

/// One request on a new connection: the answer, or a panic naming what went wrong (tests only).
pub fn exchange(addr: SocketAddr, bytes: &[u8]) -> contract::Outcome {
    contract::send(addr, bytes, Duration::from_secs(5), false)
        .unwrap_or_else(|e| panic!("no usable response from {addr}: {e}"))
}

/// A POST /users of `body` (a JSON text), as raw bytes (completed as the contract's runner completes a case).
pub fn post_bytes(body: &str) -> Vec<u8> {
    contract::Request::post_json("/users", body.as_bytes()).to_bytes()
}

/// A GET of `target`, as raw bytes.
pub fn get_bytes(target: &str) -> Vec<u8> {
    contract::Request::get(target).to_bytes()
}

/// The status of an outcome, 0 for a connection closed without a response (for compact assertions).
pub fn status(outcome: &contract::Outcome) -> u16 {
    match outcome {
        contract::Outcome::Response { response, .. } => response.status,
        contract::Outcome::Closed => 0,
    }
}

/// The body of an outcome as text (empty for a closed connection).
pub fn body(outcome: &contract::Outcome) -> String {
    match outcome {
        contract::Outcome::Response { response, .. } => String::from_utf8_lossy(&response.body).into_owned(),
        contract::Outcome::Closed => String::new(),
    }
}

/// The id in a created user's body (`{"id":N,…}`).
pub fn created_id(outcome: &contract::Outcome) -> u64 {
    let text = body(outcome);
    text.strip_prefix("{\"id\":")
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not a created user: {text}"))
}

pub mod fuzz;

#[cfg(test)]
mod tests {
    /// The jar is where the harness's table puts it, or its absence says why with a need-key a skip can record:
    /// `tool:mvn` or `tool:java`, neither of which CI provides until the Java server's branch adds them.
    #[test]
    fn the_java_jar_is_found_where_the_harness_looks_or_its_absence_is_explained() {
        match super::java_jar() {
            Ok(jar) => assert!(jar.ends_with("java/users-server-java.jar"), "{}", jar.display()),
            Err((need, why)) => {
                assert!(matches!(need, testkit::Need::Tool("mvn" | "java")), "{need:?}");
                assert!(!why.is_empty() && !why.contains('\n'), "{why:?}");
            }
        }
    }
}
