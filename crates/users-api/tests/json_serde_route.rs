//! The experiment behind `json.rs`'s justification: could serde_json do the scanner's job with less code?
//!
//! [`serde_scan`] is the serde route done as well as serde_json 1 allows: a map visitor on the top-level object that
//! takes every key as a `&RawValue` (a key with a lone surrogate escape must not be an error), keeps the last `name`
//! and `email` values as `&RawValue` (an earlier, undecodable one must not be an error either), and skips every other
//! value with `IgnoredAny`, which builds nothing. Escapes are still decoded by `json::decode_string`, because a Rust
//! `String` cannot hold a lone surrogate, which `JSON.parse` allows.
//!
//! The tests run json.rs's own tables (`contract/json-bodies.json`) and every POST body of `contract/cases.json` through both and count where they
//! disagree; `measure_both` (ignored by default: `cargo test --release -p users-api --test json_serde_route --
//! --ignored --nocapture`) prints the time per body of each. Timing is printed, never asserted.

use std::time::Instant;

use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use users_api::json::{Fields, Invalid, Member, decode_string, scan_object};

/// The serde route: the same answer as `json::scan_object`, if serde_json agrees with `JSON.parse`.
fn serde_scan(text: &str) -> Result<Fields<'_>, Invalid> {
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = de.deserialize_map(TopLevel).map_err(|_| Invalid)?;
    de.end().map_err(|_| Invalid)?;
    Ok(fields)
}

struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
        let mut fields = Fields::default();
        while let Some(key) = map.next_key::<&'de RawValue>()? {
            let slot = match key_of(key.get()) {
                Some(Key::Name) => &mut fields.name,
                Some(Key::Email) => &mut fields.email,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value = map.next_value::<&'de RawValue>()?.get();
            *slot = Some(match value.strip_prefix('"') {
                Some(quoted) => Member::String(&quoted[..quoted.len() - 1]),
                None => Member::Other,
            });
        }
        Ok(fields)
    }
}

enum Key {
    Name,
    Email,
}

/// Which of the two keys a raw key token (quotes included) is, comparing escaped keys after decoding them.
fn key_of(raw: &str) -> Option<Key> {
    let inner = &raw[1..raw.len() - 1];
    // Only a key with an escape needs decoding (and an allocation); one that does not decode (a lone surrogate) is
    // some other key, never `name` or `email`.
    let decoded;
    let key = if inner.contains('\\') {
        decoded = decode_string(inner).ok()?;
        decoded.as_str()
    } else {
        inner
    };
    match key {
        "name" => Some(Key::Name),
        "email" => Some(Key::Email),
        _ => None,
    }
}

/// json.rs's tables (accepted, rejected, last duplicate wins), by case name.
fn json_rs_tables() -> Vec<(String, String)> {
    let tables = contract::json_bodies::json_bodies();
    let bodies = tables.objects.iter().chain(&tables.refused).map(|b| (b.case.clone(), b.body.clone()));
    bodies.chain(tables.last_wins.iter().map(|c| (c.case.clone(), c.body.clone()))).collect()
}

/// Every POST body of the contract's cases that is valid UTF-8 (the others never reach the scanner).
fn contract_bodies() -> Vec<(String, String)> {
    contract::cases()
        .iter()
        .filter_map(|case| match &case.send {
            contract::Wire::Request(request) => {
                let body = String::from_utf8(request.body.clone()?).ok()?;
                Some((case.name.clone(), body))
            }
            contract::Wire::Raw(_) => None,
        })
        .collect()
}

/// The cases where the serde route answers differently from json.rs, which passes all of them.
fn disagreements(cases: &[(String, String)]) -> Vec<String> {
    cases
        .iter()
        .filter(|(_, body)| serde_scan(body) != scan_object(body))
        .map(|(name, body)| {
            format!("{name}: json.rs {:?}, serde {:?}", scan_object(body).is_ok(), serde_scan(body).is_ok())
        })
        .collect()
}

#[test]
fn the_serde_route_against_json_rs_tables() {
    let cases = json_rs_tables();
    assert!(cases.len() >= 55, "the tables went missing: {}", cases.len());
    let wrong = disagreements(&cases);
    println!("json.rs tables: {} cases, serde disagrees on {}: {wrong:#?}", cases.len(), wrong.len());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_serde_route_against_the_contract_bodies() {
    let cases = contract_bodies();
    assert!(cases.len() >= 100, "the contract's POST bodies went missing: {}", cases.len());
    let wrong = disagreements(&cases);
    println!("contract bodies: {} cases, serde disagrees on {}: {wrong:#?}", cases.len(), wrong.len());
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Either scanner, so that both are timed by the same loop.
type Scan = fn(&str) -> Result<Fields<'_>, Invalid>;

#[test]
#[ignore = "a measurement: run it in release with --ignored --nocapture"]
fn measure_both() {
    let bodies = [
        ("the benchmark's POST body", r#"{"name":"Ann Example","email":"ann@example.com"}"#.to_string()),
        (
            "ten unknown keys first",
            format!(
                "{{{}\"name\":\"Ann\",\"email\":\"a@b\"}}",
                (0..10).map(|i| format!("\"k{i}\":[1,2.5,{{\"x\":null}}],")).collect::<String>()
            ),
        ),
    ];
    for (what, body) in &bodies {
        assert_eq!(serde_scan(body), scan_object(body));
        let scanners: [(&str, Scan); 2] = [("json.rs", scan_object), ("serde", serde_scan)];
        for (name, scan) in scanners {
            let rounds = 2_000_000 / body.len().max(1) * 20;
            let start = Instant::now();
            let mut found = 0;
            for _ in 0..rounds {
                found += usize::from(std::hint::black_box(scan(std::hint::black_box(body))).is_ok());
            }
            let per = start.elapsed().as_nanos() as f64 / rounds as f64;
            assert_eq!(found, rounds);
            println!("{what} ({} bytes): {name} {per:.0} ns per body ({rounds} rounds)", body.len());
        }
    }
}
