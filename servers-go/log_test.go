// Tests of the --log line (CONTRACT.md, "Running a server"): the format all three servers share, written once per
// request through the real handler, and nothing without --log.

package main

import (
	"bytes"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// logLinePattern is the contract's format: time, method, target, status, latency in ms with three decimals.
var logLinePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (\S+) (\S+) (\d{3}) \d+\.\d{3}ms$`)

func TestLogLineFormat(t *testing.T) {
	at := time.Date(2026, 11, 30, 20, 0, 0, 123_456_789, time.FixedZone("CET", 3600))
	got := logLine(at, "GET", "/users/500", 200, 123_400*time.Nanosecond)
	if want := "2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if logLinePattern.MatchString("GET /users/500 HTTP/1.1 200 123µs") {
		t.Error("the old format must not match")
	}
}

func TestLogWritesOneLinePerRequest(t *testing.T) {
	for _, on := range []bool{true, false} {
		var out bytes.Buffer
		handler := newServer(options{maxUsers: SeedUsers + 1, headerTimeout: time.Second, bodyTimeout: time.Second,
			log: on, logTo: &out}).Handler
		serve(handler, httptest.NewRequest("GET", "/users/500", nil))
		serve(handler, httptest.NewRequest("GET", "/nope?x=1", nil))
		post := httptest.NewRequest("POST", "/users", strings.NewReader(`{"name":"Ann","email":"ann@example.com"}`))
		post.Header.Set("Content-Type", "application/json")
		serve(handler, post)
		if !on {
			if out.Len() != 0 {
				t.Errorf("without --log nothing is written, got %q", out.String())
			}
			continue
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			m := logLinePattern.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("not in the contract's format: %q", line)
			}
			got = append(got, m[1]+" "+m[2]+" "+m[3])
		}
		want := []string{"GET /users/500 200", "GET /nope?x=1 404", "POST /users 201"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestUsageShowsEachRange(t *testing.T) {
	for _, r := range []string{"0..65535", "1..1024", "10000..16777216"} {
		if !strings.Contains(usage, r) {
			t.Errorf("%s missing from --help:\n%s", r, usage)
		}
	}
}

func TestABadVariableIsNamed(t *testing.T) {
	for variable, value := range map[string]string{"PORT": "abc", "WORKERS": "0", "MAX_USERS": "5", "HOST": "x"} {
		_, err := parseConfig(nil, env(map[string]string{variable: value}))
		if err == nil || !strings.HasPrefix(err.Error(), variable+": ") {
			t.Errorf("%s=%s: %v", variable, value, err)
		}
	}
}
