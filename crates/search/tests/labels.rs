//! The `label` channel: a type's label fields (a non-null `String` with a one-word name and
//! no arguments) follow the type into a reader's list, under the fields the question asks
//! of it by their own words. For a reader only.

mod common;

use common::{
    assert_lifted, assert_off_by_name, assert_slicer_unchanged, linear, rank_of, sdl, singapore,
    structure,
};
use gqlnav_search::{Query, SearchBackend};

/// On the bundled WG Linear schema: "which teams am I currently a member of" names no
/// field of `Team`, yet an answer lists each team by its `name` and `key`: 4th and 7th
/// with labels, 25th and 62nd without (measured). The same for issues and `title`.
#[test]
fn a_question_about_a_types_items_gets_their_labels() {
    let ctx = linear();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "label=0");
    let q = "Which teams am I currently a member of?";
    assert_lifted(&on, &off, &ctx, q, "Team.name");
    assert_lifted(&on, &off, &ctx, q, "Team.key");
    let q = "What issues are assigned to me?";
    assert_lifted(&on, &off, &ctx, q, "Issue.title");
    // Switching the channel off by name is the weight 0.
    assert_off_by_name(&ctx, "", "label", &off, q);
}

/// On the bundled WG Singapore schema: "which clinics have a phone number listed" asks
/// for `Clinic.telephone` by its description. The label `Clinic.name` rises (6th -> 2nd)
/// but stays under it. Without the cap (probed 2026-12-05, docs/archive/history.md,
/// "Labels") labels passed the asked fields here and in two other Singapore questions,
/// and its MRR fell from 0.893 to 0.625.
#[test]
fn a_label_never_passes_what_the_question_asks_of_its_type() {
    let ctx = singapore();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "label=0");
    let q = "Which clinics have a phone number listed?";
    assert_eq!(rank_of(&on, &ctx, q, "Clinic.telephone"), Some(0));
    assert_eq!(rank_of(&off, &ctx, q, "Clinic.telephone"), Some(0));
    assert_eq!(rank_of(&on, &ctx, q, "Clinic.name"), Some(1));
    assert!(rank_of(&off, &ctx, q, "Clinic.name").is_some_and(|r| r >= 4));
}

/// What a label is, by form alone: non-null `String`, no arguments, one word. A nullable
/// string, a two-word name, a field with arguments, a list and a non-string are not.
#[test]
fn a_label_is_a_one_word_non_null_string_without_arguments() {
    let ctx = sdl(r#"
        type Query { boats: [Boat!]! }
        "A boat in the harbour."
        type Boat {
          name: String!
          licenceType: String!
          nickname: String
          code(format: String): String!
          tags: [String!]!
          length: Int!
          harbour_name: String!
        }
    "#);
    let b = structure(&ctx, "");
    let hits = b.search(&Query::new("which boats are there"), 20).unwrap();
    let lifted: Vec<&str> = hits
        .iter()
        .filter(|h| h.explain.iter().any(|(ch, v)| ch == "label" && *v > 0.0))
        .map(|h| ctx.corpus.entries[h.doc].coordinate.as_str())
        .collect();
    assert_eq!(lifted, ["Boat.name"]);
}

/// A slicer's ranking is the ranking without labels.
#[test]
fn a_slicers_ranking_is_unchanged() {
    assert_slicer_unchanged(&linear(), "label=0", "What issues are assigned to me?");
}

/// A top hit returning an object brings that type's labels as completions: an operation
/// selecting `Organization.membersWithRole` selects something of each user, and "what
/// roles do members have" names nothing of `User`. Measured on the bundled WG GitHub
/// schema: `User.login` past 100 -> 26th with the labels' completion share; linear's "who is involved
/// with issue ENG-902 — creator, assignee, subscribers?" brings `User.name` the same way
/// (past 100 -> 19th).
#[test]
fn a_hit_returning_an_object_brings_its_labels() {
    let ctx = common::github();
    let (on, off) = common::on_and_off(&ctx, "label");
    let q = "What roles do members of the octocat organization have?";
    assert_lifted(&on, &off, &ctx, q, "User.login");
    let ctx = linear();
    let (on, off) = common::on_and_off(&ctx, "label");
    let q = "Who is involved with issue ENG-902 — creator, assignee, subscribers?";
    assert_lifted(&on, &off, &ctx, q, "User.name");
}
