//! The index is rebuilt when the schema file changes (mtime poll).

use std::sync::Arc;
use std::time::Duration;

use gqlnav_serve::tools::{search_schema, SearchArgs};
use gqlnav_serve::{AppState, ServeConfig};

#[test]
fn schema_file_change_rebuilds_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.graphql");
    std::fs::write(
        &path,
        "type Query { movie: Movie }\ntype Movie { title: String }\n",
    )
    .unwrap();
    let graph = Arc::new(gqlnav_schema::load_file(&path).unwrap());
    let state = Arc::new(AppState::build(graph, None, ServeConfig::default()).unwrap());
    assert_eq!(state.snapshot().generation, 1);
    state.watch_schema_file(path.clone(), Duration::from_millis(100));
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(
        &path,
        "type Query { movie: Movie }\ntype Movie { title: String releaseYear: Int }\n",
    )
    .unwrap();
    let mut generation = 1;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        generation = state.snapshot().generation;
        if generation > 1 {
            break;
        }
    }
    assert_eq!(generation, 2, "index not rebuilt after the schema changed");
    let out = search_schema(
        &state,
        &SearchArgs {
            query: "release year".into(),
            limit: 3,
            budget_tokens: None,
            cursor: None,
        },
    );
    assert!(out.text.contains("Movie.releaseYear"), "{}", out.text);
}
