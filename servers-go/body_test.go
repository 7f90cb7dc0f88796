// Tests of reading a body within the limits: the size limit declared and counted, the drain, a framing field in a
// chunked body's trailer. The time limit is a read deadline on the connection, checked by the faults suite
// (crates/faults) on real sockets. Run: go test .

package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// chunked makes a request whose body has no declared length, like a chunked one.
func chunked(body io.Reader, trailer http.Header) *http.Request {
	r := httptest.NewRequest("POST", "/users", body)
	r.ContentLength = -1
	r.Trailer = trailer
	return r
}

// endless is a body that never ends.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	e.read += len(p)
	return len(p), nil
}

// broken is a body that fails after its first bytes, like a reset or a malformed chunk.
type broken struct{ done bool }

func (b *broken) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("connection reset by peer")
	}
	b.done = true
	return copy(p, "{"), nil
}

func TestReadBodyWithinTheLimits(t *testing.T) {
	exactly := strings.Repeat("x", BodyLimit)
	if got := readBody(httptest.NewRequest("POST", "/users", strings.NewReader(exactly))); got.outcome != readComplete || len(got.body) != BodyLimit {
		t.Errorf("declared, at the limit: %v, %d bytes", got.outcome, len(got.body))
	}
	if got := readBody(chunked(strings.NewReader(exactly), nil)); got.outcome != readComplete || len(got.body) != BodyLimit {
		t.Errorf("counted, at the limit: %v, %d bytes", got.outcome, len(got.body))
	}
	over := strings.NewReader(exactly + "x")
	if got := readBody(httptest.NewRequest("POST", "/users", over)); got.outcome != readTooLarge || !got.drained || over.Len() != 0 {
		t.Errorf("declared, one byte over: %+v, %d left unread", got.outcome, over.Len())
	}
	if got := readBody(chunked(strings.NewReader(exactly+"x"), nil)); got.outcome != readTooLarge || !got.drained {
		t.Errorf("counted, one byte over: %+v", got)
	}
}

func TestAnEndlessBodyIsDrainedUpToTheDrainLimitOnly(t *testing.T) {
	body := &endless{}
	got := readBody(chunked(body, nil))
	if got.outcome != readTooLarge || got.drained {
		t.Errorf("got %+v", got)
	}
	if body.read < BodyLimit+DrainLimit || body.read > BodyLimit+DrainLimit+2*drainBufferSize {
		t.Errorf("read %d bytes, want just past %d", body.read, BodyLimit+DrainLimit)
	}
}

func TestABrokenBodyIsBroken(t *testing.T) {
	if got := readBody(chunked(&broken{}, nil)); got.outcome != readBroken {
		t.Errorf("got %+v", got)
	}
}

func TestFramingFieldsInATrailerAreRefused(t *testing.T) {
	for _, name := range []string{"Content-Length", "Transfer-Encoding", "Host"} {
		got := readBody(chunked(strings.NewReader(`{"name":"A","email":"a@b"}`), http.Header{name: {"5"}}))
		if got.outcome != readBadTrailer {
			t.Errorf("%s in the trailer: %+v", name, got)
		}
	}
	got := readBody(chunked(strings.NewReader(`{}`), http.Header{"X-Checksum": {"1"}}))
	if got.outcome != readComplete {
		t.Errorf("another trailer field is fine: %+v", got)
	}
}
