//! The `named` stage's pronoun reading: a first-person question reaches its types through the current
//! caller (`Query.viewer` → `User.pullRequests`), for a reader; a slicer's ranking and a
//! question not in the first person are left as they were.

mod common;

use common::{coords, github, rank_of, structure};
use gqlnav_search::{
    Purpose, Query, SearchBackend, SearchContext, StructureBackend, StructureWeights,
};

fn indexed(ctx: &SearchContext, without: &[&str]) -> StructureBackend {
    let mut b = StructureBackend::new(StructureWeights::default())
        .without(without)
        .expect("stage names");
    b.index(ctx).unwrap();
    b
}

/// Measured on bundled GitHub: with the channel `User.pullRequests` ranks 12th and
/// `Query.viewer` 19th; without it neither is in the top 50.
#[test]
fn a_first_person_question_reaches_its_type_through_the_caller() {
    let ctx = github();
    let on = indexed(&ctx, &[]);
    let off = structure(&ctx, "caller=0");
    let q = "which of my pull requests are waiting for review";
    for coord in ["Query.viewer", "User.pullRequests"] {
        let r = rank_of(&on, &ctx, q, coord);
        assert!(r.is_some_and(|r| r < 25), "{coord} with the channel: {r:?}");
        let r = rank_of(&off, &ctx, q, coord);
        assert!(r.is_none_or(|r| r >= 50), "{coord} without: {r:?}");
    }
    // The caller's fields returning other types are not lifted.
    let top = coords(&on, &ctx, &Query::new(q));
    assert!(
        !top[..25].iter().any(|c| c == "User.repositories"),
        "{top:?}"
    );
}

/// The same words without a first-person pronoun, and a slicer's ranking of the
/// first-person question, are exactly the rankings without the channel (the slicer
/// values the caller itself).
#[test]
fn other_questions_and_slicers_rankings_are_unchanged() {
    let ctx = github();
    let on = indexed(&ctx, &[]);
    let off = structure(&ctx, "caller=0");
    let plain = Query::new("which pull requests are waiting for review");
    assert_eq!(coords(&on, &ctx, &plain), coords(&off, &ctx, &plain));
    let mine = "which of my pull requests are waiting for review";
    let slicer = Query {
        purpose: Purpose::Slice,
        ..Query::new(mine)
    };
    assert_eq!(coords(&on, &ctx, &slicer), coords(&off, &ctx, &slicer));
    assert_ne!(
        coords(&on, &ctx, &Query::new(mine)),
        coords(&off, &ctx, &Query::new(mine))
    );
}

/// The schema's own words for its caller count as the first person: GitHub's
/// `Query.viewer` is "The currently authenticated user.", so "the authenticated user"
/// names the caller. Words that only restate a root field's name do not ("the latest
/// release" against Linear's `latestReleaseByAccessKey`, "Returns the latest release
/// …"), nor do the same words apart or a word alone.
#[test]
fn the_schemas_words_for_its_caller_address_the_caller() {
    let ctx = github();
    let g = &ctx.graph;
    for q in [
        "What is the disk usage for each repository owned by the authenticated user?",
        "teams the authenticated user is a member of",
        "my repositories",
    ] {
        assert!(gqlnav_search::addresses_caller(g, q), "{q}");
    }
    for q in [
        "repositories of an authenticated organization's user",
        "user accounts that were authenticated",
        "Show me the users of an organization",
    ] {
        assert!(!gqlnav_search::addresses_caller(g, q), "{q}");
    }
    let linear = common::context("benchmarks/wg/schemas/linear/schema.graphql");
    assert!(gqlnav_search::addresses_caller(
        &linear.graph,
        "settings of the authenticated user"
    ));
    assert!(!gqlnav_search::addresses_caller(
        &linear.graph,
        "what is the latest release of the pipeline"
    ));

    // A reader's ranking reaches the caller for it (with the type-name reading off:
    // "teams", "user" and "organizations" name three types, whose fields then fill the
    // top 50).
    let on = structure(&ctx, "named_type=0");
    let q = "What teams is the authenticated user a member of across their organizations?";
    let r = rank_of(&on, &ctx, q, "Query.viewer");
    assert!(r.is_some_and(|r| r < 50), "Query.viewer: {r:?}");
    let off = structure(&ctx, "named_type=0,caller=0");
    let r = rank_of(&off, &ctx, q, "Query.viewer");
    assert!(
        r.is_none_or(|r| r >= 50),
        "Query.viewer without the channel: {r:?}"
    );
}

/// In a question addressed to the caller, the caller's type counts as a type the question
/// names (weight `caller`): "what is my email address" is the caller's `User.email`.
/// Measured on bundled GitHub: first with it, 17th without; the same words not in the
/// first person rank every field as before.
#[test]
fn the_callers_type_is_a_type_the_question_names() {
    let ctx = github();
    let on = indexed(&ctx, &[]);
    let off = structure(&ctx, "caller=0");
    let mine = "what is my email address";
    assert_eq!(rank_of(&on, &ctx, mine, "User.email"), Some(0));
    let before = rank_of(&off, &ctx, mine, "User.email");
    assert!(before.is_none_or(|r| r >= 10), "without: {before:?}");
    let theirs = Query::new("what is the email address of a sponsors listing");
    assert_eq!(coords(&on, &ctx, &theirs), coords(&off, &ctx, &theirs));
    // A slicer's question is left as it was.
    let slice = Query {
        purpose: Purpose::Slice,
        ..Query::new(mine)
    };
    assert_eq!(coords(&on, &ctx, &slice), coords(&off, &ctx, &slice));
}
