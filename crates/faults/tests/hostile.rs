//! Hostile input, round two: what a second hostile pass found, on every server.
//!
//! Each test runs over [`servers`], collects what went wrong on each, and fails once at the end naming every server
//! that misbehaved, so one broken server does not hide another. A new server (Go, say) is one more entry in
//! `faults::kinds`.
//!
//! - a complete request followed by the client's `shutdown(SHUT_WR)` is answered (500 GETs, 500 POSTs);
//! - 1,000 connects at once, each sending one POST, lose nothing (the listen backlog is 1,024);
//! - draining 600 oversize bodies at once holds a small buffer per connection (peak memory, one worker);
//! - SIGHUP, SIGUSR1 and SIGUSR2 leave the server up and answering, with no debugger listening on 9229;
//! - a chunk size followed by a space or a tab (`1d \r\n`) is refused or read as `1d\r\n`, never differently;
//! - a `Transfer-Encoding` other than one `chunked` is refused (501, or 400 from the parser) and stores nothing.

use contract::{Connection, Outcome};
use faults::{Kind, Limits, Server, Signal, body, created_id, exchange, post_bytes, status};
use std::collections::BTreeSet;
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

/// The servers every test here runs on: Rust, Node, and Go where it is installed (`faults::kinds` says when not).
fn servers() -> Vec<Kind> {
    faults::kinds("faults::hostile")
}

const READ: Duration = Duration::from_secs(10);

/// Fails with every server's problems, if any server had one.
fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// The id the next created user gets, found by creating one (so each call stores exactly one user).
fn next_id(server: &Server, name: &str) -> u64 {
    created_id(&exchange(server.addr, &post_bytes(&format!(r#"{{"name":"{name}","email":"{name}@x"}}"#))))
}

/// Runs `job(i)` for `i` in `0..count` on `threads` threads, each released by one barrier so they start together.
fn in_parallel<T: Send + 'static>(
    count: usize,
    threads: usize,
    job: impl Fn(usize) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let job = Arc::new(job);
    let start = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (job, start) = (job.clone(), start.clone());
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    start.wait();
                    (t..count).step_by(threads).map(|i| job(i)).collect::<Vec<T>>()
                })
                .expect("a client thread starts")
        })
        .collect();
    handles.into_iter().flat_map(|h| h.join().expect("a client thread panicked")).collect()
}

/// One request, then the client shuts down its sending side at once and reads the answer.
fn half_closed(addr: SocketAddr, bytes: &[u8]) -> Result<contract::Response, String> {
    let mut conn = Connection::open(addr, READ).map_err(|e| format!("connect: {e}"))?;
    conn.write(bytes).map_err(|e| format!("write: {e}"))?;
    conn.stream().shutdown(Shutdown::Write).map_err(|e| format!("shutdown: {e}"))?;
    match conn.response(false, READ) {
        Ok(Some(response)) => Ok(response),
        Ok(None) => Err("closed without an answer".to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

/// A complete request followed by the client's half-close is answered (CONTRACT.md, "Transport rules"): 500 GETs and
/// 500 POSTs, each followed at once by `shutdown(SHUT_WR)`, are all answered, and the users created are exactly the
/// POSTs answered 201.
#[test]
fn half_closed_requests_are_all_answered() {
    let mut problems = Vec::new();
    for kind in servers() {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let addr = server.addr;
        let gets = in_parallel(500, 10, move |i| half_closed(addr, &faults::get_bytes(&format!("/users/{}", i + 1))));
        let posts = in_parallel(500, 10, move |i| {
            half_closed(addr, &post_bytes(&format!(r#"{{"name":"H{i}","email":"h@x"}}"#)))
        });
        let unanswered = gets.iter().chain(&posts).filter(|r| r.is_err()).count();
        let ok_gets = gets.iter().filter(|r| r.as_ref().is_ok_and(|r| r.status == 200)).count();
        let created = posts.iter().filter(|r| r.as_ref().is_ok_and(|r| r.status == 201)).count();
        if unanswered > 0 || ok_gets != 500 || created != 500 {
            let first = gets.iter().chain(&posts).find_map(|r| r.as_ref().err());
            problems.push(format!(
                "{}: {unanswered} of 1000 unanswered, {ok_gets} GETs 200, {created} POSTs 201 (first error: {first:?})",
                kind.name()
            ));
        }
        // Exactly the answered POSTs were stored: the next id follows them.
        let next = next_id(&server, "After");
        if next != 10_001 + created as u64 {
            problems.push(format!("{}: {created} created but the next id is {next}", kind.name()));
        }
    }
    report(problems);
}

/// The listen backlog: 1,000 connects at once, each sending one POST, all answered 201 with 1,000 distinct ids.
/// A backlog below the burst makes the kernel drop or reset connections (the issue saw 17 to 224 lost at 600).
/// No time is asserted, only that nothing is lost.
#[test]
fn a_burst_of_1000_connects_loses_nothing() {
    let mut problems = Vec::new();
    for kind in servers() {
        let server = Server::start(kind, Limits::CONTRACT, &[]);
        let addr = server.addr;
        let outcomes = in_parallel(1000, 1000, move |i| {
            let bytes = post_bytes(&format!(r#"{{"name":"B{i}","email":"b@x"}}"#));
            contract::send(addr, &bytes, Duration::from_secs(30), false).map_err(|e| e.to_string())
        });
        let ids: BTreeSet<u64> =
            outcomes.iter().filter_map(|o| o.as_ref().ok()).filter(|o| status(o) == 201).map(created_id).collect();
        if ids.len() != 1000 {
            let failures: Vec<String> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Ok(o) if status(o) == 201 => None,
                    Ok(o) => Some(format!("status {}", status(o))),
                    Err(e) => Some(e.clone()),
                })
                .take(3)
                .collect();
            problems.push(format!("{}: {} of 1000 created; e.g. {failures:?}", kind.name(), ids.len()));
        }
    }
    report(problems);
}

/// The drain's small fixed buffer (contract: `post-body-limit`): 600 connections each send a 1.1 MB body to POST
/// /users, which the server drains (up to 1 MiB past the limit) before answering 413. Peak memory (VmHWM, one worker)
/// may grow by at most 200 KiB per connection: a loose bound so the test cannot flake on a noisy machine; the figure
/// itself is printed (`--nocapture`). The contract's target is 64 KiB; with hyper's default buffer limit the Rust
/// server took 394 to 591 KiB.
#[test]
fn draining_oversize_bodies_holds_little_memory_per_connection() {
    const CONNECTIONS: usize = 600;
    const BODY: usize = 1_100_000;
    let mut problems = Vec::new();
    for kind in servers() {
        let server = Server::start_with_workers(kind, Limits::CONTRACT, 1, &[]);
        let addr = server.addr;
        // Warm the server up (allocator arenas, first connections) so the baseline is not its idle start.
        for i in 0..20 {
            exchange(addr, &faults::get_bytes(&format!("/users/{}", i + 1)));
        }
        let before = server.hwm_kib();
        // Every connection sends its head first; the bodies start together, so the drains overlap.
        let heads_sent = Arc::new(Barrier::new(CONNECTIONS));
        let statuses = in_parallel(CONNECTIONS, CONNECTIONS, move |_| {
            let head = format!(
                "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {BODY}\r\n\r\n"
            );
            let conn = Connection::open(addr, Duration::from_secs(30));
            let sent = conn.map(|mut conn| {
                let head_ok = conn.write(head.as_bytes()).is_ok();
                heads_sent.wait();
                (conn, head_ok)
            });
            let Ok((mut conn, true)) = sent else {
                heads_sent.wait();
                return 0;
            };
            let _ = conn.write(&vec![b' '; BODY]);
            conn.response(false, Duration::from_secs(30)).ok().flatten().map_or(0, |r| r.status)
        });
        let after = server.hwm_kib();
        let refused = statuses.iter().filter(|&&s| s == 413).count();
        let per_connection = after.saturating_sub(before) as f64 / CONNECTIONS as f64;
        println!(
            "{}: peak memory {before} KiB -> {after} KiB over {CONNECTIONS} draining connections: {per_connection:.1} KiB \
             per connection ({refused} answered 413)",
            kind.name()
        );
        if refused != CONNECTIONS {
            problems.push(format!("{}: only {refused} of {CONNECTIONS} answered 413", kind.name()));
        }
        if per_connection > 200.0 {
            problems.push(format!("{}: {per_connection:.1} KiB per draining connection (> 200)", kind.name()));
        }
    }
    report(problems);
}

/// Whether a process in `pids` listens on TCP port 9229 (Node's inspector), by `ss -lntp`; without `ss`, whether
/// anything accepts a connection there.
fn debugger_listening(pids: &[u32]) -> bool {
    match Command::new("ss").args(["-lntpH", "sport = :9229"]).output() {
        Ok(output) => {
            let text = String::from_utf8_lossy(&output.stdout);
            pids.iter().any(|pid| text.contains(&format!("pid={pid},")))
        }
        Err(_) => TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], 9229)), READ).is_ok(),
    }
}

/// The contract's signals: SIGHUP, SIGUSR1 and SIGUSR2 are ignored (never an exit, never a debugger).
#[test]
fn hangup_and_user_signals_leave_the_server_up() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for kind in servers() {
        let mut server = Server::start(kind, Limits::SHORT, &[]);
        for signal in [Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGUSR2] {
            server.signal(signal);
            thread::sleep(Duration::from_millis(300));
            if let Some((exit, _)) = server.wait_exit(Duration::ZERO) {
                problems.push(format!("{}: {signal} ended the server ({exit})", kind.name()));
                break;
            }
            let outcome = contract::send(server.addr, &faults::get_bytes("/health"), READ, false);
            if !matches!(&outcome, Ok(o) if status(o) == 200) {
                problems.push(format!("{}: after {signal}, /health gave {outcome:?}", kind.name()));
            }
            if debugger_listening(&[server.pid()]) {
                problems.push(format!("{}: after {signal}, the server listens on 9229", kind.name()));
            }
            checked += 1;
        }
    }
    report(problems);
    assert_eq!(checked, 3 * servers().len());
}

/// What a server did with one request: refused it (a 4xx), or created this user.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    Refused(u16),
    Created { name: String },
}

/// A chunk size followed by a space or a tab (`1d \r\n`) is tolerated (contract: `raw-chunk-size-trailing-space`): a
/// server refuses it with 400, or reads the chunk with that size, storing the same user as `1d\r\n` would. A request
/// pipelined behind it is answered as itself (nothing is smuggled), and nothing else is stored.
#[test]
fn a_chunk_size_followed_by_a_blank_is_refused_or_read_the_same() {
    let user = r#"{"name":"Smug","email":"s@x"}"#;
    assert_eq!(user.len(), 0x1d);
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for kind in servers() {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let mut created = 0;
        for size_line in ["1d \r\n", "1d\t\r\n", "1d  ;x=y\r\n"] {
            let bytes = format!(
                "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n\
                 {size_line}{user}\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            );
            let mut conn = Connection::open(server.addr, READ).unwrap();
            conn.write(bytes.as_bytes()).unwrap();
            let read = match conn.response(false, READ) {
                Ok(Some(r)) if r.status == 201 => {
                    created += 1;
                    let text = String::from_utf8_lossy(&r.body).into_owned();
                    let name = text.split(r#""name":""#).nth(1).and_then(|rest| rest.split('"').next());
                    Read::Created { name: name.unwrap_or_default().to_owned() }
                }
                Ok(Some(r)) => Read::Refused(r.status),
                other => {
                    problems.push(format!("{}: {size_line:?}: {other:?}", kind.name()));
                    continue;
                }
            };
            match &read {
                Read::Refused(400) => {}
                Read::Created { name } if name == "Smug" => {
                    // The request behind it is answered as itself, or the connection is closed.
                    if let Ok(Some(next)) = conn.response(false, READ)
                        && next.body != br#"{"status":"ok"}"#
                    {
                        problems.push(format!("{}: {size_line:?}: the next answer is {}", kind.name(), next.status));
                    }
                }
                other => problems.push(format!("{}: {size_line:?}: {other:?}", kind.name())),
            }
            seen.push(format!("{} {size_line:?}: {read:?}", kind.name()));
        }
        let next = next_id(&server, "After");
        if next != 10_001 + created {
            problems.push(format!("{}: {created} created but the next id is {next}", kind.name()));
        }
    }
    println!("{}", seen.join("\n"));
    report(problems);
}

/// A `Transfer-Encoding` other than exactly one `chunked` is refused (contract: `transport-transfer-encoding`), 501 (or
/// 400 where the stack's parser refuses first), the connection closes, and nothing is stored whatever the outcome.
#[test]
fn unsupported_transfer_codings_are_refused_and_store_nothing() {
    let user = r#"{"name":"Smug","email":"s@x"}"#;
    let chunked = format!("1d\r\n{user}\r\n0\r\n\r\n");
    let cases: Vec<(&str, String, &str)> = vec![
        ("chunked, chunked", "Transfer-Encoding: chunked, chunked\r\n".to_owned(), &chunked),
        ("chunked twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n".to_owned(), &chunked),
        ("gzip, chunked", "Transfer-Encoding: gzip, chunked\r\n".to_owned(), &chunked),
        ("empty, with a length", format!("Transfer-Encoding: \r\nContent-Length: {}\r\n", user.len()), user),
        ("gzip alone", "Transfer-Encoding: gzip\r\n".to_owned(), &chunked),
    ];
    let mut problems = Vec::new();
    let mut checked = 0;
    for kind in servers() {
        let server = Server::start(kind, Limits::SHORT, &[]);
        for (case, fields, body_bytes) in &cases {
            let bytes = format!(
                "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{fields}\r\n{body_bytes}"
            );
            let outcome = contract::send(server.addr, bytes.as_bytes(), READ, true);
            match &outcome {
                Ok(o @ Outcome::Response { closed: Some(true), .. }) if [400, 501].contains(&status(o)) => {
                    if kind == Kind::Rust
                        && status(o) == 501
                        && body(o) != r#"{"error":"unsupported transfer encoding"}"#
                    {
                        problems.push(format!("{}: {case}: 501 with {}", kind.name(), body(o)));
                    }
                }
                other => problems.push(format!("{}: {case}: {other:?}", kind.name())),
            }
            checked += 1;
        }
        let next = next_id(&server, "After");
        if next != 10_001 {
            problems.push(format!("{}: something was stored: the next id is {next}", kind.name()));
        }
    }
    report(problems);
    assert_eq!(checked, cases.len() * servers().len());
}
