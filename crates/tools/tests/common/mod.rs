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

/// Any of the five WG schemas: bundled (github, linear, singapore), or gitlab / shopify
/// from `$GQLNAV_DATA_DIR` or `shared/data` beside the checkout. `None`, with the reason
/// printed, when it is absent.
#[allow(dead_code)]
pub fn wg_schema(id: &str) -> Option<Arc<SchemaGraph>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bundled = root.join(format!("benchmarks/wg/schemas/{id}/schema.graphql"));
    if bundled.is_file() {
        return Some(bundled_path(&bundled, id));
    }
    let data = match std::env::var_os("GQLNAV_DATA_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => root.join("../shared/data"),
    };
    let p = data.join("wg/schemas").join(id).join("schema.graphql");
    if p.is_file() {
        return Some(bundled_path(&p, id));
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {} not found (the {id} schema is not bundled); set GQLNAV_DATA_DIR to the folder holding wg/schemas/{id}",
        p.display()
    );
    None
}

fn bundled_path(p: &Path, id: &str) -> Arc<SchemaGraph> {
    let sdl = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Arc::new(gqlnav_schema::load_sdl_str(&sdl, id).unwrap())
}

/// The coordinates of a ranked page's results, in order.
#[allow(dead_code)]
pub fn result_coordinates(v: &serde_json::Value) -> Vec<String> {
    v["results"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["coordinate"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The structured content of a first search page for `q`.
#[allow(dead_code)]
pub fn page_of(tools: &Toolbox, q: &str) -> serde_json::Value {
    tools
        .search_schema(&gqlnav_tools::SearchRequest::new(q))
        .structured
        .expect("structured content")
}

/// The `links` lines of a search answer's structured content.
#[allow(dead_code)]
pub fn links_of(v: &serde_json::Value) -> Vec<&str> {
    v["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect()
}

/// The `returns` lines of a search answer's structured content.
#[allow(dead_code)]
pub fn returns_of(v: &serde_json::Value) -> Vec<&str> {
    v["returns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect()
}
