// Tests of the JSON scanner and writer: what JSON.parse accepts and refuses, the last duplicate winning, strings
// decoded and escaped as JavaScript does. The tables follow crates/users-api/src/json.rs's tests. Run: go test .

package main

import (
	"strings"
	"testing"
)

func TestScanObjectAcceptsWhatJSONParseAccepts(t *testing.T) {
	cases := []struct{ name, body string }{
		{"empty object", "{}"},
		{"whitespace around and inside", " \t\r\n{ \"a\" : 1 , \"b\" :\n[ ] }\r\n"},
		{"all literals", `{"a":true,"b":false,"c":null}`},
		{"numbers of any magnitude", `{"a":1e400,"b":-1e400,"c":-0,"d":1.5e-400,"e":12345678901234567890123}`},
		{"number forms", `{"a":0,"b":-0.5,"c":1E+2,"d":1e-2,"e":10.25}`},
		{"all escapes", `{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`},
		{"lone surrogates in unknown key and value", `{"\ud800":"\udc00x"}`},
		{"non-ASCII and DEL raw", "{\"a\":\"é😀\u007f\u2028\"}"},
		{"nested empty containers", `{"a":{},"b":[],"c":[{}],"d":{"e":[]}}`},
		{"deep arrays (past encoding/json's 10,000 levels)", `{"x":` + strings.Repeat("[", 30_000) + strings.Repeat("]", 30_000) + `}`},
		{"deep objects", `{"x":` + strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_000) + `}`},
	}
	for _, c := range cases {
		if _, ok := scanObject([]byte(c.body)); !ok {
			t.Errorf("case %q should be accepted", c.name)
		}
	}
}

func TestScanObjectRefusesWhatJSONParseRefuses(t *testing.T) {
	cases := []struct{ name, body string }{
		{"empty", ""},
		{"whitespace only", " \n"},
		{"array", "[]"},
		{"string", `"x"`},
		{"number", "1"},
		{"null", "null"},
		{"unterminated object", "{"},
		{"trailing comma", `{"a":1,}`},
		{"trailing comma in array", `{"a":[1,]}`},
		{"missing colon", `{"a" 1}`},
		{"missing value", `{"a":}`},
		{"two values", "{}{}"},
		{"trailing garbage", "{} x"},
		{"single quotes", "{'a':1}"},
		{"unquoted key", "{a:1}"},
		{"comment", "{/*c*/}"},
		{"NaN", `{"a":NaN}`},
		{"Infinity", `{"a":Infinity}`},
		{"leading zero", `{"a":01}`},
		{"plus sign", `{"a":+1}`},
		{"leading dot", `{"a":.5}`},
		{"trailing dot", `{"a":1.}`},
		{"empty exponent", `{"a":1e}`},
		{"hex", `{"a":0x10}`},
		{"bare minus", `{"a":-}`},
		{"truncated literal", `{"a":tru}`},
		{"capitalised literal", `{"a":True}`},
		{"raw tab in string", "{\"a\":\"\t\"}"},
		{"raw newline in string", "{\"a\":\"\n\"}"},
		{"raw NUL in string", "{\"a\":\"\x00\"}"},
		{"bad escape", `{"a":"\x41"}`},
		{"short unicode escape", `{"a":"\u41"}`},
		{"non-hex unicode escape", `{"a":"\u00g0"}`},
		{"unterminated string", `{"a":"x}`},
		{"escape at the very end", `{"a":"\`},
		{"byte-order mark", "\ufeff{}"},
		{"no-break space", "{\u00a0}"},
		{"form feed is not whitespace", "{\f}"},
		{"vertical tab is not whitespace", "{\v}"},
		{"line separator is not whitespace", "{}\u2028"},
		{"NUL after the object", "{}\x00"},
		{"unbalanced deep nesting", `{"x":` + strings.Repeat("[", 20_000) + "}"},
		{"mismatched brackets", `{"a":[}`},
		{"object key not a string", `{"a":{1:2}}`},
	}
	for _, c := range cases {
		if _, ok := scanObject([]byte(c.body)); ok {
			t.Errorf("case %q should be refused", c.name)
		}
	}
}

func TestScanObjectKeepsTheLastNameAndEmail(t *testing.T) {
	found, ok := scanObject([]byte(`{"name":"\ud800","name":{"a":[1]},"email":5,"na\u006de":"Ok","email":"a@b"}`))
	if !ok || found.name.kind != memberString || string(found.name.raw) != "Ok" ||
		found.email.kind != memberString || string(found.email.raw) != "a@b" {
		t.Errorf("the last duplicate wins, escaped keys included: %+v", found)
	}
	found, ok = scanObject([]byte(`{"name":"A","name":1e400}`))
	if !ok || found.name.kind != memberOther || found.email.kind != memberAbsent {
		t.Errorf("a later non-string replaces a string: %+v", found)
	}
	found, ok = scanObject([]byte(`{"x":{"name":"nested","email":"n@n"}}`))
	if !ok || found.name.kind != memberAbsent || found.email.kind != memberAbsent {
		t.Errorf("nested keys are not top-level keys: %+v", found)
	}
	found, ok = scanObject([]byte(`{"NAME":"A","Email":"a@b"}`))
	if !ok || found.name.kind != memberAbsent || found.email.kind != memberAbsent {
		t.Errorf("keys are case-sensitive (encoding/json would match these): %+v", found)
	}
}

func TestDecodeStringLikeJSONParse(t *testing.T) {
	cases := []struct {
		name, raw, want string
		ok              bool
	}{
		{"plain", "abc", "abc", true},
		{"simple escapes", `\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t", true},
		{"unicode escapes, any case", `\u0041\u00E9\u00e9`, "Aéé", true},
		{"surrogate pair", `\ud83d\ude00`, "😀", true},
		{"raw text around escapes", `a\nb😀c`, "a\nb😀c", true},
		{"lone high surrogate", `\ud800`, "", false},
		{"high surrogate then text", `\ud800x`, "", false},
		{"high surrogate then a short escape", `\ud800\n`, "", false},
		{"lone low surrogate", `a\udc00b`, "", false},
		{"reversed pair", `\udc00\ud800`, "", false},
		{"high then non-surrogate escape", `\ud800\u0041`, "", false},
	}
	for _, c := range cases {
		got, ok := decodeString([]byte(c.raw))
		if got != c.want || ok != c.ok {
			t.Errorf("case %q: got (%q, %v), want (%q, %v)", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestStringsAreEscapedLikeJSONStringify(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"quote and backslash", "\"\\", `"\"\\"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other control characters as lowercase \\u00xx", "\x00\x01\x1f\v", `"\u0000\u0001\u001f\u000b"`},
		{"DEL, separators and HTML characters raw", "\u007f\u2028\u2029<>&'/", "\"\u007f\u2028\u2029<>&'/\""},
		{"non-ASCII raw", "é😀中", `"é😀中"`},
	}
	for _, c := range cases {
		user := &User{ID: 1, Name: c.text, Email: "a@b"}
		want := `{"id":1,"name":` + c.want + `,"email":"a@b"}`
		if got := string(userJSON(user)); got != want {
			t.Errorf("case %q: got %s, want %s", c.name, got, want)
		}
	}
}
