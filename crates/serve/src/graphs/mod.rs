//! One server for many graphs (`gqlnav serve --graphs graphs.toml`): the graphs file
//! ([`GraphsFile`]), the graphs loaded on first use and reloaded one by one
//! ([`GraphSet`]), scopes per credential ([`Scopes`]), the MCP handler whose tools take a
//! `graph` argument ([`GraphsMcp`]), and the GraphQL endpoint at `/graphql/NAME`.

mod config;
mod mcp;
mod registry;
mod scope;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query as UrlQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use config::{check_name, Credential, GraphSpec, GraphsFile, MAX_GRAPHS};
pub use mcp::{GraphsMcp, GRAPH_ARG};
pub use registry::{GraphLoader, GraphSet, GraphStatus};
pub use scope::{Access, Scopes};

use crate::config::ServeConfig;
use crate::error::ServeError;
use crate::graphql::{handle_request, read_get, read_post, Refused};

/// What the multi-graph server shares between its transports.
#[derive(Clone)]
struct Shared {
    set: Arc<GraphSet>,
    scopes: Arc<Scopes>,
    config: Arc<ServeConfig>,
}

/// The refusal of a request that carries no configured credential.
fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [("www-authenticate", "Bearer")],
        "send a credential this server knows: Authorization: Bearer TOKEN (or the header the config names)\n",
    )
        .into_response()
}

/// `/mcp` (streamable HTTP; a request without a known credential is refused with 401
/// before it reaches MCP) and `/health`, for the graphs in `shared`.
fn mcp_router(addr: SocketAddr, shared: Shared) -> axum::Router {
    let cfg = StreamableHttpServerConfig::default()
        .with_allowed_hosts(crate::mcp::allowed_hosts(
            addr,
            &shared.config.allowed_hosts,
        ))
        .with_allowed_origins(crate::mcp::allowed_origins(
            addr,
            &shared.config.allowed_origins,
        ))
        .enforce_origin_validation()
        .with_max_request_body_bytes(shared.config.tools.policy.max_request_bytes)
        .with_sse_keep_alive(Some(std::time::Duration::from_secs(15)));
    let sh = shared.clone();
    let service: StreamableHttpService<GraphsMcp, LocalSessionManager> = StreamableHttpService::new(
        move || {
            Ok(GraphsMcp::new(
                sh.set.clone(),
                sh.scopes.clone(),
                sh.config.tools.clone(),
                true,
            ))
        },
        Default::default(),
        cfg,
    );
    let scopes = shared.scopes.clone();
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let scopes = scopes.clone();
                async move {
                    if scopes.access(req.headers()) == Access::Denied {
                        return unauthorized();
                    }
                    next.run(req).await
                }
            },
        ))
        .route("/health", axum::routing::get(|| async { "ok" }))
}

/// The GraphQL endpoint of every graph at `/graphql/NAME` (POST and GET); a graph the
/// caller may not see answers 404 like one that does not exist.
fn graphql_router(port: u16, shared: Shared) -> axum::Router {
    let limit = shared.config.tools.policy.max_request_bytes;
    let guard = shared.config.clone();
    axum::Router::new()
        .route(
            "/graphql/{graph}",
            axum::routing::post(post_graph).get(get_graph),
        )
        .route("/health", axum::routing::get(|| async { "ok" }))
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let config = guard.clone();
                async move { crate::graphql::guard_host(port, &config, req, next).await }
            },
        ))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared)
}

/// The graph's state for a GraphQL request, or why it is refused.
async fn graph_state(
    shared: &Shared,
    headers: &HeaderMap,
    graph: &str,
) -> Result<Arc<crate::AppState>, Refused> {
    let access = shared.scopes.access(headers);
    if access == Access::Denied {
        return Err(Refused(
            StatusCode::UNAUTHORIZED,
            "send a credential this server knows: Authorization: Bearer TOKEN (or the header the config names)".into(),
        ));
    }
    if !access.sees(graph) || !shared.set.contains(graph) {
        return Err(Refused(
            StatusCode::NOT_FOUND,
            format!("no graph `{graph}` here"),
        ));
    }
    let set = shared.set.clone();
    let g = graph.to_string();
    match tokio::task::spawn_blocking(move || set.get(&g)).await {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(Refused(StatusCode::SERVICE_UNAVAILABLE, e)),
        Err(e) => Err(Refused(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    }
}

async fn post_graph(
    State(shared): State<Shared>,
    UrlPath(graph): UrlPath<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let state = match graph_state(&shared, &headers, &graph).await {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    match read_post(&headers, &body) {
        Ok(req) => Json(handle_request(&state, req, false).await).into_response(),
        Err(refused) => refused.into_response(),
    }
}

async fn get_graph(
    State(shared): State<Shared>,
    UrlPath(graph): UrlPath<String>,
    headers: HeaderMap,
    UrlQuery(params): UrlQuery<HashMap<String, String>>,
) -> Response {
    let state = match graph_state(&shared, &headers, &graph).await {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    match read_get(&params) {
        Ok(req) => Json(handle_request(&state, req, true).await).into_response(),
        Err(refused) => refused.into_response(),
    }
}

/// What [`launch_graphs`] serves.
pub struct GraphsLaunch {
    /// The graphs file, read.
    pub file: GraphsFile,
    /// How graphs load (schema sources and rankers are the binary's).
    pub loader: Arc<dyn GraphLoader>,
    /// Serve MCP over stdio when no HTTP address is configured.
    pub stdio: bool,
    /// Load every graph before serving (default: each on first use).
    pub preload: bool,
}

/// Start the multi-graph server and run it until the stdio client disconnects or a
/// listener fails.
pub fn launch_graphs(opts: GraphsLaunch) -> Result<(), ServeError> {
    let GraphsLaunch {
        file,
        loader,
        stdio,
        preload,
    } = opts;
    let config = file.server;
    config.check()?;
    crate::init_logging(&config.log_level, config.log_file.as_deref())?;
    let set = Arc::new(GraphSet::new(file.graphs, loader));
    for (g, why) in set.check_sources() {
        eprintln!("gqlnav: graph `{g}`: {why}; it will answer with this error, the others serve");
    }
    let names: Vec<&str> = set.names().collect();
    eprintln!(
        "gqlnav: {} graphs: {}{}",
        names.len(),
        names
            .iter()
            .take(12)
            .copied()
            .collect::<Vec<_>>()
            .join(", "),
        if names.len() > 12 { ", …" } else { "" }
    );
    if preload {
        let t0 = std::time::Instant::now();
        let all: Vec<String> = set.names().map(str::to_string).collect();
        let ok = all.iter().filter(|g| set.get(g).is_ok()).count();
        eprintln!(
            "gqlnav: {ok} of {} graphs loaded in {} ms",
            all.len(),
            t0.elapsed().as_millis()
        );
    }
    if let Some(every) = config.reload_poll {
        set.watch(every);
    }
    let scopes = Arc::new(Scopes::new(file.credentials));
    if scopes.enabled() && config.http.is_none() && config.graphql.is_none() {
        eprintln!(
            "gqlnav: credentials apply to HTTP callers; over stdio the caller sees every graph"
        );
    }
    let shared = Shared {
        set,
        scopes,
        config: Arc::new(config),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Runtime(format!("starting the async runtime: {e}")))?;
    let result = rt.block_on(serve_graphs(shared, stdio));
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

async fn serve_graphs(shared: Shared, stdio: bool) -> Result<(), ServeError> {
    let mut tasks = tokio::task::JoinSet::new();
    if let Some(a) = &shared.config.graphql {
        let addr = crate::parse_addr("graphql", a)?;
        let sh = shared.clone();
        tasks.spawn(async move {
            let listener = crate::mcp::bind(addr, &sh.config).await?;
            let real = listener
                .local_addr()
                .map_err(|e| ServeError::Listen(addr, e))?;
            eprintln!("gqlnav: GraphQL endpoints on http://{real}/graphql/NAME");
            axum::serve(listener, graphql_router(real.port(), sh))
                .await
                .map_err(|e| ServeError::Listen(real, e))
        });
    }
    if let Some(a) = &shared.config.http {
        let addr = crate::parse_addr("http", a)?;
        let sh = shared.clone();
        tasks.spawn(async move {
            let listener = crate::mcp::bind(addr, &sh.config).await?;
            let real = listener
                .local_addr()
                .map_err(|e| ServeError::Listen(addr, e))?;
            eprintln!("gqlnav: MCP streamable HTTP on http://{real}/mcp");
            axum::serve(listener, mcp_router(real, sh))
                .await
                .map_err(|e| ServeError::Listen(real, e))
        });
    } else if stdio {
        let handler = GraphsMcp::new(
            shared.set.clone(),
            shared.scopes.clone(),
            shared.config.tools.clone(),
            false,
        );
        tasks.spawn(async move { crate::stdio::run_stdio_with(handler).await });
    }
    if tasks.is_empty() {
        return Err(ServeError::Nothing);
    }
    match tasks.join_next().await {
        Some(Ok(r)) => r,
        Some(Err(e)) => Err(ServeError::Runtime(format!("server task failed: {e}"))),
        None => Ok(()),
    }
}
