//! `search_schema` with `budget_tokens` answers with a real slice (crates/slice) over the
//! generation's own ranker: valid SDL, within the budget, with the path from the root.

use std::path::Path;
use std::sync::Arc;

use gqlnav_tools::{SearchRequest, Toolbox, ToolsConfig};

#[test]
fn budgeted_search_returns_a_slice_within_the_budget() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sdl =
        std::fs::read_to_string(root.join("benchmarks/wg/schemas/linear/schema.graphql")).unwrap();
    let graph = Arc::new(gqlnav_schema::load_sdl_str(&sdl, "linear").unwrap());
    let tools = Toolbox::build(graph, None, ToolsConfig::default()).unwrap();
    let mut req = SearchRequest::new("issues assigned to me with their state");
    req.budget_tokens = Some(1500);
    let out = tools.search_schema(&req);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("# Schema slice for"), "{}", out.text);
    let v = out.structured.expect("structured content");
    let tokens = v["slice"]["tokens"].as_u64().unwrap() as usize;
    assert!(tokens > 0 && tokens <= 1500, "{tokens}");
    let sdl = v["slice"]["sdl"].as_str().unwrap();
    assert_eq!(tools.meter.count(sdl), tokens);
    gqlnav_schema::apollo_compiler::ast::Document::parse(sdl, "slice.graphql").unwrap();
    let coords: Vec<&str> = v["slice"]["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    assert!(coords.iter().any(|c| c.starts_with("Query.")), "{coords:?}");
    assert!(coords.iter().any(|c| c.starts_with("Issue.")), "{coords:?}");
}
