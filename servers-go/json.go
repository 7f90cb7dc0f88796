// A small JSON scanner that accepts exactly what JavaScript's JSON.parse accepts, and a writer that escapes strings
// exactly as JSON.stringify does. The Rust server's crates/users-api/src/json.rs does the same job the same way.
//
// Why not encoding/json? It disagrees with JSON.parse where the contract cares:
//   - it turns a lone surrogate escape ("\ud800") into U+FFFD, where the contract wants the final name or email
//     holding one refused as invalid json, and any other value holding one accepted;
//   - it matches keys case-insensitively when decoding into a struct ("NAME" would count as name);
//   - it stops at 10,000 levels of nesting, where JSON.parse takes any depth a 64 KiB body holds;
//   - when writing, it escapes <, > and & (unless told not to) and always U+2028 and U+2029, which JSON.stringify
//     leaves raw, and it rewrites invalid UTF-8.
//
// So scanObject walks the bytes once, without recursion (an explicit stack of open containers), checks the grammar
// of RFC 8259 with JSON.parse's whitespace set, and keeps only where the last top-level name and email values are.

package main

import (
	"strconv"
	"unicode/utf8"
)

// memberKind says what a top-level member's value is; only strings matter to the API.
type memberKind int

const (
	memberAbsent memberKind = iota
	memberString            // raw holds what lies between the quotes, escapes not yet decoded
	memberOther             // a number, object, array, true, false or null
)

// member is the raw value of a top-level member.
type member struct {
	kind memberKind
	raw  []byte
}

// fields is what the scanner keeps of a valid top-level object: its last name and its last email member.
type fields struct {
	name  member
	email member
}

// openKind is a container open on the scanner's explicit stack.
type openKind int

const (
	openObject openKind = iota
	openArray
)

// scanner is a cursor over the body's bytes.
type scanner struct {
	bytes []byte
	pos   int
}

// scanObject checks that text (already valid UTF-8) is one JSON object surrounded by optional whitespace, and
// returns its last name and email members; ok is false when JSON.parse would refuse it or it is not an object.
// A byte-order mark is not whitespace for JSON.parse, so a body starting with one is refused like any stray byte.
func scanObject(text []byte) (found fields, ok bool) {
	s := scanner{bytes: text}
	// The stack of open containers is shared by all the values of the object, so it grows at most once.
	var open []openKind

	s.skipWhitespace()
	if !s.eat('{') {
		return fields{}, false
	}
	s.skipWhitespace()
	if !s.eat('}') {
		for {
			s.skipWhitespace()
			keyStart := s.pos + 1
			escaped, good := s.str()
			if !good {
				return fields{}, false
			}
			key := text[keyStart : s.pos-1]
			s.skipWhitespace()
			if !s.eat(':') {
				return fields{}, false
			}
			s.skipWhitespace()
			start := s.pos
			if open, good = s.value(open); !good {
				return fields{}, false
			}
			value := member{kind: memberOther}
			if text[start] == '"' {
				value = member{kind: memberString, raw: text[start+1 : s.pos-1]}
			}
			switch keyOf(key, escaped) {
			case "name":
				found.name = value
			case "email":
				found.email = value
			}
			s.skipWhitespace()
			next, more := s.next()
			if !more {
				return fields{}, false
			}
			if next == '}' {
				break
			}
			if next != ',' {
				return fields{}, false
			}
		}
	}
	s.skipWhitespace()
	return found, s.pos == len(s.bytes)
}

// keyOf is the key a raw key token spells, escapes included ("na\u006de" is name for JSON.parse too). Only name and
// email matter, so any other key, or one that is not well-formed Unicode, comes back as "".
func keyOf(raw []byte, escaped bool) string {
	if !escaped {
		switch string(raw) { // The compiler does not allocate for a string conversion in a switch.
		case "name":
			return "name"
		case "email":
			return "email"
		}
		return ""
	}
	decoded, ok := decodeString(raw)
	if ok && (decoded == "name" || decoded == "email") {
		return decoded
	}
	return ""
}

// decodeString decodes the contents of a string token that scanObject has already checked. ok is false when the
// escapes spell an unpaired surrogate, which JSON.parse allows but which cannot be sent back as UTF-8.
func decodeString(raw []byte) (text string, ok bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			out = append(out, raw[i])
			i++
			continue
		}
		escape := raw[i+1]
		i += 2
		switch escape {
		case '"', '\\', '/':
			out = append(out, escape)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			unit, _ := hex4(raw, i)
			i += 4
			code := unit
			switch {
			case unit >= 0xD800 && unit <= 0xDBFF:
				// A high surrogate counts only when a low surrogate escape follows right away.
				low, isHex := hex4(raw, i+2)
				if i+1 >= len(raw) || raw[i] != '\\' || raw[i+1] != 'u' || !isHex || low < 0xDC00 || low > 0xDFFF {
					return "", false
				}
				i += 6
				code = 0x10000 + (unit-0xD800)<<10 + (low - 0xDC00)
			case unit >= 0xDC00 && unit <= 0xDFFF:
				return "", false
			}
			out = utf8.AppendRune(out, rune(code))
		default:
			return "", false
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape starting at at, as a UTF-16 code unit.
func hex4(bytes []byte, at int) (unit uint32, ok bool) {
	if at < 0 || at+4 > len(bytes) {
		return 0, false
	}
	for _, digit := range bytes[at : at+4] {
		var value byte
		switch {
		case digit >= '0' && digit <= '9':
			value = digit - '0'
		case digit >= 'a' && digit <= 'f':
			value = digit - 'a' + 10
		case digit >= 'A' && digit <= 'F':
			value = digit - 'A' + 10
		default:
			return 0, false
		}
		unit = unit*16 + uint32(value)
	}
	return unit, true
}

func (s *scanner) peek() (byte, bool) {
	if s.pos < len(s.bytes) {
		return s.bytes[s.pos], true
	}
	return 0, false
}

func (s *scanner) next() (byte, bool) {
	b, ok := s.peek()
	if ok {
		s.pos++
	}
	return b, ok
}

func (s *scanner) eat(want byte) bool {
	if b, ok := s.peek(); ok && b == want {
		s.pos++
		return true
	}
	return false
}

// skipWhitespace skips JSON.parse's whitespace: space, tab, line feed and carriage return, and nothing else (no
// no-break space, no U+2028, no byte-order mark).
func (s *scanner) skipWhitespace() {
	for s.pos < len(s.bytes) {
		switch s.bytes[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans one complete value of any depth. Instead of recursing, it keeps the open containers in open, which
// it returns empty again on success (so its storage is reused for the next value).
func (s *scanner) value(open []openKind) ([]openKind, bool) {
	for {
		// Here a value must start.
		s.skipWhitespace()
		b, ok := s.next()
		if !ok {
			return open, false
		}
		switch {
		case b == '{':
			s.skipWhitespace()
			if !s.eat('}') {
				open = append(open, openObject)
				if !s.memberKey() {
					return open, false
				}
				continue
			}
		case b == '[':
			s.skipWhitespace()
			if !s.eat(']') {
				open = append(open, openArray)
				continue
			}
		case b == '"':
			s.pos--
			if _, ok := s.str(); !ok {
				return open, false
			}
		case b == 't':
			ok = s.restOfLiteral("rue")
		case b == 'f':
			ok = s.restOfLiteral("alse")
		case b == 'n':
			ok = s.restOfLiteral("ull")
		case b == '-' || (b >= '0' && b <= '9'):
			s.pos--
			ok = s.number()
		default:
			ok = false
		}
		if !ok {
			return open, false
		}
		// A value has just ended: close containers until one continues with a comma, or the outermost value ends.
		if open, ok = s.closeContainers(open); !ok {
			return open, false
		}
		if len(open) == 0 {
			return open, true
		}
	}
}

// closeContainers is value's second half: after a value, it pops every container that ends here and stops after
// the comma of one that goes on (and after the next key, in an object). An empty stack means the outermost value
// has ended.
func (s *scanner) closeContainers(open []openKind) ([]openKind, bool) {
	for len(open) > 0 {
		innermost := open[len(open)-1]
		s.skipWhitespace()
		b, _ := s.next()
		switch {
		case b == ',' && innermost == openObject:
			s.skipWhitespace()
			return open, s.memberKey()
		case b == ',' && innermost == openArray:
			return open, true
		case (b == '}' && innermost == openObject) || (b == ']' && innermost == openArray):
			open = open[:len(open)-1]
		default:
			return open, false
		}
	}
	return open, true
}

// memberKey scans `"key" :` inside a nested object, up to where the member's value starts.
func (s *scanner) memberKey() bool {
	if _, ok := s.str(); !ok {
		return false
	}
	s.skipWhitespace()
	return s.eat(':')
}

// str scans a string token: no raw control characters (below U+0020), only the escapes JSON defines. Lone surrogate
// escapes are fine here, as they are for JSON.parse. escaped says whether the token holds any escape.
func (s *scanner) str() (escaped bool, ok bool) {
	if !s.eat('"') {
		return false, false
	}
	for {
		b, more := s.next()
		switch {
		case !more || b < 0x20:
			return false, false
		case b == '"':
			return escaped, true
		case b == '\\':
			escaped = true
			e, more := s.next()
			switch {
			case !more:
				return false, false
			case e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't':
			case e == 'u':
				if _, isHex := hex4(s.bytes, s.pos); !isHex {
					return false, false
				}
				s.pos += 4
			default:
				return false, false
			}
		}
		// Any other byte, including those of multi-byte UTF-8 sequences, which the caller has validated.
	}
}

// number scans -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, of any magnitude.
func (s *scanner) number() bool {
	s.eat('-')
	b, _ := s.next()
	switch {
	case b == '0':
	case b >= '1' && b <= '9':
		s.digits()
	default:
		return false
	}
	if s.eat('.') && !s.atLeastOneDigit() {
		return false
	}
	if b, ok := s.peek(); ok && (b == 'e' || b == 'E') {
		s.pos++
		if b, ok := s.peek(); ok && (b == '+' || b == '-') {
			s.pos++
		}
		return s.atLeastOneDigit()
	}
	return true
}

func (s *scanner) digits() {
	for s.pos < len(s.bytes) && s.bytes[s.pos] >= '0' && s.bytes[s.pos] <= '9' {
		s.pos++
	}
}

func (s *scanner) atLeastOneDigit() bool {
	start := s.pos
	s.digits()
	return s.pos > start
}

func (s *scanner) restOfLiteral(rest string) bool {
	if len(s.bytes)-s.pos >= len(rest) && string(s.bytes[s.pos:s.pos+len(rest)]) == rest {
		s.pos += len(rest)
		return true
	}
	return false
}

// appendJSONString appends text as a JSON string escaped the way JSON.stringify does it: \" and \\, the short
// escapes \b \f \n \r \t, other control characters as lowercase \u00xx, and everything else (non-ASCII, DEL, U+2028,
// <, > and &) as it is. The text always comes from validated input or the seed, so it is valid UTF-8.
func appendJSONString(out []byte, text string) []byte {
	const hexDigits = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, text[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	out = append(out, text[start:]...)
	return append(out, '"')
}

// userJSON serialises a user as the contract writes it: {"id":N,"name":"…","email":"…"}, compact, in that order.
func userJSON(user *User) []byte {
	out := make([]byte, 0, 32+len(user.Name)+len(user.Email))
	out = append(out, `{"id":`...)
	out = strconv.AppendUint(out, user.ID, 10)
	out = append(out, `,"name":`...)
	out = appendJSONString(out, user.Name)
	out = append(out, `,"email":`...)
	out = appendJSONString(out, user.Email)
	return append(out, '}')
}

// objectJSON serialises a one-member object such as {"error":"not found"} or {"status":"ok"}.
func objectJSON(key, value string) []byte {
	out := make([]byte, 0, 8+len(key)+len(value))
	out = append(out, '{')
	out = appendJSONString(out, key)
	out = append(out, ':')
	out = appendJSONString(out, value)
	return append(out, '}')
}
