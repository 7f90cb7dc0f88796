//! What the server prints, pinned: the `--log` line format every fairpair server shares (contract/CONTRACT.md,
//! "Running a server"), silence on SIGTERM without `--log`, flag errors that name the environment variable a bad
//! value came from, and `--help` with each flag's range.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;

use common::BIN;
const TIMEOUT: Duration = Duration::from_secs(5);

/// Starts the server with `args`, sends each raw request on its own connection, sends SIGTERM, and returns what the
/// process printed.
fn run_and_stop(args: &[&str], requests: &[&[u8]]) -> Output {
    let mut all = vec!["--workers", "1"];
    all.extend_from_slice(args);
    let (child, addr, _) = common::spawn(&all, Stdio::piped());
    for request in requests {
        let outcome = contract::send(addr, request, TIMEOUT, false);
        assert!(matches!(outcome, Ok(contract::Outcome::Response { .. })), "{outcome:?}");
    }
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    output
}

/// `(method, target, status)` of a line in the contract's format, `2026-11-30T19:00:00.123Z GET /users/500 200
/// 0.123ms`; `None` for any other line.
fn parse_log_line(line: &str) -> Option<(&str, &str, u16)> {
    let fields: Vec<&str> = line.split(' ').collect();
    let [time, method, target, status, latency] = fields[..] else { return None };
    // The time: exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, digits where digits go.
    let shape = "0000-00-00T00:00:00.000Z";
    let time_ok = time.len() == shape.len()
        && time.bytes().zip(shape.bytes()).all(|(c, s)| if s == b'0' { c.is_ascii_digit() } else { c == s });
    // The latency: milliseconds with exactly three decimals.
    let (whole, decimals) = latency.strip_suffix("ms")?.split_once('.')?;
    let latency_ok = !whole.is_empty()
        && whole.bytes().all(|c| c.is_ascii_digit())
        && decimals.len() == 3
        && decimals.bytes().all(|c| c.is_ascii_digit());
    (time_ok && latency_ok && status.len() == 3).then_some((method, target, status.parse().ok()?))
}

#[test]
fn the_parser_of_log_lines_refuses_other_shapes() {
    assert_eq!(parse_log_line("2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms"), Some(("GET", "/users/500", 200)));
    for wrong in [
        "GET /users/500 HTTP/1.1 200 123µs",
        "2026-11-30T19:00:00Z GET /users/500 200 0.123ms",
        "2026-11-30T19:00:00.123Z GET /users/500 200 0.12ms",
        "2026-11-30 19:00:00.123 GET /users/500 200 0.123ms",
        "2026-11-30T19:00:00.123Z  DEBUG users_api: request method=GET uri=/users/500 status=200",
    ] {
        assert_eq!(parse_log_line(wrong), None, "{wrong}");
    }
}

#[test]
fn log_writes_one_line_per_request_in_the_contract_format() {
    let body = r#"{"name":"Ann","email":"ann@example.com"}"#;
    let post = format!(
        "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // The last is refused by the head checks, which the application makes (hyper passes it on): it is logged too.
    let requests: [&[u8]; 4] = [
        b"GET /users/500 HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /nope?x=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        post.as_bytes(),
        b"GET /health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n",
    ];
    let output = run_and_stop(&["--log"], &requests);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let logged: Vec<(&str, &str, u16)> = stderr.lines().filter_map(parse_log_line).collect();
    let expected =
        [("GET", "/users/500", 200), ("GET", "/nope?x=1", 404), ("POST", "/users", 201), ("GET", "/health", 417)];
    assert_eq!(logged, expected, "{stderr}");
}

#[test]
fn nothing_is_printed_on_sigterm_without_log() {
    let output = run_and_stop(&[], &[b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"]);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "stderr must be empty");
}

#[test]
fn a_bad_value_from_the_environment_names_the_variable() {
    for (variable, value) in [("PORT", "abc"), ("WORKERS", "0"), ("MAX_USERS", "5"), ("HOST", "nonsense.invalid")] {
        let output = Command::new(BIN).env_remove("RUST_LOG").env(variable, value).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{variable}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let flag = format!("--{}", variable.to_lowercase().replace('_', "-"));
        assert!(stderr.contains(variable) && !stderr.contains(&flag), "{variable}={value}: {stderr}");
        assert!(stderr.contains(value), "{variable}={value}: {stderr}");
        // The same value given as the flag is reported as the flag, even with the variable set to something valid.
        let output = Command::new(BIN).env(variable, "").args([&flag, value]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&flag), "{flag} {value}: {stderr}");
    }
}

#[test]
fn help_shows_each_flags_range() {
    let output = Command::new(BIN).arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for range in ["0..65535", "1..1024", "10000..16777216"] {
        assert!(help.contains(range), "{range} in {help}");
    }
}
