//! The `value` channel on real schemas: a top hit returning a value object (a few leaf
//! fields, such as a rate-limit record or an amount and its currency) lifts the fields an
//! operation selecting it must name.

mod common;

use std::collections::HashMap;

use common::{github, nautical, rank_of, structure};
use gqlnav_search::{Query, SearchBackend, StructureBackend, StructureWeights};

/// "query cost" finds `RateLimit.cost`; the other fields of the rate-limit record come
/// with it through the `selection` stage.
#[test]
fn a_hit_returning_a_value_object_brings_its_fields() {
    let ctx = github();
    let mut on = StructureBackend::new(StructureWeights::default());
    on.index(&ctx).unwrap();
    let mut off = StructureBackend::new(StructureWeights::default())
        .without(&["selection"])
        .expect("stage names");
    off.index(&ctx).unwrap();
    let q = "last graphql query cost";
    assert!(rank_of(&on, &ctx, q, "RateLimit.cost").is_some_and(|r| r < 40));
    for f in [
        "RateLimit.nodeCount",
        "RateLimit.remaining",
        "RateLimit.resetAt",
    ] {
        common::assert_lifted(&on, &off, &ctx, q, f);
    }
}

/// Two levels: an order total is a taxed amount whose `gross` is an amount with a
/// currency. The taxed amount's fields get half the total's score; the amount's fields
/// half of `gross`'s own score (the question's words favour it over `net`); a
/// deprecated field gets nothing. On the held-out Nautical schema bundled in
/// benchmarks/heldout (BSD-3-Clause).
#[test]
fn nested_value_objects_lend_their_fields_and_skip_deprecated_ones() {
    let ctx = nautical();
    let scores = |b: &StructureBackend| -> HashMap<String, f32> {
        b.search(
            &Query::new("order total gross amount including taxes"),
            ctx.corpus.len(),
        )
        .unwrap()
        .into_iter()
        .map(|h| (ctx.corpus.entries[h.doc].coordinate.clone(), h.score))
        .collect()
    };
    // The field-name reading (`named`: `root_alias`, `field_alias`) is off in both: a root field named "orders total" returns the
    // taxed amount, which would make `gross` the top hit, and the shares measured here
    // are of the total's score.
    let b = structure(&ctx, "root_alias=0,field_alias=0");
    let off = (structure(&ctx, "root_alias=0,field_alias=0"))
        .without(&["selection"])
        .expect("stage names");
    let (on_map, before_map) = (scores(&b), scores(&off));
    let on = |c: &str| on_map.get(c).copied().unwrap_or(0.0);
    let before = |c: &str| before_map.get(c).copied().unwrap_or(0.0);
    let top = on("Order.total");
    assert!(
        on_map.values().all(|&s| s <= top),
        "the total is the top hit"
    );
    for f in ["TaxedMoney.net", "TaxedMoney.tax"] {
        assert!(on(f) >= 0.5 * top - 1e-4, "{f}: {} (top {top})", on(f));
        assert!(before(f) < 0.5 * top - 1e-4, "{f} without: {}", before(f));
    }
    let gross = on("TaxedMoney.gross");
    assert!(
        gross > on("TaxedMoney.net"),
        "gross {gross} has words of its own"
    );
    for f in ["Money.baseAmount", "Money.currency"] {
        assert!(
            on(f) >= 0.5 * gross - 1e-4,
            "{f}: {} (gross {gross})",
            on(f)
        );
        assert!(on(f) > before(f), "{f} lifted");
    }
    assert_eq!(
        on("Money.amount"),
        before("Money.amount"),
        "deprecated: not lifted"
    );
}

/// For a reader, the value objects of the top `value_hits` (5) hits are *completions*:
/// their fields get the hit's full score, kept just under the `seeds`-th score. "last
/// graphql query cost": `Query.rateLimit` is a top-3 hit, so the whole rate-limit
/// record follows the question's own hits (measured: `RateLimit.cost` rank 5, the other
/// fields 21–26; without completions 32 and 34–38, the `value` share far down the list).
#[test]
fn a_top_hits_value_object_follows_it_for_a_reader() {
    let ctx = github();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "value_hits=0");
    let q = "last graphql query cost";
    let top = on
        .search(&Query::new(q), 3)
        .unwrap()
        .into_iter()
        .map(|h| ctx.corpus.entries[h.doc].coordinate.clone())
        .collect::<Vec<_>>();
    assert!(top.iter().any(|c| c == "Query.rateLimit"), "top 3: {top:?}");
    let cost = rank_of(&on, &ctx, q, "RateLimit.cost");
    assert!(cost.is_some_and(|r| r < 10), "cost: {cost:?}");
    for f in [
        "RateLimit.nodeCount",
        "RateLimit.remaining",
        "RateLimit.resetAt",
        "RateLimit.used",
    ] {
        let with = rank_of(&on, &ctx, q, f);
        assert!(
            with.is_some_and(|r| r < 28),
            "{f} with completions: {with:?}"
        );
        let without = rank_of(&off, &ctx, q, f);
        assert!(
            without.is_none_or(|r| r >= 30),
            "{f} without completions: {without:?}"
        );
    }
}

/// In a counting question the count fields of the connections the top hits return are
/// completions too. Measured on bundled GitHub: `PullRequestConnection.totalCount` and
/// `IssueConnection.totalCount` rank 21st and 23rd with completions, 54th and past 100
/// without; the question asked without "how many" does not lift them.
#[test]
fn a_counting_question_completes_the_top_connections_with_their_counts() {
    let ctx = github();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "value_hits=0");
    let q = "What labels are defined in the octocat/example repository and how many issues \
             and pull requests use each?";
    for c in [
        "PullRequestConnection.totalCount",
        "IssueConnection.totalCount",
    ] {
        let with = rank_of(&on, &ctx, q, c);
        assert!(
            with.is_some_and(|r| r < 30),
            "{c} with completions: {with:?}"
        );
        let without = rank_of(&off, &ctx, q, c);
        assert!(without.is_none_or(|r| r >= 45), "{c} without: {without:?}");
    }
    let plain = "What labels are defined in the octocat/example repository and which issues \
                 and pull requests use each?";
    let c = "IssueConnection.totalCount";
    let r = rank_of(&on, &ctx, plain, c);
    assert!(r.is_none_or(|r| r >= 45), "{c} without counting: {r:?}");
}

/// The fields on a top hit's root paths are completions too: an operation selecting the
/// hit names each of them. Measured on bundled GitHub, "reopened pull requests":
/// `Repository.pullRequest` and `Query.repository` rank 12th and 25th with completions,
/// 59th and 68th without (the `path` share alone).
#[test]
fn a_top_hits_root_path_follows_it_for_a_reader() {
    let ctx = github();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "value_hits=0");
    let q = "reopened pull requests";
    for c in ["Repository.pullRequest", "Query.repository"] {
        let with = rank_of(&on, &ctx, q, c);
        assert!(
            with.is_some_and(|r| r < 30),
            "{c} with completions: {with:?}"
        );
        let without = rank_of(&off, &ctx, q, c);
        assert!(without.is_none_or(|r| r >= 50), "{c} without: {without:?}");
    }
}
