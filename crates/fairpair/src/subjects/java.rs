//! The JVM the Java subjects run on, and what it chose for itself. A JVM sizes itself from the machine it finds:
//! HotSpot picks its garbage collector by whether the machine is "server-class" (two CPUs or more, and 1792 MB of
//! memory or more: G1 then, the serial collector otherwise) and sizes its heap from the memory it sees. So the
//! figures of a Java subject depend on choices nobody wrote down, and the results record them as the JVM made them
//! for each CPU count it was told (`-XX:ActiveProcessorCount=N`, as the subjects are started): measured by asking
//! the JVM (`-XX:+PrintFlagsFinal`), not assumed from the rule above. No flag tunes it: the subjects run with what
//! a Spring user gets by default.

//!
//! This module holds the record and how to read it from the JVM's words; `env::jvm` asks the JVM on the host the
//! subjects run on.

use serde::{Deserialize, Serialize};

/// The JVM of a run, as `benchmark.json` records it (`environment.java`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jvm {
    /// The program that ran the jar (`--java`, else `java` on PATH).
    pub program: String,
    /// The first line of `java -version` (`openjdk version "17.0.15" 2025-04-15`), or "unknown".
    pub version: String,
    /// What it chose for each CPU count a Java subject was started with: one for `java`, every server CPU for
    /// `java-multi`.
    pub ergonomics: Vec<Ergonomics>,
}

/// The choices a JVM made told it has `cpus` CPUs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ergonomics {
    pub cpus: u32,
    /// The garbage collector it picked (`SerialGC`, `G1GC`, …), `None` when no `Use…GC` flag was true.
    pub gc: Option<String>,
    /// Its starting and largest heap (`InitialHeapSize`, `MaxHeapSize`), in bytes.
    pub initial_heap_bytes: Option<u64>,
    pub max_heap_bytes: Option<u64>,
}

/// The collectors HotSpot may pick, as its flags name them (`-XX:+UseSerialGC`).
const COLLECTORS: [&str; 6] = ["SerialGC", "ParallelGC", "G1GC", "ZGC", "ShenandoahGC", "EpsilonGC"];

/// The collector and heap sizes in `-XX:+PrintFlagsFinal`'s table, one flag a line:
/// `     bool UseSerialGC                              = true                                      {product} {ergonomic}`.
pub fn parse_flags(text: &str) -> Ergonomics {
    let mut choice = Ergonomics::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [_, name, "=", value, ..] = words[..] else { continue };
        match name.strip_prefix("Use") {
            Some(gc) if COLLECTORS.contains(&gc) && value == "true" => choice.gc = Some(gc.to_string()),
            _ if name == "InitialHeapSize" => choice.initial_heap_bytes = value.parse().ok(),
            _ if name == "MaxHeapSize" => choice.max_heap_bytes = value.parse().ok(),
            _ => {}
        }
    }
    choice
}

/// How the report says what the JVM chose: "SerialGC, heap 16 MiB at start, at most 256 MiB".
pub fn describe(e: &Ergonomics) -> String {
    let mib = |bytes: Option<u64>| bytes.map_or("unknown".to_string(), |b| format!("{} MiB", b / (1024 * 1024)));
    let gc = e.gc.as_deref().unwrap_or("no collector named");
    format!("{gc}, heap {} at start, at most {}", mib(e.initial_heap_bytes), mib(e.max_heap_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collector_and_heap_are_read_from_the_flags_table() {
        let text = "[Global flags]\n\
            \x20    bool UseG1GC                                  = false                                     {product} {default}\n\
            \x20  size_t InitialHeapSize                          = 16777216                                  {product} {ergonomic}\n\
            \x20  size_t MaxHeapSize                              = 268435456                                 {product} {ergonomic}\n\
            \x20    bool UseSerialGC                              = true                                      {product} {ergonomic}\n\
            \x20    bool UseZGC                                   = false                                     {product} {default}\n\
            openjdk version \"17.0.15\" 2025-04-15\n";
        let e = parse_flags(text);
        assert_eq!(e.gc.as_deref(), Some("SerialGC"));
        assert_eq!((e.initial_heap_bytes, e.max_heap_bytes), (Some(16_777_216), Some(268_435_456)));
        assert_eq!(describe(&Ergonomics { cpus: 1, ..e }), "SerialGC, heap 16 MiB at start, at most 256 MiB");
        assert_eq!(parse_flags("").gc, None);
    }
}
