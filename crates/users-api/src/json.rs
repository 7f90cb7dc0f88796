//! A small JSON scanner that accepts exactly what JavaScript's `JSON.parse` accepts.
//!
//! The contract makes Node's `JSON.parse` the reference for which request bodies are valid JSON, and a general-purpose
//! Rust parser disagrees with it in ways that matter here:
//!
//! - `serde_json::Value` stops at 128 levels of nesting (and overflows the stack when that limit is lifted), while
//!   `JSON.parse` takes any depth a 64 KiB body can hold;
//! - numbers such as `1e400` are fine for `JSON.parse` (they become `Infinity`) but are an error for serde_json;
//! - `JSON.parse` accepts strings that are not well-formed Unicode (a lone surrogate escape like `"\ud800"`), which a
//!   Rust `String` cannot hold;
//! - with duplicate keys the last one wins, so an earlier, unusable value of `name` must not make the body invalid.
//!
//! So instead of building a tree, [`scan_object`] walks the bytes once, without recursion (an explicit stack of open
//! containers), checks the grammar of RFC 8259 with `JSON.parse`'s whitespace set, and remembers only where the
//! *last* `name` and `email` values of the top-level object are. Only those two are decoded afterwards, by
//! [`decode_string`]. Everything else is validated and forgotten, so unknown keys cost no allocation at all.
//!
//! ## Why not serde_json without a tree?
//!
//! The list above is about serde_json building values (`Value`, or a `#[derive(Deserialize)]` struct). serde_json
//! can also skip values without building them, and that route was tried: a map visitor that takes every key and the
//! last `name` and `email` as `&RawValue` and skips the rest with `IgnoredAny` (`tests/json_serde_route.rs`). It
//! agrees with this scanner on every body of `contract/json-bodies.json` and on every POST body of `contract/cases.json`,
//! because serde_json skips values iteratively, with no depth limit, without converting numbers and without checking
//! surrogates. It would still need [`decode_string`] and an escaped-key check, and it replaces about 250 lines with
//! about 60. It was not taken, for two reasons. It is slower: per body, 79, 107 and 119 ns against this scanner's 65,
//! 92 and 105 ns on the benchmark's POST body, and 510 to 750 ns against 410 to 530 ns with ten unknown keys (three
//! runs of `cargo test --release -p users-api --test json_serde_route -- --ignored --nocapture` on a busy machine);
//! that is about 0.1 % of a POST's 11 µs of CPU, too little for `fairpair run` to see, but not no loss. And its
//! agreement with `JSON.parse` rests on how serde_json *skips* values, which its documentation does not promise: a
//! release that checked depth or surrogates while skipping would break the contract silently, where this scanner
//! states `JSON.parse`'s grammar where it can be read. The test keeps the comparison running, so that this paragraph
//! is checked whenever serde_json changes.

/// The body is not one JSON value that `JSON.parse` would accept, or that value is not an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

/// A string decodes to UTF-16 that is not well-formed Unicode: it holds an unpaired surrogate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllFormed;

/// The raw value of a top-level member, as it appears in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member<'a> {
    /// A string; the slice is what lies between the quotes, escapes not yet decoded.
    String(&'a str),
    /// Any other value (number, object, array, `true`, `false` or `null`).
    Other,
}

/// What the scanner keeps of a valid top-level object: the last `name` and the last `email` member, if any.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Fields<'a> {
    pub name: Option<Member<'a>>,
    pub email: Option<Member<'a>>,
}

/// Checks that `text` is one JSON object (surrounded by optional whitespace) and returns its last `name` and `email`
/// members.
///
/// `text` is a `&str`, so it is already known to be valid UTF-8; a byte-order mark is not whitespace for
/// `JSON.parse`, so a body starting with one is rejected like any other stray character.
pub fn scan_object(text: &str) -> Result<Fields<'_>, Invalid> {
    let mut scanner = Scanner { bytes: text.as_bytes(), pos: 0 };
    // The stack of open containers is shared by all the values of the object, so it is allocated at most once.
    let mut open = Vec::new();
    let mut fields = Fields::default();

    scanner.skip_whitespace();
    scanner.expect(b'{')?;
    scanner.skip_whitespace();
    if !scanner.eat(b'}') {
        loop {
            scanner.skip_whitespace();
            let key = scanner.string()?;
            scanner.skip_whitespace();
            scanner.expect(b':')?;
            scanner.skip_whitespace();
            let start = scanner.pos;
            scanner.value(&mut open)?;
            let member = if text.as_bytes()[start] == b'"' {
                // The value is a string token: drop the quotes, keep the escapes for `decode_string`.
                Member::String(&text[start + 1..scanner.pos - 1])
            } else {
                Member::Other
            };
            match key_of(&text[key.start..key.end], key.escaped) {
                Some(Key::Name) => fields.name = Some(member),
                Some(Key::Email) => fields.email = Some(member),
                None => {}
            }
            scanner.skip_whitespace();
            match scanner.next() {
                Some(b',') => continue,
                Some(b'}') => break,
                _ => return Err(Invalid),
            }
        }
    }
    scanner.skip_whitespace();
    if scanner.pos == scanner.bytes.len() { Ok(fields) } else { Err(Invalid) }
}

/// Decodes the contents of a string token (the part between the quotes) that [`scan_object`] has already checked.
///
/// Returns [`IllFormed`] when the escapes spell an unpaired surrogate, which `JSON.parse` allows but a Rust `String`
/// cannot represent. Text without escapes is copied as it is: it is valid UTF-8, and the scanner has rejected raw
/// control characters.
pub fn decode_string(raw: &str) -> Result<String, IllFormed> {
    if !raw.contains('\\') {
        return Ok(raw.to_owned());
    }
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut run_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // Copy the unescaped run before the backslash. Both ends are ASCII bytes, so they are char boundaries.
        out.push_str(&raw[run_start..i]);
        let escape = *bytes.get(i + 1).ok_or(IllFormed)?;
        i += 2;
        let decoded = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(bytes, i).ok_or(IllFormed)?;
                i += 4;
                match unit {
                    // A high surrogate counts only when a low surrogate escape follows right away.
                    0xD800..=0xDBFF => {
                        let low = match (bytes.get(i..i + 2), hex4(bytes, i + 2)) {
                            (Some(b"\\u"), Some(low @ 0xDC00..=0xDFFF)) => low,
                            _ => return Err(IllFormed),
                        };
                        i += 6;
                        let code_point = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(code_point).ok_or(IllFormed)?
                    }
                    0xDC00..=0xDFFF => return Err(IllFormed),
                    _ => char::from_u32(unit).ok_or(IllFormed)?,
                }
            }
            _ => return Err(IllFormed),
        };
        out.push(decoded);
        run_start = i;
    }
    out.push_str(&raw[run_start..]);
    Ok(out)
}

/// The four hex digits of a `\u` escape starting at `at`, as a UTF-16 code unit.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |unit, &digit| Some(unit * 16 + char::from(digit).to_digit(16)?))
}

/// The two keys the API reads.
enum Key {
    Name,
    Email,
}

/// Which key a raw key token spells, escapes included: `"na\u006de"` is `name` for `JSON.parse` too.
fn key_of(raw: &str, escaped: bool) -> Option<Key> {
    let decoded;
    let key = if escaped {
        // A key that is not well-formed Unicode cannot be `name` or `email`; it is just an unknown key.
        decoded = decode_string(raw).ok()?;
        decoded.as_str()
    } else {
        raw
    };
    match key {
        "name" => Some(Key::Name),
        "email" => Some(Key::Email),
        _ => None,
    }
}

/// Where a string token's contents lie, and whether they hold any escape.
struct StringSpan {
    start: usize,
    end: usize,
    escaped: bool,
}

/// A cursor over the body's bytes.
struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// An open container on the scanner's explicit stack.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    Array,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.pos += 1;
        Some(byte)
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), Invalid> {
        if self.eat(byte) { Ok(()) } else { Err(Invalid) }
    }

    /// Skips `JSON.parse`'s whitespace: space, tab, line feed and carriage return, and nothing else (no NBSP, no
    /// U+2028, no BOM).
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Scans one complete value of any depth. Instead of recursing (which a deeply nested body would turn into a stack
    /// overflow), it keeps the open containers in `open`, which it leaves empty again on success.
    fn value(&mut self, open: &mut Vec<Open>) -> Result<(), Invalid> {
        debug_assert!(open.is_empty());
        loop {
            // Here a value must start.
            self.skip_whitespace();
            match self.next().ok_or(Invalid)? {
                b'{' => {
                    self.skip_whitespace();
                    if !self.eat(b'}') {
                        open.push(Open::Object);
                        self.member_key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.skip_whitespace();
                    if !self.eat(b']') {
                        open.push(Open::Array);
                        continue;
                    }
                }
                b'"' => {
                    self.pos -= 1;
                    self.string()?;
                }
                b't' => self.rest_of_literal(b"rue")?,
                b'f' => self.rest_of_literal(b"alse")?,
                b'n' => self.rest_of_literal(b"ull")?,
                b'-' | b'0'..=b'9' => {
                    self.pos -= 1;
                    self.number()?;
                }
                _ => return Err(Invalid),
            }
            // A value has just ended: close containers until one continues with a comma, or the outermost value ends.
            loop {
                let Some(&innermost) = open.last() else {
                    return Ok(());
                };
                self.skip_whitespace();
                match (innermost, self.next()) {
                    (Open::Object, Some(b',')) => {
                        self.skip_whitespace();
                        self.member_key()?;
                        break;
                    }
                    (Open::Array, Some(b',')) => break,
                    (Open::Object, Some(b'}')) | (Open::Array, Some(b']')) => {
                        open.pop();
                    }
                    _ => return Err(Invalid),
                }
            }
        }
    }

    /// Scans `"key" :` inside a nested object, up to where the member's value starts.
    fn member_key(&mut self) -> Result<(), Invalid> {
        self.string()?;
        self.skip_whitespace();
        self.expect(b':')
    }

    /// Scans a string token: no raw control characters (below U+0020), only the escapes JSON defines. Lone
    /// surrogate escapes are fine here, as they are for `JSON.parse`.
    fn string(&mut self) -> Result<StringSpan, Invalid> {
        self.expect(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            match self.next().ok_or(Invalid)? {
                b'"' => {
                    return Ok(StringSpan { start, end: self.pos - 1, escaped });
                }
                b'\\' => {
                    escaped = true;
                    match self.next().ok_or(Invalid)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            hex4(self.bytes, self.pos).ok_or(Invalid)?;
                            self.pos += 4;
                        }
                        _ => return Err(Invalid),
                    }
                }
                0x00..=0x1F => return Err(Invalid),
                // Any other byte, including the bytes of multi-byte UTF-8 sequences, which the caller has validated.
                _ => {}
            }
        }
    }

    /// Scans a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, of any magnitude.
    fn number(&mut self) -> Result<(), Invalid> {
        self.eat(b'-');
        match self.next() {
            Some(b'0') => {}
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Invalid),
        }
        if self.eat(b'.') {
            self.at_least_one_digit()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.at_least_one_digit()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn at_least_one_digit(&mut self) -> Result<(), Invalid> {
        let start = self.pos;
        self.digits();
        if self.pos > start { Ok(()) } else { Err(Invalid) }
    }

    fn rest_of_literal(&mut self, rest: &[u8]) -> Result<(), Invalid> {
        if self.bytes[self.pos..].starts_with(rest) {
            self.pos += rest.len();
            Ok(())
        } else {
            Err(Invalid)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::json_bodies::{self, json_bodies};

    /// Bodies `JSON.parse` accepts as an object (`contract/json-bodies.json`, as every twin's tests).
    #[test]
    fn accepts_what_json_parse_accepts() {
        for case in &json_bodies().objects {
            assert!(scan_object(&case.body).is_ok(), "case {:?} should be accepted", case.case);
        }
    }

    /// Bodies `JSON.parse` rejects, or whose value is not an object.
    #[test]
    fn rejects_what_json_parse_rejects() {
        for case in &json_bodies().refused {
            assert_eq!(scan_object(&case.body), Err(Invalid), "case {:?} should be rejected", case.case);
        }
    }

    #[test]
    fn keeps_the_last_name_and_email() {
        fn member(m: &json_bodies::Member) -> Option<Member<'_>> {
            match m {
                json_bodies::Member::String(raw) => Some(Member::String(raw)),
                json_bodies::Member::Other => Some(Member::Other),
                json_bodies::Member::Absent => None,
            }
        }
        for case in &json_bodies().last_wins {
            let expected = Fields { name: member(&case.name), email: member(&case.email) };
            assert_eq!(scan_object(&case.body), Ok(expected), "case {:?}", case.case);
        }
    }

    #[test]
    fn decodes_strings_like_json_parse() {
        for case in &json_bodies().strings {
            let decoded = decode_string(&case.raw).ok();
            assert_eq!(decoded.as_deref(), case.decoded.as_deref(), "case {:?} (None: ill-formed)", case.case);
        }
    }
}
