//! Labels without a budget: the type a picked field returns brings its *label* fields
//! (a one-word scalar or enum that is not a list, an `ID` or a `Boolean`: `name`,
//! `title`, `state`) at `Knobs::auto_label_blend` of the picked field's value, where its
//! other fields get `child_blend`. "Who is the ticket's assignee" needs `Person.name`,
//! which the question never names.

use std::sync::Arc;

use gqlnav_corpus::Encoding;
use gqlnav_slice::{Knobs, SliceOptions, Slicer, Style};

const SDL: &str = "
type Query { ticket(id: ID!): Ticket }
type Ticket { id: ID! summary: String! assignee: Person }
type Person {
  id: ID!
  name: String!
  title: String
  avatarUrl: String
  isActive: Boolean!
  createdAt: String
  handles: [String!]!
  role: Role
  oldName: String @deprecated(reason: \"use name\")
}
enum Role { ADMIN MEMBER }
";

fn person_fields(knobs: Knobs) -> Vec<String> {
    let s = Slicer::new(Arc::new(
        gqlnav_schema::load_sdl_str(SDL, "labels").expect("schema"),
    ))
    .expect("slicer");
    let o = SliceOptions {
        budget: None,
        encoding: Encoding::Cl100kBase,
        style: Style::Dense,
        knobs,
        ..Default::default()
    };
    let slice = s
        .slice("who is the assignee of the ticket", &[], &o)
        .expect("slice");
    assert!(
        slice.coordinates.iter().any(|c| c == "Ticket.assignee"),
        "{:?}",
        slice.coordinates
    );
    let mut v: Vec<String> = slice
        .coordinates
        .into_iter()
        .filter(|c| c.starts_with("Person."))
        .collect();
    v.sort();
    v
}

#[test]
fn the_type_a_picked_field_returns_brings_its_labels() {
    // A value floor above the child share, so only labels pass it; no type expansion or
    // small-type leaves, so what comes in is what the child channel adds.
    let knobs = Knobs {
        value_floor: 0.2,
        type_k: 0,
        small_type_fields: 0,
        link_blend: 0.0,
        ..Knobs::default()
    };
    assert!(knobs.auto_label_blend > 0.0 && knobs.label_blend == 0.0);
    assert_eq!(
        person_fields(knobs.clone()),
        ["Person.name", "Person.role", "Person.title"],
        "labels: one-word scalars and enums, no id, flag, list or deprecated field"
    );
    let off = person_fields(Knobs {
        auto_label_blend: 0.0,
        ..knobs
    });
    assert!(
        !off.iter().any(|c| c == "Person.name"),
        "without labels the child share is under the floor: {off:?}"
    );
}
