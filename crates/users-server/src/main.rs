//! # users-server — the Rust server of fairpair
//!
//! Serves the users API of `users-api` (see that crate for the routes and how they work). This file reads the configuration
//! (`config.rs`: flags and environment variables), sets up logging, builds the tokio runtime, binds with the listen
//! backlog of 1,024 (`bind`, as the Node and Go servers bind in `server.js` and `server.go`), prints the start-up line
//! and waits for SIGTERM or SIGINT. SIGHUP, SIGUSR1 and SIGUSR2 are ignored (logged with `--log`), so a
//! stray signal from a terminal or a process manager never ends the server.
//!
//! Run with `cargo run --release -p users-server -- --workers 1`, then `curl localhost:3000/users/500`.
//!
//! | flag | env | default | meaning |
//! |---|---|---|---|
//! | `--host` | `HOST` | `127.0.0.1` | address to bind |
//! | `--port` | `PORT` | `3000` | port to bind (`0`: any free port, printed in the start-up line) |
//! | `--workers` | `WORKERS` | available cores | tokio worker threads (see `users_api::runtime`) |
//! | `--max-users` | `MAX_USERS` | 1,000,000 | store capacity, seed included; 10,000 to 16,777,216 |
//! | `--log` | | off | one line per request on stderr (`users_api::request_log`); `RUST_LOG`, when set, wins |
//!
//! For tests only (hidden from `--help`): `--header-timeout-ms` (`HEADER_TIMEOUT_MS`), `--body-timeout-ms`
//! (`BODY_TIMEOUT_MS`) and `--shutdown-timeout-ms` (`SHUTDOWN_TIMEOUT_MS`), each 10,000 by default, lower the
//! contract's time limits so that tests of them finish in seconds.
//!
//! Bad flags or values exit with status 2 and one line on stderr.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use tokio::net::{TcpListener, TcpSocket};
use tokio::signal::unix::{SignalKind, signal};
use tracing_subscriber::EnvFilter;

mod config;

use config::{Config, ConfigError, parse_config};

fn main() -> ExitCode {
    let config = match parse_config(&std::env::args().collect::<Vec<_>>()) {
        Ok(config) => config,
        // `--help` and `--version` are not errors: print them whole.
        Err(ConfigError::Help(text)) => {
            let _ = text.print();
            return ExitCode::SUCCESS;
        }
        Err(ConfigError::Usage(message)) => return usage_error(&message),
    };
    if let Err(message) = init_logging(config.log) {
        return usage_error(&message);
    }

    // The runtime is built by hand rather than with `#[tokio::main]` so that `--workers` sets the number of worker
    // threads exactly (`--workers 1` is what the harness uses for a one-core comparison with Node), and so that its
    // scheduler serves every connection in turn under saturation: see `users_api::runtime`.
    let runtime = match users_api::runtime(config.workers) {
        Ok(runtime) => runtime,
        Err(error) => return failure(&format!("cannot start the runtime: {error}")),
    };
    let result = runtime.block_on(run(config));
    // Connections still open at this point have been closed by `serve`; nothing left deserves waiting for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => failure(&message),
    }
}

/// Logs go to stderr: stdout carries only the start-up line, which the harness reads. `RUST_LOG`, when set, wins
/// over `--log`; a bad `RUST_LOG` is a usage error.
fn init_logging(log: bool) -> Result<(), String> {
    let filter = match (std::env::var_os("RUST_LOG"), log) {
        (Some(_), _) => EnvFilter::try_from_default_env().map_err(|error| format!("invalid RUST_LOG: {error}"))?,
        // `--log`: the request lines (`users_api::request_log`) and the server's own events, such as a SIGTERM.
        (None, true) => EnvFilter::new(format!("info,{}=debug", users_api::request_log::TARGET)),
        // Without it, only what went wrong: the contract wants nothing printed on a SIGTERM.
        (None, false) => EnvFilter::new("warn"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // No timestamp prefix: a line starting with a time is a request line (`users_api::request_log`), the one
        // format every fairpair server shares; the server's own events (a SIGTERM) read as `INFO …` beside them.
        .without_time()
        .init();
    Ok(())
}

/// Binds, prints the start-up line, serves until SIGTERM or SIGINT, and shuts down gracefully.
async fn run(config: Config) -> Result<(), String> {
    // Install the signal handlers before announcing the server, so a SIGTERM sent right after the start-up line is a
    // graceful shutdown, not the default action (which would kill the process).
    let mut terminate = signal(SignalKind::terminate()).map_err(|e| format!("cannot handle SIGTERM: {e}"))?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(|e| format!("cannot handle SIGINT: {e}"))?;
    let shutdown = async move {
        tokio::select! {
            _ = terminate.recv() => tracing::info!("SIGTERM received"),
            _ = interrupt.recv() => tracing::info!("SIGINT received"),
        }
    };
    ignore_other_signals(config.log)?;

    let address = config.address;
    let listener = bind(address).map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let port = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?.port();
    let state = config.options.state();
    print_listening(&config.host, port, state.store().len(), config.workers);

    // Serve from a spawned task, not from `block_on` itself: with several workers, the future given to `block_on` runs
    // on this main thread, which would then accept connections next to the workers. (With one worker, the runtime is
    // current-thread and this main thread is the worker either way.)
    let options = config.options;
    tokio::spawn(async move { users_api::serve(listener, state, &options, shutdown).await })
        .await
        .map_err(|e| format!("the server task failed: {e}"))
}

/// The listen backlog every fairpair server asks for (CONTRACT.md, "Running a server"): how many connections the
/// kernel queues before `accept`. tokio's `TcpListener::bind` asks for 128 (the standard library's value), fewer than
/// a harness that opens 1,000 connections at once needs queued rather than dropped or reset. The kernel caps what is
/// asked at `net.core.somaxconn` (4,096 on recent Linux, 128 on older kernels); `ss -lnt` shows the backlog a listener
/// got as its Send-Q.
const LISTEN_BACKLOG: u32 = 1024;

/// Binds a listener on `address` with [`LISTEN_BACKLOG`], reusing the address (as `TcpListener::bind` does) so a
/// restarted server need not wait for old connections in TIME_WAIT. It lives here, beside the start-up line, as the
/// Node and Go servers bind in their entry files; the library serves whatever listener it is given.
fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    let socket = if address.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// SIGHUP, SIGUSR1 and SIGUSR2 would end the process by default (a closed terminal, a log-rotation script, a
/// mistaken `kill -USR1` meant for a Node server's debugger). The contract says every server ignores them; with
/// `--log` each one leaves a line. Installing a handler is what replaces the default action, so this must run before
/// the start-up line; the task that receives them lives as long as the runtime.
fn ignore_other_signals(log: bool) -> Result<(), String> {
    let mut hangup = signal(SignalKind::hangup()).map_err(|e| format!("cannot handle SIGHUP: {e}"))?;
    let mut user1 = signal(SignalKind::user_defined1()).map_err(|e| format!("cannot handle SIGUSR1: {e}"))?;
    let mut user2 = signal(SignalKind::user_defined2()).map_err(|e| format!("cannot handle SIGUSR2: {e}"))?;
    tokio::spawn(async move {
        loop {
            // `recv` gives `None` only once the runtime is going away; then there is nothing left to ignore.
            let name = tokio::select! {
                Some(()) = hangup.recv() => "SIGHUP",
                Some(()) = user1.recv() => "SIGUSR1",
                Some(()) = user2.recv() => "SIGUSR2",
                else => break,
            };
            // The contract's exact line, the same in every server, so not through tracing's formatter.
            if log {
                eprintln!("ignored {name}");
            }
        }
    });
    Ok(())
}

/// Prints the start-up line, the same shape on every server: `listening on http://HOST:PORT (N users, W workers)`.
fn print_listening(host: &str, port: u16, users: usize, workers: usize) {
    let host = if host.contains(':') { format!("[{host}]") } else { host.to_string() };
    let plural = if workers == 1 { "worker" } else { "workers" };
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "listening on http://{host}:{port} ({users} users, {workers} {plural})");
    let _ = stdout.flush();
}

/// A bad flag or value: one line on stderr, status 2.
fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// A failure at run time (the port is taken, …): one line on stderr, status 1.
fn failure(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}
