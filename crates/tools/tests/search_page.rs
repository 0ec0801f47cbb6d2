//! The search page an agent reads (`search_schema` without a budget) over the bundled
//! WG schemas: hits on abstract types, ways in from the root, first-person questions,
//! link fields, what the hits return, folding of near-duplicates, one type not filling
//! a page.

mod common;

use common::{links_of, page_of, result_coordinates, returns_of};
use gqlnav_tools::SearchRequest;

#[test]
fn hits_on_abstract_types_name_the_members_behind_them() {
    let tools = common::toolbox("github");
    let mut req = SearchRequest::new("who can push to a protected branch actor");
    req.limit = 20;
    let out = tools.search_schema(&req);
    assert!(!out.is_error, "{}", out.text);
    // A field returning a union names its members, and how to select them.
    let v = out.structured.expect("structured");
    let with_members: Vec<&serde_json::Value> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r.get("members").is_some())
        .collect();
    assert!(!with_members.is_empty(), "{}", out.text);
    assert!(out.text.contains("members: "), "{}", out.text);
    assert!(
        out.text.contains("select with `... on Type`"),
        "{}",
        out.text
    );
}

/// A search lists the ways in from the root to the hits' owner types, each field with
/// its argument names, so an agent can write the operation without guessing a root.
#[test]
fn search_lists_ways_in_from_the_root_with_argument_names() {
    let tools = common::toolbox("github");
    let out = tools.search_schema(&SearchRequest::new(
        "files changed in a pull request of a repository",
    ));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("Ways in from the root"), "{}", out.text);
    let v = out.structured.unwrap();
    let entries = v["entryPoints"].as_array().unwrap();
    assert!(!entries.is_empty() && entries.len() <= 5, "{entries:?}");
    let types: Vec<&str> = entries
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(
        !types.contains(&"Query"),
        "root types are not listed: {types:?}"
    );
    let pr = entries
        .iter()
        .find(|e| e["type"] == "PullRequest")
        .unwrap_or_else(|| panic!("{entries:?}"));
    let paths: Vec<&str> = pr["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(
        paths.iter().any(|p| p.starts_with("Query.repository(")
            && p.contains("owner:")
            && p.contains("name:")),
        "{paths:?}"
    );
    // A later page does not repeat them.
    let mut next = SearchRequest::new("files changed in a pull request of a repository");
    next.cursor = v["nextCursor"].as_str().map(String::from);
    let v2 = tools.search_schema(&next).structured.unwrap();
    assert!(v2["entryPoints"].as_array().unwrap().is_empty());
}

/// When the ways in to a type are only lookups, fixed lists without arguments (an
/// archive) and lists that require a key, the cheapest list that takes arguments and
/// requires none follows, and among lists of equal cost the one named after the type
/// (`Query.teams`, not `Query.administrableTeams`).
#[test]
fn ways_in_include_a_list_that_takes_arguments() {
    let tools = common::toolbox("linear");
    // The ways in a search page lists for type `ty`.
    let ways = |q: &str, ty: &str| -> Vec<String> {
        let v = tools
            .search_schema(&SearchRequest::new(q))
            .structured
            .unwrap();
        let entries = v["entryPoints"].as_array().unwrap().clone();
        let e = entries
            .iter()
            .find(|e| e["type"] == ty)
            .unwrap_or_else(|| panic!("{entries:?}"));
        e["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let paths = ways(
        "For each team, how many people are members, and how many issues does the team have in total?",
        "Team",
    );
    // The two cheapest ways are a fixed list and a lookup by key.
    assert!(
        paths.iter().any(|p| p == "Query.archivedTeams"),
        "{paths:?}"
    );
    assert!(paths.iter().any(|p| p == "Query.team(id:)"), "{paths:?}");
    let list = paths
        .iter()
        .find(|p| p.ends_with("> TeamConnection.nodes"))
        .unwrap_or_else(|| panic!("no selectable list of teams: {paths:?}"));
    assert!(
        list.starts_with("Query.teams(") && list.contains("first:"),
        "{list}"
    );

    // A list that requires an argument is a search by that key, not the list of all.
    let paths = ways(
        "How long are issues taking from start to finish, broken down by assignee?",
        "Issue",
    );
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with("Query.issues(") && p.ends_with("> IssueConnection.nodes")),
        "{paths:?}"
    );
}

/// A first-person question lists the ways in through the current caller first
/// (`Query.viewer` then `User.assignedIssues(…)`); the same words in the third person, or
/// "show me" as a request, do not.
#[test]
fn first_person_search_lists_the_way_in_through_the_current_caller_first() {
    let tools = common::toolbox("linear");
    let first_path = |q: &str| -> Vec<String> {
        let v = tools
            .search_schema(&SearchRequest::new(q))
            .structured
            .unwrap();
        v["entryPoints"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "Issue")
            .filter_map(|e| e["paths"][0].as_str().map(String::from))
            .collect()
    };
    let mine = first_path("What issues are currently assigned to me?");
    assert!(
        mine.first()
            .is_some_and(|p| p.starts_with("Query.viewer > User.assignedIssues(")),
        "{mine:?}"
    );
    for q in [
        "What issues are currently assigned to the team?",
        "Show me the issues assigned to the team",
    ] {
        let p = first_path(q);
        assert!(
            !p.first().is_some_and(|p| p.starts_with("Query.viewer")),
            "{q}: {p:?}"
        );
    }
}

/// A hit's one-line definition writes its arguments in coordinate syntax, `name:`, the
/// optional ones too (`ProjectV2.items(after:, before:, first:, …)`), as the ways in do:
/// they were bare names (`items(after, before, first, …)`).
#[test]
fn hit_definitions_write_arguments_as_coordinates() {
    let tools = common::toolbox("github");
    let mut req =
        SearchRequest::new("Which project items in the octocat organization are archived?");
    req.limit = 30;
    let v = tools.search_schema(&req).structured.unwrap();
    let items = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["coordinate"] == "ProjectV2.items")
        .unwrap_or_else(|| panic!("ProjectV2.items is not a result"));
    let def = items["definition"].as_str().unwrap();
    assert!(
        def.starts_with("ProjectV2.items(after:, before:, first:, last:, orderBy:, query:)"),
        "{def}"
    );
    // Every argument on the page is written `name:` (a required one with its type).
    for r in v["results"].as_array().unwrap() {
        let def = r["definition"].as_str().unwrap();
        let sig = def.split(" — ").next().unwrap_or(def);
        let Some((_, rest)) = sig.split_once('(') else {
            continue;
        };
        let inside = rest.split_once(')').map_or(rest, |x| x.0);
        for part in inside.split(", ") {
            assert!(part == "…" || part.contains(':'), "{part} in {def}");
        }
    }
}

/// A small type (at most 12 fields) is listed under any hit or folded field returning
/// it, not only under the top hits: `PullRequest.mergedBy -> Actor: Actor.login, …`
/// for merged pull requests "with each author's login".
#[test]
fn a_small_type_is_listed_under_any_hit_returning_it() {
    let tools = common::toolbox("github");
    let v = page_of(
        &tools,
        "List merged pull requests in the octocat/example repository with each author's login, additions, deletions, and merge timestamp.",
    );
    let returns = returns_of(&v);
    let actor = returns
        .iter()
        .find(|r| r.contains(" -> Actor: "))
        .unwrap_or_else(|| panic!("no line for Actor: {returns:?}"));
    assert!(actor.contains("Actor.login"), "{actor}");
    // The field returning it is folded into a result (`more:`), not a result itself:
    // before, a folded field listed only the value objects it returns.
    let from = actor.split_once(" -> ").unwrap().0;
    let results = v["results"].as_array().unwrap();
    assert!(!results.iter().any(|r| r["coordinate"] == from), "{from}");
    assert!(
        folded_into(results, from, results.len()),
        "{from} is not folded into a result"
    );
}

/// Is `coordinate` folded (`moreOnType`) into one of the first `top` results?
fn folded_into(results: &[serde_json::Value], coordinate: &str, top: usize) -> bool {
    results.iter().take(top).any(|r| {
        r["moreOnType"]
            .as_array()
            .is_some_and(|m| m.iter().any(|c| c == coordinate))
    })
}

/// Up to 12 links, not 6: a question about "discussions in a repository" gets more than
/// six links between the hits' types (the discussion's own links, user lists, and the
/// repository's discussions with their `answered:` filter, the list it reads).
#[test]
fn links_reach_past_the_first_six() {
    let tools = common::toolbox("github");
    let v = page_of(
        &tools,
        "Which discussions in the octocat/example repository have been marked as answered?",
    );
    let links = links_of(&v);
    assert!(
        (links.iter()).any(|l| l.starts_with("Repository.discussions(") && l.contains("answered:")),
        "{links:?}"
    );
    assert!(links.len() > 6 && links.len() <= 12, "{links:?}");
}

/// Link fields join two types of a question: each listed link is a field of one hit's
/// type that returns (directly or as a connection) another hit's type.
#[test]
fn search_lists_link_fields_between_the_hits_types() {
    let tools = common::toolbox("github");
    let out = tools.search_schema(&SearchRequest::new(
        "pull requests associated with a deployment",
    ));
    let v = out.structured.unwrap();
    let links = links_of(&v);
    assert!(!links.is_empty() && links.len() <= 12, "{links:?}");
    assert!(
        out.text.contains("Links between these types:"),
        "{}",
        out.text
    );
    let g = &tools.generation().graph;
    let hits: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["coordinate"].as_str().unwrap())
        .collect();
    for l in &links {
        let (field, ret) = l.split_once(" -> ").unwrap();
        // Through a connection the line names the hop to its nodes: `… > XConnection.nodes`.
        let (field, hop) = field.split_once(" > ").unwrap_or((field, ""));
        let coord = field.split('(').next().unwrap();
        if !hop.is_empty() {
            assert!(
                hop.ends_with(".nodes") || hop.ends_with(".node"),
                "{l}: the hop goes to the nodes"
            );
        }
        assert!(!hits.contains(&coord), "{coord} is a hit already");
        let (ty, f) = coord.split_once('.').unwrap();
        let def = match g.schema.types.get(ty) {
            Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::Object(o)) => {
                o.fields.get(f)
            }
            Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::Interface(i)) => {
                i.fields.get(f)
            }
            _ => None,
        }
        .unwrap_or_else(|| panic!("{coord} is not a field"));
        let named = def.ty.inner_named_type().as_str();
        assert!(
            named == ret || g.wrapped_type(named).as_deref() == Some(ret),
            "{l}: returns {named}"
        );
    }
}

/// The top hits' return types are shown one level down (fields without required
/// arguments, not deprecated), so a selection can be written without another call.
#[test]
fn search_shows_what_the_top_hits_return() {
    let tools = common::toolbox("github");
    let out = tools.search_schema(&SearchRequest::new("author of a commit"));
    let v = out.structured.unwrap();
    let returns = returns_of(&v);
    // At most the top ten hits' types, besides value objects (listed for any hit).
    let g = &tools.generation().graph;
    let entities = returns
        .iter()
        .filter(|r| {
            let ty = r.split_once(" -> ").unwrap().1.split_once(": ").unwrap().0;
            let small = match g.schema.types.get(ty) {
                Some(apollo_compiler::schema::ExtendedType::Object(o)) => o.fields.len() <= 12,
                Some(apollo_compiler::schema::ExtendedType::Interface(i)) => i.fields.len() <= 12,
                _ => false,
            };
            !g.is_value_object(ty) && !small
        })
        .count();
    assert!(!returns.is_empty() && entities <= 10, "{returns:?}");
    assert!(
        out.text.contains("What the top hits return:"),
        "{}",
        out.text
    );

    for r in &returns {
        let (hit, rest) = r.split_once(" -> ").unwrap();
        let hit = hit.split_once(" > ").map_or(hit, |(h, _)| h);
        let (ty, fields) = rest.split_once(": ").unwrap();
        assert!(
            v["results"].as_array().unwrap().iter().any(|x| {
                x["coordinate"] == hit
                    || x["moreOnType"]
                        .as_array()
                        .is_some_and(|m| m.iter().any(|c| c == hit))
            }),
            "{hit} is neither a hit nor folded into one"
        );
        for f in fields.split(", ").filter(|f| !f.starts_with('…')) {
            let (owner, _) = f.split_once('.').unwrap();
            assert_eq!(owner, ty, "{r}");
            let c = gqlnav_schema::Coordinate::parse(f).unwrap();
            assert!(g.resolve(&c).is_ok(), "{f} does not exist");
        }
    }
}

/// A returned type's basic fields come first: no Boolean flag before a field of another
/// type, and names of fewer words first. GitHub's `Issue` is declared alphabetically, so
/// declaration order listed `activeLockReason`, `assignedActors`, … and cut off before
/// `number`, the field a question about issues selects.
#[test]
fn what_a_hit_returns_lists_basic_fields_first() {
    let tools = common::toolbox("github");
    let out = tools.search_schema(&SearchRequest::new(
        "Which open issues in the octocat/example repository have references to closed pull requests?",
    ));
    let v = out.structured.unwrap();
    let returns = returns_of(&v);
    let issue = returns
        .iter()
        .find(|r| r.contains(" -> Issue: "))
        .unwrap_or_else(|| panic!("no line for Issue: {returns:?}"));
    let fields: Vec<&str> = issue
        .split_once(": ")
        .unwrap()
        .1
        .split(", ")
        .filter(|f| !f.starts_with('…'))
        .collect();
    assert!(fields.contains(&"Issue.number"), "{issue}");
    assert!(fields.contains(&"Issue.title"), "{issue}");
    assert!(!fields.contains(&"Issue.activeLockReason"), "{issue}");
    let g = &tools.generation().graph;
    let words = |f: &str| {
        gqlnav_search::Analyzer::Identifier
            .index_terms(f.split_once('.').unwrap().1)
            .len()
    };
    let issue_type = g.schema.types.get("Issue").unwrap();
    let ty = |f: &str| {
        let field = f.split_once('.').unwrap().1;
        match issue_type {
            apollo_compiler::schema::ExtendedType::Object(o) => o.fields[field].ty.clone(),
            _ => unreachable!("Issue is an object type"),
        }
    };
    let is_flag = |f: &str| ty(f).inner_named_type().as_str() == "Boolean";
    // A single scalar or enum value (not a list, not an ID) before a link of as many words.
    let is_link = |f: &str| {
        let t = ty(f);
        let named = t.inner_named_type().as_str();
        t.is_list()
            || named == "ID"
            || !matches!(
                g.schema.types.get(named),
                Some(
                    apollo_compiler::schema::ExtendedType::Scalar(_)
                        | apollo_compiler::schema::ExtendedType::Enum(_)
                )
            )
    };
    for pair in fields.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(
            (is_flag(a), words(a), is_link(a)) <= (is_flag(b), words(b), is_link(b)),
            "{a} before {b}: {issue}"
        );
    }
}

/// The same field on sibling object types of one interface is one result that names the
/// others (`Organization.avatarUrl`, same field on `User.avatarUrl`: both are `Actor`s);
/// the interface's own field stays a result. Pages that follow their cursors never show a
/// coordinate twice, folded or not, and rank numbers skip the folded positions.
#[test]
fn sibling_fields_fold_into_one_result_and_cursors_skip_them() {
    let tools = common::toolbox("github");
    let q = "avatar url of the author";
    let mut req = SearchRequest::new(q);
    req.limit = 6;
    let mut seen: Vec<String> = Vec::new();
    let mut folded_any = false;
    let mut numbers = Vec::new();
    for _ in 0..3 {
        let out = tools.search_schema(&req);
        assert!(!out.is_error, "{}", out.text);
        let v = out.structured.unwrap();
        for r in v["results"].as_array().unwrap() {
            numbers.push(r["rank"].as_u64().unwrap());
            let mut coords = vec![r["coordinate"].as_str().unwrap().to_string()];
            if let Some(same) = r["sameFieldOn"].as_array() {
                folded_any = true;
                assert!(out.text.contains("same field on: "), "{}", out.text);
                let field = coords[0].split('.').nth(1).unwrap().to_string();
                for c in same {
                    let c = c.as_str().unwrap();
                    // The same field name, on another type.
                    assert_eq!(c.split('.').nth(1), Some(field.as_str()), "{c}");
                    assert_ne!(c, coords[0]);
                    coords.push(c.to_string());
                }
            }
            for c in coords {
                assert!(!seen.contains(&c), "{c} shown twice: {seen:?}");
                seen.push(c);
            }
        }
        req.cursor = Some(v["nextCursor"].as_str().expect("a next page").to_string());
    }
    assert!(folded_any, "{seen:?}");
    assert!(seen.iter().any(|c| c == "User.avatarUrl"), "{seen:?}");
    assert!(seen.iter().any(|c| c == "Actor.avatarUrl"), "{seen:?}");
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    assert!(
        numbers.last().copied().unwrap_or(0) > numbers.len() as u64,
        "folded positions are skipped: {numbers:?}"
    );
}

/// Every hit on the page that returns a value object (an amount and its currency) gets
/// its fields listed, not only the top three hits, and a value object nested in a listed
/// one follows it (a taxed total's `gross` amount): an agent writes `price { … }` without
/// another call. Each type is listed once.
#[test]
fn search_lists_the_fields_of_every_value_object_a_hit_returns() {
    let sdl = common::repo_file("benchmarks/heldout/schemas/nautical/schema.graphql");
    let g = std::sync::Arc::new(gqlnav_schema::load_sdl_str(&sdl, "nautical").unwrap());
    let tools = gqlnav_tools::Toolbox::build(g.clone(), None, gqlnav_tools::ToolsConfig::default())
        .unwrap();
    let out = tools.search_schema(&SearchRequest::new("order number, status and total"));
    let v = out.structured.unwrap();
    let returns = returns_of(&v);
    let listed: Vec<&str> = returns
        .iter()
        .map(|r| r.split_once(" -> ").unwrap().1.split_once(": ").unwrap().0)
        .collect();
    let mut unique = listed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a type listed twice: {returns:?}"
    );
    let results = v["results"].as_array().unwrap();
    let mut beyond_top_three = false;
    // Each result, then the fields folded into it by type (lower hits).
    let hits = results.iter().enumerate().flat_map(|(i, r)| {
        let more = r["moreOnType"].as_array().cloned().unwrap_or_default();
        std::iter::once((i, r["coordinate"].as_str().unwrap().to_string())).chain(
            more.into_iter()
                .map(|c| (usize::MAX, c.as_str().unwrap().to_string())),
        )
    });
    for (i, c) in hits {
        let Some((owner, field)) = c.split_once('.') else {
            continue;
        };
        let ret = match g.schema.types.get(owner) {
            Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::Object(o)) => o
                .fields
                .get(field)
                .map(|f| f.ty.inner_named_type().to_string()),
            _ => None,
        };
        let Some(ret) = ret.filter(|t| g.is_value_object(t)) else {
            continue;
        };
        assert!(
            listed.contains(&ret.as_str()),
            "{c} returns {ret}, not listed: {returns:?}"
        );
        beyond_top_three |= i >= 3;
    }
    assert!(
        beyond_top_three,
        "no value object beyond the top three: {returns:?}"
    );
    assert!(
        returns
            .iter()
            .any(|r| r.starts_with("TaxedMoney.gross -> Money: ")
                || r.starts_with("TaxedMoney.net -> Money: ")),
        "the nested amount is not listed: {returns:?}"
    );
}

/// One word matching one type's fields does not fill the page: "customer … status" on
/// Linear ranks a run of `CustomerStatus.*` fields first; the page shows one result per
/// type (`ToolsConfig::per_type`) with the rest of that type folded into it as `more:`,
/// so the other types the question names get the page's slots. With folding by type off
/// the same page is mostly `CustomerStatus`.
#[test]
fn one_type_does_not_fill_a_search_page() {
    let q = SearchRequest::new("customer linked engineering issues status");
    let owners = |v: &serde_json::Value| -> Vec<String> {
        result_coordinates(v)
            .iter()
            .map(|c| c.split_once('.').map_or(c.as_str(), |x| x.0).to_string())
            .collect()
    };
    let tools = common::toolbox("linear");
    let out = tools.search_schema(&q);
    let v = out.structured.unwrap();
    let types = owners(&v);
    let mut unique = types.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), types.len(), "a type twice: {types:?}");
    assert!(types.len() >= 8, "{types:?}");
    let status = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["coordinate"]
                .as_str()
                .unwrap()
                .starts_with("CustomerStatus.")
        })
        .expect("a CustomerStatus result");
    let more: Vec<&str> = status["moreOnType"]
        .as_array()
        .expect("fields folded into it")
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    assert!(more.len() >= 3, "{more:?}");
    assert!(
        more.iter().all(|c| c.starts_with("CustomerStatus.")),
        "{more:?}"
    );
    assert!(
        out.text.contains("\n   more: CustomerStatus."),
        "{}",
        out.text
    );
    let off = gqlnav_tools::Toolbox::build(
        common::bundled("linear"),
        None,
        gqlnav_tools::ToolsConfig {
            per_type: 0,
            ..Default::default()
        },
    )
    .unwrap();
    let flat = owners(&off.search_schema(&q).structured.unwrap());
    assert!(
        flat.iter().filter(|t| *t == "CustomerStatus").count() >= 5,
        "{flat:?}"
    );
}

/// Linear's toolbox and its page for "projects with their leads and target dates".
fn projects_with_leads() -> (gqlnav_tools::Toolbox, serde_json::Value) {
    let tools = common::toolbox("linear");
    let v = page_of(
        &tools,
        "Show me cross-team projects with their leads and target completion dates.",
    );
    (tools, v)
}

/// A field folded into a top hit (`more:`) lists what it returns like the hit itself,
/// however big that type: "projects with their leads" folds `Project.lead` under the
/// project's target date, and the lead's `User.name` is on the page (before, a folded
/// field listed only value objects and types of at most 12 fields, and Linear's `User`
/// has dozens).
#[test]
fn a_field_folded_into_a_top_hit_lists_what_it_returns() {
    let (tools, v) = projects_with_leads();
    let returns = returns_of(&v);
    let user = returns
        .iter()
        .find(|r| r.contains(" -> User: "))
        .unwrap_or_else(|| panic!("no line for User: {returns:?}"));
    assert!(user.contains("User.name"), "{user}");
    let g = &tools.generation().graph;
    let user_fields = match g.schema.types.get("User") {
        Some(apollo_compiler::schema::ExtendedType::Object(o)) => o.fields.len(),
        _ => panic!("User is an object type"),
    };
    assert!(user_fields > 12, "User has {user_fields} fields");
    let from = user.split_once(" -> ").unwrap().0;
    let results = v["results"].as_array().unwrap();
    assert!(
        folded_into(results, from, 10),
        "{from} is not folded into a top result: {results:?}"
    );
}

/// Through a connection, what a hit returns and a link say how to reach the nodes:
/// `Query.projects > ProjectConnection.nodes -> Project: …` and `Project.issues(…) >
/// IssueConnection.nodes -> Issue`.
#[test]
fn return_and_link_lines_say_how_to_pass_a_connection() {
    let (_, v) = projects_with_leads();
    let returns = returns_of(&v);
    assert!(
        returns
            .iter()
            .any(|r| r.starts_with("Query.projects > ProjectConnection.nodes -> Project: ")),
        "{returns:?}"
    );
    let links = links_of(&v);
    let issues = links
        .iter()
        .find(|l| l.starts_with("Project.issues("))
        .unwrap_or_else(|| panic!("no Project.issues link: {links:?}"));
    assert!(
        issues.ends_with(") > IssueConnection.nodes -> Issue"),
        "{issues}"
    );
    // A field returning the type itself has no hop.
    assert!(
        links
            .iter()
            .any(|l| l.starts_with("ProjectMilestone.project -> Project")),
        "{links:?}"
    );
}

/// A full page whose folded positions used up every ranked position it read still knows a
/// next page exists: it ranks deeper instead of ending the list. "open pull requests of a
/// repository" at limit 5 folds the ranked positions past its five results up to the end
/// of the first window (measured: no next cursor before the fix, once the ranker's
/// completions put the top hits' paths among them).
#[test]
fn a_full_page_that_folded_to_the_end_of_its_window_has_a_next_page() {
    let tools = common::toolbox("github");
    let mut req = SearchRequest::new("open pull requests of a repository");
    req.limit = 5;
    let out = tools.search_schema(&req);
    assert!(!out.is_error, "{}", out.text);
    let v = out.structured.expect("structured");
    let first: Vec<String> = result_coordinates(&v);
    assert_eq!(first.len(), 5, "{}", out.text);
    let cursor = v["nextCursor"]
        .as_str()
        .unwrap_or_else(|| panic!("a next page: {}", out.text))
        .to_string();
    req.cursor = Some(cursor);
    let out2 = tools.search_schema(&req);
    assert!(!out2.is_error, "{}", out2.text);
    let second = result_coordinates(&out2.structured.expect("structured"));
    assert!(!second.is_empty(), "{}", out2.text);
    assert!(
        second.iter().all(|c| !first.contains(c)),
        "{first:?} / {second:?}"
    );
}

/// A supergraph's `service` filter keeps the coordinates one service resolves
/// (`@join__field`, else the type's `@join__type`); an unknown service, and a schema
/// that is no supergraph, are refused with the choices.
#[test]
fn a_supergraph_search_filters_by_service() {
    let sdl = common::repo_file("crates/tools/tests/fixtures/supergraph.graphql");
    let graph = std::sync::Arc::new(gqlnav_schema::load_sdl_str(&sdl, "supergraph").unwrap());
    let tools =
        gqlnav_tools::Toolbox::build(graph, None, gqlnav_tools::ToolsConfig::default()).unwrap();
    let ask = |service: Option<&str>| {
        let mut req = SearchRequest::new("reviews of a product and their rating");
        req.limit = 20;
        req.service = service.map(str::to_string);
        tools.search_schema(&req)
    };
    let coords = |out: &gqlnav_tools::ToolOutput| {
        result_coordinates(out.structured.as_ref().unwrap_or(&serde_json::Value::Null))
    };
    let all = coords(&ask(None));
    assert!(all.iter().any(|c| c == "Query.topProducts"), "{all:?}");
    let reviews = coords(&ask(Some("reviews")));
    assert!(!reviews.is_empty());
    assert!(
        reviews.iter().any(|c| c.starts_with("Review.")),
        "{reviews:?}"
    );
    for c in &reviews {
        assert!(
            ![
                "Product.name",
                "Product.price",
                "Product.inStock",
                "Query.product"
            ]
            .contains(&c.as_str()),
            "{c} is not resolved by reviews: {reviews:?}"
        );
    }
    let inventory = coords(&ask(Some("INVENTORY")));
    assert!(
        inventory.iter().all(|c| c.starts_with("Product.")),
        "{inventory:?}"
    );
    let bad = ask(Some("billing"));
    assert!(bad.is_error);
    assert!(
        bad.text.contains("accounts, inventory, products, reviews"),
        "{}",
        bad.text
    );
    let mut plain = SearchRequest::new("open issues");
    plain.service = Some("reviews".into());
    let out = common::toolbox("singapore").search_schema(&plain);
    assert!(
        out.is_error && out.text.contains("no services"),
        "{}",
        out.text
    );
}
