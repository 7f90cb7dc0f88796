//! The facts a plan is built from, besides the command line: the CPUs each side may use, the load tools installed,
//! where the built-in servers' programs are and whether they exist where they will run, the body files of custom
//! scenarios and the addresses of running services. They are gathered here, first, and only here; the plan is then
//! built from the arguments and these facts without reading anything, so every decision of it can be tested with
//! made-up facts.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::scenarios::parse_scenario;
use super::subjects::{CustomKind, Programs, custom_kind};
use crate::machine::host::{Connection, Host, SshHost};
use crate::plan::args::RunArgs;
use crate::plan::names::Tool;
use crate::subjects::builtins::{Location, SERVERS};
use crate::usage;

/// What the machines are, as far as the plan needs to know.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The CPUs this process may use: the load generator's, and on one host the servers' too.
    pub cpus: Vec<usize>,
    /// The server host of a two-host run (`--server-host`).
    pub server: Option<ServerSide>,
    /// The load tools on `PATH`.
    pub installed: Vec<Tool>,
    /// The built-in servers' programs.
    pub programs: Programs,
    /// Each `--scenario` body file, by the name given: its text, or why it could not be read.
    pub bodies: BTreeMap<String, Result<String, String>>,
    /// Each running service's URL (`--subject NAME=http://…`): its address, or why it has none.
    pub addresses: BTreeMap<String, Result<SocketAddr, String>>,
    /// The command line fairpair was started with, for the record.
    pub argv: Vec<String>,
}

impl Facts {
    /// Gathers the facts for `args`, the subjects on `server` when there is one.
    pub fn gather(args: &RunArgs, server: Option<&ServerSide>) -> Result<Facts> {
        let programs = match server {
            Some(side) => side.programs(args)?,
            None => {
                let mut programs = local_programs(args);
                programs.missing = programs.paths.values().filter(|p| !p.is_file()).cloned().collect();
                programs
            }
        };
        let mut bodies = BTreeMap::new();
        for file in args.custom_scenarios.iter().filter_map(|t| parse_scenario(t).ok()?.body_file) {
            let text = std::fs::read_to_string(&file).map_err(|e| e.to_string());
            bodies.insert(file, text);
        }
        let mut addresses = BTreeMap::new();
        for text in &args.custom_subjects {
            if let Ok((_, CustomKind::Url(url))) = custom_kind(text) {
                let addr = crate::verify::parse_url(&url).map_err(|e| e.to_string());
                addresses.insert(url, addr);
            }
        }
        Ok(Facts {
            cpus: Host::Local.allowed_cpus()?,
            server: server.cloned(),
            installed: Tool::ALL.iter().copied().filter(|t| t.adapter().available()).collect(),
            programs,
            bodies,
            addresses,
            argv: std::env::args().collect(),
        })
    }
}

/// Where the built-in subjects' programs are on this machine: given, or where their entry's location says from
/// this executable (a file of the project: in the project this executable was built in).
fn local_programs(args: &RunArgs) -> Programs {
    let exe = std::env::current_exe().ok();
    let exe_dir = exe.as_deref().and_then(Path::parent).unwrap_or(Path::new("."));
    let place = |location: Location| match location {
        Location::Profile(name) => exe_dir.join(name),
        Location::Target(name) => exe_dir.join("..").join(name),
        Location::Project(relative) => project_file(exe.as_deref(), Path::new(relative)),
    };
    let java = args.java.clone().unwrap_or_else(|| "java".into());
    Programs {
        paths: SERVERS.iter().map(|s| (s.id, s.given_program(args).unwrap_or_else(|| place(s.location)))).collect(),
        node: crate::subjects::node::given_or_found(
            args.node.as_deref(),
            &crate::subjects::node::roots_of_this_executable(),
        ),
        java_found: crate::machine::command::installed(&java),
        java,
        missing: Vec::new(),
        host: None,
    }
}

/// A file of the project (`relative` to its root) found from the executable's path: the nearest directory above
/// `exe` that has it (`target/release/fairpair` → the checkout it was built in). Falls back to `relative` itself,
/// resolved from the current directory, when no such directory exists (an installed copy, say).
pub fn project_file(exe: Option<&Path>, relative: &Path) -> PathBuf {
    exe.into_iter()
        .flat_map(Path::ancestors)
        .skip(1)
        .map(|dir| dir.join(relative))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| relative.to_path_buf())
}

/// The server host of a two-host run, once connected: where the subjects run, and the CPUs a process may use there.
#[derive(Clone, Debug)]
pub struct ServerSide {
    pub host: Host,
    pub cpus: Vec<usize>,
}

impl ServerSide {
    /// Connects to `--server-host` and reads its CPUs: `None` for a run on this machine. Every step has a time limit,
    /// so an unreachable or stopped host ends the run here, before anything is planned, with one line.
    pub fn connect(args: &RunArgs) -> Result<Option<(ServerSide, Connection)>> {
        let Some(destination) = &args.server_host else {
            return Ok(None);
        };
        let dir = args
            .server_dir
            .as_deref()
            .ok_or_else(|| usage("--server-host needs --server-dir PATH: the project's checkout on the server host"))?;
        super::subjects::check_two_host_subjects(args)?;
        let connection = SshHost::new(destination, dir, args.ssh_config.clone()).connect()?;
        let host = connection.host();
        let cpus = host.allowed_cpus()?;
        Ok(Some((ServerSide { host, cpus }, connection)))
    }

    /// The built-in servers' paths on the server host (a path given on the command line is one there), and those
    /// of them that are missing there.
    fn programs(&self, args: &RunArgs) -> Result<Programs> {
        let Host::Ssh(ssh) = &self.host else { unreachable!("a server side is a server host") };
        let dir = Path::new(&ssh.dir);
        // The same profile directory as this fairpair's (target/release, or target/debug in the tests).
        let exe = std::env::current_exe().ok();
        let profile = exe.as_deref().and_then(|e| e.parent()?.file_name()).map_or("release".into(), |p| p.to_owned());
        let target = dir.join("target").join(profile);
        let place = |location: Location| match location {
            Location::Profile(name) => target.join(name),
            Location::Target(name) => dir.join("target").join(name),
            Location::Project(relative) => dir.join(relative),
        };
        let mut programs = Programs {
            paths: SERVERS.iter().map(|s| (s.id, s.given_program(args).unwrap_or_else(|| place(s.location)))).collect(),
            node: self.node(args, dir)?,
            java: args.java.clone().unwrap_or_else(|| "java".into()),
            java_found: true,
            missing: Vec::new(),
            host: Some(self.host.label()),
        };
        let all: Vec<String> = programs.paths.values().map(|p| p.display().to_string()).collect();
        programs.missing = self.host.missing_files(&all)?.into_iter().map(PathBuf::from).collect();
        Ok(programs)
    }

    /// The Node on the server host, by the same rule as on this machine: `--node`, else FAIRPAIR_NODE (a path
    /// there), else the checkout's tools/node when it is installed there, else `node` on its PATH.
    fn node(&self, args: &RunArgs, dir: &Path) -> Result<crate::subjects::node::Node> {
        use crate::subjects::node::{Node, NodeSource, PROJECT_NODE};
        if let Some(program) = &args.node {
            return Ok(Node { program: program.clone(), source: NodeSource::Flag });
        }
        let project = dir.join(PROJECT_NODE).display().to_string();
        let installed = self.host.missing_files(std::slice::from_ref(&project))?.is_empty();
        let roots = [dir.to_path_buf()];
        Ok(crate::subjects::node::choose(std::env::var(crate::subjects::node::ENV_VAR).ok(), &roots, |_| installed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_server_is_found_from_the_executable_not_the_current_directory() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
        let exe = root.join("target/release/fairpair");
        let found = project_file(Some(&exe), Path::new("servers-node/server.js"));
        assert_eq!(found, root.join("servers-node/server.js"));
        // Nowhere above the executable: the path as given, for the current directory.
        let lost = project_file(Some(Path::new("/nonexistent/bin/fairpair")), Path::new("servers-node/server.js"));
        assert_eq!(lost, Path::new("servers-node/server.js"));
    }

    #[test]
    fn the_facts_read_body_files_and_find_missing_programs() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: RunArgs,
        }
        let dir = std::env::temp_dir().join(format!("fairpair-facts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("body.json").display().to_string();
        std::fs::write(&file, "{}").unwrap();
        let scenario = format!("mine=POST:/users:{file}:201");
        let argv = ["fairpair", "--scenario", &scenario, "--scenario", "gone=POST:/users:/no/such/file"];
        let args = Wrapper::try_parse_from(argv.iter().chain(&["--users-server", "/no/such/users-server"])).unwrap();
        let facts = Facts::gather(&args.args, None).unwrap();
        assert_eq!(facts.bodies[&file], Ok("{}".to_string()));
        assert!(facts.bodies["/no/such/file"].is_err());
        assert!(facts.programs.missing.contains(&PathBuf::from("/no/such/users-server")));
        assert!(!facts.cpus.is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
