//! The MCP server (rmcp): the navigation tools of the tools crate's one list
//! ([`gqlnav_tools::navigation_tools`]) over stdio or streamable HTTP, plus `search_docs`
//! when documentation is served and the compiled tools when asked for. Every route is
//! built at start from a spec; the navigation tools run through
//! [`Toolbox::run`](gqlnav_tools::Toolbox::run), which decides what goes to the blocking
//! pool.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock as Content, Implementation, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool_handler, ErrorData, ServerHandler};

use gqlnav_tools::{
    navigation_tools, CompiledTool, NavTool, OperationRequest, ToolDef, ToolError, ToolOutput,
    ToolSet,
};

use crate::error::ServeError;
use crate::state::AppState;

/// The MCP handler: holds the shared state and the tool router.
#[derive(Clone)]
pub struct GqlnavMcp {
    state: Arc<AppState>,
    tool_router: ToolRouter<Self>,
}

fn to_result(out: ToolOutput) -> CallToolResult {
    let mut r = if out.is_error {
        CallToolResult::error(vec![Content::text(out.text)])
    } else {
        CallToolResult::success(vec![Content::text(out.text)])
    };
    r.structured_content = out.structured;
    r
}

/// Sections one `search_docs` call returns when the call does not say.
const DOCS_DEFAULT_LIMIT: usize = 5;
/// Most sections one `search_docs` call returns.
const DOCS_MAX_LIMIT: usize = 20;
/// `search_docs`'s default token budget: about two screens of prose, a tenth of a
/// 20k-token tool allowance.
const DOCS_DEFAULT_BUDGET: usize = 2000;
/// The documentation tool's name (served with `--docs`).
pub(crate) const DOCS_TOOL: &str = "search_docs";

/// Arguments of `search_docs`.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocsRequest {
    /// What to look up, in plain words.
    pub query: String,
    /// Most sections (the default and the most are in the tool's schema).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Stop before the section that would take the answer over this many tokens.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
}

/// `search_docs`'s description and argument schema, the limits read from the constants.
pub(crate) fn docs_tool() -> Tool {
    let description = format!("Search the API's documentation (prose: what a field means, limits, examples, guides). Returns ranked sections, each with its link (url#anchor), heading path and text. Use it when the schema's descriptions do not say enough. Defaults: limit {DOCS_DEFAULT_LIMIT} (max {DOCS_MAX_LIMIT}), budgetTokens {DOCS_DEFAULT_BUDGET} (the sections shown stop before the one that would pass it).");
    let mut schema = rmcp::handler::server::tool::schema_for_input::<DocsRequest>()
        .map(|s| s.as_ref().clone())
        .unwrap_or_default();
    if let Some(serde_json::Value::Object(props)) = schema.get_mut("properties") {
        if let Some(serde_json::Value::Object(l)) = props.get_mut("limit") {
            l.insert(
                "description".into(),
                format!("Most sections (default {DOCS_DEFAULT_LIMIT}, max {DOCS_MAX_LIMIT}).")
                    .into(),
            );
        }
        if let Some(serde_json::Value::Object(b)) = props.get_mut("budgetTokens") {
            b.insert(
                "description".into(),
                format!("Stop before the section that would take the answer over this many tokens (default {DOCS_DEFAULT_BUDGET}).").into(),
            );
        }
    }
    let annotations = serde_json::json!({
        "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false
    });
    tool_attr(DOCS_TOOL, description, schema, annotations)
}

/// An MCP tool spec.
fn tool_attr(
    name: &str,
    description: String,
    schema: serde_json::Map<String, serde_json::Value>,
    annotations: serde_json::Value,
) -> Tool {
    let annotations: ToolAnnotations = serde_json::from_value(annotations).unwrap_or_default();
    Tool::new(name.to_string(), description, Arc::new(schema)).with_annotations(annotations)
}

/// A tool result that is an error with this text.
fn error_result(text: impl ToString) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.to_string())])
}

impl GqlnavMcp {
    /// A handler over shared state: the navigation tools (from the tools crate's one
    /// list, under the toolbox's config), `search_docs` when documentation is served, and
    /// the compiled tools when the state has them.
    pub fn new(state: Arc<AppState>) -> Self {
        let mut tool_router = ToolRouter::new();
        for def in navigation_tools(&state.tools.config) {
            tool_router.add_route(navigation_route(def));
        }
        if state.docs.is_some() {
            tool_router.add_route(docs_route());
        }
        if let Some(set) = &state.compiled {
            for t in &set.tools {
                tool_router.add_route(compiled_route(set, t));
            }
        }
        GqlnavMcp { state, tool_router }
    }

    /// The tools this handler lists, sorted by name (what `tools/list` answers).
    pub fn tools(&self) -> Vec<Tool> {
        self.tool_router.list_all()
    }

    /// Run one navigation tool; the tools crate reads the arguments and decides how it
    /// runs (the CPU-bound ones on the blocking pool).
    async fn call_navigation(
        &self,
        name: &str,
        args: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = serde_json::Value::Object(args.unwrap_or_default());
        match self.state.tools.call(name, args).await {
            Ok(out) => Ok(to_result(out)),
            Err(ToolError::Aborted(e)) => Err(ErrorData::internal_error(e, None)),
            Err(e) => Ok(error_result(e)),
        }
    }

    /// Run `search_docs` on the blocking pool.
    async fn call_docs(
        &self,
        args: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(docs) = self.state.docs.clone() else {
            return Ok(error_result(
                "no documentation is served: start the server with --docs DIR|URL",
            ));
        };
        let args = serde_json::Value::Object(args.unwrap_or_default());
        let p: DocsRequest = match serde_json::from_value(args) {
            Ok(p) => p,
            Err(e) => {
                return Ok(error_result(format!(
                    "bad arguments for {DOCS_TOOL}: {e}. Send a JSON object with the tool's fields."
                )))
            }
        };
        tokio::task::spawn_blocking(move || docs_result(&docs, &p))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

/// The MCP route of one navigation tool, its spec rendered from the tools crate's list.
fn navigation_route(def: ToolDef) -> ToolRoute<GqlnavMcp> {
    let attr = tool_attr(def.name, def.description, def.input_schema, def.annotations);
    ToolRoute::new_dyn(
        attr,
        |ctx: ToolCallContext<'_, GqlnavMcp>| -> CallFuture<'_> {
            Box::pin(async move {
                let result = ctx
                    .service
                    .call_navigation(&ctx.name, ctx.arguments)
                    .await?;
                Ok(CallToolResponse::from(result))
            })
        },
    )
}

/// The MCP route of `search_docs`.
fn docs_route() -> ToolRoute<GqlnavMcp> {
    ToolRoute::new_dyn(
        docs_tool(),
        |ctx: ToolCallContext<'_, GqlnavMcp>| -> CallFuture<'_> {
            Box::pin(async move {
                let result = ctx.service.call_docs(ctx.arguments).await?;
                Ok(CallToolResponse::from(result))
            })
        },
    )
}

/// Run one docs search and render it: one block per section (link, heading path, tokens,
/// text), then a line with the totals; the structured form carries the same hits.
pub(crate) fn docs_result(docs: &gqlnav_docs::LiveDocs, p: &DocsRequest) -> CallToolResult {
    if p.query.trim().is_empty() {
        return CallToolResult::error(vec![Content::text(
            "`query` is empty: say what to look up in plain words",
        )]);
    }
    let limit = p
        .limit
        .unwrap_or(DOCS_DEFAULT_LIMIT)
        .clamp(1, DOCS_MAX_LIMIT);
    let budget = p.budget_tokens.unwrap_or(DOCS_DEFAULT_BUDGET).max(1);
    let r = match docs.search(&p.query, limit, Some(budget)) {
        Ok(r) => r,
        Err(e) => return CallToolResult::error(vec![Content::text(e.to_string())]),
    };
    let mut text = String::new();
    for h in &r.hits {
        text.push_str(&format!(
            "{}. {}\n   {} ({} tokens)\n{}\n\n",
            h.rank,
            h.url,
            h.heading_path.join(" > "),
            h.tokens,
            h.text.trim()
        ));
    }
    if r.hits.is_empty() {
        text.push_str("No section matches; try other words.\n");
    }
    text.push_str(&format!(
        "{} sections, {} tokens ({:?}){}",
        r.hits.len(),
        r.tokens,
        r.mode,
        if r.more {
            "; more match: raise limit or budgetTokens, or narrow the query"
        } else {
            ""
        }
    ));
    let hits: Vec<serde_json::Value> = r
        .hits
        .iter()
        .map(|h| {
            serde_json::json!({"rank": h.rank, "url": h.url, "title": h.title,
                "headingPath": h.heading_path, "tokens": h.tokens, "score": h.score, "text": h.text})
        })
        .collect();
    let mut out = CallToolResult::success(vec![Content::text(text)]);
    out.structured_content = Some(serde_json::json!({
        "hits": hits, "tokens": r.tokens, "more": r.more, "mode": r.mode,
        "generation": docs.generation(),
    }));
    out
}

type CallFuture<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a>,
>;

/// The MCP route of one compiled tool: its spec (input schema with the `$defs` it uses,
/// read-only / destructive hints) and a handler that turns the arguments into the
/// operation and variables and runs them through `execute` (same policy, caps, headers).
fn compiled_route(set: &ToolSet, t: &CompiledTool) -> ToolRoute<GqlnavMcp> {
    let schema = match set.standalone_schema(t) {
        serde_json::Value::Object(m) => m,
        _ => Default::default(),
    };
    let attr = tool_attr(
        &t.name,
        t.description.clone(),
        schema,
        ToolSet::annotations(t),
    );
    ToolRoute::new_dyn(
        attr,
        |ctx: ToolCallContext<'_, GqlnavMcp>| -> CallFuture<'_> {
            Box::pin(async move {
                let result = ctx.service.call_compiled(&ctx.name, ctx.arguments).await;
                Ok(CallToolResponse::from(result))
            })
        },
    )
}

impl GqlnavMcp {
    /// Run one compiled tool.
    async fn call_compiled(
        &self,
        name: &str,
        args: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let err = |m: String| CallToolResult::error(vec![Content::text(m)]);
        let Some(set) = &self.state.compiled else {
            return err(format!("unknown tool `{name}`"));
        };
        let Some(tool) = set.get(name) else {
            return err(format!("unknown tool `{name}`"));
        };
        let args = args.unwrap_or_default();
        let props = tool.input_schema["properties"].as_object();
        let unknown: Vec<&String> = args
            .keys()
            .filter(|k| !props.is_some_and(|p| p.contains_key(k.as_str())))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&String> = props.map(|p| p.keys().collect()).unwrap_or_default();
            return err(format!(
                "`{name}` has no argument {}; it takes: {}",
                unknown
                    .iter()
                    .map(|u| format!("`{u}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                known
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let generation = self.state.tools.generation();
        let (operation, variables) =
            match tool.operation_for(&generation.graph.schema, set.limits, &args) {
                Ok(x) => x,
                Err(e) => return err(format!("{e}")),
            };
        let req = OperationRequest {
            operation,
            variables: Some(serde_json::Value::Object(variables)),
            operation_name: None,
        };
        to_result(self.state.tools.execute(&req).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for GqlnavMcp {
    fn get_info(&self) -> ServerConfig {
        let generation = self.state.tools.generation();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gqlnav", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Tools over the GraphQL schema {} ({} fields). Loop: {} (find coordinates) -> {} (exact definitions) -> {} (check your operation) -> {} (run it{}).{}{}",
                generation.graph.source,
                generation.graph.field_count(),
                NavTool::Search.name(),
                NavTool::Introspect.name(),
                NavTool::Validate.name(),
                NavTool::Execute.name(),
                if self.state.config.tools.endpoint.is_some() { "" } else { "; no upstream is configured, so execute is unavailable" },
                match &self.state.compiled {
                    Some(set) if !set.tools.is_empty() => format!(" {} typed tools compiled from root fields run one root field each with its default fields (or the paths you pass in `fields`).", set.tools.len()),
                    _ => String::new(),
                },
                if self.state.docs.is_some() { format!(" {DOCS_TOOL} searches the API's documentation for what the schema does not say.") } else { String::new() }
            ))
    }
}

/// Hosts accepted besides the configured ones: loopback names, with and without port.
pub(crate) fn allowed_hosts(addr: SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut v: Vec<String> = ["localhost", "127.0.0.1", "[::1]", "::1"]
        .iter()
        .flat_map(|h| [h.to_string(), format!("{h}:{port}")])
        .collect();
    v.extend(extra.iter().cloned());
    v
}

pub(crate) fn allowed_origins(addr: SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut v: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|h| format!("http://{h}:{port}"))
        .collect();
    v.extend(extra.iter().cloned());
    v
}

/// The MCP streamable HTTP service mounted at `/mcp` as an axum router (Host and Origin
/// checked against DNS rebinding; request bodies bounded).
pub fn http_router(addr: SocketAddr, state: Arc<AppState>) -> axum::Router {
    let cfg = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(addr, &state.config.allowed_hosts))
        .with_allowed_origins(allowed_origins(addr, &state.config.allowed_origins))
        .enforce_origin_validation()
        .with_max_request_body_bytes(state.config.tools.policy.max_request_bytes)
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)));
    let st = state.clone();
    let service: StreamableHttpService<GqlnavMcp, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(GqlnavMcp::new(st.clone())),
        Default::default(),
        cfg,
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .route("/health", axum::routing::get(|| async { "ok" }))
}

/// Serve MCP over streamable HTTP at `http://ADDR/mcp` until the process ends.
/// Refuses a non-loopback address unless `allow_public` is set.
pub async fn run_http(addr: SocketAddr, state: Arc<AppState>) -> Result<(), ServeError> {
    let listener = bind(addr, &state.config).await?;
    let real = listener
        .local_addr()
        .map_err(|e| ServeError::Listen(addr, e))?;
    tracing::info!("MCP server ready on http://{real}/mcp");
    eprintln!("gqlnav: MCP streamable HTTP on http://{real}/mcp");
    axum::serve(listener, http_router(real, state))
        .await
        .map_err(|e| ServeError::Listen(real, e))
}

/// Bind a listener; a non-loopback address needs an explicit allowed host in config.
pub(crate) async fn bind(
    addr: SocketAddr,
    config: &crate::config::ServeConfig,
) -> Result<tokio::net::TcpListener, ServeError> {
    if !addr.ip().is_loopback() && config.allowed_hosts.is_empty() {
        return Err(ServeError::NotLoopback(addr));
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen(addr, e))
}
