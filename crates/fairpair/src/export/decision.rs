//! The decision figures in the exports (`report --export … --traffic …`): cores, memory across the replicas,
//! CPU-hours and cost per subject and scenario, each marked with the flags it depends on. They are added only when
//! a decision flag is given, so an export without them is what it was; they are no [`super::Figure`], since a
//! comparison of two runs compares what was measured, not what a team's traffic makes of it.

use serde_json::{Map, Value, json};

use crate::decision::{Inputs, Span, rows};
use crate::schema::Benchmark;

/// One decision figure: `(subject, scenario, slug, unit, span)`.
type Row = (String, String, &'static str, &'static str, Span);

fn figures(b: &Benchmark, inputs: &Inputs) -> Vec<Row> {
    let mut out = Vec::new();
    for r in rows(b, inputs) {
        for s in &r.sizings {
            let mut push = |slug, unit, span| out.push((r.subject.clone(), s.scenario.clone(), slug, unit, span));
            if let Ok(cores) = s.cores {
                push("decision-cores", "cores", cores);
            }
            if let Some(m) = r.memory {
                push("decision-memory", "GiB", Span::Between(m.total_gib, m.total_gib));
            }
            if let Some(h) = s.cpu_hours {
                push("decision-cpu-hours", "CPU-hours/month", Span::Between(h, h));
            }
            if let Some(c) = s.cost {
                push("decision-cost", "price/month", c);
            }
        }
    }
    out
}

/// CSV rows in the export's columns, then `depends_on` (the flags), which only these rows fill: `median` is a
/// range's high end, `min` empty for an upper bound.
pub fn csv_rows(b: &Benchmark, inputs: &Inputs, line: impl Fn(Vec<String>) -> String) -> String {
    let mut out = String::new();
    for (subject, scenario, slug, unit, span) in figures(b, inputs) {
        let reading = match span {
            Span::Between(l, h) if l == h => "value",
            Span::Between(..) => "range",
            Span::AtMost(_) => "upper bound",
        };
        let low = span.low().map_or(String::new(), |l| l.to_string());
        let high = span.high().to_string();
        let mut fields = vec![subject, scenario, String::new(), slug.into(), unit.into(), high.clone(), low, high];
        fields.extend([String::new(), reading.into()]);
        fields.extend(std::iter::repeat_n(String::new(), 5));
        fields.push(inputs.words());
        out += &line(fields);
    }
    out
}

/// The BMF benchmarks `SUBJECT/SCENARIO/decision (FLAGS)`: the flags in the name, since a BMF value holds numbers.
pub fn bmf_benchmarks(b: &Benchmark, inputs: &Inputs, into: &mut Map<String, Value>) {
    for (subject, scenario, slug, _, span) in figures(b, inputs) {
        let name = format!("{subject}/{scenario}/decision ({})", inputs.words());
        let value =
            json!({ "value": span.high(), "lower_value": span.low().unwrap_or(0.0), "upper_value": span.high() });
        let measures = into.entry(name).or_insert_with(|| Value::Object(Map::new()));
        measures.as_object_mut().expect("an object, inserted above").insert(slug.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Format, export, export_with};
    use crate::decision::Inputs;
    use crate::schema::Benchmark;

    /// The capacity fixture, its steps taken as begun on an idle machine so that its capacities are sized.
    fn sized() -> Benchmark {
        let text = include_str!("../../tests/fixtures/capacity/benchmark.json");
        let mut b = crate::schema::read(text, crate::analyse::summarise::summarise).unwrap();
        let searches = b.capacity.iter_mut().flat_map(|c| c.searches.iter_mut().chain(c.loader_limit.as_mut()));
        searches.flat_map(|s| s.steps.iter_mut()).for_each(|st| st.result.machine_idle = true);
        b
    }

    #[test]
    fn the_decision_figures_are_exported_with_the_flags_they_depend_on() {
        let b = sized();
        let inputs = Inputs { traffic_rps: Some(20_000.0), core_price: Some(0.04), ..Default::default() };
        let csv = export_with(&b, Format::Csv, &inputs);
        let header = csv.lines().next().unwrap();
        assert!(header.ends_with(",bracket_low,bracket_high,depends_on"), "{header}");
        let words = "--traffic 20000 --replicas 1 (assumed) --io-wait 0ms (assumed) --core-price 0.04";
        // rust post: 1,385–1,442/s a core, 14 to 15 cores for 20,000/s, a range (its high end the median).
        let row = format!("rust,post,,decision-cores,cores,15,14,15,,range,,,,,,{words}");
        assert!(csv.lines().any(|l| l == row), "{csv}");
        assert!(csv.lines().any(|l| l.starts_with("node,post,,decision-cost,price/month,")), "{csv}");
        let bmf: serde_json::Value = serde_json::from_str(&export_with(&b, Format::Bmf, &inputs)).unwrap();
        let cores = &bmf[format!("rust/post/decision ({words})")]["decision-cores"];
        assert_eq!((cores["lower_value"].as_f64(), cores["upper_value"].as_f64()), (Some(14.0), Some(15.0)));
        // No flag given: the exports are what they were.
        for format in [Format::Csv, Format::Bmf] {
            assert_eq!(export_with(&b, format, &Inputs::default()), export(&b, format));
        }
    }
}
