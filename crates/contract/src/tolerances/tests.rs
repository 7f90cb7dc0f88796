//! Tests of the table's loading and checks, and of how its rows allow the servers' steps.

use super::*;

/// The data file and the code agree on the rows: every row has a predicate and every predicate a row.
#[test]
fn the_rows_of_the_file_and_the_predicates_are_the_same_set() {
    let rows: HashSet<&str> = TOLERANCES.iter().map(|t| t.name).collect();
    let code: HashSet<&str> = predicates::PREDICATES.iter().map(|(n, _)| *n).collect();
    assert_eq!(rows.len(), TOLERANCES.len(), "a row's name is used twice");
    assert_eq!(code.len(), predicates::PREDICATES.len(), "a predicate's name is used twice");
    let only_file: Vec<&&str> = rows.difference(&code).collect();
    let only_code: Vec<&&str> = code.difference(&rows).collect();
    assert!(
        only_file.is_empty() && only_code.is_empty(),
        "rows without a predicate {only_file:?}, predicates without a row {only_code:?}"
    );
    let equivalences: Vec<Equivalence> = EQUIVALENCES.iter().map(|(e, _, _)| *e).collect();
    assert_eq!(equivalences, Equivalence::NAMED.map(|(_, e)| e), "every equivalence of the code is in the file");
}

#[test]
fn every_tolerance_has_a_reason_and_a_unique_name() {
    let mut names: Vec<&str> = TOLERANCES.iter().map(|t| t.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TOLERANCES.len());
    assert!(TOLERANCES.iter().all(|t| !t.reason.is_empty() && !t.refusals.is_empty()));
}

#[test]
fn allowed_steps() {
    let lf = TOLERANCES.iter().find(|t| t.name == "bare-lf").unwrap();
    assert!(lf.allows(&[Step::Status(200), Step::Status(400), Step::Closed]));
    assert!(!lf.allows(&[Step::Status(200), Step::Status(404)]));
    let method = TOLERANCES.iter().find(|t| t.name == "nonstandard-method").unwrap();
    assert!(!method.allows(&[Step::Status(200), Step::Status(405)]));
}

#[test]
fn two_features_of_one_request_are_allowed_together_where_neither_alone_allows_it() {
    // The fuzzer's seed 501: an Upgrade with a body that never came (the Node server waits) and a fragment in the
    // target (Go keeps it in the path and answers 404), where Rust routes the path before the fragment (200).
    let bytes = b"GET /users/5# HTTP/1.1\r\ncontent-length:7\r\nConnection:Upgrade\r\nUpgrade:t\r\nHost:\r\n\r\n";
    let steps = [Step::Status(200), Step::Open, Step::Status(404)];
    let row = |name: &str| TOLERANCES.iter().find(|t| t.name == name).expect("the row exists");
    let (upgrade, fragment) = (row("upgrade-with-body"), row("fragment"));
    assert!((upgrade.matches)(bytes) && (fragment.matches)(bytes));
    assert!(!upgrade.allows(&steps) && !fragment.allows(&steps));
    assert!(allow_together(&[upgrade, fragment], &steps));
    // Two different served answers are still a divergence, and so is one row alone.
    assert!(!allow_together(&[upgrade, fragment], &[Step::Status(200), Step::Status(201), Step::Open]));
    assert!(!allow_together(&[upgrade], &steps));
    // A third row that matches too but forbids serving (the body never came) does not spoil the pair.
    let unfinished = row("unfinished-request");
    let found = allowing_together(&[unfinished, upgrade, fragment], &steps).expect("two rows allow it");
    assert_eq!(found.iter().map(|t| t.name).collect::<Vec<_>>(), ["upgrade-with-body", "fragment"]);
}

#[test]
fn a_row_may_begin_only_after_an_answer() {
    assert!(Follows::Answer(400).holds(Some(400)) && !Follows::Answer(400).holds(Some(201)));
    assert!(!Follows::Answer(400).holds(None) && Follows::Anywhere.holds(None));
    let post = TOLERANCES.iter().find(|t| t.name == "closed-after-refused-post").expect("the row exists");
    assert_eq!(post.follows, Follows::Answer(400));
}

/// Examples are bytes, control bytes included, and the cases that name a row are listed with it.
#[test]
fn a_row_has_its_examples_and_the_cases_that_name_it() {
    let row = |name: &str| TOLERANCES.iter().find(|t| t.name == name).expect("the row exists");
    assert!(row("fragment").examples[0].starts_with(b"\nGET /users/5# HTTP/1.1\r\n"));
    assert!(row("unsupported-transfer-coding").examples[0].windows(9).any(|w| w == b":\x0cchunked"));
    assert!(row("unsupported-transfer-coding").cases.contains(&"raw-te-gzip-chunked"));
    assert_eq!(row("bare-lf").cases, ["raw-bare-lf"]);
    assert_eq!(row("bare-lf").decided_on, crate::releases::DECIDED_ON_2026_12);
    let head = EQUIVALENCES.iter().find(|(e, _, _)| *e == Equivalence::HeadTimeout408).expect("it is there");
    assert_eq!(head.2, ["raw-slow-head-closed"]);
}

#[test]
fn mistakes_in_the_file_are_reported_by_name() {
    let row = r#"{"name":"bare-lf","reason":"r","refusals":[400],"served":true,"follows":"anywhere",
        "decided_on":{"hyper":"1","llhttp":"2","go":"go3","tomcat":"4"},"examples":[{"bytes":"x"}]}"#;
    let file = |rows: &str, equivalences: &str| {
        format!(r#"{{"about":[],"version":1,"tolerances":[{rows}],"equivalences":[{equivalences}]}}"#)
    };
    let ok = parse(&file(row, r#"{"name":"other-headers","reason":"r"}"#)).expect("a valid file");
    assert_eq!((ok.tolerances.len(), ok.equivalences.len()), (1, 1));
    let bad = [
        (file(&row.replace("bare-lf", "bare-crlf"), ""), "tolerance \"bare-crlf\": no predicate"),
        (file(&format!("{row},{row}"), ""), "\"bare-lf\": the name is used twice"),
        (file(&row.replace("[400]", r#"[400,"shut"]"#), ""), "neither a status"),
        (file(&row.replace("[400]", "[400,400]"), ""), "400 is there twice"),
        (file(&row.replace("[400]", "[]"), ""), "at least one refusal"),
        (file(&row.replace(r#""reason":"r""#, r#""reason":"""#), ""), "needs a reason"),
        (file(&row.replace(r#""go3""#, r#""""#), ""), "decided_on"),
        (file(&row.replace(r#"{"bytes":"x"}"#, r#"{"bytes":[{"hex":"4"}]}"#), ""), "odd number"),
        (file(row, r#"{"name":"same-body","reason":"r"}"#), "equivalence \"same-body\": no such"),
        (file(&row.replace("anywhere", "somewhere"), ""), "not a tolerance file"),
        (file(row, "").replace(r#""version":1"#, r#""version":2"#), "version 2"),
    ];
    for (text, needle) in bad {
        let err = parse(&text).expect_err(needle);
        assert!(err.contains(needle), "{needle}: {err}");
    }
}
