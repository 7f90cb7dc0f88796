// The routes and their handlers. The Go server's routes.go and the Node server's routes.js do the same job.
//
// One mapping takes every path and method, and the routes are matched here on the raw target, because Spring's own
// matching disagrees with the contract: it takes `;x` in a segment as a matrix parameter (/users/1;x would be user
// 1), decodes percent-escapes into path variables (/users/%31 would be user 1), and answers methods it has no
// mapping for (OPTIONS, a 405 with its own body) before any controller runs. Every response is written by send(),
// which sets Content-Length itself and writes bytes, never through a message converter: the contract wants a length
// on every response and JSON escaped as JSON.stringify does it.
package dev.fairpair.users;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/** GET /users/{id}, POST /users, GET /health, GET /, and the 404s and 405s around them. */
@RestController
public class UsersController {
    public static final String JSON = "application/json";
    static final String TEXT = "text/plain; charset=utf-8";

    private final Store store;
    private final long bodyTimeoutMs;
    // The first 507 of a process says so on stderr, once and without --log: a POST load that fills the store goes on
    // getting answers, and a load tool that counts only connection errors would take those 507s for throughput.
    private final java.util.concurrent.atomic.AtomicBoolean saidStoreFull = new java.util.concurrent.atomic.AtomicBoolean();

    public UsersController(Store store, Config config) {
        this.store = store;
        this.bodyTimeoutMs = config.bodyTimeoutMs();
    }

    /** Every request: the raw path first, then the method; a known path with another method is 405 whatever its id. */
    @RequestMapping(path = "/**", method = {RequestMethod.GET, RequestMethod.HEAD, RequestMethod.POST,
            RequestMethod.PUT, RequestMethod.DELETE, RequestMethod.PATCH, RequestMethod.OPTIONS})
    public void route(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getDispatcherType() == DispatcherType.ERROR) {
            error(request, response);
            return;
        }
        String method = request.getMethod();
        String path = request.getRequestURI();
        if (path.equals("/users") && method.equals("POST")) {
            createUser(request, response);
            return;
        }
        // Every other route ignores a body. One that was sent is not read, so the connection closes after the
        // answer: reading on would take the body's bytes for the next request's head.
        if (Transport.hasBody(request)) {
            request.setAttribute(CLOSE, true);
        }
        boolean read = method.equals("GET") || method.equals("HEAD");
        String id = path.startsWith("/users/") ? path.substring("/users/".length()) : null;
        if (path.equals("/")) {
            allow(read, "GET, HEAD");
            send(request, response, 200, TEXT, "Hello, World!".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } else if (path.equals("/health")) {
            allow(read, "GET, HEAD");
            send(request, response, 200, JSON, Json.object("status", "ok"));
        } else if (path.equals("/users")) {
            throw new ApiError.ApiException(ApiError.METHOD_NOT_ALLOWED, "POST");
        } else if (id != null && !id.isEmpty() && id.indexOf('/') == -1) {
            allow(read, "GET, HEAD");
            getUser(request, response, id);
        } else {
            throw ApiError.NOT_FOUND.exception();
        }
    }

    /**
     * A method the mapping cannot name, answered as any other method on the same path: 405 with Allow, or 404.
     * TRACE comes here from the filter (Spring's FrameworkServlet, after the controller has answered a TRACE, calls
     * HttpServlet.doTrace too, which echoes the request into the response unless it is message/http), and a method
     * Spring has no enum value for (QUERY, FOO) from ApiErrors.
     */
    static void otherMethod(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getRequestURI();
        String id = path.startsWith("/users/") ? path.substring("/users/".length()) : null;
        String allow = path.equals("/users") ? "POST"
                : path.equals("/") || path.equals("/health") || (id != null && !id.isEmpty() && id.indexOf('/') == -1)
                        ? "GET, HEAD" : null;
        if (Transport.hasBody(request)) {
            request.setAttribute(CLOSE, true);
        }
        ApiError error = allow == null ? ApiError.NOT_FOUND : ApiError.METHOD_NOT_ALLOWED;
        if (allow != null) {
            response.setHeader("Allow", allow);
        }
        send(request, response, error.status, JSON, Json.object("error", error.message));
    }

    private static void allow(boolean read, String allow) {
        if (!read) {
            throw new ApiError.ApiException(ApiError.METHOD_NOT_ALLOWED, allow);
        }
    }

    /** GET /users/{id}: the id must be the canonical decimal of an existing user; anything else is not found. */
    private void getUser(HttpServletRequest request, HttpServletResponse response, String segment) throws IOException {
        long id = canonicalId(segment);
        Store.User user = id > 0 ? store.get(id) : null;
        if (user == null) {
            throw ApiError.NOT_FOUND.exception();
        }
        send(request, response, 200, JSON, Json.user(user));
    }

    /** ^[1-9][0-9]*$ as a number, or 0; one too large for a long is far above any id handed out, so not found. */
    static long canonicalId(String segment) {
        if (segment.isEmpty() || segment.length() > 18 || segment.charAt(0) < '1' || segment.charAt(0) > '9') {
            return 0;
        }
        for (int i = 1; i < segment.length(); i++) {
            if (segment.charAt(i) < '0' || segment.charAt(i) > '9') {
                return 0;
            }
        }
        return Long.parseLong(segment);
    }

    /** POST /users, its rules checked in the contract's order. */
    private void createUser(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // Rule 1. The body is not awaited: a client that sent the wrong type may never send it. One that was sent is
        // left unread, so the connection closes after the answer.
        if (!Validation.isJsonMediaType(request.getHeader("Content-Type"))) {
            request.setAttribute(CLOSE, Transport.hasBody(request));
            throw ApiError.UNSUPPORTED_TYPE.exception();
        }
        long headEnd = (Long) request.getAttribute(Transport.HEAD_END);
        Connections.Conn conn = (Connections.Conn) request.getAttribute(Connections.Conn.class.getName());
        Body.Result read = Body.read(request, conn, headEnd + TimeUnit.MILLISECONDS.toNanos(bodyTimeoutMs));
        if (conn != null && conn.answered) {
            return; // Connections answered at the deadline, on the socket.
        }
        if (read.readFailed() && conn != null) {
            // A malformed chunk: Tomcat has failed the read and writes nothing more on this connection, so the
            // answer (400, or 413 for a body already too large) goes straight on the socket, before Tomcat closes it.
            Connections.answerOnSocket(conn, read.outcome() == Body.Outcome.TOO_LARGE ? ApiError.PAYLOAD_TOO_LARGE
                    : ApiError.BAD_REQUEST);
            return;
        }
        if (read.outcome() != Body.Outcome.COMPLETE) {
            // A body not read as a request (even one drained to its end) closes the connection.
            request.setAttribute(CLOSE, true);
            throw switch (read.outcome()) {
                case TIMED_OUT -> ApiError.REQUEST_TIMEOUT.exception();
                case TOO_LARGE -> ApiError.PAYLOAD_TOO_LARGE.exception();
                default -> ApiError.BAD_REQUEST.exception();
            };
        }
        Validation.NewUser parsed = Validation.parseNewUser(read.body());
        Store.User user = store.create(parsed.name(), parsed.email());
        if (user == null) {
            if (saidStoreFull.compareAndSet(false, true)) {
                System.err.println("store full: answering 507 to POST /users until restart (--max-users "
                        + store.capacity() + ")");
            }
            throw ApiError.STORE_FULL.exception();
        }
        response.setHeader("Location", "/users/" + user.id());
        send(request, response, 201, JSON, Json.user(user));
    }

    /**
     * An answer Tomcat decided on while the body was being read: a read that timed out (408, or 413 for a body
     * already known to be too large) or a body it could not decode (400). Tomcat then dispatches to the error page
     * (Transport registers this controller's mapping for it) and closes the connection after the answer.
     */
    private static void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        ApiError error = ApiError.BAD_REQUEST;
        if (Boolean.TRUE.equals(request.getAttribute(Body.TOO_LARGE))) {
            error = ApiError.PAYLOAD_TOO_LARGE;
        } else if (Integer.valueOf(408).equals(status)) {
            error = ApiError.REQUEST_TIMEOUT;
        } else if (!Integer.valueOf(400).equals(status)) {
            error = ApiError.INTERNAL;
        }
        request.setAttribute(CLOSE, true);
        send(request, response, error.status, JSON, Json.object("error", error.message));
    }

    /** The request attribute that asks send() for Connection: close: the request's body was not read to its end. */
    static final String CLOSE = "fairpair.close";

    /** The one place a response with a body is written. HEAD gets the headers its GET would have, and no body. */
    static void send(HttpServletRequest request, HttpServletResponse response, int status, String contentType,
            byte[] body) throws IOException {
        response.setStatus(status);
        Transport.setContentType(request, response, contentType);
        response.setContentLength(body.length);
        boolean close = Boolean.TRUE.equals(request.getAttribute(CLOSE));
        if (close) {
            response.setHeader("Connection", "close");
        }
        if (!request.getMethod().equals("HEAD")) {
            response.getOutputStream().write(body);
        }
        if (close) {
            try {
                response.flushBuffer();
            } catch (IOException clientGone) {
                // The client closed its side before the answer went out (it sent its bytes and left, as a client
                // may): no one is left to answer, and Spring would log the failure as an error with a stack trace.
                return;
            }
            if (Transport.hasBody(request)) {
                Connections.endOutput((Connections.Conn) request.getAttribute(Connections.Conn.class.getName()));
            }
        }
    }
}
