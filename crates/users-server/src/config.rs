//! Command-line flags and environment variables, exactly as the contract's table has them (the Node server's
//! config.js and the Go server's config.go do the same job). clap reads the flags, each with its variable and its
//! range; the code here adds what clap has no notion of: one-line errors that name the variable a bad value came
//! from, and resolving `--host` before anything starts. Anything unknown, malformed or out of range is a
//! [`ConfigError`], which main.rs turns into one line on stderr and exit status 2.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use clap::Parser;
use clap::error::ErrorKind;

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

/// The server's configuration, every value checked.
#[derive(Debug, Clone)]
pub struct Config {
    /// `--host` as given, for the start-up line.
    pub host: String,
    /// `--host` and `--port`, resolved.
    pub address: SocketAddr,
    /// Tokio worker threads: `--workers`, or the available cores.
    pub workers: usize,
    /// One line per request on stderr.
    pub log: bool,
    /// What the server itself is told: store capacity and time limits.
    pub options: users_api::Options,
}

/// Why the arguments give no configuration.
#[derive(Debug)]
pub enum ConfigError {
    /// A bad flag or value, in one line: exit status 2.
    Usage(String),
    /// `--help` or `--version` was asked for: not a mistake, but no server either. clap reports them this way too;
    /// main.rs prints the text whole and exits 0.
    Help(clap::Error),
}

/// Reads the arguments (`args[0]` is the program) and the environment; a flag wins over its variable.
pub fn parse_config(args: &[String]) -> Result<Config, ConfigError> {
    let flags = Flags::try_parse_from(args).map_err(|error| match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ConfigError::Help(error),
        kind => ConfigError::Usage(one_line(&error.to_string(), kind, args)),
    })?;
    let address = resolve(&flags.host, flags.port, args)?;
    let workers =
        flags.workers.map_or_else(|| std::thread::available_parallelism().map_or(1, |cores| cores.get()), usize::from);
    Ok(Config {
        host: flags.host,
        address,
        workers,
        log: flags.log,
        options: users_api::Options {
            max_users: flags.max_users,
            header_timeout: Duration::from_millis(flags.header_timeout_ms),
            body_timeout: Duration::from_millis(flags.body_timeout_ms),
            shutdown_timeout: Duration::from_millis(flags.shutdown_timeout_ms),
        },
    })
}

/// clap's messages span several lines (a tip, the usage) and start with `error: `, which main.rs adds itself; the
/// contract wants one line, so keep the first. Mistakes in the command line's shape (an unknown flag, a stray
/// argument) point to `--help`, as in the Node and Go servers; a bad value does not need to.
fn one_line(message: &str, kind: ErrorKind, args: &[String]) -> String {
    let first = message.lines().next().unwrap_or("invalid arguments");
    let first = name_the_variable(first.strip_prefix("error: ").unwrap_or(first), args);
    match kind {
        ErrorKind::UnknownArgument | ErrorKind::NoEquals | ErrorKind::TooManyValues => format!("{first} (try --help)"),
        _ => first,
    }
}

/// Resolves the address before anything starts, so that a bad `--host` is a usage error (exit 2).
fn resolve(host: &str, port: u16, args: &[String]) -> Result<SocketAddr, ConfigError> {
    let source = if on_command_line(args, "--host") { "--host" } else { "HOST" };
    match (host, port).to_socket_addrs().map(|mut all| all.next()) {
        Ok(Some(address)) => Ok(address),
        Ok(None) => Err(ConfigError::Usage(format!("{source}: '{host}' resolves to no address"))),
        Err(error) => Err(ConfigError::Usage(format!("{source}: '{host}' is not an address: {error}"))),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, ConfigError> {
        let args: Vec<String> = std::iter::once("users-server").chain(args.iter().copied()).map(String::from).collect();
        parse_config(&args)
    }

    fn usage(args: &[&str]) -> String {
        match parse(args) {
            Err(ConfigError::Usage(message)) => message,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn flags_become_a_config() {
        let config =
            parse(&["--host", "127.0.0.1", "--port", "0", "--workers", "3", "--max-users", "20000", "--log"]).unwrap();
        assert_eq!(config.address, "127.0.0.1:0".parse().unwrap());
        assert_eq!((config.workers, config.log, config.options.max_users), (3, true, 20_000));
        assert_eq!(config.options.header_timeout, Duration::from_secs(10));
    }

    /// One line each, without clap's `error: ` (main.rs adds it), and `--help` only for a command line's shape.
    #[test]
    fn errors_are_one_line() {
        assert_eq!(usage(&["--nope"]), "unexpected argument '--nope' found (try --help)");
        assert_eq!(usage(&["--port", "70000"]), "invalid value '70000' for '--port <PORT>': 70000 is not in 0..=65535");
        assert!(matches!(parse(&["--help"]), Err(ConfigError::Help(_))));
    }
}
