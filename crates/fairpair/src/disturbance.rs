//! Disturbance figures of one window: how long tasks waited for a CPU on the whole machine (the kernel's pressure
//! stall information, `/proc/pressure/cpu`), and how long the subject's and the loader's own threads waited on a run
//! queue (`/proc/PID/task/*/schedstat`, its second field, in nanoseconds).
//!
//! A 20 ms stall of another process every few seconds is a fraction of a percent of the machine, which the busy check
//! (other processes above 10 % of it) cannot see, and the whole of a 4-second window's p99. The machine's stall time
//! well beyond what the subject's and the loader's own threads waited says that something else held a CPU they
//! wanted: the capacity search then reruns the window once ([`crate::capacity::verdict::judge`]).
//!
//! The loader's process has exited when its window ends, and its counters with it, so a thread reads them every
//! [`SAMPLE_EVERY`] while it runs, and the last reading is its figure (short of the window's last tenth of a second).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::schema::Disturbance;

/// How often the loader's run delay is read while it runs.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// A window is disturbed when the machine's stall exceeds its subject's and loader's own run delay by more than this
/// many milliseconds and by more than that delay again: a stall of another's, not contention the two caused.
pub const DISTURBED_EXCESS_MS: f64 = 10.0;

/// `some … total=N` of `/proc/pressure/cpu`: microseconds in which at least one task waited for a CPU.
pub fn parse_cpu_stall_us(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace().find_map(|w| w.strip_prefix("total="))?.parse().ok()
}

/// The machine's CPU stall so far (`None` without pressure stall information: an old kernel, or it is disabled).
pub fn cpu_stall_us() -> Option<u64> {
    parse_cpu_stall_us(&std::fs::read_to_string("/proc/pressure/cpu").ok()?)
}

/// The second field of a `schedstat` line: nanoseconds spent waiting on a run queue.
pub fn parse_run_delay_ns(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The run delay of every thread of the processes `pids`, summed (threads that have exited are not counted).
pub fn run_delay_ns(pids: &[i32]) -> u64 {
    let mut total = 0;
    for pid in pids {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let path = task.path().join("schedstat");
            total += read_delay(&path).unwrap_or(0);
        }
    }
    total
}

fn read_delay(path: &Path) -> Option<u64> {
    parse_run_delay_ns(&std::fs::read_to_string(path).ok()?)
}

/// Reads a running process's run delay every [`SAMPLE_EVERY`] until stopped, keeping the last reading.
pub struct Sampler {
    last: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Sampler {
    pub fn start(pid: i32) -> Sampler {
        let (last, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let (l, s) = (last.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let now = run_delay_ns(&[pid]);
                // The process gone, its threads read nothing: the last reading before that stays.
                if now > 0 {
                    l.store(now, Ordering::Relaxed);
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
        });
        Sampler { last, stop, thread: Mutex::new(Some(thread)) }
    }

    /// Stops the sampling and gives the last reading, in nanoseconds.
    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.lock().ok().and_then(|mut t| t.take()) {
            let _ = t.join();
        }
        self.last.load(Ordering::Relaxed)
    }
}

impl Disturbance {
    /// Whether the machine stalled well beyond what the subject and the loader waited themselves.
    pub fn disturbed(&self) -> bool {
        let own = self.subject_run_delay_ms + self.loader_run_delay_ms;
        let excess = self.cpu_stall_ms - own;
        excess > DISTURBED_EXCESS_MS && excess > own
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counters_are_read_from_their_kernel_formats() {
        let psi = "some avg10=39.45 avg60=70.37 avg300=64.36 total=627597484\n\
                   full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(parse_cpu_stall_us(psi), Some(627_597_484));
        assert_eq!(parse_cpu_stall_us("full total=3\n"), None);
        assert_eq!(parse_run_delay_ns("168671 10864141 2\n"), Some(10_864_141));
        assert_eq!(parse_run_delay_ns("168671\n"), None);
        // This process has at least one thread, with a run delay the kernel counts (0 is possible, never absent).
        let own = run_delay_ns(&[std::process::id() as i32]);
        assert!(own < u64::MAX);
    }

    /// The cost of the sampling, printed (`cargo test -p fairpair --lib sampling_cost -- --ignored --nocapture`):
    /// what docs/harness.md states. Ignored by default, as a timing is no assertion.
    #[test]
    #[ignore]
    fn sampling_cost() {
        let time = |what: &str, n: u32, f: &dyn Fn()| {
            let start = std::time::Instant::now();
            for _ in 0..n {
                f();
            }
            eprintln!("{what}: {:.1} µs each", start.elapsed().as_secs_f64() * 1e6 / f64::from(n));
        };
        let me = [std::process::id() as i32];
        time("/proc/pressure/cpu", 1000, &|| {
            std::hint::black_box(cpu_stall_us());
        });
        time("schedstat of this process's threads", 1000, &|| {
            std::hint::black_box(run_delay_ns(&me));
        });
        time("the process list (/proc/*/stat) for the server's tree", 50, &|| {
            drop(crate::host::Host::Local.processes());
        });
    }

    #[test]
    fn a_stall_well_beyond_the_twos_own_delay_is_a_disturbance() {
        let d = |stall, subject, loader| Disturbance {
            cpu_stall_ms: stall,
            subject_run_delay_ms: subject,
            loader_run_delay_ms: loader,
            rerun: false,
        };
        assert!(d(25.0, 1.0, 1.0).disturbed(), "another process's 20 ms stall");
        assert!(!d(25.0, 12.0, 8.0).disturbed(), "the two's own contention");
        assert!(!d(8.0, 0.0, 0.0).disturbed(), "under the threshold");
        assert!(!d(60.0, 20.0, 15.0).disturbed(), "beyond it, but not beyond their own again");
    }
}
