//! testkit: a test that cannot run on this machine says so, and `scripts/test` lists it at the end.
//!
//! A test that needs something a machine may lack (root, a program, several CPUs) asks first, and returns when the
//! answer is no:
//!
//! ```no_run
//! use testkit::Need;
//!
//! fn pages_render_in_chromium() {
//!     if !testkit::require("pages_render_in_chromium", Need::Tool("chromium")) {
//!         return; // Recorded as a skip: said on stderr and listed by scripts/test.
//!     }
//!     // ... the test itself ...
//! }
//! ```
//!
//! A skip prints `skipped: <test>: <reason>` on stderr and, when the environment variable `FAIRPAIR_SKIP_DIR` names a
//! directory, writes a new file there holding one line `<need-key>\t<test>\t<reason>`. The files are needed because
//! cargo shows the output of failing tests only: a test that returns early passes, and its stderr is lost.
//! `scripts/test` sets the variable, prints one line per skip at the end, and in CI (`CI=true`) fails when the
//! need-key is one that `.ci/run` provides (the list is `.ci/provides`). The need-keys are `root`, `tool:<name>`,
//! `cpus:<n>` and `idle-machine`; `servers-node/test/helpers.js` writes the same lines for the Node tests.
//!
//! A test that *must* run everywhere the workspace builds (a server of this workspace, say) does not use this: it
//! fails instead. Run this crate's own tests with `cargo test -p testkit`.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The environment variable naming the directory where skips are recorded (`scripts/test` sets it).
pub const SKIP_DIR_VAR: &str = "FAIRPAIR_SKIP_DIR";

/// What a test needs from the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Running as root (effective user id 0), for network namespaces, say.
    Root,
    /// A program on `PATH`, e.g. `"go"`, `"chromium"`, `"oha"`, `"wrk"`.
    Tool(&'static str),
    /// At least this many CPUs that this process may run on.
    Cpus(usize),
    /// A machine no other process keeps busy: a figure that depends on the machine's speed (a capacity at a latency
    /// objective) means nothing while other processes compete for its CPUs. Only the run can tell, so a test calls
    /// [`skip`] with it after the fact; [`Need::unmet`] says nothing in advance.
    IdleMachine,
    /// A server that passes the test: a failure that is known and being fixed, left out of the test by name so that
    /// it is listed among the tests not run, never counted as passed. Nothing provides it: only the fix does.
    Passing(&'static str),
}

impl Need {
    /// The key of this need in skip records and in `.ci/provides`: `root`, `tool:<name>`, `cpus:<n>`, `idle-machine`
    /// or `passing:<server>`.
    pub fn key(&self) -> String {
        match self {
            Need::Root => "root".to_owned(),
            Need::Tool(name) => format!("tool:{name}"),
            Need::Cpus(n) => format!("cpus:{n}"),
            Need::IdleMachine => "idle-machine".to_owned(),
            Need::Passing(server) => format!("passing:{server}"),
        }
    }

    /// `None` when this machine meets the need; otherwise why not, in words.
    pub fn unmet(&self) -> Option<String> {
        match *self {
            Need::Root => match effective_uid() {
                Some(0) => None,
                Some(uid) => Some(format!("needs root, runs as user id {uid}")),
                None => Some("needs root, and /proc/self/status does not say which user runs this".to_owned()),
            },
            Need::Tool(name) => tool_path(name).is_none().then(|| format!("needs `{name}` on PATH, not found there")),
            Need::Cpus(n) => {
                let have = available_cpus();
                (have < n).then(|| format!("needs {n} CPUs, this process may use {have}"))
            }
            Need::IdleMachine | Need::Passing(_) => None,
        }
    }
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// True when `need` is met. Otherwise records the skip of `test` and returns false, so the test can `return` visibly.
pub fn require(test: &str, need: Need) -> bool {
    match need.unmet() {
        None => true,
        Some(reason) => {
            skip(test, need, &reason);
            false
        }
    }
}

/// Records that `test` did not run for want of `need`, for a reason `require` cannot see by itself (a tool present but
/// too old, say): a line on stderr, and a record in `FAIRPAIR_SKIP_DIR` when it is set.
///
/// Panics when the record cannot be written: a skip nobody hears of is exactly what this crate exists to prevent.
pub fn skip(test: &str, need: Need, reason: &str) {
    eprintln!("skipped: {test}: {reason}");
    if let Some(dir) = std::env::var_os(SKIP_DIR_VAR).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if let Err(e) = record(&dir, test, need, reason) {
            panic!("{test} skipped ({reason}), and recording that in {} failed: {e}", dir.display());
        }
    }
}

/// The program `name` as found on `PATH` (an executable file), if any.
pub fn tool_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// The number of CPUs this process may run on (its affinity mask and any cgroup quota, as the standard library
/// reads them).
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The effective user id, read from `/proc/self/status` (no `libc` call: this crate has no dependencies and no
/// `unsafe`).
fn effective_uid() -> Option<u32> {
    effective_uid_in(&fs::read_to_string("/proc/self/status").ok()?)
}

/// The effective user id in the text of `/proc/<pid>/status`: the second number of its `Uid:` line.
fn effective_uid_in(status: &str) -> Option<u32> {
    let ids = status.lines().find_map(|l| l.strip_prefix("Uid:"))?;
    ids.split_whitespace().nth(1)?.parse().ok()
}

/// The record of one skip: `<need-key>\t<test>\t<reason>\n`, with tabs and line breaks inside the fields flattened
/// to spaces so the line stays one line of three fields.
fn record_line(test: &str, need: Need, reason: &str) -> String {
    let flat = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    format!("{}\t{}\t{}\n", need.key(), flat(test), flat(reason))
}

/// Writes the record into a new file in `dir` (created if needed) and returns its path. A file per skip, because the
/// tests of one run write from many threads and several processes at once; nothing is ever appended to a shared file.
fn record(dir: &Path, test: &str, need: Need, reason: &str) -> io::Result<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    fs::create_dir_all(dir)?;
    loop {
        // The process id keeps processes apart; a process id reused later in the same run only costs a retry.
        let path = dir.join(format!("{}-{}.skip", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                file.write_all(record_line(test, need, reason).as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    // These tests never call `require` or `skip` on an unmet need: under scripts/test that would record a skip of a
    // test that in fact ran. They check the parts instead, with a directory of their own.
    use super::*;

    #[test]
    fn need_keys() {
        for (need, key) in [(Need::Root, "root"), (Need::Tool("wrk"), "tool:wrk"), (Need::Cpus(2), "cpus:2")] {
            assert_eq!(need.key(), key, "{need:?}");
            assert_eq!(need.to_string(), key, "{need:?}");
        }
    }

    #[test]
    fn a_tool_is_found_on_path_or_said_missing() {
        // `sh` is on every machine that can run scripts/test.
        assert!(tool_path("sh").is_some_and(|p| p.ends_with("sh")));
        assert_eq!(Need::Tool("sh").unmet(), None);
        let reason = Need::Tool("fairpair-no-such-program").unmet().expect("a made-up program is missing");
        assert!(reason.contains("`fairpair-no-such-program`"), "{reason}");
    }

    #[test]
    fn cpus_are_counted() {
        assert!(available_cpus() >= 1);
        assert_eq!(Need::Cpus(1).unmet(), None);
        let reason = Need::Cpus(usize::MAX).unmet().expect("no machine has that many");
        assert!(reason.starts_with(&format!("needs {} CPUs", usize::MAX)), "{reason}");
    }

    #[test]
    fn the_effective_user_is_read_from_proc_status() {
        let status = "Name:\tcargo\nUid:\t1000\t0\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n";
        assert_eq!(effective_uid_in(status), Some(0));
        assert_eq!(effective_uid_in("Name:\tcargo\n"), None);
        // On Linux the real file has the line, so Root is decided, whichever way.
        assert!(effective_uid().is_some());
        assert_eq!(Need::Root.unmet().is_none(), effective_uid() == Some(0));
    }

    #[test]
    fn each_skip_is_one_line_in_a_new_file() {
        let dir = std::env::temp_dir().join(format!("testkit-records-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let first = record(&dir, "a_test", Need::Tool("go"), "needs `go` on PATH").unwrap();
        let second = record(&dir, "another\ttest", Need::Cpus(4), "two\nlines").unwrap();
        assert_ne!(first, second);
        assert_eq!(fs::read_to_string(&first).unwrap(), "tool:go\ta_test\tneeds `go` on PATH\n");
        assert_eq!(fs::read_to_string(&second).unwrap(), "cpus:4\tanother test\ttwo lines\n");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(dir).unwrap();
    }
}
