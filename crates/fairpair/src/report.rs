//! `benchmark.json` → `report.md` + SVG charts.
//!
//! The report only formats: every number in it is in the JSON file, computed by the run. It is deterministic (same
//! file, same bytes), so it can be checked against a golden file and regenerated from old results.

use std::fmt::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::charts::{self, Bar, Grouped};
use crate::schema::{Benchmark, MemorySummary, SCHEMA_VERSION, Summary};
use crate::stats::{self, Stat, Verdict};
use crate::usage;

/// Reads a `benchmark.json`, refusing files of another schema version.
pub fn load(path: &Path) -> Result<Benchmark> {
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| usage(format!("{} is not JSON: {e}", path.display())))?;
    let version = value.get("schema_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(SCHEMA_VERSION)) {
        let found = version.map_or("no schema_version".to_owned(), |v| format!("schema version {v}"));
        return Err(usage(format!("{}: {found}, this fairpair reads version {SCHEMA_VERSION}", path.display())));
    }
    serde_json::from_value(value).map_err(|e| usage(format!("{}: not a fairpair benchmark file: {e}", path.display())))
}

/// Writes `report.md` and the charts into `dir`; returns the report's path.
pub fn write(bench: &Benchmark, dir: &Path) -> Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (markdown, charts) = render(bench);
    for (name, svg) in charts {
        std::fs::write(dir.join(&name), svg).with_context(|| format!("cannot write {name}"))?;
    }
    let path = dir.join("report.md");
    std::fs::write(&path, markdown).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The report's Markdown and its charts (file name, SVG text).
pub fn render(b: &Benchmark) -> (String, Vec<(String, String)>) {
    let mut md = String::new();
    let mut charts = Vec::new();
    let e = &b.environment;
    let s = &b.settings;
    let subjects: Vec<&str> = b.subjects.iter().map(|s| s.name.as_str()).collect();

    let _ = writeln!(md, "# fairpair report\n");
    let _ = writeln!(
        md,
        "Measured {} by {} on `{}` (schema {}). Every figure below is a median over repeated runs, each on a \
         freshly started server; the raw runs, with each tool's exact command and output, are in `benchmark.json`.\n",
        e.date, b.generator, e.hostname, b.schema_version
    );

    if s.quick {
        let _ = writeln!(
            md,
            "> **A `--quick` smoke run**: one short run per cell, so there is no measure of noise. Check the \
             pipeline with it; do not quote its figures.\n"
        );
    }

    // Environment.
    let _ = writeln!(md, "## Environment\n\n| | |\n|---|---|");
    let _ =
        writeln!(md, "| CPU | {} × {} online (allowed: {}) |", e.cpu_model, e.cpus_online, cpu_list(&e.cpus_allowed));
    let _ = writeln!(md, "| memory | {:.1} GiB |", e.memory_total_kib as f64 / 1024.0 / 1024.0);
    let _ = writeln!(md, "| OS, kernel | {}, Linux {} |", e.os, e.kernel);
    let _ = writeln!(md, "| rustc | {} |", e.rustc);
    let _ = writeln!(md, "| node | {} |", e.node);
    for (tool, version) in &e.tools {
        let _ = writeln!(md, "| {tool} | {version} |");
    }
    let _ = writeln!(md, "| git | `{}`{} |", e.git_commit, if e.git_dirty { " (uncommitted changes)" } else { "" });

    // Method.
    let _ = writeln!(md, "\n## Method\n");
    let _ = writeln!(
        md,
        "- Closed loop: `{}` ({}) with {} thread(s); {} s warm-up (discarded, a separate run of the tool), then {} s \
         measured; {} repeat(s) per cell; a fresh server process for every run; subjects alternated run by run.",
        s.tool,
        e.tools.get(&s.tool).map_or("version unknown", String::as_str),
        s.loader_threads,
        s.warmup_s,
        s.duration_s,
        s.repeats
    );
    if s.pinned {
        let _ = writeln!(
            md,
            "- Pinning (`taskset`): servers on CPU {}, load generator on CPU {}.",
            cpu_list(&s.server_cpus),
            cpu_list(&s.loader_cpus)
        );
    } else {
        let _ = writeln!(md, "- Not pinned: servers and load generator shared the CPUs (the article's method).");
    }
    let _ = writeln!(
        md,
        "- Before each run the harness waited up to {} s for other processes to use under {} % of the machine, and \
         recorded what they used during the run.",
        s.idle_wait_max_s, s.idle_threshold_percent
    );
    let _ = writeln!(
        md,
        "- POST runs: every server started with `--max-users {}`, more than a run can fill.",
        s.post_max_users
    );
    let _ = writeln!(
        md,
        "- Memory: separate runs ({} per subject): RSS, peak RSS (VmHWM) and PSS summed over all the subject's \
         processes, {} ms after the first 200, and right after {} s of GET at {} connections.",
        s.memory_repeats, s.memory_settle_ms, s.memory_duration_s, s.memory_connections
    );
    let _ = writeln!(md, "- Command: `{}`", s.argv.join(" "));

    // Subjects.
    let _ = writeln!(md, "\n## Subjects\n\n| subject | command | contract |\n|---|---|---|");
    for sub in &b.subjects {
        let v = &sub.verification;
        let contract = match v.status.as_str() {
            "passed" => format!("verified: {} passed, {} skipped", v.passed, v.skipped),
            "failed" if v.measured_unverified => {
                format!("**UNVERIFIED**: {} failed (measured with --allow-unverified)", v.failed)
            }
            "failed" => format!("failed {} cases: not measured", v.failed),
            _ => "not applicable (fixed-response baseline, GET only)".into(),
        };
        let notes: String = v.notes.iter().map(|n| format!("; {n}")).collect();
        let _ = writeln!(md, "| {} | `{}` | {contract}{notes} |", sub.name, sub.command);
    }

    // Exact commands.
    let _ = writeln!(md, "\n## Exact commands\n\nThe first run of each cell (ports differ run to run):\n");
    let mut seen = Vec::new();
    for r in &b.runs {
        let key = (r.scenario.as_str(), r.connections);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let _ = writeln!(md, "- {} at {} connections: `{}`", r.scenario, r.connections, r.command);
    }
    if let Some(r) = b.open_loop.first() {
        let _ = writeln!(
            md,
            "- open loop ({} at {} connections, {:.0} requests/s): `{}`",
            r.scenario, r.connections, r.asked_rps, r.command
        );
    }
    if let Some(r) = b.memory.first() {
        let _ = writeln!(md, "- memory phase load: `{}`", r.load_command);
    }
    for sc in &b.scenarios {
        if let Some(script) = &sc.wrk_script {
            let _ = writeln!(
                md,
                "\n<details><summary>wrk script for <code>{}</code> ({} {})</summary>\n\n```lua\n{}```\n</details>",
                sc.name, sc.method, sc.path, script
            );
        }
    }

    // Throughput.
    let cells = cells(&b.summaries);
    if !cells.is_empty() {
        let _ = writeln!(md, "\n## Throughput (requests/s)\n\nMedian [min–max], CV in parentheses.\n");
        // The ratio column compares the first two subjects that implement the contract (rust / node by default).
        let pair: Vec<&str> = b.subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).take(2).collect();
        let _ = write!(md, "| scenario | connections |");
        for name in &subjects {
            let _ = write!(md, " {name} |");
        }
        if let [x, y] = pair[..] {
            let _ = write!(md, " {x} / {y} |");
        }
        let _ = writeln!(md, "\n|---|---:|{}", "---:|".repeat(subjects.len() + usize::from(pair.len() == 2)));
        for (scenario, conns) in &cells {
            let _ = write!(md, "| {scenario} | {conns} |");
            for name in &subjects {
                let cell = find(&b.summaries, name, scenario, *conns)
                    .map(|s| {
                        let r = &s.requests_per_sec;
                        if r.n > 1 {
                            format!("{} [{}–{}]{}", thousands(r.median), thousands(r.min), thousands(r.max), cv(r))
                        } else {
                            thousands(r.median)
                        }
                    })
                    .unwrap_or_else(|| "—".into());
                let _ = write!(md, " {cell} |");
            }
            if let [x, y] = pair[..] {
                let ratio = match (find(&b.summaries, x, scenario, *conns), find(&b.summaries, y, scenario, *conns)) {
                    (Some(a), Some(c)) if c.requests_per_sec.median > 0.0 => {
                        format!("{:.2}×", a.requests_per_sec.median / c.requests_per_sec.median)
                    }
                    _ => "—".into(),
                };
                let _ = write!(md, " {ratio} |");
            }
            let _ = writeln!(md);
        }
        charts.push(("throughput.svg".to_string(), throughput_chart(b, &cells, &subjects)));
        let _ = writeln!(md, "\n![throughput](throughput.svg)");

        // Latency.
        let _ = writeln!(
            md,
            "\n## Latency under closed-loop load (ms)\n\nMedians over runs. A closed loop waits for each answer, so these are latencies at saturation, not at a given rate (see the open-loop section).\n"
        );
        let _ = writeln!(
            md,
            "| scenario | connections | subject | p50 | p90 | p99 | p99.9 | max |\n|---|---:|---|---:|---:|---:|---:|---:|"
        );
        for (scenario, conns) in &cells {
            for name in &subjects {
                if let Some(s) = find(&b.summaries, name, scenario, *conns) {
                    let _ = writeln!(
                        md,
                        "| {scenario} | {conns} | {name} | {} | {} | {} | {} | {} |",
                        ms(s.p50_ms.median),
                        ms(s.p90_ms.median),
                        ms(s.p99_ms.median),
                        s.p99_9_ms.as_ref().map_or_else(not_reported, |p| ms(p.median)),
                        ms(s.max_ms.median)
                    );
                }
            }
        }
        if b.summaries.iter().any(|s| s.p99_9_ms.is_none()) {
            let _ = writeln!(
                md,
                "\nn/r: not reported by the load tool (`{}` gives no p99.9: ab's percentiles go in steps of 1 %, \
                 bombardier's stop at p99).",
                b.settings.tool
            );
        }
        for (scenario, conns) in &cells {
            let file = format!("latency-{scenario}-{conns}.svg");
            charts.push((file.clone(), latency_chart(b, scenario, *conns, &subjects)));
            let _ = writeln!(md, "\n![latency {scenario} {conns}]({file})");
        }

        // CPU.
        let _ = writeln!(
            md,
            "\n## CPU\n\nServer CPU time per request (all its processes, from `/proc`), and the load generator's CPU use as a share of the CPUs it had (≥ 90 % = loader-bound).\n"
        );
        let _ = writeln!(
            md,
            "| scenario | connections | subject | server CPU µs/request | loader CPU % |\n|---|---:|---|---:|---:|"
        );
        for (scenario, conns) in &cells {
            for name in &subjects {
                if let Some(s) = find(&b.summaries, name, scenario, *conns) {
                    let cpu = s
                        .server_cpu_us_per_request
                        .as_ref()
                        .map_or("—".into(), |c| format!("{:.1} [{:.1}–{:.1}]", c.median, c.min, c.max));
                    let _ =
                        writeln!(md, "| {scenario} | {conns} | {name} | {cpu} | {:.0} |", s.loader_cpu_percent.median);
                }
            }
        }
    }

    // Open loop.
    let _ = writeln!(md, "\n## Open-loop latency at fixed rates (ms)\n");
    if b.open_loop.is_empty() {
        let _ = writeln!(md, "Not measured (see *Skipped*).");
    } else {
        let _ = writeln!(
            md,
            "| subject | asked req/s | achieved req/s | tool | corrected for coordinated omission | p50 | p90 | p99 | p99.9 | max |\n|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
        );
        for r in &b.open_loop {
            let l = &r.latency;
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.subject,
                thousands(r.asked_rps),
                thousands(r.achieved_rps),
                r.tool,
                if r.latency_corrected { "yes" } else { "no" },
                ms(l.p50_ms),
                ms(l.p90_ms),
                ms(l.p99_ms),
                l.p99_9_ms.map_or_else(not_reported, ms),
                ms(l.max_ms)
            );
        }
    }

    // Memory.
    let _ = writeln!(md, "\n## Memory and start-up\n");
    if b.memory_summaries.is_empty() {
        let _ = writeln!(md, "Not measured.");
    } else {
        let _ = writeln!(md, "MiB, median [min–max] over fresh processes, summed over each subject's processes.\n");
        let _ = writeln!(
            md,
            "| subject | processes | idle RSS | idle PSS | after-load RSS | after-load PSS | peak RSS | start-up to first 200 (ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|"
        );
        for m in &b.memory_summaries {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {:.0} [{:.0}–{:.0}] |",
                m.subject,
                m.processes,
                mib(&m.idle_rss_kib),
                mib(&m.idle_pss_kib),
                mib(&m.after_rss_kib),
                mib(&m.after_pss_kib),
                mib(&m.after_hwm_kib),
                m.startup_ms.median,
                m.startup_ms.min,
                m.startup_ms.max
            );
        }
        charts.push(("memory.svg".to_string(), memory_chart(&b.memory_summaries)));
        let _ = writeln!(md, "\n![memory](memory.svg)");
    }

    // Ratios and verdicts.
    let _ = writeln!(md, "\n## Ratios and verdicts\n");
    let _ = writeln!(
        md,
        "A difference *exceeds the noise* only when the min–max ranges of the two subjects' runs do not overlap; with a single run per side the noise is unknown and no verdict is given.\n"
    );
    let contract_subjects: Vec<&str> = b.subjects.iter().filter(|s| !s.get_only).map(|s| s.name.as_str()).collect();
    let mut any = false;
    for (i, a) in contract_subjects.iter().enumerate() {
        for bname in &contract_subjects[i + 1..] {
            for (scenario, conns) in &cells {
                let (Some(sa), Some(sb)) =
                    (find(&b.summaries, a, scenario, *conns), find(&b.summaries, bname, scenario, *conns))
                else {
                    continue;
                };
                any = true;
                let _ = writeln!(
                    md,
                    "- {scenario}, {conns} connections, throughput: {}",
                    compare(a, bname, &sa.requests_per_sec, &sb.requests_per_sec, true, "requests/s")
                );
                let _ = writeln!(
                    md,
                    "- {scenario}, {conns} connections, p99 latency: {}",
                    compare(a, bname, &sa.p99_ms, &sb.p99_ms, false, "ms")
                );
                if let (Some(ca), Some(cb)) = (&sa.server_cpu_us_per_request, &sb.server_cpu_us_per_request) {
                    let _ = writeln!(
                        md,
                        "- {scenario}, {conns} connections, CPU per request: {}",
                        compare(a, bname, ca, cb, false, "µs")
                    );
                }
            }
            let (Some(ma), Some(mb)) = (find_mem(&b.memory_summaries, a), find_mem(&b.memory_summaries, bname)) else {
                continue;
            };
            any = true;
            let _ = writeln!(
                md,
                "- memory idle (RSS): {}",
                compare(a, bname, &kib_to_mib(&ma.idle_rss_kib), &kib_to_mib(&mb.idle_rss_kib), false, "MiB")
            );
            let _ = writeln!(
                md,
                "- memory after load (RSS): {}",
                compare(a, bname, &kib_to_mib(&ma.after_rss_kib), &kib_to_mib(&mb.after_rss_kib), false, "MiB")
            );
            let _ = writeln!(
                md,
                "- start-up to first 200: {}",
                compare(a, bname, &ma.startup_ms, &mb.startup_ms, false, "ms")
            );
        }
    }
    for ceiling in b.subjects.iter().filter(|s| s.get_only) {
        for (scenario, conns) in &cells {
            let Some(c) = find(&b.summaries, &ceiling.name, scenario, *conns) else { continue };
            for name in &contract_subjects {
                if let Some(s) = find(&b.summaries, name, scenario, *conns) {
                    any = true;
                    let _ = writeln!(
                        md,
                        "- {scenario}, {conns} connections: {name} reaches {:.0} % of the {} baseline ({} vs {} requests/s).",
                        s.requests_per_sec.median / c.requests_per_sec.median * 100.0,
                        ceiling.name,
                        thousands(s.requests_per_sec.median),
                        thousands(c.requests_per_sec.median)
                    );
                }
            }
        }
    }
    if !any {
        let _ = writeln!(md, "No two subjects were measured on the same cell.");
    }

    // Flags and skipped.
    let _ = writeln!(md, "\n## Flags\n");
    if b.flags.is_empty() {
        let _ = writeln!(md, "None: no run was noisy (CV > 5 %), loader-bound, on a busy machine, or had errors.");
    }
    for f in &b.flags {
        let _ = writeln!(md, "- **{}**: {}", f.kind, f.message);
    }
    let _ = writeln!(md, "\n## Skipped\n");
    if b.skipped.is_empty() {
        let _ = writeln!(md, "Nothing.");
    }
    for s in &b.skipped {
        let _ = writeln!(md, "- {s}");
    }
    (md, charts)
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
        Verdict::NoiseUnknown => format!("ratio {a}/{b} {ratio:.2}; single run, so no verdict"),
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
        values: (0..4)
            .map(|p| {
                present
                    .iter()
                    .map(|s| [Some(&s.p50_ms), Some(&s.p90_ms), Some(&s.p99_ms), s.p99_9_ms.as_ref()][p].map(bar))
                    .collect()
            })
            .collect(),
    })
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

/// 45123.4 → "45,123".
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
