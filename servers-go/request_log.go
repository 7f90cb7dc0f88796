// The --log line, one per request, in the format every fairpair server writes (CONTRACT.md, "Running a server"):
// "2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms". The Rust server's request_log.rs and the Node server's
// request_log.js do the same job.

package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// logWriter is where the request log goes: nowhere without --log, else opts.logTo or stderr.
func logWriter(opts options) io.Writer {
	switch {
	case !opts.log:
		return nil
	case opts.logTo != nil:
		return opts.logTo
	default:
		return os.Stderr
	}
}

// logRequest writes one line per request (--log).
func logRequest(w io.Writer, x *exchange, start time.Time) {
	now := time.Now()
	fmt.Fprintln(w, logLine(now, x.r.Method, x.r.RequestURI, x.status, now.Sub(start)))
}

// logLine is the --log line every fairpair server writes (CONTRACT.md, "Running a server"):
// "2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms" — the UTC time, the method, the target as sent, the
// status, and the handler's latency in milliseconds with three decimals.
func logLine(at time.Time, method, target string, status int, latency time.Duration) string {
	ms := float64(latency.Nanoseconds()) / 1e6
	return fmt.Sprintf("%s %s %s %d %.3fms", at.UTC().Format("2006-01-02T15:04:05.000Z"), method, target, status, ms)
}
