//! The structure ranker's graph channels on a real schema (the bundled WG GitHub SDL):
//! a type reached only through a lookup by key also lifts its cheapest collection path.

mod common;

use common::{github, rank_of};
use gqlnav_search::{Query, SearchBackend, StructureBackend, StructureWeights};

#[test]
fn a_question_about_many_reaches_the_collection_not_only_the_lookup_by_key() {
    let ctx = github();
    let mut on = StructureBackend::new(StructureWeights::default());
    on.index(&ctx).unwrap();
    let q = "draft pull requests not ready";
    // The cheapest path to PullRequest is the lookup Repository.pullRequest(number:); the
    // list Repository.pullRequests is what a question about many of them needs, and the
    // `path` stage lends to it.
    let hits = on.search(&Query::new(q), 10).unwrap();
    let coll = hits
        .iter()
        .find(|h| ctx.corpus.entries[h.doc].coordinate == "Repository.pullRequests");
    let part = coll.and_then(|h| h.explain.iter().find(|(s, _)| s == "path"));
    assert!(part.is_some_and(|(_, v)| *v > 0.0), "{:?}", coll);
    // The lookup keeps its own share.
    assert!(rank_of(&on, &ctx, q, "Repository.pullRequest").is_some_and(|r| r < 50));
}

/// `sibling_field`: one field name on two object types implementing an interface that
/// declares it; schema facts only.
#[test]
fn the_same_field_on_an_interface_family() {
    let ctx = github();
    let doc = |coord: &str| {
        ctx.corpus
            .entries
            .iter()
            .position(|e| e.coordinate == coord)
            .unwrap_or_else(|| panic!("{coord}"))
    };
    let same = |a: &str, b: &str| ctx.sibling_field(doc(a), doc(b));
    // Siblings: both implement Actor, which declares avatarUrl.
    assert!(same("Organization.avatarUrl", "User.avatarUrl"));
    assert!(same("Bot.avatarUrl", "User.avatarUrl"));
    // The interface's own field is not a sibling.
    assert!(!same("User.avatarUrl", "Actor.avatarUrl"));
    assert!(!same("Actor.avatarUrl", "Bot.avatarUrl"));
    // Enterprise has an avatarUrl but is not an Actor.
    assert!(!same("Organization.avatarUrl", "Enterprise.avatarUrl"));
    // Another field, or the same entry.
    assert!(!same("User.avatarUrl", "User.login"));
    assert!(!same("User.avatarUrl", "User.avatarUrl"));
    // Out of range is not a panic.
    assert!(!ctx.sibling_field(usize::MAX, 0));
}

/// A list of a type read from one item of that type (Nautical's
/// `Product.recommendedProducts`, `Category.children`) is a relation among its items, not
/// the type's collection: the collection path offered beside the lookup
/// `Query.product(id:, slug:)` is the root list `Query.products`. On the held-out
/// Nautical schema bundled in benchmarks/heldout (BSD-3-Clause).
#[test]
fn a_relation_among_items_is_not_the_collection() {
    let ctx = common::nautical();
    let graph = &ctx.graph;
    let cheapest = graph.paths_to_type("Product", None, gqlnav_schema::PathOptions::default());
    assert!(
        cheapest
            .iter()
            .any(|p| p.first().is_some_and(|c| c == "Query.product")),
        "the cheapest ways to Product include the lookup: {cheapest:?}"
    );
    let list = gqlnav_search::lookup_collection_path(graph, "Product", &cheapest)
        .expect("Product has a collection path");
    assert_eq!(
        list.first().map(String::as_str),
        Some("Query.products"),
        "{list:?}"
    );
    assert!(!list.iter().any(|c| c.starts_with("Product.")), "{list:?}");
    let ways = vec![vec![
        "Query.product".to_string(),
        "Product.recommendedProducts".to_string(),
    ]];
    let selectable = gqlnav_search::selectable_collection_path(graph, "Product", &ways)
        .expect("a relation does not stand for the selectable list");
    assert_eq!(
        selectable.first().map(String::as_str),
        Some("Query.products")
    );
    // The ranker reaches it for a question about many products.
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(&ctx).unwrap();
    let q = "Which ten products have the highest starting price, meaning the price of their \
             cheapest variant?";
    let r = rank_of(&b, &ctx, q, "Query.products");
    assert!(r.is_some_and(|r| r < 30), "Query.products: {r:?}");
}
