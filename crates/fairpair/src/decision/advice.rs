//! The decision's one sentence: which change the figures support (nothing, a targeted move of the heaviest
//! endpoint, a rewrite, clustering first), or that they cannot support one. [`advise`] is the rule, a small pure
//! function over [`Facts`]; [`facts`] reads them from the decision rows, [`sentence`] words the answer.

use super::{Inputs, Row, Span, difference_share_percent};
use crate::plan::names::BuiltinSubject;
use crate::schema::Benchmark;
use crate::text::thousands;

/// A rewrite (or a move) is worth it only if it saves at least this share of the current service's cores on a
/// scenario, at the least the bounds allow: a rewrite costs months of work, and a saving under a quarter is within
/// what tuning the current service, or clustering it, usually reaches.
pub const WORTH_SAVING: f64 = 0.25;
/// A faster server is worth it for its latency alone only if the server time it saves is at least this share of
/// what a user waits (server time plus I/O wait): below it, users would not notice it beside the I/O.
pub const NOTICEABLE_WAIT_PERCENT: f64 = 5.0;

/// One scenario's comparison: the current service (the subject that needs the most cores) against the candidate
/// (the one that needs the fewest).
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    pub scenario: String,
    pub current: String,
    pub candidate: String,
    pub current_cores: Span,
    pub candidate_cores: Span,
    /// The server time the candidate saves, as a percentage of what a user of the current service waits.
    pub wait_saved_percent: Option<f64>,
}

/// Whether Node was given `cluster` before a rewrite is weighed against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cluster {
    /// The current service is not single-process Node: nothing to cluster first.
    NotNode,
    /// `node-cluster` was measured.
    Measured,
    /// One server CPU: a cluster has nothing to spread over.
    NeedsMoreCpus,
    /// The machine had the CPUs, and the run did not measure it.
    NotMeasured,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    pub compared: Vec<Compared>,
    pub cluster: Cluster,
    /// Why no scenario could be compared, in the section's words (no capacity search, a busy machine…), when
    /// none could.
    pub why_none: Option<String>,
}

/// What the figures support.
#[derive(Clone, Debug, PartialEq)]
pub enum Advice {
    /// No scenario saves enough to be worth a change.
    Nothing,
    /// One scenario, the heaviest of those worth it, saves enough and the others do not: move that endpoint alone.
    TargetedMove { scenario: String },
    /// Every scenario saves enough.
    Rewrite,
    /// A saving worth having, against a single-process Node that was not clustered: cluster it first.
    ClusterFirst,
    /// The figures cannot tell, and why.
    CannotSay(String),
}

/// The least share of the current cores the candidate saves that the bounds allow (negative: it may need more),
/// or `None` when they allow no lower end (the current service's cores are themselves an upper bound).
pub fn least_saving(current: Span, candidate: Span) -> Option<f64> {
    Some(1.0 - candidate.high() / current.low()?)
}

/// Whether a comparison saves enough, in cores or in a user's wait, to be worth a change.
fn worth(c: &Compared) -> bool {
    least_saving(c.current_cores, c.candidate_cores).is_some_and(|s| s >= WORTH_SAVING)
        || c.wait_saved_percent.is_some_and(|w| w >= NOTICEABLE_WAIT_PERCENT)
}

/// The rule. No comparison: cannot say. None worth it: nothing, unless a bound hides the saving (cannot say). Worth
/// it against a Node not clustered: cluster first. Worth it on every scenario: a rewrite; on some: a targeted move
/// of the heaviest of them (the most cores now).
pub fn advise(f: &Facts) -> Advice {
    if f.compared.is_empty() {
        let why = f.why_none.as_deref().unwrap_or("no scenario has the cores of two subjects to compare");
        return Advice::CannotSay(why.into());
    }
    let worth: Vec<&Compared> = f.compared.iter().filter(|c| worth(c)).collect();
    if worth.is_empty() {
        let hidden = f.compared.iter().any(|c| least_saving(c.current_cores, c.candidate_cores).is_none());
        return match hidden {
            true => Advice::CannotSay("the current service's cores are an upper bound, so no saving is told".into()),
            false => Advice::Nothing,
        };
    }
    if matches!(f.cluster, Cluster::NotMeasured | Cluster::NeedsMoreCpus) {
        return Advice::ClusterFirst;
    }
    if worth.len() == f.compared.len() {
        return Advice::Rewrite;
    }
    let heaviest = worth.iter().max_by(|a, b| a.current_cores.high().total_cmp(&b.current_cores.high()));
    Advice::TargetedMove { scenario: heaviest.map_or(String::new(), |c| c.scenario.clone()) }
}

/// The facts of a run's decision rows: per scenario with at least two subjects sized, the one needing the most
/// cores (at their highest) against the one needing the fewest.
pub fn facts(b: &Benchmark, rows: &[Row], inputs: &Inputs) -> Facts {
    let mut compared = Vec::new();
    let scenarios = rows.first().map_or(vec![], |r| r.sizings.iter().map(|s| s.scenario.clone()).collect());
    for scenario in scenarios {
        let mut sized: Vec<(&Row, &super::Sizing, Span)> = rows
            .iter()
            .filter_map(|r| {
                let s = r.sizings.iter().find(|s| s.scenario == scenario)?;
                Some((r, s, *s.cores.as_ref().ok()?))
            })
            .collect();
        sized.sort_by(|a, b| a.2.high().total_cmp(&b.2.high()));
        let (Some(candidate), Some(current)) = (sized.first(), sized.last()) else { continue };
        if sized.len() < 2 {
            continue;
        }
        let wait_saved_percent = match (current.1.p50, candidate.1.p50) {
            (Some((cur, _)), Some((cand, _))) => Some(-difference_share_percent(cand, cur, inputs.io_wait_ms())),
            _ => None,
        };
        compared.push(Compared {
            scenario,
            current: current.0.subject.clone(),
            candidate: candidate.0.subject.clone(),
            current_cores: current.2,
            candidate_cores: candidate.2,
            wait_saved_percent,
        });
    }
    let current_is_node = compared.iter().any(|c| BuiltinSubject::from_name(&c.current) == Some(BuiltinSubject::Node));
    let measured = |subject: BuiltinSubject| crate::report::measured(b, subject.name());
    let cluster = match () {
        _ if !current_is_node => Cluster::NotNode,
        _ if measured(BuiltinSubject::NodeCluster) => Cluster::Measured,
        _ if b.settings.server_cpus.len() < 2 => Cluster::NeedsMoreCpus,
        _ => Cluster::NotMeasured,
    };
    // The first reason a subject's cores were not sized, said once: every row of a run without a search has it.
    let why_none =
        compared.is_empty().then(|| rows.iter().flat_map(|r| &r.sizings).find_map(|s| s.cores.clone().err()));
    Facts { compared, cluster, why_none: why_none.flatten() }
}

/// `get: 15–16 cores with node against at most 4 with rust`: the figures a sentence rests on.
fn rests_on(f: &Facts) -> String {
    let cores = |s: Span| s.text(thousands, "cores");
    let each: Vec<String> = f
        .compared
        .iter()
        .map(|c| {
            // Negative: the candidate's server time is longer, which the sentence says as such, not as a saving.
            let wait = c.wait_saved_percent.map_or(String::new(), |w| match w >= 0.0 {
                true => format!(", {w:.1} % of a user's wait saved"),
                false => format!(", {:.1} % more of a user's wait", -w),
            });
            let (cur, cand) = (cores(c.current_cores), cores(c.candidate_cores));
            format!("{}: {cur} with {} against {cand} with {}{wait}", c.scenario, c.current, c.candidate)
        })
        .collect();
    each.join("; ")
}

/// The sentence: the advice, the figures it rests on, and the bounds that limit it.
pub fn sentence(f: &Facts, traffic: f64) -> String {
    let at = format!("at {}/s", thousands(traffic));
    let bounds = "cores scale linearly with the traffic only as far as this machine's one-core capacities show, and \
                  a bound (`at most`) limits the saving to what it allows";
    match advise(f) {
        Advice::CannotSay(why) => format!("The figures cannot support a change; {why}."),
        Advice::Nothing => format!(
            "The figures support no change: {} (less than {:.0} % of the cores saved, and under \
             {NOTICEABLE_WAIT_PERCENT:.0} % of a user's wait, {at}); {bounds}.",
            rests_on(f),
            WORTH_SAVING * 100.0
        ),
        Advice::ClusterFirst => format!(
            "The figures support clustering Node first: {} {at}, but single-process Node is no fair current \
             service while `node-cluster` is not measured{}; {bounds}.",
            rests_on(f),
            if f.cluster == Cluster::NeedsMoreCpus { " (it needs a machine with more server CPUs)" } else { "" }
        ),
        Advice::TargetedMove { scenario } => format!(
            "The figures support a targeted move of the heaviest endpoint, {scenario}, not a rewrite: {} {at}; \
             {bounds}.",
            rests_on(f)
        ),
        Advice::Rewrite => format!("The figures support a rewrite: {} {at}; {bounds}.", rests_on(f)),
    }
}
