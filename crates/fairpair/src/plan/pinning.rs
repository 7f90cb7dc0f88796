//! Pinning: which CPUs the servers and the load generator run on, apart, on one machine or on two.

use anyhow::Result;

use crate::machine::procstat;
use crate::plan::args::RunArgs;
use crate::usage;

/// Where the servers and the load generator run.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Pinning {
    pub server_cpus: Vec<usize>,
    pub loader_cpus: Vec<usize>,
    pub pinned: bool,
    pub loader_threads: u32,
}

/// Pinning: disjoint CPU sets for servers and load generator.
pub(super) fn pinning(args: &RunArgs, allowed: &[usize], skipped: &mut Vec<String>) -> Result<Pinning> {
    let cpu_list = |flag: &str, text: &str| -> Result<Vec<usize>> {
        let cpus = procstat::parse_cpu_list(text).map_err(|e| usage(format!("{flag}: {e}")))?;
        if let Some(c) = cpus.iter().find(|c| !allowed.contains(c)) {
            return Err(usage(format!(
                "{flag}: CPU {c} is not available (allowed: {})",
                procstat::format_cpu_list(allowed)
            )));
        }
        Ok(cpus)
    };
    let half = (allowed.len() / 2).max(1);
    let (server_cpus, loader_cpus, pinned) = if args.no_pin {
        if args.server_cpus.is_some() || args.loader_cpus.is_some() {
            return Err(usage("--no-pin cannot be combined with --server-cpus/--loader-cpus"));
        }
        (allowed.to_vec(), allowed.to_vec(), false)
    } else {
        let server = match &args.server_cpus {
            Some(t) => cpu_list("--server-cpus", t)?,
            None => allowed[..half].to_vec(),
        };
        let loader = match &args.loader_cpus {
            Some(t) => cpu_list("--loader-cpus", t)?,
            None => allowed.iter().copied().filter(|c| !server.contains(c)).collect(),
        };
        if loader.is_empty() {
            skipped.push(format!(
                "pinning: only {} CPU available, so server and load generator share it (figures are a lower bound)",
                allowed.len()
            ));
            (server.clone(), server, false)
        } else {
            if server.iter().any(|c| loader.contains(c)) {
                return Err(usage("--server-cpus and --loader-cpus overlap"));
            }
            (server, loader, true)
        }
    };
    let loader_threads = if pinned { loader_cpus.len() as u32 } else { (allowed.len() as u32 / 2).max(1) };
    Ok(Pinning { server_cpus, loader_cpus, pinned, loader_threads })
}

/// Pinning on two hosts: each side on its own host's CPUs, all of them unless --server-cpus (CPUs of the server
/// host) or --loader-cpus (of this one) say otherwise. The two sets may have the same numbers: they are different
/// machines, and the loader has this one to itself, pinned or not.
pub(super) fn two_host_pinning(args: &RunArgs, local: &[usize], remote: &[usize]) -> Result<Pinning> {
    let within = |flag: &str, text: &Option<String>, allowed: &[usize], host: &str| -> Result<Vec<usize>> {
        let Some(text) = text else { return Ok(allowed.to_vec()) };
        let cpus = procstat::parse_cpu_list(text).map_err(|e| usage(format!("{flag}: {e}")))?;
        match cpus.iter().find(|c| !allowed.contains(c)) {
            Some(c) => Err(usage(format!(
                "{flag}: CPU {c} is not available on {host} (allowed: {})",
                procstat::format_cpu_list(allowed)
            ))),
            None => Ok(cpus),
        }
    };
    if args.no_pin && (args.server_cpus.is_some() || args.loader_cpus.is_some()) {
        return Err(usage("--no-pin cannot be combined with --server-cpus/--loader-cpus"));
    }
    let server_cpus = within("--server-cpus", &args.server_cpus, remote, "the server host")?;
    let loader_cpus = within("--loader-cpus", &args.loader_cpus, local, "this machine")?;
    Ok(Pinning { loader_threads: loader_cpus.len() as u32, server_cpus, loader_cpus, pinned: !args.no_pin })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: RunArgs,
    }

    #[test]
    fn on_two_hosts_each_side_pins_to_its_own_hosts_cpus() {
        use clap::Parser;
        let args = |words: &[&str]| Wrapper::try_parse_from([&["fairpair"], words].concat()).unwrap().args;
        let (local, remote) = ([0, 1], [0, 1, 2, 3]);
        let sets = |p: Pinning| (p.server_cpus, p.loader_cpus, p.pinned);
        // By default each side has all of its host.
        assert_eq!(sets(two_host_pinning(&args(&[]), &local, &remote).unwrap()), (vec![0, 1, 2, 3], vec![0, 1], true));
        // The same CPU numbers on both sides are no overlap: they are different machines.
        let both_zero = args(&["--server-cpus", "0", "--loader-cpus", "0"]);
        assert_eq!(sets(two_host_pinning(&both_zero, &local, &remote).unwrap()), (vec![0], vec![0], true));
        // Each list is checked against its own host.
        assert_eq!(two_host_pinning(&args(&["--server-cpus", "3"]), &local, &remote).unwrap().server_cpus, [3]);
        let e = two_host_pinning(&args(&["--loader-cpus", "3"]), &local, &remote).err().unwrap().to_string();
        assert!(e.contains("CPU 3 is not available on this machine"), "{e}");
        let e = two_host_pinning(&args(&["--server-cpus", "4"]), &local, &remote).err().unwrap().to_string();
        assert!(e.contains("CPU 4 is not available on the server host"), "{e}");
        assert!(!two_host_pinning(&args(&["--no-pin"]), &local, &remote).unwrap().pinned);
    }

    #[test]
    fn one_host_splits_its_cpus_in_half() {
        use clap::Parser;
        let args = |words: &[&str]| Wrapper::try_parse_from([&["fairpair"], words].concat()).unwrap().args;
        let mut skipped = Vec::new();
        let p = pinning(&args(&[]), &[0, 1, 2, 3], &mut skipped).unwrap();
        assert_eq!((p.server_cpus, p.loader_cpus, p.pinned, p.loader_threads), (vec![0, 1], vec![2, 3], true, 2));
        // One CPU: shared, unpinned, and said so.
        let p = pinning(&args(&[]), &[5], &mut skipped).unwrap();
        assert!(!p.pinned && p.server_cpus == [5] && skipped.iter().any(|s| s.starts_with("pinning: only 1 CPU")));
        let e = pinning(&args(&["--server-cpus", "0", "--loader-cpus", "0"]), &[0, 1], &mut skipped).unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
        let e = pinning(&args(&["--server-cpus", "3"]), &[0, 1], &mut skipped).unwrap_err();
        assert!(e.to_string().contains("CPU 3 is not available (allowed: 0-1)"), "{e}");
    }
}
