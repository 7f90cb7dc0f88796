//! The ceiling answers every request with the 58-byte body of `GET /users/500`, announced like the real servers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use contract::StartupLine;

#[test]
fn answers_with_the_size_of_a_user() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ceiling"))
        .args(["--port", "0", "--workers", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start ceiling");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let startup = StartupLine::parse(&line).unwrap_or_else(|| panic!("not a start-up line: {line:?}"));
    assert_eq!((startup.users, startup.workers), (Some(10000), Some(1)), "start-up line: {line:?}");
    let addr = startup.addr;

    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(b"GET /users/500 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();

    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-length: 58"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    assert_eq!(body, r#"{"id":500,"name":"User 500","email":"user500@example.com"}"#);
}

#[test]
fn bad_flags_exit_2() {
    let cases: &[&[&str]] = &[
        &["--workers", "zero"],
        &["--workers", "0"],
        &["--workers=1025"],
        &["--port", "65536"],
        &["--host"],
        &["--bogus"],
        &["extra"],
    ];
    for args in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_ceiling")).args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr:?}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr:?}");
    }
}

#[test]
fn help_prints_the_usage_and_exits_0() {
    for flag in ["--help", "-h"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ceiling")).arg(flag).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "usage: ceiling [--host HOST] [--port PORT] [--workers N]\n");
    }
}
