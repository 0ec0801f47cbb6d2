//! The Swan baseline on real schemas: its score is (3·name + 2·description + parent) /
//! depth exactly, depth is the BFS depth from the roots, only reachable fields are
//! indexed, and the order is deterministic.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, EntryKind, Rendering, TokenMeter};
use gqlnav_search::{Query, SearchBackend, SearchContext, SwanBackend};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn context(schema: &Path) -> SearchContext {
    let g = Arc::new(gqlnav_schema::load_file(schema).expect("bundled schema loads"));
    let c = Arc::new(Corpus::build(&g, CorpusOptions::default()));
    let r = Arc::new(c.render(Rendering::DotPlusGloss, &TokenMeter::default()));
    SearchContext::new(g, c, r)
}

fn explain(s: &gqlnav_search::Scored, k: &str) -> f32 {
    s.explain.iter().find(|(n, _)| n == k).map(|x| x.1).unwrap()
}

#[test]
fn scores_are_the_depth_divided_overlap_and_depth_is_bfs_from_the_roots() {
    let ctx = context(&repo("crates/cli/assets/demo.graphql"));
    let mut s = SwanBackend::new();
    s.index(&ctx).unwrap();
    let hits = s.search(&Query::new("book title"), 50).unwrap();
    assert!(!hits.is_empty());
    for h in &hits {
        let e = &ctx.corpus.entries[h.doc];
        assert_eq!(e.kind, EntryKind::Field, "{}", e.coordinate);
        let (n, d, p, depth) = (
            explain(h, "name"),
            explain(h, "description"),
            explain(h, "parent"),
            explain(h, "depth"),
        );
        assert!((h.score - (3.0 * n + 2.0 * d + p) / depth).abs() < 1e-6);
    }
    let by = |c: &str| {
        hits.iter()
            .find(|h| ctx.corpus.entries[h.doc].coordinate == c)
            .unwrap_or_else(|| panic!("{c} not ranked"))
    };
    // Query.book: root field (depth 1), name "book" and parent 0 → 3 + description.
    assert_eq!(explain(by("Query.book"), "depth"), 1.0);
    // Book.title: Book is reached by Query.book → its fields are at depth 2; name
    // "title", parent "book", description "The title as printed…".
    let t = by("Book.title");
    assert_eq!(explain(t, "depth"), 2.0);
    assert_eq!(explain(t, "name"), 1.0);
    assert_eq!(explain(t, "parent"), 1.0);
    assert_eq!(explain(t, "description"), 1.0);
    assert!((t.score - 3.0).abs() < 1e-6, "{}", t.score);
    // Ranked best first, ties by depth then corpus order; deterministic.
    for w in hits.windows(2) {
        assert!(w[0].score >= w[1].score);
    }
    assert_eq!(hits, s.search(&Query::new("book title"), 50).unwrap());
    assert!(s.search(&Query::new("zzqx"), 10).unwrap().is_empty());
}

#[test]
fn on_github_every_reachable_field_is_indexed_and_a_deep_match_is_discounted() {
    let ctx = context(&repo("benchmarks/wg/schemas/github/schema.graphql"));
    let mut s = SwanBackend::new();
    s.index(&ctx).unwrap();
    let fields = ctx
        .corpus
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Field)
        .count();
    // GitHub's schema is connected: nearly every field is reachable from a root.
    assert!(
        s.indexed() * 100 >= fields * 95,
        "{} of {fields}",
        s.indexed()
    );
    let hits = s
        .search(&Query::new("stargazer count of a repository"), 10)
        .unwrap();
    let top = &ctx.corpus.entries[hits[0].doc].coordinate;
    assert!(
        hits.iter().all(|h| explain(h, "depth") >= 1.0),
        "depths start at 1"
    );
    assert!(!top.is_empty());
}
