//! The `enum` channel on a real schema: a question word that names an enum value and no
//! type lifts the field returning that enum, for a reader; slices rank without it.

mod common;

use common::{context, rank_of};
use gqlnav_search::{Purpose, Query, SearchBackend, StructureBackend, StructureWeights};

/// "canceled" names a value of Linear's `ProjectStatusType` (`canceled`) and no type; the
/// field an agent reads it from, `ProjectStatus.type`, shares no word with the question.
/// Measured: rank 8 (0-based 7) with the channel, 23 without.
#[test]
fn a_word_naming_an_enum_value_lifts_the_field_returning_it() {
    let ctx = context("benchmarks/wg/schemas/linear/schema.graphql");
    let mut on = StructureBackend::new(StructureWeights::default());
    on.index(&ctx).unwrap();
    let mut off = StructureBackend::new(StructureWeights::default()).without(&["enum"]);
    off.index(&ctx).unwrap();
    let q = "archived projects that were canceled";
    let with = rank_of(&on, &ctx, q, "ProjectStatus.type");
    let without = rank_of(&off, &ctx, q, "ProjectStatus.type");
    assert!(with.is_some_and(|r| r < 10), "with the channel: {with:?}");
    assert!(without.is_none_or(|r| r >= 15), "without: {without:?}");

    // The explanation names the channel.
    let hits = on.search(&Query::new(q), 10).unwrap();
    let hit = hits
        .iter()
        .find(|h| ctx.corpus.entries[h.doc].coordinate == "ProjectStatus.type")
        .expect("in the top 10");
    assert!(hit.explain.iter().any(|(k, v)| k == "enum" && *v > 0.5));

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
