//! How each subject is started when profiled, each community's way of making its stacks readable to `perf`, and
//! what that changes from its measured runs (the report says it per subject):
//!
//! - Rust (and the ceiling): a build of the same code with frame pointers (`-C force-frame-pointers=yes`, in
//!   `target/profiled/`, which `scripts/compare --profile` builds), so that `perf -g` can walk its stacks;
//! - Node: `--perf-basic-prof-only-functions` (the JIT's symbols in `/tmp/perf-PID.map`), `--trace-gc`, and the
//!   event-loop delay written by `loop-delay.mjs` (`--import`);
//! - Go: as built (Go keeps frame pointers), with `GODEBUG=gctrace=1`;
//! - Java: `-XX:+PreserveFramePointer` and `-Xlog:gc`, its JIT's symbols written by `jcmd PID Compiler.perfmap`
//!   after the window.

use std::path::{Path, PathBuf};

use crate::profile::parts::Language;
use crate::subjects::builtins::ServerId;
use crate::subjects::process::{Origin, SubjectSpec};

/// What a subject's runtime logs of its pauses, and where the profiled run finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// No log read (Rust, the ceiling, a user's subject).
    Native,
    /// Node's `--trace-gc` lines in its output, and `loop-delay.mjs`'s files.
    Node,
    /// Go's `gctrace` lines in its output (stderr).
    Go,
    /// The JVM's `-Xlog:gc` file.
    Jvm,
}

/// A subject as profiled: the spec to start, its language, its runtime's logs, and what differs from its
/// measured runs.
pub struct Profiled {
    pub spec: SubjectSpec,
    pub language: Option<Language>,
    pub runtime: Runtime,
    pub differences: Vec<String>,
}

/// The event-loop delay files' prefix (`FAIRPAIR_LOOP_DELAY_OUT`; each process appends `.PID`).
pub fn loop_delay_prefix(dir: &Path) -> PathBuf {
    dir.join("loop-delay")
}

/// The JVM's GC log in the run's temporary folder.
pub fn gc_log(dir: &Path) -> PathBuf {
    dir.join("gc.log")
}

/// Where the frame-pointer build of a Rust binary is: `target/profiled/release/NAME` for `target/release/NAME`.
pub fn frame_pointer_build(binary: &Path) -> Option<PathBuf> {
    let name = binary.file_name()?;
    let target = binary.parent()?.parent()?;
    Some(target.join("profiled").join("release").join(name))
}

/// `loop-delay.mjs` of the checkout the Node server's script is in (`servers-node/server.js`).
fn loop_delay_module(script: &Path) -> Option<PathBuf> {
    let root = script.parent()?.parent()?;
    let module = root.join("crates/fairpair/src/profile/loop-delay.mjs");
    module.exists().then(|| std::fs::canonicalize(&module).unwrap_or(module))
}

/// The subject as profiled, with its logs in `dir` (the run's temporary folder).
pub fn profiled(spec: &SubjectSpec, dir: &Path) -> Profiled {
    let Origin::Builtin { subject, program, .. } = &spec.origin else {
        let differences = Vec::new();
        return Profiled { spec: spec.clone(), language: None, runtime: Runtime::Native, differences };
    };
    let id = subject.server().id;
    let mut program = program.clone();
    let mut differences = Vec::new();
    let (language, runtime) = match id {
        ServerId::Rust | ServerId::Ceiling => {
            match frame_pointer_build(Path::new(&program[0])).filter(|p| p.exists()) {
                Some(build) => {
                    program[0] = build.display().to_string();
                    differences.push("profiled with a frame-pointer build of the same code".to_string());
                }
                None => differences.push(
                    "profiled with the measured build: no frame-pointer build was found (scripts/compare --profile \
                     builds it), so its stacks may be cut short"
                        .to_string(),
                ),
            }
            (Language::Rust, Runtime::Native)
        }
        ServerId::Node => {
            let mut flags = vec!["--perf-basic-prof-only-functions".to_string(), "--trace-gc".to_string()];
            let env = format!("FAIRPAIR_LOOP_DELAY_OUT={}", loop_delay_prefix(dir).display());
            // With those flags Node 26's V8 also writes a code log, by default into the working directory (the
            // user's): into the run's temporary folder instead, which is removed after it.
            let v8_log = format!("--logfile={}", dir.join("v8.log").display());
            let logs = ["--no-logfile-per-isolate".to_string(), v8_log];
            match program.get(1).and_then(|s| loop_delay_module(Path::new(s))) {
                Some(module) => {
                    flags.push(format!("--import={}", module.display()));
                    differences.push(format!("node flags {} and --import loop-delay.mjs", flags[..2].join(" ")));
                }
                None => differences.push(format!(
                    "node flags {}; no loop-delay.mjs was found, so no event-loop delay",
                    flags.join(" ")
                )),
            }
            program.splice(1..1, flags.into_iter().chain(logs));
            program.splice(0..0, ["env".to_string(), env]);
            (Language::JavaScript, Runtime::Node)
        }
        ServerId::Go => {
            program.splice(0..0, ["env".to_string(), "GODEBUG=gctrace=1".to_string()]);
            differences.push("GODEBUG=gctrace=1 (the collector's log)".to_string());
            (Language::Go, Runtime::Go)
        }
        ServerId::Java => {
            let log = format!("-Xlog:gc:file={}", gc_log(dir).display());
            program.splice(1..1, ["-XX:+PreserveFramePointer".to_string(), log]);
            differences.push(
                "JVM flags -XX:+PreserveFramePointer -Xlog:gc, and jcmd Compiler.perfmap after the window".to_string(),
            );
            (Language::Java, Runtime::Jvm)
        }
    };
    let origin = match &spec.origin {
        Origin::Builtin { subject, accepts_max_users, implements_contract, .. } => Origin::Builtin {
            subject: *subject,
            program,
            accepts_max_users: *accepts_max_users,
            implements_contract: *implements_contract,
        },
        other => other.clone(),
    };
    Profiled { spec: SubjectSpec { origin, ..spec.clone() }, language: Some(language), runtime, differences }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::names::BuiltinSubject;

    fn builtin(subject: BuiltinSubject, program: &[&str]) -> SubjectSpec {
        SubjectSpec {
            name: subject.to_string(),
            origin: Origin::Builtin {
                subject,
                program: program.iter().map(|s| s.to_string()).collect(),
                accepts_max_users: true,
                implements_contract: true,
            },
            workers: None,
            get_only: false,
            ready_path: "/health".into(),
            per_worker_store: false,
        }
    }

    fn program(p: &Profiled) -> String {
        match &p.spec.origin {
            Origin::Builtin { program, .. } => program.join(" "),
            _ => unreachable!(),
        }
    }

    #[test]
    fn each_runtime_gets_its_flags() {
        let dir = Path::new("tmp");
        let go = profiled(&builtin(BuiltinSubject::Go, &["users-server-go"]), dir);
        assert_eq!(program(&go), "env GODEBUG=gctrace=1 users-server-go");
        let java =
            profiled(&builtin(BuiltinSubject::Java, &["java", "-XX:ActiveProcessorCount=1", "-jar", "a.jar"]), dir);
        assert_eq!(
            program(&java),
            "java -XX:+PreserveFramePointer -Xlog:gc:file=tmp/gc.log -XX:ActiveProcessorCount=1 -jar a.jar"
        );
        let node = profiled(&builtin(BuiltinSubject::Node, &["node", "nowhere/servers-node/server.js"]), dir);
        assert_eq!(
            program(&node),
            "env FAIRPAIR_LOOP_DELAY_OUT=tmp/loop-delay node --perf-basic-prof-only-functions --trace-gc \
             --no-logfile-per-isolate --logfile=tmp/v8.log nowhere/servers-node/server.js"
        );
        let rust = profiled(&builtin(BuiltinSubject::Rust, &["nowhere/release/users-server"]), dir);
        assert_eq!(program(&rust), "nowhere/release/users-server", "no frame-pointer build there: the measured one");
        assert!(rust.differences[0].contains("no frame-pointer build"));
        assert_eq!(
            frame_pointer_build(Path::new("target/release/users-server")),
            Some(PathBuf::from("target/profiled/release/users-server"))
        );
    }
}
