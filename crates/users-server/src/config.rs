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
    #[arg(long, env = "PORT", default_value_t = 3000, allow_hyphen_values = true, value_parser = number(0, 65_535))]
    port: u64,

    /// Tokio worker threads, 1..1024 [default: available cores].
    #[arg(long, env = "WORKERS", allow_hyphen_values = true, value_parser = number(1, 1024))]
    workers: Option<u64>,

    /// Store capacity, seed included, 10000..16777216.
    #[arg(long, env = "MAX_USERS", default_value_t = 1_000_000, allow_hyphen_values = true,
          value_parser = number(10_000, 16_777_216))]
    max_users: u64,

    /// Log one line per request on stderr: `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms` (RUST_LOG, when
    /// set, takes precedence).
    #[arg(long)]
    log: bool,

    /// Time limit for a request head, in milliseconds (for tests).
    #[arg(long, env = "HEADER_TIMEOUT_MS", default_value_t = 10_000, hide = true, allow_hyphen_values = true,
          value_parser = number(1, u64::MAX))]
    header_timeout_ms: u64,

    /// Time limit for a request body after its head, in milliseconds (for tests).
    #[arg(long, env = "BODY_TIMEOUT_MS", default_value_t = 10_000, hide = true, allow_hyphen_values = true,
          value_parser = number(1, u64::MAX))]
    body_timeout_ms: u64,

    /// How long shutdown waits for in-flight requests, in milliseconds (for tests).
    #[arg(long, env = "SHUTDOWN_TIMEOUT_MS", default_value_t = 10_000, hide = true, allow_hyphen_values = true,
          value_parser = number(0, u64::MAX))]
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
        ErrorKind::ValueValidation => ConfigError::Usage(bad_value(&error, args)),
        kind => ConfigError::Usage(one_line(&error.to_string(), kind, args)),
    })?;
    // `number` has checked the ranges, so these conversions cannot fail.
    let port = u16::try_from(flags.port).expect("--port is in 0..65535");
    let address = resolve(&flags.host, port, args)?;
    let workers = flags.workers.map_or_else(
        || std::thread::available_parallelism().map_or(1, |cores| cores.get()),
        |n| usize::try_from(n).expect("--workers is in 1..1024"),
    );
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

/// The parser of a number flag, with the Node and Go servers' words for a value that is no number (`'abc' is not a
/// number`, `-1` included: clap would take it for a flag unless told `allow_hyphen_values`) or out of range (`70000
/// is out of range (0..65535)`). clap's own integer parser says `invalid digit found in string`.
fn number(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        match text.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            Ok(_) => Err(format!("{text} is out of range ({min}..{max})")),
            Err(_) if digits => Err(format!("{text} is out of range ({min}..{max})")),
            Err(_) => Err(format!("'{text}' is not a number")),
        }
    }
}

/// A bad value as the Node and Go servers word it: where it came from (the flag, or its variable when the flag was
/// not given), then why (`--port: 'abc' is not a number`, `PORT: 70000 is out of range (0..65535)`).
fn bad_value(error: &clap::Error, args: &[String]) -> String {
    use clap::error::{ContextKind, ContextValue};
    let arg = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split(' ').next().unwrap_or_default().to_owned(),
        _ => String::new(),
    };
    let why = std::error::Error::source(error).map_or_else(|| error.to_string(), ToString::to_string);
    let variable = VARIABLES.iter().find(|(flag, _)| *flag == arg).map(|(_, variable)| *variable);
    match variable {
        Some(variable) if !on_command_line(args, &arg) => format!("{variable}: {why}"),
        _ => format!("{arg}: {why}"),
    }
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
        assert!(matches!(parse(&["--help"]), Err(ConfigError::Help(_))));
    }

    /// A bad value in the Node and Go servers' words, the same in every twin.
    #[test]
    fn bad_values_are_worded_as_in_every_twin() {
        assert_eq!(usage(&["--port", "70000"]), "--port: 70000 is out of range (0..65535)");
        assert_eq!(usage(&["--port", "abc"]), "--port: 'abc' is not a number");
        assert_eq!(usage(&["--port", "-1"]), "--port: '-1' is not a number");
        assert_eq!(usage(&["--port", ""]), "--port: '' is not a number");
        assert_eq!(usage(&["--workers", "0"]), "--workers: 0 is out of range (1..1024)");
        assert_eq!(
            usage(&["--max-users", "99999999999999999999999"]),
            "--max-users: 99999999999999999999999 is out of range (10000..16777216)"
        );
        assert!(matches!(parse(&["--help"]), Err(ConfigError::Help(_))));
    }
}
