//! Shared test helpers: the WG schemas bundled in the repository.

use std::path::Path;
use std::sync::Arc;

use gqlnav_schema::SchemaGraph;
use gqlnav_tools::{Toolbox, ToolsConfig};

/// A file of the repository.
pub fn repo_file(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A bundled WG schema (`github`, `linear`, `singapore`).
pub fn bundled(id: &str) -> Arc<SchemaGraph> {
    let sdl = repo_file(&format!("benchmarks/wg/schemas/{id}/schema.graphql"));
    Arc::new(gqlnav_schema::load_sdl_str(&sdl, id).unwrap())
}

/// A toolbox over a bundled schema with the default ranker and config.
#[allow(dead_code)]
pub fn toolbox(id: &str) -> Toolbox {
    Toolbox::build(bundled(id), None, ToolsConfig::default()).unwrap()
}
