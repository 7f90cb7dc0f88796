//! Which release of each HTTP stack a tolerance row was decided on, and which release is at hand.
//!
//! Most rows of the tolerance table exist because one stack's parser decides something before any handler runs,
//! and parsers change between releases: Go 1.26's net/http refuses an empty field name that Go 1.19's skipped, and a
//! row written for the old behaviour would allow a difference the servers no longer have. So each row records the
//! releases it was decided on ([`DecidedOn`]), `scripts/fuzz --decide` decides them again on the servers at hand,
//! and the verification report and the fuzzer's summary name the releases they ran against ([`line`]), with a
//! warning where a row was decided on another.

use std::path::Path;
use std::process::Command;

/// A server's HTTP/1 stack, the part whose decisions the tolerance table records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// hyper, under the Rust server.
    Hyper,
    /// llhttp, Node's HTTP/1 parser.
    Llhttp,
    /// Go's net/http, named by the Go release that built the Go server.
    NetHttp,
    /// Tomcat, the embedded server under the Java server's Spring Boot (its release is the Boot parent's pick).
    Tomcat,
}

impl Stack {
    /// Every stack, in the order the servers are named elsewhere (rust, node, go, java).
    pub const ALL: [Stack; 4] = [Stack::Hyper, Stack::Llhttp, Stack::NetHttp, Stack::Tomcat];

    /// The stack's name in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Hyper => "hyper",
            Stack::Llhttp => "llhttp",
            Stack::NetHttp => "Go's net/http",
            Stack::Tomcat => "Tomcat",
        }
    }
}

/// The release of each stack a tolerance row was decided on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecidedOn {
    /// hyper's version, as in Cargo.lock (`1.12.0`).
    pub hyper: &'static str,
    /// llhttp's version, as Node reports it in `process.versions.llhttp` (`9.4.3`).
    pub llhttp: &'static str,
    /// The Go release that built the Go server, as `go version` prints it (`go1.26.8`).
    pub go: &'static str,
    /// Tomcat's version, as servers-java's `mvn dependency:tree` names `tomcat-embed-core` (`11.0.22`).
    pub tomcat: &'static str,
}

impl DecidedOn {
    /// The release of one stack.
    pub fn release(&self, stack: Stack) -> &'static str {
        match stack {
            Stack::Hyper => self.hyper,
            Stack::Llhttp => self.llhttp,
            Stack::NetHttp => self.go,
            Stack::Tomcat => self.tomcat,
        }
    }
}

/// The releases the whole table was last decided on together (what every row's `decided_on` in
/// `contract/tolerances.json` names today), with `scripts/fuzz --decide`: hyper 1.12.0, the llhttp of Node 26.12.1,
/// and Go 1.26.8 with `go 1.26` in servers-go's go.mod (whose line sets net/http's defaults); and Tomcat 11.0.22, the
/// one Spring Boot 4.0.7 brings, on which the Tomcat rows were decided with `fairpair verify`.
pub const DECIDED_ON_2026_12: DecidedOn =
    DecidedOn { hyper: "1.12.0", llhttp: "9.4.3", go: "go1.26.8", tomcat: "11.0.22" };

/// The releases at hand, where they could be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AtHand {
    pub hyper: Option<String>,
    pub llhttp: Option<String>,
    pub go: Option<String>,
    pub tomcat: Option<String>,
}

impl AtHand {
    /// The release of one stack, if known.
    pub fn release(&self, stack: Stack) -> Option<&str> {
        match stack {
            Stack::Hyper => self.hyper.as_deref(),
            Stack::Llhttp => self.llhttp.as_deref(),
            Stack::NetHttp => self.go.as_deref(),
            Stack::Tomcat => self.tomcat.as_deref(),
        }
    }
}

/// hyper's version in a Cargo.lock: the Rust server is built `--locked`, so the lock file names what runs.
pub fn hyper_in_lock(lock: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"hyper\"" {
            let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(version.to_string());
        }
    }
    None
}

/// hyper's version in the workspace's Cargo.lock, read when this crate was built: the Rust server is built from the
/// same workspace and lock file.
pub fn hyper_release() -> Option<String> {
    hyper_in_lock(include_str!("../../../Cargo.lock"))
}

/// The llhttp of a Node program (`node`, or a path): what it reports in `process.versions.llhttp`.
pub fn llhttp_release(node: &Path) -> Option<String> {
    let out = Command::new(node).args(["-p", "process.versions.llhttp"]).output().ok()?;
    let version = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !version.is_empty()).then_some(version)
}

/// The Go release that built a binary: `go version BINARY` prints `BINARY: go1.26.8`, read from the binary itself.
pub fn go_release(binary: &Path) -> Option<String> {
    let out = Command::new("go").arg("version").arg(binary).env("GOTOOLCHAIN", "local").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().rsplit(": ").next()?.trim().to_string();
    (out.status.success() && version.starts_with("go")).then_some(version)
}

/// The Tomcat a Spring Boot jar carries, from the name of the library it nests
/// (`BOOT-INF/lib/tomcat-embed-core-11.0.22.jar`). A jar is a zip file, whose entries' names are stored as plain
/// bytes, so the name is found without unpacking anything.
pub fn tomcat_release(jar: &Path) -> Option<String> {
    tomcat_in_jar_bytes(&std::fs::read(jar).ok()?)
}

/// [`tomcat_release`] on the jar's bytes.
pub fn tomcat_in_jar_bytes(bytes: &[u8]) -> Option<String> {
    const NAME: &[u8] = b"BOOT-INF/lib/tomcat-embed-core-";
    let start = bytes.windows(NAME.len()).position(|w| w == NAME)? + NAME.len();
    let rest = &bytes[start..bytes.len().min(start + 40)];
    let end = rest.windows(4).position(|w| w == b".jar")?;
    let version = std::str::from_utf8(&rest[..end]).ok()?;
    let plausible = !version.is_empty() && version.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    plausible.then(|| version.to_string())
}

/// The line a report prints about one stack: the release at hand, and a warning (the line starts with `warning:`)
/// when any of the rows were decided on another release or the one at hand is unknown. `decided` is each row's
/// [`DecidedOn`].
pub fn line(stack: Stack, at_hand: Option<&str>, decided: &[DecidedOn]) -> String {
    let name = stack.name();
    let Some(here) = at_hand else {
        return format!(
            "warning: {name}: its release here could not be read, so whether the tolerance table's rows were decided \
             on it is unknown"
        );
    };
    let others: Vec<&str> = decided.iter().map(|d| d.release(stack)).filter(|r| *r != here).collect();
    if others.is_empty() {
        return format!("{name} {here}: the release every tolerance row was decided on");
    }
    let mut releases: Vec<&str> = others.clone();
    releases.sort_unstable();
    releases.dedup();
    format!(
        "warning: {name} {here} here, but {} of {} tolerance rows were decided on {}: a difference they allow may be \
         gone, or a new one refused (scripts/fuzz --decide decides them on the servers at hand)",
        others.len(),
        decided.len(),
        releases.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tomcat_is_read_from_the_name_of_the_library_a_jar_nests() {
        let jar =
            b"PK\x03\x04....BOOT-INF/lib/spring-boot-tomcat-4.0.7.jar..BOOT-INF/lib/tomcat-embed-core-11.0.22.jarPK";
        assert_eq!(tomcat_in_jar_bytes(jar).as_deref(), Some("11.0.22"));
        assert_eq!(tomcat_in_jar_bytes(b"PK\x03\x04 no tomcat here"), None);
        assert_eq!(Stack::ALL.map(Stack::name), ["hyper", "llhttp", "Go's net/http", "Tomcat"]);
    }

    #[test]
    fn hyper_is_read_from_a_lock_file() {
        let lock = "[[package]]\nname = \"httparse\"\nversion = \"1.10.1\"\n\n[[package]]\nname = \"hyper\"\nversion = \"1.12.0\"\nsource = \"x\"\n\n[[package]]\nname = \"hyper-util\"\nversion = \"0.1.21\"\n";
        assert_eq!(hyper_in_lock(lock).as_deref(), Some("1.12.0"));
        assert_eq!(hyper_in_lock("[[package]]\nname = \"serde\"\nversion = \"1\"\n"), None);
    }

    #[test]
    fn the_repository_lock_names_the_hyper_the_table_was_decided_on() {
        assert_eq!(hyper_release().as_deref(), Some(DECIDED_ON_2026_12.hyper), "update DECIDED_ON_2026_12");
    }

    #[test]
    fn a_release_other_than_the_rows_is_a_warning() {
        let old = DecidedOn { go: "go1.19.8", ..DECIDED_ON_2026_12 };
        let same = line(Stack::NetHttp, Some("go1.26.8"), &[DECIDED_ON_2026_12, DECIDED_ON_2026_12]);
        assert_eq!(same, "Go's net/http go1.26.8: the release every tolerance row was decided on");
        let mixed = line(Stack::NetHttp, Some("go1.26.8"), &[DECIDED_ON_2026_12, old]);
        assert!(
            mixed.starts_with(
                "warning: Go's net/http go1.26.8 here, but 1 of 2 tolerance rows were decided on go1.19.8:"
            ),
            "{mixed:?}"
        );
        let tomcat = line(Stack::Tomcat, Some("11.0.22"), &[DECIDED_ON_2026_12]);
        assert_eq!(tomcat, "Tomcat 11.0.22: the release every tolerance row was decided on");
        let unknown = line(Stack::Llhttp, None, &[DECIDED_ON_2026_12]);
        assert!(unknown.starts_with("warning: llhttp: its release here could not be read"), "{unknown:?}");
    }
}
