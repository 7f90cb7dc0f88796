//! When the runtimes the subjects run on reach their end of life, as data: a figure measured on a release that no
//! longer gets fixes describes software nobody should deploy, so the report's summary says so (using the run's date,
//! not today's, so that an old report reads the same tomorrow).
//!
//! Node: each even-numbered release is supported for 30 months after its first LTS release, until April 30 of its
//! fourth year. Go: each release is supported until two newer major releases exist, so a release's end of life is
//! the day the second release after it came out; the newest two have none yet. A release missing here is not
//! judged. Add a row when a release comes out.

/// A runtime the report names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Node,
    Go,
}

impl Runtime {
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Node => "node",
            Runtime::Go => "go",
        }
    }
}

/// One release line of a runtime and the day its support ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    pub runtime: Runtime,
    /// The release line as its versions begin: `20` for Node (v20.20.2), `1.24` for Go (go1.24.5).
    pub line: &'static str,
    /// The last day of support, `YYYY-MM-DD`; `None` while it is supported and no end is set.
    pub end_of_life: Option<&'static str>,
}

const fn release(runtime: Runtime, line: &'static str, end_of_life: Option<&'static str>) -> Release {
    Release { runtime, line, end_of_life }
}

/// The table.
pub const RELEASES: &[Release] = &[
    // Debian 12's nodejs package.
    release(Runtime::Node, "18", Some("2025-04-30")),
    release(Runtime::Node, "20", Some("2026-04-30")),
    release(Runtime::Node, "22", Some("2027-04-30")),
    release(Runtime::Node, "24", Some("2028-04-30")),
    // The Active LTS since October 2026, pinned in tools/node.
    release(Runtime::Node, "26", Some("2029-04-30")),
    // Go 1.26 came out on 2026-02-11, Go 1.27 on 2026-08-19.
    release(Runtime::Go, "1.24", Some("2026-02-11")),
    release(Runtime::Go, "1.25", Some("2026-08-19")),
    release(Runtime::Go, "1.26", None),
];

/// The release line of a version as a runtime prints it: `v20.20.2` → `20`, `go1.26.8` → `1.26`.
pub fn line_of(runtime: Runtime, version: &str) -> Option<String> {
    let parts: Vec<&str> = match runtime {
        Runtime::Node => version.trim().strip_prefix('v')?.split('.').take(1).collect(),
        Runtime::Go => version.trim().strip_prefix("go")?.split(['.', ' ']).take(2).collect(),
    };
    let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    (parts.iter().all(numeric) && !parts.is_empty()).then(|| parts.join("."))
}

/// The end of life of `version`'s release line when it had passed by `date` (RFC 3339 or `YYYY-MM-DD`): `None` for a
/// supported release, or one the table does not know.
pub fn ended_by(runtime: Runtime, version: &str, date: &str) -> Option<&'static str> {
    let line = line_of(runtime, version)?;
    let end = RELEASES.iter().find(|r| r.runtime == runtime && r.line == line)?.end_of_life?;
    // Dates as YYYY-MM-DD compare as text; the support ends at the end of its last day.
    let day = date.get(..10).unwrap_or(date);
    (day > end).then_some(end)
}

/// The summary's sentence for a runtime past its end of life on `date`, if it was.
pub fn end_of_life_note(runtime: Runtime, version: &str, date: &str) -> Option<String> {
    let end = ended_by(runtime, version, date)?;
    Some(format!(
        "{} {} reached its end of life on {end}: it gets no fixes, security ones included, so its figures are not \
         those of a release anyone should run.",
        runtime.name(),
        version.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_as_their_release_lines() {
        assert_eq!(line_of(Runtime::Node, "v20.20.2").as_deref(), Some("20"));
        assert_eq!(line_of(Runtime::Node, "v26.12.1\n").as_deref(), Some("26"));
        assert_eq!(line_of(Runtime::Go, "go1.26.8").as_deref(), Some("1.26"));
        assert_eq!(line_of(Runtime::Go, "go1.25").as_deref(), Some("1.25"));
        assert_eq!(line_of(Runtime::Node, "not found"), None);
        assert_eq!(line_of(Runtime::Go, "devel +abc"), None);
    }

    #[test]
    fn a_release_has_ended_only_after_its_last_day() {
        assert_eq!(ended_by(Runtime::Node, "v20.20.2", "2026-12-02T16:00:00Z"), Some("2026-04-30"));
        assert_eq!(ended_by(Runtime::Node, "v20.20.2", "2026-04-30T23:59:59Z"), None);
        assert_eq!(ended_by(Runtime::Node, "v20.20.2", "2026-05-01"), Some("2026-04-30"));
        assert_eq!(ended_by(Runtime::Node, "v26.12.1", "2026-12-02T16:00:00Z"), None);
        assert_eq!(ended_by(Runtime::Go, "go1.24.9", "2026-03-01T00:00:00Z"), Some("2026-02-11"));
        assert_eq!(ended_by(Runtime::Go, "go1.25.4", "2026-08-20T00:00:00Z"), Some("2026-08-19"));
        assert_eq!(ended_by(Runtime::Go, "go1.26.8", "2030-01-01T00:00:00Z"), None, "supported, no end set");
        assert_eq!(ended_by(Runtime::Node, "v21.7.3", "2030-01-01"), None, "not in the table: not judged");
    }

    #[test]
    fn the_note_names_the_version_and_the_day() {
        let note = end_of_life_note(Runtime::Node, "v20.20.2", "2026-12-02T16:00:00Z").unwrap();
        assert!(note.starts_with("node v20.20.2 reached its end of life on 2026-04-30"), "{note}");
        assert_eq!(end_of_life_note(Runtime::Node, "v26.12.1", "2026-12-02T16:00:00Z"), None);
    }

    #[test]
    fn the_table_is_sorted_and_each_line_is_there_once() {
        for runtime in [Runtime::Node, Runtime::Go] {
            let rows: Vec<&Release> = RELEASES.iter().filter(|r| r.runtime == runtime).collect();
            for pair in rows.windows(2) {
                assert_ne!(pair[0].line, pair[1].line);
                let ends = (pair[0].end_of_life, pair[1].end_of_life);
                assert!(match ends {
                    (Some(a), Some(b)) => a < b,
                    (Some(_), None) | (None, None) => true,
                    (None, Some(_)) => false,
                });
            }
        }
    }
}
