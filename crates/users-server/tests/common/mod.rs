//! What the integration tests of users-server share: starting the binary on a free port.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use contract::StartupLine;

pub const BIN: &str = env!("CARGO_BIN_EXE_users-server");

/// Starts the server on 127.0.0.1 and a free port with `args` (and no `RUST_LOG`), waits for its start-up line, and
/// returns the process, its address and the line. stdout is read here; `stderr` says what becomes of stderr.
pub fn spawn(args: &[&str], stderr: Stdio) -> (Child, SocketAddr, String) {
    let mut child = Command::new(BIN)
        .args(["--host", "127.0.0.1", "--port", "0"])
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("users-server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("a start-up line");
    let startup = StartupLine::parse(&line).unwrap_or_else(|| panic!("not a start-up line: {line:?}"));
    (child, startup.addr, line.trim_end().to_owned())
}
