//! The one list of navigation tools: limits read from the policy, arguments read into
//! typed calls with errors that say what to fix, and calls run through `Toolbox::run`.

use std::sync::Arc;

use gqlnav_tools::{
    navigation_tools, MutationPolicy, NavCall, NavTool, ToolError, Toolbox, ToolsConfig,
    DEFAULT_SEARCH_LIMIT, INTROSPECT_EXPANSION_TOKENS, MAX_INTROSPECT_DEPTH, MAX_SEARCH_LIMIT,
};
use serde_json::json;

const SDL: &str = r#"
type Query {
  "A repository by owner and name."
  repository(owner: String!, name: String!): Repository
}
type Repository {
  name: String!
  "How many people starred it."
  stargazerCount: Int!
}
"#;

fn toolbox(config: ToolsConfig) -> Arc<Toolbox> {
    let graph = Arc::new(gqlnav_schema::load_sdl_str(SDL, "repos.graphql").expect("schema"));
    Arc::new(Toolbox::build(graph, None, config).expect("toolbox"))
}

#[test]
fn names_round_trip_and_the_list_has_each_tool_once() {
    let defs = navigation_tools(&ToolsConfig::default());
    let names: Vec<&str> = defs.iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        ["search_schema", "introspect", "validate", "execute"]
    );
    for t in NavTool::ALL {
        assert_eq!(NavTool::from_name(t.name()), Some(t));
    }
    assert_eq!(NavTool::from_name("answer"), None);
}

#[test]
fn descriptions_and_schemas_follow_the_policy_in_force() {
    let default = ToolsConfig::default();
    let search = NavTool::Search.def(&default);
    assert!(
        search.description.contains(&format!(
            "limit {DEFAULT_SEARCH_LIMIT} (max {MAX_SEARCH_LIMIT})"
        )),
        "{}",
        search.description
    );
    assert_eq!(
        search.input_schema["properties"]["limit"]["maximum"],
        MAX_SEARCH_LIMIT
    );
    assert_eq!(
        search.input_schema["properties"]["limit"]["default"],
        DEFAULT_SEARCH_LIMIT
    );

    let mut narrow = ToolsConfig {
        max_limit: 7,
        ..ToolsConfig::default()
    };
    narrow.policy.max_result_tokens = 1234;
    narrow.policy.mutations = MutationPolicy::Named(vec!["CreateIssue".into()]);
    let search = NavTool::Search.def(&narrow);
    assert!(
        search.description.contains("(max 7)"),
        "{}",
        search.description
    );
    assert_eq!(search.input_schema["properties"]["limit"]["maximum"], 7);
    let execute = NavTool::Execute.def(&narrow);
    assert!(
        execute.description.contains("over 1234 tokens"),
        "{}",
        execute.description
    );
    assert!(
        execute.description.contains("CreateIssue"),
        "{}",
        execute.description
    );

    let introspect = NavTool::Introspect.def(&default);
    assert!(
        introspect
            .description
            .contains(&format!("within {INTROSPECT_EXPANSION_TOKENS} tokens")),
        "{}",
        introspect.description
    );
    assert_eq!(
        introspect.input_schema["properties"]["depth"]["maximum"],
        MAX_INTROSPECT_DEPTH
    );
}

#[test]
fn every_schema_is_an_mcp_object_schema_and_each_description_starts_with_its_summary() {
    for d in navigation_tools(&ToolsConfig::default()) {
        assert_eq!(d.input_schema["type"], "object", "{}", d.name);
        assert!(!d.input_schema.contains_key("title"), "{}", d.name);
        assert!(d.description.starts_with(d.summary), "{}", d.name);
        assert!(d.description.len() > d.summary.len(), "{}", d.name);
        assert_eq!(
            d.annotations["readOnlyHint"],
            d.tool != NavTool::Execute,
            "{}",
            d.name
        );
    }
}

#[test]
fn bad_arguments_are_a_typed_error_that_names_the_tool() {
    let e = NavCall::parse(NavTool::Search, json!({"limit": 3})).unwrap_err();
    match &e {
        ToolError::Arguments { tool, reason } => {
            assert_eq!(tool, "search_schema");
            assert!(reason.contains("query"), "{reason}");
        }
        other => panic!("not an argument error: {other:?}"),
    }
    assert!(
        e.to_string().starts_with("bad arguments for search_schema"),
        "{e}"
    );
    let ok = NavCall::parse(NavTool::Introspect, json!({"type": "Repository"})).unwrap();
    assert_eq!(ok.tool(), NavTool::Introspect);
}

#[test]
fn calls_run_through_the_toolbox_and_unknown_names_list_the_tools() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let tools = toolbox(ToolsConfig::default());
    rt.block_on(async {
        let out = tools
            .call("search_schema", json!({"query": "stars of a repository"}))
            .await
            .expect("a search runs");
        assert!(!out.is_error, "{}", out.text);
        assert!(
            out.text.contains("Repository.stargazerCount"),
            "{}",
            out.text
        );
        assert!(out.tokens > 0);

        let out = tools
            .call("introspect", json!({"type": "Repository"}))
            .await
            .expect("an introspection runs");
        assert!(out.text.contains("type Repository"), "{}", out.text);

        let e = tools
            .call("search", json!({"query": "x"}))
            .await
            .unwrap_err();
        assert!(matches!(e, ToolError::UnknownTool { .. }), "{e:?}");
        assert!(
            e.to_string()
                .contains("search_schema, introspect, validate, execute"),
            "{e}"
        );

        let out = tools
            .call("search_schema", json!({"query": "  "}))
            .await
            .expect("an empty query is the tool's own error");
        assert!(out.is_error);
        assert_eq!(out.text, ToolError::EmptyQuery.to_string());
    });
}

#[test]
fn typed_errors_keep_their_messages() {
    assert!(gqlnav_tools::check_query("").is_err());
    let long = "x".repeat(gqlnav_tools::MAX_QUERY_BYTES + 1);
    match gqlnav_tools::check_query(&long) {
        Err(ToolError::QueryTooLong { bytes, max }) => {
            assert_eq!(bytes, long.len());
            assert_eq!(max, gqlnav_tools::MAX_QUERY_BYTES);
        }
        other => panic!("{other:?}"),
    }
    let e = gqlnav_tools::read_cursor("not a cursor", "q", 1).unwrap_err();
    assert_eq!(e, ToolError::BadCursor);
    assert!(e.to_string().contains("call again without `cursor`"), "{e}");
    let e = gqlnav_tools::variables_value(Some(json!("{nope"))).unwrap_err();
    assert!(matches!(e, ToolError::VariablesNotJson(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("`variables` is a string but not JSON"),
        "{e}"
    );
}
