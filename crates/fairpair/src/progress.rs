//! Progress: what `fairpair run` shows on stderr while it runs. `execute` tells it what is happening ([`Progress::status`],
//! [`Progress::println`]) and when a run is over ([`Progress::ran`]); it shows a bar on a terminal and plain lines
//! otherwise.
//!
//! The bar measures the plan's own time estimate: its length is [`Estimate::total`], and each finished run advances it
//! by that run's share of the estimate ([`Estimate::per_run`]). Both come from `plan/`, so the bar and the printed
//! estimate cannot drift apart.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::plan::{Estimate, PerRun};

/// The bar counts tenths of a second, so that short phases still move it.
const TICKS_PER_S: f64 = 10.0;

/// A phase of the runs, for [`Progress::ran`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Load,
    OpenLoop,
    Memory,
    /// One step of the capacity search.
    Capacity,
}

/// The progress bar, or plain lines when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
    /// Whether stderr is a terminal. indicatif draws nothing otherwise, so a run logged to a file or a CI job would
    /// show no progress at all; then each step is printed as a line instead.
    tty: bool,
    /// Seconds of one run of each phase, from the estimate.
    per_run: PerRun,
}

fn ticks(seconds: f64) -> u64 {
    (seconds * TICKS_PER_S) as u64
}

impl Progress {
    /// A bar as long as the whole estimate.
    pub fn new(estimate: &Estimate) -> Progress {
        let bar = ProgressBar::new(ticks(estimate.total()));
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} ETA {eta} {msg}")
                .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress { bar, tty: std::io::IsTerminal::is_terminal(&std::io::stderr()), per_run: estimate.per_run }
    }

    /// Preflight is over: its share of the estimate is done.
    pub fn preflight_done(&self, estimate: &Estimate) {
        self.bar.inc(ticks(estimate.preflight));
    }

    /// The plan changed after preflight (subjects left out): what is left of the bar is the new plan's estimate of the
    /// runs, and their weights are the new plan's.
    pub fn replan(&mut self, left: &Estimate) {
        self.bar.set_length(self.bar.position() + ticks(left.total() - left.preflight));
        self.per_run = left.per_run;
    }

    /// `runs` runs of `phase` are over (done, failed or skipped).
    pub fn ran(&self, phase: Phase, runs: usize) {
        self.bar.inc(self.ticks_of(phase, runs));
    }

    /// `runs` reruns of `phase` are over, runs the plan did not count (a busy machine, a full store): the estimate
    /// grows by them, and they are done.
    pub fn reran(&self, phase: Phase, runs: usize) {
        let more = self.ticks_of(phase, runs);
        self.bar.set_length(self.bar.length().unwrap_or(0) + more);
        self.bar.inc(more);
    }

    fn ticks_of(&self, phase: Phase, runs: usize) -> u64 {
        let each = match phase {
            Phase::Load => self.per_run.load,
            Phase::OpenLoop => self.per_run.open_loop,
            Phase::Memory => self.per_run.memory,
            Phase::Capacity => self.per_run.capacity_step,
        };
        ticks(each * runs as f64)
    }

    /// Shows what the run is doing now: on the progress bar, or as a line with the elapsed time and the estimate of
    /// what is left when stderr is not a terminal.
    pub fn status(&self, message: String) {
        if !self.tty {
            let elapsed = self.bar.elapsed().as_secs();
            // The bar counts tenths of a second of the plan's estimate: what is left of it is the plan's own
            // estimate of the time left, steadier than a rate extrapolated from the first few steps.
            let left = (self.bar.length().unwrap_or(0).saturating_sub(self.bar.position()) as f64 / TICKS_PER_S) as u64;
            eprintln!(
                "fairpair: [{:02}:{:02}] {message} (about {} min {:02} s left)",
                elapsed / 60,
                elapsed % 60,
                left / 60,
                left % 60
            );
        }
        self.bar.set_message(message);
    }

    /// A line that must be seen: above the bar on a terminal, plainly otherwise (indicatif hides a bar that has no
    /// terminal, and its `println` with it).
    pub fn println(&self, message: String) {
        if self.tty {
            self.bar.println(format!("fairpair: {message}"));
        } else {
            eprintln!("fairpair: {message}");
        }
    }

    /// The runs are over: the bar goes.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
