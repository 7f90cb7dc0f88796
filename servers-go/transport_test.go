// Tests of what the transport does around net/http's own answers, through a real socket (the routes' tests call
// the handler directly, which never sees these). Run: go test .

package main

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestOwnAnswerDoesNotWaitForeverForTheBody sends a request net/http answers by itself (417 to an unknown Expect)
// with a chunked body that never comes: the connection must close at the body's time limit, not stay open (before
// boundOwnAnswers, net/http waited for that body with no deadline at all).
func TestOwnAnswerDoesNotWaitForeverForTheBody(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := newServer(options{maxUsers: SeedUsers + 1, headerTimeout: time.Second,
		bodyTimeout: 200 * time.Millisecond})
	go func() { _ = server.Serve(listener) }()
	defer server.Close()

	conn, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	request := "POST /users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: foo\r\n\r\n"
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	// Far beyond the body's limit: reaching this deadline means the server kept the connection open.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	answer, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("the connection was still open after the body's time limit (read: %v, got %q)", err, answer)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 417 ") {
		t.Fatalf("expected net/http's 417, got %q", answer)
	}
}

// TestOwnRefusalIsReadableBehindALargeBody sends a malformed head (an empty field name, which net/http refuses with
// 400 before any handler runs) followed by a 70,000-byte body, and reads the answer to its end, as a client must
// when the answer is delimited by the connection's close. Closed at once, the socket would still hold most of that
// body unread, and the kernel would end the connection with a reset instead of the end of the answer (it did,
// every time, before lingeringListener).
func TestOwnRefusalIsReadableBehindALargeBody(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := newServer(options{maxUsers: SeedUsers + 1, headerTimeout: time.Second, bodyTimeout: time.Second})
	go func() { _ = server.Serve(lingeringListener{listener}) }()
	defer server.Close()

	conn, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n: x\r\n\r\n"
	if _, err := io.WriteString(conn, head+strings.Repeat("a", 70000)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	answer, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("the answer did not end cleanly (read: %v, got %q)", err, answer)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 400 ") {
		t.Fatalf("expected net/http's 400, got %q", answer)
	}
}
