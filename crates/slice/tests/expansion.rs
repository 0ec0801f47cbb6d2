//! Type expansion without a budget: the question's most relevant types lend value to
//! their leaf fields only (`Knobs::auto_type_leaves`), so a hub type with hundreds of
//! composite fields does not fill an auto slice with them and the types they name.

use std::sync::Arc;

use gqlnav_corpus::Encoding;
use gqlnav_slice::{Knobs, SliceOptions, Slicer, Style};

/// A hub type with three leaves and 120 composite fields, each to its own small type.
fn sdl() -> String {
    let mut s = String::from("type Query { hub(id: ID!): Hub }\n");
    s.push_str("type Hub {\n  name: String!\n  createdAt: String!\n  visibility: Visibility\n");
    for i in 0..120 {
        s.push_str(&format!("  part{i}: Part{i}\n"));
    }
    s.push_str("}\nenum Visibility { PUBLIC PRIVATE }\n");
    for i in 0..120 {
        s.push_str(&format!("type Part{i} {{ id: ID! label{i}: String }}\n"));
    }
    s
}

fn auto_slice(knobs: Knobs) -> gqlnav_slice::Slice {
    let s = Slicer::new(Arc::new(
        gqlnav_schema::load_sdl_str(&sdl(), "hub").unwrap(),
    ))
    .unwrap();
    let o = SliceOptions {
        budget: None,
        encoding: Encoding::Cl100kBase,
        style: Style::Dense,
        knobs,
        ..Default::default()
    };
    s.slice("when was the hub created and what is its name", &[], &o)
        .unwrap()
}

#[test]
fn an_expanded_hub_lends_value_to_its_leaves_only_without_a_budget() {
    // Few ranked hits, so what the expansion adds is what is measured.
    let base = Knobs {
        pool_k: 3,
        child_blend: 0.0,
        link_blend: 0.0,
        ..Knobs::default()
    };
    assert!(base.auto_type_leaves && !base.type_leaves);
    let leaves = auto_slice(base.clone());
    let parts = |s: &gqlnav_slice::Slice| {
        s.coordinates
            .iter()
            .filter(|c| c.starts_with("Hub.part"))
            .count()
    };
    for c in ["Query.hub", "Hub.name", "Hub.createdAt", "Hub.visibility"] {
        assert!(
            leaves.coordinates.iter().any(|x| x == c),
            "{c}: {:?}",
            leaves.coordinates
        );
    }
    assert_eq!(parts(&leaves), 0, "{:?}", leaves.coordinates);
    let all = auto_slice(Knobs {
        auto_type_leaves: false,
        ..base
    });
    assert!(
        parts(&all) >= 100,
        "every field of the hub: {}",
        parts(&all)
    );
    assert!(
        all.tokens > 3 * leaves.tokens,
        "{} vs {}",
        all.tokens,
        leaves.tokens
    );
}
