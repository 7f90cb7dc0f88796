//! `fairpair verify` against a deliberately wrong server: it must fail, naming each case and what differed.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

/// A server that answers every request with `200 ok` as text: wrong for almost every case of the contract.
fn wrong_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(300)));
                let mut buf = [0u8; 65536];
                // Read what arrives (the head and maybe a body), then answer once and close.
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                );
            });
        }
    });
    port
}

#[test]
fn a_wrong_server_fails_with_readable_mismatches() {
    let port = wrong_server();
    // --verbose prints every case with its mismatches (the default groups them by rule: see below).
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["verify", "--verbose", &format!("http://127.0.0.1:{port}")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The seeded user: right status by luck, wrong type and body.
    let block: String = stdout.split("FAIL  ").find(|b| b.starts_with("get-seeded-user\n")).expect(&stdout).to_string();
    assert!(block.contains(r#"content-type: expected "application/json", got "text/plain""#), "{block}");
    assert!(block.contains(r#"body: expected "{\"id\":500,\"name\":\"User 500\""#), "{block}");
    assert!(block.contains(r#"got "ok""#), "{block}");
    // A 404 case reports the status.
    assert!(stdout.contains("status: expected 404, got 200"), "{stdout}");
    // The tally, with the cases that need server settings (a full store, a short head limit) skipped, not passed.
    let last = stdout.lines().last().unwrap();
    let (passed, rest) = last.split_once(" passed, ").expect(last);
    let failed: usize = rest.split(' ').next().unwrap().parse().unwrap();
    assert!(failed > 100, "{last}");
    assert!(passed.parse::<usize>().unwrap() < 40, "{last}");
    assert!(last.ends_with(&format!("{} skipped", needing_settings())), "{last}");
}

/// The cases that need a server started with settings of their own, which `verify URL` cannot give.
fn needing_settings() -> usize {
    contract::cases().iter().filter(|c| !c.requires.is_empty()).count()
}

#[test]
fn by_default_a_wrong_server_gets_one_line_per_failing_rule() {
    let port = wrong_server();
    let out = Command::new(env!("CARGO_BIN_EXE_fairpair"))
        .args(["verify", &format!("http://127.0.0.1:{port}")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let rules: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL  ")).collect();
    let ids: std::collections::BTreeSet<&str> = contract::cases().iter().map(|c| c.rule_id.as_str()).collect();
    assert!(rules.len() > 10 && rules.len() <= ids.len(), "{} rule lines:\n{stdout}", rules.len());
    assert!(rules.iter().any(|l| l.starts_with("FAIL  get-user: 3 of 3 cases (")), "{stdout}");
    assert!(stdout.lines().next().unwrap().starts_with("contract level full: "), "{stdout}");
    // Before the rules, the likely reason for all of them: this is not the users API.
    assert_eq!(stdout.lines().nth(1), Some(fairpair::verify::NOT_THE_API), "{stdout}");
    assert!(stdout.lines().last().unwrap().ends_with(&format!("{} skipped", needing_settings())), "{stdout}");
}

#[test]
fn bad_urls_exit_2_with_one_line() {
    for url in ["127.0.0.1:3000", "https://127.0.0.1:3000", "http://127.0.0.1:3000/users"] {
        let out = Command::new(env!("CARGO_BIN_EXE_fairpair")).args(["verify", url]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{url}");
    }
}
