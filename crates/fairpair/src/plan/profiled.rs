//! Which runs the profile phase makes (`--profile`): one per subject that fairpair starts and scenario it is
//! measured on, at the lowest connection count it is measured at there (the plan's first level, 50 by default),
//! so that each profile sits beside a measured median of the same load.

use super::{Plan, Scenario};
use crate::subject::SubjectSpec;

/// One profiled run of the plan.
pub struct ProfiledRun<'a> {
    pub subject: &'a SubjectSpec,
    pub scenario: &'a Scenario,
    pub connections: u32,
}

impl Plan {
    /// The profile phase's runs, scenario by scenario in the plan's order; none without `--profile`, on a server
    /// host (perf would have to run there), or for a running service fairpair did not start.
    pub fn profiled_runs(&self) -> Vec<ProfiledRun<'_>> {
        if !self.profile || !self.server_host.is_local() {
            return Vec::new();
        }
        let mut runs: Vec<ProfiledRun> = Vec::new();
        for cell in &self.cells {
            let scenario = &self.scenarios[cell.scenario];
            for &i in &cell.subjects {
                let subject = &self.subjects[i];
                if !subject.started_by_harness() {
                    continue;
                }
                let same = runs.iter_mut().find(|r| r.subject.name == subject.name && r.scenario.name == scenario.name);
                match same {
                    Some(r) => r.connections = r.connections.min(cell.connections),
                    None => runs.push(ProfiledRun { subject, scenario, connections: cell.connections }),
                }
            }
        }
        runs
    }
}
