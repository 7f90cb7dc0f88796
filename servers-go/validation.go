// Turning request input into a new user, or into the exact error the contract names.
//
// "Parse, don't validate": parseNewUser takes the raw body bytes and returns either a new user's two strings or the
// one error the first broken rule gives, in the contract's order (POST /users, rules 3 to 6). The content type
// (rule 1) is checked by isJSONMediaType, the size (rule 2) while the body is read (body.go), and the store being
// full (rule 7) is the store's business. The Node server's validation.js does the same job.

package main

import (
	"strings"
	"unicode/utf8"
)

// MaxNameCodePoints and MaxEmailCodePoints are the longest name and email accepted, in code points.
const (
	MaxNameCodePoints  = 200
	MaxEmailCodePoints = 254
)

// newUser is a user that passed validation and has no id yet.
type newUser struct {
	name  string
	email string
}

// parseNewUser parses a POST /users body, applying rules 3 to 6 in order; err is nil when they all pass.
func parseNewUser(body []byte) (user newUser, err *apiError) {
	// Rule 3: valid UTF-8 (utf8.Valid also refuses overlong forms and UTF-8-encoded surrogates, like a fatal
	// decoder) holding one JSON value that JSON.parse accepts, and that value an object.
	if !utf8.Valid(body) {
		return newUser{}, &errInvalidJSON
	}
	found, ok := scanObject(body)
	if !ok {
		return newUser{}, &errInvalidJSON
	}

	// Rule 4, for both fields before rule 5: a final name or email that is a string must be well-formed Unicode,
	// so {"name":"","email":"\udfff"} is invalid json, not name required.
	name, nameIsString, ok := decodeMember(found.name)
	if !ok {
		return newUser{}, &errInvalidJSON
	}
	email, emailIsString, ok := decodeMember(found.email)
	if !ok {
		return newUser{}, &errInvalidJSON
	}

	// Rule 5.
	if !nameIsString || name == "" {
		return newUser{}, &errNameRequired
	}
	if utf8.RuneCountInString(name) > MaxNameCodePoints {
		return newUser{}, &errNameTooLong
	}

	// Rule 6.
	if !emailIsString || utf8.RuneCountInString(email) > MaxEmailCodePoints || !strings.Contains(email, "@") {
		return newUser{}, &errInvalidEmail
	}
	return newUser{name: name, email: email}, nil
}

// decodeMember decodes a member that is a string. isString is false when it is absent or not a string (rules 5
// and 6 deal with that); ok is false when it is a string that is not well-formed Unicode (rule 4).
func decodeMember(m member) (text string, isString bool, ok bool) {
	if m.kind != memberString {
		return "", false, true
	}
	text, ok = decodeString(m.raw)
	return text, true, ok
}

// isJSONMediaType is rule 1: whether a Content-Type value names application/json. Only the media type counts (the
// part before ';'), with spaces and tabs around it ignored, compared case-insensitively. strings.TrimSpace is not
// used because it also strips other white space (a no-break space among them), which HTTP does not; and
// strings.EqualFold is not used because it folds Unicode too ("ſ", U+017F, would match the "s" of json).
func isJSONMediaType(value string) bool {
	if semicolon := strings.IndexByte(value, ';'); semicolon != -1 {
		value = value[:semicolon]
	}
	return asciiEqualFold(strings.Trim(value, " \t"), "application/json")
}

// asciiEqualFold compares two strings with ASCII letters folded to lower case and every other byte as it is.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLower(a[i]) != asciiLower(b[i]) {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}
