//! The `named` channel: a question that says a type's name word for word names that type,
//! however common the name's words are in the schema. A type named next to a value is a
//! *locator* (where the question starts): it lifts its entry points and its links to the
//! other types the question is about, not its own fields. For a reader only.

mod common;

use common::{assert_lifted, assert_off_by_name, assert_slicer_unchanged, rank_of, sdl, structure};
use gqlnav_search::{Query, SearchBackend, SearchContext, StructureBackend};

/// A commerce-like schema where `Order` is the central type: its word is in many type
/// names, so BM25 rates the type itself low.
fn orders() -> SearchContext {
    sdl(r#"
        type Query {
          order(id: ID!): Order
          orders: [Order!]!
          orderEvents: [OrderEvent!]!
        }
        "A placed order."
        type Order {
          number: String!
          note: String
          placedAt: String
          lines: [OrderLine!]!
          events: [OrderEvent!]!
        }
        "One line of an order."
        type OrderLine { productName: String! quantity: Int! order: Order! }
        "Something that happened to an order."
        type OrderEvent { kind: String! order: Order! }
        "A discount on an order."
        type OrderDiscount { amount: Int! order: Order! }
        "An order's note history."
        type OrderNoteHistory { text: String! order: Order! }
    "#)
}

/// The explained value of `channel` for `coord` in the top 20 for `q`.
fn explained(b: &StructureBackend, ctx: &SearchContext, q: &str, coord: &str, ch: &str) -> f32 {
    let hits = b.search(&Query::new(q), 20).unwrap();
    let h = hits
        .iter()
        .find(|h| ctx.corpus.entries[h.doc].coordinate == coord)
        .unwrap_or_else(|| panic!("{coord} not in the top 20 for {q:?}"));
    (h.explain.iter())
        .find(|(c, _)| c == ch)
        .map_or(0.0, |(_, v)| *v)
}

/// A subject: "which order was placed last" names `Order`; its relevance is at least
/// `named_type` (0.6), though its word is in every other type's name: the owner lift of
/// its fields (`type`: `owner_type` 1.5 × relevance × 0.5 × 0.5 at least) grows.
#[test]
fn a_type_the_question_names_is_relevant() {
    let ctx = orders();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "named_type=0");
    let q = "Which order was placed last, and what is its note?";
    let with = explained(&on, &ctx, q, "Order.note", "type");
    let without = explained(&off, &ctx, q, "Order.note", "type");
    assert!(with >= 1.5 * 0.6 * 0.25 - 1e-6, "with: {with}");
    assert!(without < with, "without: {without}, with: {with}");
}

/// A locator: `order "T3JkZXI6MQ=="` is where the question starts. The type's own
/// relevance is left as BM25 rates it; its links to the other types the question names
/// (`Order.lines` to `OrderLine`) are lifted, and its entry point too.
#[test]
fn a_type_named_next_to_a_value_lifts_its_links_only() {
    let ctx = orders();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "named_type=0");
    let q = r#"For order "T3JkZXI6MQ==", list each line's product name and quantity."#;
    let lift = |be: &StructureBackend, c: &str| explained(be, &ctx, q, c, "type");
    // The link is lifted ...
    assert!(lift(&on, "Order.lines") > lift(&off, "Order.lines"));
    // ... and no other field of `Order` gets the subject's floor.
    assert_eq!(lift(&on, "Order.note"), lift(&off, "Order.note"));
    // A quoted value's words are not words: "order" inside the quotes names nothing, and
    // the ranking is the one without the stage.
    let q = r#"Which events mention "order line quantity"?"#;
    let ranked = |be: &StructureBackend| -> Vec<(usize, f32)> {
        let hits = be.search(&Query::new(q), 20).unwrap();
        hits.iter().map(|h| (h.doc, h.score)).collect()
    };
    assert_eq!(ranked(&on), ranked(&off));
}

/// On the bundled WG GitHub schema (measured): "In the octocat/example repository, for
/// each closed issue, …" names `Issue` (a subject) and `Repository` next to a value (a
/// locator). `Issue.number` comes from past 100 to 19th, and the link
/// `Repository.issues` from 80th to 16th; the repository's other fields are not lifted.
#[test]
fn github_issues_of_a_located_repository() {
    let ctx = common::github();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "named_type=0");
    let q = "In the octocat/example repository, for each closed issue, what is its number, \
             title, and how many linked closing pull request references does it have?";
    assert_lifted(&on, &off, &ctx, q, "Issue.number");
    assert_lifted(&on, &off, &ctx, q, "Repository.issues");
    assert!(rank_of(&on, &ctx, q, "Repository.description").is_none());
    // Switching the channel off by name is the weight 0.
    assert_off_by_name(&ctx, "", "named", &off, q);
}

/// A slicer's ranking is the ranking without the channel.
#[test]
fn a_slicers_ranking_is_unchanged() {
    assert_slicer_unchanged(
        &orders(),
        "named_type=0",
        "Which order was placed last, and what is its note?",
    );
}
