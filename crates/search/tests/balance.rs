//! The `balance` channel (term balance): among a type's fields that match no question word
//! of their own, only the first `balance_keep` keep the owner lift's second half; one word
//! naming a big type no longer fills the list with its fields. For a reader only.

mod common;

use common::{assert_lifted, assert_slicer_unchanged, coords, github, nautical, structure};
use gqlnav_search::{Query, StructureBackend};

/// On the held-out Nautical schema bundled in benchmarks/heldout (BSD-3-Clause):
/// "marketplace" names `MarketplaceConfiguration`, a type of some 60 settings. Without the
/// balance 28 of the top 50 are its fields and the root list `Query.customers` ranks 74th;
/// with it 15 and 47th.
#[test]
fn one_word_naming_a_big_type_does_not_fill_the_list() {
    let ctx = nautical();
    // `list_cap` 0: "customers" also names the root list, which that cap would lift
    // both ways.
    let on = structure(&ctx, "");
    let off = structure(&ctx, "")
        .without(&["balance"])
        .expect("stage names");
    let q = Query::new("How many customers does the marketplace have in total?");
    let config = |b: &StructureBackend| {
        coords(b, &ctx, &q)[..50]
            .iter()
            .filter(|c| c.starts_with("MarketplaceConfiguration."))
            .count()
    };
    let (with, without) = (config(&on), config(&off));
    assert!(
        with <= 20 && without >= 25,
        "with {with}, without {without}"
    );
    assert_lifted(&on, &off, &ctx, &q.text, "Query.customers");
}

/// Measured on bundled GitHub: "environments protection rules" — `Environment.name`
/// matches "environments" only through its owner, and is the first such field of its
/// type, so it keeps its lift while other types' wordless fields give theirs up: 34th with
/// the balance, 54th without (measured with the `label` channel off: `Environment.name` is
/// a label, which lifts it both ways). A share of 1 is no balance at all: the same ranking
/// as switching the channel off by name.
#[test]
fn a_types_first_wordless_fields_keep_their_lift() {
    let ctx = github();
    let on = structure(&ctx, "label=0");
    let off = structure(&ctx, "label=0,balance_share=1");
    let q = "environments protection rules";
    assert_lifted(&on, &off, &ctx, q, "Environment.name");
    let named_off = structure(&ctx, "label=0")
        .without(&["balance"])
        .expect("stage names");
    assert_eq!(
        coords(&named_off, &ctx, &Query::new(q)),
        coords(&off, &ctx, &Query::new(q))
    );
}

/// A slicer's ranking is the ranking without the balance.
#[test]
fn a_slicers_ranking_is_unchanged() {
    assert_slicer_unchanged(
        &nautical(),
        "balance_share=1",
        "How many customers does the marketplace have in total?",
    );
}
