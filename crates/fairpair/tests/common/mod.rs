//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// A binary of the workspace built next to `fairpair` (cargo builds `ceiling` and `users-server` there when the
/// workspace's tests are built). Fails loudly rather than skipping when it is missing.
pub fn sibling_binary(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_fairpair")).parent().unwrap().to_path_buf();
    let path = dir.join(name);
    assert!(
        path.is_file(),
        "{} not found: build it first (`cargo build -p {name}`, or run `cargo test --workspace`)",
        path.display()
    );
    path
}

/// wrk must be installed for the tests that load a server (CI installs it in .ci/run).
pub fn require_wrk() {
    let found = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("wrk").is_file()));
    assert!(found, "wrk is not installed: install it (`apt-get install wrk`, as .ci/run does) to run this test");
}

/// A fresh, empty directory under the target directory.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
