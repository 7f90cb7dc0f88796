// The request handler: routing on method and raw path, and the handlers of the five routes. The Node server's
// routes.js and the Rust server's routes.rs do the same job.
//
// Every response is written by send(), which always sets Content-Length itself: without it, net/http would choose
// between a length and chunked encoding by the size of the body, and the contract wants a length on every
// response. Every JSON body is serialised when it is sent, never cached, so that all servers do the same work per
// request.

package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

const (
	jsonType = "application/json"
	textType = "text/plain; charset=utf-8"
)

// routes holds what the handlers need: the store.
type routes struct {
	store *UserStore
	// sayStoreFull makes the first 507 of a process say so on stderr, once and without --log: a POST load that fills
	// the store goes on getting answers, and a load tool that counts only connection errors would take those 507s
	// for throughput.
	sayStoreFull sync.Once
}

// exchange is one request and its response in progress: what send() needs, and what it has sent.
type exchange struct {
	w http.ResponseWriter
	r *http.Request
	// status is the status sent, 0 while nothing has been sent (the 500 path and the log look at it).
	status int
	// close asks for Connection: close on the response: the request's body was not read to its end.
	close bool
}

// route dispatches on the raw path, then on the method: a known path with the wrong method is 405 whatever its id.
func (rt *routes) route(x *exchange) {
	method := x.r.Method
	path := pathOf(x.r.RequestURI)
	if path == "/users" && method == http.MethodPost {
		rt.createUser(x)
		return
	}
	// Every other route ignores a body. One that was sent is not read (net/http reads and discards up to 256 KiB
	// of it after the response), so the connection closes after the answer (contract:
	// `transport-unread-body-closes`).
	if x.r.ContentLength != 0 {
		x.close = true
	}
	read := method == http.MethodGet || method == http.MethodHead
	switch {
	case path == "/":
		if read {
			send(x, http.StatusOK, textType, []byte("Hello, World!"))
		} else {
			methodNotAllowed(x, "GET, HEAD")
		}
	case path == "/health":
		if read {
			send(x, http.StatusOK, jsonType, objectJSON("status", "ok"))
		} else {
			methodNotAllowed(x, "GET, HEAD")
		}
	case path == "/users":
		methodNotAllowed(x, "POST")
	case strings.HasPrefix(path, "/users/") && len(path) > len("/users/") && !strings.Contains(path[len("/users/"):], "/"):
		if read {
			rt.getUser(x, path[len("/users/"):])
		} else {
			methodNotAllowed(x, "GET, HEAD")
		}
	default:
		sendError(x, errNotFound)
	}
}

// getUser is GET /users/{id}: the id must be the canonical decimal of an existing user; anything else is simply
// not found.
func (rt *routes) getUser(x *exchange, segment string) {
	id, ok := canonicalID(segment)
	var user *User
	if ok {
		user = rt.store.Get(id)
	}
	if user == nil {
		sendError(x, errNotFound)
		return
	}
	send(x, http.StatusOK, jsonType, userJSON(user))
}

// canonicalID reads ^[1-9][0-9]*$ as a number. One too large for a uint64 can only be an id far above any the
// store hands out, so it is simply not found.
func canonicalID(segment string) (uint64, bool) {
	if segment == "" || segment[0] < '1' || segment[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(segment); i++ {
		if segment[i] < '0' || segment[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseUint(segment, 10, 64)
	return id, err == nil
}

// createUser is POST /users, its rules checked in the contract's order.
func (rt *routes) createUser(x *exchange) {
	// Rule 1. The body is not awaited (contract: `post-content-type`): a client that sent the wrong type may never
	// send it. One that was sent is left unread, so the connection closes after the answer (contract:
	// `transport-unread-body-closes`).
	if !isJSONMediaType(x.r.Header.Get("Content-Type")) {
		x.close = x.r.ContentLength != 0
		sendError(x, errUnsupportedType)
		return
	}

	read := readBody(x.r)
	switch read.outcome {
	case readTimedOut:
		x.close = true
		sendError(x, errRequestTimeout)
		return
	case readBroken, readBadTrailer:
		// A malformed chunk, a trailer that would change the request's framing, or a client that went away (then
		// nobody reads this answer): nothing is stored.
		x.close = true
		sendError(x, errBadRequest)
		return
	case readTooLarge:
		// A body not read as a request (even one drained to its end) closes the connection (contract:
		// `transport-unread-body-closes`).
		x.close = true
		sendError(x, errPayloadTooLarge)
		return
	}
	// The body has been read to its end: from here on, the connection can serve the next request.
	clearBodyDeadline(x.w)

	parsed, err := parseNewUser(read.body)
	if err != nil {
		sendError(x, *err)
		return
	}
	user := rt.store.Create(parsed.name, parsed.email)
	if user == nil {
		rt.sayStoreFull.Do(func() {
			fmt.Fprintf(os.Stderr, "store full: answering 507 to POST /users until restart (--max-users %d)\n", rt.store.capacity)
		})
		sendError(x, errStoreFull)
		return
	}
	x.w.Header()["Location"] = []string{"/users/" + strconv.FormatUint(user.ID, 10)}
	send(x, http.StatusCreated, jsonType, userJSON(user))
}

// pathOf is the path of a raw request target, as the contract matches it: no percent-decoding, no dot-segment
// removal, the query dropped, and an absolute-form target (http://host/users/7) reduced to its path (/users/7).
// target is r.RequestURI, which net/http passes on exactly as it was sent.
func pathOf(target string) string {
	if !strings.HasPrefix(target, "/") {
		if scheme := strings.Index(target, "://"); scheme != -1 {
			// The authority ends at the first '/' or '?'; with no '/' after it the path is empty, which means '/'.
			rest := target[scheme+3:]
			end := strings.IndexAny(rest, "/?")
			if end == -1 || rest[end] == '?' {
				return "/"
			}
			target = rest[end:]
		}
	}
	if query := strings.IndexByte(target, '?'); query != -1 {
		return target[:query]
	}
	return target
}

func methodNotAllowed(x *exchange, allow string) {
	x.w.Header()["Allow"] = []string{allow}
	sendError(x, errMethodNotAllowed)
}

// sendError answers with an error as {"error":"…"}.
func sendError(x *exchange, err apiError) {
	send(x, err.status, jsonType, objectJSON("error", err.message))
}

// send is the one place a response with a body is written. HEAD gets the headers its GET would have, and no body.
func send(x *exchange, status int, contentType string, body []byte) {
	header := x.w.Header()
	header["Content-Type"] = []string{contentType}
	header["Content-Length"] = []string{strconv.Itoa(len(body))}
	if x.close {
		header["Connection"] = []string{"close"}
	}
	x.status = status
	x.w.WriteHeader(status)
	if x.r.Method != http.MethodHead {
		_, _ = x.w.Write(body) // A client that went away is no error of ours.
	}
	if x.close && x.r.ContentLength != 0 {
		endNow(x)
	}
}

// sendEmpty answers with an empty body and closes the connection, for requests refused before routing.
func sendEmpty(x *exchange, status int) {
	header := x.w.Header()
	header["Content-Length"] = []string{"0"}
	header["Connection"] = []string{"close"}
	x.status = status
	x.w.WriteHeader(status)
}
