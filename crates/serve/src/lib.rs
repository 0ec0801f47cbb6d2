//! gqlnav serve stage: an MCP server (stdio and streamable HTTP) with four tools —
//! `search_schema`, `introspect`, `validate`, `execute` — and a GraphQL endpoint that
//! answers the semantic-introspection RFC's `__search` / `__definitions`, standard
//! introspection locally, and forwards everything else to an upstream API.
//!
//! Safety is on by default: loopback listeners with Host/Origin checks, bounded request
//! bodies, http(s)-only upstreams, no redirects, bounded upstream responses and time,
//! bounded query depth, mutations refused unless allowed by local config, subscriptions
//! refused, and trusted headers never echoed (tool results and logs are scrubbed).
//!
//! ```no_run
//! # async fn demo(graph: std::sync::Arc<gqlnav_schema::SchemaGraph>) -> anyhow::Result<()> {
//! use std::sync::Arc;
//! let state = Arc::new(gqlnav_serve::AppState::build(graph, None, Default::default())?);
//! gqlnav_serve::run_stdio(state).await
//! # }
//! ```

pub mod config;
pub mod exec;
pub mod graphql;
pub mod mcp;
pub mod state;
pub mod tools;
pub mod util;

use std::path::Path;

pub use config::{ExecPolicy, MutationPolicy, ServeConfig};
pub use graphql::{graphql_router, run_graphql};
pub use mcp::{http_router, run_http, run_stdio, GqlnavMcp};
pub use state::{
    default_backend_factory, slice_hook, AppState, BackendFactory, SliceOut, Slicer, Snapshot,
};
pub use tools::ToolOutput;

/// Send `tracing` output to stderr, or to a file when one is given. Never to stdout
/// (stdout is the MCP channel in stdio mode). Safe to call once per process; later
/// calls are ignored.
pub fn init_logging(level: &str, file: Option<&Path>) -> anyhow::Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(false);
    let r = match file {
        Some(p) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| anyhow::anyhow!("cannot open log file {}: {e}", p.display()))?;
            builder.with_writer(std::sync::Mutex::new(f)).try_init()
        }
        None => builder.with_writer(std::io::stderr).try_init(),
    };
    let _ = r;
    Ok(())
}

/// Run what the configuration asks for: the MCP server over streamable HTTP when
/// `config.http` is set (else over stdio), plus the GraphQL endpoint when
/// `config.graphql` is set. With only `graphql` set and `stdio` false, only the
/// endpoint runs. Returns when the stdio client disconnects or a listener fails.
pub async fn serve(state: std::sync::Arc<AppState>, stdio: bool) -> anyhow::Result<()> {
    let mut tasks = tokio::task::JoinSet::new();
    if let Some(a) = &state.config.graphql {
        let addr = a.parse()?;
        let st = state.clone();
        tasks.spawn(async move { run_graphql(addr, st).await });
    }
    if let Some(a) = &state.config.http {
        let addr = a.parse()?;
        let st = state.clone();
        tasks.spawn(async move { run_http(addr, st).await });
    } else if stdio {
        let st = state.clone();
        tasks.spawn(async move { run_stdio(st).await });
    }
    if tasks.is_empty() {
        anyhow::bail!("nothing to serve: give --http ADDR, --graphql ADDR, or use stdio");
    }
    // The first task to finish ends the server (stdio: the client closed the stream).
    match tasks.join_next().await {
        Some(Ok(r)) => r,
        Some(Err(e)) => Err(anyhow::anyhow!("server task failed: {e}")),
        None => Ok(()),
    }
}
