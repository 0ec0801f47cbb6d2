//! System prompts and the tools offered, for each mode.

use serde_json::{json, Value};

use gqlnav_tools::{NavTool, ToolsConfig};

use crate::chat::ToolSpec;

/// The tool that ends a run with the answer (offered when an answer schema is given).
pub const ANSWER_TOOL: &str = "answer";

const NAVIGATE_RULES: &str = "You answer a question about the data behind a GraphQL API. You do not know this API's schema: find what you need with the tools.
Call exactly one tool per turn. Rules:
1. Every type, field, argument and enum value you write must first have appeared in a tool result. Never guess a name.
2. Start with search_schema (plain words for what you need). Its result starts with an operation that reads the top hits: when it reads what you need, execute it with its variables filled from the question; otherwise introspect the types you will use, write one operation, validate it, then execute it.
3. A field returning a Connection is read through `nodes { ... }` (or `edges { node { ... } }`) and takes `first: N`.
4. If a tool says you repeated a call, change what you send.";

const INLINE_RULES: &str = "You answer a question about the data behind a GraphQL API whose whole schema is below. Write one operation using only names in the schema and run it with execute. Call exactly one tool per turn.";

/// The agent's spec of a navigation tool: its name, summary and argument schema from the
/// tools crate's one list.
fn nav_spec(tool: NavTool, config: &ToolsConfig) -> ToolSpec {
    let def = tool.def(config);
    ToolSpec {
        name: def.name.into(),
        description: def.summary.into(),
        parameters: Value::Object(def.input_schema),
    }
}

/// `search_schema` under the slice strategy: the budget is the loop's, so the model sends
/// only the query (its schema as the tools crate defines it).
fn slice_search_spec(config: &ToolsConfig) -> ToolSpec {
    let def = NavTool::Search.def(config);
    let query = def
        .input_schema
        .get("properties")
        .and_then(|p| p.get("query"))
        .cloned()
        .unwrap_or_else(|| json!({"type": "string"}));
    ToolSpec {
        name: def.name.into(),
        description: "Get a slice of the schema (SDL with paths from the Query root) for what you need; each call adds a larger slice. Pass one short intent in plain words.".into(),
        parameters: json!({"type": "object", "properties": {"query": query}, "required": ["query"]}),
    }
}

/// The tools of a mode: the four navigation tools, search (slices) and execute, or
/// execute only (inline); and `answer` when an answer schema is given. Names, summaries
/// and argument schemas come from [`gqlnav_tools::navigation_tools`] under `config`.
pub fn tools(
    config: &ToolsConfig,
    inline: bool,
    slice: bool,
    answer_schema: Option<&Value>,
) -> Vec<ToolSpec> {
    let mut v = Vec::new();
    if slice && !inline {
        v.push(slice_search_spec(config));
    }
    if !inline && !slice {
        for t in [NavTool::Search, NavTool::Introspect, NavTool::Validate] {
            v.push(nav_spec(t, config));
        }
    }
    v.push(nav_spec(NavTool::Execute, config));
    if let Some(s) = answer_schema {
        v.push(ToolSpec {
            name: ANSWER_TOOL.into(),
            description: "Give the final answer as JSON matching the schema; this ends the task.".into(),
            parameters: json!({"type": "object", "properties": {"answer": s}, "required": ["answer"]}),
        });
    }
    v
}

/// The system prompt. `describe_tools` spells out each tool's arguments (for the JSON
/// action protocol, where the tools are not offered natively).
///
/// The example call searches for the task's own first words: the 1.5B model copied a
/// fixed example (`"stars of a repository"`) as its search whatever it was asked.
pub fn system(
    inline_sdl: Option<&str>,
    tools: &[ToolSpec],
    answer: bool,
    describe_tools: bool,
    task: &str,
) -> String {
    let mut s = String::from(if inline_sdl.is_some() {
        INLINE_RULES
    } else {
        NAVIGATE_RULES
    });
    s.push('\n');
    s.push_str(if answer {
        "When you have the data, call answer with the answer as JSON matching its schema.\n"
    } else {
        "When you have the data, reply with the answer in plain words and no tool call.\n"
    });
    let query = serde_json::to_string(&example_words(task)).unwrap_or_default();
    let example = format!("{{\"name\": \"search_schema\", \"arguments\": {{\"query\": {query}}}}}");
    s.push_str(&format!(
        "To call a tool, reply with only a JSON object: {{\"name\": \"<tool>\", \"arguments\": {{...}}}}, e.g. {example}.\n"
    ));
    if describe_tools {
        s.push_str("Tools:\n");
        for t in tools {
            s.push_str(&format!(
                "- {}: {}\n",
                crate::chat::signature(t),
                t.description
            ));
        }
    }
    if let Some(sdl) = inline_sdl {
        s.push_str("\nThe schema:\n");
        s.push_str(sdl);
    }
    s
}

/// Up to eight words of a task, as a plain-words search (punctuation around words
/// dropped; `octocat/example` kept whole); a task without words searches for
/// "stars of a repository".
fn example_words(task: &str) -> String {
    let words: Vec<&str> = task
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .take(8)
        .collect();
    if words.is_empty() {
        "stars of a repository".into()
    } else {
        words.join(" ")
    }
}
