//! Which arguments of a selected field survive, on a hand-written schema: a lookup keeps
//! every argument; a single-object field with more arguments than a lookup takes is a
//! filtered search and keeps only the required, relevant and paging ones; without a
//! budget a list field keeps its lone free-text argument.

use std::sync::Arc;

use gqlnav_corpus::Encoding;
use gqlnav_slice::{SliceOptions, Slicer, Style, MAX_LOOKUP_ARGS};

fn sdl() -> String {
    let filters: Vec<String> = (0..MAX_LOOKUP_ARGS)
        .map(|i| format!("filter{i}: String"))
        .collect();
    format!(
        r#"
type Query {{ project(fullPath: ID!, archived: Boolean): Project }}
type Project {{
  name: String!
  ticket(number: Int, {}, author: String): Ticket
  tickets(query: String, first: Int, after: String): TicketConnection
}}
type Ticket {{ title: String! author: String }}
type TicketConnection {{ nodes: [Ticket!]! }}
"#,
        filters.join(", ")
    )
}

fn slice(question: &str, budget: Option<usize>) -> Vec<String> {
    slice_of(&sdl(), question, budget)
}

/// The coordinates of a dense slice of `question` over `sdl`.
fn slice_of(sdl: &str, question: &str, budget: Option<usize>) -> Vec<String> {
    let s = Slicer::new(Arc::new(gqlnav_schema::load_sdl_str(sdl, "t").unwrap())).unwrap();
    let o = SliceOptions {
        budget,
        encoding: Encoding::Cl100kBase,
        style: Style::Dense,
        // The best-ranked fields keep their whole signature whatever the pruning rule
        // says; on a schema this small that is every field, so it is off here.
        knobs: gqlnav_slice::Knobs {
            full_signature_k: 0,
            ..Default::default()
        },
        ..Default::default()
    };
    s.slice(question, &[], &o).unwrap().coordinates
}

#[test]
fn a_lookup_keeps_every_argument_a_filtered_search_only_what_is_asked() {
    let c = slice("the title of ticket 12 of a project, by its author", None);
    assert!(c.iter().any(|x| x == "Project.ticket"), "{c:?}");
    // Query.project is a lookup (two arguments): both survive.
    assert!(c.iter().any(|x| x == "Query.project(fullPath:)"), "{c:?}");
    assert!(c.iter().any(|x| x == "Query.project(archived:)"), "{c:?}");
    // Project.ticket takes more than MAX_LOOKUP_ARGS: the named one survives, the
    // generic filters do not.
    assert!(c.iter().any(|x| x == "Project.ticket(author:)"), "{c:?}");
    assert!(
        !c.iter().any(|x| x.starts_with("Project.ticket(filter")),
        "{c:?}"
    );
}

#[test]
fn without_a_budget_a_list_field_keeps_its_lone_search_string() {
    let q = "titles of a project's tickets";
    let c = slice(q, None);
    assert!(c.iter().any(|x| x == "Project.tickets"), "{c:?}");
    assert!(c.iter().any(|x| x == "Project.tickets(query:)"), "{c:?}");
    let c = slice(q, Some(2000));
    assert!(c.iter().any(|x| x == "Project.tickets"), "{c:?}");
    assert!(!c.iter().any(|x| x == "Project.tickets(query:)"), "{c:?}");
}

const SORTED: &str = r#"
type Query { shop: Shop }
type Shop {
  name: String!
  orders(first: Int, after: String, sortKey: OrderSortKeys, reverse: Boolean): OrderConnection
  tags(first: Int, sortKey: TagSortKeys, includeHidden: Boolean, includeEmpty: Boolean): TagConnection
}
enum OrderSortKeys { TOTAL_PRICE CREATED_AT ID }
enum TagSortKeys { LABEL ID }
type Order { id: ID! totalPrice: Float! }
type OrderConnection { nodes: [Order!]! }
type Tag { label: String! }
type TagConnection { nodes: [Tag!]! }
"#;

fn slice_sorted(question: &str, budget: Option<usize>) -> Vec<String> {
    slice_of(SORTED, question, budget)
}

#[test]
fn without_a_budget_a_sorted_list_keeps_its_lone_switch() {
    // The sort key survives (a value of its enum is named), and so does the one Boolean:
    // "biggest first" is a direction the question never names.
    let q = "the five biggest orders by total price";
    let c = slice_sorted(q, None);
    assert!(c.iter().any(|x| x == "Shop.orders(sortKey:)"), "{c:?}");
    assert!(c.iter().any(|x| x == "Shop.orders(reverse:)"), "{c:?}");
    // Under a budget space is the bound: only what the question names.
    let c = slice_sorted(q, Some(2000));
    assert!(c.iter().any(|x| x == "Shop.orders(sortKey:)"), "{c:?}");
    assert!(!c.iter().any(|x| x == "Shop.orders(reverse:)"), "{c:?}");
    // Not sorted by a named value: no switch.
    let c = slice_sorted("the orders of the shop", None);
    assert!(c.iter().any(|x| x == "Shop.orders"), "{c:?}");
    assert!(!c.iter().any(|x| x == "Shop.orders(reverse:)"), "{c:?}");
    // Two switches: neither is the lone one, so neither is forced.
    let c = slice_sorted("the shop's tags by label", None);
    assert!(c.iter().any(|x| x == "Shop.tags(sortKey:)"), "{c:?}");
    assert!(
        !c.iter().any(|x| x.starts_with("Shop.tags(include")),
        "{c:?}"
    );
}

/// A field whose filters the question names is ordered by what reaching it costs, not by
/// the arguments it was asked for (`Knobs::matched_arg_cost`): under a tight budget it
/// comes before the cheap leaves of its own type; ordered by its whole cost (1.0) the
/// leaves fill the budget and the field is left out.
#[test]
fn arguments_the_question_names_do_not_push_their_field_behind_cheap_leaves() {
    let leaves: String = (0..20).map(|i| format!("  x{i}: String\n")).collect();
    let sdl = format!(
        "type Query {{ project(fullPath: ID!): Project }}\n\
         type Project {{\n  name: String\n{leaves}  reviews(state: ReviewState, \
         reviewerUsername: String, submittedAfter: String, submittedBefore: String, \
         draft: Boolean, first: Int): ReviewConnection\n}}\n\
         enum ReviewState {{ OPEN CLOSED }}\n\
         type ReviewConnection {{ nodes: [Review] }}\n\
         type Review {{ title: String }}\n"
    );
    let s = Slicer::new(Arc::new(gqlnav_schema::load_sdl_str(&sdl, "t").unwrap())).unwrap();
    let q = "reviews by state, reviewer username, draft, submitted after and before";
    let cut = |matched_arg_cost: f32| {
        let o = SliceOptions {
            budget: Some(100),
            encoding: Encoding::Cl100kBase,
            style: Style::Dense,
            knobs: gqlnav_slice::Knobs {
                matched_arg_cost,
                ..Default::default()
            },
            ..Default::default()
        };
        s.slice(q, &[], &o).unwrap().coordinates
    };
    let by_default = cut(gqlnav_slice::Knobs::default().matched_arg_cost);
    for c in [
        "Project.reviews",
        "Project.reviews(state:)",
        "Project.reviews(reviewerUsername:)",
        "Project.reviews(submittedAfter:)",
        "ReviewConnection.nodes",
    ] {
        assert!(by_default.iter().any(|x| x == c), "{c} in {by_default:?}");
    }
    let whole = cut(1.0);
    assert!(
        !whole.iter().any(|x| x == "Project.reviews"),
        "ordered by the whole cost, the leaves come first: {whole:?}"
    );
    assert!(
        whole.iter().filter(|x| x.starts_with("Project.x")).count()
            > by_default
                .iter()
                .filter(|x| x.starts_with("Project.x"))
                .count()
    );
}
