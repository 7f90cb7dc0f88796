//! The closed sets of names a run is made of: load tools, built-in subjects and scenarios, presets, HTTP methods.
//!
//! Each is an enum, so that the harness decides on types and never compares a name as text. A name is read once,
//! where it enters (clap reads `--tool` and `--preset`, the plan reads `--subjects` and `--scenarios`), and written
//! back only for people and files: `benchmark.json` keeps the names it always had. This module imports nothing of
//! the harness but the tools' kind, which it names, so every other module can use it.

/// Defines a kind: the enum, each variant's name as the command line and `benchmark.json` write it (clap and serde
/// derive the same kebab-case names, which a test checks), `ALL`, `name`, `from_name` and `Display`.
macro_rules! kind {
    ($(#[$meta:meta])* $kind:ident { $($(#[$doc:meta])* $variant:ident = $name:literal,)* }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
        )]
        #[serde(rename_all = "kebab-case")]
        pub enum $kind {
            $($(#[$doc])* $variant,)*
        }

        impl $kind {
            /// Every one, in the order they are listed (the results list the tools' versions in it).
            pub const ALL: &[$kind] = &[$($kind::$variant),*];

            pub fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name,)*
                }
            }

            /// The one of this name, if any.
            pub fn from_name(name: &str) -> Option<$kind> {
                $kind::ALL.iter().copied().find(|k| k.name() == name)
            }
        }

        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use kind;

/// The load tools are a kind too, defined beside their adapters (`tools/mod.rs`) so that a new tool stays in `tools/`.
pub use crate::tools::Tool;

kind! {
    /// One of this repository's servers, or the fixed-response ceiling (`--subjects`). Which server each is, and
    /// all that follows from it, is its entry in `builtins.rs`.
    BuiltinSubject {
        Rust = "rust",
        Node = "node",
        Go = "go",
        /// The Spring Boot twin (`servers-java/`, built by `scripts/build-java`), one JVM told it has one CPU.
        Java = "java",
        Ceiling = "ceiling",
        RustMulti = "rust-multi",
        NodeCluster = "node-cluster",
        GoMulti = "go-multi",
        JavaMulti = "java-multi",
    }
}

kind! {
    /// A request pattern defined by fairpair itself (`--scenarios`): `get` is `GET /users/500` (the scenario of the
    /// open-loop and memory phases), `post` is `POST /users`, `hello` is the studies' `GET /`.
    BuiltinScenario { Get = "get", Post = "post", Hello = "hello", }
}

kind! {
    /// A published comparison, reproduced with its own method (`--preset`); its method and figures are in
    /// `presets.rs`.
    Preset {
        /// fairpair's own defaults (wrk, pinned, one core each, 50 and 300 connections).
        Fairpair = "fairpair",
        /// "Node.js vs Go for a JSON API": autocannon sharing the machine, 50 and 300 connections, 15 s, memory ×3.
        Article = "article",
        /// "Go goroutines vs Node cluster": wrk at 1,000 connections against a hello-world route, one thread and all.
        Wrk = "wrk",
        /// "Node vs Go, hello world": ab against a hello-world route, 1 and 100 concurrent requests, one core.
        AbHello = "ab-hello",
        /// "Node.js vs Spring Boot": bombardier against a hello-world route at 50, 100 and 200 connections.
        Bombardier = "bombardier",
    }
}

impl Preset {
    /// The preset named in a recorded command line (`--preset NAME` or `--preset=NAME`): how a file written before
    /// `settings.preset` existed tells its preset.
    pub fn from_argv(argv: &[String]) -> Option<Preset> {
        let value = argv.iter().enumerate().find_map(|(i, a)| match a.strip_prefix("--preset") {
            Some("") => argv.get(i + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        })?;
        Preset::from_name(value)
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

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

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
            assert_eq!(serde_json::to_string(t).unwrap(), format!("\"{t}\""));
        }
        for p in Preset::ALL {
            assert_eq!(serde_json::to_string(p).unwrap(), format!("\"{p}\""));
        }
        assert_eq!(BuiltinSubject::from_name("node-cluster"), Some(BuiltinSubject::NodeCluster));
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
