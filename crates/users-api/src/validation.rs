//! Validation: the user, and the rules a new user must pass ("parse, don't validate"). The Node server's
//! `validation.js` and the Go server's `validation.go` do the same job.
//!
//! [`NewUser::parse`] is the only way to get a [`NewUser`], so a value of that type is proof that the body passed
//! rules 3 to 6 of `POST /users`, in the contract's order. The store (rule 7) only ever receives one. Rule 1, the
//! content type, is `is_json_media_type`; rule 2, the size, is checked while the body is read (`body.rs`).

use axum::http::HeaderValue;
use serde::Serialize;

use crate::error::ApiError;
use crate::json::{self, Member};

/// The longest `name` accepted, in code points.
pub const MAX_NAME_CHARS: usize = 200;
/// The longest `email` accepted, in code points.
pub const MAX_EMAIL_CHARS: usize = 254;

/// A stored user. Serialising it gives the contract's JSON: keys in the order `id`, `name`, `email`.
///
/// The strings are `Box<str>` rather than `String`: they never change after creation, and a box is one word smaller
/// and holds no spare capacity, which adds up over a million users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct User {
    pub id: u64,
    pub name: Box<str>,
    pub email: Box<str>,
}

/// A user that passed validation and has no id yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUser {
    name: Box<str>,
    email: Box<str>,
}

impl NewUser {
    /// Parses a `POST /users` body, applying the contract's rules 3 to 6 in order and returning the first one broken.
    pub fn parse(body: &[u8]) -> Result<NewUser, ApiError> {
        // Rule 3: valid UTF-8 holding one JSON object. `from_utf8` rejects overlong forms and UTF-8-encoded
        // surrogates too, exactly like a fatal UTF-8 decoder.
        let text = std::str::from_utf8(body).map_err(|_| ApiError::InvalidJson)?;
        let fields = json::scan_object(text).map_err(|_| ApiError::InvalidJson)?;

        // Rule 4: a final `name` or `email` that is a string must be well-formed Unicode. Both are decoded before
        // rule 5 is looked at, so `{"name":"","email":"\udfff"}` is `invalid json`, not `name required`.
        let name = decode(fields.name)?;
        let email = decode(fields.email)?;

        // Rule 5.
        let name = match name {
            Some(name) if !name.is_empty() => name,
            _ => return Err(ApiError::NameRequired),
        };
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(ApiError::NameTooLong);
        }

        // Rule 6.
        let email = match email {
            Some(email) if email.contains('@') && email.chars().count() <= MAX_EMAIL_CHARS => email,
            _ => return Err(ApiError::InvalidEmail),
        };

        Ok(NewUser { name: name.into_boxed_str(), email: email.into_boxed_str() })
    }

    /// The name, exactly as sent (escapes decoded, nothing trimmed or normalised).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The email, exactly as sent.
    pub fn email(&self) -> &str {
        &self.email
    }

    /// The stored user this becomes once the store has given it an id.
    pub fn with_id(self, id: u64) -> User {
        User { id, name: self.name, email: self.email }
    }
}

/// Rule 1, for a `Content-Type` value: the media type (before any `;`), with spaces and tabs trimmed, is `application/json` in any case. Only
/// spaces and tabs are trimmed: a no-break space is not, so `application/json\u{a0}` is refused, as in Node.
pub(crate) fn is_json_media_type(value: Option<&HeaderValue>) -> bool {
    let Some(value) = value else {
        return false;
    };
    let media_type = value.as_bytes().split(|&b| b == b';').next().unwrap_or_default();
    trim_spaces_and_tabs(media_type).eq_ignore_ascii_case(b"application/json")
}

/// The value without the spaces and tabs around it (the only blanks HTTP allows there).
pub(crate) fn trim_spaces_and_tabs(bytes: &[u8]) -> &[u8] {
    let is_blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = bytes.iter().position(|b| !is_blank(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !is_blank(b)).map_or(start, |last| last + 1);
    &bytes[start..end]
}

/// Decodes a member that is a string; `Ok(None)` when it is absent or not a string (rules 5 and 6 deal with that).
fn decode(member: Option<Member<'_>>) -> Result<Option<String>, ApiError> {
    match member {
        Some(Member::String(raw)) => json::decode_string(raw).map(Some).map_err(|_| ApiError::InvalidJson),
        Some(Member::Other) | None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_type_rule() {
        let cases: &[(&str, &[u8], bool)] = &[
            ("exact", b"application/json", true),
            ("parameters", b"application/json; charset=utf-8", true),
            ("case-insensitive", b"Application/JSON", true),
            ("spaces and tabs trimmed", b" \tapplication/json \t;x", true),
            ("empty parameters", b"application/json;", true),
            ("other type", b"text/plain", false),
            ("suffix", b"application/jsonx", false),
            ("structured suffix", b"application/merge-patch+json", false),
            ("list", b"application/json, text/plain", false),
            ("no-break space not trimmed", b"application/json\xc2\xa0", false),
            ("empty", b"", false),
        ];
        for (case, value, expected) in cases {
            let value = HeaderValue::from_bytes(value).unwrap();
            assert_eq!(is_json_media_type(Some(&value)), *expected, "case {case:?}");
        }
        assert!(!is_json_media_type(None), "no Content-Type at all");
    }

    fn parse(body: &str) -> Result<NewUser, ApiError> {
        NewUser::parse(body.as_bytes())
    }

    /// Runs a table of bodies that must all fail with `expected`, naming the failing case.
    fn assert_all_rejected(expected: ApiError, cases: &[(&str, &[u8])]) {
        for (case, body) in cases {
            assert_eq!(NewUser::parse(body), Err(expected), "case {case:?}");
        }
    }

    #[test]
    fn accepts_a_valid_user_exactly_as_sent() {
        let user = parse(r#"{"name":"  Ann \u00e9\ud83d\ude00 ","email":" a@b ","id":7,"admin":true}"#).unwrap();
        assert_eq!(user.name(), "  Ann é😀 ");
        assert_eq!(user.email(), " a@b ");
        assert_eq!(user.clone().with_id(10001), User { id: 10001, name: user.name.clone(), email: user.email.clone() });
    }

    #[test]
    fn rule_3_invalid_json() {
        let deep = format!("{{\"x\":{},\"name\":\"A\",\"email\":\"a@b\"", "[".repeat(20_000));
        assert_all_rejected(
            ApiError::InvalidJson,
            &[
                ("empty body", b""),
                ("not an object", br#"[{"name":"A","email":"a@b"}]"#),
                ("a string", br#""x""#),
                ("truncated", br#"{"name":"A""#),
                ("trailing garbage", br#"{"name":"A","email":"a@b"} x"#),
                ("byte-order mark", b"\xef\xbb\xbf{\"name\":\"A\",\"email\":\"a@b\"}"),
                ("invalid UTF-8 in name", b"{\"name\":\"A\xff\",\"email\":\"a@b\"}"),
                ("invalid UTF-8 in an unknown value", b"{\"name\":\"A\",\"email\":\"a@b\",\"x\":\"\xc3\"}"),
                ("overlong UTF-8", b"{\"name\":\"\xc0\xaf\",\"email\":\"a@b\"}"),
                ("UTF-8-encoded surrogate", b"{\"name\":\"\xed\xa0\x80\",\"email\":\"a@b\"}"),
                ("raw control character", b"{\"name\":\"A\x01\",\"email\":\"a@b\"}"),
                ("unbalanced deep nesting", deep.as_bytes()),
            ],
        );
    }

    #[test]
    fn rule_3_accepts_what_json_parse_accepts() {
        let deep = format!(r#"{{"x":{}{},"name":"Deep","email":"d@e"}}"#, "[".repeat(32_000), "]".repeat(32_000));
        let cases: &[(&str, &str)] = &[
            ("deep nesting", &deep),
            ("huge numbers", r#"{"n":1e400,"m":-1e400,"name":"A","email":"a@b"}"#),
            ("lone surrogate in an unknown key and value", r#"{"\udc00":"\ud800","name":"A","email":"a@b"}"#),
            ("earlier duplicate malformed", r#"{"name":"\ud800","name":1e400,"name":"Ok","email":"a@b"}"#),
        ];
        for (case, body) in cases {
            assert!(parse(body).is_ok(), "case {case:?} should be accepted");
        }
    }

    #[test]
    fn rule_4_final_name_or_email_not_well_formed() {
        assert_all_rejected(
            ApiError::InvalidJson,
            &[
                ("lone high surrogate in name", br#"{"name":"\ud800","email":"a@b"}"#),
                ("lone low surrogate in name", br#"{"name":"a\udc00b","email":"a@b"}"#),
                ("reversed pair in name", br#"{"name":"\udc00\ud800","email":"a@b"}"#),
                ("lone surrogate in email", br#"{"name":"A","email":"a@\ud83d"}"#),
                ("before rule 5", br#"{"name":"\ud800"}"#),
                ("email checked before name's rule 5", br#"{"name":"","email":"\udfff"}"#),
            ],
        );
    }

    #[test]
    fn rule_5_name_required() {
        assert_all_rejected(
            ApiError::NameRequired,
            &[
                ("missing", br#"{"email":"a@b"}"#),
                ("null", br#"{"name":null,"email":"a@b"}"#),
                ("number", br#"{"name":5,"email":"a@b"}"#),
                ("huge number", br#"{"name":1e400,"email":"a@b"}"#),
                ("array", br#"{"name":["A"],"email":"a@b"}"#),
                ("object", br#"{"name":{},"email":"a@b"}"#),
                ("boolean", br#"{"name":true,"email":"a@b"}"#),
                ("empty", br#"{"name":"","email":"a@b"}"#),
                ("empty object", b"{}"),
                ("before the email rule", br#"{"name":"","email":"no-at"}"#),
                ("last duplicate wins", br#"{"name":"A","name":null,"email":"a@b"}"#),
                ("not inherited from __proto__", br#"{"__proto__":{"name":"X"},"email":"a@b"}"#),
            ],
        );
    }

    #[test]
    fn rule_5_name_length_in_code_points() {
        let body = |name: &str| format!(r#"{{"name":"{name}","email":"a@b"}}"#);
        let cases: &[(&str, String, Result<(), ApiError>)] = &[
            ("200 ASCII", body(&"n".repeat(200)), Ok(())),
            ("201 ASCII", body(&"n".repeat(201)), Err(ApiError::NameTooLong)),
            ("200 astral (400 UTF-16 units)", body(&"😀".repeat(200)), Ok(())),
            ("201 astral", body(&"😀".repeat(201)), Err(ApiError::NameTooLong)),
            ("200 escaped pairs", body(&r"\ud83d\ude00".repeat(200)), Ok(())),
            ("201 escaped pairs", body(&r"\ud83d\ude00".repeat(201)), Err(ApiError::NameTooLong)),
        ];
        for (case, body, expected) in cases {
            assert_eq!(parse(body).map(|_| ()), *expected, "case {case:?}");
        }
    }

    #[test]
    fn rule_6_invalid_email() {
        let too_long = format!(r#"{{"name":"A","email":"a@{}"}}"#, "b".repeat(253));
        assert_all_rejected(
            ApiError::InvalidEmail,
            &[
                ("missing", br#"{"name":"A"}"#),
                ("no @", br#"{"name":"A","email":"ab"}"#),
                ("empty", br#"{"name":"A","email":""}"#),
                ("number", br#"{"name":"A","email":5}"#),
                ("null", br#"{"name":"A","email":null}"#),
                ("array", br#"{"name":"A","email":["a@b"]}"#),
                ("fullwidth @", "{\"name\":\"A\",\"email\":\"a\u{ff20}b\"}".as_bytes()),
                ("255 code points", too_long.as_bytes()),
                ("last duplicate not a string", br#"{"name":"A","email":"a@b","email":5}"#),
            ],
        );
    }

    #[test]
    fn rule_6_email_length_in_code_points() {
        let body = |email: String| format!(r#"{{"name":"A","email":"{email}"}}"#);
        let cases: &[(&str, String, Result<(), ApiError>)] = &[
            ("just @", body("@".to_owned()), Ok(())),
            ("254 ASCII", body(format!("a@{}", "b".repeat(252))), Ok(())),
            ("255 ASCII", body(format!("a@{}", "b".repeat(253))), Err(ApiError::InvalidEmail)),
            ("254 two-byte characters", body(format!("a@{}", "é".repeat(252))), Ok(())),
            ("255 two-byte characters", body(format!("a@{}", "é".repeat(253))), Err(ApiError::InvalidEmail)),
        ];
        for (case, body, expected) in cases {
            assert_eq!(parse(body).map(|_| ()), *expected, "case {case:?}");
        }
    }

    /// The response JSON must be escaped the way `JSON.stringify` does it (`contract/json-bodies.json`); serde_json's
    /// compact writer agrees.
    #[test]
    fn serialises_like_json_stringify() {
        for case in &contract::json_bodies::json_bodies().escaped {
            let user = User { id: 1, name: case.text.as_str().into(), email: "a@b".into() };
            let json = serde_json::to_string(&user).unwrap();
            let written = &case.written;
            assert_eq!(json, format!(r#"{{"id":1,"name":{written},"email":"a@b"}}"#), "case {:?}", case.case);
        }
    }
}
