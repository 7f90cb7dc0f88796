// The server factory: a net/http server with the users API's handler and the contract's transport rules, and its
// graceful close. server.go runs it from the command line; the tests call its handler directly. The Node server's
// transport.js and the Rust server's transport.rs do the same job.
//
// What net/http does by itself, before any handler runs (so this file cannot change it, and the contract's
// tolerated cases allow it): a head over MaxHeaderBytes gets 431, an HTTP/1.1 request without Host, a malformed
// request line or header, or two different Content-Lengths get 400, a Transfer-Encoding other than one "chunked"
// gets 501, a non-empty Expect other than 100-continue gets 417, all of them text/plain without Content-Length
// (the 417 has Content-Length: 0) and the connection closed. Two identical Content-Lengths are merged into one.

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HeaderTimeout, BodyTimeout and ShutdownTimeout are the contract's two time limits and the shutdown deadline,
// 10 s each; tests lower them.
const (
	HeaderTimeout   = 10 * time.Second
	BodyTimeout     = 10 * time.Second
	ShutdownTimeout = 10 * time.Second
)

// MaxHeadBytes is the largest request head, in bytes (request line and header fields).
const MaxHeadBytes = 16 * 1024

// netHTTPHeadSlack is what net/http adds to Server.MaxHeaderBytes before it stops reading a head (4096 bytes, in
// initialReadLimitSize in net/http/server.go), so the setting is that much short of the limit.
const netHTTPHeadSlack = 4096

// MaxHeaderFields is the most header fields a request may have; net/http has no such limit of its own.
const MaxHeaderFields = 100

// options configures the server. The zero value is not usable; server.go fills it from the flags.
type options struct {
	maxUsers      int
	headerTimeout time.Duration
	bodyTimeout   time.Duration
	log           bool
	// logTo is where --log writes, os.Stderr when nil; tests give a buffer.
	logTo io.Writer
	// beforeRoute is a test hook, called before routing; tests make it panic to check the 500 path. The server
	// itself never sets it.
	beforeRoute func(*http.Request)
}

// app is the http.Handler of the API: the transport checks net/http leaves to the application, then the routes.
type app struct {
	routes      routes
	bodyTimeout time.Duration
	log         io.Writer // nil: no request log
	beforeRoute func(*http.Request)
}

// connKey is the request context key under which the server puts the request's connection (see newServer).
type connKey struct{}

// newServer creates the server, not yet serving.
func newServer(opts options) *http.Server {
	handler := &app{
		routes:      routes{store: NewUserStore(opts.maxUsers)},
		bodyTimeout: opts.bodyTimeout,
		log:         logWriter(opts),
		beforeRoute: opts.beforeRoute,
	}
	return &http.Server{
		Handler: handler,
		// First time limit: the head must be complete this long after connect, or after the first byte of the next
		// request on a keep-alive connection; until that byte, IdleTimeout applies. (Node's limit counts the same
		// way.) net/http closes such a connection without an answer.
		ReadHeaderTimeout: opts.headerTimeout,
		IdleTimeout:       opts.headerTimeout,
		// ReadTimeout would count from the start of the head, where the contract's body limit counts from its end,
		// so the body's time limit is a read deadline set by the handler (ServeHTTP below).
		MaxHeaderBytes: MaxHeadBytes - netHTTPHeadSlack,
		// endNow needs the connection to half-close it, which http.ResponseController (the way to set a deadline
		// from a handler, used below) does not offer; this hook hands it to the handler.
		ConnContext: func(ctx context.Context, conn net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, conn)
		},
		ConnState: func(conn net.Conn, state http.ConnState) {
			if state == http.StateActive {
				boundOwnAnswers(conn, opts.bodyTimeout)
			}
		},
	}
}

// boundOwnAnswers gives the body of a request whose head net/http has just read the contract's body time limit,
// before anything else runs. net/http lifts every read deadline once a head is read (ReadTimeout is unset, see
// above), and when it answers a request by itself (its 417 to an unknown Expect) no handler runs to set one: it
// then reads and discards the declared body (up to 256 KiB) before closing, and a chunked body that never came held
// the connection open for good (the fuzzer found it). With this deadline it closes at the body's time limit at the
// latest. The StateActive hook runs once per request, after the head is read and before net/http's Expect check;
// the handler replaces the deadline with its own (ServeHTTP), so requests that reach it are not affected.
func boundOwnAnswers(conn net.Conn, bodyTimeout time.Duration) {
	_ = conn.SetReadDeadline(time.Now().Add(bodyTimeout)) // Fails only on a closed connection.
}

// ServeHTTP handles one request: the head checks, the body's time limit, the routes, a 500 for a panic.
func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{w: w, r: r}
	if a.log != nil {
		defer logRequest(a.log, x, time.Now())
	}
	defer a.recoverPanic(x)
	if !checkHead(x) {
		// After a refusal net/http would read the rest of a body (up to 256 KiB) before closing, with no deadline yet:
		// a chunked body that never comes held the connection open for good. The refusal closes it at once instead.
		setBodyDeadline(w, time.Now())
		return
	}
	// The contract's second time limit: the body must be complete within bodyTimeout of the head, which is now.
	// Whoever reads the body (the POST handler, or net/http discarding it after the answer) hits this deadline.
	// A request without a body reads nothing more: the deadline boundOwnAnswers set is lifted.
	if r.ContentLength != 0 {
		setBodyDeadline(w, time.Now().Add(a.bodyTimeout))
	} else {
		clearBodyDeadline(w)
	}
	if a.beforeRoute != nil {
		a.beforeRoute(r)
	}
	a.routes.route(x)
}

// checkHead applies the transport rules net/http leaves to the application. It returns false when it has answered.
func checkHead(x *exchange) bool {
	// net/http speaks HTTP/1.x only, but passes "PRI * HTTP/2.0" (the HTTP/2 preface) on to handlers.
	if x.r.ProtoMajor != 1 {
		sendEmpty(x, http.StatusHTTPVersionNotSupported)
		return false
	}
	// net/http has taken Host out of the header map (into r.Host), so it is counted apart.
	fields := 0
	for _, values := range x.r.Header {
		fields += len(values)
	}
	if x.r.Host != "" {
		fields++
	}
	if fields > MaxHeaderFields {
		sendEmpty(x, http.StatusRequestHeaderFieldsTooLarge)
		return false
	}
	// net/http answers 417 by itself only when the first Expect field is not 100-continue: it reads that one alone.
	// An expectation in a later field cannot be met either (RFC 9110 section 10.1.1), so each field is looked at.
	for _, expect := range x.r.Header["Expect"] {
		expect = strings.ToLower(strings.Trim(expect, " \t"))
		if expect != "" && expect != "100-continue" {
			sendEmpty(x, http.StatusExpectationFailed)
			return false
		}
	}
	return true
}

// setBodyDeadline sets the read deadline of the request's connection.
func setBodyDeadline(w http.ResponseWriter, deadline time.Time) {
	_ = http.NewResponseController(w).SetReadDeadline(deadline) // Fails only on a closed connection.
}

// clearBodyDeadline lifts the body's deadline once the body is read, so that the connection waits for its next
// request under net/http's own limits.
func clearBodyDeadline(w http.ResponseWriter) {
	setBodyDeadline(w, time.Time{})
}

// endNow sends the answer and ends the connection's sending side at once, for an answer that closes the connection
// while the request's body may still be on its way (contract: `transport-unread-body-closes`, `post-content-type`).
// Left to itself, net/http would first read and discard up to 256 KiB of that body (or wait for it until the body's
// deadline) and only then close, so a client that never sends its body would wait that long to see the connection
// closed. With the FIN sent now the client sees the end at once, while net/http still reads and discards what
// arrives, so that closing the socket does not reset the connection and destroy the answer before the client has
// read it.
func endNow(x *exchange) {
	if flusher, ok := x.w.(http.Flusher); ok {
		flusher.Flush()
	}
	if conn, ok := x.r.Context().Value(connKey{}).(interface{ CloseWrite() error }); ok {
		_ = conn.CloseWrite() // Fails only when the client is gone already.
	}
}

// recoverPanic answers 500 when a handler panics and nothing has been sent yet; the server goes on. net/http would
// recover the panic too, but close the connection without an answer. The panic goes to stderr, never to the client.
func (a *app) recoverPanic(x *exchange) {
	recovered := recover()
	if recovered == nil {
		return
	}
	if recovered == http.ErrAbortHandler {
		panic(recovered)
	}
	fmt.Fprintf(os.Stderr, "internal error on %s %s: %v\n", x.r.Method, x.r.RequestURI, recovered)
	if x.status != 0 {
		// The answer is out (at least its head): all that is left is to end the connection.
		panic(http.ErrAbortHandler)
	}
	header := x.w.Header()
	for name := range header {
		delete(header, name)
	}
	sendError(x, errInternal)
}

// LingerTimeout and LingerBytes bound what a closing connection reads and discards before it is closed (see
// lingeringConn): one second, one mebibyte (the Rust server drains as much after its 413).
const (
	LingerTimeout = time.Second
	LingerBytes   = 1 << 20
)

// lingeringListener hands out connections that close the way the other servers' do: answer first, reset never.
// server.go serves on it.
type lingeringListener struct{ net.Listener }

func (l lingeringListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if tcp, ok := conn.(*net.TCPConn); ok && err == nil {
		return &lingeringConn{TCPConn: tcp}, nil
	}
	return conn, err
}

// lingeringConn closes a connection in two steps: it ends the sending side at once (the client sees the end of the
// answer), then reads and discards what the client still sends, for LingerTimeout or LingerBytes at most, and only
// then closes the socket. The plain way, closing at once, is what net/http does after its own refusals (a 400 for a
// malformed head, before any handler runs): closing a socket with unread bytes in it makes the kernel send a reset,
// and a client whose request body is still arriving can lose the 400 before it has read it (the contract's
// raw-large-body-empty-field-name case, a malformed head with a 70,000-byte body, failed that way under load). hyper
// and Node end their sending side first too. Once closed, the connection reads nothing more for net/http: a request
// arriving while it lingers (after a graceful shutdown closed it as idle) is discarded, not served.
type lingeringConn struct {
	*net.TCPConn
	closed atomic.Bool
	// reading is held by each read net/http makes, so that the drain starts only once a read in progress when the
	// connection was closed has returned (see drainThenClose).
	reading sync.Mutex
}

func (c *lingeringConn) Read(p []byte) (int, error) {
	c.reading.Lock()
	defer c.reading.Unlock()
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	return c.TCPConn.Read(p)
}

// Close ends the sending side and returns; the rest happens in the background, so a shutdown closing many idle
// connections does not wait for each.
func (c *lingeringConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	_ = c.TCPConn.CloseWrite() // Fails only when the client is gone already; the drain then ends at once.
	// A read in progress on net/http's side (an idle keep-alive connection waiting for its next request) returns
	// now, with an error.
	_ = c.TCPConn.SetReadDeadline(time.Now())
	go c.drainThenClose()
	return nil
}

func (c *lingeringConn) drainThenClose() {
	// Waiting for the lock waits for that read to return. Were the deadline moved while it was still blocked, it
	// would block again and could take the next request's bytes to net/http.
	c.reading.Lock()
	defer c.reading.Unlock()
	_ = c.TCPConn.SetReadDeadline(time.Now().Add(LingerTimeout))
	_, _ = io.CopyN(io.Discard, c.TCPConn, LingerBytes) // Ends at the client's end, the deadline, or the limit.
	_ = c.TCPConn.Close()
}

// closeGracefully closes the server the way SIGTERM asks: stop accepting at once, let requests in progress finish
// (net/http answers them with Connection: close), close each keep-alive connection as soon as it is idle, and
// close whatever is left after timeout.
func closeGracefully(server *http.Server, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := server.Shutdown(ctx); err != nil {
		_ = server.Close()
	}
}
