//! Where the CLI tests' data lives: the WG data bundled in `benchmarks/wg/`, the film
//! fixture in `tests/fixtures/` (our own), and the extra WG schemas (gitlab, shopify)
//! that only the project's `shared/data` holds.

#![allow(dead_code)]

use std::path::PathBuf;

// One definition of where the WG schemas are (bundled, or extra and skipped with a
// printed reason when absent): the schema crate's test helper.
#[path = "../../../schema/tests/common/mod.rs"]
mod wg;
pub use wg::{find_wg_schema, repo, wg_schema, PUBLISHED_FIELD_COUNTS};

/// The bundled WG question directory (416 YAML files).
pub fn wg_queries() -> PathBuf {
    repo().join("benchmarks/wg/queries")
}

/// A file of the film fixture: `films.graphqls` and `films-sample.tsv`.
pub fn films(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(file)
}
