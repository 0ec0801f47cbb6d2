//! The `bridge` channel: a top hit that returns a relevant type lends its score to the one
//! field of that type leading furthest into the question (through an interface or union
//! to the type the question is about), so the link between two types shows up with them.
//! For a reader only.

mod common;

use common::{assert_lifted, coords, github, on_and_off, structure};
use gqlnav_search::{Purpose, Query, SearchBackend, SearchContext, StructureBackend};

/// The explained `bridge` lift of `coord` in the top 50 for `q` (0 when it has none);
/// `None` when `coord` is not in the top 50.
fn bridged(b: &StructureBackend, ctx: &SearchContext, q: &str, coord: &str) -> Option<f32> {
    let hits = b.search(&Query::new(q), 50).unwrap();
    let h = hits
        .iter()
        .find(|h| ctx.corpus.entries[h.doc].coordinate == coord)?;
    Some(
        (h.explain.iter())
            .find(|(c, _)| c == "bridge")
            .map_or(0.0, |(_, v)| *v),
    )
}

/// GitHub: the default branch is a `Ref`, and the commit is behind `Ref.target` (a
/// `GitObject`, which `Commit` implements); an issue's events are behind
/// `Issue.timelineItems` (a union). Without the channel neither is in the top 100.
#[test]
fn a_link_through_an_abstract_type_comes_up() {
    let ctx = github();
    let (on, off) = on_and_off(&ctx, "bridge");
    assert_lifted(
        &on,
        &off,
        &ctx,
        "Show the latest commit message on the default branch of the octocat/hello-world repository",
        "Ref.target");
    assert_lifted(
        &on,
        &off,
        &ctx,
        "Who reopened the issues of the acme/web repository, and when?",
        "Issue.timelineItems",
    );
}

/// The bridge is the field leading on into the question (`Ref.target`, to the commit),
/// not a way back to where the hit came from (`Ref.repository`, after
/// `Repository.defaultBranchRef`).
#[test]
fn a_way_back_is_no_bridge() {
    let ctx = github();
    let b = structure(&ctx, "");
    let q = "Show the latest commit message on the default branch of the octocat/hello-world repository";
    let target = bridged(&b, &ctx, q, "Ref.target");
    assert!(target.is_some_and(|l| l > 0.0), "Ref.target: {target:?}");
    let back = bridged(&b, &ctx, q, "Ref.repository");
    assert!(back.is_none_or(|l| l == 0.0), "Ref.repository: {back:?}");
}

/// Weight 0 is the channel switched off, and a slicer's ranking does not read it.
#[test]
fn off_by_weight_is_off_by_name_and_slices_do_not_move() {
    let ctx = github();
    let q = "Show the latest commit message on the default branch of the octocat/hello-world repository";
    common::assert_off_by_name(&ctx, "", "bridge", &structure(&ctx, "bridge=0"), q);
    let (on, off) = on_and_off(&ctx, "bridge");
    let q = Query {
        purpose: Purpose::Slice,
        ..Query::new(q)
    };
    assert_eq!(coords(&on, &ctx, &q), coords(&off, &ctx, &q));
}
