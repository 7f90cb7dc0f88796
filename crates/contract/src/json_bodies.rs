//! `contract/json-bodies.json`, the JSON bodies every twin's scanner and writer are tested on (the file's header says
//! how to read it): what `JSON.parse` accepts as an object and refuses, which top-level `name` and `email` it keeps,
//! how it decodes a string, and how `JSON.stringify` writes one. The Go, Node and Java tests read the same file, so
//! that the four servers are tested on the same bodies rather than on copies of a table.

use serde::Deserialize;
use std::sync::LazyLock;

/// The file as it stood when this crate was built.
const EMBEDDED: &str = include_str!("../../../contract/json-bodies.json");

/// The embedded tables, read once. A broken file is a bug in this repository, caught by this crate's own tests.
pub fn json_bodies() -> &'static JsonBodies {
    static BODIES: LazyLock<JsonBodies> = LazyLock::new(|| {
        parse_json_bodies(EMBEDDED).unwrap_or_else(|e| panic!("contract/json-bodies.json is invalid: {e}"))
    });
    &BODIES
}

/// The tables of the file.
#[derive(Debug)]
pub struct JsonBodies {
    /// Bodies `JSON.parse` accepts as an object.
    pub objects: Vec<Body>,
    /// Bodies `JSON.parse` refuses, or whose value is not an object.
    pub refused: Vec<Body>,
    /// Objects with repeated or nested `name` and `email` keys, and the members that count.
    pub last_wins: Vec<LastWins>,
    /// A string's text between its quotes, and what `JSON.parse` decodes it to.
    pub strings: Vec<Decoded>,
    /// A text, and how `JSON.stringify` writes it.
    pub escaped: Vec<Escaped>,
}

/// One body and what it is about.
#[derive(Debug)]
pub struct Body {
    pub case: String,
    pub body: String,
}

/// An object and the last top-level `name` and `email` members it holds.
#[derive(Debug)]
pub struct LastWins {
    pub case: String,
    pub body: String,
    pub name: Member,
    pub email: Member,
}

/// A top-level member as a scanner finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member {
    /// A string; the text is what lies between the quotes, escapes not decoded.
    String(String),
    /// Any other value.
    Other,
    /// No such member.
    Absent,
}

/// A string's raw text and its decoded value; `None` where it is not well-formed Unicode (an unpaired surrogate).
#[derive(Debug)]
pub struct Decoded {
    pub case: String,
    pub raw: String,
    pub decoded: Option<String>,
}

/// A text and the JSON string `JSON.stringify` makes of it, quotes included.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Escaped {
    pub case: String,
    pub text: String,
    pub written: String,
}

// ---- The file as serde reads it. ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)] // For people: how to read the file.
    about: Vec<String>,
    version: u32,
    objects: Table<RawBody>,
    refused: Table<RawBody>,
    last_wins: Table<RawLastWins>,
    strings: Table<RawDecoded>,
    escaped: Table<Escaped>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table<T> {
    #[allow(dead_code)] // For people: what the table is.
    why: String,
    cases: Vec<T>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBody {
    case: String,
    body: Text,
    #[allow(dead_code)] // For people.
    why: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLastWins {
    case: String,
    body: Text,
    name: RawMember,
    email: RawMember,
    #[allow(dead_code)] // For people.
    why: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum RawMember {
    String { raw: String },
    Other,
    Absent,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDecoded {
    case: String,
    raw: String,
    decoded: Option<String>,
}

/// A body as the file writes it: a string, or parts joined (strings, and a text repeated).
#[derive(Deserialize)]
#[serde(untagged)]
enum Text {
    Whole(String),
    Parts(Vec<TextPart>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TextPart {
    Text(String),
    Repeat { repeat: String, times: usize },
}

impl Text {
    fn joined(self) -> String {
        match self {
            Text::Whole(text) => text,
            Text::Parts(parts) => parts
                .into_iter()
                .map(|p| match p {
                    TextPart::Text(text) => text,
                    TextPart::Repeat { repeat, times } => repeat.repeat(times),
                })
                .collect(),
        }
    }
}

/// Parses a JSON bodies file; the error says what is wrong with it.
pub fn parse_json_bodies(json: &str) -> Result<JsonBodies, String> {
    let file: File = serde_json::from_str(json).map_err(|e| format!("not a JSON bodies file: {e}"))?;
    if file.version != 1 {
        return Err(format!("version {} is not supported (this reader knows version 1)", file.version));
    }
    let bodies = |t: Table<RawBody>| t.cases.into_iter().map(|b| Body { case: b.case, body: b.body.joined() });
    let member = |m: RawMember| match m {
        RawMember::String { raw } => Member::String(raw),
        RawMember::Other => Member::Other,
        RawMember::Absent => Member::Absent,
    };
    let last_wins = file.last_wins.cases.into_iter().map(|c| LastWins {
        case: c.case,
        body: c.body.joined(),
        name: member(c.name),
        email: member(c.email),
    });
    let strings = file.strings.cases.into_iter().map(|s| Decoded { case: s.case, raw: s.raw, decoded: s.decoded });
    Ok(JsonBodies {
        objects: bodies(file.objects).collect(),
        refused: bodies(file.refused).collect(),
        last_wins: last_wins.collect(),
        strings: strings.collect(),
        escaped: file.escaped.cases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_file_parses_with_parts_joined() {
        let all = json_bodies();
        assert!(all.objects.len() > 5 && all.refused.len() > 30 && !all.last_wins.is_empty());
        assert!(!all.strings.is_empty() && !all.escaped.is_empty());
        let deep = all.objects.iter().find(|b| b.case == "deep arrays").expect("the case exists");
        assert_eq!(deep.body.len(), r#"{"x":}"#.len() + 60_000);
        assert!(all.strings.iter().any(|s| s.decoded.is_none()));
        assert_eq!(all.last_wins[0].name, Member::String("Ok".to_owned()));
        let mut names: Vec<&str> = all.objects.iter().chain(&all.refused).map(|b| b.case.as_str()).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a case's name is used twice");
    }

    #[test]
    fn mistakes_are_reported() {
        let table = r#"{"why":"w","cases":[]}"#;
        let file = |objects: &str| {
            format!(
                r#"{{"about":[],"version":1,"objects":{objects},"refused":{table},"last_wins":{table},"strings":{table},"escaped":{table}}}"#
            )
        };
        let ok = r#"{"why":"w","cases":[{"case":"c","body":["{",{"repeat":"[]","times":2},"}"]}]}"#;
        assert_eq!(parse_json_bodies(&file(ok)).expect("valid").objects[0].body, "{[][]}");
        let err = parse_json_bodies(&file(&ok.replace("body", "bodies"))).unwrap_err();
        assert!(err.contains("not a JSON bodies file"), "{err}");
        let err = parse_json_bodies(&file(table).replace(r#""version":1"#, r#""version":3"#)).unwrap_err();
        assert!(err.contains("version 3"), "{err}");
    }
}
