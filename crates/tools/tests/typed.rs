//! Typed tools over real schemas: every offered field path writes an operation that
//! validates, the action schema refers only to what it defines, and a call's mistakes
//! (empty values, a path needing an argument it lacks, an unknown path) are handled as
//! the agent needs them.

mod common;

use gqlnav_tools::{OperationRequest, TypedCall, TypedOptions, TypedToolSet};
use serde_json::{json, Map, Value};

const QUESTIONS: [(&str, &str); 6] = [
    (
        "github",
        "How many stars and forks does the repository octocat/hello-world have?",
    ),
    (
        "github",
        "List the open pull requests of octocat/hello-world with their authors",
    ),
    (
        "linear",
        "Which issues are assigned to me, with their state and priority?",
    ),
    (
        "linear",
        "List the projects of the team ENG with their lead",
    ),
    (
        "singapore",
        "Which schools are in the north zone and what are their addresses?",
    ),
    ("singapore", "Show the bus stops on a road with their codes"),
];

/// A value of a GraphQL input type name good enough to validate (`Err`: none simple).
fn sample(ty: &str, set: &TypedToolSet) -> Option<Value> {
    let named = ty
        .trim_end_matches('!')
        .trim_start_matches('[')
        .trim_end_matches(['!', ']']);
    let v = match named {
        "String" | "ID" => json!("x"),
        "Int" => json!(1),
        "Float" => json!(1.5),
        "Boolean" => json!(true),
        other => match set.defs.get(other) {
            Some(d) => d["enum"].as_array()?.first()?.clone(),
            None => json!("x"),
        },
    };
    Some(if ty.starts_with('[') { json!([v]) } else { v })
}

/// Each tool's required root arguments, filled (of a root lookup's alternatives, the
/// first).
fn required(set: &TypedToolSet, tool: &str) -> Option<Map<String, Value>> {
    let t = set.get(tool)?;
    let mut out = Map::new();
    for a in t.args.iter().filter(|a| a.required && a.at.is_empty()) {
        out.insert(a.key.clone(), sample(&a.ty, set)?);
    }
    if let Some(a) = t.args.iter().find(|a| a.alternative && a.at.is_empty()) {
        out.insert(a.key.clone(), sample(&a.ty, set)?);
    }
    Some(out)
}

#[test]
fn every_offered_path_writes_an_operation_that_validates() {
    let mut written = 0;
    for (id, q) in QUESTIONS {
        let tb = common::toolbox(id);
        let set = tb
            .typed_tools(q, &TypedOptions::default())
            .expect("typed tools");
        assert!(!set.tools.is_empty(), "{id}: {q}");
        let schema = &tb.generation().graph.schema;
        for t in &set.tools {
            let Some(args) = required(&set, &t.name) else {
                continue;
            };
            for p in &t.paths {
                let call = TypedCall {
                    tool: t.name.clone(),
                    arguments: args.clone(),
                    fields: vec![p.clone()],
                };
                let w = match set.write(schema, &call) {
                    Ok(w) => w,
                    // A path through a field with a required argument of its own.
                    Err(e) => {
                        assert!(e.to_string().contains("needs"), "{id} {} {p}: {e}", t.name);
                        continue;
                    }
                };
                let out = tb.validate(&OperationRequest {
                    operation: w.operation.clone(),
                    variables: Some(Value::Object(w.variables.clone())),
                    operation_name: None,
                });
                assert!(
                    !out.is_error,
                    "{id} {} {p}:\n{}\n{}",
                    t.name, w.operation, out.text
                );
                written += 1;
            }
        }
    }
    assert!(written >= 60, "only {written} paths written");
}

#[test]
fn the_action_schema_defines_what_it_refers_to_and_bounds_the_fields() {
    let tb = common::toolbox("github");
    let set = tb
        .typed_tools(QUESTIONS[1].1, &TypedOptions::default())
        .expect("typed tools");
    let action = set.action_schema(Some(&json!({"type": "object"})), true);
    let text = action.to_string();
    for r in text.split("\"$ref\":\"#/$defs/").skip(1) {
        let name = r.split('"').next().unwrap_or_default();
        assert!(action["$defs"].get(name).is_some(), "undefined $ref {name}");
    }
    let branches = action["anyOf"].as_array().expect("anyOf");
    assert_eq!(branches[0]["properties"]["action"]["const"], "answer");
    assert_eq!(branches.len(), set.tools.len() + 1);
    for (b, t) in branches[1..].iter().zip(&set.tools) {
        assert_eq!(b["properties"]["action"]["const"], t.name.as_str());
        let fields = &b["properties"]["fields"];
        assert_eq!(
            fields["items"]["enum"].as_array().map(Vec::len),
            Some(t.paths.len())
        );
        assert!(fields["maxItems"].as_u64().is_some_and(|n| n <= 8));
    }
    // Without the answer, no answer branch; without tools, only it.
    let tools_only = set.action_schema(None, true);
    assert_eq!(
        tools_only["anyOf"].as_array().map(Vec::len),
        Some(set.tools.len())
    );
    let answer_only = set.action_schema(Some(&json!({"type": "integer"})), false);
    assert_eq!(answer_only["anyOf"].as_array().map(Vec::len), Some(1));
}

#[test]
fn empty_values_are_not_given_and_paths_that_need_more_are_left_out_while_one_remains() {
    let tb = common::toolbox("github");
    let set = tb
        .typed_tools(QUESTIONS[0].1, &TypedOptions::default())
        .expect("typed tools");
    let schema = &tb.generation().graph.schema;
    let t = set.get("repository").expect("a repository tool");
    // A required argument sent as "" is missing.
    let mut args = required(&set, "repository").expect("args");
    let (k, _) = args
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .expect("one");
    let mut empty = args.clone();
    empty.insert(k.clone(), json!(""));
    let call = TypedCall {
        tool: t.name.clone(),
        arguments: empty,
        fields: vec![t.paths[0].clone()],
    };
    let e = set.write(schema, &call).expect_err("missing");
    assert!(e.to_string().contains(&k), "{e}");
    // An optional argument sent as "" or [] is left out of the operation.
    if let Some(opt) = t.args.iter().find(|a| !a.required && a.at.is_empty()) {
        args.insert(opt.key.clone(), json!(""));
        let call = TypedCall {
            tool: t.name.clone(),
            arguments: args.clone(),
            fields: vec![t.paths[0].clone()],
        };
        let w = set.write(schema, &call).expect("written");
        assert!(!w.variables.contains_key(&opt.key), "{:?}", w.variables);
        args.remove(&opt.key);
    }
    // A path through a field with its own required argument, next to a plain one.
    let needy = t.paths.iter().find(|p| {
        set.write(
            schema,
            &TypedCall {
                tool: t.name.clone(),
                arguments: args.clone(),
                fields: vec![(*p).clone()],
            },
        )
        .is_err()
    });
    if let Some(needy) = needy {
        let plain = t
            .paths
            .iter()
            .find(|p| {
                *p != needy
                    && set
                        .write(
                            schema,
                            &TypedCall {
                                tool: t.name.clone(),
                                arguments: args.clone(),
                                fields: vec![(*p).clone()],
                            },
                        )
                        .is_ok()
            })
            .expect("a plain path");
        let call = TypedCall {
            tool: t.name.clone(),
            arguments: args.clone(),
            fields: vec![needy.clone(), plain.clone(), plain.clone()],
        };
        let w = set.write(schema, &call).expect("the plain path still runs");
        assert_eq!(w.skipped.len(), 1, "{:?}", w.skipped);
        assert!(w.skipped[0].contains("needs"), "{:?}", w.skipped);
    }
    // A path the tool does not offer and the schema does not have.
    let call = TypedCall {
        tool: t.name.clone(),
        arguments: args,
        fields: vec!["nope.nothing".into()],
    };
    assert!(set.write(schema, &call).is_err());
}

/// The GraphQL input type an argument takes, when it is an input object.
fn input_object<'a>(
    schema: &'a gqlnav_schema::apollo_compiler::Schema,
    ty: &str,
) -> Option<&'a gqlnav_schema::apollo_compiler::schema::InputObjectType> {
    let named = ty.trim_matches(|c| c == '[' || c == ']' || c == '!');
    match schema.types.get(named) {
        Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::InputObject(o)) => Some(o),
        _ => None,
    }
}

#[test]
fn optional_arguments_are_offered_only_as_the_question_says_them() {
    let tb = common::toolbox("github");
    let schema = &tb.generation().graph.schema;
    let q = "How many total comments did each merged pull request in the octocat/example repository receive?";
    let set = tb
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    let args: Vec<_> = set.tools.iter().flat_map(|t| &t.args).collect();
    // The question names one state of a pull request: that value alone is offered.
    let states: Vec<_> = args.iter().filter(|a| a.name == "states").collect();
    assert!(!states.is_empty(), "{args:?}");
    for a in states {
        assert_eq!(a.schema["items"]["enum"], json!(["MERGED"]), "{a:?}");
    }
    for a in args.iter().filter(|a| !a.required) {
        // gqlnav writes the page size; no cursor; no filter unless asked for.
        assert!(
            !["first", "last", "after", "before"].contains(&a.name.as_str()),
            "{a:?}"
        );
        assert!(input_object(schema, &a.ty).is_none(), "{a:?}");
    }
    // The tool text shows the values the grammar allows, not the enum's others.
    let text = set.describe();
    assert!(
        text.contains("(MERGED)") && !text.contains("CLOSED|"),
        "{text}"
    );
}

#[test]
fn offered_filters_hold_the_fields_the_question_says_and_never_nest_themselves() {
    let tb = common::toolbox("linear");
    let schema = &tb.generation().graph.schema;
    let q = "Which issues are assigned to me, with their state and priority?";
    let opts = TypedOptions {
        filters: true,
        ..TypedOptions::default()
    };
    let set = tb.typed_tools(q, &opts).expect("typed tools");
    let filters: Vec<_> = set
        .tools
        .iter()
        .flat_map(|t| &t.args)
        .filter(|a| !a.required && input_object(schema, &a.ty).is_some())
        .collect();
    assert!(!filters.is_empty(), "no filter offered for {q:?}");
    for a in filters {
        let io = input_object(schema, &a.ty).expect("input object");
        let named = a.ty.trim_matches(|c| c == '[' || c == ']' || c == '!');
        let props = set.defs[named]["properties"]
            .as_object()
            .expect("properties");
        assert!(!props.is_empty(), "{named}");
        assert!(props.len() < io.fields.len(), "{named} not narrowed");
        for (k, _) in props {
            let f = &io.fields[k.as_str()];
            assert_ne!(f.ty.inner_named_type().as_str(), named, "{named}.{k}");
        }
    }
    // Off (the default), the same question gets no filter.
    let plain = tb
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    assert!(plain
        .tools
        .iter()
        .flat_map(|t| &t.args)
        .all(|a| a.required || input_object(schema, &a.ty).is_none()));
}

#[test]
fn the_answer_schema_puts_a_list_tool_first_and_completes_a_call_with_its_keys() {
    let tb = common::toolbox("linear");
    let q = "Which users have not logged in for more than 90 days? List their email addresses and last-seen timestamps.";
    let answer = json!({"type": "object", "properties": {"inactiveUsers": {"type": "array", "items": {"type": "object", "properties": {"email": {"type": "string"}, "lastSeen": {"type": "string"}}}}}});
    let mut set = tb
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    assert!(set.tools.len() > 1);
    let before: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
    set.fit_answer(&answer);
    let after: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
    let mut sorted = before.clone();
    sorted.sort();
    let mut again = after.clone();
    again.sort();
    assert_eq!(sorted, again, "the same tools, reordered");
    let first = &set.tools[0];
    assert!(first.many, "a list of users first: {after:?}");
    // A call that chose none of the answer's fields is completed with a path that
    // selects them, one list down.
    let added = set.answer_paths(&first.name, &answer, &[]);
    assert!(!added.is_empty(), "{:?}", first.paths);
    let selects_email = added.iter().any(|p| {
        p.contains("[]")
            && first
                .selects
                .get(p)
                .is_some_and(|l| l.iter().any(|x| x == "email"))
    });
    assert!(selects_email, "{added:?}");
    // A call that already reads them gets nothing more.
    assert!(set.answer_paths(&first.name, &answer, &added).is_empty());
    // No keys to fit: the order stays.
    let mut plain = tb
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    plain.fit_answer(&json!({"type": "integer"}));
    let kept: Vec<String> = plain.tools.iter().map(|t| t.name.clone()).collect();
    assert_eq!(kept, before);
}

/// The paths and leaves of `tool` in a set.
fn selects(set: &TypedToolSet, tool: &str, path: &str) -> Option<Vec<String>> {
    set.get(tool)?.selects.get(path).cloned()
}

/// The leaves `tool`'s object path `path` selects without and with the answer schema.
type Selects = Option<Vec<String>>;
fn without_and_with(
    tb: &gqlnav_tools::Toolbox,
    q: &str,
    answer: &Value,
    tool: &str,
    path: &str,
) -> (Selects, Selects, TypedToolSet) {
    let opts = TypedOptions::default();
    let plain = tb.typed_tools(q, &opts).expect("typed tools");
    let shaped = tb
        .typed_tools_for(q, &opts, Some(answer))
        .expect("typed tools");
    (
        selects(&plain, tool, path),
        selects(&shaped, tool, path),
        shaped,
    )
}

#[test]
fn the_answer_schema_shapes_the_paths_its_keys_name() {
    let linear = common::toolbox("linear");
    let opts = TypedOptions::default();
    // A leaf key (`priority`) is selected by the object path that holds it.
    let q = "What issues are currently assigned to me?";
    let answer = json!({"type": "object", "properties": {"assignedIssues": {"type": "array", "items": {"type": "object", "properties": {
        "identifier": {"type": "string"}, "title": {"type": "string"}, "priority": {"type": "number"}}}}}});
    let (before, after, _) =
        without_and_with(&linear, q, &answer, "viewer", "assignedIssues.nodes[]");
    let before = before.expect("the viewer's issues are offered");
    assert!(!before.iter().any(|l| l == "priority"), "{before:?}");
    let after = after.expect("still offered");
    assert!(after.iter().any(|l| l == "priority"), "{after:?}");
    assert!(after.len() <= opts.leaves);

    // A key holding objects (`attachments`) offers the field it names.
    let q = "What files or links are attached to issue ENG-321?";
    let answer = json!({"type": "object", "properties": {"attachments": {"type": "array", "items": {"type": "object", "properties": {
        "title": {"type": "string"}, "url": {"type": "string"}}}}}});
    let (before, after, _) = without_and_with(&linear, q, &answer, "issue", "attachments.nodes[]");
    assert!(before.is_none());
    let leaves = after.expect("the issue's attachments");
    assert_eq!(leaves[..2], ["title".to_string(), "url".to_string()]);

    // A leaf key that reads through an object (`authorLogin`) offers that object.
    let github = common::toolbox("github");
    let q = "List merged pull requests in the octocat/example repository with each author";
    let answer = json!({"type": "object", "properties": {"mergedPullRequests": {"type": "array", "items": {"type": "object", "properties": {
        "authorLogin": {"type": "string"}, "mergedAt": {"type": "string"}}}}}});
    let p = "pullRequests.nodes[].author";
    let (before, after, shaped) = without_and_with(&github, q, &answer, "repository", p);
    assert!(before.is_none());
    let author = after.expect("the pull requests' authors");
    assert_eq!(author.first().map(String::as_str), Some("login"));
    // Every path the answer added writes an operation that validates.
    let schema = &github.generation().graph.schema;
    let call = TypedCall {
        tool: "repository".into(),
        arguments: required(&shaped, "repository").expect("sample arguments"),
        fields: vec![p.into(), "pullRequests.nodes[]".into()],
    };
    let w = shaped.write(schema, &call).expect("writes");
    let out = github.validate(&OperationRequest {
        operation: w.operation.clone(),
        variables: Some(Value::Object(w.variables)),
        operation_name: None,
    });
    assert!(!out.is_error, "{}\n{}", w.operation, out.text);
}

#[test]
fn a_composed_identifier_copied_into_both_parts_is_split() {
    let github = common::toolbox("github");
    let q = "How many stars does the octocat/example repository have?";
    let set = github
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    let schema = &github.generation().graph.schema;
    let call = |owner: &str, name: &str| TypedCall {
        tool: "repository".into(),
        arguments: json!({"owner": owner, "name": name})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        fields: vec![set.get("repository").expect("repository tool").paths[0].clone()],
    };
    let vars = |w: &gqlnav_tools::Written| {
        let mut v: Vec<String> = w
            .variables
            .values()
            .filter_map(|x| x.as_str().map(String::from))
            .collect();
        v.sort();
        v
    };
    let w = set
        .write(schema, &call("octocat", "octocat/example"))
        .expect("writes");
    assert_eq!(vars(&w), ["example", "octocat"], "{}", w.operation);
    assert_eq!(w.adjusted.len(), 1, "{:?}", w.adjusted);
    assert!(w.adjusted[0].contains("\"example\""), "{:?}", w.adjusted);
    // The owner written whole is read as its first part.
    let w = set
        .write(schema, &call("octocat/example", "example"))
        .expect("writes");
    assert_eq!(vars(&w), ["example", "octocat"]);
    // Values that are not composed of each other stay as given.
    let w = set
        .write(schema, &call("octocat", "example"))
        .expect("writes");
    assert!(w.adjusted.is_empty());
    let w = set
        .write(schema, &call("octo", "octocat-tools"))
        .expect("writes");
    assert_eq!(vars(&w), ["octo", "octocat-tools"]);
}

#[test]
fn the_menu_says_which_tools_have_what_the_answer_lists() {
    let linear = common::toolbox("linear");
    let q = "What issues are currently assigned to me?";
    let answer = json!({"type": "object", "properties": {"assignedIssues": {"type": "array", "items": {"type": "object", "properties": {
        "identifier": {"type": "string"}, "title": {"type": "string"}}}}}});
    let set = linear
        .typed_tools_for(q, &TypedOptions::default(), Some(&answer))
        .expect("typed tools");
    let menu = set.menu_for(Some(&answer));
    let line = |tool: &str| {
        menu.lines()
            .find(|l| l.starts_with(&format!("- {tool}: ")))
            .unwrap_or_else(|| panic!("no {tool} in\n{menu}"))
            .to_string()
    };
    assert!(line("viewer").contains("has assignedIssues"), "{menu}");
    // The users' assigned issues are a list down more than the answer's: not said.
    for l in menu.lines().filter(|l| !l.starts_with("- viewer: ")) {
        assert!(!l.contains("assignedIssues"), "{l}");
    }
    assert!(!set.menu().contains("; has "), "no answer, nothing to say");
}

#[test]
fn a_lookups_arguments_are_alternatives_the_grammar_takes_one_of() {
    let github = common::toolbox("github");
    let q =
        "For the HEAD commit of the octocat/example repository, list each check suite's conclusion";
    let set = github
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    let t = set.get("repository").expect("repository tool");
    // `Repository.object(expression:, oid:)` finds one object and needs neither: the
    // question names it by a value ("HEAD") and never says `expression`.
    let alternatives: Vec<&str> = t
        .args
        .iter()
        .filter(|a| a.alternative)
        .map(|a| a.key.as_str())
        .collect();
    assert!(
        alternatives.contains(&"object.expression") && alternatives.contains(&"object.oid"),
        "{alternatives:?}"
    );
    // The call prompt says what value each alternative takes (its description), and
    // nothing more for the arguments that are not alternatives.
    let text = set.describe();
    assert!(
        text.contains(
            "object.expression: String (A Git revision expression suitable for rev-parse)"
        ),
        "{text}"
    );
    assert!(
        text.contains("owner: String! (required);") || text.contains("owner: String! (required)\n"),
        "{text}"
    );
    // Each branch of the grammar holds at most one of them; one holds neither (the call
    // may not read `object`); the owner and name stay required in every branch.
    let schema = set.arguments_schema(t);
    let branches = schema["anyOf"].as_array().expect("branches");
    let held = |b: &Value| {
        alternatives
            .iter()
            .filter(|k| b["properties"].get(**k).is_some())
            .count()
    };
    assert!(branches.iter().all(|b| held(b) <= 1), "{schema}");
    assert!(branches.iter().any(|b| held(b) == 0), "{schema}");
    assert!(branches.iter().all(|b| {
        let r = b["required"].to_string();
        r.contains("\"owner\"") && r.contains("\"name\"")
    }));
    // Written: one alternative goes on its field; two are refused with what to do.
    let path = t
        .paths
        .iter()
        .find(|p| p.starts_with("object<Commit>"))
        .expect("a path through object")
        .clone();
    let call = |args: Value| TypedCall {
        tool: "repository".into(),
        arguments: args.as_object().cloned().unwrap_or_default(),
        fields: vec![path.clone()],
    };
    let schema = &github.generation().graph.schema;
    let w = set
        .write(
            schema,
            &call(json!({"owner": "octocat", "name": "example", "object.expression": "HEAD"})),
        )
        .expect("writes");
    assert!(
        w.operation.contains("object(expression: $"),
        "{}",
        w.operation
    );
    let out = github.validate(&OperationRequest {
        operation: w.operation.clone(),
        variables: Some(Value::Object(w.variables.clone())),
        operation_name: None,
    });
    assert!(!out.is_error, "{}\n{}", w.operation, out.text);
    let err = set
        .write(
            schema,
            &call(json!({"owner": "octocat", "name": "example",
                "object.expression": "HEAD", "object.oid": "HEAD"})),
        )
        .expect_err("two alternatives");
    let msg = err.to_string();
    assert!(
        msg.contains("object.expression") && msg.contains("exactly one"),
        "{msg}"
    );
}

#[test]
fn a_root_lookup_takes_exactly_one_of_its_arguments_and_the_menu_says_which() {
    let sdl = common::repo_file("benchmarks/heldout/schemas/nautical/schema.graphql");
    let tb = sdl_toolbox(&sdl, "nautical");
    let q = "Which company runs the seller store \"acme-outfitters\", and when was it created?";
    let set = tb
        .typed_tools(q, &TypedOptions::default())
        .expect("typed tools");
    let t = set.get("seller").expect("seller tool");
    let root: Vec<&str> = t
        .args
        .iter()
        .filter(|a| a.alternative && a.at.is_empty())
        .map(|a| a.key.as_str())
        .collect();
    assert!(root.contains(&"slug") && root.contains(&"id"), "{root:?}");
    // Every branch requires one alternative and holds no other.
    let schema = set.arguments_schema(t);
    for b in schema["anyOf"].as_array().expect("branches") {
        let held: Vec<&&str> = root
            .iter()
            .filter(|k| b["properties"].get(**k).is_some())
            .collect();
        assert_eq!(held.len(), 1, "{b}");
        assert!(
            b["required"]
                .to_string()
                .contains(&format!("\"{}\"", held[0])),
            "{b}"
        );
    }
    let menu = set.menu();
    let line = menu
        .lines()
        .find(|l| l.starts_with("- seller: "))
        .unwrap_or_else(|| panic!("no seller in\n{menu}"));
    assert!(line.contains(" or slug"), "{line}");
    // None given: the writer says what to give.
    let call = TypedCall {
        tool: "seller".into(),
        arguments: Map::new(),
        fields: t.paths.first().cloned().into_iter().collect(),
    };
    let err = set
        .write(&tb.generation().graph.schema, &call)
        .expect_err("no alternative");
    assert!(err.to_string().contains("exactly one"), "{err}");
}

/// A toolbox over an SDL text, no upstream.
fn sdl_toolbox(sdl: &str, name: &str) -> gqlnav_tools::Toolbox {
    let graph = gqlnav_schema::load_sdl_str(sdl, name).expect("the SDL loads");
    gqlnav_tools::Toolbox::build(
        std::sync::Arc::new(graph),
        None,
        gqlnav_tools::ToolsConfig::default(),
    )
    .expect("toolbox")
}

fn set_for(tb: &gqlnav_tools::Toolbox, q: &str) -> TypedToolSet {
    tb.typed_tools(q, &TypedOptions::default())
        .expect("typed tools")
}

#[test]
fn the_search_page_leads_with_an_example_operation_that_validates() {
    let mut shown = 0;
    for (id, q) in QUESTIONS {
        let tb = common::toolbox(id);
        let out = tb.search_schema(&gqlnav_tools::SearchRequest::new(q));
        assert!(!out.is_error, "{id}: {}", out.text);
        let structured = out.structured.expect("structured");
        let Some(op) = structured["example"].as_str() else {
            continue;
        };
        assert!(
            out.text.starts_with("Reads the top hits") && out.text.contains(op),
            "{id}: {}",
            out.text
        );
        assert!(!op.contains('\n'), "one line: {op}");
        // Its variables, filled as a client would (`$login: String!` → "x").
        let header = op.split_once('{').map_or("", |(h, _)| h);
        let mut vars = Map::new();
        for part in header.split('$').skip(1) {
            let (name, ty) = part.split_once(':').unwrap_or((part, ""));
            let ty = ty.trim().trim_end_matches([',', ')', ' ']);
            vars.insert(
                name.trim().to_string(),
                sample(ty, &set_for(&tb, q)).unwrap_or(json!("x")),
            );
        }
        let v = tb.validate(&OperationRequest {
            operation: op.to_string(),
            variables: Some(Value::Object(vars)),
            operation_name: None,
        });
        assert!(!v.is_error, "{id} {q}:\n{op}\n{}", v.text);
        shown += 1;
    }
    assert!(shown >= 4, "only {shown} pages had an example");
}

#[test]
fn a_tasks_example_reads_what_its_answer_holds_and_validates() {
    let tb = common::toolbox("github");
    let q = "How many stars and forks does the repository octocat/hello-world have?";
    let answer = json!({"type": "object", "properties": {
        "stargazerCount": {"type": "integer"}, "forkCount": {"type": "integer"}}});
    let set = tb
        .typed_tools_for(q, &TypedOptions::default(), Some(&answer))
        .expect("typed tools");
    let schema = &tb.generation().graph.schema;
    let op = set
        .example_for(schema, Some(q), Some(&answer))
        .expect("an example");
    // The tool the question names before its value, reading both answer keys.
    assert!(op.contains("repository("), "{op}");
    for leaf in ["stargazerCount", "forkCount"] {
        assert!(op.contains(leaf), "{leaf} in {op}");
    }
    let v = tb.validate(&OperationRequest {
        operation: op.clone(),
        variables: Some(json!({"owner": "octocat", "name": "hello-world"})),
        operation_name: None,
    });
    assert!(!v.is_error, "{op}\n{}", v.text);
    // Without a task it is the first tool's first path, as the search page shows it.
    assert_eq!(set.example_for(schema, None, None), set.example(schema));
}

/// A schema in GitLab's manner: global IDs as custom scalars whose descriptions give the
/// form of every value, a path argument whose own description gives an example.
const GLOBAL_IDS: &str = r#"
"""
A `IssueID` is a global ID. It is encoded as a string.

An example `IssueID` is: `"gid://gitlab/Issue/1"`.
"""
scalar IssueID

type Query {
  "Find a project."
  project("Full path of the project. For example, `gitlab-org/gitlab-foss`." fullPath: ID!): Project
  "Find an issue."
  issue("Global ID of the issue." id: IssueID!): Issue
}
type Project { name: String issues(state: IssueState, first: Int): IssueConnection }
enum IssueState { opened closed }
type IssueConnection { nodes: [Issue] }
type Issue { iid: String title: String }
"#;

#[test]
fn the_menu_leaves_out_a_lookup_whose_value_form_the_question_does_not_have() {
    let tb = sdl_toolbox(GLOBAL_IDS, "ids");
    let menu = |q: &str| -> Vec<String> {
        let set = set_for(&tb, q);
        let names: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
        assert!(
            names.contains(&"issue".to_string()) && names.contains(&"project".to_string()),
            "{q}: both are tools, {names:?}"
        );
        set.menu_tools(q).iter().map(|t| t.name.clone()).collect()
    };
    let issue = set_for(&tb, "the issue title").get("issue").unwrap().args[0].clone();
    assert_eq!(
        issue.format,
        ["gid://gitlab/Issue/1"],
        "the scalar's example"
    );
    assert!(
        issue.examples.is_empty(),
        "the argument's own description gives none"
    );
    assert_eq!(
        menu("List the open issues labelled \"bug\" in the acme/web-app project with their titles"),
        ["project"],
        "no value of the question has the form of an issue's global ID"
    );
    assert!(
        menu("What is the title of issue gid://gitlab/Issue/77?").contains(&"issue".into()),
        "a value of that form"
    );
    assert!(
        menu("What is the title of issue 77 in acme/web-app?").contains(&"issue".into()),
        "a number, the global ID's last part"
    );
    let all = menu("Which issue titles mention a crash?");
    assert!(
        all.contains(&"project".into()) && !all.contains(&"issue".into()),
        "no value at all: {all:?}"
    );
    assert!(
        menu("the acme group's issue titles").contains(&"project".into()),
        "a path argument's own example does not narrow: {:?}",
        menu("the acme group's issue titles")
    );
}

/// GitLab's manner: an argument whose description says it needs another of its field.
const PAIRED: &str = r#"
type Query {
  "Find a project."
  project("Full path of the project." fullPath: ID!): Project
}
type Project {
  name: String
  issues(
    "Search query for title or description."
    search: String
    "Specify the fields to perform the search in.\nDefaults to `[TITLE, DESCRIPTION]`. Requires the `search` argument."
    in: [IssuableSearchableField!]
    state: IssueState
    first: Int
  ): IssueConnection
}
enum IssuableSearchableField { TITLE DESCRIPTION }
enum IssueState { opened closed }
type IssueConnection { nodes: [Issue] }
type Issue { iid: String title: String }
"#;

#[test]
fn an_argument_whose_description_requires_another_is_left_out_without_it() {
    let tb = sdl_toolbox(PAIRED, "paired");
    let offered = |q: &str| -> Vec<String> {
        let set = set_for(&tb, q);
        let keys = set
            .get("project")
            .expect("the project tool")
            .args
            .iter()
            .map(|a| a.key.clone())
            .collect();
        keys
    };
    assert!(
        !offered("List the open issues of acme/web-app with their numbers and titles")
            .contains(&"issues.in".to_string()),
        "`in` is not offered without `search`"
    );
    let q = "Search the open issues of the acme/web-app project for crash in their titles";
    let set = set_for(&tb, q);
    let project = set.get("project").expect("the project tool");
    let arg = project
        .args
        .iter()
        .find(|a| a.key == "issues.in")
        .expect("`in` is offered");
    assert_eq!(arg.requires, ["search"], "read from its description");
    assert!(
        project
            .args
            .iter()
            .filter(|a| a.key != "issues.in")
            .all(|a| a.requires.is_empty()),
        "`Defaults to` names no argument"
    );
    let schema = &tb.generation().graph.schema;
    let call = |args: Value| TypedCall {
        tool: "project".into(),
        arguments: args.as_object().cloned().unwrap_or_default(),
        fields: vec!["issues.nodes[].title".into()],
    };
    let alone = set
        .write(
            schema,
            &call(json!({"fullPath": "acme/web-app", "issues.in": ["TITLE"], "issues.state": "opened"})),
        )
        .expect("writes");
    assert!(!alone.operation.contains("in:"), "{}", alone.operation);
    assert!(alone.operation.contains("state:"), "{}", alone.operation);
    assert!(
        alone
            .adjusted
            .iter()
            .any(|a| a.contains("`issues.in` left out") && a.contains("`issues.search`")),
        "{:?}",
        alone.adjusted
    );
    let paired = set
        .write(
            schema,
            &call(json!({"fullPath": "acme/web-app", "issues.in": ["TITLE"], "issues.search": "crash"})),
        )
        .expect("writes");
    assert!(
        paired.operation.contains("in:") && paired.adjusted.is_empty(),
        "{} {:?}",
        paired.operation,
        paired.adjusted
    );
}
