// Each connection's socket, as the Go server's lingeringConn and http.Server deadlines reach it: the contract's head
// time limit, the body's, and ending a connection's sending side at once. Tomcat offers none of them: its
// connectionTimeout bounds each read, not a whole head, so a client sending one byte a second holds a connection for
// good; a servlet read that times out (or fails in any way) makes Tomcat close the connection at once, without the
// 408 the contract wants, and nothing else ends a blocked read; and after an
// answer that closes the connection Tomcat first reads and discards the rest of an unread body (maxSwallowSize)
// before the client sees the end. So the protocol below is Tomcat's own NIO protocol with one addition, a look at
// each socket as it is accepted, and this registry keeps a deadline per connection that a scheduler thread enforces.
package dev.fairpair.users;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.net.NioEndpoint;

/** The open connections by remote address, each with its current deadline. */
public final class Connections {
    private Connections() {
    }

    /** One connection: its socket, and what its deadline is for now. */
    static final class Conn {
        final SocketChannel socket;
        /** Bumped at each new deadline; a scheduled check acts only when its generation is still current. */
        long generation;
        /** True while a request's head is in and its answer not yet sent: the head limit does not apply then. */
        boolean inRequest;
        /** True once bodyDeadline has answered on the socket: nothing more may be written there. */
        volatile boolean answered;

        Conn(SocketChannel socket) {
            this.socket = socket;
        }
    }

    private static final Map<String, Conn> OPEN = new ConcurrentHashMap<>();
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "connection-deadlines");
        thread.setDaemon(true);
        return thread;
    });

    /** The head time limit in milliseconds; UsersServer sets it from the flags before Tomcat starts. */
    static volatile long headerTimeoutMs = Config.TEN_SECONDS_MS;

    /**
     * Tomcat's Http11NioProtocol with an endpoint that hands every accepted socket to the registry; the
     * connector is made with this class's name (Transport), so it needs a public constructor without arguments.
     */
    public static final class Protocol extends Http11NioProtocol {
        public Protocol() {
            super(new NioEndpoint() {
                @Override
                protected boolean setSocketOptions(SocketChannel socket) {
                    accepted(socket);
                    return super.setSocketOptions(socket);
                }
            });
            protocol = this;
        }
    }

    private static String key(java.net.SocketAddress remote) {
        return remote == null ? "" : remote.toString();
    }

    /** A new connection: its head must be complete within the head limit of now. */
    static Conn accepted(SocketChannel socket) {
        try {
            Conn conn = new Conn(socket);
            OPEN.put(key(socket.getRemoteAddress()), conn);
            headDeadline(conn);
            return conn;
        } catch (IOException gone) {
            return null; // The client has gone already; Tomcat finds out by itself.
        }
    }

    /** The connection a request came on, or null (MockMvc, or a connection the registry never saw). */
    static Conn of(String remoteAddr, int remotePort) {
        String host = remoteAddr.contains(":") ? "[" + remoteAddr + "]" : remoteAddr;
        Conn conn = OPEN.get("/" + host + ":" + remotePort);
        if (conn == null && remoteAddr.contains(":")) {
            conn = OPEN.get("/" + remoteAddr + ":" + remotePort);
        }
        return conn;
    }

    /** The connector's protocol, once Tomcat has made it: drain closes its listener. */
    private static volatile Protocol protocol;

    /** True once shutdown has begun: every answer from then on closes its connection (Transport.Entry). */
    static volatile boolean draining;

    /**
     * Shutdown has begun. Spring's graceful shutdown pauses the connector, closes the listener and waits for the
     * requests in progress, but leaves keep-alive connections open; a request whose request line Tomcat is reading
     * as the connector pauses gets 503, which Tomcat then turns into a 400 because the head it stopped reading has
     * no Host (its debug log says "The HTTP/1.1 request did not provide a host header"): an answer the client never
     * asked for, where it should see the end of the connection. So from now on each answer closes its connection, and a connection
     * between two requests is ended here: its next request, if already sent, is never answered, which a client must
     * expect of a keep-alive connection at any time (RFC 9112 section 9.3).
     */
    static void drain() {
        // The listener is closed first (Spring's graceful shutdown closes it again, harmlessly): a client whose
        // connection is ended here must find its reconnect refused, not accepted into the drain.
        if (protocol != null) {
            protocol.closeServerSocketGraceful();
        }
        draining = true;
        for (Conn conn : OPEN.values()) {
            synchronized (conn) {
                if (!conn.inRequest) {
                    shutdown(conn, false);
                }
            }
        }
    }

    /** A request's head is in: the head limit stops counting until its answer is sent. */
    static void requestStarted(Conn conn) {
        if (conn != null) {
            synchronized (conn) {
                conn.inRequest = true;
                conn.generation++;
            }
        }
    }

    /** An answer was sent: the next head must be complete within the head limit of now (keep-alive). */
    static void requestEnded(Conn conn) {
        if (conn != null) {
            synchronized (conn) {
                conn.inRequest = false;
            }
            headDeadline(conn);
        }
    }

    private static void headDeadline(Conn conn) {
        long generation;
        synchronized (conn) {
            generation = ++conn.generation;
        }
        TIMER.schedule(() -> {
            synchronized (conn) {
                if (!conn.socket.isOpen()) {
                    forget(conn);
                } else if (conn.generation == generation && !conn.inRequest) {
                    // No complete head in time. Ending the input lets Tomcat read the end of the stream and close
                    // the connection itself, which a plain close under its poller would not.
                    shutdown(conn, true);
                }
            }
        }, headerTimeoutMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Answers a request whose body is not complete at its deadline, and ends the connection: 408, or 413 for a body
     * already known to be too large. The answer is written here, on the socket, because the thread handling the
     * request is blocked in a read that only the end of the connection can end, and Tomcat writes nothing after a
     * failed read; it is the answer UsersController.send would give. Returns a handle to cancel once the body is in.
     */
    static ScheduledFuture<?> bodyDeadline(Conn conn, jakarta.servlet.http.HttpServletRequest request, long delayMs) {
        return TIMER.schedule(() -> answerOnSocket(conn, Boolean.TRUE.equals(request.getAttribute(Body.TOO_LARGE))
                ? ApiError.PAYLOAD_TOO_LARGE : ApiError.REQUEST_TIMEOUT), delayMs, TimeUnit.MILLISECONDS);
    }

    private static final java.time.format.DateTimeFormatter HTTP_DATE = java.time.format.DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.ENGLISH).withZone(java.time.ZoneOffset.UTC);

    /**
     * Writes an error answer straight on the socket, as UsersController.send would write it, and ends the
     * connection: for a request whose body read has failed or must be cut short, after which Tomcat writes nothing.
     */
    static void answerOnSocket(Conn conn, ApiError error) {
        byte[] body = Json.object("error", error.message);
        String head = "HTTP/1.1 " + error.status + " \r\nConnection: close\r\nContent-Type: " + UsersController.JSON
                + "\r\nContent-Length: " + body.length + "\r\nDate: " + HTTP_DATE.format(java.time.Instant.now())
                + "\r\n\r\n";
        ByteBuffer answer = ByteBuffer.allocate(head.length() + body.length);
        answer.put(head.getBytes(StandardCharsets.ISO_8859_1)).put(body).flip();
        synchronized (conn) {
            if (conn.answered) {
                return;
            }
            conn.answered = true;
            try {
                // The socket is Tomcat's, non-blocking: a short answer fits its send buffer at once.
                for (int tries = 0; answer.hasRemaining() && tries < 100; tries++) {
                    conn.socket.write(answer);
                }
            } catch (IOException gone) {
                // The client has gone (or Tomcat has closed the socket): nobody reads the answer.
            }
            shutdown(conn, false);
        }
    }

    /**
     * Ends the sending side at once, after an answer that closes the connection while the request's body may still
     * be on its way: the client sees the end now, while Tomcat still reads and discards what arrives, so that
     * closing the socket does not reset the connection and destroy the answer (Go's endNow, hyper and Node alike).
     */
    static void endOutput(Conn conn) {
        if (conn != null) {
            try {
                conn.socket.shutdownOutput();
            } catch (IOException gone) {
                // The client has gone already.
            }
        }
    }

    private static void shutdown(Conn conn, boolean forgetIt) {
        try {
            conn.socket.shutdownOutput();
            conn.socket.shutdownInput();
        } catch (IOException gone) {
            // Already closed.
        }
        if (forgetIt) {
            forget(conn);
        }
    }

    private static void forget(Conn conn) {
        try {
            OPEN.remove(key(conn.socket.getRemoteAddress()), conn);
        } catch (IOException closed) {
            OPEN.values().remove(conn);
        }
    }
}
