//! The Bencher Metric Format (<https://bencher.dev/docs/reference/bencher-metric-format>): a JSON object whose keys
//! are benchmark names, each an object whose keys are measure slugs, each `{"value", "lower_value", "upper_value"}`.
//! A benchmark is a subject's cell (`rust/get/50`) or its memory phase (`rust/memory`); the value is the median, the
//! bounds the min and max over the repeats. A capacity is one search, so its three are the capacity: no range is
//! exported that was not measured. Bencher's built-in `latency` is in nanoseconds and `throughput` in
//! operations per second, so every time here is in nanoseconds and memory in bytes: one unit per measure whatever
//! the figure's unit in the report.

use serde_json::{Map, Value, json};

use super::{Figure, Metric};

pub fn write(figures: &[Figure]) -> String {
    write_with(figures, |_| {})
}

/// The BMF with more benchmarks added by `more` after the figures' (the decision figures).
pub fn write_with(figures: &[Figure], more: impl Fn(&mut Map<String, Value>)) -> String {
    let mut benchmarks = Map::new();
    for f in figures {
        let name = match &f.cell {
            Some((scenario, conns)) => format!("{}/{scenario}/{conns}", f.subject),
            None => format!("{}/memory", f.subject),
        };
        let scale = scale(f.metric);
        let upper = f.bracket.and_then(|b| b.high).unwrap_or(f.stat.max);
        let value = json!({
            "value": f.stat.median * scale,
            "lower_value": f.stat.min * scale,
            "upper_value": upper * scale,
        });
        let measures = benchmarks.entry(name).or_insert_with(|| Value::Object(Map::new()));
        measures.as_object_mut().expect("an object, inserted above").insert(f.metric.slug().into(), value);
    }
    more(&mut benchmarks);
    serde_json::to_string_pretty(&Value::Object(benchmarks)).expect("JSON of numbers") + "\n"
}

/// From the figure's unit to the measure's: ms and µs to ns, MiB to bytes.
pub fn scale(metric: Metric) -> f64 {
    match metric {
        Metric::Throughput | Metric::Capacity => 1.0,
        Metric::P50 | Metric::P99 | Metric::Startup => 1e6,
        Metric::CpuPerRequest => 1e3,
        Metric::IdleRss | Metric::AfterLoadRss => 1024.0 * 1024.0,
    }
}
