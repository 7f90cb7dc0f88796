//! What each runtime says of its own pauses during the profiled window: the garbage collector's, from its log
//! (Node's `--trace-gc`, Go's `GODEBUG=gctrace=1`, the JVM's `-Xlog:gc`), and Node's event-loop delay (from
//! `loop-delay.mjs`, which the profiled Node server imports).

use serde::{Deserialize, Serialize};

/// A stretch of a process's life, in seconds since it started: the logs time their lines that way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub from_s: f64,
    pub to_s: f64,
}

/// The garbage collector's pauses in a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pauses {
    pub count: u64,
    pub total_ms: f64,
    pub longest_ms: f64,
}

/// Node's event-loop delay over a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopDelay {
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// The pauses of a Node `--trace-gc` log inside the window.
pub fn node_trace_gc(_log: &str, _window: Window) -> Pauses {
    Pauses::default()
}

/// The pauses of a Go `GODEBUG=gctrace=1` log inside the window.
pub fn go_gctrace(_log: &str, _window: Window) -> Pauses {
    Pauses::default()
}

/// The pauses of a JVM `-Xlog:gc` log inside the window.
pub fn jvm_gc_log(_log: &str, _window: Window) -> Pauses {
    Pauses::default()
}

/// The event-loop delay that `loop-delay.mjs` wrote, over the window.
pub fn node_loop_delay(_log: &str, _window: Window) -> Option<LoopDelay> {
    None
}
