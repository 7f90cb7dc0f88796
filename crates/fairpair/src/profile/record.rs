//! `perf`: whether it can profile here (a preflight check), one recording of a set of processes, and its samples
//! as `perf script` text. Every file `perf` writes goes to a temporary folder of the run, never to the results.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::machine::command::shell_words;
use crate::machine::host::Host;

/// Samples per second of CPU: 999, not 1000, so that the sampling does not run in step with a timer of the
/// program's (the usual choice of `perf` users for the same reason).
pub const FREQUENCY_HZ: u32 = 999;

/// Why `perf` cannot profile on this machine, or `None` when it can: it is on `PATH`, the kernel lets this user
/// sample other processes (`/proc/sys/kernel/perf_event_paranoid`), and a 0.1 s recording works.
pub fn unavailable() -> Option<String> {
    if !crate::machine::command::installed("perf") {
        return Some("perf is not installed (Debian: apt-get install linux-perf)".into());
    }
    if let (Some(level), false) = (paranoid(), is_root())
        && level > 1
    {
        return Some(format!(
            "kernel.perf_event_paranoid is {level}, which lets a user who is not root sample only its own processes' \
             user space (set it to 1 or lower: sysctl kernel.perf_event_paranoid=1)"
        ));
    }
    let dir = std::env::temp_dir().join(format!("fairpair-perf-check-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let data = dir.join("perf.data");
    let out = Command::new("perf")
        .args(["record", "-e", "cpu-clock", "-F", &FREQUENCY_HZ.to_string(), "-g", "-o"])
        .arg(&data)
        .args(["--", "sleep", "0.1"])
        .stdin(Stdio::null())
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    match out {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!("a 0.1 s `perf record` failed: {}", crate::machine::command::last_line(&o.stderr))),
        Err(e) => Some(format!("`perf record` could not be run: {e}")),
    }
}

/// A `perf record` of some processes, under way.
pub struct Recording {
    child: Child,
    data: PathBuf,
    /// The subject's processes: the samples `perf script` keeps (all of a per-process recording's).
    pids: Vec<i32>,
    /// The `perf record` command line, for the results.
    record: String,
}

/// What a recording samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The server's CPUs (`perf record -C`), every task on them; `perf script --pid` keeps the subject's samples.
    /// The first choice where the kernel allows it (root, or `perf_event_paranoid` 0 or lower) and the servers
    /// are pinned: a per-process recording (`-p`) attaches an event to every thread and switches it in and out at
    /// each context switch, which cost a GC-busy Node server 10–14 % more CPU per POST, measured here, against
    /// 7 % for its CPUs; and it misses threads the process starts after the recording began.
    Cpus(Vec<usize>),
    /// The subject's processes (`perf record -p`), every thread of each that exists when the recording starts.
    Processes,
}

impl Target {
    /// The target for a subject on `server_cpus` (`None`: not pinned).
    pub fn for_servers(server_cpus: Option<&[usize]>) -> Target {
        match server_cpus {
            Some(cpus) if !cpus.is_empty() && system_wide_allowed() => Target::Cpus(cpus.to_vec()),
            _ => Target::Processes,
        }
    }

    /// How the report says what was recorded.
    pub fn describe(&self) -> String {
        match self {
            Target::Cpus(cpus) => format!("the server's CPUs ({}), its processes' samples kept", join(cpus)),
            Target::Processes => "its processes".into(),
        }
    }
}

fn join(v: &[impl ToString]) -> String {
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// Whether the kernel lets this process sample whole CPUs: as root, or with `perf_event_paranoid` at 0 or lower.
fn system_wide_allowed() -> bool {
    is_root() || paranoid().is_some_and(|level| level <= 0)
}

/// Whether this process runs as root: `/proc/self` belongs to its effective user.
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
}

/// `kernel.perf_event_paranoid`, when readable.
fn paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").ok().and_then(|p| p.trim().parse().ok())
}

/// The arguments of a recording of `pids` (or of the CPUs they run on) into `data` for `seconds`: `cpu-clock` (a
/// VM has no hardware counters), call graphs by frame pointers (`-g`).
pub fn record_args(target: &Target, pids: &[i32], data: &Path, seconds: u64) -> Vec<String> {
    let mut args: Vec<String> = ["record", "-e", "cpu-clock", "-F"].map(String::from).to_vec();
    args.extend([FREQUENCY_HZ.to_string(), "-g".into()]);
    match target {
        Target::Cpus(cpus) => args.extend(["-C".into(), join(cpus)]),
        Target::Processes => args.extend(["-p".into(), join(pids)]),
    }
    args.extend(["-o".into(), data.display().to_string(), "--".into(), "sleep".into(), seconds.to_string()]);
    args
}

/// Starts recording `pids` for `seconds` into `dir`, and returns once the recording has begun: `perf` runs its
/// timer (`sleep`) only once its events are open, so the `sleep` child appearing is the moment sampling starts.
pub fn start(target: &Target, pids: &[i32], dir: &Path, seconds: u64) -> Result<Recording> {
    let data = dir.join("perf.data");
    let child = Command::new("perf")
        .args(record_args(target, pids, &data, seconds))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run perf record")?;
    let record = shell_words(&[vec!["perf".to_string()], record_args(target, pids, &data, seconds)].concat());
    let mut recording = Recording { child, data, pids: pids.to_vec(), record };
    let perf = recording.child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let all = Host::Local.processes().unwrap_or_default();
        if all.iter().any(|p| p.ppid == perf && p.comm == "sleep") {
            return Ok(recording);
        }
        if let Some(status) = recording.child.try_wait()? {
            let mut err = String::new();
            if let Some(mut e) = recording.child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            bail!("perf record exited ({status}) before recording: {}", err.trim());
        }
        if Instant::now() > deadline {
            bail!("perf record did not start recording within 10 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

impl Recording {
    /// The exact commands of the recording and of its `perf script`, for the results.
    pub fn commands(&self) -> String {
        let script =
            ["perf", "script", "-F", "-period", "--pid", &join(&self.pids), "-i", &self.data.display().to_string()];
        format!("{}; {}", self.record, shell_words(&script.map(String::from)))
    }

    /// Waits for the recording's end (its timer's).
    pub fn wait(&mut self) -> Result<()> {
        let out = self.child.wait().context("perf record")?;
        if !out.success() {
            bail!("perf record failed ({out})");
        }
        Ok(())
    }

    /// The subject's samples as `perf script` text (`--pid`: a recording of CPUs holds every task's), without the
    /// period field: `inferno` would otherwise add up periods (nanoseconds of `cpu-clock`) rather than count samples.
    pub fn script(&self) -> Result<String> {
        let out = Command::new("perf")
            .args(["script", "-F", "-period", "--pid", &join(&self.pids), "-i"])
            .arg(&self.data)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .context("cannot run perf script")?;
        if !out.status.success() {
            bail!("perf script failed ({})", out.status);
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        // A recording dropped on an error path must not go on sampling: its timer ends it within seconds anyway.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The JIT's symbol maps that the profiled processes wrote (`/tmp/perf-PID.map`), removed once `perf script` has
/// read them: they grow with every compiled function and nothing else reads them.
pub fn remove_maps(pids: &[i32]) {
    for pid in pids {
        let _ = std::fs::remove_file(format!("/tmp/perf-{pid}.map"));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_every_process_by_cpu_clock_with_call_graphs() {
        use super::{Target, record_args};
        let data = std::path::Path::new("d/perf.data");
        let args = record_args(&Target::Processes, &[10, 11], data, 4).join(" ");
        assert_eq!(args, "record -e cpu-clock -F 999 -g -p 10,11 -o d/perf.data -- sleep 4");
        let args = record_args(&Target::Cpus(vec![0]), &[10, 11], data, 4).join(" ");
        assert_eq!(args, "record -e cpu-clock -F 999 -g -C 0 -o d/perf.data -- sleep 4");
    }
}
