//! The plan: what `fairpair run` will do, decided entirely before anything starts.
//!
//! Subjects, scenarios, connection counts, pinning and phase lengths are resolved from the command line here, bad
//! input is rejected here (one line, exit 2), and the time estimate printed up front is computed from the plan
//! alone. Later stages only execute it.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::args::RunArgs;
use crate::host::{Connection, Host, SshHost};
use crate::procstat;
use crate::schema::{ExpectedStatus, MAX_MAX_USERS, MIN_MAX_USERS, Settings};
use crate::subject::{Kind, StartOptions, SubjectSpec};
use crate::text::minutes;
use crate::usage;

/// The body of the `post` scenario: one new user per request.
pub const POST_BODY: &str = r#"{"name":"Bench User","email":"bench@example.com"}"#;

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

    /// The built-in scenarios, by name: the one place they are defined.
    pub fn builtin(name: &str) -> Option<Scenario> {
        let (method, path, body) = match name {
            "get" => ("GET", "/users/500", None),
            "post" => ("POST", "/users", Some(POST_BODY)),
            "hello" => ("GET", "/", None),
            _ => return None,
        };
        Some(Scenario {
            name: name.into(),
            method: method.into(),
            path: path.into(),
            body: body.map(String::from),
            expected: ExpectedStatus::Success,
        })
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

/// What `fairpair run` will do.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The settings as `benchmark.json` records them, built once here from the command line. Preflight revises one of
    /// them (`post_max_users`, the store of the POST runs); `execute` copies them into the results as they are.
    pub settings: Settings,
    pub subjects: Vec<SubjectSpec>,
    pub scenarios: Vec<Scenario>,
    pub cells: Vec<Cell>,
    /// Whether an open-loop tool (oha or autocannon) is installed: without one the phase is skipped, so it is not
    /// estimated either.
    pub open_loop_tool: bool,
    /// The ceiling binary when it exists: preflight loads it to measure the loader's capacity.
    pub capacity_target: Option<PathBuf>,
    /// Seconds of each preflight calibration run (loader capacity, POST rate).
    pub calibration_s: u64,
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
/// Discarded warm-up before each preflight calibration measurement.
pub const CALIBRATION_WARMUP_S: u64 = 1;

/// Where the servers and the load generator run.
struct Pinning {
    server_cpus: Vec<usize>,
    loader_cpus: Vec<usize>,
    pinned: bool,
    loader_threads: u32,
}

/// The programs of the built-in subjects, as found (or given) before any is checked to exist.
struct Programs {
    users_server: PathBuf,
    ceiling: PathBuf,
    go_server: PathBuf,
    node_server: PathBuf,
    node: String,
    /// On a server host: its name, and those of the paths above that are not files there (looked for in one
    /// command). `None`: they are on this machine.
    remote: Option<(String, Vec<String>)>,
}

impl Programs {
    /// The path of a program, checked to exist where it will run.
    fn existing(&self, path: &Path, what: &str, hint: &str) -> Result<String> {
        match &self.remote {
            None => existing(path, what, hint),
            Some((host, missing)) if missing.iter().any(|m| Path::new(m) == path) => {
                Err(usage(format!("{what} not found at {} on {host} ({hint}, there)", path.display())))
            }
            Some(_) => Ok(path.display().to_string()),
        }
    }
}

/// The phase lengths and repeat counts, with `--quick`'s defaults where the command line left them open.
struct Lengths {
    duration_s: u64,
    warmup_s: u64,
    repeats: u32,
}

impl Plan {
    pub fn from_args(args: &RunArgs) -> Result<Plan> {
        Plan::from_args_on(args, None)
    }

    /// The plan of a run whose subjects run on `server` (a connected server host), or here without one.
    pub fn from_args_on(args: &RunArgs, server: Option<&ServerSide>) -> Result<Plan> {
        let mut plan = Plan::for_hosts(args, Host::Local.allowed_cpus()?, server)?;
        plan.settings.argv = std::env::args().collect();
        Ok(plan)
    }

    /// The plan on a machine whose allowed CPUs are `allowed`: `from_args` passes this process's own, tests pass a
    /// list, so that what they check does not depend on the machine they run on.
    pub fn for_cpus(args: &RunArgs, allowed: Vec<usize>) -> Result<Plan> {
        Plan::for_hosts(args, allowed, None)
    }

    /// [`Plan::for_cpus`], the subjects on `server` when there is one: each side pinned on its own host's CPUs, the
    /// programs looked for on the server host.
    pub fn for_hosts(args: &RunArgs, allowed: Vec<usize>, server: Option<&ServerSide>) -> Result<Plan> {
        let mut args = args.clone();
        if let Some(preset) = args.preset {
            preset.apply(&mut args);
        }
        let args = &args;
        let lengths = check_values(args)?;
        let mut skipped = Vec::new();
        let (pinning, programs) = match server {
            Some(side) => (two_host_pinning(args, &allowed, &side.cpus)?, side.programs(args)?),
            None => (pinning(args, &allowed, &mut skipped)?, programs(args)),
        };
        let capacity_target = programs.existing(&programs.ceiling, "", "").is_ok().then(|| programs.ceiling.clone());
        let server_n = pinning.server_cpus.len() as u32;
        let subjects = subjects(args, &programs, server_n, &mut skipped)?;
        let baseline = baseline(args, &subjects)?;
        let scenarios = scenarios(args)?;
        let connections = args.connections.clone().unwrap_or_else(|| vec![50, 300]);
        if connections.is_empty() || connections.iter().any(|&c| c == 0 || c > 10_000) {
            return Err(usage("--connections: each count must be 1 to 10000"));
        }
        let cells = cells(&scenarios, &subjects, &connections, &mut skipped);
        if args.post_max_users.is_some_and(|m| !(MIN_MAX_USERS..=MAX_MAX_USERS).contains(&m)) {
            return Err(usage(format!("--post-max-users: expected {MIN_MAX_USERS} to {MAX_MAX_USERS}")));
        }
        let open_loop_fractions: Vec<f64> = args.open_loop_rates.iter().copied().filter(|&f| f > 0.0).collect();
        if open_loop_fractions.iter().any(|f| !f.is_finite() || *f > 2.0) {
            return Err(usage("--open-loop-rates: fractions must be between 0 and 2 (e.g. 0.5,0.8)"));
        }
        let q = args.quick;
        Ok(Plan {
            settings: settings(args, lengths, pinning, connections, open_loop_fractions, baseline),
            subjects,
            scenarios,
            cells,
            open_loop_tool: crate::tools::installed("oha") || crate::tools::installed("autocannon"),
            capacity_target,
            calibration_s: if q { 1 } else { 3 },
            level: args.level,
            start_timeout_s: args.start_timeout,
            out: args.out.clone(),
            server_host: server.map_or(Host::Local, |s| s.host.clone()),
            skipped,
        })
    }

    /// Prints what the plan will do and how long it should take (on stderr, before anything runs).
    pub fn announce(&self) {
        let plan = self;
        let e = plan.estimate();
        eprintln!(
            "fairpair: {} subjects, {} load runs ({} s + {} s warm-up each), {} open-loop runs, {} memory runs",
            plan.subjects.len(),
            plan.load_runs(),
            plan.settings.duration_s,
            plan.settings.warmup_s,
            plan.open_loop_runs(),
            plan.memory_runs()
        );
        eprintln!(
            "fairpair: estimated {} (preflight {}, load {}, open-loop {}, memory {})",
            minutes(e.total()),
            minutes(e.preflight),
            minutes(e.load),
            minutes(e.open_loop),
            minutes(e.memory)
        );
        if let Some(note) = e.dominant_note() {
            eprintln!("fairpair: {note}");
        }
        if !plan.open_loop_tool && !plan.settings.open_loop_fractions.is_empty() {
            eprintln!(
                "fairpair: the open-loop phase will be skipped (neither oha nor autocannon is installed): not estimated"
            );
        }
        if plan.settings.pinned && !plan.server_host.is_local() {
            eprintln!(
                "fairpair: servers on CPU {} of the {}, load generator on CPU {} of this machine",
                procstat::format_cpu_list(&plan.settings.server_cpus),
                plan.server_host.label(),
                procstat::format_cpu_list(&plan.settings.loader_cpus)
            );
        } else if plan.settings.pinned {
            eprintln!(
                "fairpair: servers on CPU {}, load generator on CPU {}",
                procstat::format_cpu_list(&plan.settings.server_cpus),
                procstat::format_cpu_list(&plan.settings.loader_cpus)
            );
        }
        match plan.post_max_users() {
            _ if !plan.scenarios.iter().any(Scenario::writes) => {}
            Some(given) => eprintln!("fairpair: the store of POST runs is --max-users {given} (--post-max-users)"),
            None => eprintln!(
                "fairpair: the store of POST runs (--max-users) is sized in preflight from the POST rate measured there"
            ),
        }
        for s in &plan.skipped {
            eprintln!("fairpair: skipped: {s}");
        }
    }

    /// Number of closed-loop runs.
    pub fn load_runs(&self) -> usize {
        self.cells.iter().map(|c| c.subjects.len()).sum::<usize>() * self.settings.repeats as usize
    }

    /// Subjects that take part in the open-loop phase (those measured on `get` at the lowest connection count).
    pub fn open_loop_runs(&self) -> usize {
        if self.open_loop_tool && self.scenarios.iter().any(|s| s.name == "get") {
            self.subjects.len() * self.settings.open_loop_fractions.len()
        } else {
            0
        }
    }

    /// Memory runs start a fresh process each, so a running service (`--subject NAME=http://…`) has none.
    pub fn memory_runs(&self) -> usize {
        self.subjects.iter().filter(|s| s.started_by_harness()).count() * self.settings.memory_repeats as usize
    }

    /// Estimated seconds for each phase, and for one run of each (the progress display's weights).
    pub fn estimate(&self) -> Estimate {
        let idle = self.settings.idle_wait_max_s / 2.0;
        let verify = self.subjects.iter().filter(|s| s.implements_contract()).count() as f64 * VERIFY_S;
        let calibration =
            self.calibration_runs() as f64 * ((CALIBRATION_WARMUP_S + self.calibration_s) as f64 + RUN_OVERHEAD_S);
        let per_run = PerRun {
            load: (self.settings.warmup_s + self.settings.duration_s) as f64 + RUN_OVERHEAD_S + idle,
            open_loop: (self.settings.warmup_s + self.settings.open_loop_duration_s) as f64 + RUN_OVERHEAD_S + idle,
            memory: self.settings.memory_duration_s as f64
                + self.settings.memory_settle_ms as f64 / 1000.0
                + RUN_OVERHEAD_S
                + idle,
        };
        Estimate {
            preflight: verify + calibration,
            load: self.load_runs() as f64 * per_run.load,
            open_loop: self.open_loop_runs() as f64 * per_run.open_loop,
            memory: self.memory_runs() as f64 * per_run.memory,
            per_run,
        }
    }

    /// Number of calibration measurements preflight will make (for the estimate): the loader's capacity on every
    /// cell when the ceiling exists, and the POST rate of every subject whose store a writing scenario fills.
    pub fn calibration_runs(&self) -> usize {
        let capacity = if self.capacity_target.is_some() { self.capacity_cells().len() } else { 0 };
        capacity + self.post_subjects().len()
    }

    /// The distinct (scenario, connections) cells of the plan: the loader's capacity depends on both (more
    /// connections cost it more per request; a POST sends a body).
    pub fn capacity_cells(&self) -> Vec<(&Scenario, u32)> {
        self.cells.iter().map(|c| (&self.scenarios[c.scenario], c.connections)).collect()
    }

    /// The first scenario that writes to the store (`post` by default), if the plan has one.
    pub fn writing_scenario(&self) -> Option<&Scenario> {
        self.cells.iter().map(|c| &self.scenarios[c.scenario]).find(|s| s.writes())
    }

    /// Indices of the subjects whose store a writing scenario fills.
    pub fn post_subjects(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for cell in self.cells.iter().filter(|c| self.scenarios[c.scenario].writes()) {
            for &i in &cell.subjects {
                if self.subjects[i].accepts_max_users() && !out.contains(&i) {
                    out.push(i);
                }
            }
        }
        out
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
            cpus: self.settings.pinned.then_some(self.settings.server_cpus.as_slice()),
            timeout: std::time::Duration::from_secs(self.start_timeout_s),
            host: &self.server_host,
        }
    }

    /// How many CPUs the load generator could use, the denominator of its CPU percentage.
    pub fn loader_cpu_count(&self, tool: &dyn crate::tools::LoadTool) -> f64 {
        if self.settings.pinned {
            self.settings.loader_cpus.len() as f64
        } else if tool.name() == "autocannon" {
            1.0 // One Node process: one core is all it can use.
        } else {
            f64::from(self.settings.loader_threads)
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
            .unwrap_or_else(|| Scenario::builtin("get").expect("get is a built-in scenario"))
    }

    /// The CPUs a load tool is pinned to, when pinning.
    pub fn loader_pin(&self) -> Option<&[usize]> {
        self.settings.pinned.then_some(self.settings.loader_cpus.as_slice())
    }

    /// `--max-users` of the servers in runs that write: `None` in the plan unless `--post-max-users` gives it, then
    /// chosen by preflight from the POST rate it measures (the revised plan has it). `benchmark.json` records it as
    /// `settings.post_max_users`, 0 when there was none to choose.
    pub fn post_max_users(&self) -> Option<u64> {
        (self.settings.post_max_users > 0).then_some(self.settings.post_max_users)
    }

    /// The store size of a run of `scenario` on `spec`: only runs that write, on servers that take `--max-users`.
    pub fn max_users_for(&self, spec: &SubjectSpec, scenario: &Scenario) -> Option<u64> {
        (scenario.writes() && spec.accepts_max_users()).then(|| self.post_max_users().unwrap_or(MAX_MAX_USERS))
    }
}

/// Estimated seconds per phase of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Verification and calibration.
    pub preflight: f64,
    pub load: f64,
    pub open_loop: f64,
    pub memory: f64,
    /// Seconds of one run of each phase: the phases above are these times their run counts, and the progress
    /// display advances by them, so that the bar and the printed estimate are one computation.
    pub per_run: PerRun,
}

/// Estimated seconds of one run of each phase, the harness's own time around it (start, idle wait, stop) included.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerRun {
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

/// The settings of a plan, from the command line and what the plan resolved (CPUs, connections, rates, baseline).
/// `post_max_users` is 0 until preflight sizes the store (or `--post-max-users` gives it); `argv` is filled in by
/// [`Plan::from_args`].
fn settings(
    args: &RunArgs,
    lengths: Lengths,
    pinning: Pinning,
    connections: Vec<u32>,
    open_loop_fractions: Vec<f64>,
    baseline: Option<String>,
) -> Settings {
    let q = args.quick;
    Settings {
        tool: args.tool.clone().unwrap_or_else(|| "wrk".to_string()),
        open_loop_connections: connections.iter().copied().min().unwrap_or(50),
        connections,
        duration_s: lengths.duration_s,
        warmup_s: lengths.warmup_s,
        repeats: lengths.repeats,
        quick: q,
        pinned: pinning.pinned,
        server_cpus: pinning.server_cpus,
        loader_cpus: pinning.loader_cpus,
        loader_threads: pinning.loader_threads,
        idle_wait_max_s: args.idle_wait.unwrap_or(if q { 0.5 } else { 3.0 }).max(0.0),
        idle_threshold_percent: args.idle_threshold,
        post_max_users: args.post_max_users.unwrap_or(0),
        open_loop_fractions,
        open_loop_duration_s: args.open_loop_duration.unwrap_or(if q { 2 } else { 10 }).max(1),
        memory_repeats: args.memory_repeats.unwrap_or(if q { 1 } else { 3 }),
        memory_connections: args.memory_connections,
        memory_duration_s: args.memory_duration.unwrap_or(if q { 2 } else { 10 }).max(1),
        memory_settle_ms: if q { 300 } else { 1000 },
        allow_unverified: args.allow_unverified,
        baseline,
        argv: Vec::new(),
    }
}

/// The run lengths, and the values that cannot mean anything refused.
fn check_values(args: &RunArgs) -> Result<Lengths> {
    let q = args.quick;
    let lengths = Lengths {
        duration_s: args.duration.unwrap_or(if q { 2 } else { 15 }),
        warmup_s: args.warmup.unwrap_or(if q { 1 } else { 5 }),
        repeats: args.repeats.unwrap_or(if q { 1 } else { 3 }),
    };
    if lengths.duration_s == 0 || lengths.repeats == 0 {
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
    let tool = args.tool.as_deref().unwrap_or("wrk");
    if crate::tools::by_name(tool).is_none() {
        return Err(usage(format!("unknown load tool {:?} (expected {})", tool, crate::tools::NAMES.join(", "))));
    }
    Ok(lengths)
}

/// Pinning: disjoint CPU sets for servers and load generator.
fn pinning(args: &RunArgs, allowed: &[usize], skipped: &mut Vec<String>) -> Result<Pinning> {
    let cpu_list = |flag: &str, text: &str| -> Result<Vec<usize>> {
        let cpus = procstat::parse_cpu_list(text).map_err(|e| usage(format!("{flag}: {e}")))?;
        if let Some(c) = cpus.iter().find(|c| !allowed.contains(c)) {
            return Err(usage(format!(
                "{flag}: CPU {c} is not available (allowed: {})",
                procstat::format_cpu_list(allowed)
            )));
        }
        Ok(cpus)
    };
    let half = (allowed.len() / 2).max(1);
    let (server_cpus, loader_cpus, pinned) = if args.no_pin {
        if args.server_cpus.is_some() || args.loader_cpus.is_some() {
            return Err(usage("--no-pin cannot be combined with --server-cpus/--loader-cpus"));
        }
        (allowed.to_vec(), allowed.to_vec(), false)
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
    let loader_threads = if pinned { loader_cpus.len() as u32 } else { (allowed.len() as u32 / 2).max(1) };
    Ok(Pinning { server_cpus, loader_cpus, pinned, loader_threads })
}

/// Where the built-in subjects' programs are: given, or beside this executable (the Node server: in the project
/// this executable was built in).
fn programs(args: &RunArgs) -> Programs {
    let exe_dir = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf));
    let sibling = |name: &str, given: &Option<PathBuf>| -> PathBuf {
        given.clone().unwrap_or_else(|| exe_dir.as_deref().unwrap_or(Path::new(".")).join(name))
    };
    Programs {
        users_server: sibling("users-server", &args.users_server),
        ceiling: sibling("ceiling", &args.ceiling),
        go_server: sibling("../go/users-server-go", &args.go_server),
        node_server: args.node_server.clone().unwrap_or_else(|| {
            let exe = std::env::current_exe().ok();
            project_file(exe.as_deref(), Path::new("servers-node/server.js"))
        }),
        node: args.node.clone(),
        remote: None,
    }
}

/// The subjects: the built-in ones named (or the default set), then the user's own.
fn subjects(args: &RunArgs, programs: &Programs, server_n: u32, skipped: &mut Vec<String>) -> Result<Vec<SubjectSpec>> {
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
    let mut subjects: Vec<SubjectSpec> = Vec::new();
    for name in &names {
        if matches!(name.as_str(), "rust-multi" | "node-cluster" | "go-multi") && !multi_ok {
            skipped.push(format!("{name}: the server side has {server_n} CPU; it needs at least 2"));
            continue;
        }
        let spec = builtin_subject(name, programs, server_n)?;
        if !subjects.iter().any(|s| s.name == spec.name) {
            subjects.push(spec);
        }
    }
    for text in &args.custom_subjects {
        let spec = custom_subject(text, &args.ready_path, &subjects)?;
        subjects.push(spec);
    }
    if subjects.is_empty() {
        return Err(usage("no subject left to measure"));
    }
    Ok(subjects)
}

/// A built-in subject by name, its program checked to exist; multi-worker ones get one worker per server CPU.
fn builtin_subject(name: &str, programs: &Programs, server_n: u32) -> Result<SubjectSpec> {
    let builtin = |program: Vec<String>, workers: u32, contract: bool| SubjectSpec {
        name: name.to_string(),
        kind: Kind::Builtin { program, accepts_max_users: contract, implements_contract: contract },
        workers: Some(workers),
        get_only: !contract,
        ready_path: "/health".into(),
        per_worker_store: false,
    };
    let rust = || -> Result<Vec<String>> {
        Ok(vec![programs.existing(
            &programs.users_server,
            "the Rust server",
            "cargo build --release -p users-server",
        )?])
    };
    let node = || -> Result<Vec<String>> {
        Ok(vec![
            programs.node.clone(),
            programs.existing(&programs.node_server, "the Node server", "check --node-server")?,
        ])
    };
    let go = || -> Result<Vec<String>> {
        let hint = "build it with scripts/build-go, or give --go-server";
        Ok(vec![programs.existing(&programs.go_server, "the Go server", hint)?])
    };
    Ok(match name {
        "rust" => builtin(rust()?, 1, true),
        // GOMAXPROCS=1 (`--workers 1`): like with like against one tokio worker and one Node process.
        "go" => builtin(go()?, 1, true),
        "node" => builtin(node()?, 1, true),
        "ceiling" => builtin(
            vec![programs.existing(&programs.ceiling, "the ceiling server", "cargo build --release -p ceiling")?],
            1,
            false,
        ),
        "rust-multi" => builtin(rust()?, server_n, true),
        "go-multi" => builtin(go()?, server_n, true),
        "node-cluster" => SubjectSpec { per_worker_store: true, ..builtin(node()?, server_n, true) },
        other => {
            return Err(usage(format!(
                "unknown subject {other:?} (built-in: rust, node, go, ceiling, rust-multi, node-cluster, go-multi; \
                 add your own with --subject NAME='COMMAND with {{port}}')"
            )));
        }
    })
}

/// `--subject NAME='COMMAND with {port}'`, or `--subject NAME=http://HOST:PORT` for a service already running.
fn custom_subject(text: &str, ready_path: &str, others: &[SubjectSpec]) -> Result<SubjectSpec> {
    let (name, command) = text
        .split_once('=')
        .ok_or_else(|| usage(format!("--subject expects NAME='COMMAND with {{port}}', got {text:?}")))?;
    let name = name.trim();
    check_name("--subject", name)?;
    if others.iter().any(|s| s.name == name) {
        return Err(usage(format!("--subject {name}: a subject of that name already exists")));
    }
    // A URL: a service that is already running, which the harness loads but does not start.
    let kind = if command.starts_with("http://") {
        let addr = crate::verify::parse_url(command)?;
        Kind::External { url: command.trim_end_matches('/').to_string(), addr }
    } else if command.contains("{port}") {
        Kind::Custom { template: command.to_string() }
    } else {
        return Err(usage(format!("--subject {name}: the command must contain {{port}}")));
    };
    Ok(SubjectSpec {
        name: name.to_string(),
        kind,
        workers: None,
        get_only: false,
        ready_path: ready_path.to_string(),
        per_worker_store: false,
    })
}

/// `--baseline`, checked to name a subject of this run that implements the API.
fn baseline(args: &RunArgs, subjects: &[SubjectSpec]) -> Result<Option<String>> {
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

/// The scenarios: the built-in ones named (or `get,post`), then the user's own.
fn scenarios(args: &RunArgs) -> Result<Vec<Scenario>> {
    let mut scenarios = Vec::new();
    let names = args.scenarios.clone().unwrap_or_else(|| vec!["get".into(), "post".into()]);
    for name in names.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let Some(s) = Scenario::builtin(name) else {
            return Err(usage(format!(
                "unknown scenario {name:?} (built-in: get, post, hello; add your own with \
                 --scenario NAME=METHOD:PATH[:BODY_FILE][:STATUS])"
            )));
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
    Ok(scenarios)
}

/// Cells: every scenario × connection count, with the subjects that take part; the ceiling is a GET-only baseline.
fn cells(
    scenarios: &[Scenario],
    subjects: &[SubjectSpec],
    connections: &[u32],
    skipped: &mut Vec<String>,
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (si, scenario) in scenarios.iter().enumerate() {
        let members: Vec<usize> = (0..subjects.len()).filter(|&i| scenario.is_get() || !subjects[i].get_only).collect();
        for s in subjects.iter().filter(|s| s.get_only && !scenario.is_get()) {
            skipped.push(format!(
                "{} on {}: a fixed-response baseline is measured on GET scenarios only",
                s.name, scenario.name
            ));
        }
        if members.is_empty() {
            continue;
        }
        for &c in connections {
            cells.push(Cell { scenario: si, connections: c, subjects: members.clone() });
        }
    }
    cells
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
    fn programs(&self, args: &RunArgs) -> Result<Programs> {
        let Host::Ssh(ssh) = &self.host else { unreachable!("a server side is a server host") };
        let dir = Path::new(&ssh.dir);
        // The same profile directory as this fairpair's (target/release, or target/debug in the tests).
        let exe = std::env::current_exe().ok();
        let profile = exe.as_deref().and_then(|e| e.parent()?.file_name()).map_or("release".into(), |p| p.to_owned());
        let target = dir.join("target").join(profile);
        let pick = |given: &Option<PathBuf>, default: PathBuf| given.clone().unwrap_or(default);
        let mut programs = Programs {
            users_server: pick(&args.users_server, target.join("users-server")),
            ceiling: pick(&args.ceiling, target.join("ceiling")),
            go_server: pick(&args.go_server, dir.join("target/go/users-server-go")),
            node_server: pick(&args.node_server, dir.join("servers-node/server.js")),
            node: args.node.clone(),
            remote: None,
        };
        let all = [&programs.users_server, &programs.ceiling, &programs.go_server, &programs.node_server]
            .map(|p| p.display().to_string());
        programs.remote = Some((self.host.label(), self.host.missing_files(&all)?));
        Ok(programs)
    }
}

/// Pinning on two hosts: each side on its own host's CPUs, all of them unless --server-cpus (CPUs of the server
/// host) or --loader-cpus (of this one) say otherwise. The two sets may have the same numbers: they are different
/// machines, and the loader has this one to itself, pinned or not.
fn two_host_pinning(args: &RunArgs, local: &[usize], remote: &[usize]) -> Result<Pinning> {
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
    let server_cpus = within("--server-cpus", &args.server_cpus, remote, "the server host")?;
    let loader_cpus = within("--loader-cpus", &args.loader_cpus, local, "this machine")?;
    Ok(Pinning { loader_threads: loader_cpus.len() as u32, server_cpus, loader_cpus, pinned: !args.no_pin })
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
        plan_on(&Host::Local.allowed_cpus().unwrap(), words)
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
        let sets = |p: Pinning| (p.server_cpus, p.loader_cpus, p.pinned);
        // By default each side has all of its host.
        assert_eq!(sets(two_host_pinning(&args(&[]), &local, &remote).unwrap()), (vec![0, 1, 2, 3], vec![0, 1], true));
        // The same CPU numbers on both sides are no overlap: they are different machines.
        let both_zero = args(&["--server-cpus", "0", "--loader-cpus", "0"]);
        assert_eq!(sets(two_host_pinning(&both_zero, &local, &remote).unwrap()), (vec![0], vec![0], true));
        // Each list is checked against its own host.
        assert_eq!(two_host_pinning(&args(&["--server-cpus", "3"]), &local, &remote).unwrap().server_cpus, [3]);
        let e = two_host_pinning(&args(&["--loader-cpus", "3"]), &local, &remote).err().unwrap().to_string();
        assert!(e.contains("CPU 3 is not available on this machine"), "{e}");
        let e = two_host_pinning(&args(&["--server-cpus", "4"]), &local, &remote).err().unwrap().to_string();
        assert!(e.contains("CPU 4 is not available on the server host"), "{e}");
        assert!(!two_host_pinning(&args(&["--no-pin"]), &local, &remote).unwrap().pinned);
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
        assert_eq!(p.settings.baseline.as_deref(), Some("node"));
        assert_eq!(plan(&["--subjects", "rust,node"]).unwrap().settings.baseline, None, "the report chooses");
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
        let e = Estimate { preflight: 20.0, load: 60.0, open_loop: 100.0, memory: 150.0, ..Estimate::default() };
        let note = e.dominant_note().unwrap();
        assert!(note.starts_with("most of the estimate is not the measured load (60 of 330 s): the memory phase"));
        assert!(note.contains("--memory-repeats"), "{note}");
        let e = Estimate { preflight: 20.0, load: 600.0, open_loop: 100.0, memory: 150.0, ..Estimate::default() };
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
        assert_eq!((p.settings.duration_s, p.settings.warmup_s, p.settings.repeats), (15, 5, 3));
        // The store is sized in preflight, from a measured rate, not in the plan.
        assert_eq!(p.post_max_users(), None);
        assert!(p.estimate_total() < 20.0 * 60.0, "{}", p.estimate_total());
    }

    #[test]
    fn quick_is_short() {
        let p = plan(&["--quick", "--server-cpus", "0", "--loader-cpus", "1"]).unwrap();
        assert_eq!(
            (p.settings.duration_s, p.settings.warmup_s, p.settings.repeats, p.settings.memory_repeats),
            (2, 1, 1, 1)
        );
        assert!(p.estimate_total() < 120.0, "{}", p.estimate_total());
        // Explicit values win over --quick.
        assert_eq!(plan(&["--quick", "--duration", "7"]).unwrap().settings.duration_s, 7);
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
