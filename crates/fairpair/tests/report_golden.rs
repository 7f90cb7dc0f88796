//! The report against golden files: a fixed `benchmark.json` (a real small run: the ceiling and two custom subjects)
//! must give exactly the committed `report.md` and charts. After an intended change to the report, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p fairpair --test report_golden` and review the diff.
//!
//! The fixture is a schema version 1 file on purpose: `fairpair report` must keep reading the committed results of
//! earlier machines. Version 2 changed the report around it (a *Preflight* section that says the loader's capacity
//! was not measured, steal and listen-backlog columns shown as "—", the POST store described as a fixed guess);
//! every figure in it is unchanged, since no run of the fixture had an error status.

use std::path::PathBuf;

use fairpair::capacity::Outcome;
use fairpair::report;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden")
}

#[test]
fn report_matches_the_golden_files() {
    let bench = report::load(&golden_dir().join("benchmark.json")).unwrap();
    let (markdown, charts) = report::render(&bench);
    let mut files = vec![("report.md".to_string(), markdown)];
    files.extend(charts);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, text) in &files {
        let path = golden_dir().join(name);
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
    assert!(files.iter().any(|(n, _)| n == "throughput.svg"));
    assert!(files.iter().any(|(n, _)| n == "memory.svg"));
}

#[test]
fn the_report_says_what_a_reader_must_know() {
    let bench = report::load(&golden_dir().join("benchmark.json")).unwrap();
    let (md, _) = report::render(&bench);
    for needle in [
        "## Environment",
        "## Exact commands",
        "## Throughput (requests/s)",
        "## Memory and start-up",
        "## Ratios and verdicts",
        "**UNVERIFIED**",
        "of the ceiling baseline",
        "## Flags",
    ] {
        assert!(md.contains(needle), "missing {needle:?}");
    }
    // Every flag in the file appears in the report (an unverified subject's name marked, as everywhere).
    for f in &report::marked(&bench).flags {
        assert!(md.contains(&f.message), "flag not reported: {}", f.message);
    }
}

#[test]
fn version_2_files_are_read_and_version_1_files_upgraded() {
    let dir = std::env::temp_dir().join(format!("fairpair-golden-v2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bench = report::load(&golden_dir().join("benchmark.json")).unwrap();
    assert_eq!((bench.schema_version, bench.preflight.is_none()), (1, true));
    // A version 2 file (before the capacity search) is still read, as a version 3 file is.
    bench.schema_version = 2;
    let path = dir.join("v2.json");
    std::fs::write(&path, serde_json::to_string(&bench).unwrap()).unwrap();
    let again = report::load(&path).unwrap();
    assert_eq!(again.schema_version, 2);
    assert_eq!(again.summaries.len(), bench.summaries.len());
    let (md, _) = report::render(&again);
    assert!(md.contains("(schema 2)") && md.contains("| `net.core.somaxconn` |"), "{md}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn files_of_another_schema_version_are_refused() {
    let dir = std::env::temp_dir().join(format!("fairpair-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(golden_dir().join("benchmark.json")).unwrap();
    let path = dir.join("old.json");
    std::fs::write(&path, text.replacen("\"schema_version\": 1", "\"schema_version\": 0", 1)).unwrap();
    let e = report::load(&path).unwrap_err().to_string();
    assert!(e.contains("schema version 0, this fairpair reads versions 1 to 3"), "{e}");
    std::fs::write(&path, text.replacen("\"schema_version\": 1", "\"schema_version\": 4", 1)).unwrap();
    assert!(report::load(&path).unwrap_err().to_string().contains("schema version 4"));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every `benchmark.json` committed under docs/results, and the golden fixture.
fn every_result() -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.ends_with("benchmark.json") {
                out.push(path);
            }
        }
    }
    let mut out = vec![golden_dir().join("benchmark.json")];
    walk(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results"), &mut out);
    out.sort();
    out
}

/// The words a summary cell may use to say how far to trust its ratio; one of them in every cell.
const TRUST: [&str; 11] = [
    "(beyond the noise)",
    "(within the noise)",
    "≥ ",
    "≤ ",
    "(both held by the loader)",
    "left out: ",
    "(one run: noise not measured)",
    " says nothing)",
    "(cold: --quick steps have no warm-up)",
    "capacity windows measured its warm-up",
    // Two capacities whose brackets overlap: the search cannot order them (report/sections/summary.rs).
    "the search does not tell the two apart",
];

#[test]
fn every_report_opens_with_its_summary_and_every_verdict_says_how_far_to_trust_it() {
    let files = every_result();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let (md, _) = report::render(&report::load(&file).unwrap());
        let sections: Vec<&str> = md.split("\n## ").collect();
        assert!(sections[0].starts_with("# fairpair report"), "{}", file.display());
        let summary = sections[1];
        assert!(summary.starts_with("Summary\n"), "{}: the first section is not the summary", file.display());
        let rows: Vec<&str> = summary.lines().filter(|l| l.starts_with('|') && !l.starts_with("|---")).collect();
        // Two tables (per cell, then memory), each a header row and at least one row.
        assert!(rows.len() >= 2, "{}: no summary table:\n{summary}", file.display());
        let cells: Vec<&str> = rows
            .iter()
            .filter(|r| !r.contains("| throughput |") && !r.contains("| idle RSS |"))
            .flat_map(|r| r.trim_matches('|').split(" | ").skip(1))
            .collect();
        assert!(!cells.is_empty(), "{}", file.display());
        // A capacity is searched at one connection count: the other rows' capacity cells are "—", no figure.
        for cell in cells.into_iter().filter(|c| c.trim() != "—") {
            assert!(TRUST.iter().any(|w| cell.contains(w)), "{}: {cell:?} says nothing of the noise", file.display());
        }
    }
}

#[test]
fn the_console_ends_with_the_summary_s_verdicts() {
    let bench = report::load(&golden_dir().join("benchmark.json")).unwrap();
    let lines = report::verdict_lines(&bench);
    let (md, _) = report::render(&bench);
    assert!(
        lines[0].starts_with("beta (UNVERIFIED) / alpha (UNVERIFIED), get, 8 connections: throughput 0.88× (within"),
        "{lines:?}"
    );
    // The same words as the report's summary table.
    assert!(md.contains("| get, 8 connections | 0.88× (within the noise) |"), "{md}");
    assert!(lines.iter().any(|l| l.contains("memory and start-up: idle RSS 1.00× (within the noise)")), "{lines:?}");
}

#[test]
fn the_summary_gives_the_capacity_in_the_row_of_its_search_bounds_as_bounds() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let column = |bench: &fairpair::schema::Benchmark, place: &str| {
        let lines = report::verdict_lines(bench);
        let line = lines.iter().find(|l| l.starts_with(&format!("node / rust, {place}:"))).unwrap().clone();
        line.split("; capacity at the SLO ").nth(1).unwrap_or_else(|| panic!("{line}")).to_string()
    };
    // Searched at 50 connections: rust 1,385/s and node 766/s on POST; on GET no rate met the objective.
    assert_eq!(column(&bench, "post, 50 connections"), "0.55× (one search each: noise not measured)");
    assert_eq!(column(&bench, "post, 300 connections"), "—");
    let get = column(&bench, "get, 50 connections");
    assert!(get.starts_with("node: no rate meets the objective") && get.contains("; rust: no rate meets"), "{get}");
    // A capacity given at the search's cap of steps is unconfirmed, and so is the ratio.
    let node_post = |b: &mut fairpair::schema::Benchmark| {
        let searches = &mut b.capacity.as_mut().unwrap().searches;
        searches.iter_mut().find(|s| s.subject == "node" && s.scenario == "post").unwrap().outcome.clone()
    };
    let confirmed = node_post(&mut bench);
    let unconfirmed = match confirmed.clone() {
        Outcome::Found { rps, spread_percent, .. } => Outcome::Found { rps, spread_percent, confirmed: false },
        other => panic!("{other:?}"),
    };
    let set = |b: &mut fairpair::schema::Benchmark, o: Outcome| {
        let searches = &mut b.capacity.as_mut().unwrap().searches;
        searches.iter_mut().find(|s| s.subject == "node" && s.scenario == "post").unwrap().outcome = o;
    };
    set(&mut bench, unconfirmed);
    assert_eq!(column(&bench, "post, 50 connections"), "0.55× (node unconfirmed: the search reached its cap of steps)");
    set(&mut bench, confirmed);
    let capacity = bench.capacity.as_mut().unwrap();
    capacity.searches.iter_mut().find(|s| s.subject == "node" && s.scenario == "post").unwrap().bound = true;
    // At least 0.55× allows node slower or faster: a bound that says nothing is no ratio (it read "≥ 0.55×").
    assert_eq!(
        column(&bench, "post, 50 connections"),
        "no ratio (node's capacity is a bound, and a lower bound under 1× says nothing)"
    );
    let capacity = bench.capacity.as_mut().unwrap();
    capacity.searches.iter_mut().find(|s| s.subject == "rust" && s.scenario == "post").unwrap().bound = true;
    assert_eq!(column(&bench, "post, 50 connections"), "no ratio (both capacities are bounds)");
    // rust's alone a bound: node is at most 0.55× of it, which does say node is slower.
    let capacity = bench.capacity.as_mut().unwrap();
    capacity.searches.iter_mut().find(|s| s.subject == "node" && s.scenario == "post").unwrap().bound = false;
    assert_eq!(column(&bench, "post, 50 connections"), "≤ 0.55× (rust's capacity is a bound)");
    // Steps with no warm-up (--quick) measure a JIT cold: no ratio, here or in the exports (it read "0.55×").
    bench.capacity.as_mut().unwrap().settings.warmup_s = 0;
    assert_eq!(column(&bench, "post, 50 connections"), "no ratio (cold: --quick steps have no warm-up)");
    assert_eq!(column(&bench, "get, 50 connections"), "no ratio (cold: --quick steps have no warm-up)");
    let (md, _) = report::render(&bench);
    assert!(md.contains("## Capacity"), "the Capacity section keeps the steps:\n{md}");
    // A run without the search has no capacity column.
    bench.capacity = None;
    assert!(!report::verdict_lines(&bench).iter().any(|l| l.contains("capacity")));
}

#[test]
fn a_run_that_only_searched_for_capacity_is_summarised_by_its_searches() {
    // As `fairpair run --capacity-only` writes it: the searches, and no closed-loop run. Its summary used to say that
    // no other subject was measured beside rust, and describe `wrk` runs that never ran.
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    (bench.runs, bench.summaries, bench.memory, bench.memory_summaries) = Default::default();
    let lines = report::verdict_lines(&bench);
    assert!(
        lines.iter().any(|l| l
            == "node / rust, post, 50 connections: capacity at the SLO 0.55× (one search each: noise not measured)"),
        "{lines:#?}"
    );
    let (md, _) = report::render(&bench);
    let summary = &md[..md.find("## Environment").unwrap()];
    assert!(summary.contains("a capacity search at p99 ≤ 10 ms with `oha`"), "{summary}");
    assert!(!summary.contains("No other subject") && !summary.contains("`wrk`"), "{summary}");
    assert!(summary.contains("Each cell: a subject's capacity over rust's"), "{summary}");
}

#[test]
fn no_sizing_is_drawn_from_searches_on_a_busy_machine() {
    // Every step of this fixture began on a machine the idle check flagged busy: the report says so, and sizes
    // nothing on it (it used to print "100,000/s would take 73 cores with rust" under that very note).
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let (md, _) = report::render(&bench);
    assert!(md.contains("Steps began on a busy machine") && !md.contains("would take"), "{md}");
    let capacity = bench.capacity.as_mut().unwrap();
    for step in capacity.searches.iter_mut().chain(capacity.loader_limit.iter_mut()).flat_map(|s| &mut s.steps) {
        step.result.machine_idle = true;
    }
    let (md, _) = report::render(&bench);
    assert!(!md.contains("Steps began on a busy machine") && md.contains("would take"), "{md}");
    assert!(md.contains("| p99 change on repeat |"), "the repeat's column says it is a latency change:\n{md}");
}

#[test]
fn a_capacity_label_at_the_charts_right_edge_stays_on_the_chart() {
    // The highest step's rate is at the right of the plot: its label is drawn leftwards of its line, and short (the
    // report's table has the words; a quick run's "(unconfirmed: the search reached its cap of steps)" ran off).
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let searches = &mut bench.capacity.as_mut().unwrap().searches;
    let rust = searches.iter_mut().find(|s| s.subject == "rust" && s.scenario == "post").unwrap();
    let top = rust.steps.iter().map(|s| s.rate_asked).fold(0.0, f64::max);
    rust.outcome = Outcome::Found { rps: top, spread_percent: 0.0, confirmed: false };
    let (_, charts) = report::render(&bench);
    let svg = &charts.iter().find(|(name, _)| name == "capacity-post.svg").unwrap().1;
    let label = svg.lines().find(|l| l.contains("(unconfirmed)</text>")).unwrap_or_else(|| panic!("{svg}"));
    assert!(label.contains(r#"text-anchor="end""#) && label.contains("rust "), "{label}");
    assert!(!svg.contains("reached its cap"), "{svg}");
}

#[test]
fn no_sizing_is_drawn_from_steps_without_a_warm_up() {
    // A `--quick` search warms nothing up: each step measures a freshly started server, and Node's JIT is then
    // measured cold (a quick run found node at 1,488/s where the default plan's searches found 13,506–21,083/s).
    // Its report said "100,000/s would take … 68 cores with node".
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let capacity = bench.capacity.as_mut().unwrap();
    for step in capacity.searches.iter_mut().chain(capacity.loader_limit.iter_mut()).flat_map(|s| &mut s.steps) {
        step.result.machine_idle = true;
    }
    assert!(report::render(&bench).0.contains("would take"));
    bench.capacity.as_mut().unwrap().settings.warmup_s = 0;
    let (md, _) = report::render(&bench);
    assert!(md.contains("Steps without a warm-up") && !md.contains("would take"), "{md}");
}

#[test]
fn a_repeat_that_failed_is_said_so_not_called_not_repeated() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let searches = &mut bench.capacity.as_mut().unwrap().searches;
    let rust = searches.iter_mut().find(|s| s.subject == "rust" && s.scenario == "post").unwrap();
    let Outcome::Found { rps, .. } = rust.outcome else { panic!("{:?}", rust.outcome) };
    rust.outcome = Outcome::Found { rps, spread_percent: 0.0, confirmed: false };
    // No repeat that failed: "not repeated".
    rust.steps.iter_mut().filter(|s| s.missed.is_some()).for_each(|s| s.repeat = false);
    let (md, _) = report::render(&bench);
    let row = |md: &str| md.lines().find(|l| l.starts_with("| rust | post |")).unwrap().to_string();
    assert!(row(&md).contains("| not repeated |"), "{}", row(&md));
    // The last step a repeat of the rate below it, which missed the objective (it read "not repeated").
    let searches = &mut bench.capacity.as_mut().unwrap().searches;
    let rust = searches.iter_mut().find(|s| s.subject == "rust" && s.scenario == "post").unwrap();
    let last = rust.steps.last_mut().unwrap();
    (last.repeat, last.missed) = (true, Some("p99 20.4 ms > 10 ms".into()));
    let rate = fairpair::text::thousands(last.rate_asked);
    let (md, _) = report::render(&bench);
    assert!(row(&md).contains(&format!("| repeated at {rate}/s, failed (p99 20.4 ms > 10 ms) |")), "{}", row(&md));
}

#[test]
fn a_capacity_above_the_closed_loop_throughput_is_explained_where_it_happens() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let (md, _) = report::render(&bench);
    assert!(!md.contains("is above its closed-loop throughput"), "no capacity there is above it:\n{md}");
    // node's POST capacity, 766/s, above a closed loop held down to 400/s (as a 40 ms stall per answer would).
    let searches = &mut bench.capacity.as_mut().unwrap().searches;
    searches.iter_mut().find(|s| s.subject == "node" && s.scenario == "post").unwrap().upper_rps = 400.0;
    let (md, _) = report::render(&bench);
    assert!(md.contains("node's capacity on post (766/s) is above its closed-loop throughput (400/s, 50 connections)"));
}

/// The decision section of a run with capacities: the capacity fixture, its steps taken as begun on an idle machine
/// (the recorded run's were not, and no sizing is drawn from those), re-read with a team's numbers.
#[test]
fn the_decision_section_sizes_brackets_as_ranges_of_cores() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json");
    let mut bench = report::load(&file).unwrap();
    let steps = bench.capacity.iter_mut().flat_map(|c| c.searches.iter_mut().chain(c.loader_limit.as_mut()));
    steps.flat_map(|s| s.steps.iter_mut()).for_each(|st| st.result.machine_idle = true);
    let inputs = fairpair::decision::Inputs {
        traffic_rps: Some(20_000.0),
        replicas: Some(12),
        io_wait_ms: Some(25.0),
        core_price: Some(0.04),
        memory_price: Some(0.005),
    };
    let md = fairpair::report::markdown(&report::document_with(&bench, &inputs));
    let section = md.split("## Decision").nth(1).unwrap().split("\n## ").next().unwrap();
    // rust post: 1,385–1,442/s a core, so 20,000/s takes 14 to 15 cores; node post 766–800/s, 25 to 27. With a
    // price, the cost is a range too.
    assert!(
        section.contains("| rust (baseline) | post | 1,385/s (bracket 1,385–1,442/s) | 14–15 cores |"),
        "{section}"
    );
    assert!(section.contains("| node | post | 766/s (bracket 766–800/s) | 25–27 cores |"), "{section}");
    assert!(section.contains("| rust (baseline) | get | no rate meets the objective"), "{section}");
    assert!(section.contains("`--traffic 20000 --replicas 12 --io-wait 25ms --core-price 0.04 --memory-price 0.005`"));
    assert!(section.contains("| 409.22–438.42 |"), "{section}");
    assert!(section.contains("The figures support clustering Node first"), "{section}");
    // A capacity that is a lower bound (loader-limited, say) is an upper bound on cores: at least 766/s, at most 27.
    let searches = bench.capacity.as_mut().unwrap().searches.iter_mut();
    searches.filter(|s| s.subject == "node" && s.scenario == "post").for_each(|s| s.bound = true);
    let md = fairpair::report::markdown(&report::document_with(&bench, &inputs));
    assert!(md.contains("| node | post | ≥ 766/s (bracket 766–800/s) | at most 27 cores |"), "{md}");
    // A subject of two workers on two server CPUs: its capacity is over both cores (692–721/s a core), and its
    // memory, summed over its processes, is also given per worker.
    bench.settings.server_cpus = vec![0, 1];
    bench.subjects.iter_mut().filter(|s| s.name == "rust").for_each(|s| s.workers = Some(2));
    bench.memory_summaries.iter_mut().filter(|m| m.subject == "rust").for_each(|m| m.processes = 2);
    let md = fairpair::report::markdown(&report::document_with(&bench, &inputs));
    let row = "| rust (baseline) | post | 1,385/s (bracket 1,385–1,442/s) | 28–29 cores (capacity over its 2 cores) | \
               0.11 GiB (9.8 MiB a copy, 4.9 MiB per worker of 2) |";
    assert!(md.contains(row), "{md}");
}
