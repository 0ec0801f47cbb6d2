//! The tools over a real schema, without any transport: budgeted slices over the
//! generation's own ranker, pages and cursors, introspection, validation, execution errors.

mod common;

use common::result_coordinates;
use gqlnav_tools::{IntrospectRequest, OperationRequest, SearchRequest};

#[test]
fn budgeted_search_returns_a_slice_within_the_budget() {
    let tools = common::toolbox("linear");
    let mut req = SearchRequest::new("issues assigned to me with their state");
    req.budget_tokens = Some(1500);
    let out = tools.search_schema(&req);
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.starts_with("# Schema slice for"), "{}", out.text);
    let v = out.structured.expect("structured content");
    let tokens = v["slice"]["tokens"].as_u64().unwrap() as usize;
    assert!(tokens > 0 && tokens <= 1500, "{tokens}");
    let sdl = v["slice"]["sdl"].as_str().unwrap();
    assert_eq!(tools.meter.count(sdl), tokens);
    gqlnav_schema::apollo_compiler::ast::Document::parse(sdl, "slice.graphql").unwrap();
    let coords: Vec<&str> = v["slice"]["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    assert!(coords.iter().any(|c| c.starts_with("Query.")), "{coords:?}");
    assert!(coords.iter().any(|c| c.starts_with("Issue.")), "{coords:?}");
}

#[test]
fn pages_follow_their_cursor_and_a_cursor_is_tied_to_its_query() {
    let tools = common::toolbox("linear");
    let mut req = SearchRequest::new("issue labels");
    req.limit = 3;
    let first = tools.search_schema(&req);
    let v = first.structured.clone().unwrap();
    let page1 = result_coordinates(&v);
    assert_eq!(page1.len(), 3);
    assert_eq!(first.tokens, tools.meter.count(&first.text));
    let cursor = v["nextCursor"].as_str().expect("a next page").to_string();
    req.cursor = Some(cursor.clone());
    let second = tools.search_schema(&req);
    let v2 = second.structured.unwrap();
    let page2 = result_coordinates(&v2);
    assert_eq!(page2.len(), 3);
    assert!(
        page2.iter().all(|c| !page1.contains(c)),
        "{page1:?} {page2:?}"
    );
    // Rank numbers continue on the next page (past the positions folded into page 1).
    let rank = |v: &serde_json::Value, i: usize| v["results"][i]["rank"].as_u64().unwrap();
    let last = rank(&v, 2);
    assert!(rank(&v2, 0) > last, "{} after {last}", rank(&v2, 0));
    assert!(
        second.text.starts_with(&format!("{}. ", rank(&v2, 0))),
        "{}",
        second.text
    );
    // The same cursor with another query is refused.
    let mut other = SearchRequest::new("team members");
    other.cursor = Some(cursor);
    let out = tools.search_schema(&other);
    assert!(out.is_error);
    assert!(out.text.contains("cursor"), "{}", out.text);
    // A well-formed cursor past the last result says so (not "no coordinates match").
    let mut past = SearchRequest::new("issue labels");
    past.cursor = Some(gqlnav_tools::make_cursor(
        1_000_000,
        "issue labels",
        tools.generation().number,
    ));
    let out = tools.search_schema(&past);
    assert!(
        out.text.contains("the last page has been read"),
        "{}",
        out.text
    );
}

#[test]
fn introspect_validate_and_execute_say_what_to_fix() {
    let tools = common::toolbox("linear");
    let out = tools.introspect(&IntrospectRequest::new(["Isue"]));
    assert!(out.is_error);
    assert!(out.text.contains("Did you mean"), "{}", out.text);
    let out = tools.introspect(&IntrospectRequest::new(["Issue.title"]));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("title"), "{}", out.text);

    let out = tools.validate(&OperationRequest::new("{ issues { nodes { titel } } }"));
    assert!(out.is_error);
    assert!(
        out.text.contains("did you mean Issue.title"),
        "{}",
        out.text
    );
    let out = tools.validate(&OperationRequest::new("{ issues { nodes { title } } }"));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("You can execute it"), "{}", out.text);

    // No upstream configured: execute says how to configure one.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(tools.execute(&OperationRequest::new("{ issues { nodes { title } } }")));
    assert!(out.is_error);
    assert!(out.text.contains("--endpoint"), "{}", out.text);
}

#[test]
fn a_connection_selected_without_fields_gets_the_selection_it_needs() {
    // The WG baseline's small model resent `issues` without `nodes` until its turns ran
    // out; the error now carries a selection that validates.
    let tools = common::toolbox("linear");
    let out = tools.validate(&OperationRequest::new("{ issues(first: 5) }"));
    assert!(out.is_error);
    assert!(
        out.text
            .contains("Fix: `Query.issues` returns `IssueConnection`"),
        "{}",
        out.text
    );
    assert!(out.text.contains("nodes {"), "{}", out.text);
    let fix = out
        .text
        .split("e.g. `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .expect("a fix in backticks");
    let fixed = fix.replacen("issues", "issues(first: 5)", 1);
    let again = tools.validate(&OperationRequest::new(format!("{{ {fixed} }}")));
    assert!(
        !again.is_error,
        "the suggested `{fixed}` must validate: {}",
        again.text
    );

    // A union gets its members' fragments; a leaf-only object gets its leaves.
    let tools = common::toolbox("github");
    let out = tools.validate(&OperationRequest::new(
        "{ repository(owner: \"a\", name: \"b\") { owner } }",
    ));
    assert!(out.is_error);
    assert!(out.text.contains("`RepositoryOwner`"), "{}", out.text);
    assert!(out.text.contains("e.g. `owner {"), "{}", out.text);
}

#[test]
fn introspect_depth_two_is_compact_capped_and_names_what_it_left_out() {
    let tools = common::toolbox("github");
    let mut req = IntrospectRequest::new(["PushAllowance"]);
    req.depth = 2;
    let out = tools.introspect(&req);
    assert!(!out.is_error, "{}", out.text);
    // The union the question needs is one line, members named.
    assert!(
        out.text
            .contains("union PushAllowanceActor = App | Team | User"),
        "{}",
        out.text
    );
    eprintln!("PushAllowance depth 2: {} tokens", out.tokens);
    assert!(
        out.tokens <= 300 + gqlnav_tools::INTROSPECT_EXPANSION_TOKENS,
        "{}",
        out.tokens
    );
    // A field returning a type too big for the cap: named, not shown.
    let mut req = IntrospectRequest::new(["Query.repository"]);
    req.depth = 2;
    let out = tools.introspect(&req);
    assert!(out.text.contains("# not shown (over the"), "{}", out.text);
    let v = out.structured.expect("structured");
    let names: Vec<&str> = v["notShown"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert!(names.contains(&"Repository"), "{names:?}");
    assert!(out.tokens < 1_500, "{}", out.tokens);
}

/// Several big types asked for at once: with descriptions the answer would pass its
/// token cap and the last types would be cut off; without them every type asked for is
/// there whole, and the answer says what it left out. A small type keeps its
/// descriptions.
#[test]
fn introspect_of_big_types_drops_descriptions_before_types() {
    let tools = common::toolbox("github");
    let asked = ["PullRequest", "Issue", "Commit"];
    let out = tools.introspect(&IntrospectRequest::new(asked));
    assert!(!out.is_error, "{}", out.text);
    let v = out.structured.clone().expect("structured");
    assert_eq!(v["truncated"], false, "{}", out.text);
    assert_eq!(v["descriptionsLeftOut"], true);
    assert!(out
        .text
        .starts_with("# descriptions left out of the 3 types asked for"));
    for t in asked {
        assert!(out.text.contains(&format!("type {t} implements")), "{t}");
    }
    // The last type asked for is whole: its last field is there.
    assert!(out.text.contains("zipballUrl: URI!"), "Commit.zipballUrl");
    assert!(!out.text.contains("\"\"\""), "no block descriptions");

    let small = tools.introspect(&IntrospectRequest::new(["PushAllowance"]));
    assert_eq!(small.structured.unwrap()["descriptionsLeftOut"], false);
    assert!(small.text.contains("\"\"\""), "{}", small.text);
}
