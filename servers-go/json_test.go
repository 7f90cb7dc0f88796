// Tests of the JSON scanner and writer: what JSON.parse accepts and refuses, the last duplicate winning, strings
// decoded and escaped as JavaScript does. The tables are contract/json-bodies.json, which the other twins' tests
// read too. Run: go test .

package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// jsonBodies is contract/json-bodies.json (its header says how to read it).
type jsonBodies struct {
	Objects  table[bodyCase]     `json:"objects"`
	Refused  table[bodyCase]     `json:"refused"`
	LastWins table[lastWinsCase] `json:"last_wins"`
	Strings  table[stringCase]   `json:"strings"`
	Escaped  table[escapedCase]  `json:"escaped"`
}

type table[T any] struct {
	Cases []T `json:"cases"`
}

type bodyCase struct {
	Case string   `json:"case"`
	Body bodyText `json:"body"`
}

type lastWinsCase struct {
	Case  string     `json:"case"`
	Body  bodyText   `json:"body"`
	Name  fileMember `json:"name"`
	Email fileMember `json:"email"`
}

// fileMember is a member as the file writes it: its kind (string, other or absent) and, for a string, its raw text.
type fileMember struct {
	Kind string `json:"kind"`
	Raw  string `json:"raw"`
}

type stringCase struct {
	Case    string  `json:"case"`
	Raw     string  `json:"raw"`
	Decoded *string `json:"decoded"` // nil: not well-formed Unicode
}

type escapedCase struct {
	Case    string `json:"case"`
	Text    string `json:"text"`
	Written string `json:"written"`
}

// bodyText is a body as the file writes it: a string, or parts joined (strings, and {"repeat": text, "times": n}).
type bodyText string

func (b *bodyText) UnmarshalJSON(data []byte) error {
	var whole string
	if json.Unmarshal(data, &whole) == nil {
		*b = bodyText(whole)
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil {
		return err
	}
	var out strings.Builder
	for _, part := range parts {
		var text string
		if json.Unmarshal(part, &text) == nil {
			out.WriteString(text)
			continue
		}
		var repeat struct {
			Repeat string `json:"repeat"`
			Times  int    `json:"times"`
		}
		if err := json.Unmarshal(part, &repeat); err != nil {
			return err
		}
		out.WriteString(strings.Repeat(repeat.Repeat, repeat.Times))
	}
	*b = bodyText(out.String())
	return nil
}

// readJSONBodies reads the shared tables, from the package's directory as go test runs it.
func readJSONBodies(t *testing.T) jsonBodies {
	t.Helper()
	data, err := os.ReadFile("../contract/json-bodies.json")
	if err != nil {
		t.Fatal(err)
	}
	var bodies jsonBodies
	if err := json.Unmarshal(data, &bodies); err != nil {
		t.Fatalf("contract/json-bodies.json: %v", err)
	}
	if len(bodies.Objects.Cases) == 0 || len(bodies.Refused.Cases) == 0 {
		t.Fatal("contract/json-bodies.json: no cases read")
	}
	return bodies
}

func TestScanObjectAcceptsWhatJSONParseAccepts(t *testing.T) {
	for _, c := range readJSONBodies(t).Objects.Cases {
		if _, ok := scanObject([]byte(c.Body)); !ok {
			t.Errorf("case %q should be accepted", c.Case)
		}
	}
}

func TestScanObjectRefusesWhatJSONParseRefuses(t *testing.T) {
	for _, c := range readJSONBodies(t).Refused.Cases {
		if _, ok := scanObject([]byte(c.Body)); ok {
			t.Errorf("case %q should be refused", c.Case)
		}
	}
}

// sameMember says whether the scanner's member is the one the file names.
func sameMember(got member, want fileMember) bool {
	switch want.Kind {
	case "string":
		return got.kind == memberString && string(got.raw) == want.Raw
	case "other":
		return got.kind == memberOther
	case "absent":
		return got.kind == memberAbsent
	}
	return false
}

func TestScanObjectKeepsTheLastNameAndEmail(t *testing.T) {
	for _, c := range readJSONBodies(t).LastWins.Cases {
		found, ok := scanObject([]byte(c.Body))
		if !ok || !sameMember(found.name, c.Name) || !sameMember(found.email, c.Email) {
			t.Errorf("case %q: got %+v, want name %+v and email %+v", c.Case, found, c.Name, c.Email)
		}
	}
}

func TestDecodeStringLikeJSONParse(t *testing.T) {
	for _, c := range readJSONBodies(t).Strings.Cases {
		got, ok := decodeString([]byte(c.Raw))
		if ok != (c.Decoded != nil) || (ok && got != *c.Decoded) {
			t.Errorf("case %q: got (%q, %v), want %v", c.Case, got, ok, c.Decoded)
		}
	}
}

func TestStringsAreEscapedLikeJSONStringify(t *testing.T) {
	for _, c := range readJSONBodies(t).Escaped.Cases {
		user := &User{ID: 1, Name: c.Text, Email: "a@b"}
		want := `{"id":1,"name":` + c.Written + `,"email":"a@b"}`
		if got := string(userJSON(user)); got != want {
			t.Errorf("case %q: got %s, want %s", c.Case, got, want)
		}
	}
}
