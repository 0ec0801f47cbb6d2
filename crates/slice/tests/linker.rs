//! The one-hop linker baseline over a hand-written schema and the real GitHub schema.

use std::sync::Arc;

use gqlnav_corpus::Encoding;
use gqlnav_slice::{SliceOptions, Slicer, Style};

const SDL: &str = r#"
type Query { shelf(id: ID!): Shelf books(genre: Genre): [Book!]! }
type Shelf { id: ID! books: [Book!]! owner: Person }
type Book { id: ID! title: String! genre: Genre author: Person pageCount: Int }
type Person { id: ID! name: String! }
type Magazine { id: ID! title: String! }
type Poster { id: ID! title: String! }
type Card { id: ID! title: String! }
enum Genre { SCIENCE_FICTION POETRY }
"#;

fn slicer(sdl: &str) -> Slicer {
    Slicer::new(Arc::new(gqlnav_schema::load_sdl_str(sdl, "t").unwrap())).unwrap()
}

fn opts(budget: Option<usize>) -> SliceOptions {
    SliceOptions {
        budget,
        encoding: Encoding::Cl100kBase,
        style: Style::Dense,
        ..Default::default()
    }
}

#[test]
fn names_types_by_type_name_specific_field_and_enum_value_plus_one_hop() {
    let s = slicer(SDL);
    let l = s
        .link("science fiction books on a shelf", &opts(None))
        .unwrap();
    let named: Vec<(&str, &str)> = l
        .types
        .iter()
        .filter(|t| t.hop == 0)
        .map(|t| (t.name.as_str(), t.because.as_str()))
        .collect();
    assert!(
        named.contains(&("Genre", "enum value Genre.SCIENCE_FICTION")),
        "{named:?}"
    );
    assert!(named.contains(&("Shelf", "type name")), "{named:?}");
    assert!(named.contains(&("Book", "type name")), "{named:?}");
    // One hop: Shelf.owner -> Person.
    assert!(l
        .types
        .iter()
        .any(|t| t.name == "Person" && t.hop == 1 && t.because == "Shelf.owner"));
    // The slice defines the types with all their fields and the query entry points.
    for m in [
        "type Shelf",
        "pageCount: Int",
        "shelf(id: ID!): Shelf",
        "type Person",
    ] {
        assert!(l.slice.sdl.contains(m), "{m} not in\n{}", l.slice.sdl);
    }
    assert!(!l.slice.sdl.contains("Magazine"));
}

#[test]
fn a_field_name_shared_by_many_types_names_none_of_them() {
    let s = slicer(SDL);
    // `title` is a field of four types: not specific, so it names nothing.
    let l = s.link("title", &opts(None)).unwrap();
    assert!(l.types.is_empty(), "{:?}", l.types);
    // `pageCount` is on one type: it names Book.
    let l = s.link("page count", &opts(None)).unwrap();
    assert_eq!(l.types[0].name, "Book");
    assert_eq!(l.types[0].because, "field Book.pageCount");
}

#[test]
fn the_budget_is_met_with_whole_types_on_github() {
    let sdl = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benchmarks/wg/schemas/github/schema.graphql"
    ))
    .unwrap();
    let s = slicer(&sdl);
    let q = "pull requests associated with a deployment";
    let all = s.link(q, &opts(None)).unwrap();
    assert!(all
        .types
        .iter()
        .any(|t| t.name == "Deployment" && t.hop == 0));
    assert!(all
        .types
        .iter()
        .any(|t| t.name == "PullRequest" && t.hop == 0));
    let small = s.link(q, &opts(Some(3000))).unwrap();
    assert!(small.slice.tokens <= 3000, "{}", small.slice.tokens);
    assert!(small.slice.tokens < all.slice.tokens);
    assert!(
        !small.slice.left_out.is_empty(),
        "types that did not fit are named"
    );
    let m = gqlnav_schema::apollo_compiler::ast::Document::parse(&small.slice.sdl, "s.graphql");
    assert!(m.is_ok(), "the slice parses");
}
