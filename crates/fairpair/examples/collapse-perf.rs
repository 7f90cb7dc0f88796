//! Folds `perf script` output (stdin) into one line per distinct stack (stdout), the way the profiled runs do:
//! `inferno`'s perf collapser with kernel frames marked `_[k]` and JIT frames `_[j]`, the process or thread name
//! (comm) as the first frame and neither pid nor tid, so that the same stack in two threads of one pool is one line.
//!
//! The counts are samples only when `perf script` is run without its period field (for example
//! `perf script -F comm,pid,tid,time,event,ip,sym,dso`): with it, `inferno` adds each sample's period instead (for
//! `cpu-clock`, about a million nanoseconds a sample).
//!
//! `perf script -i perf.data -F comm,pid,tid,time,event,ip,sym,dso | cargo run --example collapse-perf > x.folded`

use std::io::{self, BufWriter};

use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options};

fn main() -> io::Result<()> {
    let mut options = Options::default();
    options.annotate_kernel = true;
    options.annotate_jit = true;
    options.include_pid = false;
    options.include_tid = false;
    let stdin = io::stdin().lock();
    let stdout = BufWriter::new(io::stdout().lock());
    Folder::from(options).collapse(stdin, stdout)
}
