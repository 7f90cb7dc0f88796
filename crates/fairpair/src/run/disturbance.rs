//! Disturbance figures of one window: the CPU time of every other process on the machine, in slices of
//! [`SAMPLE_EVERY`] and over the window (`/proc/PID/task/TID/schedstat`, its first field, in nanoseconds), which
//! decides whether the window counts; and, shown beside it, how long tasks waited for a CPU on the whole machine (the
//! kernel's pressure stall information, `/proc/pressure/cpu`) and how long the subject's and the loader's own threads
//! waited on a run queue (the second field of the same `schedstat` files).
//!
//! A 20 ms stall of another process every few seconds is a fraction of a percent of the machine, which the busy check
//! (other processes above 10 % of it) cannot see, and the whole of a 4-second window's p99. With two CPUs there is no
//! free core: any other process that runs takes a CPU from the subject or the loader. So the rule counts the others'
//! CPU time itself, slice by slice: a window in which they used [`DISTURBED_SLICE_MS`] or more within one slice, or
//! [`DISTURBED_TOTAL_MS`] over the window, is disturbed, and the capacity search runs it again once
//! ([`crate::capacity::verdict::judge`]). "Others" are every process but the subject's (its whole tree), the loader
//! and the harness itself, and but the kernel's `ksoftirqd` threads, which carry the load's own network work.
//!
//! The pressure stall was the rule before, as the machine's stall beyond the subject's and the loader's own run delay:
//! it flagged one clean window in four of rust and the ceiling (a stall of 55-66 ms against 20 ms of their own, every
//! window), and it cannot see a stall on the subject's own CPU at all, since the subject's wait behind another process
//! is its own run delay. Both are still recorded, for a reader who wants to see the machine's contention.
//!
//! The loader's process has exited when its window ends, and its counters with it, so a thread reads them every
//! [`SAMPLE_EVERY`] while it runs, and the last reading is its figure (short of the window's last tenth of a second).
//! A process that starts and exits between two readings is not seen: a limit of reading `/proc`, which the
//! documentation states.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::schema::Disturbance;

/// How often the loader's run delay and the other processes' CPU time are read while the loader runs.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// A window is disturbed when other processes used this much CPU within one slice of [`SAMPLE_EVERY`]: more than the
/// 5 ms that the quiet 2-vCPU machine's busiest slice reached in a loaded window (kernel threads and the machine's
/// own daemons), and half the 20 ms burst that the disturbance fixture (`scripts/burn-cpu`) stands for, so that a
/// burst split across two slices is still seen.
pub const DISTURBED_SLICE_MS: f64 = 10.0;
/// ... or this much over the window: twice the 25 ms the quiet machine's others used in a 4-second window.
pub const DISTURBED_TOTAL_MS: f64 = 50.0;

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

/// The first field of a `schedstat` line: nanoseconds spent running on a CPU.
pub fn parse_run_time_ns(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
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

/// The CPU time of every thread of the machine's other processes: what each has run so far, by (process, thread).
/// `ours` are the processes not counted (the subject's tree, the loader, the harness); a `ksoftirqd` thread is not
/// counted either (see the module header).
#[derive(Default)]
pub struct Others {
    ours: HashSet<i32>,
    /// Run time so far of each thread seen, and whether it is a `ksoftirqd` thread (read once per thread).
    seen: HashMap<(i32, i32), (u64, bool)>,
}

impl Others {
    /// Reads every other thread's run time, to count from.
    pub fn start(ours: &[i32]) -> Others {
        let mut o = Others { ours: ours.iter().copied().collect(), seen: HashMap::new() };
        o.advance();
        o
    }

    /// Reads every other thread's run time again and gives what they ran since the last reading, in nanoseconds. A
    /// thread first seen now started since, and all its run time counts.
    pub fn advance(&mut self) -> u64 {
        let first = self.seen.is_empty();
        let mut ran = 0;
        let Ok(procs) = std::fs::read_dir("/proc") else { return 0 };
        for entry in procs.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
            if self.ours.contains(&pid) {
                continue;
            }
            let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else { continue };
            for task in tasks.flatten() {
                let Some(tid) = task.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
                let Some(now) =
                    std::fs::read_to_string(task.path().join("schedstat")).ok().as_deref().and_then(parse_run_time_ns)
                else {
                    continue;
                };
                let (before, softirq) = *self.seen.entry((pid, tid)).or_insert_with(|| {
                    let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
                    (if first { now } else { 0 }, comm.starts_with("ksoftirqd"))
                });
                if !softirq {
                    ran += now.saturating_sub(before);
                }
                self.seen.insert((pid, tid), (now, softirq));
            }
        }
        ran
    }
}

/// What the sampling thread read: the loader's last run delay, and the others' CPU time in slices.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sampled {
    /// The loader's run delay at its last reading, nanoseconds.
    pub loader_run_delay_ns: u64,
    /// The others' CPU time over the window and in its busiest slice, nanoseconds.
    pub others_ns: u64,
    pub others_max_slice_ns: u64,
}

/// Reads a running loader's run delay and the other processes' CPU time every [`SAMPLE_EVERY`] until stopped.
pub struct Sampler {
    state: Arc<Mutex<Sampled>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Sampler {
    /// Starts reading the loader `pid`; `ours` are the subject's processes (the loader and the harness are added).
    pub fn start(pid: i32, ours: &[i32]) -> Sampler {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (state, stop) = (Arc::new(Mutex::new(Sampled::default())), Arc::new(AtomicBool::new(false)));
        let (st, s) = (state.clone(), stop.clone());
        let mut ours = ours.to_vec();
        ours.extend([pid, std::process::id() as i32]);
        let thread = std::thread::spawn(move || {
            let mut others = Others::start(&ours);
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(SAMPLE_EVERY);
                let now = run_delay_ns(&[pid]);
                let ran = others.advance();
                let Ok(mut state) = st.lock() else { return };
                // The process gone, its threads read nothing: the last reading before that stays.
                if now > 0 {
                    state.loader_run_delay_ns = now;
                }
                state.others_ns += ran;
                state.others_max_slice_ns = state.others_max_slice_ns.max(ran);
            }
        });
        Sampler { state, stop, thread: Mutex::new(Some(thread)) }
    }

    /// Stops the sampling and gives what it read.
    pub fn finish(self) -> Sampled {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.lock().ok().and_then(|mut t| t.take()) {
            let _ = t.join();
        }
        self.state.lock().map(|s| *s).unwrap_or_default()
    }
}

impl Disturbance {
    /// Whether other processes used enough CPU within one slice, or over the window, to have delayed the subject or
    /// the loader (see the module header). A file written before the others' CPU was read has none: not disturbed.
    pub fn disturbed(&self) -> bool {
        self.others_max_slice_ms.is_some_and(|m| m >= DISTURBED_SLICE_MS)
            || self.others_cpu_ms.is_some_and(|t| t >= DISTURBED_TOTAL_MS)
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
            drop(crate::machine::host::Host::Local.processes());
        });
        let others = std::cell::RefCell::new(Others::start(&me));
        time("every other thread's schedstat (one slice of the disturbance rule)", 200, &|| {
            std::hint::black_box(others.borrow_mut().advance());
        });
    }

    #[test]
    fn other_processes_cpu_in_one_slice_or_over_the_window_is_a_disturbance() {
        let d = |total, slice| Disturbance {
            cpu_stall_ms: 60.0,
            subject_run_delay_ms: 20.0,
            loader_run_delay_ms: 15.0,
            others_cpu_ms: Some(total),
            others_max_slice_ms: Some(slice),
            rerun: false,
        };
        assert!(d(25.0, 20.0).disturbed(), "a 20 ms burst of another process");
        assert!(d(55.0, 3.0).disturbed(), "others busy all through the window");
        assert!(!d(25.0, 5.0).disturbed(), "the quiet machine's daemons and kernel threads");
        // A file written before the others' CPU was read: its stall beyond the two's own wait decides nothing now.
        let old = Disturbance { others_cpu_ms: None, others_max_slice_ms: None, ..d(0.0, 0.0) };
        assert!(!Disturbance { cpu_stall_ms: 500.0, ..old }.disturbed());
    }

    #[test]
    fn another_processs_cpu_time_is_counted_and_ours_is_not() {
        // A child that burns CPU for a while and then sleeps, so that it is still there to be read.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5"])
            .spawn()
            .expect("sh");
        let pid = child.id() as i32;
        let mut others = Others::start(&[]);
        let mut mine = Others::start(&[pid]);
        let ran = |pid: i32| {
            let path = format!("/proc/{pid}/task/{pid}/schedstat");
            std::fs::read_to_string(path).ok().as_deref().and_then(parse_run_time_ns).unwrap_or(0)
        };
        let start = std::time::Instant::now();
        let mut last = ran(pid);
        // Until the loop is over: its run time stops growing.
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let now = ran(pid);
            if now == last || start.elapsed() > Duration::from_secs(20) {
                break;
            }
            last = now;
        }
        let (seen, not_seen) = (others.advance(), mine.advance());
        let _ = child.kill();
        let _ = child.wait();
        // The child's whole loop ran between the two readings of `others`; `mine` counts it as ours.
        assert!(last > 10_000_000, "the loop ran {last} ns");
        assert!(seen >= last * 9 / 10, "others saw {seen} ns of the child's {last}");
        assert!(not_seen + last * 9 / 10 <= seen, "{not_seen} ns with the child as ours, {seen} without");
    }
}
