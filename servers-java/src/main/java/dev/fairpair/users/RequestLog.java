// The --log line, one per request, in the format every fairpair server writes (CONTRACT.md, "Running a server"):
// "2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms". The Go server's request_log.go does the same job.
package dev.fairpair.users;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Writes the --log line. */
public final class RequestLog {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final PrintStream out;

    public RequestLog(PrintStream out) {
        this.out = out;
    }

    /** The line: the UTC time, the method, the target as sent, the status, the handler's latency in ms. */
    public static String line(Instant at, String method, String target, int status, long latencyNanos) {
        return String.format(Locale.ROOT, "%s %s %s %d %.3fms", TIME.format(at), method, target, status,
                latencyNanos / 1e6);
    }

    public void log(String method, String target, int status, long startNanos) {
        long latency = System.nanoTime() - startNanos;
        out.println(line(Instant.now(), method, target, status, latency));
    }
}
