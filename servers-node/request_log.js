// The `--log` line, one per request, in the format every fairpair server writes (CONTRACT.md, "Running a server"):
// `2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms`. The Rust server's request_log.rs and the Go server's
// request_log.go do the same job.

/** Writes the request's line to stderr once its response is out. */
export function logWhenFinished(req, res) {
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    process.stderr.write(`${logLine(new Date(), req.method, req.url, res.statusCode, ms)}\n`);
  });
}

/**
 * The line itself: the UTC time, the method, the target as sent, the status, and the handler's latency in
 * milliseconds with three decimals.
 * @param {Date} at @param {string} method @param {string} target @param {number} status @param {number} ms
 */
export function logLine(at, method, target, status, ms) {
  return `${at.toISOString()} ${method} ${target} ${status} ${ms.toFixed(3)}ms`;
}
