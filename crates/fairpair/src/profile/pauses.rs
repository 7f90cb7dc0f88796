//! What each runtime says of its own pauses during the profiled window: the garbage collector's, from its log
//! (Node's `--trace-gc`, Go's `GODEBUG=gctrace=1`, the JVM's `-Xlog:gc`), and Node's event-loop delay (from
//! `loop-delay.mjs`, which the profiled Node server imports).
//!
//! Every log times its lines from its process's start, and a line counts when its time is inside the window, both
//! ends included. A line that does not parse (another message, a line cut short when the process was stopped) is
//! skipped, never an error: the logs are shared with the servers' other output.

use serde::{Deserialize, Serialize};

/// A stretch of a process's life, in seconds since it started: the logs time their lines that way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub from_s: f64,
    pub to_s: f64,
}

impl Window {
    /// Whether a moment, in seconds since the process started, is inside the window.
    pub fn contains(&self, at_s: f64) -> bool {
        self.from_s <= at_s && at_s <= self.to_s
    }
}

/// The garbage collector's pauses in a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pauses {
    /// The stop-the-world pauses: one a collection for Node and the JVM, two for Go (its cycle stops the world to
    /// start marking and to end it).
    pub count: u64,
    pub total_ms: f64,
    pub longest_ms: f64,
}

impl Pauses {
    fn add(&mut self, pause_ms: f64) {
        self.count += 1;
        self.total_ms += pause_ms;
        self.longest_ms = self.longest_ms.max(pause_ms);
    }
}

/// Node's event-loop delay over a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopDelay {
    /// The highest of the window's per-second 99th percentiles: the worst second's, not a percentile of the whole
    /// window (the seconds' histograms are not kept, only their percentiles).
    pub p99_ms: f64,
    /// The longest delay of the window.
    pub max_ms: f64,
}

/// The pauses of a Node `--trace-gc` log inside the window. A line reads, Node 20:
/// `[PID:0xADDR]    1234 ms: Scavenge 4.1 (5.2) -> 3.9 (6.2) MB, 0.52 / 0.00 ms  (average mu = …) allocation failure;`
/// and Node 26 adds `pooled: 0.0 MB, ` before the pause. Mark-Compact lines are alike; cluster workers write the
/// same lines with their own PIDs, each timed from its own start.
pub fn node_trace_gc(log: &str, window: Window) -> Pauses {
    let mut pauses = Pauses::default();
    for (at_s, pause_ms) in log.lines().filter_map(node_gc_line) {
        if window.contains(at_s) {
            pauses.add(pause_ms);
        }
    }
    pauses
}

/// A `--trace-gc` line's time (s) and pause (ms): the number before the first ` / ` after the sizes (`->`); the one
/// after it is the time spent outside the main thread.
fn node_gc_line(line: &str) -> Option<(f64, f64)> {
    let rest = line.trim_start().strip_prefix('[')?;
    let (_, rest) = rest.split_once("] ")?;
    let (at_ms, rest) = rest.trim_start().split_once(" ms: ")?;
    let at_ms: f64 = at_ms.trim().parse().ok()?;
    let (_, sizes_on) = rest.split_once("->")?;
    let (before_slash, _) = sizes_on.split_once(" / ")?;
    let pause_ms: f64 = before_slash.rsplit(' ').next()?.parse().ok()?;
    Some((at_ms / 1000.0, pause_ms))
}

/// The pauses of a Go `GODEBUG=gctrace=1` log inside the window. A line reads
/// `gc 1 @0.012s 2%: 0.010+0.25+0.003 ms clock, …`: the cycle's start in seconds since the program started, then its
/// wall-clock phases, of which the first (sweep termination) and the third (mark termination) stop the world.
pub fn go_gctrace(log: &str, window: Window) -> Pauses {
    let mut pauses = Pauses::default();
    for (at_s, stops) in log.lines().filter_map(go_gc_line) {
        if window.contains(at_s) {
            stops.into_iter().for_each(|ms| pauses.add(ms));
        }
    }
    pauses
}

fn go_gc_line(line: &str) -> Option<(f64, [f64; 2])> {
    let mut words = line.strip_prefix("gc ")?.split_whitespace();
    words.next()?.parse::<u64>().ok()?;
    let at_s: f64 = words.next()?.strip_prefix('@')?.strip_suffix('s')?.parse().ok()?;
    words.next()?.strip_suffix("%:")?;
    let clock = words.next()?;
    (words.next()? == "ms" && words.next()? == "clock,").then_some(())?;
    let phases: Vec<f64> = clock.split('+').map(str::parse).collect::<Result<_, _>>().ok()?;
    let [sweep_termination, _concurrent_mark, mark_termination] = phases[..] else { return None };
    Some((at_s, [sweep_termination, mark_termination]))
}

/// The pauses of a JVM `-Xlog:gc` log inside the window. A pause's line reads
/// `[2.338s][info][gc] GC(0) Pause Young (Allocation Failure) 100M->6M(365M) 18.680ms` (Serial GC; G1's
/// `Pause Young (Normal) (G1 Evacuation Pause) …`, `Pause Remark`, `Pause Cleanup` alike), timed by the `uptime`
/// decorator, the first `[…s]`. G1's `Concurrent …` lines are not pauses and are skipped.
pub fn jvm_gc_log(log: &str, window: Window) -> Pauses {
    let mut pauses = Pauses::default();
    for (at_s, pause_ms) in log.lines().filter_map(jvm_gc_line) {
        if window.contains(at_s) {
            pauses.add(pause_ms);
        }
    }
    pauses
}

fn jvm_gc_line(line: &str) -> Option<(f64, f64)> {
    // The decorators, `[…]` each, come first; the uptime is the one that reads `NUMBERs` (not `…ms`, not `…ns`).
    let mut at_s = None;
    let mut rest = line;
    while let Some(inner) = rest.strip_prefix('[') {
        let (decorator, after) = inner.split_once(']')?;
        if at_s.is_none() && !decorator.ends_with("ms") && !decorator.ends_with("ns") {
            at_s = decorator.strip_suffix('s').and_then(|n| n.parse::<f64>().ok());
        }
        rest = after;
    }
    let message = rest.trim_start();
    let (_, message) = message.strip_prefix("GC(")?.split_once(") ")?;
    if !message.starts_with("Pause ") {
        return None;
    }
    let pause_ms: f64 = message.rsplit(' ').next()?.strip_suffix("ms")?.parse().ok()?;
    Some((at_s?, pause_ms))
}

/// The event-loop delay that `loop-delay.mjs` wrote, over the window: lines `SECONDS P50_MS P99_MS MAX_MS`, one a
/// second of the process's life. `None` when no line is inside the window (the file is empty, or the window ended
/// before the first second was written).
pub fn node_loop_delay(log: &str, window: Window) -> Option<LoopDelay> {
    let mut delay: Option<LoopDelay> = None;
    for line in log.lines() {
        let numbers: Result<Vec<f64>, _> = line.split_whitespace().map(str::parse::<f64>).collect();
        let Ok(numbers) = numbers else { continue };
        let [at_s, _p50_ms, p99_ms, max_ms] = numbers[..] else { continue };
        if window.contains(at_s) {
            let d = delay.get_or_insert_with(LoopDelay::default);
            d.p99_ms = d.p99_ms.max(p99_ms);
            d.max_ms = d.max_ms.max(max_ms);
        }
    }
    delay
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_log_reads_its_pause_lines() {
        let node = "[7:0x1]       70 ms: Scavenge 5.9 (6.9) -> 5.4 (7.6) MB, pooled: 0.0 MB, 2.43 / 0.00 ms (x) y;";
        assert_eq!(node_gc_line(node), Some((0.07, 2.43)));
        let node20 = "[7:0x1]    1234 ms: Mark-Compact 4.1 (5.2) -> 3.9 (6.2) MB, 0.52 / 0.00 ms  (average mu = 1)";
        assert_eq!(node_gc_line(node20), Some((1.234, 0.52)));
        let go = "gc 1 @0.012s 2%: 0.010+0.25+0.003 ms clock, 0.010+0.10/0.20/0.0+0.003 ms cpu, 4->4->0 MB, 2 P";
        assert_eq!(go_gc_line(go), Some((0.012, [0.010, 0.003])));
        let jvm = "[2.338s][info][gc] GC(0) Pause Young (Allocation Failure) 100M->6M(365M) 18.680ms";
        assert_eq!(jvm_gc_line(jvm), Some((2.338, 18.68)));
        assert_eq!(jvm_gc_line("[2.3s][info][gc] GC(3) Concurrent Mark Cycle 12.345ms"), None);
    }
}
