//! `perf script`'s text folded into stacks (`frame;frame;…;leaf COUNT`) with `inferno`'s perf collapser, and the
//! folded stacks bounded in size before they go into the results folder.
//!
//! The counts are samples, not CPU time: `perf script` is run without its period field (`-F -period`), for
//! `inferno` adds up the period when it is there, and with `cpu-clock` the period is nanoseconds.

use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options};

/// The largest folded file kept in the results folder: the heaviest stacks up to this many bytes.
pub const FOLDED_BOUND_BYTES: usize = 256 * 1024;

/// Folds `perf script` output: kernel frames annotated `_[k]`, JIT frames `_[j]`, one root per process name (no
/// pid or tid, so that a cluster's workers add up).
pub fn fold(perf_script: &str) -> std::io::Result<String> {
    let mut options = Options::default();
    options.annotate_kernel = true;
    options.annotate_jit = true;
    options.include_pid = false;
    options.include_tid = false;
    // One thread: the folding takes well under a second, and the threaded collapser needs a feature of its own.
    options.nthreads = 1;
    let mut out = Vec::new();
    Folder::from(options).collapse(perf_script.as_bytes(), &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The count of one folded line, when it has one.
fn count(line: &str) -> Option<u64> {
    line.rsplit_once(' ').and_then(|(_, n)| n.trim().parse().ok())
}

/// The samples of a folded text.
pub fn total(folded: &str) -> u64 {
    folded.lines().filter_map(count).sum()
}

/// A folded text bounded to `bound` bytes: the heaviest stacks first until the next would pass it, then in their
/// sorted order again (as `inferno` wrote them). Returns the text and the samples of the stacks left out.
pub fn bounded(folded: &str, bound: usize) -> (String, u64) {
    let mut lines: Vec<(&str, u64)> = folded.lines().filter_map(|l| count(l).map(|n| (l, n))).collect();
    // Heaviest first; ties by the stack's text, so that the same profile always keeps the same stacks.
    lines.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let (mut kept, mut size, mut dropped) = (Vec::new(), 0, 0);
    for (line, n) in lines {
        // Each line takes its text and its newline.
        let taken = line.len() + 1;
        if size + taken <= bound {
            size += taken;
            kept.push(line);
        } else {
            dropped += n;
        }
    }
    kept.sort_unstable();
    let text: String = kept.iter().map(|l| format!("{l}\n")).collect();
    (text, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_keeps_the_heaviest_stacks_and_counts_the_rest() {
        let folded = "a;b 5\na;c 1\na;d 10\n";
        assert_eq!(bounded(folded, 1000), ("a;b 5\na;c 1\na;d 10\n".to_string(), 0));
        // Room for two lines of six bytes: the 10 and the 5 stay, the 1 is dropped.
        assert_eq!(bounded(folded, 13), ("a;b 5\na;d 10\n".to_string(), 1));
        assert_eq!(bounded(folded, 0), (String::new(), 16));
        assert_eq!(total(folded), 16);
    }

    #[test]
    fn perf_script_folds_to_sample_counts() {
        // Two samples of the same stack and one of another, as `perf script -F -period` prints them.
        let script = "\
users-server 1234/1234 [001] 100.000001: cpu-clock:
\tffffffff81000001 tcp_sendmsg ([kernel.kallsyms])
\t55d0c0000001 hyper::proto::h1::dispatch (/srv/users-server)
\t55d0c0000002 main (/srv/users-server)

users-server 1234/1234 [001] 100.001002: cpu-clock:
\tffffffff81000001 tcp_sendmsg ([kernel.kallsyms])
\t55d0c0000001 hyper::proto::h1::dispatch (/srv/users-server)
\t55d0c0000002 main (/srv/users-server)

users-server 1234/1234 [001] 100.002003: cpu-clock:
\t55d0c0000003 serde_json::ser::to_vec (/srv/users-server)
\t55d0c0000002 main (/srv/users-server)

";
        let folded = fold(script).unwrap();
        assert_eq!(total(&folded), 3, "{folded}");
        assert!(folded.contains("users-server;main;hyper::proto::h1::dispatch;tcp_sendmsg_[k] 2"), "{folded}");
    }
}
