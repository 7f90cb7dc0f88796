//! The CSV export: a header row, then one row per figure, quoted as RFC 4180 says (a field with a comma, a quote or
//! a line break in double quotes, its quotes doubled), so that Python's `csv` module or a spreadsheet reads it as is.

use super::Figure;

/// The columns, in order. Each column added later came last (`bound_reason`, then the capacity's bracket), so that
/// a reader of the earlier columns by position still reads them.
const HEADER: [&str; 15] = [
    "subject",
    "scenario",
    "connections",
    "figure",
    "unit",
    "median",
    "min",
    "max",
    "repeats",
    "bound_or_value",
    "flags",
    "verified",
    "bound_reason",
    // A capacity's bracket: the highest rate decided met (the figure itself) and the lowest above it decided missed
    // (empty when none was); both empty for every other figure.
    "bracket_low",
    "bracket_high",
];

pub fn write(figures: &[Figure]) -> String {
    write_with(figures, |_| String::new())
}

/// The CSV with more rows after the figures' (`more`, given the quoting line writer): the decision figures, which
/// add a last column, `depends_on`, that only they fill.
pub fn write_with(figures: &[Figure], more: impl Fn(&dyn Fn(Vec<String>) -> String) -> String) -> String {
    let writer = |fields: Vec<String>| {
        let quoted: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        quoted.join(",") + "\r\n"
    };
    let extra = more(&writer);
    let mut header: Vec<String> = HEADER.map(String::from).to_vec();
    if !extra.is_empty() {
        header.push("depends_on".into());
    }
    let mut out = writer(header);
    for f in figures {
        let (scenario, connections) = match &f.cell {
            Some((scenario, conns)) => (scenario.clone(), conns.to_string()),
            // The memory phase's figures belong to no cell: its own load, once per subject.
            None => ("memory".to_string(), String::new()),
        };
        let flags: Vec<&str> = f.flags.iter().map(|k| k.as_str()).collect();
        out += &line([
            f.subject.clone(),
            scenario,
            connections,
            f.metric.slug().to_string(),
            f.metric.unit().to_string(),
            // Rust's shortest text that reads back as the same number: no figure is rounded on the way out.
            f.stat.median.to_string(),
            f.stat.min.to_string(),
            f.stat.max.to_string(),
            f.stat.n.to_string(),
            f.reading().to_string(),
            flags.join(" "),
            f.verified.to_string(),
            f.bound_reason().to_string(),
            f.bracket.map_or(String::new(), |b| b.low.to_string()),
            f.bracket.and_then(|b| b.high).map_or(String::new(), |h| h.to_string()),
        ]);
    }
    out + &extra
}

fn line<const N: usize>(fields: [String; N]) -> String {
    let quoted: Vec<String> = fields.iter().map(|f| quote(f)).collect();
    quoted.join(",") + "\r\n"
}

fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        assert_eq!(quote("rust"), "rust");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
        assert_eq!(line(["x".to_string(), "y z".to_string()]), "x,y z\r\n");
    }
}
