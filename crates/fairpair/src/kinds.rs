//! The closed sets of names a run is made of: load tools, built-in subjects and scenarios, presets, HTTP methods.
//!
//! Each is an enum, so that the harness decides on types and never compares a name as text. A name is read once,
//! where it enters (clap reads `--tool` and `--preset`, the plan reads `--subjects` and `--scenarios`), and written
//! back only for people and files: `benchmark.json` keeps the names it always had. This module imports nothing of
//! the harness, so every other module can use it.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

/// A load tool (`--tool`), as `benchmark.json` records it. Its adapter is [`Tool::adapter`], in `tools/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    Wrk,
    Oha,
    Autocannon,
    Ab,
    Bombardier,
}

impl Tool {
    /// Every tool, in the order the results list their versions.
    pub const ALL: [Tool; 5] = [Tool::Wrk, Tool::Oha, Tool::Autocannon, Tool::Ab, Tool::Bombardier];

    pub fn name(self) -> &'static str {
        match self {
            Tool::Wrk => "wrk",
            Tool::Oha => "oha",
            Tool::Autocannon => "autocannon",
            Tool::Ab => "ab",
            Tool::Bombardier => "bombardier",
        }
    }
}

/// One of this repository's servers, or the fixed-response ceiling (`--subjects`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BuiltinSubject {
    Rust,
    Node,
    Go,
    Ceiling,
    RustMulti,
    NodeCluster,
    GoMulti,
}

impl BuiltinSubject {
    pub fn name(self) -> &'static str {
        match self {
            BuiltinSubject::Rust => "rust",
            BuiltinSubject::Node => "node",
            BuiltinSubject::Go => "go",
            BuiltinSubject::Ceiling => "ceiling",
            BuiltinSubject::RustMulti => "rust-multi",
            BuiltinSubject::NodeCluster => "node-cluster",
            BuiltinSubject::GoMulti => "go-multi",
        }
    }

    /// The subject of this name, if it is a built-in one.
    pub fn from_name(name: &str) -> Option<BuiltinSubject> {
        BuiltinSubject::from_str(name, false).ok()
    }

    /// Whether it runs one worker per server CPU, and so needs at least two of them to mean anything.
    pub fn is_multi_worker(self) -> bool {
        matches!(self, BuiltinSubject::RustMulti | BuiltinSubject::NodeCluster | BuiltinSubject::GoMulti)
    }
}

/// A request pattern defined by fairpair itself (`--scenarios`); a user's own is a `--scenario`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BuiltinScenario {
    /// `GET /users/500`: the API's read, the scenario of the open-loop and memory phases.
    Get,
    /// `POST /users`: the API's write, which fills the store.
    Post,
    /// `GET /`: the hello-world route of the studies.
    Hello,
}

impl BuiltinScenario {
    pub fn name(self) -> &'static str {
        match self {
            BuiltinScenario::Get => "get",
            BuiltinScenario::Post => "post",
            BuiltinScenario::Hello => "hello",
        }
    }

    pub fn from_name(name: &str) -> Option<BuiltinScenario> {
        BuiltinScenario::from_str(name, false).ok()
    }
}

/// A published comparison, reproduced with its own method (`--preset`); its method and figures are in `presets.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// fairpair's own defaults (wrk, pinned, one core each, 50 and 300 connections).
    Fairpair,
    /// "Node.js vs Go for a JSON API": autocannon sharing the machine, 50 and 300 connections, 15 s, memory ×3.
    Article,
    /// "Go goroutines vs Node cluster": wrk at 1,000 connections against a hello-world route, one thread and all.
    Wrk,
    /// "Node vs Go, hello world": ab against a hello-world route, 1 and 100 concurrent requests, one core.
    AbHello,
    /// "Node.js vs Spring Boot": bombardier against a hello-world route at 50, 100 and 200 connections.
    Bombardier,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Fairpair => "fairpair",
            Preset::Article => "article",
            Preset::Wrk => "wrk",
            Preset::AbHello => "ab-hello",
            Preset::Bombardier => "bombardier",
        }
    }

    /// The preset named in a recorded command line (`--preset NAME` or `--preset=NAME`): how a file written before
    /// `settings.preset` existed tells its preset.
    pub fn from_argv(argv: &[String]) -> Option<Preset> {
        let value = argv.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--preset") {
            Some("") => argv.get(i + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        })?;
        Preset::from_str(value, true).ok()
    }
}

/// An HTTP method. The three that do not change the server's state have names of their own; any other
/// (upper-case letters, as `--scenario` checks) is kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Options,
    Post,
    Other(String),
}

impl Method {
    /// The method of this name (upper-case, as HTTP writes it).
    pub fn from_name(name: &str) -> Method {
        match name {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            "POST" => Method::Post,
            other => Method::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
            Method::Post => "POST",
            Method::Other(name) => name,
        }
    }

    /// Whether a request of it adds to the server's store, so the store must be sized for it.
    pub fn writes(&self) -> bool {
        !matches!(self, Method::Get | Method::Head | Method::Options)
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Each kind is written as its name.
macro_rules! display_as_name {
    ($($kind:ty),*) => {$(
        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    )*};
}
display_as_name!(Tool, BuiltinSubject, BuiltinScenario, Preset);

#[cfg(test)]
mod tests {
    use super::*;

    /// The names written by hand above are the ones clap reads and serde writes.
    #[test]
    fn each_kind_has_one_name_everywhere() {
        fn check<K: ValueEnum + Copy + std::fmt::Debug>(name: fn(K) -> &'static str) {
            for k in K::value_variants() {
                assert_eq!(k.to_possible_value().unwrap().get_name(), name(*k), "{k:?}");
            }
        }
        check(Tool::name);
        check(BuiltinSubject::name);
        check(BuiltinScenario::name);
        check(Preset::name);
        for t in Tool::ALL {
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{}\"", t.name()));
        }
        for p in Preset::value_variants() {
            assert_eq!(serde_json::to_string(p).unwrap(), format!("\"{}\"", p.name()));
        }
        assert_eq!(Method::from_name("PUT"), Method::Other("PUT".into()));
        assert!(Method::from_name("GET") == Method::Get && !Method::Get.writes() && Method::Post.writes());
    }

    #[test]
    fn the_preset_is_read_back_from_a_recorded_command_line() {
        let argv = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(Preset::from_argv(&argv("fairpair run --preset ab-hello --quick")), Some(Preset::AbHello));
        assert_eq!(Preset::from_argv(&argv("fairpair run --preset=wrk")), Some(Preset::Wrk));
        assert_eq!(Preset::from_argv(&argv("fairpair run --quick")), None);
    }
}
