//! # users-server — the Rust server of fairpair
//!
//! Serves the users API of `users-api` (see that crate for the routes and how they work). This file only turns flags
//! and environment variables into a configuration, sets up logging, builds the tokio runtime, binds, prints the
//! start-up line and waits for SIGTERM or SIGINT. SIGHUP, SIGUSR1 and SIGUSR2 are ignored (logged with `--log`), so a
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

use std::io::Write;
use std::net::ToSocketAddrs;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use clap::error::ErrorKind;
use tokio::signal::unix::{SignalKind, signal};
use tracing_subscriber::EnvFilter;
use users_api::Config;

/// The users API of fairpair, in Rust (axum, hyper, tokio).
#[derive(Debug, Parser)]
#[command(name = "users-server", version)]
struct Flags {
    /// Address to bind.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    host: String,

    /// Port to bind, 0..65535 (0: any free port).
    #[arg(long, env = "PORT", default_value_t = 3000)]
    port: u16,

    /// Tokio worker threads, 1..1024 [default: available cores].
    #[arg(long, env = "WORKERS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    workers: Option<u16>,

    /// Store capacity, seed included, 10000..16777216.
    #[arg(long, env = "MAX_USERS", default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(10_000..=16_777_216))]
    max_users: u64,

    /// Log one line per request on stderr: `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms` (RUST_LOG, when
    /// set, takes precedence).
    #[arg(long)]
    log: bool,

    /// Time limit for a request head, in milliseconds (for tests).
    #[arg(long, env = "HEADER_TIMEOUT_MS", default_value_t = 10_000, hide = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,

    /// Time limit for a request body after its head, in milliseconds (for tests).
    #[arg(long, env = "BODY_TIMEOUT_MS", default_value_t = 10_000, hide = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout_ms: u64,

    /// How long shutdown waits for in-flight requests, in milliseconds (for tests).
    #[arg(long, env = "SHUTDOWN_TIMEOUT_MS", default_value_t = 10_000, hide = true)]
    shutdown_timeout_ms: u64,
}

fn main() -> ExitCode {
    let flags = match Flags::try_parse() {
        Ok(flags) => flags,
        Err(error) if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            // `--help` and `--version` are not errors: print them whole.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        // clap's messages span several lines (a tip, the usage); the contract wants one line, so keep the first.
        Err(error) => {
            let first = error.to_string().lines().next().unwrap_or("invalid arguments").to_string();
            return usage_error(&name_the_variable(&first, &std::env::args().collect::<Vec<_>>()));
        }
    };

    let filter = match (std::env::var_os("RUST_LOG"), flags.log) {
        (Some(_), _) => match EnvFilter::try_from_default_env() {
            Ok(filter) => filter,
            Err(error) => return usage_error(&format!("invalid RUST_LOG: {error}")),
        },
        // `--log`: the request lines (`users_api::request_log`) and the server's own events, such as a SIGTERM.
        (None, true) => EnvFilter::new(format!("info,{}=debug", users_api::request_log::TARGET)),
        // Without it, only what went wrong: the contract wants nothing printed on a SIGTERM.
        (None, false) => EnvFilter::new("warn"),
    };
    // Logs go to stderr: stdout carries only the start-up line, which the harness reads.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // No timestamp prefix: a line starting with a time is a request line (`users_api::request_log`), the one
        // format every fairpair server shares; the server's own events (a SIGTERM) read as `INFO …` beside them.
        .without_time()
        .init();

    // Resolve the address before starting anything, so that a bad `--host` is a usage error (exit 2).
    let address = match (flags.host.as_str(), flags.port).to_socket_addrs().map(|mut all| all.next()) {
        Ok(Some(address)) => address,
        Ok(None) => return usage_error(&format!("{}: '{}' resolves to no address", host_source(), flags.host)),
        Err(error) => return usage_error(&format!("{}: '{}' is not an address: {error}", host_source(), flags.host)),
    };

    let workers =
        flags.workers.map_or_else(|| std::thread::available_parallelism().map_or(1, |cores| cores.get()), usize::from);
    let config = Config {
        max_users: flags.max_users,
        header_timeout: Duration::from_millis(flags.header_timeout_ms),
        body_timeout: Duration::from_millis(flags.body_timeout_ms),
        shutdown_timeout: Duration::from_millis(flags.shutdown_timeout_ms),
    };

    // The runtime is built by hand rather than with `#[tokio::main]` so that `--workers` sets the number of worker
    // threads exactly (`--workers 1` is what the harness uses for a one-core comparison with Node), and so that its
    // scheduler serves every connection in turn under saturation: see `users_api::runtime`.
    let runtime = match users_api::runtime(workers) {
        Ok(runtime) => runtime,
        Err(error) => return failure(&format!("cannot start the runtime: {error}")),
    };

    let result = runtime.block_on(async {
        // Install the signal handlers before announcing the server, so a SIGTERM sent right after the start-up line
        // is a graceful shutdown, not the default action (which would kill the process).
        let mut terminate = signal(SignalKind::terminate()).map_err(|e| format!("cannot handle SIGTERM: {e}"))?;
        let mut interrupt = signal(SignalKind::interrupt()).map_err(|e| format!("cannot handle SIGINT: {e}"))?;
        let shutdown = async move {
            tokio::select! {
                _ = terminate.recv() => tracing::info!("SIGTERM received"),
                _ = interrupt.recv() => tracing::info!("SIGINT received"),
            }
        };
        ignore_other_signals(flags.log)?;

        let listener = users_api::bind(address).map_err(|e| format!("cannot bind {address}: {e}"))?;
        let port = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?.port();
        let state = config.state();
        let host = if flags.host.contains(':') { format!("[{}]", flags.host) } else { flags.host.clone() };
        let plural = if workers == 1 { "" } else { "s" };
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(
            stdout,
            "listening on http://{host}:{port} ({} users, {workers} worker{plural})",
            state.store().len()
        );
        let _ = stdout.flush();
        drop(stdout);

        // Serve from a spawned task, not from `block_on` itself: with several workers, the future given to `block_on`
        // runs on this main thread, which would then accept connections next to the workers. (With one worker, the
        // runtime is current-thread and this main thread is the worker either way.)
        tokio::spawn(async move { users_api::serve(listener, state, &config, shutdown).await })
            .await
            .map_err(|e| format!("the server task failed: {e}"))
    });
    // Connections still open at this point have been closed by `serve`; nothing left deserves waiting for.
    runtime.shutdown_timeout(Duration::from_secs(1));

    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => failure(&message),
    }
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

/// Each flag's environment variable, for error messages that name where a bad value came from.
const VARIABLES: [(&str, &str); 7] = [
    ("--host", "HOST"),
    ("--port", "PORT"),
    ("--workers", "WORKERS"),
    ("--max-users", "MAX_USERS"),
    ("--header-timeout-ms", "HEADER_TIMEOUT_MS"),
    ("--body-timeout-ms", "BODY_TIMEOUT_MS"),
    ("--shutdown-timeout-ms", "SHUTDOWN_TIMEOUT_MS"),
];

/// Whether `flag` was given on the command line (as `--flag VALUE` or `--flag=VALUE`); when not, its value came
/// from the environment.
fn on_command_line(args: &[String], flag: &str) -> bool {
    args.iter().skip(1).any(|a| a == flag || a.strip_prefix(flag).is_some_and(|rest| rest.starts_with('=')))
}

/// clap names the flag (`invalid value 'abc' for '--port <PORT>'`) even when the value came from `PORT`; a user who
/// never typed `--port` should be told which variable to fix, as the Node and Go servers do.
fn name_the_variable(message: &str, args: &[String]) -> String {
    for (flag, variable) in VARIABLES {
        let quoted = format!("'{flag} <{variable}>'");
        if message.contains(&quoted) && !on_command_line(args, flag) && std::env::var_os(variable).is_some() {
            return message.replace(&quoted, &format!("{variable} (from the environment)"));
        }
    }
    message.to_string()
}

/// How `--host` was given, for its error message.
fn host_source() -> &'static str {
    let args: Vec<String> = std::env::args().collect();
    if on_command_line(&args, "--host") { "--host" } else { "HOST" }
}

/// A bad flag or value: one line on stderr, status 2.
fn usage_error(message: &str) -> ExitCode {
    let message = message.strip_prefix("error: ").unwrap_or(message);
    eprintln!("users-server: {message} (see --help)");
    ExitCode::from(2)
}

/// A failure at run time (the port is taken, …): one line on stderr, status 1.
fn failure(message: &str) -> ExitCode {
    eprintln!("users-server: {message}");
    ExitCode::FAILURE
}
