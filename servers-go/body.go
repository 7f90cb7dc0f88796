// Reading a request body within the contract's limits, which net/http does not enforce by itself: it streams any
// body, of any size, for as long as the client cares to send it. The time limit is the connection's read deadline,
// which transport.go sets when a request with a body arrives; this file enforces the size.

package main

import (
	"errors"
	"io"
	"net"
	"net/http"
)

// BodyLimit is the largest body POST /users accepts (contract, POST /users rule 2).
const BodyLimit = 65_536

// DrainLimit is how much of an oversized body is read and thrown away before the 413 goes out. If the server
// answered and closed while the client was still sending, the client's kernel would see a reset and usually drop
// the 413 unread.
const DrainLimit = 1_048_576

// drainBufferSize is the one buffer an oversized body is drained through: small and fixed, so that a connection
// draining a megabyte costs no more memory than an idle one (contract: `post-body-limit`, the drain's small fixed
// buffer).
const drainBufferSize = 16 * 1024

// readOutcome says how reading a body ended.
type readOutcome int

const (
	// readComplete: the whole body arrived and is within the limit.
	readComplete readOutcome = iota
	// readTooLarge: over the limit; the result's drained says whether the rest was read to its end.
	readTooLarge
	// readTimedOut: the body was not complete when the body time limit ran out.
	readTimedOut
	// readBroken: the client went away or sent a malformed chunk; nothing more can be read.
	readBroken
	// readBadTrailer: a chunked body's trailer holds a field that frames or routes the message (contract:
	// `transport-trailer`).
	readBadTrailer
)

// bodyResult is what readBody found.
type bodyResult struct {
	outcome readOutcome
	body    []byte // readComplete only
	drained bool   // readTooLarge only
}

// readBody reads the body of r within the size limit; the time limit is the read deadline transport.go has set.
func readBody(r *http.Request) bodyResult {
	// A declared length is known before the first byte: a body announced as too large is never buffered at all.
	// (net/http has already refused a malformed Content-Length, or two different ones, with a 400.)
	if r.ContentLength > BodyLimit {
		return drain(r.Body, 0)
	}
	// One spare byte, so that the read which finds the end of a declared body never has to grow the buffer.
	capacity := r.ContentLength + 1
	if r.ContentLength < 0 { // Chunked: the length is counted as the chunks arrive.
		capacity = 512
	}
	body := make([]byte, 0, capacity)
	for {
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		n, err := r.Body.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if len(body) > BodyLimit {
			return drain(r.Body, len(body))
		}
		if err == io.EOF {
			if hasFramingTrailer(r.Trailer) {
				return bodyResult{outcome: readBadTrailer}
			}
			return bodyResult{outcome: readComplete, body: body}
		}
		if err != nil {
			return bodyResult{outcome: failure(err)}
		}
	}
}

// hasFramingTrailer reports whether a chunked body's trailer (which net/http collects into r.Trailer once the body
// is read, declared or not) holds Content-Length, Transfer-Encoding or Host: fields a recipient must not take from a
// trailer (RFC 9110 section 6.5.1), and which a proxy that merges trailers into the head could be fooled by.
func hasFramingTrailer(trailer http.Header) bool {
	for _, name := range []string{"Content-Length", "Transfer-Encoding", "Host"} {
		if _, present := trailer[name]; present {
			return true
		}
	}
	return false
}

// drain reads and drops what is left of an oversized body, up to DrainLimit past the limit. The verdict is 413
// whatever happens next (contract: `post-body-limit`): a body that stops coming or breaks is simply not drained.
func drain(body io.Reader, received int) bodyResult {
	buffer := make([]byte, drainBufferSize)
	for received <= BodyLimit+DrainLimit {
		n, err := body.Read(buffer)
		received += n
		if err == io.EOF {
			return bodyResult{outcome: readTooLarge, drained: true}
		}
		if err != nil {
			break
		}
	}
	return bodyResult{outcome: readTooLarge, drained: false}
}

// failure tells a body that ran out of time (the read deadline passed) from one that broke.
func failure(err error) readOutcome {
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return readTimedOut
	}
	return readBroken
}
