//! Running the `gqlnav` binary in the CLI tests: to the end, never panicking.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn gqlnav() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gqlnav"))
}

/// Run the binary to the end; it must not panic, whether it succeeds or not.
pub fn run(args: &[&str]) -> Output {
    let out = gqlnav().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

pub fn run_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `text` in a file `name` of a fresh temp dir (removed when the `TempDir` drops).
pub fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

pub fn run_err(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}
