//! How the identifier analyzer reads a question, on a real schema (the bundled WG GitHub
//! SDL) with the structure ranker.

mod common;

use common::{github, rank_of};
use gqlnav_search::{SearchBackend, StructureBackend, StructureWeights};

/// A hyphenated word also matches its joined form: a GraphQL name cannot hold a hyphen,
/// so `e-mail` is `email` in the schema (`analyzer::joined_compounds`).
#[test]
fn a_hyphenated_word_finds_the_joined_name() {
    let ctx = github();
    // Without the `label` channel: `User.email` is a label of the user type the question
    // names, and would rise with any word for it.
    let mut w = StructureWeights::default();
    w.apply_overrides("label=0").unwrap();
    let mut b = StructureBackend::new(w);
    b.index(&ctx).unwrap();
    let hyphen = rank_of(
        &b,
        &ctx,
        "What e-mail address does the viewer show publicly?",
        "User.email",
    );
    assert!(hyphen.is_some_and(|r| r < 3), "e-mail: {hyphen:?}");
    // The parts alone (`e`, `mail`) do not reach the top: the joined form is what matches.
    // (The viewer names the user type, `Query.viewer` returning `User` in the `alias`
    // channel, so the user's "publicly visible" email still ranks 25th; past 100 without it.)
    let parts = rank_of(
        &b,
        &ctx,
        "What e mail address does the viewer show publicly?",
        "User.email",
    );
    assert!(parts.is_none_or(|r| r >= 20), "e mail: {parts:?}");
}

/// `list` is a request, as `show` and `give` are: "List the repositories …" ranks exactly
/// as the same words without it (it would otherwise match every type with `List` in its
/// name).
#[test]
fn an_imperative_list_is_a_request_not_a_word_of_the_schema() {
    let ctx = github();
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(&ctx).unwrap();
    let ranked = |q: &str| -> Vec<usize> {
        b.search(&gqlnav_search::Query::new(q), 50)
            .unwrap()
            .iter()
            .map(|h| h.doc)
            .collect()
    };
    assert_eq!(
        ranked("List the repositories the viewer has pinned"),
        ranked("the repositories the viewer has pinned")
    );
    assert_ne!(
        ranked("the lists of the repositories the viewer has pinned"),
        ranked("the repositories the viewer has pinned"),
        "the noun `lists` is still a word"
    );
}
