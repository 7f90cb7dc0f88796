//! The machines a run uses and how they are read.
//!
//! - `host.rs` — where a server runs: this machine, or a server host over OpenSSH (`--server-host`).
//! - `env.rs` — what is recorded of a machine: CPU, kernel, memory, runtimes' versions.
//! - `procstat.rs` — the `/proc` formats, parsed.
//! - `command.rs` — running a program, pinning it, quoting a command line.

pub mod command;
pub mod env;
pub mod host;
pub mod procstat;
