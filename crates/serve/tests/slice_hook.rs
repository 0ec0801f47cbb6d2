//! `search_schema` with `budget_tokens` answers with a real slice (crates/slice) when the
//! slice hook is plugged in, as `gqlnav serve` does: valid SDL, within the budget, with the
//! path from the root.

use std::path::Path;
use std::sync::Arc;

use gqlnav_serve::tools::{search_schema, SearchArgs};
use gqlnav_serve::{slice_hook, AppState, ServeConfig};

#[test]
fn budgeted_search_returns_a_slice_within_the_budget() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sdl =
        std::fs::read_to_string(root.join("benchmarks/wg/schemas/linear/schema.graphql")).unwrap();
    let graph = Arc::new(gqlnav_schema::load_sdl_str(&sdl, "linear").unwrap());
    let state = AppState::build(graph.clone(), None, ServeConfig::default()).unwrap();
    let enc = state.meter.encoding();
    let state = state.with_slicer(slice_hook(graph, enc));
    let out = search_schema(
        &state,
        &SearchArgs {
            query: "issues assigned to me with their state".into(),
            limit: 10,
            budget_tokens: Some(1500),
            cursor: None,
        },
    );
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("# Schema slice for"), "{}", out.text);
    let v = out.structured.expect("structured content");
    let tokens = v["slice"]["tokens"].as_u64().unwrap() as usize;
    assert!(tokens > 0 && tokens <= 1500, "{tokens}");
    let sdl = v["slice"]["sdl"].as_str().unwrap();
    assert_eq!(state.meter.count(sdl), tokens);
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
