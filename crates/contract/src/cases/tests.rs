//! Tests of the cases file's reading and checks, on made-up files and on the real one.

use super::*;

#[test]
fn the_embedded_file_parses() {
    assert!(cases().len() > 100, "only {} cases", cases().len());
}

#[test]
fn request_bytes_add_host_and_content_length_only() {
    let c = &parse(
        r#"{"version":1,"cases":[{"name":"a","rule":"r","rule_id":"r","level":"full","match":"exact",
        "request":{"method":"POST","target":"/users","headers":[["Content-Type","application/json"]],"body":["{",{"hex":"41"},{"repeat":"b","times":3},"}"]},
        "expect":{"status":201,"content_type":"application/json","body":"x"}}]}"#,
    )
    .unwrap()[0];
    assert_eq!(
        String::from_utf8(c.request_bytes()).unwrap(),
        "POST /users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 6\r\n\r\n{Abbb}"
    );
}

#[test]
fn the_helpers_build_the_requests_a_runner_sends() {
    assert_eq!(
        String::from_utf8(Request::get("/users/7").to_bytes()).unwrap(),
        "GET /users/7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    );
    assert_eq!(
        String::from_utf8(Request::post_json("/users", b"{}").to_bytes()).unwrap(),
        "POST /users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
    );
    let own_length = Request { headers: vec![("content-length".into(), "5".into())], ..Request::post_json("/", b"{}") };
    assert_eq!(
        own_length.completed_headers(),
        [("Host".to_owned(), "127.0.0.1".to_owned()), ("content-length".into(), "5".into())]
    );
}

#[test]
fn chunked_requests_get_no_content_length() {
    let c = &parse(
        r#"{"version":1,"cases":[{"name":"a","rule":"r","rule_id":"r","level":"full","match":"exact",
        "request":{"method":"POST","target":"/","headers":[["Host","h"],["Transfer-Encoding","chunked"]],"body":"0\r\n\r\n"},
        "expect":{"status":201,"content_type":"t","body":"x"}}]}"#,
    )
    .unwrap()[0];
    assert_eq!(
        String::from_utf8(c.request_bytes()).unwrap(),
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    );
}

#[test]
fn mistakes_in_the_file_are_reported_by_name() {
    let bad = [
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"tolerated","raw":"x","expect":{"any_of":[400]}}"#,
            "reason",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"exact","raw":"x","expect":{"status":200}}"#,
            "content_type",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"exact","raw":"x","expect":{"status":200,"content_type":"c"}}"#,
            "exactly one of `body`",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"tolerated","reason":"x","raw":"x","expect":{"any_of":["shut"]}}"#,
            "neither a status",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"exact","expect":{"status":200}}"#,
            "exactly one of `request`",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"full","match":"exact","raw":[{"hex":"4"}],"expect":{"status":200,"content_type":"c","body":""}}"#,
            "odd number",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"Post_Json","level":"full","match":"exact","request":{"method":"GET","target":"/"},"expect":{"status":200,"content_type":"c","body":""}}"#,
            "kebab-case",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"api","match":"exact","raw":"x","expect":{"status":200,"content_type":"c","body":""}}"#,
            "a `raw` case is `full`",
        ),
        (
            r#"{"name":"t","rule":"r","rule_id":"r","level":"api","match":"exact","requires":{"max_users":1},"request":{"method":"GET","target":"/"},"expect":{"status":200,"content_type":"c","body":""}}"#,
            "`requires`",
        ),
    ];
    for (case, needle) in bad {
        let err = parse(&format!(r#"{{"version":1,"cases":[{case}]}}"#)).unwrap_err();
        assert!(err.contains("case \"t\"") && err.contains(needle), "{case}: {err}");
    }
}

/// A case names an entry of the tolerance table that exists and allows what the case accepts; the real file's
/// cases that name one are the table's examples, and their own notes say something else.
#[test]
fn a_case_names_an_entry_of_the_tolerance_table_that_agrees_with_it() {
    let case = |fields: &str, expect: &str| {
        format!(
            r#"{{"version":1,"cases":[{{"name":"t","rule":"r","rule_id":"r","level":"full",{fields},"raw":"x","expect":{expect}}}]}}"#
        )
    };
    let tolerated = |name: &str, any_of: &str| {
        case(&format!(r#""match":"tolerated","tolerance":"{name}""#), &format!(r#"{{"any_of":{any_of}}}"#))
    };
    assert!(parse(&tolerated("bare-lf", r#"[200,400,"closed"]"#)).is_ok(), "served, refused, closed");
    assert!(parse(&tolerated("head-timeout-408", r#"["closed",408]"#)).is_ok(), "an equivalence");
    let bad = [
        (tolerated("bare-crlf", "[400]"), "no entry of contract/tolerances.json"),
        (tolerated("nonstandard-method", "[405,200]"), "does not allow status 200"),
        (tolerated("empty-expectation", r#"[417,"closed"]"#), "does not allow a closed connection"),
        (case(r#""match":"status-class","tolerance":"unmet-expectation""#, r#"{"status":200}"#), "status 200"),
        (case(r#""match":"status-class","tolerance":"head-timeout-408""#, r#"{"status":408}"#), "equivalence"),
        (case(r#""match":"status-class""#, r#"{"status":400}"#), "needs a `reason`, or a `tolerance`"),
    ];
    for (text, needle) in bad {
        let err = parse(&text).unwrap_err();
        assert!(err.contains("case \"t\"") && err.contains(needle), "{needle}: {err}");
    }
    let naming: Vec<&Case> = cases().iter().filter(|c| c.tolerance.is_some()).collect();
    assert!(naming.len() > 40, "only {} cases name a tolerance", naming.len());
    let tolerated = cases().iter().filter(|c| c.matching == Match::Tolerated);
    let unnamed: Vec<&str> = tolerated.filter(|c| c.tolerance.is_none()).map(|c| c.name.as_str()).collect();
    assert!(unnamed.is_empty(), "tolerated cases that name no entry of the table: {unnamed:?}");
}

#[test]
fn every_rule_kind_is_covered_by_the_real_file() {
    let all = cases();
    for kind in [Match::Exact, Match::StatusClass, Match::Tolerated] {
        assert!(all.iter().any(|c| c.matching == kind), "no {kind:?} case");
    }
    assert!(all.iter().any(|c| c.roundtrip));
    assert!(all.iter().any(|c| !c.requires.is_empty()));
    assert!(all.iter().any(|c| matches!(c.send, Wire::Raw(_))));
    for level in [Level::Api, Level::Full] {
        assert!(all.iter().filter(|c| c.level == level).count() > 20, "few {level} cases");
    }
}

#[test]
fn level_and_rule_id_are_required_and_checked() {
    let case = |fields: &str| {
        format!(
            r#"{{"version":1,"cases":[{{"name":"t","rule":"r",{fields}"match":"exact","request":{{"method":"GET","target":"/"}},"expect":{{"status":200,"content_type":"c","body":""}}}}]}}"#
        )
    };
    assert!(parse(&case(r#""level":"api","#)).unwrap_err().contains("rule_id"));
    assert!(parse(&case(r#""rule_id":"r","#)).unwrap_err().contains("level"));
    assert!(parse(&case(r#""rule_id":"r","level":"most","#)).unwrap_err().contains("most"));
    for bad in ["", "-a", "a-", "a--b", "A"] {
        let err = parse(&case(&format!(r#""rule_id":"{bad}","level":"api","#))).unwrap_err();
        assert!(err.contains("kebab-case"), "{bad:?}: {err}");
    }
    let ok = &parse(&case(r#""rule_id":"get-user-2","level":"api","#)).unwrap()[0];
    assert_eq!((ok.rule_id.as_str(), ok.level), ("get-user-2", Level::Api));
    assert!(Level::Api < Level::Full, "verifying at full includes the api cases");
    assert_eq!("full".parse::<Level>(), Ok(Level::Full));
    assert!("API".parse::<Level>().is_err());
}

#[test]
fn the_cases_of_one_rule_text_share_one_rule_id() {
    let mut ids: BTreeMap<&str, &str> = BTreeMap::new();
    for c in cases() {
        let id = *ids.entry(c.rule.as_str()).or_insert(c.rule_id.as_str());
        assert_eq!(id, c.rule_id, "rule {:?} has two rule_ids", c.rule);
    }
    let distinct: HashSet<&str> = cases().iter().map(|c| c.rule_id.as_str()).collect();
    assert!(distinct.len() > 20 && distinct.len() < cases().len() / 2, "{} rule_ids", distinct.len());
}

#[test]
fn a_reading_case_is_a_get_or_a_head() {
    let api: Vec<&Case> = cases().iter().filter(|c| c.level == Level::Api).collect();
    let reading: Vec<&&Case> = api.iter().filter(|c| c.only_reads()).collect();
    assert!(reading.len() > 20 && reading.len() < api.len() / 2, "{} of {} api cases read", reading.len(), api.len());
    assert!(reading.iter().any(|c| c.is_head()), "HEAD is a read");
    let method = |c: &Case| match &c.send {
        Wire::Request(r) => r.method.clone(),
        Wire::Raw(b) => String::from_utf8_lossy(b).split(' ').next().unwrap_or("").to_string(),
    };
    assert!(reading.iter().all(|c| ["GET", "HEAD"].contains(&method(c).as_str())));
    assert!(api.iter().any(|c| method(c) == "POST" && !c.only_reads()));
    let users_405 = api.iter().find(|c| c.name == "get-users-405").expect("the case exists");
    assert!(!users_405.only_reads(), "GET /users is about the POST route");
}
