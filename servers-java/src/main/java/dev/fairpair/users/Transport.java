// The embedded Tomcat with the contract's limits, and the filter in front of the controller: the head checks Tomcat
// leaves to the application, the connection's head deadline, the --log line and the 500 for a failure that escapes
// everything else; and the graceful close on SIGTERM. The Go server's transport.go does the same job. Tomcat accepts
// the connections, on the address, port and listen backlog that UsersServer hands Spring.
//
// What Tomcat does by itself, before any filter runs (so this file cannot change it; CONTRACT.md's tolerated cases
// allow each): a malformed request line or header, an HTTP/1.1 request without Host, two Host fields, a bad
// Content-Length get 400 with an empty body, an unknown transfer coding gets 501, an Expect other than
// 100-continue gets 417, and the connection is closed after each.
package dev.fairpair.users;

import java.io.IOException;
import java.util.Collections;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.tomcat.util.buf.EncodedSolidusHandling;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/** Tomcat's settings and the request filter. */
public final class Transport {
    private Transport() {
    }

    /** The largest request head, in bytes (request line and header fields), as Tomcat counts it. */
    public static final int MAX_HEAD_BYTES = 16 * 1024;
    /** The most header fields a request may have. */
    public static final int MAX_HEADER_FIELDS = 100;

    /**
     * Closes the server the way SIGTERM asks, as the Node and Go servers' closeGracefully do: stop accepting at once,
     * end the keep-alive connections between requests (Connections.drain), let requests in progress finish (Spring's
     * graceful shutdown, when the context closes) and give up at timeoutMs. Returns once the context has closed.
     *
     * Where the others close the connections still open at the limit, this one ends the process: the graceful phase
     * gives up at the limit, but stopping Tomcat afterwards still waits for its request threads, and one blocked in a
     * body read waits for its client. So shortly after the limit the process exits 0 whatever is still running, and
     * the kernel closes what is left.
     */
    static void closeGracefully(ConfigurableApplicationContext context, long timeoutMs) {
        Thread limit = new Thread(() -> {
            try {
                Thread.sleep(timeoutMs + 500);
            } catch (InterruptedException stop) {
                return;
            }
            Runtime.getRuntime().halt(0);
        }, "shutdown-limit");
        limit.setDaemon(true);
        limit.start();
        Connections.drain();
        context.close();
    }

    /** Tomcat's connector, set up with the contract's limits. */
    @Component
    public static class Tomcat implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
        private final Config config;

        public Tomcat(Config config) {
            this.config = config;
        }

        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            // Tomcat's own NIO protocol, with a look at each accepted socket (Connections explains why).
            factory.setProtocol(Connections.Protocol.class.getName());
            factory.addContextValves(new CoyoteResponseValve());
            // A target Tomcat cannot decode (a malformed percent-escape, `*` with a method other than OPTIONS) gets its
            // 400 before any filter runs, and the host's error report valve writes an HTML page for it. The API has
            // no HTML: the host gets a report valve that leaves the body empty (the contract allows an empty 400).
            factory.addContextCustomizers(context -> {
                if (context.getParent() instanceof org.apache.catalina.core.StandardHost host) {
                    host.setErrorReportValveClass(EmptyErrorReport.class.getName());
                }
            });
            // Tomcat's own refusals during a body read (a read timeout, a broken chunk) go to the controller, which
            // answers them in the contract's shape; Spring Boot's error controller is switched off.
            factory.addErrorPages(new org.springframework.boot.web.error.ErrorPage("/error"));
            factory.addConnectorCustomizers(connector -> {
                // Tomcat's default closes a connection after its 100th request; the contract keeps it alive.
                connector.setProperty("maxKeepAliveRequests", "-1");
                // Tomcat answers TRACE itself with 405 and its own Allow list unless allowed; the filter answers it.
                connector.setAllowTrace(true);
                // Tomcat decodes the path's escapes and then reads the bytes as UTF-8, refusing with 400 before any
                // filter a path whose escapes are no UTF-8 (/users/%80). The routes match the raw target, never the
                // decoded one, so the decoding is made one that cannot fail: every byte is a character in ISO-8859-1.
                connector.setURIEncoding("ISO-8859-1");
                // Tomcat refuses an escaped slash or backslash in the path (/users%2F1, /%5C) with 400 before any
                // filter, to keep a decoded path from naming another resource; the routes match the raw target, in
                // which an escape is three characters like any others, so they are passed through.
                connector.setEncodedSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
                connector.setEncodedReverseSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
                if (connector.getProtocolHandler() instanceof AbstractHttp11Protocol<?> http) {
                    http.setMaxHttpRequestHeaderSize(MAX_HEAD_BYTES);
                    // Tomcat refuses more than 100 fields with a 400; the contract wants 431, so the filter counts
                    // them instead (the head's 16 KiB bound the count anyway).
                    http.setMaxHeaderCount(-1);
                    // Each read of a head, and an idle keep-alive connection, waits at most the head limit; the
                    // limit on a whole head is Connections' deadline.
                    http.setConnectionTimeout((int) config.headerTimeoutMs());
                    http.setKeepAliveTimeout((int) config.headerTimeoutMs());
                    // A body read waits for the body's limit (Connections ends it there), not for the head's.
                    http.setDisableUploadTimeout(false);
                    http.setConnectionUploadTimeout((int) (config.bodyTimeoutMs() + 1000));
                    // Tomcat drops trailer fields it is not told to allow; these three must be seen to be refused.
                    http.setAllowedTrailerHeaders("content-length,transfer-encoding,host");
                    // What Tomcat reads and discards of a body nobody read, before it closes: the drain's megabyte.
                    http.setMaxSwallowSize(Body.DRAIN_LIMIT);
                }
            });
        }
    }

    /** The filter in front of every request. */
    @Component
    @Order(Ordered.HIGHEST_PRECEDENCE)
    public static class Entry implements Filter {
        private final RequestLog log;

        public Entry(Config config) {
            this.log = config.log() ? new RequestLog(System.err) : null;
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest request = (HttpServletRequest) req;
            HttpServletResponse response = (HttpServletResponse) res;
            long start = System.nanoTime();
            Connections.Conn conn = Connections.of(request.getRemoteAddr(), request.getRemotePort());
            Connections.requestStarted(conn);
            request.setAttribute(Connections.Conn.class.getName(), conn);
            request.setAttribute(HEAD_END, start);
            try {
                if (!checkHead(request, response)) {
                    return;
                }
                if (request.getMethod().equals("TRACE")) {
                    UsersController.otherMethod(request, response);
                } else {
                    chain.doFilter(request, response);
                }
            } catch (Exception failed) {
                internalError(response, failed);
            } finally {
                // During shutdown every answer closes its connection (Connections.drain): the header is added here,
                // after the handler, so that it holds for an answer whose request began before the drain too.
                if (Connections.draining && !response.isCommitted()) {
                    response.setHeader("Connection", "close");
                }
                Connections.requestEnded(conn);
                if (log != null) {
                    log.log(request.getMethod(), target(request), response.getStatus(), start);
                }
            }
        }

        /** A failure that escaped the controller and its advice: 500 if nothing was sent yet, else the end. */
        private static void internalError(HttpServletResponse response, Exception failed) throws IOException {
            failed.printStackTrace();
            if (!response.isCommitted()) {
                response.reset();
                byte[] body = Json.object("error", ApiError.INTERNAL.message);
                response.setStatus(500);
                response.setContentType(UsersController.JSON); // No charset: Tomcat leaves it as it is.
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
            }
        }
    }

    /**
     * The host's error report for the refusals Tomcat makes before any filter runs: the status alone, with an empty
     * body, where Tomcat's ErrorReportValve writes an HTML page (even with showReport off). Answers the application
     * wrote are left as they are, as the stock valve leaves them.
     */
    public static final class EmptyErrorReport extends org.apache.catalina.valves.ErrorReportValve {
        @Override
        protected void report(org.apache.catalina.connector.Request request,
                org.apache.catalina.connector.Response response, Throwable throwable) {
            if (response.getStatus() >= 400 && response.getContentWritten() == 0 && response.setErrorReported()) {
                response.setContentLength(0);
            }
        }
    }

    /** The request attribute under which CoyoteResponseValve leaves Tomcat's own response. */
    static final String COYOTE_RESPONSE = "fairpair.coyoteResponse";

    /**
     * Hands Tomcat's own response to setContentType. Tomcat takes a charset parameter out of every Content-Type it
     * is given and writes it back as ";charset=utf-8", without the space the contract's `text/plain; charset=utf-8`
     * has; only its own response can take a type as it is (setContentTypeNoCharset), and a valve is where Tomcat
     * hands that out.
     */
    static final class CoyoteResponseValve extends org.apache.catalina.valves.ValveBase {
        CoyoteResponseValve() {
            super(true);
        }

        @Override
        public void invoke(org.apache.catalina.connector.Request request, org.apache.catalina.connector.Response response)
                throws IOException, ServletException {
            request.setAttribute(COYOTE_RESPONSE, response.getCoyoteResponse());
            getNext().invoke(request, response);
        }
    }

    /** Sets a Content-Type exactly as given (see CoyoteResponseValve); under MockMvc, the plain way. */
    static void setContentType(HttpServletRequest request, HttpServletResponse response, String type) {
        if (request.getAttribute(COYOTE_RESPONSE) instanceof org.apache.coyote.Response coyote) {
            coyote.setContentTypeNoCharset(type);
        } else {
            response.setContentType(type);
        }
    }

    /** The request attribute holding the System.nanoTime at which the head was in: the body's limit counts from it. */
    public static final String HEAD_END = "fairpair.headEnd";

    /**
     * Whether a request comes with a body: a Content-Length above 0, or chunked. (The servlet API says -1 both for
     * a chunked body and for none.)
     */
    static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }

    /** The request target as sent, query included, for the log. */
    static String target(HttpServletRequest request) {
        String query = request.getQueryString();
        return query == null ? request.getRequestURI() : request.getRequestURI() + "?" + query;
    }

    /** The head checks Tomcat leaves to the application; false when it has answered. */
    static boolean checkHead(HttpServletRequest request, HttpServletResponse response) {
        // Tomcat takes a request line without a version for HTTP/0.9 and would answer it the HTTP/0.9 way, with a
        // bare body and no status line; the contract refuses it with 400, which only the socket can still carry.
        Connections.Conn conn = (Connections.Conn) request.getAttribute(Connections.Conn.class.getName());
        if (!request.getProtocol().startsWith("HTTP/1.") && conn != null) {
            Connections.answerOnSocket(conn, ApiError.BAD_REQUEST);
            return false;
        }
        // Tomcat decodes a chunked body on HTTP/1.0 too, where chunked is not defined; RFC 9112 section 6.1 says a
        // Transfer-Encoding on an HTTP/1.0 message means faulty framing, so it is refused with 400 before any of the
        // body is read, and nothing is stored, as the other servers do.
        if (request.getProtocol().equals("HTTP/1.0") && request.getHeader("Transfer-Encoding") != null) {
            sendEmpty(request, response, 400);
            return false;
        }
        int fields = 0;
        for (String name : Collections.list(request.getHeaderNames())) {
            fields += Collections.list(request.getHeaders(name)).size();
        }
        if (fields > MAX_HEADER_FIELDS) {
            sendEmpty(request, response, 431);
            return false;
        }
        // Tomcat answers 417 by itself when the first Expect field is not 100-continue; an expectation in a later
        // field cannot be met either (RFC 9110 section 10.1.1), so each field is looked at.
        for (String expect : Collections.list(request.getHeaders("Expect"))) {
            String value = expect.strip().toLowerCase(java.util.Locale.ROOT);
            if (!value.isEmpty() && !value.equals("100-continue")) {
                sendEmpty(request, response, 417);
                return false;
            }
        }
        return true;
    }

    /** Answers with an empty body and closes the connection, for requests refused before routing. */
    static void sendEmpty(HttpServletRequest request, HttpServletResponse response, int status) {
        response.setStatus(status);
        response.setContentLength(0);
        response.setHeader("Connection", "close");
        try {
            response.flushBuffer();
        } catch (IOException gone) {
            return;
        }
        if (Transport.hasBody(request)) {
            Connections.endOutput((Connections.Conn) request.getAttribute(Connections.Conn.class.getName()));
        }
    }
}
