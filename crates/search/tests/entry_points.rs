//! The `root` channel: a question's entry points (root fields named after what it asks
//! for) join a reader's ranking; a slicer's ranking (`Purpose::Slice`) is left as it was.

mod common;

use common::nautical;
use gqlnav_search::{
    Purpose, Query, SearchBackend, SearchContext, StructureBackend, StructureWeights,
};

fn ranked(b: &StructureBackend, ctx: &SearchContext, q: &Query) -> Vec<(String, f32)> {
    b.search(q, 400)
        .unwrap()
        .into_iter()
        .map(|h| (ctx.corpus.entries[h.doc].coordinate.clone(), h.score))
        .collect()
}

/// The question as a slicer asks it.
fn for_slice(text: &str) -> Query {
    Query {
        purpose: Purpose::Slice,
        ..Query::new(text)
    }
}

fn rank(list: &[(String, f32)], coord: &str) -> Option<usize> {
    list.iter().position(|(c, _)| c == coord)
}

/// "How many customers": fields of types named like the question's other words
/// (`Marketplace…`) fill the top; the root list `Query.customers` matches by its own
/// name only. Measured: rank 72 for a reader, 151 without the lift.
#[test]
fn a_root_field_named_by_the_question_joins_a_readers_ranking() {
    let ctx = nautical();
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(&ctx).unwrap();
    let text = "How many customers does the marketplace have in total?";
    let reader = ranked(&b, &ctx, &Query::new(text));
    let slicer = ranked(&b, &ctx, &for_slice(text));
    let (r, s) = (
        rank(&reader, "Query.customers"),
        rank(&slicer, "Query.customers"),
    );
    assert!(r.is_some_and(|r| r < 100), "reader: {r:?}");
    assert!(s.is_none_or(|s| s > 120), "slicer: {s:?}");
    // Not above the ceiling: the best hit stays a field of the question's types.
    assert!(!reader[0].0.starts_with("Query."), "top: {:?}", reader[0]);
    // The lift shows in --explain.
    let hits = b.search(&Query::new(text), 400).unwrap();
    let h = hits
        .iter()
        .find(|h| ctx.corpus.entries[h.doc].coordinate == "Query.customers")
        .expect("in the top 400");
    assert!(h.explain.iter().any(|(k, v)| k == "root" && *v > 0.0));
}

/// A slicer's ranking is exactly the ranking without the channel (and without the other
/// reader-only parts: the deprecated demotion, value completions, the caller's type, the
/// aliases, the balance, the labels, the named types, the counted lists, the bridges).
#[test]
fn a_slicers_ranking_is_the_ranking_without_the_root_channel() {
    let ctx = nautical();
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(&ctx).unwrap();
    let mut w = StructureWeights::default();
    w.apply_overrides("value_hits=0,enum_value=0").unwrap();
    let mut off = StructureBackend::new(w)
        .without(&[
            "root",
            "deprecated",
            "balance",
            "label",
            "named",
            "count",
            "bridge",
        ])
        .expect("stage names");
    off.index(&ctx).unwrap();
    for text in [
        "list all warehouses",
        "orders of the current user with totals",
    ] {
        let slicer = ranked(&b, &ctx, &for_slice(text));
        assert_eq!(slicer, ranked(&off, &ctx, &Query::new(text)), "{text}");
        assert_ne!(
            ranked(&b, &ctx, &Query::new(text)),
            slicer,
            "{text}: no lift at all"
        );
    }
}

/// A root list that a plural word of the question names ("what releases are there" and
/// `Query.releases`) stays under a higher ceiling than other root fields: the `root`
/// stage lifts it, and its part is larger than for the singular ("which release").
#[test]
fn a_plural_word_naming_a_root_list_raises_its_cap() {
    let ctx = common::linear();
    let on = common::structure(&ctx, "");
    let off = common::structure(&ctx, "root=0");
    let q = "What releases are there, and which issues does each release include?";
    common::assert_lifted(&on, &off, &ctx, q, "Query.releases");
}
