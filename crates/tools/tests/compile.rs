//! Compiled tools over real schemas: every default operation of every root field of the
//! five WG schemas validates; JSON-Schema shapes, refs, strict mode, mutations, field
//! paths and bad input.

mod common;

use apollo_compiler::executable::ExecutableDocument;
use gqlnav_tools::{
    compile, CompileError, CompileOptions, MutationAllow, NullableMode, OperationSchema, RefMode,
    ToolFormat,
};
use serde_json::{json, Map, Value};

fn all_roots() -> CompileOptions {
    CompileOptions {
        allow_mutations: MutationAllow::All,
        include_deprecated: true,
        max_tools: usize::MAX,
        ..CompileOptions::default()
    }
}

fn select(names: &[&str]) -> CompileOptions {
    CompileOptions {
        select: Some(names.iter().map(|s| s.to_string()).collect()),
        ..CompileOptions::default()
    }
}

/// Every `$ref` in `v` names a key of `defs`.
fn assert_refs_resolve(v: &Value, defs: &Map<String, Value>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let name = r.strip_prefix("#/$defs/").expect("local $defs ref");
                assert!(defs.contains_key(name), "dangling ref {r}");
            }
            m.values().for_each(|x| assert_refs_resolve(x, defs));
        }
        Value::Array(a) => a.iter().for_each(|x| assert_refs_resolve(x, defs)),
        _ => {}
    }
}

fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

#[test]
fn every_default_operation_of_every_root_field_validates_on_the_five_wg_schemas() {
    let mut checked = 0;
    for id in ["github", "linear", "singapore", "gitlab", "shopify"] {
        let Some(g) = common::wg_schema(id) else {
            continue;
        };
        let set = compile(&g, &all_roots()).unwrap();
        let ops = OperationSchema::from_graph(&g);
        assert!(!ops.is_partial(), "{id}: the WG schema itself validates");
        let mutations = g
            .root(gqlnav_schema::RootKind::Mutation)
            .and_then(|m| g.schema.get_object(m))
            .map_or(0, |o| o.fields.len());
        assert_eq!(
            set.tools.len(),
            set.query_fields + mutations,
            "{id}: one tool per root field"
        );
        assert!(set.skipped.is_empty(), "{id}: {:?}", set.skipped);
        let bad = set.validate(&ops.schema);
        assert!(
            bad.is_empty(),
            "{id}: {} invalid, first: {:?}",
            bad.len(),
            bad.first()
        );
        for t in &set.tools {
            assert!(
                t.selected_fields <= set.limits.max_total + set.limits.max_members + 8,
                "{id} {}: {} fields",
                t.name,
                t.selected_fields
            );
            assert_refs_resolve(
                &set.standalone_schema(t)["properties"],
                set.standalone_schema(t)["$defs"]
                    .as_object()
                    .unwrap_or(&Map::new()),
            );
        }
        checked += 1;
    }
    assert!(checked >= 3, "the three bundled schemas are always checked");
}

#[test]
fn arguments_map_to_json_schema_with_required_defaults_and_shared_defs() {
    let g = common::bundled("github");
    let set = compile(&g, &select(&["repository", "search", "organization"])).unwrap();
    let repo = set.get("repository").unwrap();
    let s = &repo.input_schema;
    assert_eq!(s["type"], "object");
    assert_eq!(s["additionalProperties"], false);
    let mut req: Vec<&str> = s["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    req.sort();
    assert_eq!(req, ["name", "owner"]);
    assert_eq!(s["properties"]["followRenames"]["type"], "boolean");
    assert_eq!(s["properties"]["followRenames"]["default"], true);
    assert_eq!(s["properties"]["fields"]["type"], "array");
    assert!(
        repo.operation.starts_with("query Repository("),
        "{}",
        repo.operation
    );
    assert!(repo.operation.contains("$owner: String!"));

    // An enum argument is a `$ref` into the shared defs; the standalone schema carries it.
    let search = set.get("search").unwrap();
    assert_eq!(
        search.input_schema["properties"]["type"]["$ref"],
        "#/$defs/SearchType"
    );
    assert!(set.defs["SearchType"]["enum"]
        .as_array()
        .unwrap()
        .contains(&json!("REPOSITORY")));
    let standalone = set.standalone_schema(search);
    assert!(standalone["$defs"]["SearchType"].is_object());
    // A connection gets a page size, both as the variable default and in the schema.
    assert!(
        search.operation.contains("$first: Int = 10"),
        "{}",
        search.operation
    );
    assert_eq!(search.input_schema["properties"]["first"]["default"], 10);
    assert!(search.operation.contains("nodes {"), "{}", search.operation);
    assert!(
        search.operation.contains("... on Repository"),
        "union items as fragments: {}",
        search.operation
    );
}

#[test]
fn inline_refs_expand_everything_and_stop_recursive_inputs_at_the_depth_cap() {
    let sdl = r#"
        "A point in time." scalar DateTime
        enum Order { ASC DESC }
        input Filter { and: [Filter!] or: [Filter!] name: String since: DateTime order: Order = ASC }
        type Item { id: ID! name: String }
        type Query { items(filter: Filter, limit: Int = 5): [Item!]! }
    "#;
    let g = gqlnav_schema::load_sdl_str(sdl, "rec").unwrap();
    let defs = compile(&g, &CompileOptions::default()).unwrap();
    assert_eq!(
        defs.defs.keys().collect::<Vec<_>>(),
        ["DateTime", "Filter", "Order"]
    );
    // The recursive input refers to itself through `$ref`.
    assert_eq!(
        defs.defs["Filter"]["properties"]["and"]["items"]["$ref"],
        "#/$defs/Filter"
    );
    assert_eq!(
        defs.defs["DateTime"]["description"],
        "DateTime: A point in time."
    );
    assert_eq!(defs.defs["Filter"]["properties"]["order"]["default"], "ASC");

    let inline = compile(
        &g,
        &CompileOptions {
            refs: RefMode::Inline,
            inline_depth: 2,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    let t = &inline.tools[0];
    assert!(!has_ref(&t.input_schema), "no refs inline");
    assert!(inline.defs.is_empty());
    let f = &t.input_schema["properties"]["filter"];
    assert_eq!(f["properties"]["order"]["enum"], json!(["ASC", "DESC"]));
    let deep = &f["properties"]["and"]["items"]["properties"]["and"]["items"];
    assert_eq!(deep["type"], "object");
    assert!(
        deep["description"]
            .as_str()
            .unwrap()
            .contains("introspect Filter"),
        "{deep}"
    );
}

#[test]
fn anyof_mode_lists_every_property_as_required_with_null_allowed() {
    let g = common::bundled("github");
    let opts = CompileOptions {
        nullable: NullableMode::AnyOf,
        ..select(&["repository"])
    };
    let set = compile(&g, &opts).unwrap();
    let s = &set.tools[0].input_schema;
    let props = s["properties"].as_object().unwrap();
    let req = s["required"].as_array().unwrap();
    assert_eq!(
        req.len(),
        props.len(),
        "strict mode: every property required"
    );
    let fr = &props["followRenames"];
    assert_eq!(fr["anyOf"][1]["type"], "null");
    assert!(fr.get("default").is_none(), "strict modes reject `default`");
    assert!(fr["anyOf"][0]["description"]
        .as_str()
        .unwrap()
        .contains("Default: true"));
    assert_eq!(props["owner"]["type"], "string", "non-null stays plain");
}

#[test]
fn mutations_need_naming_and_are_marked_destructive_subscriptions_are_detected() {
    let g = common::bundled("linear");
    assert!(matches!(
        compile(&g, &select(&["issueCreate"])),
        Err(CompileError::MutationNotAllowed(n)) if n == "issueCreate"
    ));
    let opts = CompileOptions {
        allow_mutations: MutationAllow::parse("issueCreate"),
        ..select(&["issueCreate", "issues"])
    };
    let set = compile(&g, &opts).unwrap();
    let m = set.get("issueCreate").unwrap();
    assert!(m.mutation && m.operation.starts_with("mutation IssueCreate("));
    let mcp = set.render(ToolFormat::Mcp);
    let entry = mcp
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "issueCreate")
        .unwrap();
    assert_eq!(entry["annotations"]["destructiveHint"], true);
    assert_eq!(entry["annotations"]["readOnlyHint"], false);
    // The payload has fewer than two leaves, so its object fields are expanded one level.
    assert!(m.operation.contains("issue {"), "{}", m.operation);
    // By default no mutation is compiled at all.
    let none = compile(&g, &CompileOptions::default()).unwrap();
    assert!(none.tools.iter().all(|t| !t.mutation));
    assert!(none.mutations_found > 100);
    assert!(
        !none.subscriptions_detected.is_empty(),
        "linear has subscriptions"
    );
    assert!(none.subscriptions_detected[0].starts_with("Subscription."));
}

#[test]
fn formats_wrap_the_same_schemas() {
    let g = common::bundled("github");
    let set = compile(&g, &select(&["search"])).unwrap();
    let o = set.render(ToolFormat::Openai);
    assert_eq!(o[0]["type"], "function");
    assert_eq!(
        o[0]["function"]["parameters"]["$defs"]["SearchType"]["type"],
        "string"
    );
    let a = set.render(ToolFormat::Anthropic);
    assert_eq!(
        a[0]["input_schema"]["required"],
        set.tools[0].input_schema["required"]
    );
    let d = set.render(ToolFormat::JsonSchema);
    assert_eq!(d["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert!(d["$defs"]["SearchType"].is_object());
    assert_eq!(
        d["tools"][0]["inputSchema"]["properties"]["type"]["$ref"],
        "#/$defs/SearchType"
    );
}

#[test]
fn field_paths_compile_to_a_valid_selection_and_bad_paths_name_the_nearest_fields() {
    let g = common::bundled("github");
    let ops = OperationSchema::from_graph(&g);
    let set = compile(&g, &select(&["repository", "search"])).unwrap();
    let repo = set.get("repository").unwrap();
    let args: Map<String, Value> = serde_json::from_value(json!({
        "owner": "o", "name": "n",
        "fields": ["issues.nodes[].title", "issues.totalCount", "owner.login", "stargazerCount"],
    }))
    .unwrap();
    let (op, vars) = repo.operation_for(&g.schema, set.limits, &args).unwrap();
    assert_eq!(vars.len(), 2, "fields is not a variable");
    assert!(op.contains("issues(first: 10) {"), "{op}");
    assert!(
        op.contains("title") && op.contains("login") && op.contains("totalCount"),
        "{op}"
    );
    ExecutableDocument::parse_and_validate(&ops.schema, &op, "op.graphql")
        .unwrap_or_else(|e| panic!("{op}\n{}", e.errors));
    // A path that ends on an object gets its default selection.
    let args: Map<String, Value> =
        serde_json::from_value(json!({"owner": "o", "name": "n", "fields": ["owner"]})).unwrap();
    let (op, _) = repo.operation_for(&g.schema, set.limits, &args).unwrap();
    ExecutableDocument::parse_and_validate(&ops.schema, &op, "op.graphql")
        .unwrap_or_else(|e| panic!("{op}\n{}", e.errors));
    assert!(op.contains("login"), "{op}");

    let bad = |paths: Value| {
        let args: Map<String, Value> =
            serde_json::from_value(json!({"owner": "o", "name": "n", "fields": paths})).unwrap();
        repo.operation_for(&g.schema, set.limits, &args)
            .unwrap_err()
    };
    let e = bad(json!(["stargazerCont"]));
    assert!(
        e.reason
            .contains("`Repository` has no field `stargazerCont`"),
        "{e}"
    );
    assert_eq!(e.nearest[0], "Repository.stargazerCount");
    let e = bad(json!(["name.length"]));
    assert!(e.reason.contains("leaf"), "{e}");
    let e = bad(json!(["issue.title"]));
    assert!(e.reason.contains("needs argument(s) number: Int!"), "{e}");
    let e = bad(json!(["a..b"]));
    assert!(e.reason.contains("empty segment"), "{e}");
}

#[test]
fn bad_schemas_get_clear_errors() {
    // No Query type.
    let g = gqlnav_schema::load_sdl_str("type Thing { id: ID }", "noquery").unwrap();
    let e = compile(&g, &CompileOptions::default()).unwrap_err();
    assert!(matches!(e, CompileError::NoQueryType), "{e}");
    assert!(e.to_string().contains("no Query type"));

    // A partial schema: an argument type that is not defined.
    let g = gqlnav_schema::load_sdl_str(
        "type Query { a(f: MissingInput): Int b(x: Int): String }",
        "partial",
    )
    .unwrap();
    let set = compile(&g, &CompileOptions::default()).unwrap();
    assert_eq!(set.tools.len(), 1, "the whole field b compiles");
    assert_eq!(set.skipped.len(), 1);
    assert!(
        set.skipped[0]
            .reason
            .contains("`MissingInput`, which the schema does not define"),
        "{:?}",
        set.skipped
    );

    // 1,000+ root fields: over the cap, say how to select.
    let mut sdl = String::from("type Query {\n");
    for i in 0..1200 {
        sdl.push_str(&format!("  f{i}(id: ID!): String\n"));
    }
    sdl.push('}');
    let g = gqlnav_schema::load_sdl_str(&sdl, "wide").unwrap();
    let e = compile(&g, &CompileOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            CompileError::TooManyRootFields {
                count: 1200,
                mutations: 0,
                cap: 256
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("--select"), "{e}");
    let set = compile(&g, &select(&["f7", "Query.f1100"])).unwrap();
    assert_eq!(
        set.tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f7", "f1100"]
    );

    // An unknown selected name suggests the nearest.
    let g = common::bundled("github");
    let e = compile(&g, &select(&["repositry"])).unwrap_err();
    assert!(e.to_string().contains("Query.repository"), "{e}");
}

/// A schema that loaded with validation errors is checked once, at load: the operation
/// schema reuses that outcome (partial, with the load's error count), and operations
/// over its valid parts still validate; one touching the broken part is refused.
#[test]
fn a_partial_schema_keeps_its_load_time_validation() {
    let g = gqlnav_schema::load_sdl_str(
        "type Query { book: Book broken: Missing }\ntype Book { title: String }",
        "partial.graphql",
    )
    .unwrap();
    assert!(g.schema.valid().is_none());
    let ops = OperationSchema::from_graph(&g);
    assert!(ops.is_partial());
    assert_eq!(ops.schema_errors, g.schema.errors());
    assert!(ops.schema_errors >= 1);
    assert!(ExecutableDocument::parse_and_validate(
        &ops.schema,
        "{ book { title } }",
        "ok.graphql"
    )
    .is_ok());
    assert!(ExecutableDocument::parse_and_validate(
        &ops.schema,
        "{ book { pages } }",
        "bad.graphql"
    )
    .is_err());
    // A schema derived from it (as the GraphQL endpoint derives its own) is validated anew.
    let fresh = OperationSchema::new(gqlnav_schema::apollo_compiler::Schema::clone(&g.schema));
    assert_eq!(fresh.schema_errors, ops.schema_errors);
}
