//! One generation per schema version: a changed schema file builds the next generation
//! (corpus, index and slicer) and swaps all of it; a broken file keeps the last good one.

use std::sync::Arc;
use std::time::Duration;

use gqlnav_tools::{SearchRequest, Toolbox, ToolsConfig};

fn wait_for_generation(tools: &Toolbox, want: u64) -> u64 {
    let mut generation = tools.generation().number;
    for _ in 0..80 {
        if generation >= want {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        generation = tools.generation().number;
    }
    generation
}

#[test]
fn schema_file_change_rebuilds_search_and_slices_and_a_broken_file_keeps_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.graphql");
    std::fs::write(
        &path,
        "type Query { movie: Movie }\ntype Movie { title: String }\n",
    )
    .unwrap();
    let graph = Arc::new(gqlnav_schema::load_file(&path).unwrap());
    let tools = Arc::new(Toolbox::build(graph, None, ToolsConfig::default()).unwrap());
    assert_eq!(tools.generation().number, 1);
    tools.watch_schema_file(path.clone(), Duration::from_millis(100));
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(
        &path,
        "type Query { movie: Movie }\ntype Movie { title: String releaseYear: Int }\n",
    )
    .unwrap();
    assert_eq!(
        wait_for_generation(&tools, 2),
        2,
        "index not rebuilt after the schema changed"
    );
    let mut req = SearchRequest::new("release year");
    req.limit = 3;
    let out = tools.search_schema(&req);
    assert!(out.text.contains("Movie.releaseYear"), "{}", out.text);
    assert!(out.tokens > 0 && out.tokens == tools.meter.count(&out.text));
    // The slicer is part of the generation: a budgeted answer slices the new schema.
    req.budget_tokens = Some(400);
    let out = tools.search_schema(&req);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("releaseYear"), "{}", out.text);

    // A file that no longer loads is logged and the last good generation kept.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(&path, "this is not { graphql").unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(tools.generation().number, 2);
    let out = tools.search_schema(&SearchRequest::new("release year"));
    assert!(out.text.contains("Movie.releaseYear"), "{}", out.text);

    // Overwritten with 2 MB of NULs: refused from the first bytes (no parse), kept.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(&path, vec![0u8; 2 * 1024 * 1024]).unwrap();
    let e = gqlnav_schema::load_file(&path).unwrap_err();
    assert!(e.to_string().contains("binary data"), "{e}");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(tools.generation().number, 2);
    let out = tools.search_schema(&SearchRequest::new("release year"));
    assert!(out.text.contains("Movie.releaseYear"), "{}", out.text);
}
