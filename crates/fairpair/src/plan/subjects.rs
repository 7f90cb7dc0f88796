//! Subjects: the servers a plan measures. Built-in ones by name (`--subjects`), a user's command
//! (`--subject NAME='COMMAND with {port}'`) or a service already running (`--subject NAME=http://HOST:PORT`).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Result;

use super::check_name;
use crate::plan::args::RunArgs;
use crate::plan::names::BuiltinSubject;
use crate::subjects::builtins::{JAVA_HINT, Launch, Server, ServerId};
use crate::subjects::process::{Origin, SubjectSpec};
use crate::usage;

/// The programs of the built-in subjects, where they will run, and those of them that are missing there.
#[derive(Clone, Debug, Default)]
pub struct Programs {
    /// Each built-in server's program (its binary, script or jar), by its entry in `builtins.rs`.
    pub paths: BTreeMap<ServerId, PathBuf>,
    /// The Node that runs the node subjects, and where it came from (`crate::subjects::node`'s rule).
    pub node: crate::subjects::node::Node,
    /// The `java` that runs the Java server's jar (`--java`, else `java` on PATH).
    pub java: String,
    /// Whether that `java` was found where it will run; a server host's is not looked for (its start fails with
    /// the shell's message instead).
    pub java_found: bool,
    /// The paths above that are not files where they will run.
    pub missing: Vec<PathBuf>,
    /// The server host's name when they run there; `None` on this machine.
    pub host: Option<String>,
}

impl Programs {
    /// The path of a server's program, or an error that says where it was looked for and how to get it.
    pub fn existing(&self, server: &Server) -> Result<String> {
        let path = self.paths.get(&server.id).cloned().unwrap_or_default();
        let (what, hint) = (server.what, server.hint);
        match &self.host {
            _ if !self.missing.contains(&path) => Ok(path.display().to_string()),
            None => Err(usage(format!("{what} not found at {} ({hint})", path.display()))),
            Some(host) => Err(usage(format!("{what} not found at {} on {host} ({hint}, there)", path.display()))),
        }
    }

    /// The `java` that runs a jar, or the one-line refusal that says how to install one.
    fn java(&self) -> Result<String> {
        match self.java_found {
            true => Ok(self.java.clone()),
            false => Err(usage(format!("java not found: {} ({JAVA_HINT})", self.java))),
        }
    }
}

/// The default subjects: ours, the ceiling, and the multi-worker ones when the server side has the CPUs for them.
const DEFAULT: [BuiltinSubject; 5] = [
    BuiltinSubject::Rust,
    BuiltinSubject::Node,
    BuiltinSubject::Ceiling,
    BuiltinSubject::RustMulti,
    BuiltinSubject::NodeCluster,
];

/// The subjects: the built-in ones named (`--subjects`, else the preset's, else the default set), then the user's
/// own. `server_n` is the number of server CPUs; `addresses` are the running services' as the facts found them.
pub(super) fn subjects(
    args: &RunArgs,
    preset: Option<&[BuiltinSubject]>,
    programs: &Programs,
    addresses: &BTreeMap<String, Result<SocketAddr, String>>,
    server_n: u32,
    skipped: &mut Vec<String>,
) -> Result<Vec<SubjectSpec>> {
    let multi_ok = server_n >= 2;
    let kinds: Vec<BuiltinSubject> = match (&args.subjects, preset) {
        (Some(list), _) => {
            list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).map(builtin).collect::<Result<_>>()?
        }
        (None, Some(kinds)) => kinds.to_vec(),
        (None, None) => {
            if !multi_ok {
                skipped.push(format!(
                    "rust-multi and node-cluster: the server side has {server_n} CPU, and multi-worker subjects \
                     need at least 2 to mean anything (give --server-cpus with 2 or more CPUs)"
                ));
            }
            DEFAULT.into_iter().filter(|k| multi_ok || !k.is_multi_worker()).collect()
        }
    };
    if args.subjects.is_some() && kinds.is_empty() && args.custom_subjects.is_empty() {
        return Err(usage("--subjects is empty"));
    }
    let mut subjects: Vec<SubjectSpec> = Vec::new();
    for kind in kinds {
        if kind.is_multi_worker() && !multi_ok {
            skipped.push(format!("{}: the server side has {server_n} CPU; it needs at least 2", kind.name()));
            continue;
        }
        let spec = builtin_subject(kind, programs, server_n)?;
        if !subjects.iter().any(|s| s.name == spec.name) {
            subjects.push(spec);
        }
    }
    for text in &args.custom_subjects {
        let spec = custom_subject(text, &args.ready_path, addresses)?;
        if subjects.iter().any(|s| s.name == spec.name) {
            return Err(usage(format!("--subject {}: a subject of that name already exists", spec.name)));
        }
        subjects.push(spec);
    }
    if subjects.is_empty() {
        return Err(usage("no subject left to measure"));
    }
    Ok(subjects)
}

fn builtin(name: &str) -> Result<BuiltinSubject> {
    BuiltinSubject::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = BuiltinSubject::ALL.iter().map(|s| s.name()).collect();
        usage(format!(
            "unknown subject {name:?} (built-in: {}; add your own with --subject NAME='COMMAND with {{port}}')",
            all.join(", ")
        ))
    })
}

/// A built-in subject, its program checked to exist; multi-worker ones get one worker per server CPU.
pub(super) fn builtin_subject(kind: BuiltinSubject, programs: &Programs, server_n: u32) -> Result<SubjectSpec> {
    let server = kind.server();
    let path = programs.existing(server)?;
    // GOMAXPROCS=1 (`--workers 1`) for go, one JVM told it has one CPU for java: like with like against one tokio
    // worker and one Node process.
    let workers = server.workers(kind, server_n);
    let program = match server.launch {
        Launch::Binary => vec![path],
        Launch::Node => vec![programs.node.program.clone(), path],
        Launch::Jar => {
            vec![programs.java()?, format!("-XX:ActiveProcessorCount={workers}"), "-jar".into(), path]
        }
    };
    let implements_contract = server.implements_contract;
    Ok(SubjectSpec {
        name: kind.name().to_string(),
        origin: Origin::Builtin { subject: kind, program, accepts_max_users: implements_contract, implements_contract },
        workers: Some(workers),
        get_only: !implements_contract,
        ready_path: "/health".into(),
        per_worker_store: server.store_per_worker && kind.is_multi_worker(),
    })
}

/// The start timeout when `--start-timeout` is not given: the longest any built-in subject of the run needs (a
/// user's subject gets the harness's usual one).
pub(super) fn start_timeout_s(subjects: &[SubjectSpec]) -> u64 {
    let usual = Server::get(ServerId::Rust).start_timeout_s;
    subjects
        .iter()
        .filter_map(|s| match &s.origin {
            Origin::Builtin { subject, .. } => Some(subject.server().start_timeout_s),
            _ => None,
        })
        .fold(usual, u64::max)
}

/// Whether a built-in subject whose runtime warms up slowly (the JVM) is planned: the warm-up probe's default is on
/// then, and off otherwise (a user's own subject may be a JVM too; `--warmup-probe N` probes it).
pub(super) fn any_warms_up_slowly(subjects: &[SubjectSpec]) -> bool {
    subjects.iter().any(|s| matches!(&s.origin, Origin::Builtin { subject, .. } if subject.server().warms_up_slowly))
}

/// `--subject NAME='COMMAND with {port}'`, or `--subject NAME=http://HOST:PORT` for a service already running (its
/// address as the facts resolved it).
fn custom_subject(
    text: &str,
    ready_path: &str,
    addresses: &BTreeMap<String, Result<SocketAddr, String>>,
) -> Result<SubjectSpec> {
    let (name, kind) = custom_kind(text)?;
    let origin = match kind {
        CustomKind::Command(template) => Origin::Custom { template },
        CustomKind::Url(url) => {
            let addr = match addresses.get(&url) {
                Some(Ok(addr)) => *addr,
                Some(Err(e)) => return Err(usage(e.clone())),
                None => return Err(usage(format!("--subject {name}: the address of {url} was not looked up"))),
            };
            Origin::External { url: url.trim_end_matches('/').to_string(), addr }
        }
    };
    Ok(SubjectSpec {
        name,
        origin,
        workers: None,
        get_only: false,
        ready_path: ready_path.to_string(),
        per_worker_store: false,
    })
}

/// What a `--subject` names: a command to start, or a running service's URL.
pub(super) enum CustomKind {
    Command(String),
    Url(String),
}

pub(super) fn custom_kind(text: &str) -> Result<(String, CustomKind)> {
    let (name, command) = text
        .split_once('=')
        .ok_or_else(|| usage(format!("--subject expects NAME='COMMAND with {{port}}', got {text:?}")))?;
    let name = name.trim();
    check_name("--subject", name)?;
    let kind = if command.starts_with("http://") {
        CustomKind::Url(command.to_string())
    } else if command.contains("{port}") {
        CustomKind::Command(command.to_string())
    } else {
        return Err(usage(format!("--subject {name}: the command must contain {{port}}")));
    };
    Ok((name.to_string(), kind))
}

/// On two hosts, fairpair starts only the built-in servers there: a user's command would start on this machine.
pub(super) fn check_two_host_subjects(args: &RunArgs) -> Result<()> {
    for text in &args.custom_subjects {
        if let (_, CustomKind::Command(_)) = custom_kind(text)? {
            return Err(usage(
                "--server-host: a subject of your own runs on this machine only (--subject NAME=COMMAND); start it on \
                 the server host yourself and give --subject NAME=http://HOST:PORT",
            ));
        }
    }
    Ok(())
}

/// `--baseline`, checked to name a subject of this run that implements the API.
pub(super) fn baseline(args: &RunArgs, subjects: &[SubjectSpec]) -> Result<Option<String>> {
    match &args.baseline {
        Some(name) if subjects.iter().any(|s| &s.name == name && !s.get_only) => Ok(Some(name.clone())),
        Some(name) => {
            let names: Vec<&str> = subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).collect();
            Err(usage(format!(
                "--baseline {name}: not a subject of this run that implements the API (one of: {})",
                names.join(", ")
            )))
        }
        None => Ok(None),
    }
}

/// What preflight loads to measure the loader's capacity: the ceiling, with as many workers as server CPUs so that
/// it is the fastest target the machine has; `None` when its program is missing.
pub(super) fn capacity_target(programs: &Programs, server_n: u32) -> Option<SubjectSpec> {
    let ceiling = builtin_subject(BuiltinSubject::Ceiling, programs, server_n).ok()?;
    Some(SubjectSpec { workers: Some(server_n.max(1)), ..ceiling })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{args, facts, plan, plan_on};
    use super::*;
    use crate::plan::Plan;

    #[test]
    fn a_custom_subject_may_not_run_on_a_server_host() {
        let e = check_two_host_subjects(&args(&["--subject", "mine=python3 m.py {port}"])).unwrap_err();
        assert!(e.to_string().contains("runs on this machine only"), "{e}");
        assert!(check_two_host_subjects(&args(&["--subject", "svc=http://10.0.0.2:80"])).is_ok());
    }

    #[test]
    fn multi_worker_subjects_get_one_worker_per_server_cpu() {
        // (allowed CPUs, flags, server CPUs): unpinned, the servers may use every allowed CPU; pinned, their share.
        let cases: [(&[usize], &[&str], u32); 3] = [
            (&[0, 1], &["--no-pin"], 2),
            (&[0, 1, 2, 3, 4, 5], &["--no-pin"], 6),
            (&[0, 1, 2, 3], &["--server-cpus", "0-2", "--loader-cpus", "3"], 3),
        ];
        for (allowed, flags, server_cpus) in cases {
            let p = plan_on(allowed, flags).unwrap();
            let case = format!("{flags:?} on CPUs {allowed:?}");
            let multi = p.subjects.iter().find(|s| s.name == "rust-multi").unwrap_or_else(|| panic!("{case}"));
            assert_eq!(multi.workers, Some(server_cpus), "{case}");
            let cluster = p.subjects.iter().find(|s| s.name == "node-cluster").unwrap_or_else(|| panic!("{case}"));
            assert_eq!(cluster.workers, Some(server_cpus), "{case}");
            assert!(cluster.per_worker_store, "{case}");
        }
        // One server CPU: left out, and said so.
        let p = plan_on(&[0], &["--no-pin"]).unwrap();
        assert!(p.subjects.iter().all(|s| s.name != "rust-multi" && s.name != "node-cluster"));
        assert!(p.skipped.iter().any(|s| s.starts_with("rust-multi and node-cluster: the server side has 1 CPU")));
    }

    #[test]
    fn a_running_service_is_a_subject_the_harness_does_not_start() {
        let p =
            plan(&["--subjects", "rust", "--subject", "svc=http://127.0.0.1:8000/", "--memory-repeats", "2"]).unwrap();
        let svc = p.subjects.iter().find(|s| s.name == "svc").unwrap();
        assert!(
            matches!(&svc.origin, Origin::External { url, addr } if url == "http://127.0.0.1:8000" && addr.port() == 8000)
        );
        assert!(!svc.started_by_harness() && !svc.accepts_max_users() && svc.implements_contract());
        assert_eq!(p.level_for(svc), contract::Level::Api);
        assert_eq!(p.memory_runs(), 2, "memory runs for rust only");
        assert!(p.cells.iter().all(|c| c.subjects.len() == 2), "loaded like the others");
        // A URL the facts found no address for: their reason is the error.
        let mut f = facts(&[0, 1]);
        f.addresses
            .insert("http://127.0.0.1:8000/users".into(), Err("expected http://HOST:PORT without a path".into()));
        let err = Plan::new(&args(&["--subject", "svc=http://127.0.0.1:8000/users"]), &f).unwrap_err().to_string();
        assert!(err.contains("without a path"), "{err}");
    }

    #[test]
    fn the_ceiling_is_not_loaded_with_posts() {
        let p = plan(&["--subjects", "ceiling,rust", "--scenarios", "post", "--server-cpus", "0"]).unwrap();
        assert!(p.cells.iter().all(|c| c.subjects.iter().all(|&i| p.subjects[i].name == "rust")));
        assert!(p.skipped.iter().any(|s| s.starts_with("ceiling on post")));
    }

    #[test]
    fn a_missing_program_is_named_where_it_was_looked_for() {
        let mut f = facts(&[0, 1]);
        f.programs.missing = vec!["users-server".into()];
        let e = Plan::new(&args(&["--subjects", "rust"]), &f).unwrap_err().to_string();
        assert_eq!(e, "the Rust server not found at users-server (cargo build --release -p users-server)");
        f.programs.host = Some("the server host bench".into());
        let e = Plan::new(&args(&["--subjects", "rust"]), &f).unwrap_err().to_string();
        assert!(e.ends_with("on the server host bench (cargo build --release -p users-server, there)"), "{e}");
        // Without the ceiling, preflight has nothing to measure the loader against.
        f.programs.missing = vec!["ceiling".into()];
        assert!(Plan::new(&args(&["--subjects", "rust"]), &f).unwrap().capacity_target.is_none());
        let target = plan(&["--subjects", "rust"]).unwrap().capacity_target.unwrap();
        assert_eq!((target.name.as_str(), target.workers, target.get_only), ("ceiling", Some(1), true));
    }

    #[test]
    fn java_runs_its_jar_on_one_jvm_told_its_cpus_and_is_refused_without_jar_or_java() {
        let p =
            plan_on(&[0, 1, 2, 3], &["--subjects", "java,java-multi", "--server-cpus", "0-1", "--loader-cpus", "2-3"])
                .unwrap();
        let program = |name: &str| match &p.subjects.iter().find(|s| s.name == name).unwrap().origin {
            Origin::Builtin { program, .. } => program.join(" "),
            other => panic!("{other:?}"),
        };
        assert_eq!(program("java"), "java -XX:ActiveProcessorCount=1 -jar users-server-java.jar");
        assert_eq!(program("java-multi"), "java -XX:ActiveProcessorCount=2 -jar users-server-java.jar");
        assert_eq!(p.start_timeout_s, 15);
        // No jar: refused as the Go server is, with how to build it.
        let mut f = facts(&[0, 1]);
        f.programs.missing = vec!["users-server-java.jar".into()];
        let e = Plan::new(&args(&["--subjects", "java"]), &f).unwrap_err().to_string();
        assert!(
            e.starts_with("the Java server not found at users-server-java.jar (build it with scripts/build-java"),
            "{e}"
        );
        // A jar, but no java: refused with how to install one.
        let mut f = facts(&[0, 1]);
        f.programs.java_found = false;
        let e = Plan::new(&args(&["--subjects", "java"]), &f).unwrap_err().to_string();
        assert!(e.starts_with("java not found: java (install a JDK 17 or later"), "{e}");
        assert!(Plan::new(&args(&["--subjects", "rust"]), &f).is_ok(), "only a Java subject needs java");
    }
}
