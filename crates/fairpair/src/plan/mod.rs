//! The plan: what `fairpair run` will do, decided entirely before anything starts.
//!
//! Subjects, scenarios, connection counts, pinning and phase lengths are resolved from the command line here, bad
//! input is rejected here (one line, exit 2), and the time estimate printed up front is computed from the plan
//! alone. Later stages only execute it. The plan reads nothing itself: what it needs to know of the machines is
//! gathered first (`facts.rs`), so that [`Plan::new`] is a function of the arguments and the facts.
//!
//! - `args.rs` — the command line of `fairpair run`, as clap reads it.
//! - `names.rs` — the enums of the names a run is made of: tools, built-in subjects and scenarios, presets, methods.
//! - `presets.rs` — the published studies' methods and figures.
//! - `facts.rs` — the CPUs, the tools installed, the servers' programs, body files: gathered before the plan.
//! - `subjects.rs` and `scenarios.rs` — what is measured, and the cells they make.
//! - `pinning.rs` — which CPUs the servers and the load generator get.
//! - `settings.rs` — the defaults a command line leaves open (a full run's, `--quick`'s), and the checks of its values.
//! - `estimate.rs` — how many runs, how long, and what the plan announces.
//! - `dry_run.rs` — what `run --dry-run` prints: the announcement, the tools and every cell, with nothing run.

pub mod args;
mod dry_run;
mod estimate;
mod facts;
pub mod names;
mod pinning;
pub mod presets;
mod profiled;
mod scenarios;
mod settings;
mod subjects;

use std::path::PathBuf;

use anyhow::Result;

pub use estimate::{CALIBRATION_WARMUP_S, Estimate, PerRun, RUN_OVERHEAD_S};
pub use facts::{Facts, ServerSide, project_file};
pub use profiled::ProfiledRun;
pub use scenarios::{Cell, POST_BODY, Scenario, ScenarioText, parse_scenario};
pub use subjects::Programs;

use crate::machine::host::Host;
use crate::plan::args::RunArgs;
use crate::plan::names::{BuiltinScenario, Tool};
use crate::plan::presets::StudyMethod;
use crate::schema::{MAX_MAX_USERS, MIN_MAX_USERS, Settings};
use crate::subjects::process::{Origin, StartOptions, SubjectSpec};
use crate::usage;
use settings::{FULL, QUICK, check_values, settings};

/// What `fairpair run` will do.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The settings as `benchmark.json` records them, built once here from the command line; `execute` copies them
    /// into the results as they are.
    pub settings: Settings,
    pub subjects: Vec<SubjectSpec>,
    pub scenarios: Vec<Scenario>,
    pub cells: Vec<Cell>,
    /// The tool of the open-loop phase: oha when it is installed, else autocannon, else none (the phase is then
    /// skipped, and not estimated either). Chosen here only.
    pub open_loop_tool: Option<Tool>,
    /// The ceiling, as preflight loads it to measure the loader's capacity; `None` when its program is missing.
    pub capacity_target: Option<SubjectSpec>,
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
    /// The capacity search at a latency objective (`capacity/`), when it runs.
    pub capacity: Option<crate::capacity::plan::CapacityPlan>,
    /// The Node that runs the node subjects where they run, and where it came from: its version is recorded.
    pub node: crate::subjects::node::Node,
    /// `--profile`: the profile phase runs after the memory phase (`crate::profile`).
    pub profile: bool,
}

/// What the warm-up probe loads (see [`Plan::warmup_probe`]).
pub struct WarmupProbePlan<'a> {
    pub scenario: &'a Scenario,
    pub connections: u32,
    pub subjects: Vec<&'a SubjectSpec>,
}

impl Plan {
    /// The plan of a run whose subjects run on `server` (a connected server host), or here without one: the facts
    /// gathered, then the plan built from them.
    pub fn from_args_on(args: &RunArgs, server: Option<&ServerSide>) -> Result<Plan> {
        Plan::new(args, &Facts::gather(args, server)?)
    }

    /// The plan of `args` on machines as `facts` describe them. It reads nothing: every decision in it can be
    /// tested with made-up facts.
    pub fn new(args: &RunArgs, facts: &Facts) -> Result<Plan> {
        let (args, method) = &with_preset(args);
        check_values(args)?;
        let defaults = if args.quick { &QUICK } else { &FULL };
        let mut skipped = Vec::new();
        let pinning = match &facts.server {
            Some(side) => pinning::two_host_pinning(args, &facts.cpus, &side.cpus)?,
            None => pinning::pinning(args, &facts.cpus, &mut skipped)?,
        };
        let programs = &facts.programs;
        let server_n = pinning.server_cpus.len() as u32;
        let preset_subjects = method.map(|m| m.subjects);
        let subjects = subjects::subjects(args, preset_subjects, programs, &facts.addresses, server_n, &mut skipped)?;
        let baseline = subjects::baseline(args, &subjects)?;
        let named = args.scenarios.as_deref();
        let scenarios =
            scenarios::scenarios(named, method.map(|m| m.scenarios), &args.custom_scenarios, &facts.bodies)?;
        let connections = args.connections.clone().unwrap_or_else(|| vec![50, 300]);
        if connections.is_empty() || connections.iter().any(|&c| c == 0 || c > 10_000) {
            return Err(usage("--connections: each count must be 1 to 10000"));
        }
        let mut cells = scenarios::cells(&scenarios, &subjects, &connections, &mut skipped);
        let oha = facts.installed.contains(&Tool::Oha);
        let least = connections.iter().copied().min().unwrap_or(50);
        let capacity = crate::capacity::plan::plan(args, &scenarios, least, oha, &mut skipped)?;
        if args.capacity_only {
            cells.clear();
        }
        if args.post_max_users.is_some_and(|m| !(MIN_MAX_USERS..=MAX_MAX_USERS).contains(&m)) {
            return Err(usage(format!("--post-max-users: expected {MIN_MAX_USERS} to {MAX_MAX_USERS}")));
        }
        let open_loop_fractions: Vec<f64> =
            args.open_loop_rates.iter().flatten().copied().filter(|&f| f > 0.0).collect();
        if open_loop_fractions.iter().any(|f| !f.is_finite() || *f > 2.0) {
            return Err(usage("--open-loop-rates: fractions must be between 0 and 2 (e.g. 0.5,0.8)"));
        }
        let mut settings = settings(args, defaults, pinning, connections, open_loop_fractions);
        settings.tool = args.tool.or(method.map(|m| m.tool)).unwrap_or(Tool::Wrk);
        (settings.baseline, settings.argv) = (baseline, facts.argv.clone());
        if args.capacity_only {
            (settings.memory_repeats, settings.warmup_probe_s) = (0, 0);
        }
        // The probe costs half a minute a subject: by default it runs only where a JIT makes the warm-up long (a
        // JVM planned), and then on every subject, so that its finding compares them.
        if args.warmup_probe.is_none() && !subjects::any_warms_up_slowly(&subjects) {
            settings.warmup_probe_s = 0;
        }
        let start_timeout_s = args.start_timeout.unwrap_or_else(|| subjects::start_timeout_s(&subjects));
        Ok(Plan {
            settings,
            subjects,
            scenarios,
            cells,
            open_loop_tool: [Tool::Oha, Tool::Autocannon].into_iter().find(|t| facts.installed.contains(t)),
            capacity_target: subjects::capacity_target(programs, server_n),
            calibration_s: defaults.calibration_s,
            level: args.level,
            start_timeout_s,
            out: args.out.clone(),
            server_host: facts.server.as_ref().map_or(Host::Local, |s| s.host.clone()),
            skipped,
            capacity,
            node: programs.node.clone(),
            profile: args.profile,
        })
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
        self.level.unwrap_or(match spec.origin {
            Origin::Builtin { .. } => contract::Level::Full,
            Origin::Custom { .. } | Origin::External { .. } => contract::Level::Api,
        })
    }

    /// Which of the level's cases a subject is asked: a service of the user's in a run that loads only GET is asked
    /// the GET and HEAD cases alone, since nothing in the run will POST to it; the built-in servers implement the
    /// whole contract and are asked all of it.
    pub fn scope_for(&self, spec: &SubjectSpec) -> crate::schema::CaseScope {
        let only_get = self.scenarios.iter().all(Scenario::is_get);
        match spec.origin {
            Origin::Custom { .. } | Origin::External { .. } if only_get => crate::schema::CaseScope::Reads,
            _ => crate::schema::CaseScope::Every,
        }
    }

    /// How a subject is started: on the server CPUs when pinning, with this store size.
    pub fn start_options(&self, max_users: Option<u64>) -> StartOptions<'_> {
        StartOptions {
            header_timeout_ms: None,
            max_users,
            cpus: self.settings.pinned.then_some(self.settings.server_cpus.as_slice()),
            timeout: std::time::Duration::from_secs(self.start_timeout_s),
            host: &self.server_host,
            keep_output: None,
        }
    }

    /// How many CPUs the load generator could use, the denominator of its CPU percentage.
    pub fn loader_cpu_count(&self, tool: &dyn crate::tools::LoadTool) -> f64 {
        if self.settings.pinned {
            self.settings.loader_cpus.len() as f64
        } else if tool.kind() == Tool::Autocannon {
            1.0 // One Node process: one core is all it can use.
        } else {
            f64::from(self.settings.loader_threads)
        }
    }

    /// A tool's CPU time over its wall time, as a percentage of the CPUs it could use.
    pub fn loader_cpu_percent(&self, tool: &dyn crate::tools::LoadTool, cpu_us: f64, wall_s: f64) -> f64 {
        if wall_s > 0.0 { cpu_us / 1e6 / wall_s / self.loader_cpu_count(tool) * 100.0 } else { 0.0 }
    }

    /// The built-in `get` scenario, when the plan has it: the open-loop phase runs on it.
    pub fn open_loop_scenario(&self) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.builtin == Some(BuiltinScenario::Get))
    }

    /// The GET scenario of the memory phase: the plan's `get`, else its first GET scenario, else the built-in `get`.
    pub fn memory_scenario(&self) -> Scenario {
        self.open_loop_scenario()
            .or_else(|| self.scenarios.iter().find(|s| s.is_get()))
            .cloned()
            .unwrap_or_else(|| Scenario::builtin(BuiltinScenario::Get))
    }

    /// What the warm-up probe loads: the first GET scenario of the plan (else its first scenario) at the first
    /// connection count, on every subject of that cell the harness starts itself (a running service has no fresh
    /// process to probe). `None` when the probe is off or nothing is left to probe.
    pub fn warmup_probe(&self) -> Option<WarmupProbePlan<'_>> {
        let connections = *self.settings.connections.first()?;
        let at = |c: &&Cell| c.connections == connections;
        let cell = (self.cells.iter().filter(at).find(|c| self.scenarios[c.scenario].is_get()))
            .or_else(|| self.cells.iter().find(at))
            .filter(|_| self.settings.warmup_probe_s > 0)?;
        let subjects: Vec<&SubjectSpec> =
            cell.subjects.iter().map(|&i| &self.subjects[i]).filter(|s| s.started_by_harness()).collect();
        let scenario = &self.scenarios[cell.scenario];
        (!subjects.is_empty()).then_some(WarmupProbePlan { scenario, connections, subjects })
    }

    /// The CPUs a load tool is pinned to, when pinning.
    pub fn loader_pin(&self) -> Option<&[usize]> {
        self.settings.pinned.then_some(self.settings.loader_cpus.as_slice())
    }

    /// `--post-max-users`: the store of the servers in runs that write, when given; otherwise preflight sizes it.
    pub fn post_max_users(&self) -> Option<u64> {
        self.settings.post_max_users
    }
}

/// The command line with a preset's method filled in wherever it left a setting open, and that method (whose
/// subjects and scenarios the plan takes when the command line names none). Run lengths and memory repeats are left
/// alone under `--quick`, so that `--preset NAME --quick` is still a quick run of that method.
fn with_preset(args: &RunArgs) -> (RunArgs, Option<StudyMethod>) {
    let mut args = args.clone();
    let method = args.preset.and_then(|p| p.method());
    if let Some(m) = method {
        args.tool.get_or_insert(m.tool);
        args.connections.get_or_insert_with(|| m.connections.to_vec());
        args.memory_connections.get_or_insert(m.memory_connections);
        if !args.quick {
            args.duration.get_or_insert(m.duration_s);
            args.memory_repeats.get_or_insert(m.memory_repeats);
        }
        // The article's load tool shared the machine with the servers; the user may still pin with --server-cpus.
        if m.unpinned && args.server_cpus.is_none() && args.loader_cpus.is_none() {
            args.no_pin = true;
        }
    }
    (args, method)
}

/// A subject's or scenario's own name: letters, digits, '-' or '_', so that it is safe in file names and reports.
fn check_name(flag: &str, name: &str) -> Result<()> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(usage(format!("{flag}: name {name:?} must be letters, digits, '-' or '_'")));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::plan::names::Preset;

    #[derive(clap::Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: RunArgs,
    }

    /// The made-up path of a built-in server's program: the file name of where it is by default.
    pub(crate) fn program_of(id: crate::subjects::builtins::ServerId) -> std::path::PathBuf {
        use crate::subjects::builtins::{Location, SERVERS};
        let server = SERVERS.iter().find(|s| s.id == id).expect("every server has a row");
        let (Location::Profile(path) | Location::Target(path) | Location::Project(path)) = server.location;
        std::path::Path::new(path).file_name().expect("a file").into()
    }

    /// Made-up facts: a machine with these CPUs, every load tool installed and every program present.
    pub(crate) fn facts(cpus: &[usize]) -> Facts {
        Facts {
            cpus: cpus.to_vec(),
            server: None,
            installed: Tool::ALL.to_vec(),
            programs: Programs {
                paths: crate::subjects::builtins::SERVERS.iter().map(|s| (s.id, program_of(s.id))).collect(),
                java: "java".into(),
                java_found: true,
                ..Programs::default()
            },
            bodies: BTreeMap::new(),
            addresses: BTreeMap::from([("http://127.0.0.1:8000/".into(), Ok("127.0.0.1:8000".parse().unwrap()))]),
            argv: vec!["fairpair".into(), "run".into()],
        }
    }

    pub(crate) fn args(words: &[&str]) -> RunArgs {
        use clap::Parser;
        Wrapper::try_parse_from([&["fairpair"], words].concat()).unwrap().args
    }

    /// A plan from command-line words on a made-up machine with two CPUs.
    pub(crate) fn plan(words: &[&str]) -> Result<Plan> {
        plan_on(&[0, 1], words)
    }

    /// The same, on a machine whose allowed CPUs are `allowed`.
    pub(crate) fn plan_on(allowed: &[usize], words: &[&str]) -> Result<Plan> {
        Plan::new(&args(words), &facts(allowed))
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
        // The capacity search: rust and node on GET and POST, and the loader's limit; no fixed-fraction runs.
        assert_eq!(p.capacity.as_ref().unwrap().searches(&p).len(), 4);
        assert!(p.estimate().capacity > 0.0 && p.open_loop_runs() == 0);
        // 21 min 37 s: the capacity phase's five searches at their cap of 11 windows take 7 min 20 s of it; no
        // warm-up probe, since no JVM is planned.
        assert!(p.estimate_total() < 22.0 * 60.0, "{}", p.estimate_total());
    }

    #[test]
    fn quick_is_short() {
        let p = plan(&["--quick", "--server-cpus", "0", "--loader-cpus", "1"]).unwrap();
        assert_eq!(
            (p.settings.duration_s, p.settings.warmup_s, p.settings.repeats, p.settings.memory_repeats),
            (2, 1, 1, 1)
        );
        assert_eq!(p.capacity.as_ref().unwrap().searches(&p).len(), 2, "GET only");
        assert!(p.estimate().capacity > 0.0);
        // 2 min 46 s: the two searches at their cap of 14 windows take 77 s of it.
        assert!(p.estimate_total() < 180.0, "{}", p.estimate_total());
        // Explicit values win over --quick.
        assert_eq!(plan(&["--quick", "--duration", "7"]).unwrap().settings.duration_s, 7);
        // A search-only run that --quick leaves with nothing to search is refused, not run empty.
        let empty = plan(&["--capacity-only", "--quick", "--scenarios", "post"]).unwrap_err();
        assert!(
            empty.downcast_ref::<crate::UsageError>().is_some() && empty.to_string().contains("GET only"),
            "{empty}"
        );
    }

    #[test]
    fn the_open_loop_tool_is_chosen_from_what_is_installed() {
        let mut f = facts(&[0, 1]);
        assert_eq!(Plan::new(&args(&[]), &f).unwrap().open_loop_tool, Some(Tool::Oha));
        f.installed = vec![Tool::Wrk, Tool::Autocannon];
        assert_eq!(Plan::new(&args(&[]), &f).unwrap().open_loop_tool, Some(Tool::Autocannon));
        f.installed = vec![Tool::Wrk];
        assert_eq!(Plan::new(&args(&[]), &f).unwrap().open_loop_tool, None);
    }

    #[test]
    fn a_preset_fills_in_what_the_command_line_left_open() {
        let p = plan(&["--preset", "article"]).unwrap();
        assert_eq!((p.settings.tool, p.settings.preset), (Tool::Autocannon, Some(Preset::Article)));
        let names: Vec<&str> = p.subjects.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["node", "go", "rust"]);
        assert_eq!(p.settings.connections, [50, 300]);
        assert_eq!((p.settings.duration_s, p.settings.memory_repeats, p.settings.pinned), (15, 3, false));
        let p = plan(&["--preset", "wrk"]).unwrap();
        let scenarios: Vec<_> = p.scenarios.iter().map(|s| s.builtin).collect();
        assert_eq!(scenarios, [Some(BuiltinScenario::Hello)]);
        let p = plan(&["--preset", "bombardier"]).unwrap();
        let names: Vec<&str> = p.subjects.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["node", "java"], "the study's two servers");
        assert_eq!(p.settings.memory_connections, 200, "its memory figures were at 200 connections");
        assert_eq!(plan(&["--preset", "article"]).unwrap().settings.memory_connections, 300);
    }

    #[test]
    fn the_bombardier_preset_without_java_is_refused_in_one_line() {
        let mut f = facts(&[0, 1]);
        f.programs.java_found = false;
        let e = Plan::new(&args(&["--preset", "bombardier"]), &f).unwrap_err().to_string();
        assert!(e.starts_with("java not found: java (install a JDK 17") && !e.contains('\n'), "{e}");
        let mut f = facts(&[0, 1]);
        f.programs.missing = vec![program_of(crate::subjects::builtins::ServerId::Java)];
        let e = Plan::new(&args(&["--preset", "bombardier"]), &f).unwrap_err().to_string();
        assert!(e.contains("not found at users-server-java.jar (") && !e.contains('\n'), "{e}");
        // Without java on the command line, the study's other half still runs.
        assert!(Plan::new(&args(&["--preset", "bombardier", "--subjects", "node"]), &f).is_ok());
    }

    #[test]
    fn the_command_line_wins_over_a_preset() {
        let p = plan(&[
            "--preset",
            "article",
            "--tool",
            "wrk",
            "--subjects",
            "node",
            "--duration",
            "5",
            "--server-cpus",
            "0",
        ])
        .unwrap();
        assert_eq!(p.settings.tool, Tool::Wrk);
        assert_eq!(p.subjects.len(), 1);
        assert_eq!(p.settings.duration_s, 5);
        assert!(p.settings.pinned, "given CPUs mean pinned");
        let quick = plan(&["--preset", "wrk", "--quick"]).unwrap();
        assert_eq!(
            (quick.settings.duration_s, quick.settings.memory_repeats),
            (2, 1),
            "--quick keeps its own short runs"
        );
        assert_eq!(quick.settings.connections, [1000]);
    }

    #[test]
    fn on_two_hosts_the_server_hosts_facts_decide() {
        let mut f = facts(&[0, 1]);
        let host = Host::Ssh(crate::machine::host::SshHost::new("bench@server", "/srv/fairpair", None));
        f.server = Some(ServerSide { host, cpus: vec![0, 1, 2, 3] });
        let p = Plan::new(&args(&[]), &f).unwrap();
        assert_eq!((p.settings.server_cpus.len(), p.settings.loader_cpus.len(), p.settings.pinned), (4, 2, true));
        let multi = p.subjects.iter().find(|s| s.name == "rust-multi").unwrap();
        assert_eq!(multi.workers, Some(4), "one worker per CPU of the server host");
        assert!(!p.server_host.is_local());
        assert_eq!(p.capacity_target.unwrap().workers, Some(4));
    }
}
