//! What the kernel's `/proc` files say, parsed: a process's stat line, a process tree, a machine's CPU ticks, memory
//! fields, CPU lists, a listening socket's backlog. Nothing here reads a file: `host.rs` reads them, here or on a
//! server host, and hands the text over, so one parser serves both.
//!
//! A subject may be several processes (Node `cluster` forks one worker per core), so every figure is summed over the
//! tree below the process the harness started. The tree is found the portable way: scan every `/proc/*/stat` and
//! follow parent pids. `/proc/PID/task/TID/children` would be shorter, but it exists only in kernels built with
//! `CONFIG_PROC_CHILDREN`, lists the children of one thread only, and the kernel documents it as precise only while the
//! processes are stopped or frozen (it may skip a child that comes or goes meanwhile), which a running subject is not.

use std::collections::{BTreeSet, HashMap};

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

/// `root` and all its descendants among `all` that are still alive (zombies excluded), root first.
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

/// Pids of the live (non-zombie) processes of process group `pgid` among `all`.
pub fn members_of(all: &[ProcStat], pgid: i32) -> BTreeSet<i32> {
    all.iter().filter(|p| p.pgrp == pgid && p.state != 'Z').map(|p| p.pid).collect()
}

/// CPU ticks used so far by `root`'s `tree`, including children it has already reaped (`cutime`/`cstime`), so a
/// cluster worker that died mid-run still counts.
pub fn ticks_of(tree: &[ProcStat], root: i32) -> u64 {
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

/// A machine's CPU ticks so far, from the `cpu` line of its `/proc/stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MachineTicks {
    /// Ticks not idle (idle and iowait count as idle).
    pub busy: u64,
    pub total: u64,
    /// Time a hypervisor ran other guests while this machine's virtual CPUs wanted to run (field 8; 0 on kernels
    /// without it).
    pub steal: u64,
}

pub fn parse_machine_ticks(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    Some(MachineTicks { busy: total.saturating_sub(idle), total, steal: v.get(7).copied().unwrap_or(0) })
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

/// Reads `ss -Hltn` lines (`LISTEN 0 4096 127.0.0.1:3000 0.0.0.0:*`): state, Recv-Q, Send-Q (the backlog a
/// listening socket got), local address. The smallest of the sockets on `port`.
pub fn parse_listen_backlog(text: &str, port: u16) -> Option<u32> {
    let suffix = format!(":{port}");
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4 && f[0] == "LISTEN" && f[3].ends_with(&suffix)).then(|| f[2].parse().ok())?
        })
        .min()
}

/// The pid of the process that owns the socket listening on `port`, from `ss -Hltnp` lines
/// (`LISTEN 0 5 127.0.0.1:8000 0.0.0.0:* users:(("python3",pid=4242,fd=3))`). `ss` shows owners only to their user
/// or root; `None` then.
pub fn parse_listen_owner(text: &str, port: u16) -> Option<i32> {
    let suffix = format!(":{port}");
    text.lines()
        .filter(|l| l.split_whitespace().nth(3).is_some_and(|local| local.ends_with(&suffix)))
        .find_map(|l| l.split("pid=").nth(1)?.split([',', ')']).next()?.parse().ok())
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
    fn machine_ticks_count_iowait_as_idle_and_read_steal() {
        let text = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(parse_machine_ticks(text), Some(MachineTicks { busy: 150, total: 1000, steal: 0 }));
        let text = "cpu  100 0 50 800 50 0 0 25 0 0\n";
        assert_eq!(parse_machine_ticks(text).map(|t| (t.steal, t.total)), Some((25, 1025)));
        // Old kernels without the field: no steal.
        assert_eq!(parse_machine_ticks("cpu  1 2 3 4\n").map(|t| (t.steal, t.total)), Some((0, 10)));
        assert_eq!(parse_machine_ticks("intr 1\n"), None);
    }

    #[test]
    fn reads_the_backlog_a_listening_socket_got() {
        let text = "LISTEN 0      511    127.0.0.1:46141 0.0.0.0:*\nLISTEN 0      4096   127.0.0.1:3000 0.0.0.0:*\n\
                    LISTEN 0      128    127.0.0.1:3000 0.0.0.0:*\nLISTEN 3      9      [::1]:30000 [::]:*\n";
        assert_eq!(parse_listen_backlog(text, 3000), Some(128));
        assert_eq!(parse_listen_backlog(text, 46141), Some(511));
        assert_eq!(parse_listen_backlog(text, 4614), None);
        assert_eq!(parse_listen_backlog("", 3000), None);
        let owned = "LISTEN 0 5 127.0.0.1:8000 0.0.0.0:* users:((\"python3\",pid=4242,fd=3))\n";
        assert_eq!(parse_listen_owner(owned, 8000), Some(4242));
        assert_eq!(parse_listen_owner(owned, 800), None);
        assert_eq!(parse_listen_owner("LISTEN 0 5 127.0.0.1:8000 0.0.0.0:*\n", 8000), None, "not ours to see");
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
