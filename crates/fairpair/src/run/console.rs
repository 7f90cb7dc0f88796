//! Console: what `fairpair run` shows on stderr while it runs. The stages send it what happens: `execute` what is
//! happening now ([`Progress::status`]), a line that must be seen ([`Progress::println`]) and when a run is over
//! ([`Progress::ran`]); the lines themselves (a verification's verdict, what preflight measured, the two hosts, what
//! is left after preflight) are written here, so that what the console says is in one place. It shows a bar on a
//! terminal and plain lines otherwise. When the run is over, [`print_console_summary`] writes its closing table on
//! stdout, and [`print_unmeasured_subjects`] names the subjects that could not be measured. (The plan's announcement and the dry run are `plan`'s; `fairpair verify URL` prints its own report on
//! stdout.)
//!
//! The bar measures the plan's own time estimate: its length is [`Estimate::total`], and each finished run advances it
//! by that run's share of the estimate ([`Estimate::per_run`]). Both come from `plan/`, so the bar and the printed
//! estimate cannot drift apart.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::analyse::warmup::Coverage;
use crate::plan::{Estimate, PerRun, Plan};
use crate::schema::{Preflight, TwoHosts, Verification, VerificationStatus, WarmupProbe};
use crate::text::{minutes, thousands};

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
    /// One subject's warm-up probe.
    WarmupProbe,
    /// One profiled run (`--profile`).
    Profile,
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

    /// Subjects left the plan in preflight: what is left of the bar is the new plan's estimate of the runs, their
    /// weights are the new plan's, and the console says what is left.
    pub fn replan(&mut self, revised: &Plan) {
        let left = revised.estimate();
        self.bar.set_length(self.bar.position() + ticks(left.total() - left.preflight));
        self.per_run = left.per_run;
        self.println(format!(
            "{} load runs, {} open-loop runs, {} memory runs are left for {}; about {} more",
            revised.load_runs(),
            revised.open_loop_runs(),
            revised.memory_runs(),
            revised.subjects.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
            minutes(left.total() - left.preflight)
        ));
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

    /// The plan grew by `seconds` once it started (a subject's warm-up was lengthened): so does the bar.
    pub fn lengthen(&self, seconds: f64) {
        self.bar.set_length(self.bar.length().unwrap_or(0) + ticks(seconds));
    }

    fn ticks_of(&self, phase: Phase, runs: usize) -> u64 {
        let each = match phase {
            Phase::Load => self.per_run.load,
            Phase::OpenLoop => self.per_run.open_loop,
            Phase::Memory => self.per_run.memory,
            Phase::Capacity => self.per_run.capacity_step,
            Phase::WarmupProbe => self.per_run.warmup_probe,
            Phase::Profile => self.per_run.profile,
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

/// What the console says about a subject's verification; nothing for one the contract does not apply to.
/// `attached`: a running service fairpair did not start (`--subject NAME=URL`), which is never "started".
pub fn verdict_line(name: &str, v: &Verification, measurable: bool, attached: bool) -> Option<String> {
    let first = v.failures.first().map(|f| format!(", e.g. {f}")).unwrap_or_default();
    match v.status {
        VerificationStatus::Passed => {
            Some(format!("{name}: verified at level {} ({} cases passed)", v.level, v.passed))
        }
        VerificationStatus::Failed if measurable => Some(format!(
            "{name}: FAILED verification at level {} ({} of {} cases{first}); measured anyway (--allow-unverified), \
             and marked UNVERIFIED in every table and chart",
            v.level,
            v.failed,
            v.passed + v.failed
        )),
        VerificationStatus::Failed => Some(format!(
            "{name}: FAILED verification at level {} ({} of {} cases{first}); it will NOT be measured \
             (fairpair verify --level {} URL shows why; --allow-unverified measures it anyway)",
            v.level,
            v.failed,
            v.passed + v.failed,
            v.level
        )),
        VerificationStatus::NotApplicable => None,
        VerificationStatus::DidNotStart if attached => {
            Some(format!("{name}: NOT READY ({}); it will NOT be measured", v.failures.join("; ")))
        }
        VerificationStatus::DidNotStart => {
            Some(format!("{name}: DID NOT START ({}); it will NOT be measured", v.failures.join("; ")))
        }
    }
}

/// What preflight measured and decided (its own lines, `preflight::lines`), and the revised estimate: the lines
/// said once preflight is over.
pub fn preflight(r: &Preflight, e: &Estimate) -> Vec<String> {
    let mut lines = crate::run::preflight::lines(r);
    lines.push(format!(
        "revised estimate after preflight ({:.0} s): {} left (warm-up probe {}, load {}, open-loop {}, capacity search \
         {}, memory {}{})",
        r.duration_s,
        minutes(e.total() - e.preflight),
        minutes(e.warmup_probe),
        minutes(e.load),
        minutes(e.open_loop),
        minutes(e.capacity),
        minutes(e.memory),
        if e.profile > 0.0 { format!(", profile {}", minutes(e.profile)) } else { String::new() }
    ));
    lines
}

/// What one subject's warm-up probe found, said as it is over.
pub fn warmup_probe_line(p: &WarmupProbe, warmup_s: u64) -> String {
    let when = match p.seconds_to_steady {
        Some(s) => format!("steady after {s} s"),
        None => match p.warm_after() {
            Some(w) => format!("not steady within the {} s probe but warm after {w} s", p.per_second_rps.len()),
            None => format!("not steady within the {} s probe", p.per_second_rps.len()),
        },
    };
    let covered = match p.coverage(warmup_s) {
        Coverage::Covered => format!("the {warmup_s} s warm-up covers it"),
        Coverage::Short => format!("longer than the {warmup_s} s warm-up"),
        Coverage::Unknown => format!("whether the {warmup_s} s warm-up covers it cannot be told"),
    };
    let busy = match p.busy() {
        true => format!("; the machine was busy (other processes {:.0} %)", p.other_cpu_percent),
        false => String::new(),
    };
    format!(
        "warm-up probe of {}: {when} at {} requests/s (first second {}); {covered}{busy}",
        p.subject,
        thousands(p.steady_rps),
        thousands(p.first_rps())
    )
}

/// A subject's warm-up was lengthened by its probe: for how long, and what it adds to the run.
pub fn warmup_lengthened_line(subject: &str, warmup_s: u64, plan_s: u64, more_s: f64) -> String {
    format!(
        "warm-up probe: {subject}'s runs and capacity windows will warm up for {warmup_s} s instead of {plan_s} s (no \
         figure counts a warm-up; the other subjects keep theirs): about {} more",
        crate::text::minutes(more_s)
    )
}

/// The line that says a run is a two-host run, before anything is measured.
pub fn two_hosts_line(p: &TwoHosts) -> String {
    let rtt =
        p.rtt_ms.as_ref().map_or("not measured".to_string(), |r| format!("{:.3} ms (median of {})", r.median, r.n));
    format!(
        "fairpair: two hosts: load from {} ({}), subjects on {} ({}, {}, {} CPUs), round trip {rtt}",
        crate::machine::env::read_hostname(),
        p.loader_address,
        p.server_host,
        p.server_address,
        p.server_environment.hostname,
        p.server_environment.cpus_allowed.len()
    )
}

/// Tells on stderr the subjects asked for that were not measured, when there are any, and returns whether every one
/// was. A subject missing from the figures fails the run (exit 1) though the others' figures are written, so the line
/// says where to read why and how to measure a subject that fails verification anyway.
pub fn print_unmeasured_subjects(b: &crate::schema::Benchmark) -> bool {
    let unmeasured = b.unmeasured_subjects();
    if unmeasured.is_empty() {
        return true;
    }
    eprintln!(
        "fairpair: NOT measured (did not start, or failed verification): {}; see report.md (--allow-unverified \
         measures a subject that fails verification)",
        unmeasured.join(", ")
    );
    false
}

/// The closing summary of `fairpair run` on stdout: one line per cell and subject (`cap. %` is the share of the
/// loader's measured capacity), each subject's memory, then the report's verdicts and decision as plain lines. It is
/// on stdout, apart from the progress on stderr, so that a terminal shows the figures at once and a script can keep
/// them without the progress lines; `plain` is the results as written, before the unverified subjects are marked.
pub fn print_console_summary(plain: &crate::schema::Benchmark, inputs: &crate::decision::Inputs) {
    let b = &crate::report::marked(plain);
    println!(
        "{:<20} {:<8} {:>5} {:>12} {:>8} {:>9} {:>9} {:>9} {:>8}  flags",
        "subject", "scenario", "conns", "req/s", "cap. %", "p50 ms", "p99 ms", "CPU µs/r", "CV %"
    );
    for s in &b.summaries {
        let flags: Vec<&str> = b
            .flags
            .iter()
            .filter(|f| {
                // `rate-not-reached` belongs to the open-loop phase, not to these closed-loop runs.
                f.kind != crate::schema::FlagKind::RateNotReached
                    && f.subject == s.subject
                    && f.scenario.as_deref() == Some(&s.scenario)
                    && f.connections == Some(s.connections)
            })
            .map(|f| f.kind.as_str())
            .collect();
        println!(
            "{:<20} {:<8} {:>5} {:>12} {:>8} {:>9.2} {:>9.2} {:>9} {:>8}  {}",
            s.subject,
            s.scenario,
            s.connections,
            thousands(s.requests_per_sec.median),
            s.loader_capacity_share_percent.map_or("—".into(), |p| format!("{p:.0}")),
            s.p50_ms.median,
            s.p99_ms.median,
            s.server_cpu_us_per_request.as_ref().map_or("—".into(), |c| format!("{:.1}", c.median)),
            s.requests_per_sec.cv.map_or("—".into(), |c| format!("{:.1}", c * 100.0)),
            flags.join(",")
        );
    }
    if b.summaries.is_empty() {
        println!("(no closed-loop run was measured: see the skipped list in the report)");
    }
    let left_out = b.runs.iter().filter(|r| r.left_out.is_some()).count();
    if left_out > 0 {
        println!("({left_out} runs are left out: unexpected statuses or a busy machine; see the report)");
    }
    for m in &b.memory_summaries {
        println!(
            "{:<20} memory: idle {:.1} MiB, after load {:.1} MiB RSS ({}), start-up {:.0} ms",
            m.subject,
            m.idle_rss_kib.median / 1024.0,
            m.after_rss_kib.median / 1024.0,
            crate::text::count(u64::from(m.processes), "process"),
            m.startup_ms.median
        );
    }
    // The report's summary, in the same words: what the figures above say, and how far to trust each. It marks the
    // unverified subjects itself, so it is given the plain names (marked twice, "x (UNVERIFIED) (UNVERIFIED)").
    let verdicts = crate::report::verdict_lines(plain);
    if !verdicts.is_empty() {
        println!();
    }
    for line in verdicts {
        println!("{line}");
    }
    // The decision section's table and sentence, as plain lines.
    println!();
    for line in crate::report::decision_lines(plain, inputs) {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_up_probe_line_says_the_time_to_steady_and_whether_the_warm_up_covers_it() {
        let series = [vec![1000.0, 4000.0, 8000.0], vec![10_000.0; 9]].concat();
        let p = crate::analyse::warmup::probe_record("java", "get", 50, crate::analyse::warmup::idle_series(series));
        assert_eq!(
            warmup_probe_line(&p, 5),
            "warm-up probe of java: steady after 3 s at 10,000 requests/s (first second 1,000); the 5 s warm-up \
             covers it"
        );
        let busy = WarmupProbe { other_cpu_percent: 80.0, seconds_to_steady: None, ..p };
        assert_eq!(
            warmup_probe_line(&busy, 5),
            "warm-up probe of java: not steady within the 12 s probe but warm after 3 s at 10,000 requests/s (first \
             second 1,000); the 5 s warm-up covers it; the machine was busy (other processes 80 %)"
        );
        let noisy = WarmupProbe { per_second_rps: [busy.per_second_rps.clone(), vec![5000.0]].concat(), ..busy };
        assert!(warmup_probe_line(&noisy, 5).contains("whether the 5 s warm-up covers it cannot be told"));
        assert!(warmup_lengthened_line("java", 25, 5, 610.0).contains("warm up for 25 s instead of 5 s"));
    }

    #[test]
    fn the_revised_estimate_counts_the_capacity_search() {
        // A `--capacity-only` run: everything left after preflight is the search (it said "0 s left" before).
        let e = Estimate { preflight: 10.0, capacity: 142.0, ..Estimate::default() };
        let lines = preflight(&Preflight { duration_s: 1.0, ..Preflight::default() }, &e);
        let revised = lines.last().unwrap();
        assert!(revised.contains(&format!("{} left", minutes(142.0))), "{revised}");
        assert!(revised.contains(&format!("capacity search {}", minutes(142.0))), "{revised}");
    }
}
