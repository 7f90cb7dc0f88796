// Node's event-loop delay during a profiled run, second by second: the profiled Node server is started with
// `node --import THIS_FILE server.js …` and FAIRPAIR_LOOP_DELAY_OUT set to a path; each process (a cluster's
// primary and each of its workers alike, since every one of them imports this module) appends to PATH.PID one line
// a second:
//
//   SECONDS P50_MS P99_MS MAX_MS
//
// SECONDS is the time since the process started (performance.now(), as Node's --trace-gc times its lines), and the
// three figures are the delay of that second alone: the histogram is reset after each line. `pauses.rs` reads them.
// The histogram records the time between two of its timer's turns, its 10 ms interval included (an idle loop reads
// about 10.1 ms, Node 20 and 26 alike): the figures written are the delay past that interval, so an idle loop's are
// near 0.
//
// It must change nothing else: it prints nothing (the harness reads the server's stdout for its listening line), and
// its timer is unref'd, so that it never keeps a process alive that would otherwise exit.

import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import process from 'node:process';

const out = process.env.FAIRPAIR_LOOP_DELAY_OUT;

if (out) {
  const path = `${out}.${process.pid}`;
  // A 10 ms sampling interval: a finer one would add timer wake-ups of its own to the loop it measures.
  const resolutionMs = 10;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const ms = (ns) => Math.max(0, ns / 1e6 - resolutionMs).toFixed(3);
  const timer = setInterval(() => {
    const seconds = (performance.now() / 1000).toFixed(3);
    // A second without a sample (the loop was blocked throughout) has no percentiles: its max is still told by the
    // next second's, which the blocked loop delays.
    if (histogram.count > 0) {
      const line = `${seconds} ${ms(histogram.percentile(50))} ${ms(histogram.percentile(99))} ${ms(histogram.max)}\n`;
      try {
        appendFileSync(path, line);
      } catch {
        // A file that cannot be written loses the figures, not the server.
      }
    }
    histogram.reset();
  }, 1000);
  timer.unref();
}
