//! What is measured: the built-in servers and the processes that serve them.
//!
//! - `builtins.rs` — the built-in servers, one row each: where its program is, how it is started.
//! - `process.rs` — a server process: start, wait for the first 200, pin, stop the whole process group.
//! - `node.rs`, `java.rs` — which Node and which JDK run the Node and Java servers.
//! - `runtimes.rs` — the runtimes' releases, and whether each is current.

pub mod builtins;
pub mod java;
pub mod node;
pub mod process;
pub mod runtimes;
