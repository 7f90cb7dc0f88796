//! Which Node runs the node subjects: one rule, here, for the harness (`--node`'s default, the version the report
//! records) and the fault suites (crate `faults`, which depends on this one); `scripts/lib.sh` says the same in shell.
//!
//! The rule: `FAIRPAIR_NODE` when it is set, else the project's own Node (`tools/node`, pinned in its package.json and
//! installed with `npm ci --prefix tools/node`) when it is installed, else `node` on `PATH`, the machine's. The
//! machine's comes last because it may be any version, one past its end of life included (Debian 12's is 18): the
//! figures should not depend on which machine they were measured on more than they must.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The project's own Node, relative to the repository root.
pub const PROJECT_NODE: &str = "tools/node/node_modules/.bin/node";

/// The variable that names another Node, for the harness, the tests and the scripts alike.
pub const ENV_VAR: &str = "FAIRPAIR_NODE";

/// Where the Node that runs the node subjects came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeSource {
    /// `--node PATH` on fairpair's command line.
    Flag,
    /// The `FAIRPAIR_NODE` variable.
    Env,
    /// The project's own, [`PROJECT_NODE`].
    Project,
    /// `node` on `PATH`: the machine's, because the project's is not installed.
    #[default]
    Path,
}

impl NodeSource {
    /// How the report says where the Node came from.
    pub fn describe(self) -> &'static str {
        match self {
            NodeSource::Flag => "given with --node",
            NodeSource::Env => "given with FAIRPAIR_NODE",
            NodeSource::Project => "the project's, tools/node",
            NodeSource::Path => "the machine's, on PATH: the project's tools/node is not installed",
        }
    }
}

/// The Node program to run, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub program: String,
    pub source: NodeSource,
}

impl Default for Node {
    fn default() -> Node {
        Node { program: "node".into(), source: NodeSource::Path }
    }
}

/// The rule, without reading anything: `env` is `FAIRPAIR_NODE`'s value (an empty one counts as unset), `roots` the
/// directories that may be the repository root, in order, and `exists` says whether a file is there (on this machine,
/// or on a server host).
pub fn choose(env: Option<String>, roots: &[PathBuf], exists: impl Fn(&Path) -> bool) -> Node {
    if let Some(program) = env.filter(|v| !v.is_empty()) {
        return Node { program, source: NodeSource::Env };
    }
    match roots.iter().map(|root| root.join(PROJECT_NODE)).find(|p| exists(p)) {
        Some(path) => Node { program: path.display().to_string(), source: NodeSource::Project },
        None => Node::default(),
    }
}

/// The Node for the repository at one of `roots` (the first that has the project's Node), on this machine.
pub fn find(roots: &[PathBuf]) -> Node {
    choose(std::env::var(ENV_VAR).ok(), roots, Path::is_file)
}

/// `--node PATH`, when given, else the rule.
pub fn given_or_found(given: Option<&str>, roots: &[PathBuf]) -> Node {
    match given {
        Some(program) => Node { program: program.to_string(), source: NodeSource::Flag },
        None => find(roots),
    }
}

/// The directories fairpair looks for the repository in: those above its executable (`target/release/fairpair` is
/// in the checkout it was built in), then the current directory and those above it (a build elsewhere, run from the
/// checkout).
pub fn roots_of_this_executable() -> Vec<PathBuf> {
    let exe = std::env::current_exe().ok();
    let cwd = std::env::current_dir().ok();
    let above_exe = exe.iter().flat_map(|e| e.ancestors().skip(1));
    above_exe.chain(cwd.iter().flat_map(|d| d.ancestors())).map(Path::to_path_buf).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> Vec<PathBuf> {
        vec![PathBuf::from("/a"), PathBuf::from("/repo")]
    }

    #[test]
    fn the_variable_comes_first() {
        let node = choose(Some("/opt/node/bin/node".into()), &roots(), |_| true);
        assert_eq!(node, Node { program: "/opt/node/bin/node".into(), source: NodeSource::Env });
    }

    #[test]
    fn then_the_projects_own_under_the_first_root_that_has_it() {
        let at_repo = |p: &Path| p == Path::new("/repo/tools/node/node_modules/.bin/node");
        let node = choose(None, &roots(), at_repo);
        assert_eq!(
            node,
            Node { program: "/repo/tools/node/node_modules/.bin/node".into(), source: NodeSource::Project }
        );
        // An empty variable is no choice.
        assert_eq!(choose(Some(String::new()), &roots(), at_repo).source, NodeSource::Project);
    }

    #[test]
    fn then_the_machines() {
        let node = choose(None, &roots(), |_| false);
        assert_eq!(node, Node { program: "node".into(), source: NodeSource::Path });
    }

    #[test]
    fn a_flag_overrides_the_rule() {
        let node = given_or_found(Some("/usr/bin/node"), &roots());
        assert_eq!(node, Node { program: "/usr/bin/node".into(), source: NodeSource::Flag });
    }

    #[test]
    fn the_roots_end_with_the_current_directory_and_those_above_it() {
        let roots = roots_of_this_executable();
        let cwd = std::env::current_dir().unwrap();
        let tail: Vec<&Path> = cwd.ancestors().collect();
        assert!(roots.ends_with(&tail.iter().map(|p| p.to_path_buf()).collect::<Vec<_>>()), "{roots:?}");
    }
}
