//! Subjects: the servers a plan measures. Built-in ones by name (`--subjects`), a user's command
//! (`--subject NAME='COMMAND with {port}'`) or a service already running (`--subject NAME=http://HOST:PORT`).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use anyhow::Result;

use super::check_name;
use super::facts::Programs;
use crate::args::RunArgs;
use crate::kinds::BuiltinSubject;
use crate::subject::{Kind, SubjectSpec};
use crate::usage;

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
        usage(format!(
            "unknown subject {name:?} (built-in: rust, node, go, ceiling, rust-multi, node-cluster, go-multi; \
             add your own with --subject NAME='COMMAND with {{port}}')"
        ))
    })
}

/// A built-in subject, its program checked to exist; multi-worker ones get one worker per server CPU.
pub(super) fn builtin_subject(kind: BuiltinSubject, programs: &Programs, server_n: u32) -> Result<SubjectSpec> {
    use BuiltinSubject::*;
    let p = programs;
    let (program, implements_contract) = match kind {
        Rust | RustMulti => {
            (vec![p.existing(&p.users_server, "the Rust server", "cargo build --release -p users-server")?], true)
        }
        Node | NodeCluster => {
            (vec![p.node.clone(), p.existing(&p.node_server, "the Node server", "check --node-server")?], true)
        }
        Go | GoMulti => {
            let hint = "build it with scripts/build-go, or give --go-server";
            (vec![p.existing(&p.go_server, "the Go server", hint)?], true)
        }
        Ceiling => (vec![p.existing(&p.ceiling, "the ceiling server", "cargo build --release -p ceiling")?], false),
    };
    Ok(SubjectSpec {
        name: kind.name().to_string(),
        kind: Kind::Builtin { program, accepts_max_users: implements_contract, implements_contract },
        // GOMAXPROCS=1 (`--workers 1`) for go: like with like against one tokio worker and one Node process.
        workers: Some(if kind.is_multi_worker() { server_n } else { 1 }),
        get_only: !implements_contract,
        ready_path: "/health".into(),
        per_worker_store: kind == NodeCluster,
    })
}

/// `--subject NAME='COMMAND with {port}'`, or `--subject NAME=http://HOST:PORT` for a service already running (its
/// address as the facts resolved it).
fn custom_subject(
    text: &str,
    ready_path: &str,
    addresses: &BTreeMap<String, Result<SocketAddr, String>>,
) -> Result<SubjectSpec> {
    let (name, kind) = custom_kind(text)?;
    let kind = match kind {
        CustomKind::Command(template) => Kind::Custom { template },
        CustomKind::Url(url) => {
            let addr = match addresses.get(&url) {
                Some(Ok(addr)) => *addr,
                Some(Err(e)) => return Err(usage(e.clone())),
                None => return Err(usage(format!("--subject {name}: the address of {url} was not looked up"))),
            };
            Kind::External { url: url.trim_end_matches('/').to_string(), addr }
        }
    };
    Ok(SubjectSpec {
        name,
        kind,
        workers: None,
        get_only: false,
        ready_path: ready_path.to_string(),
        per_worker_store: false,
    })
}

/// What a `--subject` names: a command to start, or a running service's URL.
enum CustomKind {
    Command(String),
    Url(String),
}

fn custom_kind(text: &str) -> Result<(String, CustomKind)> {
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
