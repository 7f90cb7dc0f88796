//! The HTML report in a real browser. Every committed result under `docs/results` that has a `benchmark.json` (and
//! the golden fixture, and a run with the capacity search) is rendered with `report::write`; headless Chromium (Debian's `chromium`) then takes
//! screenshots at a phone's width (390 px) and a laptop's (1280 px) and dumps the DOM it built at each. The test fails
//! when a screenshot is blank (one colour, or next to nothing drawn), when the DOM does not hold as many `<table>`s
//! (each with a `<thead>`) and inline `<svg>` charts as the benchmark calls for, counted from the benchmark itself,
//! when the page is wider than the screen at either width (it would scroll sideways), or when, at 1280 px, the
//! summary's table does not end within the first screen (800 px) or the throughput table hides columns.
//!
//! Run with `cargo test -p fairpair --test html_report`. Without `chromium` on `PATH` the browser tests are listed as
//! skipped (`.ci/run` installs it). The checks themselves are seen to fail on a broken page: a blank PNG, a DOM
//! without tables and a page too wide are rejected without a browser, and a page with an empty body through Chromium.

mod common;

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairpair::report;
use fairpair::schema::Benchmark;
use testkit::Need;

/// Chromium starts in about a second here; a minute means it hangs, and it is killed.
const CHROMIUM_TIME_LIMIT: Duration = Duration::from_secs(60);

/// The widths the report must read well at: a phone and a laptop.
const WIDTHS: [u32; 2] = [390, 1280];

/// The first screen's height at a laptop's width (1280×800): the summary's table must end within it.
const FIRST_SCREEN: u32 = 800;

/// A drawn page has text, tables and charts in at least this share of its pixels; a blank one (white, or the
/// browser's error page's grey) has next to none.
const MIN_DRAWN_SHARE: f64 = 0.01;

/// How many tables (each with its head) and inline charts a page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    tables: usize,
    svgs: usize,
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The golden test's fixture (`tests/report_golden.rs`).
fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden/benchmark.json")
}

/// Every `benchmark.json` under `docs/results`, plus the golden fixture's.
fn committed_benchmarks() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.file_name().is_some_and(|n| n == "benchmark.json") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&workspace().join("docs/results"), &mut out);
    out.push(golden());
    // A default run with the capacity search (its two charts, latency against offered rate), measured on a busy
    // machine: kept as a fixture, not as a result.
    out.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/capacity/benchmark.json"));
    out
}

/// What the report of `b` must show, counted from the benchmark, not from the report: the environment and
/// subjects tables always; the loader-capacity table when preflight measured it; throughput, latency and CPU tables
/// when a cell was measured; open-loop and memory tables when those phases ran; a table of a study's published
/// figures for a preset that has some, and one of whether the study's findings held for a preset that has those.
/// Charts: throughput, then per cell the latency bars and the percentile spectrum, then memory.
fn expected(b: &Benchmark) -> Counts {
    let mut cells: Vec<(&str, u32)> = b.summaries.iter().map(|s| (s.scenario.as_str(), s.connections)).collect();
    cells.sort();
    cells.dedup();
    let measured = !cells.is_empty();
    let preset = b.settings.preset_used().filter(|p| p.study().is_some());
    let published = preset.is_some_and(|p| !p.published().is_empty());
    let findings = preset.is_some_and(|p| !p.findings().is_empty());
    // The summary: a table of the cells when a subject was measured beside the baseline, and one of memory and
    // start-up when both were measured in the memory phase.
    let base = report::baseline(b);
    let others: Vec<&str> = b
        .subjects
        .iter()
        .filter(|s| !s.get_only && Some(s.name.as_str()) != base)
        .map(|s| s.name.as_str())
        .filter(|n| b.runs.iter().any(|r| r.subject == *n))
        .collect();
    let memory = |n: &str| b.memory_summaries.iter().any(|m| m.subject == n);
    let summary = usize::from(measured && !others.is_empty())
        + usize::from(base.is_some_and(memory) && others.iter().any(|n| memory(n)));
    let tables = 2
        + summary
        + usize::from(b.preflight.as_ref().is_some_and(|p| !p.loader_capacity.is_empty()))
        + 3 * usize::from(measured)
        + usize::from(!b.open_loop.is_empty())
        + usize::from(!b.memory_summaries.is_empty())
        + usize::from(published)
        + usize::from(findings)
        // A two-host run describes its server host in a table of its own, and the network path in another.
        + 2 * usize::from(b.two_hosts.is_some())
        // The capacity search: its capacities and its steps.
        + 2 * usize::from(b.capacity.is_some())
        // The decision section's table, when a subject that implements the API was measured.
        + usize::from(base.is_some())
        // The warm-up probe: its table, and the per-second series folded below it.
        + 2 * usize::from(!b.warmup_probes.is_empty());
    // One capacity chart per scenario searched.
    let mut searched: Vec<&str> =
        b.capacity.iter().flat_map(|c| c.searches.iter().map(|s| s.scenario.as_str())).collect();
    searched.dedup();
    // The profiled runs: a table of parts per scenario profiled and one of pauses, and a flame graph per run whose
    // stacks were read, each an `<svg>` holding another (inferno draws its frames in a nested one).
    let runs = b.profiles.as_ref().map_or(&[][..], |p| p.runs.as_slice());
    let mut profiled: Vec<&str> = runs.iter().map(|r| r.scenario.as_str()).collect();
    profiled.sort();
    profiled.dedup();
    let tables = tables + profiled.len() + usize::from(!runs.is_empty());
    let flames = runs.iter().filter(|r| r.stacks.is_some()).count();
    let svgs = usize::from(measured) * (1 + 2 * cells.len())
        + usize::from(!b.memory_summaries.is_empty())
        + searched.len()
        + 2 * flames;
    Counts { tables, svgs }
}

/// Counts the DOM Chromium dumped; a table without its `<thead>` is no table for this check.
fn check_dom(dom: &str, want: Counts) -> Result<(), String> {
    let (tables, heads, svgs) =
        (dom.matches("<table").count(), dom.matches("<thead").count(), dom.matches("<svg").count());
    if tables != want.tables || heads != want.tables || svgs != want.svgs {
        return Err(format!(
            "the DOM has {tables} <table>s ({heads} with <thead>) and {svgs} <svg>s; the benchmark calls for {} tables and {} charts",
            want.tables, want.svgs
        ));
    }
    Ok(())
}

/// Decodes a screenshot and fails when it is blank: the commonest colour is taken as the background, and the
/// pixels of any other colour must be at least [`MIN_DRAWN_SHARE`] of the image.
fn check_screenshot(png_bytes: &[u8]) -> Result<(), String> {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().map_err(|e| format!("not a PNG: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("PNG frame: {e}"))?;
    if info.bit_depth != png::BitDepth::Eight {
        return Err(format!("unexpected bit depth {:?}", info.bit_depth));
    }
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks_exact(channels).collect();
    let mut counts = std::collections::HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_insert(0usize) += 1;
    }
    let background = counts.values().copied().max().unwrap_or(0);
    let drawn = (pixels.len() - background) as f64 / pixels.len().max(1) as f64;
    if drawn < MIN_DRAWN_SHARE {
        return Err(format!(
            "blank screenshot: {} colour(s), {:.3} % of {}×{} pixels differ from the background",
            counts.len(),
            drawn * 100.0,
            info.width,
            info.height
        ));
    }
    Ok(())
}

/// Runs headless Chromium on `page` with a fresh profile directory, in a process group of its own so that on
/// timeout the whole group (browser, renderer, zygote) is killed. Returns its standard output.
fn chromium(page: &Path, args: &[String], scratch: &Path) -> Result<String, String> {
    let profile = scratch.join("chromium-profile");
    let (out, err) = (scratch.join("chromium.out"), scratch.join("chromium.err"));
    let mut child = Command::new("chromium")
        // `--no-sandbox`: CI runs as root, where the sandbox refuses to start; `--disable-dev-shm-usage`: containers
        // often have a small /dev/shm, which crashes the renderer.
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start chromium: {e}"))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > CHROMIUM_TIME_LIMIT {
            let group = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            return Err(format!("chromium {args:?} took over {CHROMIUM_TIME_LIMIT:?}: killed"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = std::fs::remove_dir_all(&profile);
    if !status.success() {
        let stderr = std::fs::read_to_string(&err).unwrap_or_default();
        return Err(format!("chromium {args:?} failed ({status}):\n{stderr}"));
    }
    Ok(std::fs::read_to_string(&out).unwrap_or_default())
}

/// Every check on one page: the DOM's counts and its width at a phone's width, then a screenshot at each width.
fn check_page(page: &Path, want: Counts, scratch: &Path) -> Result<(), String> {
    let probe = scratch.join("probe.html");
    let html = std::fs::read_to_string(page).map_err(|e| format!("{}: {e}", page.display()))?;
    for width in WIDTHS {
        std::fs::write(&probe, html.replace("</body>", &format!("{}</body>", width_probe(width)))).unwrap();
        let args = ["--dump-dom".to_string(), format!("--window-size={width},{FIRST_SCREEN}")];
        let dom = chromium(&probe, &args, scratch)?;
        check_dom(&dom, want)?;
        // Every report has its decision section, right after the summary, with its table (counted above).
        if !dom.contains("<h2 id=\"decision\">Decision</h2>") {
            return Err("the DOM holds no decision section".into());
        }
        check_width(&dom, width).map_err(|e| format!("at {width} px: {e}"))?;
        if width == WIDTHS[1] {
            check_summary(&dom, FIRST_SCREEN)?;
            // At a laptop's width the throughput table fits: none of its columns (the ratios last) hidden.
            match probed(&dom, "throughput-hidden") {
                Some(hidden) if hidden > 0 => {
                    return Err(format!("at {width} px the throughput table hides {hidden} px of its columns"));
                }
                None => return Err("the probe wrote no throughput width".into()),
                Some(_) => {}
            }
        }
    }
    for width in WIDTHS {
        let shot = scratch.join(format!("screenshot-{width}.png"));
        let _ = std::fs::remove_file(&shot);
        let args = [format!("--screenshot={}", shot.display()), format!("--window-size={width},2000")];
        chromium(page, &args, scratch)?;
        let bytes = std::fs::read(&shot).map_err(|e| format!("no screenshot at {width} px: {e}"))?;
        check_screenshot(&bytes).map_err(|e| format!("at {width} px: {e}"))?;
    }
    Ok(())
}

/// Appended to a copy of the page (the page itself has no script) for the DOM dump: lays the body out `width`
/// pixels wide and writes into `<output>` elements how wide its content is and where the summary's first table ends
/// (its bottom edge, in pixels from the top of the page). The body is narrowed as well as the window because
/// headless Chromium's `--dump-dom` lays pages out at least 500 px wide, whatever `--window-size` says; the
/// stylesheet's one width-dependent rule (the summary as cards) starts below 640 px, so it holds at 500 px too.
fn width_probe(width: u32) -> String {
    format!(
        "<style>body{{width:{width}px}}</style><script>\
         let t = document.getElementById('summary'); while (t && !(t.querySelector && t.querySelector('table'))) \
         t = t.nextElementSibling; \
         let bottom = t ? Math.ceil(t.getBoundingClientRect().bottom + window.scrollY) : -1; \
         let h = document.getElementById('throughput-requests-s'); while (h && !h.classList.contains('table')) \
         h = h.nextElementSibling; \
         let hidden = h ? h.scrollWidth - h.clientWidth : 0; \
         document.body.insertAdjacentHTML('beforeend', '<output id=\"page-width\">' + document.body.scrollWidth + \
         '</output><output id=\"summary-bottom\">' + bottom + '</output><output id=\"throughput-hidden\">' + \
         hidden + '</output>')</script>"
    )
}

/// A number the probe wrote into `<output id="ID">`; the last occurrence, as the first is in the probe's source.
fn probed(dom: &str, id: &str) -> Option<i64> {
    let open = format!("<output id=\"{id}\">");
    dom.rsplit_once(open.as_str()).and_then(|(_, rest)| rest.split_once('<')).and_then(|(n, _)| n.parse().ok())
}

/// The summary's table must end within the first screen.
fn check_summary(dom: &str, screen: u32) -> Result<(), String> {
    match probed(dom, "summary-bottom") {
        None => Err("the probe wrote no summary position".into()),
        Some(-1) => Err("the page has no summary table".into()),
        Some(bottom) if bottom > i64::from(screen) => {
            Err(format!("the summary's table ends {bottom} px down: below the first screen ({screen} px)"))
        }
        Some(_) => Ok(()),
    }
}

/// The width the probe recorded must not exceed the window's: tables scroll inside their own box, charts shrink.
fn check_width(dom: &str, window: u32) -> Result<(), String> {
    let width = probed(dom, "page-width").ok_or("the width probe wrote nothing")?;
    if width > i64::from(window) {
        return Err(format!("the page is {width} px wide on a {window} px screen: it scrolls sideways as a whole"));
    }
    Ok(())
}

#[test]
fn committed_results_render_in_chromium_with_every_table_and_chart() {
    if !testkit::require("committed_results_render_in_chromium_with_every_table_and_chart", Need::Tool("chromium")) {
        return;
    }
    let benchmarks = committed_benchmarks();
    assert!(benchmarks.len() >= 2, "no committed results found: {benchmarks:?}");
    let mut failures = Vec::new();
    for (i, file) in benchmarks.iter().enumerate() {
        let bench = report::load(file).unwrap();
        let dir = common::temp_dir(&format!("html-report-{i}"));
        report::write(&bench, &dir).unwrap();
        let want = expected(&bench);
        // The chart files beside the page are the same charts, one file each; a flame graph's file is under
        // `profiles/`, one file for its two `<svg>`s.
        let svg_files = |d: &std::path::Path| {
            std::fs::read_dir(d).map_or(0, |entries| {
                entries.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "svg")).count()
            })
        };
        let flames = bench.profiles.as_ref().map_or(0, |p| p.runs.iter().filter(|r| r.stacks.is_some()).count());
        assert_eq!(svg_files(&dir) + 2 * svg_files(&dir.join("profiles")), want.svgs, "{}", file.display());
        assert_eq!(svg_files(&dir.join("profiles")), flames, "{}", file.display());
        if let Err(e) = check_page(&dir.join("report.html"), want, &dir) {
            failures.push(format!("{}: {e}", file.display()));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The golden fixture with profiles (`tests/profile_report.rs`): the section's tables and flame graphs are drawn, and
/// the page still passes every check.
#[test]
fn the_profile_section_renders_in_chromium_with_its_flame_graphs() {
    if !testkit::require("the_profile_section_renders_in_chromium_with_its_flame_graphs", Need::Tool("chromium")) {
        return;
    }
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden-profile");
    let mut bench = report::load(&golden()).unwrap();
    let mut record: fairpair::schema::ProfileRecord =
        serde_json::from_str(&std::fs::read_to_string(fixtures.join("profiles.json")).unwrap()).unwrap();
    for run in &mut record.runs {
        run.stacks = Some(std::fs::read_to_string(fixtures.join(&run.folded_file)).unwrap());
    }
    let dir = common::temp_dir("html-report-profile");
    report::write(&bench, &dir).unwrap();
    let without = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let before = expected(&bench);
    bench.profiles = Some(record);
    report::write(&bench, &dir).unwrap();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // One table of parts per scenario profiled and one of pauses; each flame graph is an `<svg>` holding another
    // (inferno draws its frames in a nested one).
    let want = expected(&bench);
    assert_eq!(want.tables, before.tables + 2, "a table of parts and one of pauses");
    assert_eq!(html.matches("<svg").count() - without.matches("<svg").count(), 4, "two flame graphs");
    assert_eq!(want.svgs, before.svgs + 4);
    for banned in ["<script", "url(", " onload="] {
        assert!(!html.contains(banned), "the flame graphs must stay static: found {banned:?}");
    }
    assert!(dir.join("profiles/ceiling-get.svg").is_file(), "the flame graph is written beside the report");
    check_page(&dir.join("report.html"), want, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_page_with_an_empty_body_fails_the_check_in_chromium() {
    if !testkit::require("a_page_with_an_empty_body_fails_the_check_in_chromium", Need::Tool("chromium")) {
        return;
    }
    let dir = common::temp_dir("html-report-broken");
    let page = dir.join("report.html");
    std::fs::write(&page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body></body></html>\n")
        .unwrap();
    let want = Counts { tables: 7, svgs: 4 };
    let dom = chromium(&page, &["--dump-dom".to_string()], &dir).unwrap();
    assert!(check_dom(&dom, want).unwrap_err().contains("0 <table>s"));
    let shot = dir.join("blank.png");
    let args = [format!("--screenshot={}", shot.display()), "--window-size=390,2000".to_string()];
    chromium(&page, &args, &dir).unwrap();
    let e = check_screenshot(&std::fs::read(&shot).unwrap()).unwrap_err();
    assert!(e.contains("blank screenshot: 1 colour(s)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A PNG of `width`×`height` white pixels, with the first `drawn` pixels black.
fn png_with(width: u32, height: u32, drawn: usize) -> Vec<u8> {
    let mut data = vec![255u8; (width * height * 3) as usize];
    data[..drawn * 3].fill(0);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header().unwrap().write_image_data(&data).unwrap();
    out
}

#[test]
fn blank_and_nearly_blank_screenshots_are_rejected() {
    let (w, h) = (390, 200);
    let cases = [("all white", 0, false), ("a few dots", 50, false), ("a tenth drawn", (w * h / 10) as usize, true)];
    for (name, drawn, passes) in cases {
        let result = check_screenshot(&png_with(w, h, drawn));
        assert_eq!(result.is_ok(), passes, "{name}: {result:?}");
    }
    assert!(check_screenshot(b"<html>").unwrap_err().contains("not a PNG"));
}

#[test]
fn a_dom_without_its_tables_or_charts_is_rejected() {
    let want = Counts { tables: 2, svgs: 1 };
    let good = "<table><thead></thead></table><div><table><thead></thead></table><svg></svg></div>";
    assert_eq!(check_dom(good, want), Ok(()));
    for (name, dom) in [
        ("empty body", "<html><body></body></html>"),
        ("a table missing", "<table><thead></thead></table><svg></svg>"),
        ("a table without its head", "<table><thead></thead></table><table></table><svg></svg>"),
        ("no chart", "<table><thead></thead></table><table><thead></thead></table>"),
    ] {
        assert!(check_dom(dom, want).is_err(), "{name} passed");
    }
}

#[test]
fn a_page_wider_than_the_phone_is_rejected() {
    assert_eq!(check_width("<main></main><output id=\"page-width\">390</output>", 390), Ok(()));
    assert!(check_width("<output id=\"page-width\">1104</output>", 390).unwrap_err().contains("1104 px wide"));
    assert!(check_width("<main></main>", 390).is_err(), "no probe output is a failure, not a pass");
}

#[test]
fn a_summary_below_the_first_screen_is_rejected() {
    assert_eq!(check_summary("<output id=\"summary-bottom\">640</output>", 800), Ok(()));
    assert!(check_summary("<output id=\"summary-bottom\">1900</output>", 800).unwrap_err().contains("1900 px down"));
    assert!(check_summary("<output id=\"summary-bottom\">-1</output>", 800).unwrap_err().contains("no summary"));
    assert!(check_summary("<main></main>", 800).is_err(), "no probe output is a failure, not a pass");
}

#[test]
fn the_counts_come_from_the_benchmark() {
    // The golden run: the summary's two (cells, memory), the decision's, environment, subjects, throughput, latency, CPU, open loop,
    // memory; throughput, one cell's latency bars and spectrum, memory.
    let bench = report::load(&golden()).unwrap();
    assert_eq!(expected(&bench), Counts { tables: 10, svgs: 4 });
    let html = report_html(&bench, "html-report-counts");
    assert_eq!(check_dom(&html, expected(&bench)), Ok(()));
}

#[test]
fn the_page_is_self_contained_and_escaped() {
    let mut bench = report::load(&golden()).unwrap();
    bench.skipped.push("a <script>alert(1)</script> & \"quotes\"".into());
    let html = report_html(&bench, "html-report-escaped");
    for banned in ["<script", "<link", "<img", " src=", "@import", "url("] {
        assert!(!html.contains(banned), "the page must not fetch or run anything: found {banned:?}");
    }
    assert!(html.contains("a &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    assert!(html.contains("<meta name=\"viewport\"") && html.contains("@media print"));
}

/// `report.html` as `report::write` writes it.
fn report_html(bench: &Benchmark, name: &str) -> String {
    let dir = common::temp_dir(name);
    report::write(bench, &dir).unwrap();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    html
}
