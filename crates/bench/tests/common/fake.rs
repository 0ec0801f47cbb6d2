//! A backend-free ranking: a fixed list of corpus positions per question text.

use std::collections::HashMap;
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, Encoding, RenderedCorpus, Rendering};
use gqlnav_search::{Query, Scored, SearchBackend, SearchContext, SearchError};

/// Returns the fixed ranking of the question text, **ignoring `k`** (so the bench's own
/// truncation to the depth is exercised).
pub struct Fixed {
    pub name: String,
    pub rankings: HashMap<String, Vec<usize>>,
}

impl SearchBackend for Fixed {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn index(&mut self, _ctx: &SearchContext) -> Result<(), SearchError> {
        Ok(())
    }
    fn search(&self, q: &Query, _k: usize) -> Result<Vec<Scored>, SearchError> {
        let r = self
            .rankings
            .get(&q.text)
            .ok_or_else(|| SearchError::Other(format!("no ranking for `{}`", q.text)))?;
        Ok(r.iter()
            .enumerate()
            .map(|(i, &doc)| Scored::new(doc, 100.0 - i as f32))
            .collect())
    }
}

/// Corpus (fields only, entry order): 0 A.x, 1 A.y, 2 A.z, 3 B.u, 4 B.v, 5 Query.a,
/// 6 Query.b; hand-set tokens 10, 20, 30, 40, 50, 60, 70.
pub fn tiny_context() -> SearchContext {
    let sdl =
        "type Query { a: A b: B }\ntype A { x: Int y: Int z: Int }\ntype B { u: Int v: Int }\n";
    let g = gqlnav_schema::load_sdl_str(sdl, "tiny.graphql").unwrap();
    let corpus = Corpus::build(&g, CorpusOptions::default());
    let coords: Vec<&str> = corpus
        .entries
        .iter()
        .map(|e| e.coordinate.as_str())
        .collect();
    assert_eq!(
        coords,
        ["A.x", "A.y", "A.z", "B.u", "B.v", "Query.a", "Query.b"]
    );
    let rendered = RenderedCorpus {
        rendering: Rendering::Raw,
        encoding: Encoding::O200kBase,
        texts: coords.iter().map(|c| c.to_string()).collect(),
        tokens: vec![10, 20, 30, 40, 50, 60, 70],
    };
    SearchContext::new(Arc::new(g), Arc::new(corpus), Arc::new(rendered))
}
