//! json.rs's test tables, shared by its own unit tests (`src/json.rs`) and by the serde experiment
//! (`tests/json_serde_route.rs`), so that both run exactly the same bodies. Not a test target of its own: Cargo builds
//! only the files directly in `tests/`.

/// Bodies `JSON.parse` accepts as an object.
pub fn accepted() -> Vec<(&'static str, String)> {
    let mut cases = vec![
        ("deep arrays", format!("{{\"x\":{}{}}}", "[".repeat(30_000), "]".repeat(30_000))),
        ("deep objects", format!("{{\"x\":{}1{}}}", "{\"a\":".repeat(10_000), "}".repeat(10_000))),
    ];
    cases.extend(ACCEPTED.iter().map(|&(case, body)| (case, body.to_string())));
    cases
}

/// Bodies `JSON.parse` rejects, or whose value is not an object.
pub fn rejected() -> Vec<(&'static str, String)> {
    let mut cases = vec![("unbalanced deep nesting", format!("{{\"x\":{}}}", "[".repeat(20_000)))];
    cases.extend(REJECTED.iter().map(|&(case, body)| (case, body.to_string())));
    cases
}

/// Objects with repeated or nested `name` and `email` keys: the last top-level one wins, escaped keys included.
/// json.rs's unit test states which values each must keep.
pub const LAST_WINS: &[(&str, &str)] = &[
    ("last duplicate wins", r#"{"name":"\ud800","name":{"a":[1]},"email":5,"na\u006de":"Ok","email":"a@b"}"#),
    ("last one not a string", r#"{"name":"A","name":1e400}"#),
    ("nested keys", r#"{"x":{"name":"nested","email":"n@n"}}"#),
];

const ACCEPTED: &[(&str, &str)] = &[
    ("empty object", "{}"),
    ("whitespace around and inside", " \t\r\n{ \"a\" : 1 , \"b\" :\n[ ] }\r\n"),
    ("all literals", r#"{"a":true,"b":false,"c":null}"#),
    ("numbers of any magnitude", r#"{"a":1e400,"b":-1e400,"c":-0,"d":1.5e-400,"e":12345678901234567890123}"#),
    ("number forms", r#"{"a":0,"b":-0.5,"c":1E+2,"d":1e-2,"e":10.25}"#),
    ("all escapes", r#"{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#),
    ("lone surrogates in unknown key and value", r#"{"\ud800":"\udc00x"}"#),
    ("non-ASCII and DEL raw", "{\"a\":\"é😀\u{7f}\u{2028}\"}"),
    ("nested empty containers", r#"{"a":{},"b":[],"c":[{}],"d":{"e":[]}}"#),
];

const REJECTED: &[(&str, &str)] = &[
    ("empty", ""),
    ("whitespace only", " \n"),
    ("array", "[]"),
    ("string", "\"x\""),
    ("number", "1"),
    ("null", "null"),
    ("unterminated object", "{"),
    ("trailing comma", r#"{"a":1,}"#),
    ("trailing comma in array", r#"{"a":[1,]}"#),
    ("missing colon", r#"{"a" 1}"#),
    ("missing value", r#"{"a":}"#),
    ("two values", "{}{}"),
    ("trailing garbage", "{} x"),
    ("single quotes", "{'a':1}"),
    ("unquoted key", "{a:1}"),
    ("comment", "{/*c*/}"),
    ("NaN", r#"{"a":NaN}"#),
    ("Infinity", r#"{"a":Infinity}"#),
    ("leading zero", r#"{"a":01}"#),
    ("plus sign", r#"{"a":+1}"#),
    ("leading dot", r#"{"a":.5}"#),
    ("trailing dot", r#"{"a":1.}"#),
    ("empty exponent", r#"{"a":1e}"#),
    ("hex", r#"{"a":0x10}"#),
    ("bare minus", r#"{"a":-}"#),
    ("truncated literal", r#"{"a":tru}"#),
    ("capitalised literal", r#"{"a":True}"#),
    ("raw tab in string", "{\"a\":\"\t\"}"),
    ("raw newline in string", "{\"a\":\"\n\"}"),
    ("raw NUL in string", "{\"a\":\"\0\"}"),
    ("bad escape", r#"{"a":"\x41"}"#),
    ("short unicode escape", r#"{"a":"\u41"}"#),
    ("non-hex unicode escape", r#"{"a":"\u00g0"}"#),
    ("unterminated string", r#"{"a":"x}"#),
    ("byte-order mark", "\u{feff}{}"),
    ("no-break space", "{\u{a0}}"),
    ("form feed is not whitespace", "{\u{c}}"),
    ("vertical tab is not whitespace", "{\u{b}}"),
    ("line separator is not whitespace", "{}\u{2028}"),
    ("NUL after the object", "{}\0"),
    ("mismatched brackets", r#"{"a":[}"#),
    ("object key not a string", r#"{"a":{1:2}}"#),
];
