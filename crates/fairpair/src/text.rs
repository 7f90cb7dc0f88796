//! Text: how numbers, durations and lists of files are written, the same in every stage's output (the console, the
//! report, the comparison).

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

/// Files as a closing line lists them: `results/benchmark.json, results/report.md and results/report.html`. Every
/// command that writes files ends with one such line on stderr, so each lists them the same way.
pub fn path_list(files: &[std::path::PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    match names.as_slice() {
        [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
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

/// A recorded command or program path as a report shows it: a path inside the checkout it ran in is written from
/// the checkout (`target/release/users-server`, not `/home/me/fairpair/target/release/users-server`), and another
/// path under a home or a work folder by its file name (`…/users-server-go`). `benchmark.json` keeps what was run;
/// the report, which is committed and read elsewhere, names no folder of the machine it ran on.
pub fn portable_command(command: &str) -> String {
    command.split(' ').map(portable_word).collect::<Vec<_>>().join(" ")
}

/// Folders a checkout of this repository has at its top, that a recorded path goes through.
const CHECKOUT_FOLDERS: [&str; 5] = ["/target/", "/servers-node/", "/servers-go/", "/servers-java/", "/tools/"];
/// Where homes and work folders are: a path under them names someone's machine.
const PERSONAL_ROOTS: [&str; 4] = ["/root/", "/home/", "/work/", "/Users/"];

fn portable_word(word: &str) -> String {
    // A path may follow a quote and a `NAME=` (a `--subject 'name=/path/to/program …'` of a recorded command line).
    let Some(start) = word.find('/') else { return word.to_owned() };
    let (lead, path) = word.split_at(start);
    let lead_ok = lead
        .trim_start_matches(['\'', '"'])
        .strip_suffix('=')
        .is_none_or(|name| !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_'));
    if !lead_ok || !(lead.is_empty() || lead.ends_with(['=', '\'', '"'])) {
        return word.to_owned();
    }
    let portable = match CHECKOUT_FOLDERS.iter().filter_map(|f| path.find(f)).min() {
        Some(at) => path[at + 1..].replace("release/../", "").replace("debug/../", ""),
        None if PERSONAL_ROOTS.iter().any(|r| path.starts_with(r)) => {
            format!("…/{}", path.rsplit('/').next().unwrap_or(path))
        }
        None => return word.to_owned(),
    };
    format!("{lead}{portable}")
}

#[cfg(test)]
mod portable_tests {
    use super::portable_command;

    #[test]
    fn a_checkouts_paths_are_written_from_the_checkout_and_a_homes_by_file_name() {
        let c = "/work/x/target/release/users-server --host 127.0.0.1 --port '{port}'";
        assert_eq!(portable_command(c), "target/release/users-server --host 127.0.0.1 --port '{port}'");
        let j = "java -jar /home/me/f/target/release/../java/users-server-java.jar --workers 1";
        assert_eq!(portable_command(j), "java -jar target/java/users-server-java.jar --workers 1");
        assert_eq!(portable_command("/work/go119/users-server-go --port 1"), "…/users-server-go --port 1");
        assert_eq!(portable_command("/usr/bin/wrk -t1 /tmp/get.lua"), "/usr/bin/wrk -t1 /tmp/get.lua");
        assert_eq!(portable_command("node servers-node/server.js"), "node servers-node/server.js");
        let s = "--subject 'go119=/work/go119/users-server-go --port {port}'";
        assert_eq!(portable_command(s), "--subject 'go119=…/users-server-go --port {port}'");
        assert_eq!(portable_command("a/b=/work/x"), "a/b=/work/x");
    }
}
