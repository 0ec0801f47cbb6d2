//! The `alias` channel: a field's name is another name for the type it returns, so a
//! question word matching the name is a match on that type too (a root field's name at
//! the `root_alias` share, any other field's at `field_alias`); for a reader only.

mod common;

use common::{assert_lifted, assert_slicer_unchanged, github, structure};

/// Measured on bundled GitHub: "viewer" names no type, but `Query.viewer` returns
/// `User`, so the user's `pinnedItems` (matching "pinned") ranks 5th with the channel
/// and 43rd without it; `Query.viewer` itself 6th and 45th. Measured with the `named`
/// channel off: "repositories" names `Repository`, whose fields then take more of the top
/// (`Query.viewer` 16th with both channels, docs/ranking.md, "Named types").
#[test]
fn a_root_fields_name_names_the_type_it_returns() {
    let ctx = github();
    let on = structure(&ctx, "named_type=0");
    let off = structure(&ctx, "named_type=0,root_alias=0,field_alias=0");
    let q = "which repositories has the viewer pinned";
    for coord in ["User.pinnedItems", "Query.viewer"] {
        assert_lifted(&on, &off, &ctx, q, coord);
    }
}

/// "mutual followers": `User.followers` names a user, so `User.isFollowingViewer` joins
/// the top 50 (36th) at the field share; without it it is not in the top 100.
#[test]
fn any_fields_name_names_its_type_at_a_smaller_share() {
    let ctx = github();
    let on = structure(&ctx, "");
    let off = structure(&ctx, "field_alias=0");
    let q = "mutual followers";
    assert_lifted(&on, &off, &ctx, q, "User.isFollowingViewer");
}

/// A slicer's ranking is the ranking without the channel: slices value what the
/// question's words name, and the slice figures were measured without it.
#[test]
fn a_slicers_ranking_is_unchanged() {
    assert_slicer_unchanged(
        &github(),
        "root_alias=0,field_alias=0",
        "which repositories has the viewer pinned",
    );
}
