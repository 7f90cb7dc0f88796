//! The built-in servers, one entry each in [`SERVERS`]: this repository's twins of the users API and the
//! fixed-response ceiling. An entry says everything the harness needs to know about one of them: the subjects it is
//! measured as (one worker, and every server CPU), where its program is once built and how to build it, how it is
//! started with a worker count, what of its runtime the results record, and whether it implements the API.
//!
//! A server in a new language is one more entry here (and its build script), not a match arm in every phase: the
//! plan, the facts, verification and the environment record all look their server up in this table.

use std::path::PathBuf;

use crate::plan::args::RunArgs;
use crate::plan::names::BuiltinSubject;
use crate::usage;
use contract::releases::Stack;

/// Which built-in server: the key of an entry of [`SERVERS`], and of the programs the facts found for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ServerId {
    Rust,
    Node,
    Go,
    Java,
    Ceiling,
}

/// Where a server's program is once built, relative to a target directory or to the project's checkout. The
/// same rule finds it beside this fairpair and in a server host's checkout, so the two cannot drift apart.
#[derive(Clone, Copy, Debug)]
pub enum Location {
    /// In the build profile's directory, beside fairpair itself (`target/release/NAME`): the Rust binaries.
    Profile(&'static str),
    /// In the target directory, beside the profiles (`target/go/…`): what a script of `scripts/` builds.
    Target(&'static str),
    /// A file of the checkout (`servers-node/server.js`): a script that needs no build.
    Project(&'static str),
}

/// How the server's program is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// A native binary, run as it is.
    Binary,
    /// A script run by the Node the harness chose (`crate::subjects::node`).
    Node,
    /// A jar run by `java -jar` (`--java`). The JVM is told how many CPUs it has (`-XX:ActiveProcessorCount=N`, N
    /// being the worker count), because under `taskset` it would still count every CPU of the machine and size its
    /// garbage collector and thread pools for them: one core must look like one core to it, as it does to Go's
    /// GOMAXPROCS=1 and to one tokio worker.
    Jar,
}

/// What the results record of the runtime a server runs on, besides the Node every run records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeProbe {
    /// Nothing more: Rust's compiler is recorded for every run, and the ceiling is Rust too.
    Nothing,
    /// The Go that built the binary (`go version BINARY`).
    GoBuildInfo,
    /// The `java -version` of the JVM, and the garbage collector and heap it chose for each worker count
    /// (`-XX:+PrintFlagsFinal`).
    Jvm,
}

/// One built-in server.
#[derive(Debug)]
pub struct Server {
    pub id: ServerId,
    /// Its subject with one worker (one core, like the others).
    pub single: BuiltinSubject,
    /// Its subject with one worker per server CPU, when it has one.
    pub multi: Option<BuiltinSubject>,
    /// Its name in a sentence: "the Go server".
    pub what: &'static str,
    /// Where its program is when the flag below is not given.
    pub location: Location,
    /// The flag of its own that gives its program's path (`--go-server`), read from the arguments. A new server
    /// needs none (`|_| None`): `--server-program NAME=PATH` gives any built-in server's ([`Server::given_program`]).
    pub given: fn(&RunArgs) -> Option<&PathBuf>,
    /// How to get the program when it is missing, for the one-line refusal.
    pub hint: &'static str,
    pub launch: Launch,
    pub runtime: RuntimeProbe,
    /// Whether it implements the users API; the ceiling answers every request the same way.
    pub implements_contract: bool,
    /// Its multi-worker subject runs several processes with a store each (Node `cluster`).
    pub store_per_worker: bool,
    /// The HTTP stack under it whose release verification names (`contract::releases`), when the contract's
    /// tolerance table knows it.
    pub stack: Option<Stack>,
    /// Seconds it may take to start and answer its first 200 when `--start-timeout` is not given. A run waits as
    /// long as its slowest subject needs.
    pub start_timeout_s: u64,
    /// Whether its runtime compiles the hot code only after many seconds of load (the JVM's JIT), so that a run
    /// planning it probes every subject's warm-up by default (`--warmup-probe`).
    pub warms_up_slowly: bool,
}

/// The harness's start timeout for the servers that start in well under a second.
const START_TIMEOUT_S: u64 = 15;

/// Every built-in server, in the order `--subjects` lists them.
pub const SERVERS: &[Server] = &[
    Server {
        id: ServerId::Rust,
        single: BuiltinSubject::Rust,
        multi: Some(BuiltinSubject::RustMulti),
        what: "the Rust server",
        location: Location::Profile("users-server"),
        given: |a| a.users_server.as_ref(),
        hint: "cargo build --release -p users-server",
        launch: Launch::Binary,
        runtime: RuntimeProbe::Nothing,
        implements_contract: true,
        store_per_worker: false,
        stack: Some(Stack::Hyper),
        start_timeout_s: START_TIMEOUT_S,
        warms_up_slowly: false,
    },
    Server {
        id: ServerId::Node,
        single: BuiltinSubject::Node,
        multi: Some(BuiltinSubject::NodeCluster),
        what: "the Node server",
        location: Location::Project("servers-node/server.js"),
        given: |a| a.node_server.as_ref(),
        hint: "check --node-server",
        launch: Launch::Node,
        runtime: RuntimeProbe::Nothing,
        implements_contract: true,
        store_per_worker: true,
        stack: Some(Stack::Llhttp),
        start_timeout_s: START_TIMEOUT_S,
        warms_up_slowly: false,
    },
    Server {
        id: ServerId::Go,
        single: BuiltinSubject::Go,
        multi: Some(BuiltinSubject::GoMulti),
        what: "the Go server",
        location: Location::Target("go/users-server-go"),
        given: |a| a.go_server.as_ref(),
        hint: "build it with scripts/build-go, or give --go-server",
        launch: Launch::Binary,
        runtime: RuntimeProbe::GoBuildInfo,
        implements_contract: true,
        store_per_worker: false,
        stack: Some(Stack::NetHttp),
        start_timeout_s: START_TIMEOUT_S,
        warms_up_slowly: false,
    },
    Server {
        id: ServerId::Java,
        single: BuiltinSubject::Java,
        multi: Some(BuiltinSubject::JavaMulti),
        what: "the Java server",
        location: Location::Target("java/users-server-java.jar"),
        given: |a| a.java_server.as_ref(),
        hint: "build it with scripts/build-java, which needs a JDK 17 or later and Maven, or give --java-server",
        launch: Launch::Jar,
        runtime: RuntimeProbe::Jvm,
        implements_contract: true,
        store_per_worker: false,
        stack: Some(Stack::Tomcat),
        // Spring Boot starts in a few seconds on one core, by its authors' account; not yet measured here. This is
        // where it gets a longer default of its own, should a measurement show 15 s is too tight.
        start_timeout_s: START_TIMEOUT_S,
        warms_up_slowly: true,
    },
    Server {
        id: ServerId::Ceiling,
        single: BuiltinSubject::Ceiling,
        multi: None,
        what: "the ceiling server",
        location: Location::Profile("ceiling"),
        given: |a| a.ceiling.as_ref(),
        hint: "cargo build --release -p ceiling",
        launch: Launch::Binary,
        runtime: RuntimeProbe::Nothing,
        implements_contract: false,
        store_per_worker: false,
        stack: None,
        start_timeout_s: START_TIMEOUT_S,
        warms_up_slowly: false,
    },
];

impl Server {
    /// Its program's path when the command line gives one: its own flag (`--go-server`), else a `--server-program
    /// NAME=PATH` naming its subject (`go`).
    pub fn given_program(&self, args: &RunArgs) -> Option<PathBuf> {
        (self.given)(args).cloned().or_else(|| {
            let mut entries = args.server_program.iter().filter_map(|entry| program_entry(entry));
            entries.find(|(name, _)| *name == self.single.name()).map(|(_, path)| PathBuf::from(path))
        })
    }

    /// The entry of a server.
    pub fn get(id: ServerId) -> &'static Server {
        SERVERS.iter().find(|s| s.id == id).expect("every server has an entry")
    }

    /// The entry a subject belongs to.
    pub fn of(subject: BuiltinSubject) -> &'static Server {
        SERVERS.iter().find(|s| s.single == subject || s.multi == Some(subject)).expect("every subject has a server")
    }

    /// The worker count its subject `subject` runs with: one, or one per server CPU.
    pub fn workers(&self, subject: BuiltinSubject, server_cpus: u32) -> u32 {
        if self.multi == Some(subject) { server_cpus.max(1) } else { 1 }
    }
}

impl BuiltinSubject {
    /// Whether it runs one worker per server CPU, and so needs at least two of them to mean anything.
    pub fn is_multi_worker(self) -> bool {
        Server::of(self).multi == Some(self)
    }

    /// The built-in server it is.
    pub fn server(self) -> &'static Server {
        Server::of(self)
    }
}

/// How to get a `java` that is not found, for the refusal that names it.
pub const JAVA_HINT: &str = "install a JDK 17 or later (apt-get install openjdk-17-jdk-headless; scripts/build-java also \
                             needs Maven: apt-get install maven), or give --java PATH";

/// Refuses a `--server-program` that is not NAME=PATH with NAME a built-in server (`rust`, `node`, `go`, `java`,
/// `ceiling`), in one line: a misspelt name would otherwise leave the default program in place without a word.
pub fn check_server_programs(args: &RunArgs) -> anyhow::Result<()> {
    let names: Vec<&str> = SERVERS.iter().map(|s| s.single.name()).collect();
    for entry in &args.server_program {
        if !program_entry(entry).is_some_and(|(name, _)| names.contains(&name)) {
            return Err(usage(format!("--server-program {entry}: give NAME=PATH, NAME one of {}", names.join(", "))));
        }
    }
    Ok(())
}

/// One `--server-program` entry as (subject name, path), when it is NAME=PATH with a path.
fn program_entry(entry: &str) -> Option<(&str, &str)> {
    entry.split_once('=').filter(|(_, path)| !path.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subject is in exactly one entry, and every id has exactly one: a new variant without an entry, or an
    /// entry given a subject twice, is caught here and not at a run.
    #[test]
    fn every_subject_has_one_server_and_every_server_one_entry() {
        for &subject in BuiltinSubject::ALL {
            let owners = SERVERS.iter().filter(|s| s.single == subject || s.multi == Some(subject)).count();
            assert_eq!(owners, 1, "{subject}");
        }
        for (i, s) in SERVERS.iter().enumerate() {
            assert!(SERVERS[i + 1..].iter().all(|t| t.id != s.id), "{:?} twice", s.id);
            assert_eq!(Server::get(s.id).single, s.single);
        }
        assert!(BuiltinSubject::JavaMulti.is_multi_worker() && !BuiltinSubject::Java.is_multi_worker());
        assert_eq!(BuiltinSubject::GoMulti.server().workers(BuiltinSubject::GoMulti, 4), 4);
        assert_eq!(BuiltinSubject::Go.server().workers(BuiltinSubject::Go, 4), 1);
    }

    /// `--server-program NAME=PATH` gives a built-in server's program as its own flag does, which wins over it; a
    /// name that is no built-in server is refused.
    #[test]
    fn server_program_gives_any_servers_program() {
        let args = crate::plan::tests::args(&["--server-program", "go=/opt/go-server", "--java-server", "/a.jar"]);
        assert_eq!(Server::get(ServerId::Go).given_program(&args), Some(PathBuf::from("/opt/go-server")));
        assert_eq!(Server::get(ServerId::Java).given_program(&args), Some(PathBuf::from("/a.jar")));
        assert_eq!(Server::get(ServerId::Rust).given_program(&args), None);
        assert!(check_server_programs(&args).is_ok());
        for bad in ["ruby=/x", "go", "go="] {
            let e = check_server_programs(&crate::plan::tests::args(&["--server-program", bad])).unwrap_err();
            assert!(e.to_string().starts_with(&format!("--server-program {bad}: give NAME=PATH")), "{e}");
        }
    }
}
