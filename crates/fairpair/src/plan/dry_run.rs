//! `fairpair run --dry-run`: what a run would do, told from the plan alone, with nothing started. It lives beside
//! the plan because everything it says is the plan's own decision; a setup (the tools found, the cells, the profiled
//! runs) can so be checked in a second rather than discovered minutes into a run.

use super::Plan;
use crate::plan::names::Tool;

impl Plan {
    /// Prints on stderr what `run --dry-run` shows: the plan's announcement, the load tools, every cell and every
    /// profiled run. It runs nothing, so a wrong command line costs no measurement.
    pub fn print_dry_run(&self) {
        let plan = self;
        plan.announce();
        eprintln!("fairpair: load tool: {}", plan.settings.tool);
        for cell in &plan.cells {
            let names: Vec<&str> = cell.subjects.iter().map(|&i| plan.subjects[i].name.as_str()).collect();
            eprintln!(
                "fairpair: cell {} at {} connections: {} × {}",
                plan.scenarios[cell.scenario].name,
                cell.connections,
                names.join(" "),
                plan.settings.repeats
            );
        }
        eprintln!("fairpair: open-loop tool: {}", plan.open_loop_tool_description());
        for run in plan.profiled_runs() {
            eprintln!(
                "fairpair: profile {} {} at {} connections: one run under perf record, apart from every figure",
                run.subject.name, run.scenario.name, run.connections
            );
        }
        if plan.profile && !plan.server_host.is_local() {
            eprintln!("fairpair: profile: none, the servers run on a server host (perf is not run there)");
        }
    }

    /// Which tool the open-loop phase will use, as the plan chose it, in words. The choice depends on what is
    /// installed on this machine, so the dry run says it: a missing oha is then seen before a run, not in its report.
    pub fn open_loop_tool_description(&self) -> &'static str {
        let plan = self;
        match plan.open_loop_tool {
            _ if plan.capacity.is_some() => {
                "oha, for the capacity search (latencies corrected for coordinated omission)"
            }
            _ if plan.settings.open_loop_fractions.is_empty() => {
                "none: no capacity search and no fixed-fraction open-loop runs"
            }
            Some(Tool::Oha) => "oha (latencies corrected for coordinated omission)",
            Some(Tool::Autocannon) => "autocannon (not corrected for coordinated omission; oha is not installed)",
            Some(_) | None => "none: neither oha nor autocannon is installed, so the open-loop phase will be skipped",
        }
    }
}
