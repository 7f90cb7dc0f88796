// fairpair's Go server: the users API on net/http alone (standard library only, Go 1.26), with a map behind a lock
// for a store and a hand-written JSON scanner and writer that agree with JSON.parse and JSON.stringify.
//
// Build it with scripts/build-go (it writes target/go/users-server-go), or run it from here with `go run .`, then
// try `curl http://127.0.0.1:3000/users/500`. Flags and environment variables (the contract's table; --help lists
// them): --host / HOST (127.0.0.1), --port / PORT (3000; 0 = any free port), --workers / WORKERS (GOMAXPROCS;
// default: available cores, Go's own habit), --max-users / MAX_USERS (1,000,000; 10,000..16,777,216), --log
// (per-request lines on stderr). Test-only: --header-timeout-ms, --body-timeout-ms, --shutdown-timeout-ms.
//
// The API (contract/CONTRACT.md has every rule):
//
//	GET  /users/{id}  200 the user, 404 {"error":"not found"}
//	POST /users       201 the new user with Location; 400, 408, 413, 415 or 507 with {"error":"…"}
//	GET  /health      200 {"status":"ok"}
//	GET  /            200 Hello, World! (text/plain)
//	HEAD on each GET route; another method on a known path is 405 with Allow.
//
// Code tour, the same files as the Node and Rust servers: this file (binding with the listen backlog, start-up line,
// signals) → config.go (flags) → transport.go (the server, checkHead, the request entry, closeGracefully) →
// routes.go (routing and handlers) → request_log.go (the --log line) → error.go (every error answer) → body.go
// (reading a body within limits) → validation.go (POST /users rules) → json.go (JSON.parse's grammar,
// JSON.stringify's escapes) → store.go (the map). The tests are the *_test.go files beside them; contract/cases.json
// is the contract as data.
//
// SIGTERM or SIGINT: stop accepting, finish the requests in progress (10 s at most), exit 0. SIGHUP, SIGUSR1 and
// SIGUSR2 are ignored (logged with --log).

package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(2)
	}
	if cfg.help {
		fmt.Println(usage)
		return
	}
	// One process, like Node's default; --workers is how many threads run Go code at once. Without it the runtime
	// keeps its default (the available cores, or the GOMAXPROCS variable), as Go programs do.
	if cfg.workers > 0 {
		runtime.GOMAXPROCS(cfg.workers)
	}
	workers := runtime.GOMAXPROCS(0)

	server := newServer(options{
		maxUsers:      cfg.maxUsers,
		headerTimeout: cfg.headerTimeout,
		bodyTimeout:   cfg.bodyTimeout,
		log:           cfg.log,
	})
	address := net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port))
	listener, err := listenTCP(cfg.host, cfg.port, ListenBacklog)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: cannot listen on %s: %v\n", address, err)
		os.Exit(1)
	}
	// The signals are taken before the start-up line is printed: a SIGHUP sent the moment the line appears must
	// already find them ignored, not end the process with Go's default action.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2)
	printListening(listener.Addr().(*net.TCPAddr), workers)

	stopped := make(chan struct{})
	go handleSignals(server, cfg, signals, stopped)

	if err := server.Serve(lingeringListener{listener}); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	// Serve returns as soon as shutdown begins; the process exits once the requests in progress are done.
	<-stopped
}

// handleSignals waits on signals (registered in main) for SIGTERM or SIGINT and closes the server gracefully; SIGHUP, SIGUSR1 and SIGUSR2 are
// ignored (a terminal hang-up or a stray kill -USR1 must not stop a server under measurement). SIGPIPE needs
// nothing: the Go runtime ignores it for sockets already.
func handleSignals(server *http.Server, cfg config, signals <-chan os.Signal, stopped chan<- struct{}) {
	for received := range signals {
		if received == syscall.SIGTERM || received == syscall.SIGINT {
			break
		}
		if cfg.log {
			fmt.Fprintf(os.Stderr, "ignored %s\n", signalName(received))
		}
	}
	closeGracefully(server, cfg.shutdownTimeout)
	close(stopped)
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	}
	return s.String()
}

// ListenBacklog is the listen backlog every fairpair server asks for (the kernel caps it at net.core.somaxconn).
const ListenBacklog = 1024

// listenTCP opens a listening TCP socket with an explicit backlog. net.Listen would be the plain way, but it always
// asks for the kernel's maximum (net.core.somaxconn, 4096 on current kernels) where the other servers ask for 1024,
// and the standard library has no setting for it; so the socket is made with the system calls net.Listen makes
// (non-blocking, close-on-exec, SO_REUSEADDR) and handed to net.FileListener.
func listenTCP(host string, port int, backlog int) (net.Listener, error) {
	ip := net.ParseIP(host)
	family := syscall.AF_INET
	var address syscall.Sockaddr
	if ip4 := ip.To4(); ip4 != nil {
		inet4 := &syscall.SockaddrInet4{Port: port}
		copy(inet4.Addr[:], ip4)
		address = inet4
	} else {
		family = syscall.AF_INET6
		inet6 := &syscall.SockaddrInet6{Port: port}
		copy(inet6.Addr[:], ip.To16())
		address = inet6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	file := os.NewFile(uintptr(fd), "listener")
	defer file.Close() // net.FileListener works on a duplicate.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return nil, os.NewSyscallError("setsockopt", err)
	}
	if err := syscall.Bind(fd, address); err != nil {
		return nil, os.NewSyscallError("bind", err)
	}
	if err := syscall.Listen(fd, backlog); err != nil {
		return nil, os.NewSyscallError("listen", err)
	}
	return net.FileListener(file)
}

// printListening prints the start-up line, the same shape on every server.
func printListening(address *net.TCPAddr, workers int) {
	host := address.IP.String()
	if address.IP.To4() == nil {
		host = "[" + host + "]"
	}
	plural := "workers"
	if workers == 1 {
		plural = "worker"
	}
	fmt.Printf("listening on http://%s:%d (%d users, %d %s)\n", host, address.Port, SeedUsers, workers, plural)
}
