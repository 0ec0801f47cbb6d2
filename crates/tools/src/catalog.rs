//! The navigation tools as one list: each tool's name, description, parameter schema,
//! hints and how it is run. The limits in the descriptions and schemas are read from the
//! policy (the [`ToolsConfig`] in force and the tools' constants), never written by hand.
//! The MCP server and the GraphQL endpoint (crates/serve) and the agent loop
//! (crates/agent) render from [`navigation_tools`] and run calls through
//! [`Toolbox::run`].

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::error::ToolError;
use crate::introspect::{
    IntrospectRequest, INTROSPECT_EXPANSION_TOKENS, MAX_INTROSPECT_COORDINATES,
    MAX_INTROSPECT_DEPTH,
};
use crate::output::ToolOutput;
use crate::policy::{MutationPolicy, ToolsConfig};
use crate::search::{
    SearchRequest, DEFAULT_SEARCH_LIMIT, FIRST_LOOK_BUDGET_TOKENS, MAX_QUERY_BYTES,
};
use crate::toolbox::Toolbox;
use crate::validate::OperationRequest;

/// One of the navigation tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NavTool {
    /// `search_schema`: a ranked page of coordinates, or a budgeted slice.
    Search,
    /// `introspect`: the SDL of the elements named.
    Introspect,
    /// `validate`: check an operation without running it.
    Validate,
    /// `execute`: run an operation upstream.
    Execute,
}

impl NavTool {
    /// Every navigation tool, in the order they are offered.
    pub const ALL: [NavTool; 4] = [
        NavTool::Search,
        NavTool::Introspect,
        NavTool::Validate,
        NavTool::Execute,
    ];

    /// The tool's name, as every surface offers it.
    pub fn name(self) -> &'static str {
        match self {
            NavTool::Search => "search_schema",
            NavTool::Introspect => "introspect",
            NavTool::Validate => "validate",
            NavTool::Execute => "execute",
        }
    }

    /// The tool of a name.
    pub fn from_name(name: &str) -> Option<NavTool> {
        NavTool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// One sentence on what the tool is for: the start of [`description`](Self::description),
    /// and all of it where prompt room is scarce (the agent loop).
    pub fn summary(self) -> &'static str {
        match self {
            NavTool::Search => "Find the schema coordinates (Type.field) for what you need, with the path of fields from the Query root. Pass one short intent in plain words.",
            NavTool::Introspect => "Show the exact SDL of named schema elements (a type, Type.field, an enum value); depth 2 adds the types they reference.",
            NavTool::Validate => "Check a GraphQL operation against the schema without running it; each problem comes with the nearest names and what to introspect.",
            NavTool::Execute => "Run a GraphQL query against the API and return its data (validated first).",
        }
    }

    /// The whole description: the summary, then the details and limits under `config`.
    pub fn description(self, config: &ToolsConfig) -> String {
        let details = match self {
            NavTool::Search => format!(
                "Returns ranked coordinates with kind, score (0-1, relative to the best hit) and a one-line definition; call again with other words for other parts of a task, then introspect the coordinates you will use. For a first look at a whole task, pass budgetTokens (e.g. {FIRST_LOOK_BUDGET_TOKENS}): the answer is then one valid SDL slice with the paths from the Query root, the arguments and the fields the task most likely needs. Defaults: limit {DEFAULT_SEARCH_LIMIT} (max {}), no budget, first page. A query is at most {MAX_QUERY_BYTES} bytes.",
                config.max_limit
            ),
            NavTool::Introspect => format!(
                "A field comes with its arguments; a directive (`@name`) can be named too; at most {MAX_INTROSPECT_COORDINATES} coordinates per call. At depth 2 each referenced type is one compact line (unions, enums and input types first; fields with arguments as `f(…)`), within {INTROSPECT_EXPANSION_TOKENS} tokens; the types left out are named. Depth 1 by default, at most {MAX_INTROSPECT_DEPTH}. An unknown name is an error that lists the nearest existing coordinates."
            ),
            NavTool::Validate => format!(
                "Each problem comes back on one line with its location. Also says whether execute would accept the operation ({}; depth at most {}).",
                mutations_rule(&config.policy.mutations),
                config.policy.cost.max_depth
            ),
            NavTool::Execute => format!(
                "It is validated first ({}; subscriptions are refused; depth at most {}). GraphQL errors come back as an error result with any partial data. A result over {} tokens is cut with a visible marker.",
                mutations_rule(&config.policy.mutations),
                config.policy.cost.max_depth,
                config.policy.max_result_tokens
            ),
        };
        format!("{} {details}", self.summary())
    }

    /// The JSON Schema (draft 2020-12) of the tool's arguments, an object schema without
    /// a top-level title or description, its bounds read from `config`.
    pub fn input_schema(self, config: &ToolsConfig) -> Map<String, Value> {
        match self {
            NavTool::Search => {
                let mut s = schema_of::<SearchRequest>();
                set_property(
                    &mut s,
                    "limit",
                    json!({
                        "description": format!("Results per page. Default {DEFAULT_SEARCH_LIMIT}, at most {}.", config.max_limit),
                        "minimum": 1,
                        "maximum": config.max_limit,
                    }),
                );
                set_property(
                    &mut s,
                    "budgetTokens",
                    json!({
                        "description": format!("Optional token budget (o200k_base) for the whole answer: the answer is then a slice of the schema (valid SDL: paths from the Query root, arguments, the likely fields) cut to it; {FIRST_LOOK_BUDGET_TOKENS} is a good first look at a whole task. Default: none (a ranked page)."),
                    }),
                );
                s
            }
            NavTool::Introspect => {
                let mut s = schema_of::<IntrospectRequest>();
                set_property(
                    &mut s,
                    "depth",
                    json!({
                        "description": format!("1 = exactly what was asked; 2 = also the types it references; at most {MAX_INTROSPECT_DEPTH}. Default 1."),
                        "minimum": 1,
                        "maximum": MAX_INTROSPECT_DEPTH,
                    }),
                );
                set_property(
                    &mut s,
                    "coordinates",
                    json!({"maxItems": MAX_INTROSPECT_COORDINATES}),
                );
                s
            }
            NavTool::Validate | NavTool::Execute => schema_of::<OperationRequest>(),
        }
    }

    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`).
    pub fn annotations(self) -> Value {
        match self {
            NavTool::Execute => json!({
                "readOnlyHint": false, "destructiveHint": false, "openWorldHint": true
            }),
            _ => json!({
                "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false
            }),
        }
    }

    /// True for the tools that compute locally (ranking, slicing, validation) and so run
    /// on the blocking pool; `execute` waits on the upstream and runs on the caller's task.
    pub fn cpu_bound(self) -> bool {
        !matches!(self, NavTool::Execute)
    }

    /// The whole definition under `config`.
    pub fn def(self, config: &ToolsConfig) -> ToolDef {
        ToolDef {
            tool: self,
            name: self.name(),
            summary: self.summary(),
            description: self.description(config),
            input_schema: self.input_schema(config),
            annotations: self.annotations(),
        }
    }
}

/// What the policy lets through, in words.
fn mutations_rule(m: &MutationPolicy) -> String {
    match m {
        MutationPolicy::None => {
            "queries only: mutations are refused unless the server's local config allows them"
                .into()
        }
        MutationPolicy::All => "queries and mutations".into(),
        MutationPolicy::Named(names) => {
            format!("queries, and only the mutations named {}", names.join(", "))
        }
    }
}

/// Merge `patch` into the schema of property `name` (when the schema has it).
fn set_property(schema: &mut Map<String, Value>, name: &str, patch: Value) {
    let Some(Value::Object(p)) = schema.get_mut("properties").and_then(|p| p.get_mut(name)) else {
        return;
    };
    if let Value::Object(patch) = patch {
        p.extend(patch);
    }
}

/// The argument schema of `T`, as MCP wants it: draft 2020-12, root an object, no
/// top-level title or description.
fn schema_of<T: schemars::JsonSchema>() -> Map<String, Value> {
    let root = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut m = match serde_json::to_value(root) {
        Ok(Value::Object(m)) => m,
        _ => Map::from_iter([("type".to_string(), json!("object"))]),
    };
    m.remove("title");
    m.remove("description");
    m
}

/// One navigation tool, rendered: what a surface offers.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Which tool.
    pub tool: NavTool,
    /// Its name.
    pub name: &'static str,
    /// One sentence (what the agent loop offers).
    pub summary: &'static str,
    /// The whole description (what the MCP server offers).
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Map<String, Value>,
    /// MCP annotations.
    pub annotations: Value,
}

/// The navigation tools under `config`, in the order they are offered.
pub fn navigation_tools(config: &ToolsConfig) -> Vec<ToolDef> {
    NavTool::ALL.into_iter().map(|t| t.def(config)).collect()
}

/// A call of a navigation tool, its arguments read.
#[derive(Debug, Clone)]
pub enum NavCall {
    /// `search_schema`.
    Search(SearchRequest),
    /// `introspect`.
    Introspect(IntrospectRequest),
    /// `validate`.
    Validate(OperationRequest),
    /// `execute`.
    Execute(OperationRequest),
}

impl NavCall {
    /// Read the JSON arguments of a call of `tool`.
    pub fn parse(tool: NavTool, args: Value) -> Result<NavCall, ToolError> {
        fn read<T: serde::de::DeserializeOwned>(
            tool: NavTool,
            args: Value,
        ) -> Result<T, ToolError> {
            serde_json::from_value(args).map_err(|e| ToolError::Arguments {
                tool: tool.name().to_string(),
                reason: e.to_string(),
            })
        }
        Ok(match tool {
            NavTool::Search => NavCall::Search(read(tool, args)?),
            NavTool::Introspect => NavCall::Introspect(read(tool, args)?),
            NavTool::Validate => NavCall::Validate(read(tool, args)?),
            NavTool::Execute => NavCall::Execute(read(tool, args)?),
        })
    }

    /// The tool called.
    pub fn tool(&self) -> NavTool {
        match self {
            NavCall::Search(_) => NavTool::Search,
            NavCall::Introspect(_) => NavTool::Introspect,
            NavCall::Validate(_) => NavTool::Validate,
            NavCall::Execute(_) => NavTool::Execute,
        }
    }

    /// Run the call now, on this thread (`execute` excepted: it is async).
    fn run_here(&self, tools: &Toolbox) -> ToolOutput {
        match self {
            NavCall::Search(r) => tools.search_schema(r),
            NavCall::Introspect(r) => tools.introspect(r),
            NavCall::Validate(r) => tools.validate(r),
            NavCall::Execute(_) => ToolOutput::err("execute is run with `Toolbox::run`", None),
        }
    }
}

impl Toolbox {
    /// Run one navigation call: the one place that decides how a tool runs. The
    /// CPU-bound tools ([`NavTool::cpu_bound`]) go to tokio's blocking pool so that a
    /// server's reactor keeps answering; `execute` is awaited on the caller's task.
    /// Needs a tokio runtime.
    pub async fn run(self: &Arc<Self>, call: NavCall) -> Result<ToolOutput, ToolError> {
        match call {
            NavCall::Execute(r) => Ok(self.execute(&r).await),
            call => {
                let tools = self.clone();
                tokio::task::spawn_blocking(move || call.run_here(&tools))
                    .await
                    .map_err(|e| ToolError::Aborted(e.to_string()))
            }
        }
    }

    /// Read and run a call of the navigation tool named `name` with JSON `args`.
    pub async fn call(self: &Arc<Self>, name: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let tool = NavTool::from_name(name).ok_or_else(|| ToolError::UnknownTool {
            name: name.to_string(),
            offered: NavTool::ALL.map(NavTool::name).join(", "),
        })?;
        self.run(NavCall::parse(tool, args)?).await
    }
}
