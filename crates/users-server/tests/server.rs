//! The real `users-server` binary on a real socket: every case of `contract/cases.json` (raw ones included), and the
//! transport rules only a connection can show — time limits, closing, pipelining, graceful shutdown, bad flags.
//!
//! Each test starts its own server on port 0 and lowers the time limits it needs with the hidden test flags, so the
//! whole file runs in seconds. No test measures speed.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use contract::{Connection, Requires, Verdict};

mod common;

use common::BIN;
const TIMEOUT: Duration = Duration::from_secs(5);

/// A running server, killed when dropped (if a test has not stopped it already).
struct Server {
    child: Child,
    addr: SocketAddr,
    line: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let (child, addr, line) = common::spawn(args, Stdio::null());
        Server { child, addr, line }
    }

    fn connect(&self) -> Connection {
        Connection::open(self.addr, TIMEOUT).expect("connect")
    }

    /// Sends SIGTERM, as a process manager would.
    fn terminate(&self) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit, at most `limit`.
    fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit within {limit:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs every case against a server started with the settings in `requires`, and returns the failures.
fn run_all_cases(server: &Server, requires: &Requires) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failures = Vec::new();
    for case in contract::cases() {
        let result = contract::run_case(server.addr, case, requires);
        match result.verdict {
            Verdict::Passed => passed += 1,
            Verdict::Failed(_) => failures.push(result.to_string()),
            Verdict::Skipped(_) => {}
        }
    }
    (passed, failures)
}

#[test]
fn every_case_passes_against_the_binary() {
    let server = Server::start(&["--workers", "2"]);
    let (passed, failures) = run_all_cases(&server, &Requires::default());
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
    assert!(passed > 150, "only {passed} cases ran");

    // The cases that need a full store, on a server started with no room beyond the seed.
    let full = Server::start(&["--workers", "1", "--max-users", "10000"]);
    let requires = Requires { max_users: Some(10_000), ..Requires::default() };
    let (passed, failures) = run_all_cases(&full, &requires);
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
    assert!(passed >= 3, "only {passed} full-store cases ran");

    // The cases that wait for the head time limit, on a server started with a short one.
    let short = Server::start(&["--workers", "1", "--header-timeout-ms", "1000"]);
    let requires = Requires { header_timeout_ms: Some(1000), ..Requires::default() };
    let (passed, failures) = run_all_cases(&short, &requires);
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
    assert!(passed >= 1, "no head-time-limit case ran");
}

#[test]
fn start_up_line_names_the_real_port_and_the_workers() {
    let one = Server::start(&["--workers", "1"]);
    assert_eq!(one.line, format!("listening on http://127.0.0.1:{} (10000 users, 1 worker)", one.addr.port()));
    let three = Server::start(&["--workers", "3"]);
    assert_eq!(three.line, format!("listening on http://127.0.0.1:{} (10000 users, 3 workers)", three.addr.port()));
}

/// The threads of a process and their names.
fn thread_names(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.unwrap().path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

#[test]
fn workers_flag_sets_the_worker_thread_count() {
    // One worker is a current-thread runtime: the main thread is the worker, and there is no other thread.
    let one = Server::start(&["--workers", "1"]);
    assert_eq!(thread_names(one.child.id()).len(), 1, "{:?}", thread_names(one.child.id()));
    // tokio names its worker threads after `thread_name`; blocking-pool threads, if any, share the name but none is
    // started by a server that does no blocking work.
    let three = Server::start(&["--workers", "3"]);
    let workers = thread_names(three.child.id()).iter().filter(|name| *name == "users-worker").count();
    assert_eq!(workers, 3);
}

#[test]
fn a_slow_or_idle_connection_is_closed_after_the_head_timeout() {
    let server = Server::start(&["--workers", "1", "--header-timeout-ms", "400"]);

    // A head that never completes.
    let mut slow = server.connect();
    slow.write(b"GET /users/1 HTTP/1.1\r\nHost: x\r\n").unwrap();
    let started = Instant::now();
    assert!(slow.closes_within(TIMEOUT), "a slow head is cut off");
    assert!(started.elapsed() >= Duration::from_millis(300), "not before the timeout");

    // A keep-alive connection that stays idle after its response.
    let mut idle = server.connect();
    idle.write(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!(idle.response(false, TIMEOUT).unwrap().unwrap().status, 200);
    assert!(idle.closes_within(TIMEOUT), "an idle keep-alive connection is closed");

    // A connection that never sends anything.
    let mut silent = server.connect();
    assert!(silent.closes_within(TIMEOUT), "a silent connection is closed");
}

#[test]
fn a_slow_body_gets_408_and_the_connection_closes() {
    let server = Server::start(&["--workers", "1", "--body-timeout-ms", "400"]);
    let mut conn = server.connect();
    conn.write(
        b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 26\r\n\r\n{\"name\"",
    )
    .unwrap();
    let response = conn.response(false, TIMEOUT).unwrap().expect("a response");
    assert_eq!(response.status, 408);
    assert_eq!(response.body, br#"{"error":"request timeout"}"#);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert!(conn.closes_within(TIMEOUT));
}

#[test]
fn transport_errors_close_the_connection() {
    let server = Server::start(&["--workers", "1"]);
    let cases: &[(&str, Vec<u8>, u16)] = &[
        ("missing Host", b"GET /users/1 HTTP/1.1\r\n\r\n".to_vec(), 400),
        (
            "head over 16 KiB",
            [&b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: "[..], &[b'a'; 17_000], b"\r\n\r\n"].concat(),
            431,
        ),
        (
            "101 header fields",
            [&b"GET / HTTP/1.1\r\nHost: x\r\n"[..], &b"X-A: 1\r\n".repeat(100), b"\r\n"].concat(),
            431,
        ),
        ("bad request line", b"GARBAGE\r\n\r\n".to_vec(), 400),
    ];
    for (case, bytes, status) in cases {
        let mut conn = server.connect();
        conn.write(bytes).unwrap();
        let response = conn.response(false, TIMEOUT).unwrap().unwrap_or_else(|| panic!("case {case:?}: no response"));
        assert_eq!(response.status, *status, "case {case:?}");
        assert!(conn.closes_within(TIMEOUT), "case {case:?}: the connection stays open");
    }
}

#[test]
fn http_1_0_closes_unless_kept_alive() {
    let server = Server::start(&["--workers", "1"]);
    let mut plain = server.connect();
    plain.write(b"GET /users/500 HTTP/1.0\r\n\r\n").unwrap();
    let response = plain.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-length"), Some("58"), "HTTP/1.0 responses carry a Content-Length");
    assert!(plain.closes_within(TIMEOUT));

    // What `ab -k` does: HTTP/1.0 with keep-alive gets several responses on one connection.
    let mut kept = server.connect();
    for _ in 0..3 {
        kept.write(b"GET /users/500 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").unwrap();
        assert_eq!(kept.response(false, TIMEOUT).unwrap().unwrap().status, 200);
    }
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = Server::start(&["--workers", "2"]);
    let mut conn = server.connect();
    conn.write(
        b"GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n\
          HEAD /users/2 HTTP/1.1\r\nHost: x\r\n\r\n\
          POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 26\r\n\r\n{\"name\":\"P\",\"email\":\"p@q\"}\
          GET /nope HTTP/1.1\r\nHost: x\r\n\r\n\
          GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let mut next = |head| conn.response(head, TIMEOUT).unwrap().expect("a response");
    let first = next(false);
    assert_eq!(
        (first.status, first.body.as_slice()),
        (200, &br#"{"id":1,"name":"User 1","email":"user1@example.com"}"#[..])
    );
    let second = next(true);
    assert_eq!((second.status, second.header("content-length")), (200, Some("52")));
    let third = next(false);
    assert_eq!(third.status, 201);
    assert!(third.body.ends_with(br#","name":"P","email":"p@q"}"#));
    assert_eq!(next(false).status, 404);
    assert_eq!(next(false).body, br#"{"status":"ok"}"#);
    assert!(conn.closes_within(TIMEOUT));
}

#[test]
fn an_oversize_body_is_drained_then_refused() {
    let server = Server::start(&["--workers", "1"]);
    // 200 KB declared and sent: the server reads it all (well under 1 MiB past the limit), answers 413, and closes
    // the connection (the contract's keep-alive rule: the body was not read as a request body).
    let mut conn = server.connect();
    let body = vec![b'x'; 200_000];
    let head = format!(
        "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    conn.write(&[head.as_bytes(), &body].concat()).unwrap();
    let response = conn.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!((response.status, response.body.as_slice()), (413, &br#"{"error":"payload too large"}"#[..]));
    assert_eq!(response.header("connection"), Some("close"));
    assert!(conn.closes_within(TIMEOUT));

    // 8 MiB declared, of which only the head and a little body is sent: the 413 comes once 1 MiB past the limit has
    // been read or the body time runs out, and the connection then closes. Here the client sends 2 MiB.
    let mut big = server.connect();
    big.write(b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n")
        .unwrap();
    let _ = big.write(&vec![b'x'; 2 << 20]);
    let response = big.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!(response.status, 413);
    assert_eq!(response.header("connection"), Some("close"));
}

#[test]
fn sigterm_finishes_in_flight_requests_refuses_new_ones_and_exits_0() {
    let mut server = Server::start(&["--workers", "2", "--shutdown-timeout-ms", "5000"]);
    let addr = server.addr;

    // An in-flight request: its head is in, its body is still coming.
    let mut in_flight = server.connect();
    in_flight
        .write(
            b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"name\"",
        )
        .unwrap();
    // An idle keep-alive connection, which shutdown closes at once.
    let mut idle = server.connect();
    idle.write(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!(idle.response(false, TIMEOUT).unwrap().unwrap().status, 200);
    std::thread::sleep(Duration::from_millis(200));

    server.terminate();
    assert!(idle.closes_within(TIMEOUT), "the idle connection is closed");
    let refused = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        TcpStream::connect_timeout(&addr, TIMEOUT).is_err()
    });
    assert!(refused, "new connections are refused after SIGTERM");

    in_flight.write(b":\"Late\",\"email\":\"l@m\"}").unwrap();
    let response = in_flight.response(false, TIMEOUT).unwrap().expect("the in-flight request is answered");
    assert_eq!(response.status, 201);
    assert!(response.body.ends_with(br#","name":"Late","email":"l@m"}"#));
    assert!(server.wait(TIMEOUT).success(), "exit status 0");
}

#[test]
fn shutdown_closes_what_is_still_busy_after_the_timeout() {
    let mut server = Server::start(&["--workers", "1", "--shutdown-timeout-ms", "300"]);
    let mut stuck = server.connect();
    stuck
        .write(b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 26\r\n\r\n{")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    server.terminate();
    assert!(server.wait(TIMEOUT).success(), "exit status 0");
    assert!(started.elapsed() < Duration::from_secs(3), "the body timeout (10 s) was not waited for");
    assert!(stuck.closes_within(TIMEOUT), "the stuck connection is closed");
}

#[test]
fn sigint_also_shuts_down_cleanly() {
    let mut server = Server::start(&["--workers", "1"]);
    let status = Command::new("kill").args(["-INT", &server.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    assert!(server.wait(TIMEOUT).success());
}

#[test]
fn bad_flags_exit_2_with_one_line() {
    /// A case: its name, the flags, the environment variables.
    type BadInput<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: &[BadInput] = &[
        ("unknown flag", &["--nope"], &[]),
        ("port not a number", &["--port", "abc"], &[]),
        ("port out of range", &["--port", "70000"], &[]),
        ("max users below the seed", &["--max-users", "9999"], &[]),
        ("max users above a Map's limit", &["--max-users", "16777217"], &[]),
        ("zero workers", &["--workers", "0"], &[]),
        ("workers not a number", &["--workers", "many"], &[]),
        ("bad host", &["--host", "999.1.1.1"], &[]),
        ("bad PORT variable", &[], &[("PORT", "x")]),
        ("bad MAX_USERS variable", &[], &[("MAX_USERS", "5")]),
        ("bad WORKERS variable", &[], &[("WORKERS", "-1")]),
    ];
    for (case, args, env) in cases {
        let output = Command::new(BIN).args(*args).envs(env.iter().copied()).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "case {case:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "case {case:?}: {stderr:?}");
        // The prefix every fairpair server writes (Node's and Go's too), once.
        assert!(stderr.starts_with("error: ") && !stderr.starts_with("error: error"), "case {case:?}: {stderr:?}");
        assert!(!stderr.contains("panicked"), "case {case:?}: {stderr:?}");
        assert!(output.stdout.is_empty(), "case {case:?}");
    }
}

#[test]
fn environment_variables_are_read() {
    let mut child = Command::new(BIN)
        .env("HOST", "127.0.0.1")
        .env("PORT", "0")
        .env("WORKERS", "2")
        .env("MAX_USERS", "10000")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let startup = contract::StartupLine::parse(&line).unwrap_or_else(|| panic!("not a start-up line: {line:?}"));
    assert_eq!(startup.addr.ip(), std::net::Ipv4Addr::LOCALHOST, "{line:?}");
    assert_eq!((startup.users, startup.workers), (Some(10000), Some(2)), "{line:?}");
}

/// The contract's hostile-input rules on a real socket: each request, its status, and whether the
/// server closes the connection after answering. A valid POST comes last on each connection that stays open, so a
/// smuggled or half-read request would show up as a wrong answer to it.
#[test]
fn hostile_framing_is_refused_and_closed() {
    let server = Server::start(&["--workers", "1"]);
    let user = r#"{"name":"Smug","email":"s@x"}"#;
    let post = |extra: &str, body: &str| {
        format!("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}\r\n{body}").into_bytes()
    };
    let chunked = format!("1d\r\n{user}\r\n0\r\n\r\n");
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("chunked twice", post("Transfer-Encoding: chunked, chunked\r\n", &chunked), 501),
        ("chunked in two fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", &chunked), 501),
        ("gzip, chunked", post("Transfer-Encoding: gzip, chunked\r\n", &chunked), 501),
        ("Content-Length: 29, 29", post("Content-Length: 29, 29\r\n", user), 400),
        (
            "Content-Length in a trailer",
            post("Transfer-Encoding: chunked\r\n", &format!("1d\r\n{user}\r\n0\r\nContent-Length: 5\r\n\r\n")),
            400,
        ),
        (
            "Host in a trailer",
            post("Transfer-Encoding: chunked\r\n", &format!("1d\r\n{user}\r\n0\r\nHost: y\r\n\r\n")),
            400,
        ),
        ("authority-form target", b"GET 127.0.0.1:80 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400),
        ("Expect: foo", b"GET /health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n".to_vec(), 417),
        (
            "415 with the body never sent",
            b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 29\r\n\r\n".to_vec(),
            415,
        ),
        (
            "404 with a body",
            format!("POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 29\r\n\r\n{user}").into_bytes(),
            404,
        ),
        (
            "a body sent to a GET route",
            format!("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 29\r\n\r\n{user}").into_bytes(),
            200,
        ),
    ];
    let checked = cases.len();
    for (case, bytes, status) in cases {
        let mut conn = server.connect();
        // A valid request pipelined behind: after a refusal it must get nothing.
        conn.write(&[&bytes[..], b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"].concat()).unwrap();
        let response = conn.response(false, TIMEOUT).unwrap().unwrap_or_else(|| panic!("case {case:?}: no response"));
        assert_eq!(response.status, status, "case {case:?}");
        assert_eq!(response.header("connection"), Some("close"), "case {case:?}");
        assert!(conn.closes_within(TIMEOUT), "case {case:?}: the connection stays open");
        assert_eq!(conn.buffered(), 0, "case {case:?}: the request behind it was answered");
        if status == 417 {
            assert_eq!((response.header("content-length"), response.header("content-type")), (Some("0"), None));
        }
        if status == 501 {
            assert_eq!(response.body, br#"{"error":"unsupported transfer encoding"}"#, "case {case:?}");
        }
    }
    assert_eq!(checked, 11);
    // Nothing was stored: the next user gets the first id after the seed.
    let mut conn = server.connect();
    conn.write(&post(&format!("Content-Length: {}\r\n", user.len()), user)).unwrap();
    let created = conn.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!((created.status, created.header("location")), (201, Some("/users/10001")));
}

/// What keeps a connection open: a request whose body was read in full, or that had none, even when refused.
#[test]
fn requests_whose_body_was_read_keep_the_connection() {
    let server = Server::start(&["--workers", "1"]);
    let mut conn = server.connect();
    let requests: &[(&[u8], u16)] = &[
        (b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n{", 400),
        (b"DELETE /users/1 HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        (b"GET /nope HTTP/1.1\r\nHost: x\r\nExpect:\r\n\r\n", 404),
        (b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n", 415),
        (b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n{\"name\":\"K\",\"email\":\"k@x\"}\r\n0\r\nX-Checksum: 1\r\n\r\n", 201),
    ];
    for (bytes, status) in requests {
        conn.write(bytes).unwrap();
        let response = conn.response(false, TIMEOUT).unwrap().expect("a response on the same connection");
        assert_eq!(response.status, *status, "{}", String::from_utf8_lossy(bytes));
        assert_eq!(response.header("connection"), None, "{}", String::from_utf8_lossy(bytes));
    }
}

/// The client sends a complete request and shuts down its sending side at once: it still gets its answer.
#[test]
fn a_half_closed_connection_is_answered() {
    let server = Server::start(&["--workers", "1"]);
    for round in 0..50 {
        let mut conn = server.connect();
        conn.write(b"GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        conn.stream().shutdown(std::net::Shutdown::Write).unwrap();
        let response = conn.response(false, TIMEOUT).unwrap().unwrap_or_else(|| panic!("round {round}: no answer"));
        assert_eq!(response.status, 200, "round {round}");
    }
}

/// SIGHUP, SIGUSR1 and SIGUSR2 are ignored; with `--log`, each leaves one line on stderr.
#[test]
fn hangup_and_user_signals_are_ignored() {
    let (mut child, addr, _) = common::spawn(&["--workers", "1", "--log"], Stdio::piped());
    for name in ["HUP", "USR1", "USR2"] {
        let status = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(100));
        assert!(child.try_wait().unwrap().is_none(), "SIG{name} ended the server");
        let outcome = contract::send(addr, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", TIMEOUT, false);
        assert!(matches!(outcome, Ok(contract::Outcome::Response { .. })), "SIG{name}: {outcome:?}");
    }
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    for name in ["SIGHUP", "SIGUSR1", "SIGUSR2"] {
        assert_eq!(stderr.matches(&format!("ignored {name}")).count(), 1, "{name} in {stderr}");
    }
}

/// The listener asks for a backlog of 1,024, which the kernel caps at `net.core.somaxconn`; `ss` shows it as Send-Q.
#[test]
fn the_listen_backlog_is_1024() {
    let server = Server::start(&["--workers", "1"]);
    let somaxconn: u32 = std::fs::read_to_string("/proc/sys/net/core/somaxconn").unwrap().trim().parse().unwrap();
    let output = Command::new("ss").args(["-lnt", &format!("sport = :{}", server.addr.port())]).output();
    let Ok(output) = output else {
        eprintln!("ss is not installed: the backlog is not checked");
        return;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let listening = text.lines().find(|line| line.starts_with("LISTEN")).unwrap_or_else(|| panic!("{text}"));
    let send_q: u32 = listening.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(send_q, somaxconn.min(1024), "{listening}");
}

/// Two identical `Content-Length` fields: hyper keeps one and drops the other before the application sees the request
/// (hyper 1.x, `proto/h1/role.rs`), so the server cannot count them. The contract tolerates 201 here (Go's net/http
/// merges them too); what matters is that the body is read once, with that length, and nothing is smuggled: the
/// request pipelined behind is answered as itself.
#[test]
fn two_identical_content_lengths_are_read_as_one() {
    let server = Server::start(&["--workers", "1"]);
    let mut conn = server.connect();
    let user = r#"{"name":"Twice","email":"t@x"}"#;
    conn.write(
        format!(
            "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\
             Content-Length: 30\r\n\r\n{user}GET /users/10001 HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let created = conn.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!((created.status, created.header("location")), (201, Some("/users/10001")));
    let read_back = conn.response(false, TIMEOUT).unwrap().unwrap();
    assert_eq!(read_back.body, br#"{"id":10001,"name":"Twice","email":"t@x"}"#);
}
