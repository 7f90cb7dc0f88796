//! Diagnoses: known signatures in a subject's recorded figures, each told as a hypothesis with how to check it.
//!
//! A benchmark of someone's own service often measures one of a few well-known mistakes rather than the service: a
//! response written in two pieces without `TCP_NODELAY` waits for the client's delayed ACK, a fixed pool of workers
//! caps throughput whatever the load, a small listen backlog or file-descriptor limit refuses connections once there
//! are enough of them. Each leaves a signature in figures the harness already records, so these are pure functions
//! of a [`Benchmark`]: nothing here runs anything, and the tests feed them synthetic figures.
//!
//! A signature is evidence, not proof (a service can be slow for 40 ms for reasons of its own), so every diagnosis is
//! rendered as "this looks like …; to check, …", never as a verdict.

use std::net::IpAddr;

use crate::schema::{Benchmark, SubjectKind, SubjectRecord, Summary};

/// Linux's smallest delayed-ACK timeout (`TCP_DELACK_MIN`) is 40 ms; a p50 within this window of it, on loopback
/// where a round trip takes microseconds, is the Nagle/delayed-ACK stall rather than work.
const DELAYED_ACK_P50_MS: std::ops::RangeInclusive<f64> = 36.0..=48.0;

/// The server counts as nowhere near busy below this share of the CPUs it was given: a service stalled on timers or
/// a fixed pool waits rather than computes.
const LOW_SERVER_CPU_PERCENT: f64 = 50.0;

/// The loader counts as idle below this share of its CPUs: it could have sent more, so a flat throughput is not its
/// limit.
const IDLE_LOADER_CPU_PERCENT: f64 = 50.0;

/// Throughput at the higher connection count at most this many times that at the lower one counts as flat.
const FLAT_THROUGHPUT_RATIO: f64 = 1.10;

/// One cell's figures a diagnosis rests on, kept so the rendered text can quote them.
#[derive(Clone, Debug, PartialEq)]
pub struct CellFigures {
    pub scenario: String,
    pub connections: u32,
    pub requests_per_sec: f64,
    pub p50_ms: f64,
    /// Server CPU as a percentage of the CPUs it was given; `None` when not measured (a service the harness did not
    /// start).
    pub server_cpu_percent: Option<f64>,
    pub loader_cpu_percent: f64,
    /// Socket errors and timeouts over the cell's runs.
    pub errors: u64,
}

/// A known signature found in one subject's figures.
#[derive(Clone, Debug, PartialEq)]
pub enum Diagnosis {
    /// p50 near 40 ms on loopback with the server mostly idle: a response written in two pieces (head, then body)
    /// without `TCP_NODELAY`, so Nagle's algorithm holds the body until the client's delayed ACK of the head.
    NagleDelayedAck { subject: String, cells: Vec<CellFigures> },
    /// Throughput flat from the lower to the higher connection count while the loader (and the server's CPU) had
    /// room: something caps the work in flight, such as a fixed worker pool or a connection limit.
    ConnectionOrWorkerLimit { subject: String, low: CellFigures, high: CellFigures },
    /// Socket errors at the higher connection count only: connections refused or reset once there are enough of
    /// them, as a full listen backlog or an exhausted file-descriptor limit does.
    BacklogOrFdLimit { subject: String, low: CellFigures, high: CellFigures, listen_backlog: Option<u32> },
    /// A service of the user's listening with a backlog below the connections it was loaded with and below the usual
    /// 128 (Python's
    /// `socketserver` asks for 5): connections that open at once beyond it wait for the kernel's SYN retries or are
    /// refused, errors or not. The built-in servers ask for a backlog of their own choosing and are not diagnosed.
    SmallBacklog { subject: String, listen_backlog: u32, connections: u32 },
}

impl Diagnosis {
    /// The subject the diagnosis is about.
    pub fn subject(&self) -> &str {
        match self {
            Diagnosis::NagleDelayedAck { subject, .. }
            | Diagnosis::ConnectionOrWorkerLimit { subject, .. }
            | Diagnosis::BacklogOrFdLimit { subject, .. }
            | Diagnosis::SmallBacklog { subject, .. } => subject,
        }
    }

    /// A short name for the signature, as the report's bullet starts.
    pub fn title(&self) -> &'static str {
        match self {
            Diagnosis::NagleDelayedAck { .. } => "Nagle's algorithm with delayed ACK?",
            Diagnosis::ConnectionOrWorkerLimit { .. } => "a connection or worker limit?",
            Diagnosis::BacklogOrFdLimit { .. } => "a listen backlog or file-descriptor limit?",
            Diagnosis::SmallBacklog { .. } => "a small listen backlog?",
        }
    }

    /// What the figures look like and how to check the hypothesis, in Markdown (one paragraph).
    pub fn render(&self) -> String {
        match self {
            Diagnosis::NagleDelayedAck { subject, cells } => {
                let seen: Vec<String> = cells
                    .iter()
                    .map(|c| {
                        format!("p50 {:.1} ms at {} ({} connections, {})", c.p50_ms, c.scenario, c.connections, cpu(c))
                    })
                    .collect();
                format!(
                    "**{subject}: {}** It shows {} on loopback, where a round trip takes microseconds: \
                     that is Linux's 40 ms delayed-ACK timer, not work. It looks like a response written in two \
                     pieces (head, then body) on a socket without `TCP_NODELAY`: Nagle's algorithm holds the second \
                     piece until the client acknowledges the first, and the client delays that ACK. To check: write \
                     each response in one `write`/`send` (or set `TCP_NODELAY` on accepted sockets) and measure \
                     again; or watch one request with `strace -f -e trace=write,sendto,sendmsg` (two writes per \
                     response) or `tcpdump -i lo` (a ~40 ms gap before the body's segment).",
                    self.title(),
                    seen.join("; ")
                )
            }
            Diagnosis::ConnectionOrWorkerLimit { subject, low, high } => format!(
                "**{subject}: {}** On {}, throughput stayed at {:.0} req/s from {} to {} connections ({:.0} req/s), \
                 while the loader used {:.0} % of its CPUs, with the {}: neither was out of CPU, so something \
                 else caps the requests in flight, and the extra connections only queue (p50 {:.1} → {:.1} ms). It \
                 looks like a fixed pool of workers or threads, a connection limit, or a lock every request waits \
                 for. To check: look for a pool size, worker count or `max connections` setting and raise it; count \
                 the server's threads (`ls /proc/PID/task | wc -l`) and its established connections \
                 (`ss -tn state established '( sport = :PORT )' | wc -l`) during a run.",
                self.title(),
                low.scenario,
                low.requests_per_sec,
                low.connections,
                high.connections,
                high.requests_per_sec,
                high.loader_cpu_percent,
                cpu(high),
                low.p50_ms,
                high.p50_ms
            ),
            Diagnosis::BacklogOrFdLimit { subject, low, high, listen_backlog } => {
                let backlog = match listen_backlog {
                    Some(n) => format!("its listening socket's backlog was {n}"),
                    None => "its listening socket's backlog was not read".to_string(),
                };
                format!(
                    "**{subject}: {}** On {}, there were no socket errors at {} connections but {} at {}; {backlog}. \
                     Connections refused or reset only once there are many of them look like a listen backlog \
                     smaller than the burst of connects, or the process running out of file descriptors. To check: \
                     `ss -ltn` during a run (Send-Q is the backlog, Recv-Q how full it is), `nstat -az \
                     TcpExtListenOverflows TcpExtListenDrops` before and after, and `grep 'open files' \
                     /proc/PID/limits` against the connection count; raise the backlog passed to `listen` (the \
                     kernel caps it at `net.core.somaxconn`) or `ulimit -n`.",
                    self.title(),
                    low.scenario,
                    low.connections,
                    high.errors,
                    high.connections
                )
            }
            Diagnosis::SmallBacklog { subject, listen_backlog, connections } => format!(
                "**{subject}: {}** Its listening socket's backlog was {listen_backlog}, below the {connections} \
                 connections it was loaded with. A load tool opens its connections at once: those beyond the backlog \
                 wait for the kernel's SYN retries (a second or more) or are refused, which shows as slow first \
                 requests, connect errors or a lower throughput at the higher count. Python's `socketserver` (and \
                 so `http.server`) asks for 5 unless `request_queue_size` is set. To check: `ss -ltn` during a run \
                 (Send-Q is the backlog), `nstat -az TcpExtListenOverflows` before and after; raise the backlog \
                 passed to `listen` (the kernel caps it at `net.core.somaxconn`).",
                self.title()
            ),
        }
    }
}

/// The server's CPU use as a phrase; only cells where it was measured are ever diagnosed.
fn cpu(c: &CellFigures) -> String {
    format!("server CPU {:.0} %", c.server_cpu_percent.unwrap_or(0.0))
}

/// Every signature found in `b`, subject by subject in the order they were measured.
pub fn diagnose(b: &Benchmark) -> Vec<Diagnosis> {
    let mut out = Vec::new();
    for subject in &b.subjects {
        let name = subject.name.as_str();
        if !is_loopback(subject) {
            // A remote service's round trip is its own; 40 ms there proves nothing.
        } else if let Some(d) = nagle(b, name) {
            out.push(d);
        }
        if let Some(d) = small_backlog(b, subject) {
            out.push(d);
        }
        for scenario in scenarios_of(b, name) {
            let cells = cells_of(b, name, &scenario);
            if let (Some(low), Some(high)) = (cells.first(), cells.last()) {
                if high.connections < 2 * low.connections {
                    continue;
                }
                if let Some(d) = worker_limit(name, low, high) {
                    out.push(d);
                }
                if low.errors == 0 && high.errors > 0 {
                    let listen_backlog = b.summary(name, &scenario, high.connections).and_then(|s| s.listen_backlog);
                    out.push(Diagnosis::BacklogOrFdLimit {
                        subject: name.to_string(),
                        low: low.clone(),
                        high: high.clone(),
                        listen_backlog,
                    });
                }
            }
        }
    }
    out
}

/// The listen backlog most servers ask for, below which a user's service is told of its own.
const USUAL_BACKLOG: u32 = 128;

/// A service of the user's (a command or a URL) whose backlog, read in a run, is below the most connections it was
/// loaded with.
fn small_backlog(b: &Benchmark, subject: &SubjectRecord) -> Option<Diagnosis> {
    if subject.kind == SubjectKind::Builtin {
        return None;
    }
    let cells: Vec<&Summary> = b.summaries.iter().filter(|s| s.subject == subject.name).collect();
    let connections = cells.iter().map(|s| s.connections).max()?;
    let listen_backlog = cells.iter().filter_map(|s| s.listen_backlog).min()?;
    // 128 was the kernel's cap (`net.core.somaxconn`) for decades and is what most servers ask for; a server that
    // accepts promptly drains a queue that size under any connection count loaded here. Below it and below the
    // connections, a burst of connects overflows the queue before the server can accept them.
    (listen_backlog < connections.min(USUAL_BACKLOG)).then(|| Diagnosis::SmallBacklog {
        subject: subject.name.clone(),
        listen_backlog,
        connections,
    })
}

/// A subject started by the harness listens on 127.0.0.1; a running service given by URL is on loopback when the
/// URL's host is.
fn is_loopback(subject: &SubjectRecord) -> bool {
    match subject.kind {
        SubjectKind::External => {
            let host = subject.command.split_once("://").map_or("", |(_, rest)| rest);
            let host = host.split('/').next().unwrap_or("").rsplit_once(':').map_or(host, |(h, _)| h);
            host == "localhost" || host.trim_matches(['[', ']']).parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        SubjectKind::Builtin | SubjectKind::Custom => true,
    }
}

fn nagle(b: &Benchmark, subject: &str) -> Option<Diagnosis> {
    let stalled: Vec<CellFigures> = b
        .summaries
        .iter()
        .filter(|s| s.subject == subject)
        .map(|s| figures(b, s))
        .filter(|c| DELAYED_ACK_P50_MS.contains(&c.p50_ms))
        // A server busy for 40 ms is doing work, not waiting for a timer: without its CPU, nothing can be said.
        .filter(|c| c.server_cpu_percent.is_some_and(|p| p < LOW_SERVER_CPU_PERCENT))
        .collect();
    (!stalled.is_empty()).then(|| Diagnosis::NagleDelayedAck { subject: subject.to_string(), cells: stalled })
}

fn worker_limit(subject: &str, low: &CellFigures, high: &CellFigures) -> Option<Diagnosis> {
    let flat = low.requests_per_sec > 0.0 && high.requests_per_sec <= FLAT_THROUGHPUT_RATIO * low.requests_per_sec;
    let loader_idle = high.loader_cpu_percent < IDLE_LOADER_CPU_PERCENT;
    // A server out of CPU is flat for the plainest reason; only a server with room left points to a limit, and
    // without its CPU there is no telling.
    let server_has_room = high.server_cpu_percent.is_some_and(|p| p < LOW_SERVER_CPU_PERCENT);
    (flat && loader_idle && server_has_room).then(|| Diagnosis::ConnectionOrWorkerLimit {
        subject: subject.to_string(),
        low: low.clone(),
        high: high.clone(),
    })
}

fn scenarios_of(b: &Benchmark, subject: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in b.summaries.iter().filter(|s| s.subject == subject) {
        if !v.contains(&s.scenario) {
            v.push(s.scenario.clone());
        }
    }
    v
}

/// The subject's cells of one scenario, by connection count.
fn cells_of(b: &Benchmark, subject: &str, scenario: &str) -> Vec<CellFigures> {
    let mut v: Vec<CellFigures> =
        b.summaries.iter().filter(|s| s.subject == subject && s.scenario == scenario).map(|s| figures(b, s)).collect();
    v.sort_by_key(|c| c.connections);
    v
}

/// The figures of one summary, with the server's CPU per request turned into a share of its CPUs.
fn figures(b: &Benchmark, s: &Summary) -> CellFigures {
    // A running service was not pinned: it could use every CPU of the machine.
    let external = b.subjects.iter().any(|r| r.name == s.subject && r.kind == SubjectKind::External);
    let server_cpus = match b.settings.server_cpus.len() {
        n if n > 0 && !external => n,
        _ => b.environment.cpus_allowed.len().max(1),
    } as f64;
    let server_cpu_percent = s
        .server_cpu_us_per_request
        .as_ref()
        .map(|us| us.median * s.requests_per_sec.median / 1e6 / server_cpus * 100.0);
    CellFigures {
        scenario: s.scenario.clone(),
        connections: s.connections,
        requests_per_sec: s.requests_per_sec.median,
        p50_ms: s.p50_ms.median,
        server_cpu_percent,
        loader_cpu_percent: s.loader_cpu_percent.median,
        errors: s.errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::stats::Stat;

    /// One cell of a fixture: `(subject, scenario, connections, req/s, p50 ms, server CPU µs per request,
    /// loader CPU %, errors)`.
    type Cell = (&'static str, &'static str, u32, f64, f64, Option<f64>, f64, u64);

    /// The golden run's machine and subjects (server on one CPU) with the summaries replaced by `cells`.
    fn bench(cells: &[Cell]) -> Benchmark {
        let text = include_str!("../../tests/fixtures/golden/benchmark.json");
        let mut b: Benchmark = serde_json::from_str(text).unwrap();
        assert_eq!(b.settings.server_cpus, [0], "the fixtures below assume one server CPU");
        let one = |v: f64| Stat::of(&[v]).unwrap();
        b.summaries = cells
            .iter()
            .map(|&(subject, scenario, connections, rps, p50, cpu_us, loader, errors)| Summary {
                subject: subject.into(),
                scenario: scenario.into(),
                connections,
                requests_per_sec: one(rps),
                p50_ms: one(p50),
                p90_ms: one(p50 * 1.2),
                p99_ms: one(p50 * 1.5),
                p99_9_ms: None,
                max_ms: one(p50 * 2.0),
                mean_ms: None,
                server_cpu_us_per_request: cpu_us.map(one),
                loader_cpu_percent: one(loader),
                loader_bound_runs: 0,
                errors,
                non_2xx: 0,
                loader_capacity_rps: None,
                loader_capacity_share_percent: None,
                loader_limited: false,
                steal_percent_max: None,
                listen_backlog: Some(128),
                left_out_runs: 0,
            })
            .collect();
        b
    }

    /// A healthy subject: throughput grows with connections, sub-millisecond p50, no errors.
    const HEALTHY: [Cell; 2] = [
        ("alpha", "get", 50, 20_000.0, 0.8, Some(45.0), 95.0, 0),
        ("alpha", "get", 300, 26_000.0, 4.0, Some(38.0), 97.0, 0),
    ];

    #[test]
    fn a_healthy_subject_gets_no_diagnosis() {
        assert_eq!(diagnose(&bench(&HEALTHY)), []);
    }

    #[test]
    fn a_service_listening_with_a_backlog_of_5_under_300_connections_is_told_so() {
        let mut b = bench(&HEALTHY);
        b.subjects[1].kind = SubjectKind::Custom;
        b.summaries.iter_mut().for_each(|s| s.listen_backlog = Some(5));
        let found = diagnose(&b);
        assert_eq!(
            found,
            [Diagnosis::SmallBacklog { subject: "alpha".into(), listen_backlog: 5, connections: 300 }],
            "it used to show the backlog of 5 without a word"
        );
        let text = found[0].render();
        assert!(text.contains("backlog was 5, below the 300 connections") && text.contains("request_queue_size"));
        // A built-in server, or a backlog above the connections, is no diagnosis.
        b.summaries.iter_mut().for_each(|s| s.listen_backlog = Some(4096));
        assert_eq!(diagnose(&b), []);
        b.subjects[1].kind = SubjectKind::Builtin;
        b.summaries.iter_mut().for_each(|s| s.listen_backlog = Some(5));
        assert_eq!(diagnose(&b), []);
    }

    #[test]
    fn forty_ms_on_loopback_with_an_idle_server_is_nagle() {
        // 50 connections / 40 ms = 1,250 req/s at 80 µs each: 10 % of the server's CPU.
        let b = bench(&[("alpha", "get", 50, 1_250.0, 40.9, Some(80.0), 12.0, 0), HEALTHY[1]]);
        let found = diagnose(&b);
        assert_eq!(found.len(), 1, "{found:?}");
        let Diagnosis::NagleDelayedAck { subject, cells } = &found[0] else { panic!("{found:?}") };
        assert_eq!((subject.as_str(), cells.len(), cells[0].connections), ("alpha", 1, 50));
        assert!((cells[0].server_cpu_percent.unwrap() - 10.0).abs() < 1e-9, "{cells:?}");
        let text = found[0].render();
        for needle in ["p50 40.9 ms at get (50 connections, server CPU 10 %)", "TCP_NODELAY", "To check", "looks like"]
        {
            assert!(text.contains(needle), "{needle:?} in {text}");
        }
    }

    #[test]
    fn forty_ms_is_not_nagle_when_the_server_is_busy_or_remote_or_the_latency_is_elsewhere() {
        // The same p50 with the server's CPU full: it is doing work, not waiting for a timer.
        assert_eq!(diagnose(&bench(&[("alpha", "get", 50, 1_250.0, 40.0, Some(790.0), 12.0, 0)])), []);
        // 20 ms and 60 ms are not the delayed-ACK timer.
        for p50 in [20.0, 60.0] {
            assert_eq!(diagnose(&bench(&[("alpha", "get", 50, 1_250.0, p50, Some(80.0), 12.0, 0)])), []);
        }
        // A service on another host: 40 ms may be its network.
        let mut b = bench(&[("alpha", "get", 50, 1_250.0, 40.0, None, 12.0, 0)]);
        b.subjects[1].kind = SubjectKind::External;
        b.subjects[1].command = "http://10.0.0.7:8000".into();
        assert_eq!(diagnose(&b), []);
        // The same service on loopback, its CPU not measured: no telling a timer from work, so no diagnosis.
        b.subjects[1].command = "http://127.0.0.1:8000".into();
        assert_eq!(diagnose(&b), []);
        // Its CPU measured (the owner of its socket) and low: the timer it is.
        let mut b = bench(&[("alpha", "get", 50, 1_250.0, 40.0, Some(80.0), 12.0, 0)]);
        (b.subjects[1].kind, b.subjects[1].command) = (SubjectKind::External, "http://[::1]:8000".into());
        assert!(matches!(diagnose(&b).as_slice(), [Diagnosis::NagleDelayedAck { .. }]));
    }

    #[test]
    fn flat_throughput_with_an_idle_loader_and_server_is_a_limit() {
        // 4 workers each blocked 10 ms per request: 400 req/s at any connection count, everyone idle.
        let b = bench(&[
            ("alpha", "get", 50, 400.0, 125.0, Some(100.0), 5.0, 0),
            ("alpha", "get", 300, 410.0, 740.0, Some(100.0), 6.0, 0),
        ]);
        let found = diagnose(&b);
        assert_eq!(found.len(), 1, "{found:?}");
        let Diagnosis::ConnectionOrWorkerLimit { low, high, .. } = &found[0] else { panic!("{found:?}") };
        assert_eq!((low.connections, high.connections), (50, 300));
        let text = found[0].render();
        assert!(text.contains("stayed at 400 req/s from 50 to 300 connections (410 req/s)"), "{text}");
        assert!(text.contains("worker") && text.contains("To check"), "{text}");
    }

    #[test]
    fn flat_throughput_is_no_limit_when_the_loader_or_the_server_is_busy_or_it_grows() {
        let busy_loader = [
            ("alpha", "get", 50, 20_000.0, 2.0, Some(20.0), 95.0, 0),
            ("alpha", "get", 300, 20_000.0, 14.0, Some(20.0), 96.0, 0),
        ];
        // 20,000 req/s × 45 µs = 90 % of the server's CPU: it is simply out of CPU.
        let busy_server = [
            ("alpha", "get", 50, 20_000.0, 2.0, Some(45.0), 30.0, 0),
            ("alpha", "get", 300, 20_000.0, 14.0, Some(45.0), 30.0, 0),
        ];
        let grows = [
            ("alpha", "get", 50, 400.0, 2.0, Some(100.0), 5.0, 0),
            ("alpha", "get", 300, 2_000.0, 14.0, Some(100.0), 20.0, 0),
        ];
        for cells in [busy_loader, busy_server, grows] {
            assert_eq!(diagnose(&bench(&cells)), [], "{cells:?}");
        }
    }

    #[test]
    fn errors_only_at_the_higher_count_point_to_the_backlog_or_descriptors() {
        let mut cells = HEALTHY;
        cells[1].7 = 1_234;
        let found = diagnose(&bench(&cells));
        assert_eq!(found.len(), 1, "{found:?}");
        let Diagnosis::BacklogOrFdLimit { high, listen_backlog, .. } = &found[0] else { panic!("{found:?}") };
        assert_eq!((high.errors, *listen_backlog), (1_234, Some(128)));
        let text = found[0].render();
        assert!(text.contains("no socket errors at 50 connections but 1234 at 300"), "{text}");
        assert!(text.contains("backlog was 128") && text.contains("open files"), "{text}");
        // Errors at both counts are a different problem; errors at the lower count only, not this one either.
        let mut both = HEALTHY;
        both[0].7 = 5;
        both[1].7 = 9;
        assert_eq!(diagnose(&bench(&both)), []);
    }

    #[test]
    fn the_report_shows_diagnoses_only_when_there_are_some() {
        let (md, _) = crate::report::render(&bench(&HEALTHY));
        assert!(!md.contains("## Diagnoses"), "{md}");
        let b = bench(&[("alpha", "get", 50, 1_250.0, 40.9, Some(80.0), 12.0, 0), HEALTHY[1]]);
        let (md, _) = crate::report::render(&b);
        // The fixture's alpha was measured with --allow-unverified, and the report marks it so everywhere.
        assert!(
            md.contains("## Diagnoses") && md.contains("**alpha (UNVERIFIED): Nagle's algorithm with delayed ACK?**"),
            "{md}"
        );
    }
}
