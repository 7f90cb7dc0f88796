//! Scenarios: the request patterns a plan loads, built-in (`--scenarios get,post,hello`) or the user's own
//! (`--scenario NAME=METHOD:PATH[:BODY_FILE][:STATUS]`), and the cells they make with the subjects.

use std::collections::BTreeMap;

use anyhow::Result;

use super::check_name;
use crate::plan::names::{BuiltinScenario, Method};
use crate::schema::ExpectedStatus;
use crate::subjects::process::SubjectSpec;
use crate::usage;

/// The body of the `post` scenario: one new user per request.
pub const POST_BODY: &str = r#"{"name":"Bench User","email":"bench@example.com"}"#;

/// A request pattern to load.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    /// Which built-in scenario it is; `None` for a user's own, whatever its name.
    pub builtin: Option<BuiltinScenario>,
    pub method: Method,
    pub path: String,
    pub body: Option<String>,
    /// The status its responses must have to count as served work.
    pub expected: ExpectedStatus,
}

impl Scenario {
    pub fn is_get(&self) -> bool {
        self.method == Method::Get
    }

    /// Whether a run of it adds to the server's store, so the store must be sized for it.
    pub fn writes(&self) -> bool {
        self.method.writes()
    }

    /// A built-in scenario: the one place they are defined.
    pub fn builtin(kind: BuiltinScenario) -> Scenario {
        let (method, path, body) = match kind {
            BuiltinScenario::Get => (Method::Get, "/users/500", None),
            BuiltinScenario::Post => (Method::Post, "/users", Some(POST_BODY)),
            BuiltinScenario::Hello => (Method::Get, "/", None),
        };
        Scenario {
            name: kind.name().into(),
            builtin: Some(kind),
            method,
            path: path.into(),
            body: body.map(String::from),
            expected: ExpectedStatus::Success,
        }
    }
}

/// One subject × scenario × connections cell, measured `repeats` times.
#[derive(Clone, Debug)]
pub struct Cell {
    pub scenario: usize,
    pub connections: u32,
    /// Indices into `Plan::subjects`, in the order they alternate.
    pub subjects: Vec<usize>,
}

/// The scenarios: the built-in ones named (`--scenarios`, else the preset's, else `get,post`), then the user's own,
/// their body files as the facts read them.
pub(super) fn scenarios(
    named: Option<&[String]>,
    preset: Option<&[BuiltinScenario]>,
    custom: &[String],
    bodies: &BTreeMap<String, Result<String, String>>,
) -> Result<Vec<Scenario>> {
    let kinds: Vec<BuiltinScenario> = match named {
        Some(names) => names.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).map(builtin).collect::<Result<_>>()?,
        None => preset.map_or_else(|| vec![BuiltinScenario::Get, BuiltinScenario::Post], <[_]>::to_vec),
    };
    let mut scenarios = Vec::new();
    for kind in kinds {
        let s = Scenario::builtin(kind);
        if !scenarios.contains(&s) {
            scenarios.push(s);
        }
    }
    for text in custom {
        let s = custom_scenario(text, bodies)?;
        if scenarios.iter().any(|x| x.name == s.name) {
            return Err(usage(format!("--scenario {}: a scenario of that name already exists", s.name)));
        }
        scenarios.push(s);
    }
    if scenarios.is_empty() {
        return Err(usage("no scenario to run"));
    }
    Ok(scenarios)
}

fn builtin(name: &str) -> Result<BuiltinScenario> {
    BuiltinScenario::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = BuiltinScenario::ALL.iter().map(|s| s.name()).collect();
        usage(format!(
            "unknown scenario {name:?} (built-in: {}; add your own with --scenario NAME=METHOD:PATH[:BODY_FILE][:STATUS])",
            all.join(", ")
        ))
    })
}

/// A `--scenario` as written: everything but its body, which is in a file the facts read.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioText {
    pub name: String,
    pub method: Method,
    pub path: String,
    pub body_file: Option<String>,
    pub expected: ExpectedStatus,
}

/// Parses `NAME=METHOD:PATH[:BODY_FILE][:STATUS]`. A last part of exactly three digits is the expected status (a
/// body file with such a name can be given as `./404`).
pub fn parse_scenario(text: &str) -> Result<ScenarioText> {
    let bad = || usage(format!("--scenario expects NAME=METHOD:PATH[:BODY_FILE][:STATUS], got {text:?}"));
    let (name, spec) = text.split_once('=').ok_or_else(bad)?;
    check_name("--scenario", name)?;
    let (spec, expected) = match spec.rsplit_once(':') {
        Some((rest, last)) if last.len() == 3 && last.chars().all(|c| c.is_ascii_digit()) && rest.contains(':') => {
            let code: u16 = last.parse().expect("three digits");
            if !(100..=599).contains(&code) {
                return Err(usage(format!("--scenario {name}: status {code} is not an HTTP status (100 to 599)")));
            }
            (rest, ExpectedStatus::Status(code))
        }
        _ => (spec, ExpectedStatus::Success),
    };
    let mut parts = spec.splitn(3, ':');
    let method = parts.next().filter(|m| !m.is_empty()).ok_or_else(bad)?;
    let path = parts.next().ok_or_else(bad)?;
    if !method.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(usage(format!("--scenario {name}: method {method:?} must be upper-case letters (GET, POST, …)")));
    }
    if !path.starts_with('/') || path.contains(char::is_whitespace) {
        return Err(usage(format!("--scenario {name}: path {path:?} must start with / and contain no spaces")));
    }
    Ok(ScenarioText {
        name: name.to_string(),
        method: Method::from_name(method),
        path: path.to_string(),
        body_file: parts.next().map(String::from),
        expected,
    })
}

/// A `--scenario`, its body taken from the files the facts read (`bodies`, by file name).
fn custom_scenario(text: &str, bodies: &BTreeMap<String, Result<String, String>>) -> Result<Scenario> {
    let ScenarioText { name, method, path, body_file, expected } = parse_scenario(text)?;
    let body = match body_file {
        None => None,
        Some(file) => match bodies.get(&file) {
            Some(Ok(body)) => Some(body.clone()),
            Some(Err(e)) => return Err(usage(format!("--scenario {name}: cannot read body file {file}: {e}"))),
            None => return Err(usage(format!("--scenario {name}: body file {file} was not read"))),
        },
    };
    Ok(Scenario { name, builtin: None, method, path, body, expected })
}

/// Cells: every scenario × connection count, with the subjects that take part; the ceiling is a GET-only baseline.
pub(super) fn cells(
    scenarios: &[Scenario],
    subjects: &[SubjectSpec],
    connections: &[u32],
    skipped: &mut Vec<String>,
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for (si, scenario) in scenarios.iter().enumerate() {
        let members: Vec<usize> = (0..subjects.len()).filter(|&i| scenario.is_get() || !subjects[i].get_only).collect();
        for s in subjects.iter().filter(|s| s.get_only && !scenario.is_get()) {
            skipped.push(format!(
                "{} on {}: a fixed-response baseline is measured on GET scenarios only",
                s.name, scenario.name
            ));
        }
        if members.is_empty() {
            continue;
        }
        for &c in connections {
            cells.push(Cell { scenario: si, connections: c, subjects: members.clone() });
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_scenarios() {
        let s = parse_scenario("health=GET:/health").unwrap();
        assert_eq!(
            (s.name.as_str(), &s.method, s.path.as_str(), s.body_file),
            ("health", &Method::Get, "/health", None)
        );
        assert_eq!(s.expected, ExpectedStatus::Success);
        let s = parse_scenario("missing=GET:/users/0:404").unwrap();
        assert_eq!((s.path.as_str(), s.body_file, s.expected), ("/users/0", None, ExpectedStatus::Status(404)));
        // A path made of three digits is a path, not a status.
        let s = parse_scenario("odd=GET:/123").unwrap();
        assert_eq!((s.path.as_str(), s.expected), ("/123", ExpectedStatus::Success));
        assert_eq!(parse_scenario("p=PUT:/users/1").unwrap().method, Method::Other("PUT".into()));
        for bad in ["health", "=GET:/", "x=GET", "x=get:/", "x=GET:nope", "x y=GET:/", "x=GET:/:999", "x=GET:/:099"] {
            assert!(parse_scenario(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_custom_scenarios_body_comes_from_the_files_read() {
        let bodies = BTreeMap::from([
            ("body.json".to_string(), Ok("{\"name\":\"a\",\"email\":\"a@b\"}".to_string())),
            ("gone.json".to_string(), Err("No such file or directory".to_string())),
        ]);
        let s = custom_scenario("mine=POST:/users:body.json", &bodies).unwrap();
        assert_eq!(s.body.as_deref(), Some("{\"name\":\"a\",\"email\":\"a@b\"}"));
        assert_eq!((s.expected, s.builtin), (ExpectedStatus::Success, None));
        let s = custom_scenario("mine=POST:/users:body.json:201", &bodies).unwrap();
        assert_eq!((s.body.is_some(), s.expected), (true, ExpectedStatus::Status(201)));
        let e = custom_scenario("mine=POST:/users:gone.json", &bodies).unwrap_err().to_string();
        assert!(e.contains("cannot read body file gone.json: No such file"), "{e}");
    }

    #[test]
    fn a_custom_scenario_named_get_is_not_the_builtin_one() {
        let s = scenarios(Some(&["post".into()]), None, &["get=GET:/health".into()], &BTreeMap::new()).unwrap();
        assert_eq!(s.iter().map(|s| s.builtin).collect::<Vec<_>>(), [Some(BuiltinScenario::Post), None]);
        let e = scenarios(Some(&["get".into()]), None, &["get=GET:/health".into()], &BTreeMap::new()).unwrap_err();
        assert!(e.to_string().contains("a scenario of that name already exists"), "{e}");
    }
}
