//! Verify before you measure: run the contract's cases (`contract/cases.json`, embedded at build time by the
//! `contract` crate) against a server, and say exactly what differs.
//!
//! A subject that fails is not a users-API server in the contract's sense, so its figures would compare different
//! work; `run` refuses to load it unless `--allow-unverified`, and then the report says so beside every figure.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};

use anyhow::Result;
use contract::{CaseResult, Level, Mismatch, Requires, Verdict};

use crate::schema::{CaseScope, Verification, VerificationStatus};
use crate::subjects::process::{Running, SubjectSpec};
use crate::usage;

/// Runs every embedded case up to `level` against `addr`, a server started with `settings`; cases needing other
/// settings are reported as skipped, never as passed. Cases above the level are not run at all.
pub fn run_cases(addr: SocketAddr, settings: &Requires, level: Level) -> Vec<CaseResult> {
    run_some(addr, settings, OnSilence::GiveUp, |c| c.level <= level, &mut |_, _| {})
}

/// After this many cases in a row without any response, the server is taken as gone: the remaining cases are
/// failed at once rather than each waiting out its timeout (200 cases × 5 s would be a quarter of an hour).
const GIVE_UP_AFTER: usize = 5;

/// What to do when a server stops answering several cases in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnSilence {
    /// Fail the remaining cases at once: the server is most likely gone (the default, and what `run` uses).
    GiveUp,
    /// Run every case whatever came before (`verify --every-case`): a server that merely hangs on some cases (no
    /// head time limit, say) still gets each later case on a fresh connection, so the set of failures does not
    /// depend on the order of the cases.
    KeepGoing,
}

/// Runs the cases `select` picks, calling `each` with every result and its duration.
pub fn run_some(
    addr: SocketAddr,
    settings: &Requires,
    on_silence: OnSilence,
    select: impl Fn(&contract::Case) -> bool,
    each: &mut dyn FnMut(&CaseResult, std::time::Duration),
) -> Vec<CaseResult> {
    let mut results = Vec::new();
    let mut silent = 0;
    for case in contract::cases().iter().filter(|c| select(c)) {
        let start = std::time::Instant::now();
        let result = if on_silence == OnSilence::GiveUp && silent >= GIVE_UP_AFTER {
            CaseResult {
                name: case.name.clone(),
                verdict: Verdict::Failed(vec![Mismatch::NotRun { silent_cases: GIVE_UP_AFTER }]),
                outcome: None,
            }
        } else {
            contract::run_case(addr, case, settings)
        };
        match &result.verdict {
            Verdict::Failed(m) if m.iter().any(Mismatch::is_silence) => silent += 1,
            Verdict::Skipped(_) => {}
            _ => silent = 0,
        }
        each(&result, start.elapsed());
        results.push(result);
    }
    results
}

/// Prints each failure with its mismatches, then the `N passed, N failed[, N skipped]` line.
pub fn print(results: &[CaseResult], out: &mut dyn Write) -> std::io::Result<()> {
    for r in results.iter().filter(|r| matches!(r.verdict, Verdict::Failed(_))) {
        writeln!(out, "{r}")?;
    }
    writeln!(out, "{}", tally_line(results))
}

/// One contract rule that some cases failed: its `rule_id`, the rule's sentence (of its first failing case), and the
/// failing and total cases that check it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRule {
    pub rule_id: String,
    pub rule: String,
    pub failed: Vec<String>,
    pub cases: usize,
}

/// Groups the failures by the `rule_id` of their case, in the order of `cases.json`; only cases in `results` count.
pub fn failed_rules(results: &[CaseResult]) -> Vec<FailedRule> {
    let mut rules: Vec<FailedRule> = Vec::new();
    for case in contract::cases() {
        let Some(result) = results.iter().find(|r| r.name == case.name) else { continue };
        let index = match rules.iter().position(|r| r.rule_id == case.rule_id) {
            Some(index) => index,
            None => {
                let rule = FailedRule { rule_id: case.rule_id.clone(), rule: String::new(), failed: vec![], cases: 0 };
                rules.push(rule);
                rules.len() - 1
            }
        };
        let rule = &mut rules[index];
        rule.cases += 1;
        if matches!(result.verdict, Verdict::Failed(_)) {
            if rule.failed.is_empty() {
                rule.rule = case.rule.clone();
            }
            rule.failed.push(case.name.clone());
        }
    }
    rules.retain(|r| !r.failed.is_empty());
    rules
}

/// How many failing case names one summary line shows before "and N more": the line is a summary, `--verbose`
/// has them all.
const NAMES_PER_RULE: usize = 3;

/// Prints one line per failing rule (its id, how many of its cases failed, the first few, and the rule's sentence),
/// then the tally line: a short answer to "what does this server not do?", where `print` answers "what exactly
/// went wrong?".
pub fn print_by_rule(results: &[CaseResult], out: &mut dyn Write) -> std::io::Result<()> {
    for rule in failed_rules(results) {
        writeln!(out, "{}", rule_line(&rule))?;
    }
    writeln!(out, "{}", tally_line(results))
}

/// `FAIL  post-json: 3 of 30 cases (a, b, c and 1 more): POST rule 3: …`
pub fn rule_line(rule: &FailedRule) -> String {
    let shown = rule.failed.iter().take(NAMES_PER_RULE).cloned().collect::<Vec<_>>().join(", ");
    let more = rule.failed.len().saturating_sub(NAMES_PER_RULE);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    format!("FAIL  {}: {} of {} cases ({shown}{more}): {}", rule.rule_id, rule.failed.len(), rule.cases, rule.rule)
}

pub fn tally_line(results: &[CaseResult]) -> String {
    let (passed, failed, skipped) = contract::tally(results);
    if skipped > 0 {
        format!("{passed} passed, {failed} failed, {skipped} skipped")
    } else {
        format!("{passed} passed, {failed} failed")
    }
}

/// The rules of the two routes every users-API server answers: its health check and reading a seeded user.
const ROUTE_RULES: [&str; 2] = ["get-health", "get-user"];

/// Said first when [`not_the_api`]: a hundred failed rules are the wrong answer to "is this the right server?".
pub const NOT_THE_API: &str = "no /health and no /users route answered as the contract says: is this the users API?";

/// Whether the server answered, but neither `/health` nor `/users/{id}` as the contract says: every case of those
/// rules that ran failed on what came back (a `Response` mismatch), none for want of an answer. A server that is gone
/// fails them differently (`NoResponse`, `NotRun`), and one that implements the API gets at least one of them right.
pub fn not_the_api(results: &[CaseResult]) -> bool {
    let routes: Vec<&CaseResult> = results
        .iter()
        .filter(|r| contract::cases().iter().any(|c| c.name == r.name && ROUTE_RULES.contains(&c.rule_id.as_str())))
        .collect();
    let wrong = |r: &&CaseResult| matches!(&r.verdict, Verdict::Failed(m) if m.iter().all(|x| matches!(x, Mismatch::Response(_))));
    !routes.is_empty() && routes.iter().all(wrong)
}

/// Parses `http://HOST:PORT[/]` into an address to connect to.
pub fn parse_url(url: &str) -> Result<SocketAddr> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| usage(format!("not an http:// URL: {url:?} (expected e.g. http://127.0.0.1:3000)")))?;
    let hostport = rest.trim_end_matches('/');
    if hostport.is_empty() || hostport.contains('/') {
        return Err(usage(format!("expected http://HOST:PORT without a path, got {url:?}")));
    }
    let with_port = if hostport.rsplit_once(':').is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit())) {
        hostport.to_string()
    } else {
        format!("{hostport}:80")
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| usage(format!("cannot resolve {hostport:?}")))
}

/// `fairpair verify URL`: true when every case that could run passed. By default it prints one line per failing
/// rule; `verbose` prints every case as it runs, with its time and every mismatch. `on_silence` says whether to go
/// on after a run of unanswered cases.
pub fn verify_url(url: &str, level: Level, verbose: bool, on_silence: OnSilence) -> Result<bool> {
    let addr = parse_url(url)?;
    // One clear line instead of two hundred identical failures when nothing listens there.
    std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
        .map_err(|e| anyhow::anyhow!("cannot connect to {addr}: {e}"))?;
    println!("contract level {level}: {}", level_sentence(level));
    let results = if verbose {
        let results = run_some(addr, &Requires::default(), on_silence, |c| c.level <= level, &mut |r, took| {
            println!("{r} ({} ms)", took.as_millis());
        });
        if not_the_api(&results) {
            println!("{NOT_THE_API}");
        }
        println!("{}", tally_line(&results));
        results
    } else {
        let results = run_some(addr, &Requires::default(), on_silence, |c| c.level <= level, &mut |_, _| {});
        if not_the_api(&results) {
            println!("{NOT_THE_API}");
        }
        print_by_rule(&results, &mut std::io::stdout())?;
        results
    };
    Ok(contract::tally(&results).1 == 0)
}

/// For a built-in server, the line that names the release of its HTTP stack and says whether the tolerance table's
/// rows were decided on it (`contract::releases`): a verification passed on another release may pass for reasons
/// the table no longer describes. The ceiling implements no contract, and a custom subject's stack is unknown.
fn release_note(spec: &SubjectSpec) -> Option<String> {
    use contract::releases::{Stack, go_release, hyper_release, line, llhttp_release, tomcat_release};
    let crate::subjects::process::Origin::Builtin { subject, program: argv, .. } = &spec.origin else { return None };
    let program = std::path::Path::new(argv.first()?);
    let stack = subject.server().stack?;
    // Node's llhttp is read from the node that runs the script, Go's release from the binary: both the program.
    // Tomcat is read from the jar that nests it, the argument after `-jar`.
    let at_hand = match stack {
        Stack::Hyper => hyper_release(),
        Stack::Llhttp => llhttp_release(program),
        Stack::NetHttp => go_release(program),
        Stack::Tomcat => argv.iter().find(|a| a.ends_with(".jar")).and_then(|jar| tomcat_release(jar.as_ref())),
    };
    let decided: Vec<_> = contract::tolerances::TOLERANCES.iter().map(|t| t.decided_on).collect();
    Some(line(stack, at_hand.as_deref(), &decided))
}

/// What a level covers, in a few words, for the console and the report.
pub fn level_sentence(level: Level) -> &'static str {
    match level {
        Level::Api => "the API's routes, statuses, bodies and POST validation; not the transport's hardening",
        Level::Full => "every case: the API, the transport's hardening and JSON.parse's edge cases",
    }
}

/// Verifies a subject the harness starts itself at `level`: once with its default settings and, for the built-in
/// servers, once more per set of settings some cases require (a full store, `--max-users 10000`; a short head time
/// limit, `--header-timeout-ms 1000`).
/// `start` starts the subject with the settings some cases require (none: its defaults): the harness's one way to
/// start a subject (`measure::Runner::start`).
pub fn verify_subject(
    spec: &SubjectSpec,
    level: Level,
    scope: CaseScope,
    start: &dyn Fn(&Requires) -> Result<Running>,
) -> Result<Verification> {
    if !spec.implements_contract() {
        return Ok(Verification {
            status: VerificationStatus::NotApplicable,
            level,
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: vec![],
            measured_unverified: false,
            notes: vec![],
            scope,
            failed_rules: vec![],
        });
    }
    let asked = |c: &contract::Case| c.level <= level && scope.asks(c);
    let server = start(&Requires::default())?;
    let mut results = run_some(server.addr, &Requires::default(), OnSilence::GiveUp, asked, &mut |_, _| {});
    server.stop()?;
    // Only `full` cases require settings, so at `api` the other starts would run nothing.
    if spec.accepts_max_users() && level == Level::Full {
        // One more start per distinct set of settings the cases require (a full store; a short head limit), and
        // the "skipped" verdicts of the first pass replaced by the real ones.
        let mut distinct: Vec<&Requires> = Vec::new();
        for case in contract::cases().iter().filter(|c| !c.requires.is_empty() && scope.asks(c)) {
            if !distinct.contains(&&case.requires) {
                distinct.push(&case.requires);
            }
        }
        for settings in distinct {
            let server = start(settings)?;
            let needing = run_some(
                server.addr,
                settings,
                OnSilence::GiveUp,
                |c| c.requires == *settings && asked(c),
                &mut |_, _| {},
            );
            server.stop()?;
            for n in needing {
                if let Some(r) = results.iter_mut().find(|r| r.name == n.name) {
                    *r = n;
                }
            }
        }
    }
    let mut notes = Vec::new();
    if not_the_api(&results) {
        notes.push(NOT_THE_API.to_string());
    }
    notes.extend(release_note(spec));
    if spec.per_worker_store {
        let tolerated = tolerate_roundtrips(&mut results);
        if tolerated > 0 {
            notes.push(format!(
                "{tolerated} read-back (round trip) checks tolerated: each cluster worker has its own store, and the \
                 read-back may reach another worker (CONTRACT.md, Node cluster mode)"
            ));
        }
    }
    let (passed, failed, skipped) = contract::tally(&results);
    let failures = results
        .iter()
        .filter_map(|r| match &r.verdict {
            Verdict::Failed(m) => Some(format!("{}: {}", r.name, contract::join_mismatches(m, "; "))),
            _ => None,
        })
        .take(20)
        .collect();
    Ok(Verification {
        level,
        status: if failed == 0 { VerificationStatus::Passed } else { VerificationStatus::Failed },
        passed: passed as u32,
        failed: failed as u32,
        skipped: skipped as u32,
        failures,
        measured_unverified: false,
        notes,
        scope,
        failed_rules: failed_rules(&results).iter().map(rule_line).collect(),
    })
}

/// Turns failures that consist only of read-back mismatches into passes; returns how many.
fn tolerate_roundtrips(results: &mut [CaseResult]) -> usize {
    let mut n = 0;
    for r in results.iter_mut() {
        if let Verdict::Failed(m) = &r.verdict
            && m.iter().all(|x| matches!(x, Mismatch::RoundTrip(_)))
        {
            r.verdict = Verdict::Passed;
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::names::BuiltinSubject;

    fn builtin(subject: BuiltinSubject, program: &str) -> SubjectSpec {
        SubjectSpec {
            name: subject.name().to_string(),
            origin: crate::subjects::process::Origin::Builtin {
                subject,
                program: vec![program.to_string()],
                accepts_max_users: true,
                implements_contract: true,
            },
            workers: None,
            get_only: false,
            ready_path: "/health".into(),
            per_worker_store: false,
        }
    }

    #[test]
    fn a_built_in_server_names_its_stack_release() {
        let rust = release_note(&builtin(BuiltinSubject::Rust, "users-server")).unwrap();
        assert!(rust.starts_with("hyper 1.12.0: the release every tolerance row"), "{rust}");
        // A Go binary that is not there: its release cannot be read, which is a warning, not a pass.
        let go = release_note(&builtin(BuiltinSubject::Go, "/nonexistent/users-server-go")).unwrap();
        assert!(go.starts_with("warning: Go's net/http: its release here could not be read"), "{go}");
        assert_eq!(release_note(&builtin(BuiltinSubject::Ceiling, "ceiling")), None);
        // The Java server's Tomcat is read from its jar, the argument that ends in `.jar`.
        let jar = std::env::temp_dir().join(format!("fairpair-verify-{}.jar", std::process::id()));
        std::fs::write(&jar, b"PK\x03\x04 BOOT-INF/lib/tomcat-embed-core-11.0.22.jar PK").unwrap();
        let mut java = builtin(BuiltinSubject::Java, "java");
        if let crate::subjects::process::Origin::Builtin { program, .. } = &mut java.origin {
            program.extend(["-jar".to_string(), jar.display().to_string()]);
        }
        let tomcat = release_note(&java).unwrap();
        std::fs::remove_file(&jar).unwrap();
        assert!(tomcat.starts_with("Tomcat 11.0.22: the release every tolerance row"), "{tomcat}");
    }

    #[test]
    fn only_pure_round_trip_failures_are_tolerated() {
        let mut results = vec![
            CaseResult {
                name: "a".into(),
                verdict: Verdict::Failed(vec![Mismatch::RoundTrip("GET /users/10001: x".into())]),
                outcome: None,
            },
            CaseResult {
                name: "b".into(),
                verdict: Verdict::Failed(vec![
                    Mismatch::Response("status: expected 201, got 400".into()),
                    Mismatch::RoundTrip("y".into()),
                ]),
                outcome: None,
            },
            CaseResult { name: "c".into(), verdict: Verdict::Passed, outcome: None },
        ];
        assert_eq!(tolerate_roundtrips(&mut results), 1);
        assert_eq!(results[0].verdict, Verdict::Passed);
        assert!(matches!(results[1].verdict, Verdict::Failed(_)));
    }

    #[test]
    fn a_server_that_is_gone_fails_fast() {
        // Nothing listens on the port of a listener just dropped: every case fails at once, and after
        // GIVE_UP_AFTER of them the rest are not even tried.
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let results = run_cases(addr, &Requires::default(), Level::Full);
        assert_eq!(results.len(), contract::cases().len());
        let not_run = results
            .iter()
            .filter(|r| matches!(&r.verdict, Verdict::Failed(m) if matches!(m[0], Mismatch::NotRun { .. })))
            .count();
        let skipped = contract::tally(&results).2;
        assert_eq!(not_run + GIVE_UP_AFTER + skipped, results.len());
    }

    fn failing(name: &str) -> CaseResult {
        CaseResult {
            name: name.into(),
            verdict: Verdict::Failed(vec![Mismatch::Response("status: expected 404, got 200".into())]),
            outcome: None,
        }
    }

    #[test]
    fn failures_are_grouped_by_rule_id_across_rule_sentences() {
        // Two cases of one rule whose sentences differ in their parenthesised detail, and one of another rule.
        let results = vec![
            failing("get-leading-zero"),
            failing("get-semicolon-in-id"),
            CaseResult { name: "get-zero-id".into(), verdict: Verdict::Passed, outcome: None },
            failing("post-name-empty"),
        ];
        let rules = failed_rules(&results);
        let ids: Vec<&str> = rules.iter().map(|r| r.rule_id.as_str()).collect();
        assert_eq!(ids, ["user-id-404", "post-name"]);
        assert_eq!(rules[0].failed, ["get-leading-zero", "get-semicolon-in-id"]);
        assert_eq!(rules[0].cases, 3, "only the cases that ran count");
        let mut out = Vec::new();
        print_by_rule(&results, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 3, "one line per failing rule and the tally:\n{text}");
        assert!(text.starts_with("FAIL  user-id-404: 2 of 3 cases (get-leading-zero, get-semicolon-in-id): Routes:"));
        assert!(text.ends_with("1 passed, 3 failed\n"), "{text}");
    }

    #[test]
    fn a_rule_line_names_a_few_cases_and_counts_the_rest() {
        let rule = FailedRule {
            rule_id: "post-json".into(),
            rule: "POST rule 3".into(),
            failed: (1..=5).map(|i| format!("c{i}")).collect(),
            cases: 30,
        };
        assert_eq!(rule_line(&rule), "FAIL  post-json: 5 of 30 cases (c1, c2, c3 and 2 more): POST rule 3");
    }

    #[test]
    fn a_level_runs_its_cases_and_those_below_only() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let api = run_cases(addr, &Requires::default(), Level::Api);
        let want = contract::cases().iter().filter(|c| c.level == Level::Api).count();
        assert_eq!(api.len(), want);
        assert!(want > 50 && want < contract::cases().len());
        let names: Vec<&str> = api.iter().map(|r| r.name.as_str()).collect();
        assert!(names.contains(&"get-seeded-user") && !names.contains(&"raw-missing-host-400"));
    }

    #[test]
    fn a_server_answering_neither_route_is_told_it_may_not_be_the_api() {
        let result = |name: &str, m: Option<Mismatch>| CaseResult {
            name: name.into(),
            verdict: m.map_or(Verdict::Passed, |m| Verdict::Failed(vec![m])),
            outcome: None,
        };
        let wrong = || Some(Mismatch::Response("status: expected 200, got 404".into()));
        let routes = ["get-health", "get-seeded-user", "get-first-user", "get-last-seeded-user"];
        // A static file server: every route case answered, wrongly; other cases do not matter.
        let mut results: Vec<CaseResult> = routes.iter().map(|n| result(n, wrong())).collect();
        results.push(result("get-zero-id", None));
        assert!(not_the_api(&results));
        // One route right: the users API with bugs, not another program.
        results[0] = result("get-health", None);
        assert!(!not_the_api(&results));
        // No answer is another diagnosis (the server is gone), and so is a run without the route cases.
        let silent: Vec<CaseResult> =
            routes.iter().map(|n| result(n, Some(Mismatch::NoResponse("refused".into())))).collect();
        assert!(!not_the_api(&silent));
        assert!(!not_the_api(&[result("get-zero-id", wrong())]));
    }

    #[test]
    fn urls() {
        assert_eq!(parse_url("http://127.0.0.1:3000").unwrap(), "127.0.0.1:3000".parse().unwrap());
        assert_eq!(parse_url("http://127.0.0.1:3000/").unwrap(), "127.0.0.1:3000".parse().unwrap());
        assert!(parse_url("https://127.0.0.1:3000").is_err());
        assert!(parse_url("http://127.0.0.1:3000/users").is_err());
        assert!(parse_url("127.0.0.1:3000").is_err());
    }
}
