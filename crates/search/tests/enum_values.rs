//! The `type` stage's enum reading on a real schema: a question word that names an enum value and no
//! type lifts the field returning that enum, for a reader; slices rank without it.

mod common;

use common::{context, rank_of};
use gqlnav_search::{Purpose, Query, SearchBackend, StructureBackend, StructureWeights};

/// "canceled" names a value of Linear's `ProjectStatusType` (`canceled`) and no type; the
/// field an agent reads it from, `ProjectStatus.type`, shares no word with the question.
#[test]
fn a_word_naming_an_enum_value_lifts_the_field_returning_it() {
    let ctx = context("benchmarks/wg/schemas/linear/schema.graphql");
    let mut on = StructureBackend::new(StructureWeights::default());
    on.index(&ctx).unwrap();
    let off = common::structure(&ctx, "enum_value=0");
    let q = "archived projects that were canceled";
    let with = rank_of(&on, &ctx, q, "ProjectStatus.type");
    let without = rank_of(&off, &ctx, q, "ProjectStatus.type");
    assert!(
        with.is_some_and(|w| without.is_none_or(|o| w < o)),
        "with the stage: {with:?}, without: {without:?}"
    );

    // The lift is the `type` stage's part (its enum reading): larger with it.
    let type_part = |b: &StructureBackend| -> f32 {
        let hits = b.search(&Query::new(q), 50).unwrap();
        let hit = (hits.iter())
            .find(|h| ctx.corpus.entries[h.doc].coordinate == "ProjectStatus.type")
            .expect("in the top 50");
        (hit.explain.iter())
            .find(|(k, _)| k == "type")
            .map_or(0.0, |p| p.1)
    };
    assert!(type_part(&on) > type_part(&off));

    // A slicer's query does not use it: the ranking is the one without the channel.
    let slice_q = Query {
        text: q.to_string(),
        sub_queries: Vec::new(),
        purpose: Purpose::Slice,
    };
    let ranked = |b: &StructureBackend| -> Vec<usize> {
        b.search(&slice_q, 50)
            .unwrap()
            .iter()
            .map(|h| h.doc)
            .collect()
    };
    assert_eq!(ranked(&on), ranked(&off));
}

/// A word that also names a type says which type, not which value: "cycle" is a type of
/// Linear's (`Cycle`) and a part of enum values (`activeCycle`), so a question made of
/// type words alone gets no enum lift at all.
#[test]
fn words_that_name_types_are_not_read_as_values() {
    let ctx = context("benchmarks/wg/schemas/linear/schema.graphql");
    let mut on = StructureBackend::new(StructureWeights::default());
    on.index(&ctx).unwrap();
    let hits = on.search(&Query::new("team cycle issues"), 100).unwrap();
    assert!(!hits.is_empty());
    for h in &hits {
        assert!(
            !h.explain.iter().any(|(k, _)| k == "enum"),
            "{} was lifted by the enum channel",
            ctx.corpus.entries[h.doc].coordinate
        );
    }
}
