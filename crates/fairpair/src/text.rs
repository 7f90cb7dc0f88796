//! Text: how numbers and durations are written, the same in every stage's output (the console, the report, the
//! comparison).

/// Seconds as `N s`, or `M min SS s` from a minute up.
pub fn minutes(s: f64) -> String {
    let s = s.round() as u64;
    if s >= 60 { format!("{} min {:02} s", s / 60, s % 60) } else { format!("{s} s") }
}

/// A number rounded to a whole, with thousands separators: `45,123`.
pub fn thousands(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// A count with its noun, singular for one: `1 run`, `3 runs`, `1 process`, `2 processes`.
pub fn count(n: u64, noun: &str) -> String {
    match (n, noun.ends_with('s')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

/// A figure: thousands separators from 1,000 up, two decimals below (`45,123`, `0.48`).
pub fn number(v: f64) -> String {
    if v.abs() >= 1000.0 { thousands(v) } else { format!("{v:.2}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(45_123.4), "45,123");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(1_000_000.0), "1,000,000");
        assert_eq!(thousands(-1234.0), "-1,234");
    }

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!([count(1, "run"), count(3, "run")], ["1 run", "3 runs"]);
        assert_eq!([count(1, "process"), count(2, "process")], ["1 process", "2 processes"]);
        assert_eq!(count(0, "repeat"), "0 repeats");
    }

    #[test]
    fn minutes_from_a_minute_up() {
        assert_eq!(minutes(59.4), "59 s");
        assert_eq!(minutes(61.0), "1 min 01 s");
        assert_eq!(minutes(600.0), "10 min 00 s");
    }
}
