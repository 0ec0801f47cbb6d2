//! The `deprecated` demotion on a real schema: for a reader, a deprecated field's score is
//! scaled down, so an agent is shown the field that replaced it first.

mod common;

use common::{github, rank_of, structure};
use gqlnav_search::{SearchBackend, StructureBackend, StructureWeights};

/// GitHub's `UnassignedEvent.user` is deprecated in favour of `UnassignedEvent.assignee`.
/// Measured: without the demotion the deprecated field ranks 3rd and its replacement
/// 6th; with it the replacement ranks 5th and the deprecated field 13th. Measured with the
/// `named` channel off: "the issue" names `Issue`, whose fields then fill the top 10.
#[test]
fn a_deprecated_field_ranks_after_its_replacement() {
    let ctx = github();
    let user = ctx
        .corpus
        .entries
        .iter()
        .find(|e| e.coordinate == "UnassignedEvent.user")
        .expect("the GitHub schema has UnassignedEvent.user");
    assert!(
        user.deprecated.is_some(),
        "UnassignedEvent.user is deprecated"
    );
    let on = structure(&ctx, "named_type=0");
    let off = structure(&ctx, "named_type=0,deprecated=0");
    let q = "who was unassigned from the issue";
    let rank = |b: &StructureBackend, c: &str| rank_of(b, &ctx, q, c).unwrap_or(usize::MAX);
    let (old, new) = ("UnassignedEvent.user", "UnassignedEvent.assignee");
    assert!(
        rank(&off, old) < rank(&off, new),
        "without: the deprecated field first"
    );
    assert!(
        rank(&on, new) < rank(&on, old),
        "with: its replacement first"
    );
    assert!(rank(&on, new) < 10, "the replacement stays in the top 10");
    // Switched off by name as well as by weight.
    let weights = StructureWeights {
        named_type: 0.0,
        ..StructureWeights::default()
    };
    let mut without = StructureBackend::new(weights)
        .without(&["deprecated"])
        .expect("stage names");
    without.index(&ctx).unwrap();
    assert_eq!(rank(&without, old), rank(&off, old));
}
