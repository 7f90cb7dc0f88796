//! `benchmark.json` → `report.md`, `report.html` and SVG charts.
//!
//! Run with `fairpair report results/benchmark.json` (a `fairpair run` ends with it). Layout:
//!
//! - this file: the sections, in reading order, each adding blocks to one [`Document`];
//! - `report/document.rs`: that document (headings, paragraphs, notes, lists, tables, charts, collapsed code);
//! - `report/markdown.rs`, `report/html.rs`: one [`Renderer`] per file format, listed in [`RENDERERS`]; a new
//!   format is a new file there and one more entry in the list;
//! - `charts.rs`: the SVG charts the sections draw.
//!
//! The figures are those of the file's summaries (a version 1 file is first upgraded, which may leave out runs that
//! version still counted: see `schema::upgrade_from_v1`); what the report computes itself are the comparisons between
//! them: ratios, shares of the ceiling, verdicts against the noise. It is deterministic (same file, same bytes), so it
//! can be checked against a golden file and regenerated from old results.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

mod document;
mod html;
mod markdown;

pub use document::{Align, Block, Chart, Column, Document, Table};

use crate::charts::{self, Bar, Grouped};
use crate::schema::{
    Benchmark, CapacityBasis, LoadRun, MemorySummary, SCHEMA_VERSION, SubjectKind, Summary, VerificationStatus,
    upgrade_from_v1,
};
use crate::stats::{self, Stat, Verdict};
use crate::text::thousands;
use crate::usage;

/// Reads a `benchmark.json` of this schema version or of version 1 (upgraded: see [`upgrade_from_v1`]), refusing
/// any other.
pub fn load(path: &Path) -> Result<Benchmark> {
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| usage(format!("{} is not JSON: {e}", path.display())))?;
    let version = value.get("schema_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(SCHEMA_VERSION)) && version != Some(1) {
        let found = version.map_or("no schema_version".to_owned(), |v| format!("schema version {v}"));
        return Err(usage(format!("{}: {found}, this fairpair reads versions 1 and {SCHEMA_VERSION}", path.display())));
    }
    let bench: Benchmark = serde_json::from_value(value)
        .map_err(|e| usage(format!("{}: not a fairpair benchmark file: {e}", path.display())))?;
    Ok(if bench.schema_version == 1 { upgrade_from_v1(bench, crate::summary::summarise) } else { bench })
}

/// Turns a [`Document`] into one file of the report; a new format is one more implementation, listed in
/// [`RENDERERS`].
pub trait Renderer {
    /// The file it writes, beside `benchmark.json`.
    fn file_name(&self) -> &'static str;
    fn render(&self, doc: &Document) -> String;
}

/// Every format `write` produces, in the order their paths are returned: `report.md`, then `report.html`.
pub const RENDERERS: &[&dyn Renderer] = &[&markdown::Markdown, &html::Html];

/// Writes every chart as an SVG file into `dir`, then the report in every format of [`RENDERERS`]; returns the
/// report files' paths, in that order.
pub fn write(bench: &Benchmark, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let doc = document(bench);
    for chart in doc.charts() {
        std::fs::write(dir.join(&chart.file), &chart.svg).with_context(|| format!("cannot write {}", chart.file))?;
    }
    RENDERERS
        .iter()
        .map(|renderer| {
            let path = dir.join(renderer.file_name());
            std::fs::write(&path, renderer.render(&doc)).with_context(|| format!("cannot write {}", path.display()))?;
            Ok(path)
        })
        .collect()
}

/// What an `--allow-unverified` subject is called in every table and chart.
pub fn unverified_label(name: &str) -> String {
    format!("{name} (UNVERIFIED)")
}

/// The benchmark with every unverified subject renamed to [`unverified_label`]: the report and the console summary
/// are drawn from this copy, so that no table row, chart label or verdict line can leave the mark out (each
/// section would otherwise have to remember it). `benchmark.json` keeps the plain names.
pub fn marked(b: &Benchmark) -> Benchmark {
    let mut b = b.clone();
    let unverified: Vec<String> =
        b.subjects.iter().filter(|s| s.verification.measured_unverified).map(|s| s.name.clone()).collect();
    let mark = |name: &mut String| {
        if unverified.contains(name) {
            *name = unverified_label(name);
        }
    };
    b.subjects.iter_mut().for_each(|s| mark(&mut s.name));
    if let Some(base) = b.settings.baseline.as_mut() {
        mark(base);
    }
    b.runs.iter_mut().for_each(|r| mark(&mut r.subject));
    b.open_loop.iter_mut().for_each(|r| mark(&mut r.subject));
    b.memory.iter_mut().for_each(|r| mark(&mut r.subject));
    b.summaries.iter_mut().for_each(|s| mark(&mut s.subject));
    b.memory_summaries.iter_mut().for_each(|s| mark(&mut s.subject));
    for f in b.flags.iter_mut() {
        // Flag messages open with the subject's name ("beta get at 8 connections: …").
        if unverified.contains(&f.subject) && f.message.starts_with(&format!("{} ", f.subject)) {
            f.message = format!("{}{}", unverified_label(&f.subject), &f.message[f.subject.len()..]);
        }
        mark(&mut f.subject);
    }
    b
}

/// Whether `name` is a running service fairpair did not start (`--subject NAME=http://…`).
fn is_external(b: &Benchmark, name: &str) -> bool {
    b.subjects.iter().any(|s| s.name == name && s.kind == SubjectKind::External)
}

/// The report's Markdown and the charts it links (file name, SVG text). `write` also writes `report.html` and the
/// charts only it shows.
pub fn render(b: &Benchmark) -> (String, Vec<(String, String)>) {
    let doc = document(b);
    let charts = doc.charts().filter(|c| c.in_markdown).map(|c| (c.file.clone(), c.svg.clone())).collect();
    (markdown::render(&doc), charts)
}

/// The report as a [`Document`]: one section after another, each renderer's input.
pub fn document(b: &Benchmark) -> Document {
    let b = &marked(b);
    let mut doc = Document::default();
    let subjects: Vec<&str> = b.subjects.iter().map(|s| s.name.as_str()).collect();
    let cells = cells(&b.summaries);
    header(&mut doc, b);
    environment(&mut doc, b);
    two_hosts(&mut doc, b);
    method(&mut doc, b);
    preflight_section(&mut doc, b);
    subjects_section(&mut doc, b);
    commands(&mut doc, b);
    if !cells.is_empty() {
        throughput(&mut doc, b, &cells, &subjects);
        doc.chart("throughput.svg".into(), "throughput".into(), throughput_chart(b, &cells, &subjects), true);
        latency(&mut doc, b, &cells, &subjects);
        for (scenario, conns) in &cells {
            let svg = latency_chart(b, scenario, *conns, &subjects);
            doc.chart(format!("latency-{scenario}-{conns}.svg"), format!("latency {scenario} {conns}"), svg, true);
            // The whole tail at a glance; not linked from report.md, whose layout the golden test fixes.
            let svg = spectrum_chart(b, scenario, *conns, &subjects);
            let (file, alt) = (format!("spectrum-{scenario}-{conns}.svg"), format!("percentiles {scenario} {conns}"));
            doc.chart(file, alt, svg, false);
        }
        cpu(&mut doc, b, &cells, &subjects);
    }
    open_loop(&mut doc, b);
    if memory(&mut doc, b) {
        doc.chart("memory.svg".into(), "memory".into(), memory_chart(&b.memory_summaries), true);
    }
    ratios(&mut doc, b, &cells);
    published(&mut doc, b);
    left_out(&mut doc, b);
    diagnoses(&mut doc, b);
    flags_and_skipped(&mut doc, b);
    doc
}

fn header(doc: &mut Document, b: &Benchmark) {
    doc.heading(1, "fairpair report");
    if !b.complete {
        doc.push(Block::Note(
            "**INCOMPLETE**: the run stopped before it finished (interrupted or killed); only the runs recorded up to \
             then are below."
                .into(),
        ));
    }
    doc.paragraph(format!(
        "Measured {} by {} on `{}` (schema {}). Every figure below is a median over repeated runs, each on a \
         freshly started server; the raw runs, with each tool's exact command and output, are in `benchmark.json`.",
        b.environment.date, b.generator, b.environment.hostname, b.schema_version
    ));
    if let Some(t) = &b.two_hosts {
        doc.push(Block::Note(format!(
            "**A two-host run**: the load generator ran on `{}` ({}), the subjects on the server host `{}` ({}, \
             reached as `{}` over ssh). The server side's CPU time, memory and start-up were read from that host's \
             `/proc`. See *Server host and network path*.",
            b.environment.hostname, t.loader_address, t.server_environment.hostname, t.server_address, t.server_host
        )));
        if t.same_kernel {
            doc.push(Block::Note(
                "Both hosts ran on **one kernel** (the same boot id): namespaces or containers of one machine, which \
                 share its CPUs, caches and memory bandwidth. This run shows the two-host mechanics; its figures are \
                 not those of two machines."
                    .into(),
            ));
        }
    }
    if b.settings.quick {
        doc.push(Block::Note(
            "**A `--quick` smoke run**: one short run per cell, so there is no measure of noise. Check the pipeline \
             with it; do not quote its figures."
                .into(),
        ));
    }
}

fn environment(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Environment");
    if b.two_hosts.is_some() {
        doc.paragraph("The load generator's host (the server host is described in the next section).");
    }
    environment_table(doc, &b.environment, b.schema_version);
}

/// The table of one host's machine and software.
fn environment_table(doc: &mut Document, e: &crate::schema::Environment, schema_version: u32) {
    let mut t = Table::new(&[("", Align::Left), ("", Align::Left)]);
    let mut row = |k: &str, v: String| t.row(vec![k.to_string(), v]);
    row("CPU", format!("{} × {} online (allowed: {})", e.cpu_model, e.cpus_online, cpu_list(&e.cpus_allowed)));
    row("memory", format!("{:.1} GiB", e.memory_total_kib as f64 / 1024.0 / 1024.0));
    row("OS, kernel", format!("{}, Linux {}", e.os, e.kernel));
    row("rustc", e.rustc.clone());
    row("node", e.node.clone());
    for (tool, version) in &e.tools {
        row(tool, version.clone());
    }
    row("git", format!("`{}`{}", e.git_commit, if e.git_dirty { " (uncommitted changes)" } else { "" }));
    if schema_version >= 2 {
        let somaxconn = e.somaxconn.map_or("unreadable".to_string(), |v| v.to_string());
        row("`net.core.somaxconn`", format!("{somaxconn} (the most any listen backlog gets)"));
        let governor = e.cpu_governor.as_deref().unwrap_or("not exposed by the kernel (common in virtual machines)");
        row("CPU frequency governor", governor.to_string());
    }
    doc.push(Block::Table(t));
}

/// The server host of a two-host run and the path to it; nothing on one machine.
fn two_hosts(doc: &mut Document, b: &Benchmark) {
    let Some(t) = &b.two_hosts else { return };
    doc.heading(2, "Server host and network path");
    doc.paragraph(format!(
        "The subjects ran on `{}` (`{}`, started from `{}`); this is its machine and software:",
        t.server_environment.hostname, t.server_host, t.server_dir
    ));
    environment_table(doc, &t.server_environment, b.schema_version);
    let mut table = Table::new(&[("network path", Align::Left), ("", Align::Left)]);
    table.row(vec!["addresses".into(), format!("loader {} → server {}", t.loader_address, t.server_address)]);
    let rtt = t.rtt_ms.as_ref().map_or("not measured".to_string(), |r| {
        format!(
            "median {:.3} ms, {:.3}–{:.3} over {} TCP handshakes with the server host, before the runs",
            r.median, r.min, r.max, r.n
        )
    });
    table.row(vec!["round trip".into(), rtt]);
    table.row(vec!["loader's interface".into(), format!("`{}`", t.interface.as_deref().unwrap_or("not found"))]);
    if let Some(n) = &t.interface_bytes {
        let bytes = format!("{} received, {} sent", thousands(n.rx_bytes as f64), thousands(n.tx_bytes as f64));
        table.row(vec!["bytes through it, whole run".into(), bytes]);
    }
    let runs: Vec<String> = b
        .runs
        .iter()
        .filter_map(|r| {
            let n = r.network?;
            Some(format!(
                "{} {} c={}: {} B received for {} responses",
                r.subject,
                r.scenario,
                r.connections,
                thousands(n.rx_bytes as f64),
                thousands(r.requests as f64)
            ))
        })
        .collect();
    if !runs.is_empty() {
        table.row(vec!["each measured run".into(), runs.join("; ")]);
    }
    if let Some(worst) = b.runs.iter().filter_map(|r| r.server_host_other_cpu_percent).reduce(f64::max) {
        table.row(vec![
            "other processes on the server host".into(),
            format!(
                "up to {worst:.0} % of its CPUs during a measured run (its own `/proc/stat`; the *busy machine* flags \
                 are the loader host's)"
            ),
        ]);
    }
    doc.push(Block::Table(table));
}

fn method(doc: &mut Document, b: &Benchmark) {
    let (e, s) = (&b.environment, &b.settings);
    doc.heading(2, "Method");
    let mut items = vec![format!(
        "Closed loop: `{}` ({}) with {} thread(s); {} s warm-up (discarded, a separate run of the tool), then {} s \
         measured; {} repeat(s) per cell; a fresh server process for every run; subjects alternated run by run.",
        s.tool,
        e.tools.get(s.tool.name()).map_or("version unknown", String::as_str),
        s.loader_threads,
        s.warmup_s,
        s.duration_s,
        s.repeats
    )];
    items.push(if let (true, Some(t)) = (s.pinned, &b.two_hosts) {
        format!(
            "Pinning (`taskset`), on each host: servers on CPU {} of the server host `{}`, load generator on CPU {} \
             of `{}`.",
            cpu_list(&s.server_cpus),
            t.server_environment.hostname,
            cpu_list(&s.loader_cpus),
            e.hostname
        )
    } else if s.pinned {
        format!(
            "Pinning (`taskset`): servers on CPU {}, load generator on CPU {}.",
            cpu_list(&s.server_cpus),
            cpu_list(&s.loader_cpus)
        )
    } else {
        "Not pinned: servers and load generator shared the CPUs (the article's method).".into()
    });
    items.push(format!(
        "Before each run the harness waited up to {} s for other processes to use under {} % of the machine, and \
         recorded what they used during the run.",
        s.idle_wait_max_s, s.idle_threshold_percent
    ));
    match b.preflight.as_ref().and_then(|p| p.store.as_ref()) {
        Some(store) => items.push(format!(
            "POST runs: every server started with {} (see *Preflight*).",
            crate::summary::store_sentence(store)
        )),
        None if b.schema_version == 1 => items.push(format!(
            "POST runs: every server started with `--max-users {}`, sized from a fixed guess of the POST rate \
             (schema 1; later versions measure it).",
            s.post_max_users
        )),
        None => {}
    }
    items.push(format!(
        "Memory: separate runs ({} per subject): RSS, peak RSS (VmHWM) and PSS summed over all the subject's \
         processes, {} ms after the first 200, and right after {} s of GET at {} connections.",
        s.memory_repeats, s.memory_settle_ms, s.memory_duration_s, s.memory_connections
    ));
    // Quoted as a shell would need it, so that the line can be pasted back (`--subject mine='python3 mine.py {port}'`).
    items.push(format!("Command: `{}`", crate::tools::shell_words(&s.argv)));
    doc.list(items);
}

/// What preflight measured: the loader's capacity, the POST rates and the store size chosen from them.
fn preflight_section(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Preflight");
    let Some(p) = &b.preflight else {
        doc.paragraph(format!(
            "Not recorded (a schema {} file): the loader's capacity was not measured, so no figure is marked \
             loader-limited; the loader-bound flag (≥ {:.0} % loader CPU) is the only sign of a loader limit.",
            b.schema_version,
            crate::summary::LOADER_BOUND_PERCENT
        ));
        return;
    };
    if p.loader_capacity.is_empty() {
        // The trailing newline is an extra blank line in report.md, as it has always had here: kept so that the
        // same benchmark.json still gives the same bytes.
        doc.paragraph("Loader capacity: not measured (see *Skipped*).\n");
    } else {
        doc.paragraph(format!(
            "Loader capacity: what `{}` generates on the loader CPUs against the ceiling (as many workers as server \
             CPUs). A subject above **{:.0} %** of it is *loader-limited*: its ratios are printed as bounds (`≥`, \
             `≤`), and CPU per request is the headline of its comparisons.",
            b.settings.tool, p.loader_limited_share_percent
        ));
        doc.push(Block::Table(loader_capacity_table(p)));
    }
    for c in &p.post_calibration {
        let mut bytes = c.bytes_per_user.map_or(String::new(), |v| format!(", {v:.0} bytes of RSS per stored user"));
        if !c.machine_idle {
            bytes.push_str(" (**the machine was busy**: a run faster than this gets a larger store on its rerun)");
        }
        // One list per rate, each item a paragraph of its own (a blank line between them in Markdown).
        doc.list(vec![format!(
            "{} rate of {}: {} requests/s at {} connections over {:.1} s{bytes}.",
            c.scenario,
            c.subject,
            thousands(c.requests_per_sec),
            c.connections,
            c.duration_s
        )]);
    }
    if let Some(store) = &p.store {
        doc.paragraph(format!("Store: {}.", crate::summary::store_sentence(store)));
    }
    doc.paragraph(format!("Preflight took {:.0} s, verification included.", p.duration_s));
}

fn loader_capacity_table(p: &crate::schema::Preflight) -> Table {
    use Align::{Left, Right};
    let mut t = Table::new(&[
        ("scenario", Left),
        ("connections", Right),
        ("loader capacity req/s", Right),
        ("measured req/s", Right),
        ("loader CPU %", Right),
        ("basis", Left),
        ("machine idle", Left),
    ]);
    for c in &p.loader_capacity {
        let basis = match c.basis {
            CapacityBasis::Saturated => "loader saturated",
            CapacityBasis::Extrapolated => "target was the limit: scaled to a fully busy loader",
        };
        t.row(vec![
            c.scenario.clone(),
            c.connections.to_string(),
            thousands(c.loader_capacity_rps),
            thousands(c.measured_rps),
            format!("{:.0}", c.loader_cpu_percent),
            basis.into(),
            if c.machine_idle { "yes" } else { "**no**" }.into(),
        ]);
    }
    t
}

fn subjects_section(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Subjects");
    let mut t = Table::new(&[("subject", Align::Left), ("command", Align::Left), ("contract", Align::Left)]);
    for sub in &b.subjects {
        let v = &sub.verification;
        let contract = match v.status {
            VerificationStatus::Passed => {
                format!("verified at level {}: {} passed, {} skipped", v.level, v.passed, v.skipped)
            }
            VerificationStatus::Failed if v.measured_unverified => {
                format!("**UNVERIFIED** at level {}: {} failed (measured with --allow-unverified)", v.level, v.failed)
            }
            VerificationStatus::Failed => format!("failed {} cases at level {}: not measured", v.failed, v.level),
            VerificationStatus::NotApplicable => "not applicable (fixed-response baseline, GET only)".into(),
        };
        let notes: String = v.notes.iter().map(|n| format!("; {n}")).collect();
        t.row(vec![sub.name.clone(), format!("`{}`", sub.command), format!("{contract}{notes}")]);
    }
    doc.push(Block::Table(t));
}

fn commands(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Exact commands");
    doc.paragraph("The first run of each cell (ports differ run to run):");
    let mut items = Vec::new();
    let mut seen = Vec::new();
    for r in &b.runs {
        let key = (r.scenario.as_str(), r.connections);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        items.push(format!("{} at {} connections: `{}`", r.scenario, r.connections, r.command));
    }
    if let Some(r) = b.open_loop.first() {
        items.push(format!(
            "open loop ({} at {} connections, {:.0} requests/s): `{}`",
            r.scenario, r.connections, r.asked_rps, r.command
        ));
    }
    if let Some(r) = b.memory.first() {
        items.push(format!("memory phase load: `{}`", r.load_command));
    }
    doc.list(items);
    for sc in &b.scenarios {
        if let Some(script) = &sc.wrk_script {
            doc.push(Block::Code {
                summary: format!("wrk script for `{}` ({} {})", sc.name, sc.method, sc.path),
                language: "lua".into(),
                code: script.clone(),
            });
        }
    }
}

/// The subject every ratio is taken against: `--baseline`, else the first built-in subject that implements the API
/// (rust by default), else the first that implements it. `None` when no subject implements it.
pub fn baseline(b: &Benchmark) -> Option<&str> {
    let api: Vec<&crate::schema::SubjectRecord> = b.subjects.iter().filter(|s| !s.get_only).collect();
    let given = b.settings.baseline.as_deref().and_then(|n| api.iter().find(|s| s.name == n));
    let builtin = api.iter().find(|s| s.kind == SubjectKind::Builtin);
    given.or(builtin).or(api.first()).map(|s| s.name.as_str())
}

/// `a / b` when both were measured and positive; `None` where a ratio would mean nothing (a subject with no
/// throughput figure, or a zero), so that no table prints `0.00×` for "not measured".
fn ratio(a: f64, b: f64) -> Option<f64> {
    (a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite()).then(|| a / b)
}

/// A percentage: whole numbers, but two significant digits below 10 % (`0.96 %`, never `0 %` for a small share).
fn percent_text(p: f64) -> String {
    if p >= 10.0 {
        format!("{p:.0}")
    } else if p >= 1.0 {
        format!("{p:.1}")
    } else if p > 0.0 {
        let decimals = (1 - p.log10().floor() as i32) as usize;
        format!("{p:.decimals$}")
    } else {
        "—".into()
    }
}

/// A ratio with two significant digits at least: `2.10`, `0.48`, `0.0096` (never `0.00` for a small one).
pub fn ratio_text(r: f64) -> String {
    if r <= 0.0 || !r.is_finite() {
        return "—".into();
    }
    let decimals = if r >= 0.1 { 2 } else { (1 - r.log10().floor() as i32).max(2) as usize };
    format!("{r:.decimals$}")
}

fn throughput(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    let measured = b.preflight.as_ref().is_some_and(|p| !p.loader_capacity.is_empty());
    let share = if measured { ", then the share of the loader's capacity (see *Preflight*)" } else { "" };
    let base = baseline(b);
    let against = base.map_or(String::new(), |n| format!(" Ratios are against {n} (`--baseline`)."));
    doc.heading(2, "Throughput (requests/s)");
    doc.paragraph(format!(
        "Median [min–max], CV in parentheses{share}. Only runs whose every response had the expected status count \
         (see *Left out*).{against}"
    ));
    let others: Vec<&str> =
        b.subjects.iter().filter(|s| !s.get_only && Some(s.name.as_str()) != base).map(|s| s.name.as_str()).collect();
    let base = base.unwrap_or_default();
    let ratio_titles: Vec<String> = others.iter().map(|other| format!("{other} / {base}")).collect();
    let mut columns = vec![("scenario", Align::Left), ("connections", Align::Right)];
    columns.extend(subjects.iter().map(|n| (*n, Align::Right)));
    columns.extend(ratio_titles.iter().map(|n| (n.as_str(), Align::Right)));
    let mut t = Table::new(&columns);
    for (scenario, conns) in cells {
        let mut row = vec![scenario.clone(), conns.to_string()];
        row.extend(subjects.iter().map(|name| throughput_cell(b, name, scenario, *conns)));
        for other in &others {
            let (a, c) = (find(&b.summaries, other, scenario, *conns), find(&b.summaries, base, scenario, *conns));
            row.push(match (a, c) {
                (Some(a), Some(c)) => ratio(a.requests_per_sec.median, c.requests_per_sec.median)
                    .map_or("—".into(), |r| Bound::of(a, c, true).format(r)),
                _ => "—".into(),
            });
        }
        t.row(row);
    }
    doc.push(Block::Table(t));
}

fn throughput_cell(b: &Benchmark, name: &str, scenario: &str, conns: u32) -> String {
    let Some(s) = find(&b.summaries, name, scenario, conns) else {
        let left = b.runs.iter().any(|r| r.subject == name && r.scenario == scenario && r.connections == conns);
        return if left { "left out (see *Left out*)".into() } else { "—".into() };
    };
    let r = &s.requests_per_sec;
    let figure = if r.n > 1 {
        format!("{} [{}–{}]{}", thousands(r.median), thousands(r.min), thousands(r.max), cv(r))
    } else {
        thousands(r.median)
    };
    match s.loader_capacity_share_percent {
        Some(share) if s.loader_limited => format!("{figure} · **{share:.0} % of loader: loader-limited**"),
        Some(share) => format!("{figure} · {share:.0} % of loader"),
        None => figure,
    }
}

fn latency(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    use Align::{Left, Right};
    doc.heading(2, "Latency under closed-loop load (ms)");
    doc.paragraph(
        "Medians over runs. A closed loop waits for each answer, so these are latencies at saturation, not at a given \
         rate (see the open-loop section).",
    );
    let mut t = Table::new(&[
        ("scenario", Left),
        ("connections", Right),
        ("subject", Left),
        ("p50", Right),
        ("p90", Right),
        ("p99", Right),
        ("p99.9", Right),
        ("max", Right),
    ]);
    for (scenario, conns) in cells {
        for name in subjects {
            if let Some(s) = find(&b.summaries, name, scenario, *conns) {
                let mut row = vec![scenario.clone(), conns.to_string(), name.to_string()];
                row.extend(latency_points(s).map(|(_, p)| p.map_or_else(not_reported, |p| ms(p.median))));
                t.row(row);
            }
        }
    }
    doc.push(Block::Table(t));
    if b.summaries.iter().any(|s| s.p99_9_ms.is_none()) {
        doc.paragraph(format!(
            "n/r: not reported by the load tool (`{}` gives no p99.9: ab's percentiles go in steps of 1 %, \
             bombardier's stop at p99).",
            b.settings.tool
        ));
    }
}

fn cpu(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) {
    use Align::{Left, Right};
    doc.heading(2, "CPU and machine");
    doc.paragraph(format!(
        "Server CPU time per request (all its processes, from `/proc`); the load generator's CPU use as a share of \
         the CPUs it had (≥ {:.0} % = loader-bound, a second sign of a loader limit beside the capacity share); the \
         most CPU time the hypervisor stole during a run (`/proc/stat`); the accept backlog the server's listening \
         socket got (`ss`, capped by `net.core.somaxconn`).",
        crate::summary::LOADER_BOUND_PERCENT
    ));
    let mut t = Table::new(&[
        ("scenario", Left),
        ("connections", Right),
        ("subject", Left),
        ("server CPU µs/request", Right),
        ("loader CPU %", Right),
        ("steal %", Right),
        ("listen backlog", Right),
    ]);
    for (scenario, conns) in cells {
        for name in subjects {
            if let Some(s) = find(&b.summaries, name, scenario, *conns) {
                let cpu = match &s.server_cpu_us_per_request {
                    Some(c) => format!("{:.1} [{:.1}–{:.1}]", c.median, c.min, c.max),
                    None if is_external(b, name) => "not measured (a running service)".into(),
                    None => "—".into(),
                };
                let steal = s.steal_percent_max.map_or("—".into(), |v| format!("{v:.1}"));
                let backlog = s.listen_backlog.map_or("—".into(), |v| v.to_string());
                let loader = format!("{:.0}", s.loader_cpu_percent.median);
                t.row(vec![scenario.clone(), conns.to_string(), name.to_string(), cpu, loader, steal, backlog]);
            }
        }
    }
    doc.push(Block::Table(t));
}

fn open_loop(doc: &mut Document, b: &Benchmark) {
    use Align::{Left, Right};
    doc.heading(2, "Open-loop latency at fixed rates (ms)");
    if b.open_loop.is_empty() {
        doc.paragraph("Not measured (see *Skipped*).");
        return;
    }
    let mut t = Table::new(&[
        ("subject", Left),
        ("asked req/s", Right),
        ("achieved req/s", Right),
        ("tool", Left),
        ("corrected for coordinated omission", Left),
        ("p50", Right),
        ("p90", Right),
        ("p99", Right),
        ("p99.9", Right),
        ("max", Right),
    ]);
    for r in &b.open_loop {
        let l = &r.latency;
        t.row(vec![
            r.subject.clone(),
            thousands(r.asked_rps),
            thousands(r.achieved_rps),
            r.tool.to_string(),
            if r.latency_corrected { "yes" } else { "no" }.into(),
            ms(l.p50_ms),
            ms(l.p90_ms),
            ms(l.p99_ms),
            l.p99_9_ms.map_or_else(not_reported, ms),
            ms(l.max_ms),
        ]);
    }
    doc.push(Block::Table(t));
}

/// The memory table; returns whether there was anything to chart.
fn memory(doc: &mut Document, b: &Benchmark) -> bool {
    use Align::{Left, Right};
    doc.heading(2, "Memory and start-up");
    if b.memory_summaries.is_empty() {
        doc.paragraph("Not measured.");
        return false;
    }
    doc.paragraph("MiB, median [min–max] over fresh processes, summed over each subject's processes.");
    let mut t = Table::new(&[
        ("subject", Left),
        ("processes", Right),
        ("idle RSS", Right),
        ("idle PSS", Right),
        ("after-load RSS", Right),
        ("after-load PSS", Right),
        ("peak RSS", Right),
        ("start-up to first 200 (ms)", Right),
    ]);
    for sub in b.subjects.iter().filter(|s| s.kind == SubjectKind::External) {
        let mut row = vec![sub.name.clone(), "not measured (a running service fairpair did not start)".into()];
        row.extend(std::iter::repeat_n(String::new(), 5));
        row.push("not measured".into());
        t.row(row);
    }
    for m in &b.memory_summaries {
        t.row(vec![
            m.subject.clone(),
            m.processes.to_string(),
            mib(&m.idle_rss_kib),
            mib(&m.idle_pss_kib),
            mib(&m.after_rss_kib),
            mib(&m.after_pss_kib),
            mib(&m.after_hwm_kib),
            format!("{:.0} [{:.0}–{:.0}]", m.startup_ms.median, m.startup_ms.min, m.startup_ms.max),
        ]);
    }
    doc.push(Block::Table(t));
    true
}

fn ratios(doc: &mut Document, b: &Benchmark, cells: &[(String, u32)]) {
    doc.heading(2, "Ratios and verdicts");
    doc.paragraph(
        "A difference *exceeds the noise* only when the min–max ranges of the two subjects' runs do not overlap; \
         with a single run per side the noise is unknown and no verdict is given. Where a subject is loader-limited, \
         its throughput and latency ratios are bounds, and CPU per request (which the loader cannot distort) leads.",
    );
    let contract_subjects: Vec<&str> = b.subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).collect();
    let mut items = Vec::new();
    let mut any = false;
    // Each subject against the baseline, not every pair: with a service of one's own beside rust and node, the
    // question is how it compares with the reference.
    let base = baseline(b).unwrap_or_default();
    let pairs: Vec<(&str, &str)> =
        contract_subjects.iter().filter(|n| **n != base).map(|other| (base, *other)).collect();
    for (a, other) in pairs {
        for (scenario, conns) in cells {
            let (Some(sa), Some(sb)) =
                (find(&b.summaries, a, scenario, *conns), find(&b.summaries, other, scenario, *conns))
            else {
                continue;
            };
            any = true;
            cell_verdicts(&mut items, &format!("{scenario}, {conns} connections"), sa, sb);
        }
        any |= memory_verdicts(&mut items, b, a, other);
    }
    any |= ceiling_lines(&mut items, b, cells, &contract_subjects);
    doc.list(items);
    if !any {
        doc.paragraph("No two subjects were measured on the same cell.");
    }
}

/// For a run of a study's preset (`--preset`), the figures that study published, beside ours for the same subject,
/// scenario and connection count. Theirs come from another machine and often another method: the section says so,
/// and gives no ratio between the two columns.
fn published(doc: &mut Document, b: &Benchmark) {
    use crate::kinds::BuiltinSubject;
    use crate::presets::Metric;
    use Align::{Left, Right};
    let Some(preset) = b.settings.preset_used() else { return };
    let Some(study) = preset.study() else { return };
    doc.heading(2, "The study's published figures beside ours");
    doc.paragraph(format!(
        "This run reproduces \"{study}\" (`--preset {}`). The study's method, its machine and how each preset departs \
         from it are in docs/prior-results.md in the fairpair repository. Its figures were measured on another \
         machine, so compare the shape (which subject leads, by how much), not the values.",
        preset.name()
    ));
    let builtin = |name: &str| b.subjects.iter().any(|s| s.name == name && s.kind == SubjectKind::Builtin);
    let measured: Vec<BuiltinSubject> = b
        .summaries
        .iter()
        .filter(|s| builtin(&s.subject))
        .filter_map(|s| BuiltinSubject::from_name(&s.subject))
        .collect();
    let departures = preset.departures(b.settings.quick, &measured);
    if !departures.is_empty() {
        doc.paragraph("Where this run departed from the study's method:");
        doc.list(departures.into_iter().map(String::from).collect());
    }
    if preset.published().is_empty() {
        doc.paragraph("The study published no figure that fairpair measures the same way (see its method).");
        return;
    }
    let mut t = Table::new(&[
        ("subject", Left),
        ("scenario", Left),
        ("connections", Right),
        ("figure", Left),
        ("published", Right),
        ("here (median)", Right),
    ]);
    for p in preset.published() {
        let (what, ours) = match p.metric {
            Metric::RequestsPerSec => (
                "requests/s",
                find(&b.summaries, p.subject.name(), p.scenario.name(), p.connections)
                    .map(|s| thousands(s.requests_per_sec.median)),
            ),
            Metric::RssIdleMb => {
                ("RSS idle, MB", find_mem(&b.memory_summaries, p.subject.name()).map(|m| mb(&m.idle_rss_kib)))
            }
            Metric::RssAfterLoadMb => {
                ("RSS after load, MB", find_mem(&b.memory_summaries, p.subject.name()).map(|m| mb(&m.after_rss_kib)))
            }
        };
        let ours = ours.unwrap_or_else(|| "not measured".into());
        let theirs = if p.metric == Metric::RequestsPerSec { thousands(p.value) } else { num(p.value) };
        let (subject, scenario) = (p.subject.to_string(), p.scenario.to_string());
        t.row(vec![subject, scenario, p.connections.to_string(), what.into(), theirs, ours]);
    }
    doc.push(Block::Table(t));
}

/// KiB as decimal megabytes, the unit `ps` and the articles print.
fn mb(s: &Stat) -> String {
    format!("{:.1}", s.median * 1024.0 / 1e6)
}

/// The verdicts of one cell for two subjects: throughput, p99 and CPU per request, CPU first when either is
/// loader-limited.
fn cell_verdicts(items: &mut Vec<String>, at: &str, sa: &Summary, sb: &Summary) {
    let (a, other) = (sa.subject.as_str(), sb.subject.as_str());
    let cpu = match (&sa.server_cpu_us_per_request, &sb.server_cpu_us_per_request) {
        (Some(ca), Some(cb)) => Some(compare(a, other, ca, cb, false, "µs")),
        _ => None,
    };
    let limited = sa.loader_limited || sb.loader_limited;
    if let (true, Some(line)) = (limited, &cpu) {
        items.push(format!("{at}, **CPU per request (the headline: {})**: {line}", limited_names(sa, sb)));
    }
    let throughput = match Bound::of(sa, sb, true) {
        Bound::Exact => compare(a, other, &sa.requests_per_sec, &sb.requests_per_sec, true, "requests/s"),
        bound => bounded(sa, sb, &sa.requests_per_sec, &sb.requests_per_sec, bound, "requests/s"),
    };
    items.push(format!("{at}, throughput: {throughput}"));
    let p99 = match Bound::of(sa, sb, false) {
        Bound::Exact => compare(a, other, &sa.p99_ms, &sb.p99_ms, false, "ms"),
        bound => bounded(sa, sb, &sa.p99_ms, &sb.p99_ms, bound, "ms"),
    };
    items.push(format!("{at}, p99 latency: {p99}"));
    if let (false, Some(line)) = (limited, cpu) {
        items.push(format!("{at}, CPU per request: {line}"));
    }
}

fn limited_names(sa: &Summary, sb: &Summary) -> String {
    let names: Vec<String> =
        [sa, sb].iter().filter(|s| s.loader_limited).map(|s| format!("{} is loader-limited", s.subject)).collect();
    names.join(", ")
}

/// A ratio that is a bound: the figures, `a/b ≥ r×` (or `≤`), and why.
fn bounded(sa: &Summary, sb: &Summary, va: &Stat, vb: &Stat, bound: Bound, unit: &str) -> String {
    let (a, other) = (&sa.subject, &sb.subject);
    let figures = format!("{a} {} vs {other} {} {unit}", num(va.median), num(vb.median));
    let ratio = if vb.median > 0.0 { bound.format(va.median / vb.median) } else { "—".into() };
    let why: Vec<String> = [sa, sb]
        .iter()
        .filter_map(|s| {
            let share = s.loader_capacity_share_percent.filter(|_| s.loader_limited)?;
            Some(format!("{} at {share:.0} % of the loader's capacity", s.subject))
        })
        .collect();
    format!("{figures} — {a}/{other} {ratio}, a bound, not a measured ratio ({}).", why.join(", "))
}

fn memory_verdicts(items: &mut Vec<String>, b: &Benchmark, a: &str, other: &str) -> bool {
    let (Some(ma), Some(mb)) = (find_mem(&b.memory_summaries, a), find_mem(&b.memory_summaries, other)) else {
        return false;
    };
    let (idle_a, idle_b) = (kib_to_mib(&ma.idle_rss_kib), kib_to_mib(&mb.idle_rss_kib));
    items.push(format!("memory idle (RSS): {}", compare(a, other, &idle_a, &idle_b, false, "MiB")));
    let (after_a, after_b) = (kib_to_mib(&ma.after_rss_kib), kib_to_mib(&mb.after_rss_kib));
    items.push(format!("memory after load (RSS): {}", compare(a, other, &after_a, &after_b, false, "MiB")));
    items.push(format!("start-up to first 200: {}", compare(a, other, &ma.startup_ms, &mb.startup_ms, false, "ms")));
    true
}

/// "rust reaches 85 % of the ceiling baseline", as a bound when either side is loader-limited.
fn ceiling_lines(items: &mut Vec<String>, b: &Benchmark, cells: &[(String, u32)], contract_subjects: &[&str]) -> bool {
    let mut any = false;
    for ceiling in b.subjects.iter().filter(|s| s.get_only) {
        for (scenario, conns) in cells {
            let Some(c) = find(&b.summaries, &ceiling.name, scenario, *conns) else { continue };
            for name in contract_subjects {
                let Some(s) = find(&b.summaries, name, scenario, *conns) else { continue };
                any = true;
                let Some(share) = ratio(s.requests_per_sec.median, c.requests_per_sec.median).map(|r| r * 100.0) else {
                    continue;
                };
                let share = percent_text(share);
                let reaches = match Bound::of(s, c, true) {
                    Bound::Exact => format!("reaches {share} %"),
                    Bound::AtLeast => format!("reaches at least {share} % (it is loader-limited)"),
                    Bound::AtMost => {
                        format!("reaches at most {share} % (the {} is loader-limited)", ceiling.name)
                    }
                    Bound::Unknown => {
                        format!("measured {share} % (both loader-limited: not a comparison of the servers)")
                    }
                };
                items.push(format!(
                    "{scenario}, {conns} connections: {name} {reaches} of the {} baseline ({} vs {} requests/s).",
                    ceiling.name,
                    thousands(s.requests_per_sec.median),
                    thousands(c.requests_per_sec.median)
                ));
            }
        }
    }
    any
}

/// Runs that are not throughput figures, each with its reason.
fn left_out(doc: &mut Document, b: &Benchmark) {
    let out: Vec<&LoadRun> = b.runs.iter().filter(|r| r.left_out.is_some()).collect();
    if out.is_empty() {
        return;
    }
    doc.heading(2, "Left out");
    doc.paragraph(
        "Runs whose responses were not all of the status their scenario expects: they are no throughput figure, so \
         no table above counts them.",
    );
    doc.list(
        out.iter()
            .map(|r| {
                format!(
                    "{} {} at {} connections, run {}: {} ({} req/s as measured).",
                    r.subject,
                    r.scenario,
                    r.connections,
                    r.repeat,
                    r.left_out.as_deref().unwrap_or_default(),
                    thousands(r.requests_per_sec)
                )
            })
            .collect(),
    );
}

/// Known signatures in the figures (see `diagnose.rs`), each a hypothesis with how to check it; nothing when none.
fn diagnoses(doc: &mut Document, b: &Benchmark) {
    let found = crate::diagnose::diagnose(b);
    if found.is_empty() {
        return;
    }
    doc.heading(2, "Diagnoses");
    doc.paragraph(
        "These figures match a known signature. Each is a hypothesis to check before the figure is quoted, not a \
         verdict.",
    );
    doc.list(found.iter().map(|d| d.render()).collect());
}

fn flags_and_skipped(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Flags");
    if b.flags.is_empty() {
        doc.paragraph("None: no run was noisy (CV > 5 %), loader-bound, on a busy machine, or had errors.");
    }
    doc.list(b.flags.iter().map(|f| format!("**{}**: {}", f.kind, f.message)).collect());
    doc.heading(2, "Skipped");
    if b.skipped.is_empty() {
        doc.paragraph("Nothing.");
    }
    doc.list(b.skipped.iter().map(|s| s.to_string()).collect());
}

/// How far a ratio `a / b` can be trusted, given which side is loader-limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Neither side is loader-limited: a measured ratio.
    Exact,
    /// The true ratio is at least the measured one.
    AtLeast,
    /// The true ratio is at most the measured one.
    AtMost,
    /// Both sides are loader-limited: the ratio compares the loader with itself.
    Unknown,
}

impl Bound {
    /// A loader-limited subject's throughput is at most what it could do (the loader held it back), and its latency
    /// at least what it would be (the loader's queueing is in it). So for a metric where higher is better, `a`
    /// limited makes `a / b` a lower bound; where lower is better (latency), an upper bound.
    pub fn of(a: &Summary, b: &Summary, higher_is_better: bool) -> Bound {
        Bound::from_limits(a.loader_limited, b.loader_limited, higher_is_better)
    }

    pub fn from_limits(a_limited: bool, b_limited: bool, higher_is_better: bool) -> Bound {
        match (a_limited, b_limited, higher_is_better) {
            (false, false, _) => Bound::Exact,
            (true, true, _) => Bound::Unknown,
            (true, false, true) | (false, true, false) => Bound::AtLeast,
            _ => Bound::AtMost,
        }
    }

    /// `2.10×`, `≥ 2.10×`, `≤ 0.48×`, or a dash when both sides are limited.
    pub fn format(self, ratio: f64) -> String {
        match self {
            Bound::Exact => format!("{}×", ratio_text(ratio)),
            Bound::AtLeast => format!("≥ {}×", ratio_text(ratio)),
            Bound::AtMost => format!("≤ {}×", ratio_text(ratio)),
            Bound::Unknown => "— (both loader-limited)".into(),
        }
    }
}

/// Distinct (scenario, connections) pairs in first-seen order.
fn cells(summaries: &[Summary]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for s in summaries {
        let k = (s.scenario.clone(), s.connections);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

fn find<'a>(summaries: &'a [Summary], subject: &str, scenario: &str, connections: u32) -> Option<&'a Summary> {
    summaries.iter().find(|s| s.subject == subject && s.scenario == scenario && s.connections == connections)
}

fn find_mem<'a>(m: &'a [MemorySummary], subject: &str) -> Option<&'a MemorySummary> {
    m.iter().find(|s| s.subject == subject)
}

/// One verdict line: who is better, by how much, and whether that exceeds the measured noise.
fn compare(a: &str, b: &str, sa: &Stat, sb: &Stat, higher_is_better: bool, unit: &str) -> String {
    let (va, vb) = (sa.median, sb.median);
    let figures = format!("{a} {} vs {b} {} {unit}", num(va), num(vb));
    if va == 0.0 || vb == 0.0 {
        return format!("{figures}.");
    }
    let ratio = va / vb;
    let a_better = if higher_is_better { va > vb } else { va < vb };
    let (winner, factor) = if a_better { (a, ratio.max(1.0 / ratio)) } else { (b, ratio.max(1.0 / ratio)) };
    let noise = match (sa.spread(), sb.spread()) {
        (Some(x), Some(y)) => format!("spread {:.1} % / {:.1} %", x * 100.0, y * 100.0),
        _ => "noise not measured".into(),
    };
    let verdict = match stats::verdict(sa, sb) {
        Verdict::Exceeds => {
            format!("**{winner} better by {factor:.2}×, beyond the measured noise** ({noise}; ranges do not overlap)")
        }
        Verdict::WithinNoise => format!("within the measured noise ({noise}; ranges overlap): no winner"),
        Verdict::NoiseUnknown => format!("ratio {a}/{b} {}; single run, so no verdict", ratio_text(ratio)),
    };
    format!("{figures} — {verdict}.")
}

fn throughput_chart(b: &Benchmark, cells: &[(String, u32)], subjects: &[&str]) -> String {
    let present: Vec<&str> = subjects.iter().copied().filter(|n| b.summaries.iter().any(|s| s.subject == *n)).collect();
    charts::grouped_bars(&Grouped {
        title: "Throughput (requests/s)",
        y_label: "requests/s",
        groups: cells.iter().map(|(s, c)| format!("{s} c={c}")).collect(),
        series: present.iter().map(|s| s.to_string()).collect(),
        values: cells
            .iter()
            .map(|(scenario, conns)| {
                present
                    .iter()
                    .map(|n| find(&b.summaries, n, scenario, *conns).map(|s| bar(&s.requests_per_sec)))
                    .collect()
            })
            .collect(),
    })
}

fn latency_chart(b: &Benchmark, scenario: &str, conns: u32, subjects: &[&str]) -> String {
    let present: Vec<&Summary> = subjects.iter().filter_map(|n| find(&b.summaries, n, scenario, conns)).collect();
    let title = format!("Latency, {scenario} at {conns} connections (ms)");
    charts::grouped_bars(&Grouped {
        title: &title,
        y_label: "ms",
        groups: vec!["p50".into(), "p90".into(), "p99".into(), "p99.9".into()],
        series: present.iter().map(|s| s.subject.clone()).collect(),
        values: (0..4).map(|p| present.iter().map(|s| latency_points(s)[p].1.map(bar)).collect()).collect(),
    })
}

/// The percentile spectrum of one cell: each subject's latency points (medians over runs) on a "nines" axis, as
/// HdrHistogram's plots draw latency. A percentile the load tool did not report is left out of that subject's line,
/// and the chart says so.
fn spectrum_chart(b: &Benchmark, scenario: &str, conns: u32, subjects: &[&str]) -> String {
    let present: Vec<&Summary> = subjects.iter().filter_map(|n| find(&b.summaries, n, scenario, conns)).collect();
    let title = format!("Latency by percentile, {scenario} at {conns} connections (ms)");
    let lines = present
        .iter()
        .map(|s| charts::Line {
            name: s.subject.clone(),
            points: latency_points(s).into_iter().map(|(q, stat)| (q, stat.map(|st| st.median))).collect(),
        })
        .collect();
    charts::spectrum(&charts::Spectrum { title: &title, y_label: "ms", lines })
}

/// A cell's latency in reading order: p50, p90, p99, p99.9 (`None` where the load tool gives none: ab, bombardier)
/// and max. The latency table, the bar chart (all but the max) and the spectrum all read it from here.
fn latency_points(s: &Summary) -> [(charts::Quantile, Option<&Stat>); 5] {
    use charts::Quantile::{Max, Percent};
    [
        (Percent(50.0), Some(&s.p50_ms)),
        (Percent(90.0), Some(&s.p90_ms)),
        (Percent(99.0), Some(&s.p99_ms)),
        (Percent(99.9), s.p99_9_ms.as_ref()),
        (Max, Some(&s.max_ms)),
    ]
}

fn memory_chart(m: &[MemorySummary]) -> String {
    charts::grouped_bars(&Grouped {
        title: "Memory, RSS summed over processes (MiB)",
        y_label: "MiB",
        groups: m.iter().map(|s| s.subject.clone()).collect(),
        series: vec!["idle".into(), "after load".into()],
        values: m
            .iter()
            .map(|s| vec![Some(bar(&kib_to_mib(&s.idle_rss_kib))), Some(bar(&kib_to_mib(&s.after_rss_kib)))])
            .collect(),
    })
}

fn bar(s: &Stat) -> Bar {
    Bar { value: s.median, min: s.min, max: s.max }
}

fn kib_to_mib(s: &Stat) -> Stat {
    Stat { n: s.n, median: s.median / 1024.0, min: s.min / 1024.0, max: s.max / 1024.0, cv: s.cv }
}

fn mib(s: &Stat) -> String {
    let m = kib_to_mib(s);
    if m.n > 1 { format!("{:.1} [{:.1}–{:.1}]", m.median, m.min, m.max) } else { format!("{:.1}", m.median) }
}

fn cv(s: &Stat) -> String {
    s.cv.map_or(String::new(), |c| format!(" ({:.1} %)", c * 100.0))
}

fn ms(v: f64) -> String {
    format!("{v:.2}")
}

/// A percentile the load tool does not report (ab, bombardier: no p99.9).
fn not_reported() -> String {
    "n/r".to_owned()
}

fn num(v: f64) -> String {
    if v.abs() >= 1000.0 { thousands(v) } else { format!("{v:.2}") }
}

fn cpu_list(c: &[usize]) -> String {
    crate::procstat::format_cpu_list(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The golden run (ceiling, alpha, beta on `get` at 8 connections), read as a version 1 file.
    fn golden() -> Benchmark {
        let text = include_str!("../tests/fixtures/golden/benchmark.json");
        upgrade_from_v1(serde_json::from_str(text).unwrap(), crate::summary::summarise)
    }

    /// The golden run as if preflight had measured a loader capacity of `capacity` requests/s.
    fn with_capacity(capacity: f64) -> Benchmark {
        let mut b = golden();
        // The golden subjects were measured unverified; plain names keep these assertions about bounds readable.
        b.subjects.iter_mut().for_each(|s| s.verification.measured_unverified = false);
        b.preflight = Some(crate::schema::Preflight {
            loader_capacity: vec![crate::schema::LoaderCapacity {
                scenario: "get".into(),
                connections: 8,
                target: "ceiling".into(),
                command: "wrk".into(),
                loader_capacity_rps: capacity,
                measured_rps: capacity,
                loader_cpu_percent: 99.0,
                basis: CapacityBasis::Saturated,
                machine_idle: true,
            }],
            loader_limited_share_percent: crate::summary::LOADER_LIMITED_SHARE_PERCENT,
            ..Default::default()
        });
        crate::summary::apply_capacity(&mut b.summaries, b.preflight.as_ref());
        b
    }

    #[test]
    fn bounds_follow_the_limited_side_and_the_metric() {
        use Bound::*;
        // Throughput (higher is better): the limited side could have done more.
        assert_eq!(Bound::from_limits(false, false, true), Exact);
        assert_eq!(Bound::from_limits(true, false, true), AtLeast);
        assert_eq!(Bound::from_limits(false, true, true), AtMost);
        assert_eq!(Bound::from_limits(true, true, true), Unknown);
        // Latency (lower is better): the limited side's figure includes the loader's queueing.
        assert_eq!(Bound::from_limits(true, false, false), AtMost);
        assert_eq!(Bound::from_limits(false, true, false), AtLeast);
        assert_eq!(AtLeast.format(2.104), "≥ 2.10×");
        assert_eq!(AtMost.format(0.4789), "≤ 0.48×");
        assert_eq!(Exact.format(3.25), "3.25×");
        assert!(!Unknown.format(1.0).contains('×'), "no number when both sides are limited");
    }

    #[test]
    fn a_loader_limited_subject_gets_bounds_never_a_plain_ratio() {
        // alpha 8,816, beta 7,772 req/s: with a capacity of 10,000, alpha (88 %) is limited and beta (78 %) not.
        let b = with_capacity(10_000.0);
        let limited: Vec<(&str, bool)> = b.summaries.iter().map(|s| (s.subject.as_str(), s.loader_limited)).collect();
        assert_eq!(limited, [("ceiling", true), ("alpha", true), ("beta", false)]);
        let (md, _) = render(&b);
        assert!(md.contains("| beta / alpha |") && md.contains("| ≤ 0.88× |"), "the ratio column is a bound:\n{md}");
        assert!(!md.contains("| 0.88× |"));
        assert!(md.contains("**88 % of loader: loader-limited**"), "{md}");
        assert!(md.contains("· 78 % of loader |"), "{md}");
        assert!(
            md.contains("alpha/beta ≥ 1.13×, a bound, not a measured ratio (alpha at 88 % of the loader's capacity)")
        );
        assert!(md.contains("get, 8 connections, **CPU per request (the headline: alpha is loader-limited)**"));
        // Both the ceiling and alpha are limited: that comparison says so instead of giving a share.
        assert!(md.contains("alpha measured 92 % (both loader-limited"), "{md}");
        assert!(md.contains("beta reaches at most 81 % (the ceiling is loader-limited)"), "{md}");

        // Ample capacity: plain ratios, and the share still shown.
        let (md, _) = render(&with_capacity(100_000.0));
        assert!(md.contains("| 0.88× |") && md.contains("· 9 % of loader"), "{md}");
        assert!(!md.contains("| ≥") && !md.contains("a bound, not") && !md.contains("(the headline"), "{md}");
    }

    #[test]
    fn a_run_with_unexpected_statuses_is_left_out_of_every_rate() {
        let text = include_str!("../tests/fixtures/golden/benchmark.json");
        let mut b: Benchmark = serde_json::from_str(text).unwrap();
        let run = b.runs.iter_mut().find(|r| r.subject == "alpha").unwrap();
        run.non_2xx = 500;
        run.requests_per_sec = 1e9; // Whatever it measured must not reach a table.
        let b = upgrade_from_v1(b, crate::summary::summarise);
        let alpha = b.summaries.iter().find(|s| s.subject == "alpha").unwrap();
        assert_eq!((alpha.requests_per_sec.n, alpha.left_out_runs), (2, 1));
        assert!(alpha.requests_per_sec.max < 1e6);
        let (md, _) = render(&b);
        assert!(!md.contains("1,000,000,000 ["), "no table counts the run: {md}");
        assert!(md.contains("## Left out") && md.contains("1,000,000,000 req/s as measured"), "{md}");
        assert!(md.contains("500 responses with an error status (a version 1 file"), "{md}");
    }

    #[test]
    fn an_unverified_subject_is_marked_in_every_table_row_and_chart_label() {
        let mut b = golden();
        // alpha verified, beta measured with --allow-unverified.
        let alpha = b.subjects.iter_mut().find(|s| s.name == "alpha").unwrap();
        alpha.verification.status = VerificationStatus::Passed;
        alpha.verification.measured_unverified = false;
        let beta = b.subjects.iter_mut().find(|s| s.name == "beta").unwrap();
        beta.verification.status = VerificationStatus::Failed;
        beta.verification.measured_unverified = true;
        let (md, charts) = render(&b);
        // Every table row naming beta carries the mark; count them so that a vacuous pass shows.
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|') && l.contains("beta")).collect();
        assert!(rows.len() >= 4, "{md}");
        for row in &rows {
            assert!(row.contains("beta (UNVERIFIED)"), "row without the mark: {row}");
        }
        // Verdict and flag lines (the recorded command line names the subjects as they were given).
        let verdicts: Vec<&str> =
            md.lines().filter(|l| l.starts_with("- ") && !l.starts_with("- Command") && l.contains("beta")).collect();
        assert!(!verdicts.is_empty() && verdicts.iter().all(|l| l.contains("beta (UNVERIFIED)")), "{md}");
        let svgs: Vec<&String> = charts.iter().map(|(_, svg)| svg).filter(|svg| svg.contains("beta")).collect();
        assert!(svgs.len() >= 2, "the throughput and latency charts show beta");
        for svg in svgs {
            assert!(!svg.replace("beta (UNVERIFIED)", "").contains("beta"), "a chart label without the mark");
        }
        // The verified subjects are not marked, and the results keep the plain name.
        assert!(!md.contains("alpha (UNVERIFIED)"));
        assert!(b.summaries.iter().any(|s| s.subject == "beta"));
    }

    #[test]
    fn ratios_are_against_the_baseline_and_never_a_zero() {
        assert_eq!(ratio_text(2.104), "2.10");
        assert_eq!(ratio_text(0.4789), "0.48");
        assert_eq!(ratio_text(0.0096), "0.0096");
        assert_eq!(ratio_text(0.00012), "0.00012");
        assert_eq!(ratio_text(0.0), "—");
        assert_eq!(percent_text(85.4), "85");
        assert_eq!(percent_text(4.02), "4.0");
        assert_eq!(percent_text(0.96), "0.96");
        assert_eq!(ratio(386.0, 0.0), None);
        assert_eq!(ratio(0.0, 40_000.0), None, "no figure is no ratio");

        // beta slowed to 38 requests/s: its ratio to alpha and its share of the ceiling keep their digits.
        let mut b = golden();
        for s in b.subjects.iter_mut().filter(|s| !s.get_only) {
            s.verification.status = VerificationStatus::Passed;
            s.verification.measured_unverified = false;
        }
        for s in b.summaries.iter_mut().filter(|s| s.subject == "beta") {
            s.requests_per_sec.median = 38.0;
        }
        assert_eq!(baseline(&b), Some("alpha"), "no built-in subject implements the API: the first that does");
        let (md, _) = render(&b);
        assert!(md.contains("| beta / alpha |"), "{md}");
        assert!(md.contains("| 0.0043× |"), "{md}");
        assert!(md.contains("beta reaches 0.39 % of the ceiling baseline"), "{md}");
        assert!(!md.contains("0.00×") && !md.contains(" 0 % of"), "{md}");

        // --baseline beta: the column turns round.
        b.settings.baseline = Some("beta".into());
        let (md, _) = render(&b);
        assert!(md.contains("| alpha / beta |") && md.contains("Ratios are against beta"), "{md}");
    }

    #[test]
    fn write_gives_every_format_and_every_chart_and_markdown_links_only_its_own() {
        let b = golden();
        let dir = std::env::temp_dir().join(format!("fairpair-report-write-{}", std::process::id()));
        let reports = write(&b, &dir).unwrap();
        assert_eq!(reports, [dir.join("report.md"), dir.join("report.html")]);
        let mut files: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        let want =
            ["latency-get-8.svg", "memory.svg", "report.html", "report.md", "spectrum-get-8.svg", "throughput.svg"];
        assert_eq!(files, want);
        // render() (the golden test's view) is report.md and the charts it links: no spectrum.
        let (md, charts) = render(&b);
        assert!(!md.contains("spectrum") && charts.iter().all(|(name, _)| !name.starts_with("spectrum")));
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(html.contains("Latency by percentile, get at 8 connections"), "the spectrum is in the page");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn verdict_lines() {
        let a = Stat::of(&[100.0, 101.0, 102.0]).unwrap();
        let b = Stat::of(&[50.0, 51.0, 52.0]).unwrap();
        let line = compare("rust", "node", &a, &b, true, "requests/s");
        assert!(line.contains("**rust better by 1.98×, beyond the measured noise**"), "{line}");
        let line = compare("rust", "node", &a, &b, false, "ms");
        assert!(line.contains("**node better by 1.98×"), "{line}");
        let c = Stat::of(&[100.5, 103.0, 104.0]).unwrap();
        assert!(compare("a", "b", &a, &c, true, "x").contains("within the measured noise"));
    }
}
