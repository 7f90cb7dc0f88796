//! Which runs the profile phase makes (`--profile`): one per subject that fairpair starts and scenario it is
//! measured on, at the lowest connection count it is measured at there (the plan's first level, 50 by default),
//! so that each profile sits beside a measured median of the same load.

use super::{Plan, Scenario};
use crate::subjects::process::SubjectSpec;

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

#[cfg(test)]
mod tests {
    use super::super::tests::plan;

    #[test]
    fn one_run_per_subject_and_scenario_at_the_lowest_connections_and_only_with_the_flag() {
        let words = ["--subjects", "rust,node", "--subject", "up=http://127.0.0.1:8000/", "--connections", "300,50"];
        assert!(plan(&words).unwrap().profiled_runs().is_empty(), "off by default");
        let p = plan(&[&words[..], &["--profile"]].concat()).unwrap();
        let runs: Vec<String> = p
            .profiled_runs()
            .iter()
            .map(|r| format!("{} {} {}", r.subject.name, r.scenario.name, r.connections))
            .collect();
        assert_eq!(runs, ["rust get 50", "node get 50", "rust post 50", "node post 50"], "no run of the URL subject");
        let e = p.estimate();
        assert!(e.profile > 0.0 && e.total() > plan(&words).unwrap().estimate().total());
        assert_eq!(e.profile, 4.0 * e.per_run.profile);
    }
}
