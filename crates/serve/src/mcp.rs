//! The MCP server (rmcp): four navigation tools over stdio or streamable HTTP, plus
//! `search_docs` when documentation is served and the compiled tools when asked for.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock as Content, Implementation, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler};

use gqlnav_tools::{
    CompiledTool, IntrospectRequest, OperationRequest, SearchRequest, ToolOutput, ToolSet, Toolbox,
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

const SEARCH_DESC: &str = "Find the schema coordinates (Type.field) that answer a question about this GraphQL API. Returns ranked coordinates with kind, score (0-1, relative to the best hit), a one-line definition and the path of fields from the Query root. Pass one short intent in plain words; call again with other words for other parts of a task. Then introspect the coordinates you will use. For a first look at a whole task, pass budgetTokens (e.g. 4000): the answer is then one valid SDL slice with the paths from the Query root, the arguments and the fields the task most likely needs. Defaults: limit 10 (max 50), no budget, first page.";
const INTROSPECT_DESC: &str = "Show the SDL of exactly the schema elements named: a type's definition, a field with its arguments, an enum value, a directive. depth 2 also shows the types they reference, one compact line each (unions, enums and input types first; fields with arguments as `f(…)`), within 800 tokens; the types left out are named (depth 1 by default, max 3). An unknown name is an error that lists the nearest existing coordinates.";
const VALIDATE_DESC: &str = "Check a GraphQL operation against the schema without running it. Each problem comes back on one line with the location, the closest existing coordinates and the types to introspect. Also says whether execute would accept it (queries only unless mutations are enabled locally).";
const DOCS_DESC: &str = "Search the API's documentation (prose: what a field means, limits, examples, guides). Returns ranked sections, each with its link (url#anchor), heading path and text. Use it when the schema's descriptions do not say enough. Defaults: limit 5 (max 20), budgetTokens 2000 (the sections shown stop before the one that would pass it).";
/// Most sections one `search_docs` call returns.
const DOCS_MAX_LIMIT: usize = 20;
/// `search_docs`'s default token budget: about two screens of prose, a tenth of a
/// 20k-token tool allowance.
const DOCS_DEFAULT_BUDGET: usize = 2000;

/// Arguments of `search_docs`.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocsRequest {
    /// What to look up, in plain words.
    pub query: String,
    /// Most sections (default 5, max 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Stop before the section that would take the answer over this many tokens
    /// (default 2000).
    #[serde(default)]
    pub budget_tokens: Option<usize>,
}

const EXECUTE_DESC: &str = "Run a GraphQL operation against the API and return its data. It is validated first. Queries only: mutations are refused unless the server's local config allows them; subscriptions are refused. GraphQL errors come back as an error result with any partial data. Large responses are cut with a visible marker.";

#[tool_router]
impl GqlnavMcp {
    /// A handler over shared state: the four navigation tools, and the compiled tools
    /// when the state has them.
    pub fn new(state: Arc<AppState>) -> Self {
        let mut tool_router = Self::tool_router();
        if state.docs.is_none() {
            tool_router.remove_route("search_docs");
        }
        if let Some(set) = &state.compiled {
            for t in &set.tools {
                tool_router.add_route(compiled_route(set, t));
            }
        }
        GqlnavMcp { state, tool_router }
    }

    #[tool(name = "search_schema", description = SEARCH_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn search_schema(
        &self,
        Parameters(p): Parameters<SearchRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |t| t.search_schema(&p)).await
    }

    #[tool(name = "introspect", description = INTROSPECT_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn introspect(
        &self,
        Parameters(p): Parameters<IntrospectRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |t| t.introspect(&p)).await
    }

    #[tool(name = "validate", description = VALIDATE_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn validate(
        &self,
        Parameters(p): Parameters<OperationRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |t| t.validate(&p)).await
    }

    #[tool(name = "search_docs", description = DOCS_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn search_docs(
        &self,
        Parameters(p): Parameters<DocsRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(docs) = self.state.docs.clone() else {
            return Ok(CallToolResult::error(vec![Content::text(
                "no documentation is served: start the server with --docs DIR|URL",
            )]));
        };
        tokio::task::spawn_blocking(move || docs_result(&docs, &p))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    #[tool(name = "execute", description = EXECUTE_DESC, annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true))]
    async fn execute(
        &self,
        Parameters(p): Parameters<OperationRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(to_result(self.state.tools.execute(&p).await))
    }
}

impl GqlnavMcp {
    /// Run a CPU-bound tool off the async reactor.
    async fn blocking(
        &self,
        f: impl FnOnce(&Toolbox) -> ToolOutput + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.state.tools.clone();
        tokio::task::spawn_blocking(move || f(&tools))
            .await
            .map(to_result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

/// Run one docs search and render it: one block per section (link, heading path, tokens,
/// text), then a line with the totals; the structured form carries the same hits.
fn docs_result(docs: &gqlnav_docs::LiveDocs, p: &DocsRequest) -> CallToolResult {
    if p.query.trim().is_empty() {
        return CallToolResult::error(vec![Content::text(
            "`query` is empty: say what to look up in plain words",
        )]);
    }
    let limit = p.limit.unwrap_or(5).clamp(1, DOCS_MAX_LIMIT);
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
    let annotations: ToolAnnotations =
        serde_json::from_value(ToolSet::annotations(t)).unwrap_or_default();
    let attr = Tool::new(t.name.clone(), t.description.clone(), Arc::new(schema))
        .with_annotations(annotations);
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
                "Tools over the GraphQL schema {} ({} fields). Loop: search_schema (find coordinates) -> introspect (exact definitions) -> validate (check your operation) -> execute (run it{}).{}{}",
                generation.graph.source,
                generation.graph.field_count(),
                if self.state.config.tools.endpoint.is_some() { "" } else { "; no upstream is configured, so execute is unavailable" },
                match &self.state.compiled {
                    Some(set) if !set.tools.is_empty() => format!(" {} typed tools compiled from root fields run one root field each with its default fields (or the paths you pass in `fields`).", set.tools.len()),
                    _ => String::new(),
                },
                if self.state.docs.is_some() { " search_docs searches the API's documentation for what the schema does not say." } else { "" }
            ))
    }
}

/// Hosts accepted besides the configured ones: loopback names, with and without port.
fn allowed_hosts(addr: SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut v: Vec<String> = ["localhost", "127.0.0.1", "[::1]", "::1"]
        .iter()
        .flat_map(|h| [h.to_string(), format!("{h}:{port}")])
        .collect();
    v.extend(extra.iter().cloned());
    v
}

fn allowed_origins(addr: SocketAddr, extra: &[String]) -> Vec<String> {
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
    let listener = bind(addr, &state).await?;
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
    state: &AppState,
) -> Result<tokio::net::TcpListener, ServeError> {
    if !addr.ip().is_loopback() && state.config.allowed_hosts.is_empty() {
        return Err(ServeError::NotLoopback(addr));
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen(addr, e))
}
