//! The MCP server (rmcp): four tools over stdio or streamable HTTP.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::Value;

use crate::exec::{self, ExecuteArgs};
use crate::state::AppState;
use crate::tools::{self, IntrospectArgs, SearchArgs, ToolOutput, ValidateArgs};

fn ten() -> u32 {
    10
}
fn one() -> u32 {
    1
}

/// `search_schema` input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    /// What you need, in plain words: one intent per call, e.g. "who reviewed a pull request".
    pub query: String,
    /// Results per page. Default 10, at most 50.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: u32,
    /// Optional token budget (o200k_base) for the whole answer. Default: none (no budget).
    #[serde(default, alias = "budget_tokens")]
    pub budget_tokens: Option<u32>,
    /// Cursor from a previous call's "More results" line, to get the next page. Default: none (first page).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `introspect` input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntrospectParams {
    /// Schema coordinates to show: "Type", "Type.field", "Type.field(arg:)", "Enum.VALUE", "@directive". Default: none (then `type` is required).
    #[serde(default)]
    pub coordinates: Option<Vec<String>>,
    /// A single type name (shorthand for coordinates: [type]). Default: none.
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    /// 1 = exactly what was asked; 2 = also the types it references; at most 3. Default 1.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 3))]
    pub depth: u32,
}

/// `validate` input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidateParams {
    /// The GraphQL document (query, mutation or subscription, with any fragments).
    pub operation: String,
    /// Variables as a JSON object (or a JSON string). Default: none.
    #[serde(default)]
    pub variables: Option<Value>,
    /// Which operation to check when the document has several. Default: the only one.
    #[serde(default, alias = "operation_name")]
    pub operation_name: Option<String>,
}

/// `execute` input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteParams {
    /// The GraphQL document to run against the API. Queries only unless the server's config allows mutations.
    pub operation: String,
    /// Variables as a JSON object (or a JSON string). Default: none.
    #[serde(default)]
    pub variables: Option<Value>,
    /// Which operation to run when the document has several. Default: the only one.
    #[serde(default, alias = "operation_name")]
    pub operation_name: Option<String>,
}

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

const SEARCH_DESC: &str = "Find the schema coordinates (Type.field) that answer a question about this GraphQL API. Returns ranked coordinates with kind, score (0-1, relative to the best hit), a one-line definition and the path of fields from the Query root. Pass one short intent in plain words; call again with other words for other parts of a task. Then introspect the coordinates you will use. Defaults: limit 10 (max 50), no budget, first page.";
const INTROSPECT_DESC: &str = "Show the SDL of exactly the schema elements named: a type's definition, a field with its arguments, an enum value, a directive. depth 2 also shows the types they reference (depth 1 by default, max 3). An unknown name is an error that lists the nearest existing coordinates.";
const VALIDATE_DESC: &str = "Check a GraphQL operation against the schema without running it. Each problem comes back on one line with the location, the closest existing coordinates and the types to introspect. Also says whether execute would accept it (queries only unless mutations are enabled locally).";
const EXECUTE_DESC: &str = "Run a GraphQL operation against the API and return its data. It is validated first. Queries only: mutations are refused unless the server's local config allows them; subscriptions are refused. GraphQL errors come back as an error result with any partial data. Large responses are cut with a visible marker.";

#[tool_router]
impl GqlnavMcp {
    /// A handler over shared state.
    pub fn new(state: Arc<AppState>) -> Self {
        GqlnavMcp {
            state,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(name = "search_schema", description = SEARCH_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn search_schema(
        &self,
        Parameters(p): Parameters<SearchParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        let args = SearchArgs {
            query: p.query,
            limit: p.limit as usize,
            budget_tokens: p.budget_tokens.map(|b| b as usize),
            cursor: p.cursor,
        };
        let out = tokio::task::spawn_blocking(move || tools::search_schema(&state, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(to_result(out))
    }

    #[tool(name = "introspect", description = INTROSPECT_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn introspect(
        &self,
        Parameters(p): Parameters<IntrospectParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut coordinates = p.coordinates.unwrap_or_default();
        if let Some(t) = p.type_name {
            coordinates.insert(0, t);
        }
        let args = IntrospectArgs {
            coordinates,
            depth: p.depth as usize,
        };
        let state = self.state.clone();
        let out = tokio::task::spawn_blocking(move || tools::introspect(&state, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(to_result(out))
    }

    #[tool(name = "validate", description = VALIDATE_DESC, annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
    async fn validate(
        &self,
        Parameters(p): Parameters<ValidateParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let variables = match tools::variables_value(p.variables) {
            Ok(v) => v,
            Err(e) => return Ok(to_result(ToolOutput::err(e, None))),
        };
        let args = ValidateArgs {
            operation: p.operation,
            variables,
            operation_name: p.operation_name,
        };
        let state = self.state.clone();
        let out = tokio::task::spawn_blocking(move || tools::validate(&state, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(to_result(out))
    }

    #[tool(name = "execute", description = EXECUTE_DESC, annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true))]
    async fn execute(
        &self,
        Parameters(p): Parameters<ExecuteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let out = exec::execute(
            &self.state,
            ExecuteArgs {
                operation: p.operation,
                variables: p.variables,
                operation_name: p.operation_name,
            },
        )
        .await;
        Ok(to_result(out))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for GqlnavMcp {
    fn get_info(&self) -> ServerConfig {
        let snap = self.state.snapshot();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gqlnav", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Tools over the GraphQL schema {} ({} fields). Loop: search_schema (find coordinates) -> introspect (exact definitions) -> validate (check your operation) -> execute (run it{}).",
                snap.graph.source,
                snap.graph.field_count(),
                if self.state.config.endpoint.is_some() { "" } else { "; no upstream is configured, so execute is unavailable" }
            ))
    }
}

/// Serve MCP over stdin/stdout until the client closes the stream. Nothing else may
/// write to stdout while this runs (logs go to stderr or a file).
pub async fn run_stdio(state: Arc<AppState>) -> anyhow::Result<()> {
    let svc = GqlnavMcp::new(state)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("MCP stdio start failed: {e}"))?;
    tracing::info!("MCP server ready on stdio");
    let _ = svc.waiting().await;
    Ok(())
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
        .with_max_request_body_bytes(state.config.policy.max_request_bytes)
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
pub async fn run_http(addr: SocketAddr, state: Arc<AppState>) -> anyhow::Result<()> {
    let listener = bind(addr, &state).await?;
    let real = listener.local_addr()?;
    tracing::info!("MCP server ready on http://{real}/mcp");
    eprintln!("gqlnav: MCP streamable HTTP on http://{real}/mcp");
    axum::serve(listener, http_router(real, state)).await?;
    Ok(())
}

/// Bind a listener; a non-loopback address needs an explicit allowed host in config.
pub(crate) async fn bind(
    addr: SocketAddr,
    state: &AppState,
) -> anyhow::Result<tokio::net::TcpListener> {
    if !addr.ip().is_loopback() && state.config.allowed_hosts.is_empty() {
        anyhow::bail!(
            "refusing to listen on {addr}: it is not a loopback address. Use 127.0.0.1, or list the public host names in [server] allowed_hosts"
        );
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))
}
