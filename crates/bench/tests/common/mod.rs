//! Shared test helpers: where the benchmark data lives. Everything these tests read is in
//! the repository: the WG data bundled in `benchmarks/wg/` and the film fixture of
//! `crates/cli/tests/fixtures/` (our own).

#![allow(dead_code)]

pub mod fake;

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled WG data: `benchmarks/wg` (github, linear and singapore schemas, the 416
/// YAML questions, github-wg.tsv).
pub fn wg_dir() -> PathBuf {
    repo().join("benchmarks/wg")
}

/// A file of the film fixture (`films.graphqls`, `films-sample.tsv`), written for
/// gqlnav's tests.
pub fn films(file: &str) -> PathBuf {
    repo().join("crates/cli/tests/fixtures").join(file)
}
