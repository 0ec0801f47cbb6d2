//! One list of tools: the MCP server (crates/serve) and the agent loop (crates/agent)
//! offer the navigation tools of `gqlnav_tools::navigation_tools`, with the same names
//! and the same argument schemas, and both read the limits from the policy in force.

use std::sync::Arc;

use gqlnav_serve::{AppState, GqlnavMcp, ServeConfig};
use gqlnav_tools::{navigation_tools, NavTool, Toolbox, ToolsConfig};
use serde_json::Value;

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

/// A page size unlike the default, so a limit typed by hand anywhere would show.
const LIMIT: usize = 17;

fn config() -> ToolsConfig {
    ToolsConfig {
        max_limit: LIMIT,
        ..ToolsConfig::default()
    }
}

/// `tools/list` of an MCP server over `config`, as JSON, by name.
fn mcp_tools(config: &ToolsConfig) -> Vec<Value> {
    let graph = Arc::new(gqlnav_schema::load_sdl_str(SDL, "repos.graphql").expect("schema"));
    let tools = Arc::new(Toolbox::build(graph, None, config.clone()).expect("toolbox"));
    let serve = ServeConfig {
        tools: config.clone(),
        ..ServeConfig::default()
    };
    let state = Arc::new(AppState::new(tools, serve).expect("state"));
    GqlnavMcp::new(state)
        .tools()
        .iter()
        .map(|t| serde_json::to_value(t).expect("a tool spec serializes"))
        .collect()
}

fn named<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {list:?}"))
}

#[test]
fn mcp_and_agent_offer_the_same_navigation_tools_with_the_same_schemas() {
    let config = config();
    let mcp = mcp_tools(&config);
    let agent = gqlnav_agent::tools(&config, false, false, None);
    let mut mcp_names: Vec<&str> = mcp.iter().filter_map(|t| t["name"].as_str()).collect();
    let mut agent_names: Vec<&str> = agent.iter().map(|t| t.name.as_str()).collect();
    mcp_names.sort();
    agent_names.sort();
    assert_eq!(
        mcp_names, agent_names,
        "the two surfaces offer different tools"
    );
    let mut listed: Vec<&str> = NavTool::ALL.iter().map(|t| t.name()).collect();
    listed.sort();
    assert_eq!(agent_names, listed);
    for spec in &agent {
        let m = named(&mcp, &spec.name);
        assert_eq!(
            m["inputSchema"], spec.parameters,
            "{}: MCP and the agent send different argument schemas",
            spec.name
        );
        let description = m["description"].as_str().unwrap_or_default();
        assert!(
            description.starts_with(&spec.description),
            "{}: the agent's summary is not the start of the MCP description:\n{}\n{description}",
            spec.name,
            spec.description
        );
    }
}

#[test]
fn both_surfaces_read_the_page_limit_from_the_policy() {
    let config = config();
    let mcp = mcp_tools(&config);
    let search = named(&mcp, NavTool::Search.name());
    let limit = &search["inputSchema"]["properties"]["limit"];
    assert_eq!(limit["maximum"], LIMIT, "{limit}");
    let description = search["description"].as_str().unwrap_or_default();
    assert!(
        description.contains(&format!("max {LIMIT})")),
        "{description}"
    );
    assert!(!description.contains("max 50"), "{description}");
    let agent = gqlnav_agent::tools(&config, false, false, None);
    let a = agent
        .iter()
        .find(|t| t.name == NavTool::Search.name())
        .expect("search offered");
    assert_eq!(a.parameters["properties"]["limit"]["maximum"], LIMIT);
}

#[test]
fn the_agents_other_modes_offer_tools_of_the_same_list() {
    let config = config();
    let defs = navigation_tools(&config);
    let query_schema = &defs[0].input_schema["properties"]["query"];
    let slice = gqlnav_agent::tools(&config, false, true, None);
    let names: Vec<&str> = slice.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search_schema", "execute"]);
    assert_eq!(&slice[0].parameters["properties"]["query"], query_schema);
    let inline = gqlnav_agent::tools(&config, true, false, None);
    let names: Vec<&str> = inline.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["execute"]);
    assert_eq!(
        inline[0].parameters,
        Value::Object(defs[3].input_schema.clone())
    );
}
