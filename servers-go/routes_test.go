// Tests of the routes and of the head checks, through the handler without a socket (net/http/httptest); the
// contract's cases run against the real binary in crates/faults and through `fairpair verify`. Run: go test .

package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func testHandler(beforeRoute func(*http.Request)) http.Handler {
	return newServer(options{maxUsers: SeedUsers + 1, headerTimeout: time.Second, bodyTimeout: time.Second,
		beforeRoute: beforeRoute}).Handler
}

func serve(handler http.Handler, r *http.Request) *httptest.ResponseRecorder {
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, r)
	return recorder
}

func TestPathOfTheRawTarget(t *testing.T) {
	cases := map[string]string{
		"/users/7":              "/users/7",
		"/users/7?x=1":          "/users/7",
		"/users/%37":            "/users/%37",
		"/users/../health":      "/users/../health",
		"http://host/users/7":   "/users/7",
		"http://host/users/8?q": "/users/8",
		"http://host":           "/",
		"http://host?q=/x":      "/",
		"127.0.0.1:80":          "127.0.0.1:80",
	}
	for target, want := range cases {
		if got := pathOf(target); got != want {
			t.Errorf("pathOf(%q) = %q, want %q", target, got, want)
		}
	}
}

func TestRoutesAnswerAsTheContractSays(t *testing.T) {
	handler := testHandler(nil)
	cases := []struct {
		method, target string
		status         int
		body, allow    string
	}{
		{"GET", "/users/500", 200, `{"id":500,"name":"User 500","email":"user500@example.com"}`, ""},
		{"GET", "/users/0500", 404, `{"error":"not found"}`, ""},
		{"GET", "/users/99999999999999999999999", 404, `{"error":"not found"}`, ""},
		{"GET", "/", 200, "Hello, World!", ""},
		{"GET", "/health?x", 200, `{"status":"ok"}`, ""},
		{"DELETE", "/users/abc", 405, `{"error":"method not allowed"}`, "GET, HEAD"},
		{"GET", "/users", 405, `{"error":"method not allowed"}`, "POST"},
		{"GET", "/users/1/", 404, `{"error":"not found"}`, ""},
		{"HEAD", "/users/500", 200, "", ""},
	}
	for _, c := range cases {
		got := serve(handler, httptest.NewRequest(c.method, c.target, nil))
		if got.Code != c.status || got.Body.String() != c.body || got.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: got %d %q Allow %q", c.method, c.target, got.Code, got.Body, got.Header().Get("Allow"))
		}
		if c.method == "HEAD" && got.Header().Get("Content-Length") != "58" {
			t.Errorf("HEAD carries its GET's Content-Length, got %q", got.Header().Get("Content-Length"))
		}
	}
}

func TestPostCreatesThenTheStoreIsFull(t *testing.T) {
	handler := testHandler(nil)
	post := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/users", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return serve(handler, r)
	}
	created := post(`{"name":"Ann","email":"ann@example.com"}`)
	if created.Code != 201 || created.Header().Get("Location") != "/users/10001" ||
		created.Body.String() != `{"id":10001,"name":"Ann","email":"ann@example.com"}` {
		t.Errorf("create: %d %q %q", created.Code, created.Header().Get("Location"), created.Body)
	}
	if full := post(`{"name":"Bob","email":"b@c"}`); full.Code != 507 || full.Body.String() != `{"error":"store full"}` {
		t.Errorf("full: %d %q", full.Code, full.Body)
	}
	if invalid := post(`{"email":"b@c"}`); invalid.Code != 400 {
		t.Errorf("a full store still validates first: %d", invalid.Code)
	}
	big := post(`{"name":"` + strings.Repeat("x", BodyLimit) + `"}`)
	if big.Code != 413 || big.Header().Get("Connection") != "close" {
		t.Errorf("too large: %d, Connection %q", big.Code, big.Header().Get("Connection"))
	}
}

func TestOver100HeaderFieldsIs431(t *testing.T) {
	handler := testHandler(nil)
	for _, fields := range []int{99, 100} {
		r := httptest.NewRequest("GET", "/health", nil) // Host counts as one field.
		for i := 0; i < fields; i++ {
			r.Header.Add("X-A", strconv.Itoa(i))
		}
		want := 200
		if fields+1 > MaxHeaderFields {
			want = 431
		}
		if got := serve(handler, r); got.Code != want {
			t.Errorf("%d fields and Host: got %d, want %d", fields, got.Code, want)
		}
	}
}

func TestAPanicBecomesA500AndTheServerGoesOn(t *testing.T) {
	handler := testHandler(func(r *http.Request) {
		if r.URL.Path == "/boom" {
			panic("a bug in a handler (this panic is expected by the test)")
		}
	})
	got := serve(handler, httptest.NewRequest("GET", "/boom", nil))
	if got.Code != 500 || got.Body.String() != `{"error":"internal error"}` ||
		got.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q", got.Code, got.Body)
	}
	if got := serve(handler, httptest.NewRequest("GET", "/health", nil)); got.Code != 200 {
		t.Errorf("still serving: %d", got.Code)
	}
}

// TestEveryExpectFieldIsChecked: net/http reads the first Expect field alone, so an unknown expectation after a
// 100-continue reaches the handler, which must answer 417 itself (the fuzzer found it answered by the route).
func TestEveryExpectFieldIsChecked(t *testing.T) {
	handler := testHandler(nil)
	cases := map[string]int{"100-continue, o": 417, "100-Continue, \t": 404, "100-continue": 404}
	for fields, want := range cases {
		r := httptest.NewRequest("GET", "/hh", nil)
		r.Header["Expect"] = strings.Split(fields, ", ")
		if got := serve(handler, r).Code; got != want {
			t.Errorf("Expect fields %q: status %d, want %d", fields, got, want)
		}
	}
}
