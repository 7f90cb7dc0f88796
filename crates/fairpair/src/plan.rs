//! The plan: what `fairpair run` will do, decided entirely before anything starts.
//!
//! Subjects, scenarios, connection counts, pinning and phase lengths are resolved from the command line here, bad
//! input is rejected here (one line, exit 2), and the time estimate printed up front is computed from the plan
//! alone. Later stages only execute it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use crate::host::{Connection, Host, SshHost};
use crate::preflight;
use crate::procstat;
use crate::schema::ExpectedStatus;
use crate::subject::{Kind, StartOptions, SubjectSpec};
use crate::usage;

/// The body of the `post` scenario: one new user per request.
pub const POST_BODY: &str = r#"{"name":"Bench User","email":"bench@example.com"}"#;

/// Store capacity limits of the servers (`--max-users`). The size a POST run uses is chosen in preflight, from
/// the POST rate measured on this machine (`preflight::size_store`).
pub const MIN_MAX_USERS: u64 = 10_000;
pub const MAX_MAX_USERS: u64 = 16_777_216;

#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    /// Built-in subjects, comma-separated: rust, node, go, ceiling, rust-multi, node-cluster, go-multi
    /// [default: rust,node,ceiling, plus rust-multi and node-cluster when the server side has ≥ 2 CPUs].
    #[arg(long, value_delimiter = ',')]
    pub subjects: Option<Vec<String>>,
    /// A subject of your own: NAME='COMMAND with {port}' (repeatable). It is verified first.
    #[arg(long = "subject", value_name = "NAME=COMMAND")]
    pub custom_subjects: Vec<String>,
    /// Scenarios, comma-separated: get (GET /users/500), post (POST /users), hello (GET /) [default: get,post].
    #[arg(long, value_delimiter = ',')]
    pub scenarios: Option<Vec<String>>,
    /// A scenario of your own: NAME=METHOD:PATH[:BODY_FILE][:STATUS] (repeatable; a body is sent as
    /// application/json; STATUS, three digits, is the status every response must have [default: any 2xx]).
    #[arg(long = "scenario", value_name = "NAME=METHOD:PATH[:BODY_FILE][:STATUS]")]
    pub custom_scenarios: Vec<String>,
    /// Connection counts, comma-separated [default: 50,300].
    #[arg(long, value_delimiter = ',')]
    pub connections: Option<Vec<u32>>,
    /// Seconds per measured run [default: 15; --quick: 2].
    #[arg(long)]
    pub duration: Option<u64>,
    /// Seconds of discarded warm-up load before each measured run [default: 5; --quick: 1].
    #[arg(long)]
    pub warmup: Option<u64>,
    /// Measured runs per subject and cell [default: 3; --quick: 1].
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Short runs, one repeat: a smoke test of the whole pipeline in under two minutes.
    #[arg(long)]
    pub quick: bool,
    /// One of the published studies, reproduced with its own method: article, wrk, ab-hello, bombardier, or
    /// fairpair (today's defaults). It only sets defaults: every flag given on the command line wins.
    #[arg(long, value_enum)]
    pub preset: Option<crate::presets::Preset>,
    /// Load tool for the closed-loop runs: wrk, oha, autocannon, ab or bombardier [default: wrk].
    #[arg(long)]
    pub tool: Option<String>,
    /// Do not pin server and load generator to CPUs (the article's method).
    #[arg(long)]
    pub no_pin: bool,
    /// CPUs for the servers, e.g. 0 or 0-3 [default: the first half of the allowed CPUs].
    #[arg(long)]
    pub server_cpus: Option<String>,
    /// CPUs for the load generator [default: the other half].
    #[arg(long)]
    pub loader_cpus: Option<String>,
    /// Output directory for benchmark.json, report.md and the charts.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Open-loop rates as fractions of the slowest subject's GET throughput, comma-separated; 0 disables the phase.
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.8")]
    pub open_loop_rates: Vec<f64>,
    /// Seconds per open-loop run [default: 10; --quick: 2].
    #[arg(long)]
    pub open_loop_duration: Option<u64>,
    /// Memory runs per subject (fresh process each) [default: 3; --quick: 1]; 0 disables the phase.
    #[arg(long)]
    pub memory_repeats: Option<u32>,
    /// Seconds of the GET load between the idle and the after-load memory samples [default: 10; --quick: 2].
    #[arg(long)]
    pub memory_duration: Option<u64>,
    /// Connections of the memory phase's load.
    #[arg(long, default_value_t = 300)]
    pub memory_connections: u32,
    /// --max-users of the servers in POST runs, instead of sizing it in preflight from a measured POST rate
    /// (10000 to 16777216; to repeat an earlier run, or to see what a full store does).
    #[arg(long)]
    pub post_max_users: Option<u64>,
    /// Measure subjects that fail verification (the report marks them unverified).
    #[arg(long)]
    pub allow_unverified: bool,
    /// The subject every ratio is taken against [default: the first built-in subject that implements the API].
    #[arg(long)]
    pub baseline: Option<String>,
    /// Contract level to verify the subjects at: `api` or `full` [default: api for custom subjects, full for the
    /// built-in ones, which implement the whole contract].
    #[arg(long)]
    pub level: Option<contract::Level>,
    /// Path of the Rust server binary [default: users-server next to this executable].
    #[arg(long)]
    pub users_server: Option<PathBuf>,
    /// Path of the ceiling binary [default: ceiling next to this executable].
    #[arg(long)]
    pub ceiling: Option<PathBuf>,
    /// Path of the Go server binary [default: ../go/users-server-go from this executable, as scripts/build-go
    /// writes it].
    #[arg(long)]
    pub go_server: Option<PathBuf>,
    /// Path of the Node server script [default: servers-node/server.js of the project this executable was built in
    /// (found from its own path, so that fairpair runs from any directory), else of the current directory].
    #[arg(long)]
    pub node_server: Option<PathBuf>,
    /// The node executable.
    #[arg(long, default_value = "node")]
    pub node: String,
    /// Path a custom subject answers 200 on once it is ready.
    #[arg(long, default_value = "/")]
    pub ready_path: String,
    /// Seconds a subject may take to print its start-up line and answer its first 200.
    #[arg(long, default_value_t = 15)]
    pub start_timeout: u64,
    /// Most seconds to wait before each run for the machine to be idle [default: 3; --quick: 0.5].
    #[arg(long)]
    pub idle_wait: Option<f64>,
    /// The machine counts as idle when other processes use less than this percentage of all its CPUs.
    #[arg(long, default_value_t = 10.0)]
    pub idle_threshold: f64,
    /// Print the plan and its time estimate, and exit without running anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Start, pin, sample and stop the subjects on another machine, reached over ssh as [USER@]HOST; the load
    /// generator stays on this one (docs/two-hosts.md).
    #[arg(long, value_name = "[USER@]HOST")]
    pub server_host: Option<String>,
    /// With --server-host: the project's checkout on the server host, where its servers are built (the binaries
    /// are taken from the same target/PROFILE directory as this fairpair's, e.g. target/release).
    #[arg(long, value_name = "PATH", requires = "server_host")]
    pub server_dir: Option<String>,
    /// With --server-host: an ssh configuration file, passed as `ssh -F FILE` [default: ssh's own].
    #[arg(long, value_name = "FILE", requires = "server_host")]
    pub ssh_config: Option<PathBuf>,
}

/// A request pattern to load.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub method: String,
    pub path: String,
    pub body: Option<String>,
    /// The status its responses must have to count as served work.
    pub expected: ExpectedStatus,
}

impl Scenario {
    pub fn is_get(&self) -> bool {
        self.method == "GET"
    }

    /// Whether a run of it adds to the server's store, so the store must be sized for it.
    pub fn writes(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }

    pub fn builtin(name: &str, method: &str, path: &str, body: Option<&str>) -> Scenario {
        Scenario {
            name: name.into(),
            method: method.into(),
            path: path.into(),
            body: body.map(String::from),
            expected: ExpectedStatus::Success,
        }
    }
}

/// One subject × scenario × connections cell, measured `repeats` times.
#[derive(Clone, Debug)]
pub struct Cell {
    pub scenario: usize,
    pub connections: u32,
    /// Indices into `Plan::subjects`, in the order they alternate.
    pub subjects: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub subjects: Vec<SubjectSpec>,
    pub scenarios: Vec<Scenario>,
    pub connections: Vec<u32>,
    pub cells: Vec<Cell>,
    pub tool: String,
    pub duration_s: u64,
    pub warmup_s: u64,
    pub repeats: u32,
    pub quick: bool,
    pub pinned: bool,
    pub server_cpus: Vec<usize>,
    pub loader_cpus: Vec<usize>,
    pub loader_threads: u32,
    pub open_loop_fractions: Vec<f64>,
    /// Whether an open-loop tool (oha or autocannon) is installed: without one the phase is skipped, so it is not
    /// estimated either.
    pub open_loop_tool: bool,
    pub open_loop_duration_s: u64,
    pub memory_repeats: u32,
    pub memory_duration_s: u64,
    pub memory_connections: u32,
    pub memory_settle_ms: u64,
    /// `--max-users` of the servers in runs that write: `None` in the plan unless `--post-max-users` gives it, then
    /// chosen by preflight from the POST rate it measures (the revised plan has it).
    pub post_max_users: Option<u64>,
    /// The ceiling binary when it exists: preflight loads it to measure the loader's capacity.
    pub capacity_target: Option<PathBuf>,
    /// Seconds of each preflight calibration run (loader capacity, POST rate).
    pub calibration_s: u64,
    pub idle_wait_max_s: f64,
    pub idle_threshold_percent: f64,
    pub allow_unverified: bool,
    /// `--baseline`, checked to name a subject; `None` lets the report choose (see `report::baseline`).
    pub baseline: Option<String>,
    /// `--level`, when given; otherwise each subject's own default (see [`Plan::level_for`]).
    pub level: Option<contract::Level>,
    pub start_timeout_s: u64,
    pub out: PathBuf,
    /// Where the subjects run: this machine, or a server host over ssh (`--server-host`).
    pub server_host: Host,
    /// Planned things left out, and why.
    pub skipped: Vec<String>,
}

/// Seconds the harness spends around each run (start, readiness, idle check, stop), for the estimate.
pub const RUN_OVERHEAD_S: f64 = 1.5;
/// Seconds to verify one subject (two server starts and 200-odd cases).
const VERIFY_S: f64 = 4.0;

impl Plan {
    pub fn from_args(args: &RunArgs) -> Result<Plan> {
        Plan::for_cpus(args, procstat::allowed_cpus())
    }

    /// The plan on a machine whose allowed CPUs are `allowed`: `from_args` passes this process's own, tests pass a
    /// list, so that what they check does not depend on the machine they run on.
    pub fn for_cpus(args: &RunArgs, allowed: Vec<usize>) -> Result<Plan> {
        Plan::for_hosts(args, allowed, None)
    }

    /// The plan of a two-host run (`server` is the connected server host) or, without one, of a run on this machine.
    pub fn for_hosts(args: &RunArgs, allowed: Vec<usize>, server: Option<&ServerSide>) -> Result<Plan> {
        let mut args = args.clone();
        if let Some(preset) = args.preset {
            preset.apply(&mut args);
        }
        let args = &args;
        let tool = args.tool.clone().unwrap_or_else(|| "wrk".to_string());
        let q = args.quick;
        let duration_s = args.duration.unwrap_or(if q { 2 } else { 15 });
        let warmup_s = args.warmup.unwrap_or(if q { 1 } else { 5 });
        let repeats = args.repeats.unwrap_or(if q { 1 } else { 3 });
        if duration_s == 0 || repeats == 0 {
            return Err(usage("--duration and --repeats must be at least 1"));
        }
        // Values that cannot mean anything are refused rather than quietly raised, so that the report never
        // describes a run the user did not ask for.
        if args.memory_connections == 0 || args.start_timeout == 0 {
            return Err(usage("--memory-connections and --start-timeout must be at least 1"));
        }
        if !(args.idle_threshold > 0.0 && args.idle_threshold <= 100.0) {
            return Err(usage(format!("--idle-threshold is a percentage of the machine: got {}", args.idle_threshold)));
        }
        if crate::tools::by_name(&tool).is_none() {
            return Err(usage(format!("unknown load tool {:?} (expected {})", tool, crate::tools::NAMES.join(", "))));
        }
        let mut skipped = Vec::new();

        // Pinning: disjoint CPU sets for servers and load generator.
        let cpu_list = |flag: &str, text: &str| -> Result<Vec<usize>> {
            let cpus = procstat::parse_cpu_list(text).map_err(|e| usage(format!("{flag}: {e}")))?;
            if let Some(c) = cpus.iter().find(|c| !allowed.contains(c)) {
                return Err(usage(format!(
                    "{flag}: CPU {c} is not available (allowed: {})",
                    procstat::format_cpu_list(&allowed)
                )));
            }
            Ok(cpus)
        };
        let half = (allowed.len() / 2).max(1);
        let (server_cpus, loader_cpus, pinned) = if let Some(side) = server {
            two_host_pinning(args, &allowed, &side.cpus)?
        } else if args.no_pin {
            if args.server_cpus.is_some() || args.loader_cpus.is_some() {
                return Err(usage("--no-pin cannot be combined with --server-cpus/--loader-cpus"));
            }
            (allowed.clone(), allowed.clone(), false)
        } else {
            let server = match &args.server_cpus {
                Some(t) => cpu_list("--server-cpus", t)?,
                None => allowed[..half].to_vec(),
            };
            let loader = match &args.loader_cpus {
                Some(t) => cpu_list("--loader-cpus", t)?,
                None => allowed.iter().copied().filter(|c| !server.contains(c)).collect(),
            };
            if loader.is_empty() {
                skipped.push(format!(
                    "pinning: only {} CPU available, so server and load generator share it (figures are a lower bound)",
                    allowed.len()
                ));
                (server.clone(), server, false)
            } else {
                if server.iter().any(|c| loader.contains(c)) {
                    return Err(usage("--server-cpus and --loader-cpus overlap"));
                }
                (server, loader, true)
            }
        };
        let server_n = server_cpus.len() as u32;
        // On two hosts the loader has this machine to itself, pinned or not.
        let loader_threads =
            if pinned || server.is_some() { loader_cpus.len() as u32 } else { (allowed.len() as u32 / 2).max(1) };

        // Subjects.
        let exe_dir = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf));
        let sibling = |name: &str, given: &Option<PathBuf>| -> PathBuf {
            given.clone().unwrap_or_else(|| exe_dir.as_deref().unwrap_or(Path::new(".")).join(name))
        };
        let users_server = sibling("users-server", &args.users_server);
        let ceiling = sibling("ceiling", &args.ceiling);
        let go_server = sibling("../go/users-server-go", &args.go_server);
        let node_server = args.node_server.clone().unwrap_or_else(|| {
            let exe = std::env::current_exe().ok();
            project_file(exe.as_deref(), Path::new("servers-node/server.js"))
        });
        // On a server host the programs are there, under --server-dir, and are looked for there in one command.
        let (users_server, ceiling, go_server, node_server, missing) = match server {
            Some(side) => side.programs(args)?,
            None => (users_server, ceiling, go_server, node_server, Vec::new()),
        };
        let existing = |path: &Path, what: &str, hint: &str| match server {
            Some(side) if missing.iter().any(|m| Path::new(m) == path) => {
                Err(usage(format!("{what} not found at {} on {} ({hint}, there)", path.display(), side.host.label())))
            }
            Some(_) => Ok(path.display().to_string()),
            None => existing(path, what, hint),
        };
        let capacity_target = existing(&ceiling, "", "").is_ok().then(|| ceiling.clone());
        let multi_ok = server_n >= 2;
        let names: Vec<String> = match &args.subjects {
            Some(list) => list.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
            None => {
                let mut v = vec!["rust".to_string(), "node".into(), "ceiling".into()];
                if multi_ok {
                    v.extend(["rust-multi".to_string(), "node-cluster".into()]);
                } else {
                    skipped.push(format!(
                        "rust-multi and node-cluster: the server side has {server_n} CPU, and multi-worker subjects \
                         need at least 2 to mean anything (give --server-cpus with 2 or more CPUs)"
                    ));
                }
                v
            }
        };
        if args.subjects.is_some() && names.is_empty() && args.custom_subjects.is_empty() {
            return Err(usage("--subjects is empty"));
        }
        let mut subjects = Vec::new();
        for name in &names {
            let builtin = |program: Vec<String>, workers: u32, contract: bool| SubjectSpec {
                name: name.clone(),
                kind: Kind::Builtin { program, accepts_max_users: contract, implements_contract: contract },
                workers: Some(workers),
                get_only: !contract,
                ready_path: "/health".into(),
                per_worker_store: false,
            };
            let rust = || -> Result<Vec<String>> {
                Ok(vec![existing(&users_server, "the Rust server", "cargo build --release -p users-server")?])
            };
            let node = || -> Result<Vec<String>> {
                Ok(vec![args.node.clone(), existing(&node_server, "the Node server", "check --node-server")?])
            };
            let go = || -> Result<Vec<String>> {
                Ok(vec![existing(&go_server, "the Go server", "build it with scripts/build-go, or give --go-server")?])
            };
            let spec = match name.as_str() {
                "rust" => builtin(rust()?, 1, true),
                // GOMAXPROCS=1 (`--workers 1`): like with like against one tokio worker and one Node process.
                "go" => builtin(go()?, 1, true),
                "node" => builtin(node()?, 1, true),
                "ceiling" => builtin(
                    vec![existing(&ceiling, "the ceiling server", "cargo build --release -p ceiling")?],
                    1,
                    false,
                ),
                "rust-multi" | "node-cluster" | "go-multi" if !multi_ok => {
                    skipped.push(format!("{name}: the server side has {server_n} CPU; it needs at least 2"));
                    continue;
                }
                "rust-multi" => builtin(rust()?, server_n, true),
                "go-multi" => builtin(go()?, server_n, true),
                "node-cluster" => SubjectSpec { per_worker_store: true, ..builtin(node()?, server_n, true) },
                other => {
                    return Err(usage(format!(
                        "unknown subject {other:?} (built-in: rust, node, go, ceiling, rust-multi, node-cluster, go-multi; \
                         add your own with --subject NAME='COMMAND with {{port}}')"
                    )));
                }
            };
            if !subjects.iter().any(|s: &SubjectSpec| s.name == spec.name) {
                subjects.push(spec);
            }
        }
        for text in &args.custom_subjects {
            let (name, command) = text
                .split_once('=')
                .ok_or_else(|| usage(format!("--subject expects NAME='COMMAND with {{port}}', got {text:?}")))?;
            let name = name.trim();
            check_name("--subject", name)?;
            if subjects.iter().any(|s| s.name == name) {
                return Err(usage(format!("--subject {name}: a subject of that name already exists")));
            }
            // A URL: a service that is already running, which the harness loads but does not start.
            if command.starts_with("http://") {
                let addr = crate::verify::parse_url(command)?;
                subjects.push(SubjectSpec {
                    name: name.to_string(),
                    kind: Kind::External { url: command.trim_end_matches('/').to_string(), addr },
                    workers: None,
                    get_only: false,
                    ready_path: args.ready_path.clone(),
                    per_worker_store: false,
                });
                continue;
            }
            if !command.contains("{port}") {
                return Err(usage(format!("--subject {name}: the command must contain {{port}}")));
            }
            if subjects.iter().any(|s| s.name == name) {
                return Err(usage(format!("--subject {name}: a subject of that name already exists")));
            }
            subjects.push(SubjectSpec {
                name: name.to_string(),
                kind: Kind::Custom { template: command.to_string() },
                workers: None,
                get_only: false,
                ready_path: args.ready_path.clone(),
                per_worker_store: false,
            });
        }
        if subjects.is_empty() {
            return Err(usage("no subject left to measure"));
        }
        let baseline = match &args.baseline {
            Some(name) if subjects.iter().any(|s| &s.name == name && !s.get_only) => Some(name.clone()),
            Some(name) => {
                let names: Vec<&str> = subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).collect();
                return Err(usage(format!(
                    "--baseline {name}: not a subject of this run that implements the API (one of: {})",
                    names.join(", ")
                )));
            }
            None => None,
        };

        // Scenarios.
        let mut scenarios = Vec::new();
        let scenario_names = args.scenarios.clone().unwrap_or_else(|| vec!["get".into(), "post".into()]);
        for name in scenario_names.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let s = match name {
                "get" => Scenario::builtin("get", "GET", "/users/500", None),
                "post" => Scenario::builtin("post", "POST", "/users", Some(POST_BODY)),
                "hello" => Scenario::builtin("hello", "GET", "/", None),
                other => {
                    return Err(usage(format!(
                        "unknown scenario {other:?} (built-in: get, post, hello; add your own with \
                         --scenario NAME=METHOD:PATH[:BODY_FILE][:STATUS])"
                    )));
                }
            };
            if !scenarios.contains(&s) {
                scenarios.push(s);
            }
        }
        for text in &args.custom_scenarios {
            let s = parse_scenario(text)?;
            if scenarios.iter().any(|x| x.name == s.name) {
                return Err(usage(format!("--scenario {}: a scenario of that name already exists", s.name)));
            }
            scenarios.push(s);
        }
        if scenarios.is_empty() {
            return Err(usage("no scenario to run"));
        }

        let connections = args.connections.clone().unwrap_or_else(|| vec![50, 300]);
        if connections.is_empty() || connections.iter().any(|&c| c == 0 || c > 10_000) {
            return Err(usage("--connections: each count must be 1 to 10000"));
        }

        // Cells: the ceiling is a GET-only baseline.
        let mut cells = Vec::new();
        for (si, scenario) in scenarios.iter().enumerate() {
            let members: Vec<usize> =
                (0..subjects.len()).filter(|&i| scenario.is_get() || !subjects[i].get_only).collect();
            for s in subjects.iter().filter(|s| s.get_only && !scenario.is_get()) {
                skipped.push(format!(
                    "{} on {}: a fixed-response baseline is measured on GET scenarios only",
                    s.name, scenario.name
                ));
            }
            if members.is_empty() {
                continue;
            }
            for &c in &connections {
                cells.push(Cell { scenario: si, connections: c, subjects: members.clone() });
            }
        }

        if args.post_max_users.is_some_and(|m| !(MIN_MAX_USERS..=MAX_MAX_USERS).contains(&m)) {
            return Err(usage(format!("--post-max-users: expected {MIN_MAX_USERS} to {MAX_MAX_USERS}")));
        }
        let open_loop_fractions: Vec<f64> = args.open_loop_rates.iter().copied().filter(|&f| f > 0.0).collect();
        if open_loop_fractions.iter().any(|f| !f.is_finite() || *f > 2.0) {
            return Err(usage("--open-loop-rates: fractions must be between 0 and 2 (e.g. 0.5,0.8)"));
        }

        Ok(Plan {
            subjects,
            scenarios,
            connections,
            cells,
            tool,
            duration_s,
            warmup_s,
            repeats,
            quick: q,
            pinned,
            server_cpus,
            loader_cpus,
            loader_threads,
            open_loop_fractions,
            open_loop_tool: crate::tools::installed("oha") || crate::tools::installed("autocannon"),
            open_loop_duration_s: args.open_loop_duration.unwrap_or(if q { 2 } else { 10 }).max(1),
            memory_repeats: args.memory_repeats.unwrap_or(if q { 1 } else { 3 }),
            memory_duration_s: args.memory_duration.unwrap_or(if q { 2 } else { 10 }).max(1),
            memory_connections: args.memory_connections,
            memory_settle_ms: if q { 300 } else { 1000 },
            post_max_users: args.post_max_users,
            capacity_target,
            calibration_s: if q { 1 } else { 3 },
            idle_wait_max_s: args.idle_wait.unwrap_or(if q { 0.5 } else { 3.0 }).max(0.0),
            idle_threshold_percent: args.idle_threshold,
            allow_unverified: args.allow_unverified,
            level: args.level,
            baseline,
            start_timeout_s: args.start_timeout,
            out: args.out.clone(),
            server_host: server.map_or(Host::Local, |s| s.host.clone()),
            skipped,
        })
    }

    /// Number of closed-loop runs.
    pub fn load_runs(&self) -> usize {
        self.cells.iter().map(|c| c.subjects.len()).sum::<usize>() * self.repeats as usize
    }

    /// Subjects that take part in the open-loop phase (those measured on `get` at the lowest connection count).
    pub fn open_loop_runs(&self) -> usize {
        if self.open_loop_tool && self.scenarios.iter().any(|s| s.name == "get") {
            self.subjects.len() * self.open_loop_fractions.len()
        } else {
            0
        }
    }

    /// Memory runs start a fresh process each, so a running service (`--subject NAME=http://…`) has none.
    pub fn memory_runs(&self) -> usize {
        self.subjects.iter().filter(|s| s.started_by_harness()).count() * self.memory_repeats as usize
    }

    /// Estimated seconds for each phase.
    pub fn estimate(&self) -> Estimate {
        let idle = self.idle_wait_max_s / 2.0;
        let verify = self.subjects.iter().filter(|s| s.implements_contract()).count() as f64 * VERIFY_S;
        let calibration = preflight::calibration_runs(self) as f64
            * ((preflight::CALIBRATION_WARMUP_S + self.calibration_s) as f64 + RUN_OVERHEAD_S);
        let load = self.load_runs() as f64 * (self.warmup_s + self.duration_s) as f64
            + self.load_runs() as f64 * (RUN_OVERHEAD_S + idle);
        let open =
            self.open_loop_runs() as f64 * ((self.warmup_s + self.open_loop_duration_s) as f64 + RUN_OVERHEAD_S + idle);
        let memory = self.memory_runs() as f64
            * (self.memory_duration_s as f64 + self.memory_settle_ms as f64 / 1000.0 + RUN_OVERHEAD_S + idle);
        Estimate { preflight: verify + calibration, load, open_loop: open, memory }
    }

    pub fn estimate_total(&self) -> f64 {
        self.estimate().total()
    }

    /// The plan without the subjects that will not be measured (`measurable[i]` false, as preflight decides): their
    /// runs are neither announced, nor shown as progress, nor counted in the estimate. Cells left with no subject
    /// go too.
    pub fn only_measurable(&self, measurable: &[bool]) -> Plan {
        let mut new_index = vec![None; self.subjects.len()];
        let mut subjects = Vec::new();
        for (i, spec) in self.subjects.iter().enumerate() {
            if measurable.get(i).copied().unwrap_or(true) {
                new_index[i] = Some(subjects.len());
                subjects.push(spec.clone());
            }
        }
        let cells = self
            .cells
            .iter()
            .map(|c| Cell { subjects: c.subjects.iter().filter_map(|&i| new_index[i]).collect(), ..c.clone() })
            .filter(|c| !c.subjects.is_empty())
            .collect();
        Plan { subjects, cells, ..self.clone() }
    }

    /// The contract level a subject is verified at: `--level` when given, else `full` for our own servers (they
    /// implement all of it) and `api` for a user's service (a real service implements the API, not our transport
    /// hardening, and the load only exercises the API).
    pub fn level_for(&self, spec: &SubjectSpec) -> contract::Level {
        self.level.unwrap_or(match spec.kind {
            Kind::Builtin { .. } => contract::Level::Full,
            Kind::Custom { .. } | Kind::External { .. } => contract::Level::Api,
        })
    }

    /// How a subject is started: on the server CPUs when pinning, with this store size.
    pub fn start_options(&self, max_users: Option<u64>) -> StartOptions<'_> {
        StartOptions {
            header_timeout_ms: None,
            max_users,
            cpus: self.pinned.then_some(self.server_cpus.as_slice()),
            timeout: std::time::Duration::from_secs(self.start_timeout_s),
            host: &self.server_host,
        }
    }

    /// How many CPUs the load generator could use, the denominator of its CPU percentage.
    pub fn loader_cpu_count(&self, tool: &dyn crate::tools::LoadTool) -> f64 {
        if self.pinned {
            self.loader_cpus.len() as f64
        } else if tool.name() == "autocannon" {
            1.0 // One Node process: one core is all it can use.
        } else {
            f64::from(self.loader_threads)
        }
    }

    /// A tool's CPU time over its wall time, as a percentage of the CPUs it could use.
    pub fn loader_cpu_percent(&self, tool: &dyn crate::tools::LoadTool, cpu_us: f64, wall_s: f64) -> f64 {
        if wall_s > 0.0 { cpu_us / 1e6 / wall_s / self.loader_cpu_count(tool) * 100.0 } else { 0.0 }
    }

    /// The GET scenario of the memory phase: the plan's `get`, else its first GET scenario, else the built-in `get`.
    pub fn memory_scenario(&self) -> Scenario {
        self.scenarios
            .iter()
            .find(|s| s.name == "get")
            .or_else(|| self.scenarios.iter().find(|s| s.is_get()))
            .cloned()
            .unwrap_or_else(|| Scenario::builtin("get", "GET", "/users/500", None))
    }

    /// The CPUs a load tool is pinned to, when pinning.
    pub fn loader_pin(&self) -> Option<&[usize]> {
        self.pinned.then_some(self.loader_cpus.as_slice())
    }

    /// The store size of a run of `scenario` on `spec`: only runs that write, on servers that take `--max-users`.
    pub fn max_users_for(&self, spec: &SubjectSpec, scenario: &Scenario) -> Option<u64> {
        (scenario.writes() && spec.accepts_max_users()).then(|| self.post_max_users.unwrap_or(MAX_MAX_USERS))
    }
}

/// Estimated seconds per phase of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Verification and calibration.
    pub preflight: f64,
    pub load: f64,
    pub open_loop: f64,
    pub memory: f64,
}

impl Estimate {
    pub fn total(&self) -> f64 {
        self.preflight + self.load + self.open_loop + self.memory
    }

    /// When the measured load is under half of the estimate, which phase takes most of it and how to shorten it:
    /// `--duration 3` alone leaves the warm-up, open-loop and memory phases at their defaults, and they then make
    /// most of the time, which surprises.
    pub fn dominant_note(&self) -> Option<String> {
        let total = self.total();
        if total <= 0.0 || self.load >= total / 2.0 {
            return None;
        }
        let phases = [
            (self.preflight, "preflight (verification and calibration)", "it does not shrink with --duration"),
            (self.open_loop, "the open-loop phase", "--open-loop-duration N, or --open-loop-rates 0 to skip it"),
            (self.memory, "the memory phase", "--memory-repeats N and --memory-duration N, or --memory-repeats 0"),
        ];
        let (seconds, what, how) = phases.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
        Some(format!(
            "most of the estimate is not the measured load ({:.0} of {:.0} s): {what} takes {:.0} s ({how}); \
             --warmup N shortens each run's warm-up",
            self.load, total, seconds
        ))
    }
}

/// A file of the project (`relative` to its root) found from the executable's path: the nearest directory above
/// `exe` that has it (`target/release/fairpair` → the checkout it was built in). Falls back to `relative` itself,
/// resolved from the current directory, when no such directory exists (an installed copy, say).
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
        if args.custom_subjects.iter().any(|s| !s.contains("=http://")) {
            return Err(usage(
                "--server-host: a subject of your own runs on this machine only (--subject NAME=COMMAND); start it on \
                 the server host yourself and give --subject NAME=http://HOST:PORT",
            ));
        }
        let connection = SshHost::new(destination, dir, args.ssh_config.clone()).connect()?;
        let host = connection.host();
        let cpus = host.allowed_cpus()?;
        Ok(Some((ServerSide { host, cpus }, connection)))
    }

    /// The built-in servers' paths on the server host (a path given on the command line is one there), and those
    /// of them that are missing there.
    #[allow(clippy::type_complexity)]
    fn programs(&self, args: &RunArgs) -> Result<(PathBuf, PathBuf, PathBuf, PathBuf, Vec<String>)> {
        let Host::Ssh(ssh) = &self.host else { unreachable!("a server side is a server host") };
        let dir = Path::new(&ssh.dir);
        // The same profile directory as this fairpair's (target/release, or target/debug in the tests).
        let exe = std::env::current_exe().ok();
        let profile = exe.as_deref().and_then(|e| e.parent()?.file_name()).map_or("release".into(), |p| p.to_owned());
        let target = dir.join("target").join(profile);
        let pick = |given: &Option<PathBuf>, default: PathBuf| given.clone().unwrap_or(default);
        let users_server = pick(&args.users_server, target.join("users-server"));
        let ceiling = pick(&args.ceiling, target.join("ceiling"));
        let go_server = pick(&args.go_server, dir.join("target/go/users-server-go"));
        let node_server = pick(&args.node_server, dir.join("servers-node/server.js"));
        let all = [&users_server, &ceiling, &go_server, &node_server].map(|p| p.display().to_string());
        let missing = self.host.missing_files(&all)?;
        Ok((users_server, ceiling, go_server, node_server, missing))
    }
}

/// Pinning on two hosts: each side on its own host's CPUs, all of them unless --server-cpus (CPUs of the server
/// host) or --loader-cpus (of this one) say otherwise. The two sets may have the same numbers: they are different
/// machines.
fn two_host_pinning(args: &RunArgs, local: &[usize], remote: &[usize]) -> Result<(Vec<usize>, Vec<usize>, bool)> {
    let within = |flag: &str, text: &Option<String>, allowed: &[usize], host: &str| -> Result<Vec<usize>> {
        let Some(text) = text else { return Ok(allowed.to_vec()) };
        let cpus = procstat::parse_cpu_list(text).map_err(|e| usage(format!("{flag}: {e}")))?;
        match cpus.iter().find(|c| !allowed.contains(c)) {
            Some(c) => Err(usage(format!(
                "{flag}: CPU {c} is not available on {host} (allowed: {})",
                procstat::format_cpu_list(allowed)
            ))),
            None => Ok(cpus),
        }
    };
    if args.no_pin && (args.server_cpus.is_some() || args.loader_cpus.is_some()) {
        return Err(usage("--no-pin cannot be combined with --server-cpus/--loader-cpus"));
    }
    let server = within("--server-cpus", &args.server_cpus, remote, "the server host")?;
    let loader = within("--loader-cpus", &args.loader_cpus, local, "this machine")?;
    Ok((server, loader, !args.no_pin))
}

pub fn project_file(exe: Option<&Path>, relative: &Path) -> PathBuf {
    exe.into_iter()
        .flat_map(Path::ancestors)
        .skip(1)
        .map(|dir| dir.join(relative))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| relative.to_path_buf())
}

fn existing(path: &Path, what: &str, hint: &str) -> Result<String> {
    if path.is_file() {
        Ok(path.display().to_string())
    } else {
        Err(usage(format!("{what} not found at {} ({hint})", path.display())))
    }
}

fn check_name(flag: &str, name: &str) -> Result<()> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(usage(format!("{flag}: name {name:?} must be letters, digits, '-' or '_'")));
    }
    Ok(())
}

/// Parses `NAME=METHOD:PATH[:BODY_FILE][:STATUS]`. A last part of exactly three digits is the expected status (a
/// body file with such a name can be given as `./404`).
pub fn parse_scenario(text: &str) -> Result<Scenario> {
    let bad = || usage(format!("--scenario expects NAME=METHOD:PATH[:BODY_FILE][:STATUS], got {text:?}"));
    let (name, spec) = text.split_once('=').ok_or_else(bad)?;
    check_name("--scenario", name)?;
    let (spec, expected) = match spec.rsplit_once(':') {
        Some((rest, last)) if last.len() == 3 && last.chars().all(|c| c.is_ascii_digit()) && rest.contains(':') => {
            let code: u16 = last.parse().expect("three digits");
            if !(100..=599).contains(&code) {
                return Err(usage(format!("--scenario {name}: status {code} is not an HTTP status (100 to 599)")));
            }
            (rest, ExpectedStatus::Status(code))
        }
        _ => (spec, ExpectedStatus::Success),
    };
    let mut parts = spec.splitn(3, ':');
    let method = parts.next().filter(|m| !m.is_empty()).ok_or_else(bad)?;
    let path = parts.next().ok_or_else(bad)?;
    if !method.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(usage(format!("--scenario {name}: method {method:?} must be upper-case letters (GET, POST, …)")));
    }
    if !path.starts_with('/') || path.contains(char::is_whitespace) {
        return Err(usage(format!("--scenario {name}: path {path:?} must start with / and contain no spaces")));
    }
    let body = match parts.next() {
        Some(file) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| usage(format!("--scenario {name}: cannot read body file {file}: {e}")))?,
        ),
        None => None,
    };
    Ok(Scenario { name: name.to_string(), method: method.to_string(), path: path.to_string(), body, expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: RunArgs,
    }

    /// A plan from command-line words, with stand-in binaries (any existing file will do: nothing is run).
    fn plan(words: &[&str]) -> Result<Plan> {
        plan_on(&procstat::allowed_cpus(), words)
    }

    /// The same, on a machine whose allowed CPUs are `allowed`.
    fn plan_on(allowed: &[usize], words: &[&str]) -> Result<Plan> {
        use clap::Parser;
        let exe = std::env::current_exe().unwrap().display().to_string();
        let mut argv = vec!["fairpair", "--users-server", &exe, "--ceiling", &exe, "--node-server", &exe];
        argv.extend(words);
        Plan::for_cpus(&Wrapper::try_parse_from(argv).unwrap().args, allowed.to_vec())
    }

    #[test]
    fn on_two_hosts_each_side_pins_to_its_own_hosts_cpus() {
        use clap::Parser;
        let args = |words: &[&str]| Wrapper::try_parse_from([&["fairpair"], words].concat()).unwrap().args;
        let (local, remote) = ([0, 1], [0, 1, 2, 3]);
        // By default each side has all of its host.
        assert_eq!(two_host_pinning(&args(&[]), &local, &remote).unwrap(), (vec![0, 1, 2, 3], vec![0, 1], true));
        // The same CPU numbers on both sides are no overlap: they are different machines.
        let both_zero = args(&["--server-cpus", "0", "--loader-cpus", "0"]);
        assert_eq!(two_host_pinning(&both_zero, &local, &remote).unwrap(), (vec![0], vec![0], true));
        // Each list is checked against its own host.
        let e = two_host_pinning(&args(&["--server-cpus", "3"]), &local, &remote).unwrap();
        assert_eq!(e.0, [3]);
        let e = two_host_pinning(&args(&["--loader-cpus", "3"]), &local, &remote).unwrap_err().to_string();
        assert!(e.contains("CPU 3 is not available on this machine"), "{e}");
        let e = two_host_pinning(&args(&["--server-cpus", "4"]), &local, &remote).unwrap_err().to_string();
        assert!(e.contains("CPU 4 is not available on the server host"), "{e}");
        assert!(!two_host_pinning(&args(&["--no-pin"]), &local, &remote).unwrap().2);
    }

    #[test]
    fn a_subject_that_will_not_be_measured_leaves_the_plan_and_its_estimate() {
        let p = plan(&["--subjects", "rust,node", "--subject", "mine=python3 mine.py {port}"]).unwrap();
        let mine = p.subjects.iter().position(|s| s.name == "mine").unwrap();
        let mut measurable = vec![true; p.subjects.len()];
        measurable[mine] = false;
        let q = p.only_measurable(&measurable);
        let names: Vec<&str> = q.subjects.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["rust", "node"]);
        assert!(q.cells.iter().all(|c| c.subjects.iter().all(|&i| i < q.subjects.len())));
        // Every cell had all three subjects (POST too: none is GET-only), so a third of the runs go.
        assert_eq!(q.load_runs() * 3, p.load_runs() * 2);
        assert_eq!(q.memory_runs() * 3, p.memory_runs() * 2);
        assert!(q.estimate().load < p.estimate().load && q.estimate().memory < p.estimate().memory);
        // Nobody measurable: no cell, no run.
        let none = p.only_measurable(&vec![false; p.subjects.len()]);
        assert!(none.cells.is_empty() && none.load_runs() == 0 && none.memory_runs() == 0);
    }

    #[test]
    fn the_baseline_must_be_a_subject_that_implements_the_api() {
        let p = plan(&["--subjects", "rust,node,ceiling", "--baseline", "node"]).unwrap();
        assert_eq!(p.baseline.as_deref(), Some("node"));
        assert_eq!(plan(&["--subjects", "rust,node"]).unwrap().baseline, None, "the report chooses");
        for bad in ["ceiling", "nobody"] {
            let err = plan(&["--subjects", "rust,node,ceiling", "--baseline", bad]).unwrap_err().to_string();
            assert!(err.contains("--baseline") && err.contains("one of: rust, node"), "{bad}: {err}");
        }
    }

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
    fn a_phase_without_its_tool_is_not_estimated() {
        let mut p = plan(&["--subjects", "rust,node", "--open-loop-rates", "0.5,0.8"]).unwrap();
        p.open_loop_tool = true;
        assert_eq!(p.open_loop_runs(), 4);
        assert!(p.estimate().open_loop > 0.0);
        p.open_loop_tool = false;
        assert_eq!(p.open_loop_runs(), 0);
        assert_eq!(p.estimate().open_loop, 0.0);
    }

    #[test]
    fn a_short_duration_says_what_dominates_the_estimate() {
        let e = Estimate { preflight: 20.0, load: 60.0, open_loop: 100.0, memory: 150.0 };
        let note = e.dominant_note().unwrap();
        assert!(note.starts_with("most of the estimate is not the measured load (60 of 330 s): the memory phase"));
        assert!(note.contains("--memory-repeats"), "{note}");
        let e = Estimate { preflight: 20.0, load: 600.0, open_loop: 100.0, memory: 150.0 };
        assert_eq!(e.dominant_note(), None, "the load dominates: nothing to say");
        // As the issue found it: --duration 3 --repeats 1 --scenarios get, other phases at their defaults.
        let mut p =
            plan(&["--subjects", "rust,node", "--duration", "3", "--repeats", "1", "--scenarios", "get"]).unwrap();
        p.open_loop_tool = true;
        assert!(p.estimate().dominant_note().is_some());
    }

    #[test]
    fn a_running_service_is_a_subject_the_harness_does_not_start() {
        let p =
            plan(&["--subjects", "rust", "--subject", "svc=http://127.0.0.1:8000/", "--memory-repeats", "2"]).unwrap();
        let svc = p.subjects.iter().find(|s| s.name == "svc").unwrap();
        assert!(
            matches!(&svc.kind, Kind::External { url, addr } if url == "http://127.0.0.1:8000" && addr.port() == 8000)
        );
        assert!(!svc.started_by_harness() && !svc.accepts_max_users() && svc.implements_contract());
        assert_eq!(p.level_for(svc), contract::Level::Api);
        assert_eq!(p.memory_runs(), 2, "memory runs for rust only");
        assert!(p.cells.iter().all(|c| c.subjects.len() == 2), "loaded like the others");
        let err = plan(&["--subject", "svc=http://127.0.0.1:8000/users"]).unwrap_err().to_string();
        assert!(err.contains("without a path"), "{err}");
    }

    #[test]
    fn custom_subjects_are_verified_at_api_and_ours_at_full_unless_a_level_is_given() {
        use contract::Level::{Api, Full};
        let words = ["--subjects", "rust", "--subject", "mine=python3 mine.py {port}"];
        let p = plan(&words).unwrap();
        let levels: Vec<(&str, contract::Level)> =
            p.subjects.iter().map(|s| (s.name.as_str(), p.level_for(s))).collect();
        assert_eq!(levels, [("rust", Full), ("mine", Api)]);
        let p = plan(&[&words[..], &["--level", "full"]].concat()).unwrap();
        assert!(p.subjects.iter().all(|s| p.level_for(s) == Full));
        let p = plan(&[&words[..], &["--level", "api"]].concat()).unwrap();
        assert!(p.subjects.iter().all(|s| p.level_for(s) == Api));
    }

    #[test]
    fn the_default_plan_on_two_pinned_cpus() {
        let p = plan(&["--server-cpus", "0", "--loader-cpus", "1"]).unwrap();
        let names: Vec<&str> = p.subjects.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["rust", "node", "ceiling"]);
        assert!(p.skipped.iter().any(|s| s.starts_with("rust-multi and node-cluster: the server side has 1 CPU")));
        // get × {50, 300} × 3 subjects + post × {50, 300} × 2 subjects, 3 repeats each.
        assert_eq!(p.cells.len(), 4);
        assert_eq!(p.load_runs(), (3 + 3 + 2 + 2) * 3);
        assert_eq!((p.duration_s, p.warmup_s, p.repeats), (15, 5, 3));
        // The store is sized in preflight, from a measured rate, not in the plan.
        assert_eq!(p.post_max_users, None);
        assert!(p.estimate_total() < 20.0 * 60.0, "{}", p.estimate_total());
    }

    #[test]
    fn quick_is_short() {
        let p = plan(&["--quick", "--server-cpus", "0", "--loader-cpus", "1"]).unwrap();
        assert_eq!((p.duration_s, p.warmup_s, p.repeats, p.memory_repeats), (2, 1, 1, 1));
        assert!(p.estimate_total() < 120.0, "{}", p.estimate_total());
        // Explicit values win over --quick.
        assert_eq!(plan(&["--quick", "--duration", "7"]).unwrap().duration_s, 7);
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
    fn the_ceiling_is_not_loaded_with_posts() {
        let p = plan(&["--subjects", "ceiling,rust", "--scenarios", "post", "--server-cpus", "0"]).unwrap();
        assert!(p.cells.iter().all(|c| c.subjects.iter().all(|&i| p.subjects[i].name == "rust")));
        assert!(p.skipped.iter().any(|s| s.starts_with("ceiling on post")));
    }

    #[test]
    fn custom_scenarios() {
        let s = parse_scenario("health=GET:/health").unwrap();
        assert_eq!((s.name.as_str(), s.method.as_str(), s.path.as_str(), s.body), ("health", "GET", "/health", None));
        assert_eq!(s.expected, ExpectedStatus::Success);
        let s = parse_scenario("missing=GET:/users/0:404").unwrap();
        assert_eq!((s.path.as_str(), s.body, s.expected), ("/users/0", None, ExpectedStatus::Status(404)));
        // A path made of three digits is a path, not a status.
        let s = parse_scenario("odd=GET:/123").unwrap();
        assert_eq!((s.path.as_str(), s.expected), ("/123", ExpectedStatus::Success));
        for bad in [
            "health",
            "=GET:/",
            "x=GET",
            "x=get:/",
            "x=GET:nope",
            "x y=GET:/",
            "x=POST:/users:/no/such/file",
            "x=GET:/:999",
            "x=GET:/:099",
        ] {
            assert!(parse_scenario(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn custom_scenario_reads_its_body_file() {
        let dir = std::env::temp_dir().join(format!("fairpair-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("body.json");
        std::fs::write(&file, "{\"name\":\"a\",\"email\":\"a@b\"}").unwrap();
        let s = parse_scenario(&format!("mine=POST:/users:{}", file.display())).unwrap();
        assert_eq!(s.body.as_deref(), Some("{\"name\":\"a\",\"email\":\"a@b\"}"));
        assert_eq!(s.expected, ExpectedStatus::Success);
        let s = parse_scenario(&format!("mine=POST:/users:{}:201", file.display())).unwrap();
        assert_eq!((s.body.is_some(), s.expected), (true, ExpectedStatus::Status(201)));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
