//! The repository stands on its own: no tracked file, and so no string the harness prints, names a file outside it.
//! The studies fairpair grew out of are described in `docs/prior-results.md`; an earlier version of the project sent
//! readers (and every preset report) to a notes file beside the repository that a user who clones it does not have.

use std::path::Path;
use std::process::Command;

/// The texts that would point outside the repository, spelled in two pieces so that this file does not match itself.
fn forbidden() -> [String; 2] {
    [format!("{}-RESULTS", "PRIOR"), format!("{}/", "shared")]
}

#[test]
fn no_tracked_file_refers_to_a_path_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("git").arg("ls-files").arg("-z").current_dir(&root).output().expect("git ls-files runs");
    assert!(out.status.success(), "git ls-files failed: {}", String::from_utf8_lossy(&out.stderr));
    let files: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().split('\0').filter(|f| !f.is_empty()).collect();
    assert!(files.len() > 100, "git ls-files listed only {} files: is this the repository?", files.len());
    let mut hits = Vec::new();
    for file in &files {
        // A file deleted in the work tree but still in the index has nothing left to read.
        let Ok(bytes) = std::fs::read(root.join(file)) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if forbidden().iter().any(|f| line.contains(f.as_str())) {
                hits.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(hits.is_empty(), "references to a path outside the repository:\n{}", hits.join("\n"));
}
