//! What the kernel knows about a process tree: CPU time and memory, read from `/proc`.
//!
//! A subject may be several processes (Node `cluster` forks one worker per core), so every figure is summed over the
//! tree below the process the harness started. The tree is found the portable way: scan every `/proc/*/stat` and
//! follow parent pids. `/proc/PID/task/TID/children` would be shorter, but it exists only in kernels built with
//! `CONFIG_PROC_CHILDREN`, lists the children of one thread only, and the kernel documents it as precise only while the
//! processes are stopped or frozen (it may skip a child that comes or goes meanwhile), which a running subject is not.

use std::collections::{BTreeSet, HashMap};
use std::fs;

use anyhow::Result;

use crate::host::Host;
use crate::schema::Memory;

/// The fields of `/proc/PID/stat` the harness uses. Times are in clock ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcStat {
    pub pid: i32,
    pub comm: String,
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub utime: u64,
    pub stime: u64,
    pub cutime: u64,
    pub cstime: u64,
}

/// Parses one `/proc/PID/stat` line. The command name is in parentheses and may itself contain spaces and `)`, so
/// the fields are split after the last `)`.
pub fn parse_stat(line: &str) -> Option<ProcStat> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let pid = line[..open].trim().parse().ok()?;
    let comm = line[open + 1..close].to_string();
    let rest: Vec<&str> = line[close + 1..].split_whitespace().collect();
    // rest[0] is field 3 (state); utime is field 14, so rest[11].
    let field = |n: usize| -> Option<u64> { rest.get(n - 3)?.parse().ok() };
    Some(ProcStat {
        pid,
        comm,
        state: rest.first()?.chars().next()?,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        utime: field(14)?,
        stime: field(15)?,
        cutime: field(16)?,
        cstime: field(17)?,
    })
}

pub fn read_stat(pid: i32) -> Option<ProcStat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process on the machine, as far as they can be read (processes vanish while we scan).
pub fn all_processes() -> Vec<ProcStat> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok()).filter_map(read_stat).collect()
}

/// `root` and all its descendants that are still alive (zombies excluded), root first.
pub fn tree(root: i32) -> Vec<ProcStat> {
    tree_of(&all_processes(), root)
}

/// [`tree`] within a list of processes read before (a server host's, read in one remote command).
pub fn tree_of(all: &[ProcStat], root: i32) -> Vec<ProcStat> {
    let mut children: HashMap<i32, Vec<&ProcStat>> = HashMap::new();
    for p in all {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let Some(root_stat) = all.iter().find(|p| p.pid == root) else {
        return out;
    };
    let mut queue = vec![root_stat];
    while let Some(p) = queue.pop() {
        if p.state != 'Z' {
            out.push(p.clone());
        }
        if let Some(kids) = children.get(&p.pid) {
            queue.extend(kids.iter().copied());
        }
    }
    out
}

/// Pids of the live (non-zombie) processes in process group `pgid`.
pub fn group_members(pgid: i32) -> BTreeSet<i32> {
    members_of(&all_processes(), pgid)
}

/// [`group_members`] within a list of processes read before.
pub fn members_of(all: &[ProcStat], pgid: i32) -> BTreeSet<i32> {
    all.iter().filter(|p| p.pgrp == pgid && p.state != 'Z').map(|p| p.pid).collect()
}

/// CPU ticks used so far by `root`'s tree, including children it has already reaped (`cutime`/`cstime`), so a
/// cluster worker that died mid-run still counts.
pub fn tree_ticks(root: i32) -> u64 {
    ticks_of(&tree(root), root)
}

/// [`tree_ticks`] of a process on `host` (this machine or a server host).
pub fn tree_ticks_on(host: &Host, root: i32) -> Result<u64> {
    Ok(ticks_of(&tree_of(&host.processes()?, root), root))
}

fn ticks_of(tree: &[ProcStat], root: i32) -> u64 {
    tree.iter()
        .map(|p| {
            let own = p.utime + p.stime;
            if p.pid == root { own + p.cutime + p.cstime } else { own }
        })
        .sum()
}

/// Kernel clock ticks per second (`USER_HZ`), the unit of every time in `/proc`.
pub fn ticks_per_second() -> f64 {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
        Ok(Some(hz)) if hz > 0 => hz as f64,
        _ => 100.0,
    }
}

/// Machine-wide CPU ticks from the first line of `/proc/stat`: `(busy, total)`, idle and iowait counting as idle.
pub fn machine_ticks() -> (u64, u64) {
    let text = fs::read_to_string("/proc/stat").unwrap_or_default();
    parse_machine_ticks(&text).unwrap_or((0, 0))
}

/// [`machine_ticks`] of `host` (on a server host, its `/proc/stat` read there).
pub fn machine_ticks_on(host: &Host) -> Result<(u64, u64)> {
    match host {
        Host::Local => Ok(machine_ticks()),
        Host::Ssh(_) => {
            let text =
                host.read("/proc/stat").ok_or_else(|| anyhow::anyhow!("{}: cannot read /proc/stat", host.label()))?;
            Ok(parse_machine_ticks(&text).unwrap_or((0, 0)))
        }
    }
}

pub fn parse_machine_ticks(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    Some((total.saturating_sub(idle), total))
}

/// Waits, at most `max_s` seconds, until the machine's busy CPU (everything, this process included, which is idle
/// while it waits) is under `threshold_percent`. Returns (seconds waited, whether it was idle).
pub fn wait_for_idle(max_s: f64, threshold_percent: f64) -> (f64, bool) {
    let start = std::time::Instant::now();
    loop {
        let (b0, t0) = machine_ticks();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let (b1, t1) = machine_ticks();
        let busy = if t1 > t0 { (b1 - b0) as f64 * 100.0 / (t1 - t0) as f64 } else { 0.0 };
        let waited = start.elapsed().as_secs_f64();
        if busy < threshold_percent {
            return (waited, true);
        }
        if waited >= max_s {
            return (waited, false);
        }
    }
}

/// Machine-wide steal ticks (field 8 of the `cpu` line of `/proc/stat`): time a hypervisor ran other guests while
/// this machine's virtual CPUs wanted to run. Returns `(steal, total)`.
pub fn steal_ticks() -> (u64, u64) {
    let text = fs::read_to_string("/proc/stat").unwrap_or_default();
    parse_steal_ticks(&text).unwrap_or((0, 0))
}

pub fn parse_steal_ticks(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    Some((v.get(7).copied().unwrap_or(0), v.iter().take(8).sum()))
}

/// Reads a `Key:   1234 kB` field from a `/proc` status-like text.
pub fn kib_field(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with(key) && l[key.len()..].starts_with(':'))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// RSS, peak RSS and PSS summed over `root`'s tree.
pub fn tree_memory(root: i32) -> Memory {
    memory_of(&Host::Local, &tree(root))
}

/// [`tree_memory`] of a process on `host`: the same files, read there.
pub fn tree_memory_on(host: &Host, root: i32) -> Result<Memory> {
    Ok(memory_of(host, &tree_of(&host.processes()?, root)))
}

fn memory_of(host: &Host, tree: &[ProcStat]) -> Memory {
    let mut m = Memory::default();
    for p in tree {
        let status = host.read(&format!("/proc/{}/status", p.pid)).unwrap_or_default();
        m.rss_kib += kib_field(&status, "VmRSS").unwrap_or(0);
        m.hwm_kib += kib_field(&status, "VmHWM").unwrap_or(0);
        let rollup = host.read(&format!("/proc/{}/smaps_rollup", p.pid)).unwrap_or_default();
        m.pss_kib += kib_field(&rollup, "Pss").unwrap_or(0);
        m.processes += 1;
    }
    m
}

/// The CPUs this process may run on, from `Cpus_allowed_list` in `/proc/self/status`.
pub fn allowed_cpus() -> Vec<usize> {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .and_then(|list| parse_cpu_list(list.trim()).ok())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect())
}

/// Parses a CPU list such as `0,2-3` into sorted, de-duplicated CPU numbers.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let mut set = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("not a CPU list: {text:?} (expected e.g. 0,2-3)");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a > b || b - a > 4096 {
                    return Err(bad());
                }
                set.extend(a..=b);
            }
            None => {
                set.insert(part.parse().map_err(|_| bad())?);
            }
        }
    }
    if set.is_empty() {
        return Err(format!("empty CPU list: {text:?}"));
    }
    Ok(set.into_iter().collect())
}

/// Formats CPUs back into the compact list form `taskset -c` takes.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_stat_line_with_a_strange_command_name() {
        let line = "4242 (node (x) y) S 4200 4242 4200 0 -1 4194560 1 0 0 0 120 30 7 3 20 0 11 0 1 1 1";
        let s = parse_stat(line).unwrap();
        assert_eq!((s.pid, s.comm.as_str(), s.state, s.ppid, s.pgrp), (4242, "node (x) y", 'S', 4200, 4242));
        assert_eq!((s.utime, s.stime, s.cutime, s.cstime), (120, 30, 7, 3));
    }

    #[test]
    fn our_own_tree_contains_us() {
        let me = std::process::id() as i32;
        let t = tree(me);
        assert_eq!(t[0].pid, me);
        assert!(tree_memory(me).rss_kib > 0);
    }

    #[test]
    fn machine_ticks_count_iowait_as_idle() {
        let text = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(parse_machine_ticks(text), Some((150, 1000)));
    }

    #[test]
    fn steal_is_the_eighth_field() {
        let text = "cpu  100 0 50 800 50 0 0 25 0 0\n";
        assert_eq!(parse_steal_ticks(text), Some((25, 1025)));
        // Old kernels without the field: no steal.
        assert_eq!(parse_steal_ticks("cpu  1 2 3 4\n"), Some((0, 10)));
        assert_eq!(parse_steal_ticks("intr 1\n"), None);
    }

    #[test]
    fn kib_fields() {
        let text = "VmPeak:\t  1000 kB\nVmHWM:\t    900 kB\nVmRSS:\t    800 kB\n";
        assert_eq!(kib_field(text, "VmRSS"), Some(800));
        assert_eq!(kib_field(text, "VmHWM"), Some(900));
        assert_eq!(kib_field(text, "Pss"), None);
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_cpu_list("0,2-4,7").unwrap(), vec![0, 2, 3, 4, 7]);
        assert_eq!(format_cpu_list(&[0, 2, 3, 4, 7]), "0,2-4,7");
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("").is_err());
    }
}
