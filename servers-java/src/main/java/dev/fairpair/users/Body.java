// Reading a request body within the contract's limits, which the servlet API does not enforce by itself: it streams
// any body, of any size, for as long as the client cares to send it. The Go server's body.go does the same job.
package dev.fairpair.users;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ScheduledFuture;


import jakarta.servlet.http.HttpServletRequest;

/** A POST /users body, read within 64 KiB and the body's time limit. */
public final class Body {
    private Body() {
    }

    /** The largest body POST /users accepts (rule 2). */
    public static final int LIMIT = 65_536;
    /**
     * How much of an oversized body is read and thrown away before the 413 goes out: answering and closing while
     * the client still sends would make its kernel see a reset and usually drop the 413 unread.
     */
    public static final int DRAIN_LIMIT = 1_048_576;
    /** The one buffer a body is read through: small and fixed, so that draining costs no more than idling. */
    private static final int BUFFER_SIZE = 16 * 1024;

    /** How reading a body ended. */
    public enum Outcome { COMPLETE, TOO_LARGE, TIMED_OUT, BROKEN, BAD_TRAILER }

    /**
     * What read found: the outcome, the body when complete, and whether Tomcat failed the read (a malformed chunk, a
     * client gone), after which it writes nothing more on the connection.
     */
    public record Result(Outcome outcome, byte[] body, boolean readFailed) {
        Result(Outcome outcome, byte[] body) {
            this(outcome, body, false);
        }
    }

    /** The request attribute saying the body was known to be too large, for the answer at the deadline. */
    public static final String TOO_LARGE = "fairpair.tooLarge";

    /**
     * Reads the body of request, giving up at deadlineNanos (System.nanoTime). conn, when known, is the request's
     * connection: at the deadline Connections answers the request itself (408, or 413 for a body already known to
     * be too large) and ends the connection, which also ends a read blocked on a client that stopped sending.
     */
    public static Result read(HttpServletRequest request, Connections.Conn conn, long deadlineNanos) {
        long delayMs = Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
        ScheduledFuture<?> deadline = conn == null ? null : Connections.bodyDeadline(conn, request, delayMs);
        try {
            return readWithin(request, deadlineNanos);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
        }
    }

    private static Result readWithin(HttpServletRequest request, long deadlineNanos) {
        long declared = request.getContentLengthLong();
        byte[] buffer = new byte[BUFFER_SIZE];
        // A declared length is known before the first byte: a body announced as too large is never buffered at all.
        ByteArrayOutputStream body = declared > LIMIT ? null
                : new ByteArrayOutputStream(declared >= 0 ? (int) declared : 512);
        if (body == null) {
            request.setAttribute(TOO_LARGE, true);
        }
        long received = 0;
        try {
            InputStream in = request.getInputStream();
            while (true) {
                int n = in.read(buffer);
                if (System.nanoTime() - deadlineNanos >= 0) {
                    return new Result(body == null ? Outcome.TOO_LARGE : Outcome.TIMED_OUT, null);
                }
                if (n == -1) {
                    break;
                }
                received += n;
                if (body != null && received > LIMIT) {
                    body = null;
                    request.setAttribute(TOO_LARGE, true);
                }
                if (body != null) {
                    body.write(buffer, 0, n);
                } else if (received > LIMIT + DRAIN_LIMIT) {
                    return new Result(Outcome.TOO_LARGE, null);
                }
            }
        } catch (IOException broken) {
            // A malformed chunk, a client gone away, or the deadline. The verdict on a body already known to be too large is 413
            // whatever happens next (rule 2).
            return new Result(body == null ? Outcome.TOO_LARGE : Outcome.BROKEN, null, true);
        }
        if (body == null) {
            return new Result(Outcome.TOO_LARGE, null);
        }
        if (declared >= 0 && received < declared) {
            return new Result(Outcome.BROKEN, null);
        }
        if (hasFramingTrailer(request)) {
            return new Result(Outcome.BAD_TRAILER, null);
        }
        return new Result(Outcome.COMPLETE, body.toByteArray());
    }

    /**
     * Whether a chunked body's trailer holds Content-Length, Transfer-Encoding or Host: fields a recipient must not
     * take from a trailer (RFC 9110 section 6.5.1). Tomcat keeps only the trailer fields it is told to allow, so
     * Transport allows these three, for this check alone.
     */
    static boolean hasFramingTrailer(HttpServletRequest request) {
        if (!request.isTrailerFieldsReady()) {
            return false;
        }
        for (String name : request.getTrailerFields().keySet()) {
            if (name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("transfer-encoding")
                    || name.equalsIgnoreCase("host")) {
                return true;
            }
        }
        return false;
    }
}
