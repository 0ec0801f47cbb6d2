//! The `count` channel: a counting question ("how many open issues", "the number of pull
//! requests") counts a list it names, so the count field of the connection that list
//! returns (`totalCount`) follows the list, wherever the list ranks. For a reader only.

mod common;

use common::{assert_lifted, coords, github, on_and_off};
use gqlnav_search::{Purpose, Query};

/// GitHub: "how many open issues" counts `Repository.issues`, so `IssueConnection.totalCount`
/// comes up with the list; without the channel it stays past the top 50.
#[test]
fn a_counted_list_brings_its_count_field() {
    let ctx = github();
    let (on, off) = on_and_off(&ctx, "count");
    assert_lifted(
        &on,
        &off,
        &ctx,
        "How many open issues does the rust-lang/rust repository have?",
        "IssueConnection.totalCount",
    );
    // "number of" counts too, and a two-word list name is said word for word.
    assert_lifted(
        &on,
        &off,
        &ctx,
        "What is the number of pull requests merged in the acme/web repository?",
        "PullRequestConnection.totalCount",
    );
}

/// Only the phrase after "how many" is counted: "the github organization" names the
/// `organizations` lists too, but the question counts repositories, so the ranking is the
/// ranking without the channel.
#[test]
fn a_list_named_outside_the_counted_phrase_is_not_counted() {
    let ctx = github();
    let (on, off) = on_and_off(&ctx, "count");
    let q = Query::new("How many repositories does the github organization own?");
    assert_eq!(coords(&on, &ctx, &q), coords(&off, &ctx, &q));
    // A question that counts nothing is not moved either.
    let q = Query::new("List the open issues of the rust-lang/rust repository");
    assert_eq!(coords(&on, &ctx, &q), coords(&off, &ctx, &q));
}

/// A slicer's ranking does not read the channel.
#[test]
fn a_slicers_ranking_is_unchanged() {
    let ctx = github();
    let (on, off) = on_and_off(&ctx, "count");
    let q = Query {
        purpose: Purpose::Slice,
        ..Query::new("How many open issues does the rust-lang/rust repository have?")
    };
    assert_eq!(coords(&on, &ctx, &q), coords(&off, &ctx, &q));
}
