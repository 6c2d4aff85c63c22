//! The simulator's git commit, built into the module (`nestsim._native.__git_commit__`) so every
//! run's provenance names the code that produced it: the commit checked out when it was built
//! (uncommitted edits are not marked), or "unknown" outside a git checkout (an sdist).

use std::process::Command;

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=NEST_GIT_COMMIT={commit}");
    // A new commit or checkout moves HEAD or a ref.
    for p in [".git/HEAD", ".git/refs", ".git/packed-refs"] {
        let path = root.join(p);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
