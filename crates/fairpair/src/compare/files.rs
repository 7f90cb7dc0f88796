//! `fairpair report --compare OLD.json NEW.json`, as a command: the two files read, the comparison written where it
//! was asked for, and the verdict counts and the gate's failures told on stderr. The comparison itself is a pure
//! function of the two files (`compare/mod.rs`, `json.rs`, `gate.rs`); only this file reads, writes and prints, so
//! that those are tested on results in memory, without files or a terminal.

use std::path::Path;

use super::{Change, gate};
use crate::report;
use crate::text::path_list;

/// How `report --compare` writes the comparison (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    // No doc comments on the variants: clap would list them as the values' help, and `--help` says what each is.
    #[default]
    Markdown,
    Json,
}

/// Compares the results files `old` and `new`: the comparison goes on stdout (Markdown or JSON: redirect it to keep
/// it), or into the directory `out` as compare.md and compare.html (and compare.json with `--format json`); the
/// verdict counts and the gate's failures go on stderr. `gate` is the threshold of `--fail-on-regression`, when
/// given. Returns whether the gate passed (always, without a gate), so that the caller chooses the exit status.
pub fn compare_files(
    old: &Path,
    new: &Path,
    out: Option<&Path>,
    format: Format,
    gate: Option<f64>,
) -> anyhow::Result<bool> {
    let (a, b) = (report::load(old)?, report::load(new)?);
    let c = super::compare(&a, &b);
    let (old_name, new_name) = (old.display().to_string(), new.display().to_string());
    let json = || super::json::comparison(&old_name, &new_name, &a, &b, gate.unwrap_or(0.0));
    let doc = super::document(&old_name, &new_name, &a, &b, &c);
    match (out, format) {
        (None, Format::Markdown) => print!("{}", report::markdown(&doc)),
        (None, Format::Json) => print!("{}", json()),
        (Some(dir), format) => {
            let mut files = report::write_document(&doc, dir, "compare")?;
            if format == Format::Json {
                let path = dir.join("compare.json");
                std::fs::write(&path, json()).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
                files.push(path);
            }
            eprintln!("fairpair: wrote {}", path_list(&files));
        }
    }
    eprintln!(
        "fairpair: {} figures compared: {} worse beyond the noise, {} better, {} within the noise, {} without a verdict",
        c.rows.len(),
        c.regressions(),
        c.count(Change::Better),
        c.count(Change::WithinNoise),
        c.count(Change::NoiseUnknown)
    );
    let Some(threshold) = gate else { return Ok(true) };
    let failures = gate::failures(&c, threshold);
    for r in &failures {
        let place = r.cell.as_ref().map_or("memory".into(), |(s, n)| format!("{s} at {n} connections"));
        let worse = gate::worsening(r).map_or(String::new(), |w| format!(", {:.1} % worse", w * 100.0));
        eprintln!("fairpair: REGRESSION {} {place}: {}{worse}", r.subject, r.metric.label());
    }
    // A figure with a single run or search on either side has no verdict: the gate cannot judge it, and says so
    // rather than let a green build read as "checked".
    let unjudged = c.count(Change::NoiseUnknown);
    if unjudged > 0 {
        eprintln!(
            "fairpair: {unjudged} figure(s) without a verdict (a single run or capacity search per file) not judged by \
             the gate"
        );
    }
    let tolerated = c.regressions() - failures.len();
    if tolerated > 0 {
        eprintln!(
            "fairpair: {tolerated} figure(s) worse beyond the noise tolerated by the gate (a bound, or under --threshold)"
        );
    }
    Ok(failures.is_empty())
}
