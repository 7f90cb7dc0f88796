//! The sections that say how the figures were measured, after the summary: the environment (and a two-host run's server host and network path), the method, preflight, the subjects and the exact
//! commands.

use crate::analyse::summarise::cell_capacity;
use crate::report::document::{Align, Block, Document, Table};
use crate::report::format::cpu_list;
use crate::schema::{Benchmark, CapacityBasis, CaseScope, SubjectKind, VerificationStatus};
use crate::text::{count, portable_command, thousands};

pub(crate) fn environment(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Environment");
    if b.two_hosts.is_some() {
        doc.paragraph("The load generator's host (the server host is described in the next section).");
    }
    folded(doc, "The machine and its software", |doc| environment_table(doc, &b.environment, b.schema_version));
}

/// Blocks folded under a one-line summary in the HTML page (`<details>`): long tables a reader opens when needed.
fn folded(doc: &mut Document, summary: &str, add: impl FnOnce(&mut Document)) {
    let mut inner = Document::default();
    add(&mut inner);
    doc.push(Block::Folded { summary: summary.into(), blocks: inner.blocks });
}

/// The table of one host's machine and software.
pub(crate) fn environment_table(doc: &mut Document, e: &crate::schema::Environment, schema_version: u32) {
    let mut t = Table::new(&[("", Align::Left), ("", Align::Left)]);
    let mut row = |k: &str, v: String| t.row(vec![k.to_string(), v]);
    row("CPU", format!("{} × {} online (allowed: {})", e.cpu_model, e.cpus_online, cpu_list(&e.cpus_allowed)));
    row("memory", format!("{:.1} GiB", e.memory_total_kib as f64 / 1024.0 / 1024.0));
    row("OS, kernel", format!("{}, Linux {}", e.os, e.kernel));
    row("rustc", e.rustc.clone());
    row("node", node_row(e));
    if let Some(go) = &e.go {
        row("go", go.clone());
    }
    if let Some(jvm) = &e.java {
        row("java", format!("{} (`{}`)", jvm.version, portable_command(&jvm.program)));
        // What the JVM chose by itself, for each CPU count it was told: the figures depend on it.
        for choice in &jvm.ergonomics {
            row(&format!("JVM on {}", count(u64::from(choice.cpus), "CPU")), crate::subjects::java::describe(choice));
        }
    }
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

/// The Node's version, with its program and where it came from when the file records them (since the harness chose
/// it by `crate::subjects::node`'s rule).
fn node_row(e: &crate::schema::Environment) -> String {
    match (&e.node_program, e.node_source) {
        (Some(program), Some(source)) => {
            format!("{} (`{}`: {})", e.node, portable_command(program), source.describe())
        }
        _ => e.node.clone(),
    }
}

/// The server host of a two-host run and the path to it; nothing on one machine.
pub(crate) fn two_hosts(doc: &mut Document, b: &Benchmark) {
    let Some(t) = &b.two_hosts else { return };
    doc.heading(2, "Server host and network path");
    doc.push(Block::Note(format!(
        "**A two-host run**: the load generator ran on `{}` ({}), the subjects on the server host `{}` ({}, reached \
         as `{}` over ssh). The server side's CPU time, memory and start-up were read from that host's `/proc`.",
        b.environment.hostname, t.loader_address, t.server_environment.hostname, t.server_address, t.server_host
    )));
    if t.same_kernel {
        doc.push(Block::Note(
            "Both hosts ran on **one kernel** (the same boot id): namespaces or containers of one machine, which \
             share its CPUs, caches and memory bandwidth. This run shows the two-host mechanics; its figures are not \
             those of two machines."
                .into(),
        ));
    }
    doc.paragraph(format!(
        "The subjects ran on `{}` (`{}`, started from `{}`); this is its machine and software:",
        t.server_environment.hostname, t.server_host, t.server_dir
    ));
    folded(doc, "The server host's machine and software", |doc| {
        environment_table(doc, &t.server_environment, b.schema_version)
    });
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

pub(crate) fn method(doc: &mut Document, b: &Benchmark) {
    let (e, s) = (&b.environment, &b.settings);
    doc.heading(2, "Method");
    doc.paragraph(format!(
        "Measured {} by {} (schema {}). Every figure is a median over repeated runs, each on a freshly started \
         server; the raw runs, with each tool's exact command and output, are in `benchmark.json`.",
        b.environment.date, b.generator, b.schema_version
    ));
    let mut items = vec![format!(
        "Closed loop: `{}` ({}) with {}; {} s warm-up (discarded, a separate run of the tool), then {} s measured; \
         {} per cell; a fresh server process for every run; subjects alternated run by run.",
        s.tool,
        e.tools.get(s.tool.name()).map_or("version unknown", String::as_str),
        count(u64::from(s.loader_threads), "thread"),
        s.warmup_s,
        s.duration_s,
        count(u64::from(s.repeats), "repeat")
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
    let services: Vec<&str> =
        b.subjects.iter().filter(|s| s.kind == SubjectKind::External).map(|s| s.name.as_str()).collect();
    if !services.is_empty() {
        items.push(format!(
            "{}: running services fairpair neither started nor pinned (`--subject NAME=URL`): the same process \
             served every run (no fresh start), on whatever CPUs it had, the load generator's included; their CPU, \
             memory and start-up are not measured. When the owner of the listening socket is on this machine, its \
             CPU time is kept out of the other processes' figure (the busy-machine test).",
            services.join(", ")
        ));
    }
    items.push(format!(
        "Before each run the harness waited up to {} s for other processes to use under {} % of the machine, and \
         recorded what they used during the run.",
        s.idle_wait_max_s, s.idle_threshold_percent
    ));
    match b.preflight.as_ref().and_then(|p| p.store.as_ref()) {
        Some(store) => items.push(format!(
            "POST runs: every server started with {} (see *Preflight*).",
            crate::analyse::summarise::store_sentence(store)
        )),
        None if b.schema_version == 1 => items.push(format!(
            "POST runs: every server started with `--max-users {}`, sized from a fixed guess of the POST rate \
             (schema 1; later versions measure it).",
            s.post_max_users.unwrap_or_default()
        )),
        None => {}
    }
    items.push(format!(
        "Memory: separate runs ({} per subject): RSS, peak RSS (VmHWM) and PSS summed over all the subject's \
         processes, {} ms after the first 200, and right after {} s of GET at {} connections.",
        s.memory_repeats, s.memory_settle_ms, s.memory_duration_s, s.memory_connections
    ));
    // Quoted as a shell would need it, so that the line can be pasted back (`--subject mine='python3 mine.py {port}'`).
    items.push(format!("Command: `{}`", portable_command(&crate::tools::shell_words(&s.argv))));
    doc.list(items);
}

/// What preflight measured: the loader's capacity, the POST rates and the store size chosen from them.
pub(crate) fn preflight_section(doc: &mut Document, b: &Benchmark) {
    doc.heading(2, "Preflight");
    let Some(p) = &b.preflight else {
        doc.paragraph(format!(
            "Not recorded (a schema {} file): the loader's capacity was not measured, so no figure is marked \
             loader-limited; the loader-bound flag (≥ {:.0} % loader CPU) is the only sign of a loader limit.",
            b.schema_version,
            crate::analyse::summarise::LOADER_BOUND_PERCENT
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
        capacity_exceeded(doc, b, p);
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
        doc.paragraph(format!("Store: {}.", crate::analyse::summarise::store_sentence(store)));
    }
    doc.paragraph(format!("Preflight took {:.0} s, verification included.", p.duration_s));
}

/// The cells where a run drove the loader faster than preflight measured it could ([`cell_capacity`]): said, so that
/// a reader comparing the shares with the table above knows which figure they are of.
fn capacity_exceeded(doc: &mut Document, b: &Benchmark, p: &crate::schema::Preflight) {
    let items: Vec<String> = p
        .loader_capacity
        .iter()
        .filter_map(|c| cell_capacity(&b.runs, p, &c.scenario, c.connections))
        .filter_map(|cell| {
            let r = cell.exceeded_by?;
            Some(format!(
                "{} at {} connections: a run of {} reached {} requests/s with the loader {:.0} % busy, a capacity of \
                 {}/s against preflight's {}/s.",
                r.scenario,
                r.connections,
                r.subject,
                thousands(r.requests_per_sec),
                r.loader_cpu_percent,
                thousands(cell.rps),
                thousands(cell.preflight_rps)
            ))
        })
        .collect();
    if items.is_empty() {
        return;
    }
    doc.paragraph(
        "**Preflight's loader capacity was exceeded** on these cells: a run drove the loader faster than preflight \
         measured it could. Preflight's figure was an underestimate (of a busy machine or a cold loader, for instance), \
         not a sign that a subject outran its loader, so the loader's capacity there is taken as at least the \
         fastest run's rate, scaled to a fully busy loader as preflight's is, and each share of loader is of that \
         figure.",
    );
    doc.list(items);
}

pub(crate) fn loader_capacity_table(p: &crate::schema::Preflight) -> Table {
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

pub(crate) fn subjects_section(doc: &mut Document, b: &Benchmark) {
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
            VerificationStatus::DidNotStart if sub.kind == SubjectKind::External => {
                format!("not ready ({}): not measured", v.failures.join("; "))
            }
            VerificationStatus::DidNotStart => "did not start: not measured".into(),
        };
        let scope = match v.scope {
            CaseScope::Reads => "; its GET and HEAD cases only (the run loads no POST)",
            CaseScope::Every => "",
        };
        let notes: String = v.notes.iter().map(|n| format!("; {n}")).collect();
        t.row(vec![
            sub.name.clone(),
            format!("`{}`", portable_command(&sub.command)),
            format!("{contract}{scope}{notes}"),
        ]);
    }
    doc.push(Block::Table(t));
}

pub(crate) fn commands(doc: &mut Document, b: &Benchmark) {
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
        items.push(format!("{} at {} connections: `{}`", r.scenario, r.connections, portable_command(&r.command)));
    }
    if let Some(r) = b.open_loop.first() {
        items.push(format!(
            "open loop ({} at {} connections, {:.0} requests/s): `{}`",
            r.scenario,
            r.connections,
            r.asked_rps,
            portable_command(&r.command)
        ));
    }
    if let Some(r) = b.memory.first() {
        items.push(format!("memory phase load: `{}`", portable_command(&r.load_command)));
    }
    folded(doc, &count(items.len() as u64, "command"), |doc| doc.list(items));
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
