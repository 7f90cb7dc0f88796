//! The "Where the time goes" section (`--profile`) in the report: a golden file of it, built from the golden
//! fixture with a profile record and small folded stacks added (`tests/fixtures/golden-profile/`), and the check
//! that the profiled runs change no other figure: with the profiles dropped, every other section renders the same
//! bytes, and no summary counts them. `UPDATE_GOLDEN=1 cargo test -p fairpair --test profile_report` re-blesses.

use std::path::PathBuf;

use fairpair::report;
use fairpair::schema::{Benchmark, ProfileRecord};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The golden fixture with the profile record of `golden-profile/profiles.json`, its stacks read from there.
pub fn with_profiles() -> Benchmark {
    let mut bench = report::load(&fixtures().join("golden/benchmark.json")).unwrap();
    let dir = fixtures().join("golden-profile");
    let mut record: ProfileRecord =
        serde_json::from_str(&std::fs::read_to_string(dir.join("profiles.json")).unwrap()).unwrap();
    for run in &mut record.runs {
        run.stacks = Some(std::fs::read_to_string(dir.join(&run.folded_file)).unwrap());
    }
    bench.profiles = Some(record);
    bench
}

/// The report's Markdown without its "Where the time goes" section (the heading to the next one).
fn without_section(md: &str) -> String {
    let start = md.find("## Where the time goes").expect("the section is there");
    let end = md[start + 3..].find("\n## ").map_or(md.len(), |i| start + 3 + i + 1);
    format!("{}{}", &md[..start], &md[end..])
}

#[test]
fn the_profiles_change_no_other_section_and_no_summary() {
    let with = with_profiles();
    let mut without = with.clone();
    without.profiles = None;
    let (md_with, charts_with) = report::render(&with);
    let (md_without, charts_without) = report::render(&without);
    assert!(!md_without.contains("Where the time goes"));
    assert_eq!(without_section(&md_with), md_without, "a section other than the profile's changed");
    // Every chart but the flame graphs is the same.
    let others: Vec<_> = charts_with.iter().filter(|(f, _)| !f.starts_with("profiles/")).cloned().collect();
    assert_eq!(others, charts_without);
    // The summaries are computed from the closed-loop runs alone: the profiles add none.
    let summaries = |b: &Benchmark| serde_json::to_string(&fairpair::analyse::summarise::summarise(&b.runs)).unwrap();
    assert_eq!(summaries(&with), summaries(&without));
    let partial = fairpair::run::execute::partial(&with);
    assert_eq!(serde_json::to_string(&partial.summaries).unwrap(), summaries(&without));
}

#[test]
fn the_profile_section_matches_its_golden_files() {
    let (markdown, charts) = report::render(&with_profiles());
    let dir = fixtures().join("golden-profile");
    let mut files = vec![("report.md".to_string(), markdown)];
    files.extend(charts.into_iter().filter(|(f, _)| f.starts_with("profiles/")));
    assert_eq!(files.len(), 3, "the report and a flame graph per profile");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, text) in &files {
        let path = dir.join(name);
        if update {
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 creates it)", path.display()));
        if *text != want {
            let line = text.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{name} differs from the golden file at line {}:\n got: {:?}\nwant: {:?}\n(UPDATE_GOLDEN=1 regenerates)",
                line + 1,
                text.lines().nth(line),
                want.lines().nth(line)
            );
        }
    }
}

#[test]
fn the_section_says_what_it_found_and_what_it_could_not() {
    let (md, _) = report::render(&with_profiles());
    for needle in [
        "## Where the time goes",
        "ceiling's 80.9 µs per request on get",
        "99.0 % of samples resolved",
        "**only 75.0 % of samples resolved**",
        "the largest difference is in",
        "profiled with a frame-pointer build of the same code",
        "![flame graph ceiling get](profiles/ceiling-get.svg)",
        "12 samples of lighter ones left out",
    ] {
        assert!(md.contains(needle), "missing {needle:?}:\n{md}");
    }
    let mut bench = with_profiles();
    bench.profiles = Some(ProfileRecord {
        frequency_hz: 999,
        not_profiled: vec![
            "no subject was profiled: perf is not installed (Debian: apt-get install linux-perf)".into(),
        ],
        runs: Vec::new(),
    });
    let (md, _) = report::render(&bench);
    assert!(md.contains("No subject was profiled.") && md.contains("perf is not installed"), "{md}");
}
