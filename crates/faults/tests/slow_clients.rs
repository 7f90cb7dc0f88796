//! Slow clients: heads dribbled, bodies dribbled, silent sockets and idle keep-alive connections are all cut off
//! in time, while a normal client keeps getting 200s during the attack.
//!
//! The servers run with the time limits lowered to 1 s (`Limits::SHORT`) so the suite takes seconds; the same code
//! paths enforce the contract's 10 s. `scripts/slowhttptest` runs the real tool against the real defaults.

use contract::Connection;
use faults::{Kind, Limits, Server, exchange, get_bytes, status};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// How much later than its limit a cut may come: Node checks its header deadline on an interval, and the machine
/// may be busy. The contract allows 10 s limits to cut at 12 s; this is the same margin.
const SLACK: Duration = Duration::from_millis(2000);

/// Writes `pieces` one at a time, `gap` apart, until the server closes the connection; returns when it closed
/// (measured from `start`), or `None` if it never did.
fn dribble(conn: &mut Connection, pieces: &[u8], gap: Duration, start: Instant, give_up: Duration) -> Option<Duration> {
    for piece in pieces.chunks(1) {
        if conn.write(piece).is_err() {
            return Some(start.elapsed());
        }
        if conn.closes_within(gap) {
            return Some(start.elapsed());
        }
        if start.elapsed() > give_up {
            return None;
        }
    }
    conn.closes_within(give_up.saturating_sub(start.elapsed())).then(|| start.elapsed())
}

fn assert_cut(kind: Kind, what: &str, cut: Option<Duration>, limit: Duration) {
    let cut = cut.unwrap_or_else(|| panic!("{}: {what}: never cut", kind.name()));
    assert!(cut <= limit + SLACK, "{}: {what}: cut after {cut:?}, limit {limit:?}", kind.name());
    // Not a timing test: this only shows the cut came from the time limit, not from something closing at once.
    assert!(cut >= limit / 2, "{}: {what}: cut after only {cut:?}, limit {limit:?}", kind.name());
}

#[test]
fn a_silent_socket_is_closed_after_the_header_limit() {
    for kind in faults::kinds("a_silent_socket_is_closed_after_the_header_limit") {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let start = Instant::now();
        let mut conn = Connection::open(server.addr, Duration::from_secs(5)).unwrap();
        let closed = conn.closes_within(Limits::SHORT.header + SLACK + SLACK).then(|| start.elapsed());
        assert_cut(kind, "silent socket", closed, Limits::SHORT.header);
    }
}

#[test]
fn a_dribbled_head_is_cut_at_the_header_limit_counted_from_connect() {
    for kind in faults::kinds("a_dribbled_head_is_cut_at_the_header_limit_counted_from_connect") {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let start = Instant::now();
        let mut conn = Connection::open(server.addr, Duration::from_secs(5)).unwrap();
        // Every byte arrives well within any idle timeout, but the head never completes.
        let head = b"GET /users/1 HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        let cut = dribble(&mut conn, head, Duration::from_millis(100), start, Duration::from_secs(8));
        assert_cut(kind, "dribbled head", cut, Limits::SHORT.header);
    }
}

#[test]
fn a_dribbled_body_gets_408_at_the_body_limit() {
    for kind in faults::kinds("a_dribbled_body_gets_408_at_the_body_limit") {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let mut conn = Connection::open(server.addr, Duration::from_secs(5)).unwrap();
        conn.write(b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
            .unwrap();
        let start = Instant::now();
        let body = [b' '; 200];
        let cut = dribble(&mut conn, &body, Duration::from_millis(100), start, Duration::from_secs(8));
        assert_cut(kind, "dribbled body", cut, Limits::SHORT.body);
        let answer = conn.response(false, Duration::from_secs(1));
        let answer = answer.ok().flatten().unwrap_or_else(|| panic!("{}: cut without a 408", kind.name()));
        assert_eq!(answer.status, 408, "{}", kind.name());
        assert_eq!(answer.body, br#"{"error":"request timeout"}"#, "{}", kind.name());
    }
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_header_limit() {
    for kind in faults::kinds("an_idle_keep_alive_connection_is_closed_after_the_header_limit") {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let mut conn = Connection::open(server.addr, Duration::from_secs(5)).unwrap();
        conn.write(&get_bytes("/health")).unwrap();
        let first = conn.response(false, Duration::from_secs(5)).unwrap().expect("a response");
        assert_eq!(first.status, 200);
        let start = Instant::now();
        let closed = conn.closes_within(Limits::SHORT.header + SLACK + SLACK).then(|| start.elapsed());
        assert_cut(kind, "idle keep-alive", closed, Limits::SHORT.header);
    }
}

/// While 60 slow clients hold connections open (silent, dribbling heads, dribbling bodies), a normal client's
/// requests are all answered with 200.
#[test]
fn a_normal_client_is_served_during_a_slow_client_attack() {
    for kind in faults::kinds("a_normal_client_is_served_during_a_slow_client_attack") {
        let server = Server::start(kind, Limits::SHORT, &[]);
        let stop = Arc::new(AtomicBool::new(false));
        let attackers: Vec<_> = (0..60).map(|i| attacker(server.addr, i % 3, stop.clone())).collect();
        thread::sleep(Duration::from_millis(300));
        let start = Instant::now();
        let mut served = 0;
        while start.elapsed() < Duration::from_secs(3) {
            let outcome = exchange(server.addr, &get_bytes("/users/500"));
            assert_eq!(status(&outcome), 200, "{}: a normal request during the attack", kind.name());
            served += 1;
            thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
        for a in attackers {
            a.join().unwrap();
        }
        assert!(served > 20, "{}: only {served} requests in 3 s", kind.name());
    }
}

/// One slow client, reconnecting whenever it is cut, until told to stop: 0 silent, 1 dribbling its head,
/// 2 dribbling its body.
fn attacker(addr: SocketAddr, style: usize, stop: Arc<AtomicBool>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let Ok(mut conn) = Connection::open(addr, Duration::from_secs(2)) else { continue };
            let bytes: &[u8] = match style {
                0 => b"",
                1 => b"GET / HTTP/1.1\r\nHost: x\r\nX-A: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                _ => b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 90\r\n\r\n{\"name\":\"slow\",\"email\":\"s@w\",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            };
            let mut sent = 0;
            while !stop.load(Ordering::Relaxed) {
                if sent < bytes.len() {
                    if conn.write(&bytes[sent..sent + 1]).is_err() {
                        break;
                    }
                    sent += 1;
                }
                if conn.closes_within(Duration::from_millis(100)) {
                    break;
                }
            }
        }
    })
}
