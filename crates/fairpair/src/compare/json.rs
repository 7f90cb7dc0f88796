//! `report --compare OLD NEW --format json`: every figure of the comparison for a script to read — both medians
//! with their ranges, the ratio, the verdict against the noise, and what the regression gate made of it — and each
//! subject's ratio to the baseline within each file, as the Markdown shows them.

use serde_json::{Value, json};

use super::gate;
use crate::analyse::stats::Stat;
use crate::compare::{self, Change};
use crate::schema::Benchmark;

/// The comparison as pretty-printed JSON; `threshold` is the gate's (a fraction), so `gate` fields say what
/// `--fail-on-regression` would do with it.
pub fn comparison(old_name: &str, new_name: &str, old: &Benchmark, new: &Benchmark, threshold: f64) -> String {
    let c = &compare::compare(old, new);
    let figures: Vec<Value> = c
        .rows
        .iter()
        .map(|r| {
            let (scenario, connections) = match &r.cell {
                Some((s, n)) => (Value::from(s.as_str()), Value::from(*n)),
                None => (Value::from("memory"), Value::Null),
            };
            json!({
                "subject": r.subject,
                "scenario": scenario,
                "connections": connections,
                "figure": r.metric.slug(),
                "label": r.metric.label(),
                "unit": r.metric.unit(),
                "old": stat(&r.old),
                "new": stat(&r.new),
                "ratio": (r.old.median != 0.0).then(|| r.new.median / r.old.median),
                "higher_is_better": r.metric.higher_is_better(),
                "verdict": change(r.change),
                "bound": r.limit.map(|l| l.as_str()),
                "gate": gate::judge(r, threshold).as_str(),
                "notes": r.notes,
            })
        })
        .collect();
    let value = json!({
        "old": old_name,
        "new": new_name,
        "figures": figures,
        "counts": {
            "compared": c.rows.len(),
            "better": c.count(Change::Better),
            "worse": c.count(Change::Worse),
            "within_noise": c.count(Change::WithinNoise),
            "no_verdict": c.count(Change::NoiseUnknown),
        },
        "gate": { "threshold_percent": threshold * 100.0, "failures": gate::failures(c, threshold).len() },
        "unmatched": c.unmatched,
        "within_each_file": compare::baseline_ratios(old, new).iter().map(|r| json!({
            "subject": r.subject,
            "baseline": r.baseline,
            "scenario": r.scenario,
            "connections": r.connections,
            "figure": r.figure,
            "old": r.old,
            "new": r.new,
        })).collect::<Vec<Value>>(),
    });
    serde_json::to_string_pretty(&value).expect("JSON of strings and numbers") + "\n"
}

fn stat(s: &Stat) -> Value {
    json!({ "median": s.median, "min": s.min, "max": s.max, "repeats": s.n })
}

/// The verdict's name for a script.
pub fn change(c: Change) -> &'static str {
    match c {
        Change::Better => "better",
        Change::Worse => "worse",
        Change::WithinNoise => "within-noise",
        Change::NoiseUnknown => "no-verdict",
    }
}
