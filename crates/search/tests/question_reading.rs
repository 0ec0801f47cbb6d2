//! How the identifier analyzer reads a question, on a real schema (the bundled WG GitHub
//! SDL) with the structure ranker.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_search::{Query, SearchBackend, SearchContext, StructureBackend, StructureWeights};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn rank_of(b: &StructureBackend, ctx: &SearchContext, q: &str, coord: &str) -> Option<usize> {
    b.search(&Query::new(q), 100)
        .unwrap()
        .iter()
        .position(|h| ctx.corpus.entries[h.doc].coordinate == coord)
}

/// A hyphenated word also matches its joined form: a GraphQL name cannot hold a hyphen,
/// so `e-mail` is `email` in the schema (`analyzer::joined_compounds`).
#[test]
fn a_hyphenated_word_finds_the_joined_name() {
    let g = Arc::new(
        gqlnav_schema::load_file(&repo("benchmarks/wg/schemas/github/schema.graphql"))
            .expect("bundled github schema"),
    );
    let c = Arc::new(Corpus::build(&g, CorpusOptions::default()));
    let r = Arc::new(c.render(Rendering::DotPlusGloss, &TokenMeter::default()));
    let ctx = SearchContext::new(g, c, r);
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(&ctx).unwrap();
    let hyphen = rank_of(
        &b,
        &ctx,
        "What e-mail address does the viewer show publicly?",
        "User.email",
    );
    assert!(hyphen.is_some_and(|r| r < 3), "e-mail: {hyphen:?}");
    // The parts alone (`e`, `mail`) do not reach it: the joined form is what matches.
    let parts = rank_of(
        &b,
        &ctx,
        "What e mail address does the viewer show publicly?",
        "User.email",
    );
    assert!(parts.is_none_or(|r| r >= 40), "e mail: {parts:?}");
}
