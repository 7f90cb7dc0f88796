// Tests of POST /users's rules 1 and 3 to 6, one table per rule, each case named. The tables follow
// crates/users-api/src/validation.rs's tests and servers-node/test/validation.test.js. Run: go test .

package main

import (
	"strings"
	"testing"
)

// assertAllRefused runs a table of bodies that must all fail with want, naming the failing case.
func assertAllRefused(t *testing.T, want apiError, cases map[string]string) {
	t.Helper()
	for name, body := range cases {
		_, err := parseNewUser([]byte(body))
		if err == nil || *err != want {
			t.Errorf("case %q: got %v, want %v", name, err, want)
		}
	}
}

func TestAcceptsAValidUserExactlyAsSent(t *testing.T) {
	user, err := parseNewUser([]byte(`{"name":"  Ann \u00e9\ud83d\ude00 ","email":" a@b ","id":7,"admin":true}`))
	if err != nil || user.name != "  Ann é😀 " || user.email != " a@b " {
		t.Errorf("got %+v, %v", user, err)
	}
}

func TestRule3InvalidJSON(t *testing.T) {
	assertAllRefused(t, errInvalidJSON, map[string]string{
		"empty body":                        "",
		"not an object":                     `[{"name":"A","email":"a@b"}]`,
		"truncated":                         `{"name":"A"`,
		"trailing garbage":                  `{"name":"A","email":"a@b"} x`,
		"byte-order mark":                   "\xef\xbb\xbf{\"name\":\"A\",\"email\":\"a@b\"}",
		"invalid UTF-8 in name":             "{\"name\":\"A\xff\",\"email\":\"a@b\"}",
		"invalid UTF-8 in an unknown value": "{\"name\":\"A\",\"email\":\"a@b\",\"x\":\"\xc3\"}",
		"overlong UTF-8":                    "{\"name\":\"\xc0\xaf\",\"email\":\"a@b\"}",
		"UTF-8-encoded surrogate":           "{\"name\":\"\xed\xa0\x80\",\"email\":\"a@b\"}",
		"raw control character":             "{\"name\":\"A\x01\",\"email\":\"a@b\"}",
		"unbalanced deep nesting":           `{"x":` + strings.Repeat("[", 20_000) + `,"name":"A","email":"a@b"`,
	})
}

func TestRule3AcceptsWhatJSONParseAccepts(t *testing.T) {
	cases := map[string]string{
		"deep nesting": `{"x":` + strings.Repeat("[", 32_000) + strings.Repeat("]", 32_000) + `,"name":"Deep","email":"d@e"}`,
		"huge numbers": `{"n":1e400,"m":-1e400,"name":"A","email":"a@b"}`,
		"lone surrogate in an unknown key and value": `{"\udc00":"\ud800","name":"A","email":"a@b"}`,
		"earlier duplicate malformed":                `{"name":"\ud800","name":1e400,"name":"Ok","email":"a@b"}`,
	}
	for name, body := range cases {
		if _, err := parseNewUser([]byte(body)); err != nil {
			t.Errorf("case %q should be accepted, got %v", name, err)
		}
	}
}

func TestRule4FinalNameOrEmailNotWellFormed(t *testing.T) {
	assertAllRefused(t, errInvalidJSON, map[string]string{
		"lone high surrogate in name":        `{"name":"\ud800","email":"a@b"}`,
		"lone low surrogate in name":         `{"name":"a\udc00b","email":"a@b"}`,
		"reversed pair in name":              `{"name":"\udc00\ud800","email":"a@b"}`,
		"lone surrogate in email":            `{"name":"A","email":"a@\ud83d"}`,
		"before rule 5":                      `{"name":"\ud800"}`,
		"email checked before name's rule 5": `{"name":"","email":"\udfff"}`,
	})
}

func TestRule5NameRequired(t *testing.T) {
	assertAllRefused(t, errNameRequired, map[string]string{
		"missing":                      `{"email":"a@b"}`,
		"null":                         `{"name":null,"email":"a@b"}`,
		"number":                       `{"name":5,"email":"a@b"}`,
		"huge number":                  `{"name":1e400,"email":"a@b"}`,
		"array":                        `{"name":["A"],"email":"a@b"}`,
		"object":                       `{"name":{},"email":"a@b"}`,
		"boolean":                      `{"name":true,"email":"a@b"}`,
		"empty":                        `{"name":"","email":"a@b"}`,
		"empty object":                 `{}`,
		"before the email rule":        `{"name":"","email":"no-at"}`,
		"last duplicate wins":          `{"name":"A","name":null,"email":"a@b"}`,
		"not inherited from __proto__": `{"__proto__":{"name":"X"},"email":"a@b"}`,
		"keys are case-sensitive":      `{"Name":"A","email":"a@b"}`,
	})
}

func TestRule5NameLengthInCodePoints(t *testing.T) {
	body := func(name string) string { return `{"name":"` + name + `","email":"a@b"}` }
	cases := []struct {
		name, body string
		tooLong    bool
	}{
		{"200 ASCII", body(strings.Repeat("n", 200)), false},
		{"201 ASCII", body(strings.Repeat("n", 201)), true},
		{"200 astral (400 UTF-16 units)", body(strings.Repeat("😀", 200)), false},
		{"201 astral", body(strings.Repeat("😀", 201)), true},
		{"200 escaped pairs", body(strings.Repeat(`\ud83d\ude00`, 200)), false},
		{"201 escaped pairs", body(strings.Repeat(`\ud83d\ude00`, 201)), true},
	}
	for _, c := range cases {
		_, err := parseNewUser([]byte(c.body))
		if (err != nil) != c.tooLong || (err != nil && *err != errNameTooLong) {
			t.Errorf("case %q: got %v", c.name, err)
		}
	}
}

func TestRule6InvalidEmail(t *testing.T) {
	assertAllRefused(t, errInvalidEmail, map[string]string{
		"missing":                     `{"name":"A"}`,
		"no @":                        `{"name":"A","email":"ab"}`,
		"empty":                       `{"name":"A","email":""}`,
		"number":                      `{"name":"A","email":5}`,
		"null":                        `{"name":"A","email":null}`,
		"array":                       `{"name":"A","email":["a@b"]}`,
		"fullwidth @":                 "{\"name\":\"A\",\"email\":\"a\uff20b\"}",
		"255 code points":             `{"name":"A","email":"a@` + strings.Repeat("b", 253) + `"}`,
		"last duplicate not a string": `{"name":"A","email":"a@b","email":5}`,
	})
}

func TestRule6EmailLengthInCodePoints(t *testing.T) {
	body := func(email string) string { return `{"name":"A","email":"` + email + `"}` }
	cases := []struct {
		name, body string
		ok         bool
	}{
		{"just @", body("@"), true},
		{"254 ASCII", body("a@" + strings.Repeat("b", 252)), true},
		{"255 ASCII", body("a@" + strings.Repeat("b", 253)), false},
		{"254 two-byte characters", body("a@" + strings.Repeat("é", 252)), true},
		{"255 two-byte characters", body("a@" + strings.Repeat("é", 253)), false},
	}
	for _, c := range cases {
		_, err := parseNewUser([]byte(c.body))
		if (err == nil) != c.ok || (err != nil && *err != errInvalidEmail) {
			t.Errorf("case %q: got %v", c.name, err)
		}
	}
}

func TestRule1MediaType(t *testing.T) {
	cases := map[string]bool{
		"application/json":                true,
		"application/json; charset=utf-8": true,
		"Application/JSON":                true,
		" \tapplication/json \t; x=y":     true,
		"application/json;":               true,
		"":                                false,
		"text/plain":                      false,
		"application/json-patch+json":     false,
		"application/vnd.api+json":        false,
		"application":                     false,
		"application/json, text/plain":    false,
		"\u00a0application/json":          false,
		"application/j\u017fon":           false, // "ſ" folds to "s" in Unicode, not in HTTP
	}
	for value, want := range cases {
		if got := isJSONMediaType(value); got != want {
			t.Errorf("Content-Type %q: got %v, want %v", value, got, want)
		}
	}
}
