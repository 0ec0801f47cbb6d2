//! gqlnav serve stage: the transports over the tools of crates/tools — an MCP server
//! (stdio and streamable HTTP) with `search_schema`, `introspect`, `validate` and
//! `execute`, and a GraphQL endpoint that answers the semantic-introspection RFC's
//! `__search` / `__definitions`, standard introspection locally, and forwards everything
//! else to an upstream API.
//!
//! Safety is on by default: loopback listeners with Host/Origin checks, bounded request
//! bodies, http(s)-only upstreams, no redirects, bounded upstream responses and time,
//! bounded query depth, mutations refused unless allowed by local config, subscriptions
//! refused, and trusted headers never echoed (tool results and logs are scrubbed).
//!
//! The one entry point is [`launch`]; flags are parsed by the CLI (`gqlnav serve`).
//!
//! ```no_run
//! # fn demo(graph: std::sync::Arc<gqlnav_schema::SchemaGraph>) -> Result<(), gqlnav_serve::ServeError> {
//! gqlnav_serve::launch(gqlnav_serve::LaunchOptions::new(graph, "schema.graphql"))
//! # }
//! ```

mod config;
mod error;
mod graphql;
mod graphs;
mod mcp;
mod state;
mod stdio;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use gqlnav_schema::SchemaGraph;
use gqlnav_tools::{BackendFactory, Toolbox};

pub use config::{CompiledTools, ConfigError, ServeConfig, DEFAULT_MAX_COMPILED};
pub use error::ServeError;
pub use graphql::{graphql_router, handle_request, run_graphql, served_schema, GraphqlRequest};
pub use graphs::{
    check_name, launch_graphs, Access, Credential, GraphLoader, GraphSet, GraphSpec, GraphStatus,
    GraphsFile, GraphsLaunch, GraphsMcp, Scopes, GRAPH_ARG, MAX_GRAPHS,
};
pub use mcp::{http_router, run_http, DocsRequest, GqlnavMcp};
pub use state::AppState;
pub use stdio::{run_stdio, MAX_LINE_BYTES};

/// Send `tracing` output to stderr, or to a file when one is given. Never to stdout
/// (stdout is the MCP channel in stdio mode). Safe to call once per process; later
/// calls are ignored.
pub fn init_logging(level: &str, file: Option<&Path>) -> Result<(), ServeError> {
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
                .map_err(|e| ServeError::LogFile(p.display().to_string(), e))?;
            builder.with_writer(std::sync::Mutex::new(f)).try_init()
        }
        None => builder.with_writer(std::io::stderr).try_init(),
    };
    let _ = r;
    Ok(())
}

/// Run what the configuration asks for: the MCP server over streamable HTTP when
/// `config.http` is set (else over stdio when `stdio`), plus the GraphQL endpoint when
/// `config.graphql` is set. Returns when the stdio client disconnects or a listener fails.
pub async fn serve(state: Arc<AppState>, stdio: bool) -> Result<(), ServeError> {
    let mut tasks = tokio::task::JoinSet::new();
    if let Some(a) = &state.config.graphql {
        let addr = parse_addr("graphql", a)?;
        let st = state.clone();
        tasks.spawn(async move { run_graphql(addr, st).await });
    }
    if let Some(a) = &state.config.http {
        let addr = parse_addr("http", a)?;
        let st = state.clone();
        tasks.spawn(async move { run_http(addr, st).await });
    } else if stdio {
        let st = state.clone();
        tasks.spawn(async move { run_stdio(st).await });
    }
    if tasks.is_empty() {
        return Err(ServeError::Nothing);
    }
    // The first task to finish ends the server (stdio: the client closed the stream).
    match tasks.join_next().await {
        Some(Ok(r)) => r,
        Some(Err(e)) => Err(ServeError::Runtime(format!("server task failed: {e}"))),
        None => Ok(()),
    }
}

fn parse_addr(key: &str, a: &str) -> Result<std::net::SocketAddr, ServeError> {
    a.parse().map_err(|_| {
        ServeError::Config(ConfigError::Value {
            key: key.into(),
            detail: format!("`{a}` is not an address like 127.0.0.1:8808"),
        })
    })
}

/// What [`launch`] serves.
pub struct LaunchOptions {
    /// The loaded schema.
    pub graph: Arc<SchemaGraph>,
    /// Where it came from: a file is watched and re-indexed when it changes (every
    /// `config.reload_poll`).
    pub source: String,
    /// Merged configuration (file < env < flags, merged by the caller).
    pub config: ServeConfig,
    /// Builds (or loads) the indexed ranker of each generation; `None` = the structure
    /// ranker in memory.
    pub factory: Option<BackendFactory>,
    /// Serve MCP over stdio when no HTTP address is configured.
    pub stdio: bool,
    /// Documentation served by `search_docs`, and how often to reindex it.
    pub docs: Option<DocsServe>,
}

/// The documentation a server answers `search_docs` from.
pub struct DocsServe {
    pub live: Arc<gqlnav_docs::LiveDocs>,
    /// Reindex on this schedule (`--docs-reindex 6h`); `None` = never.
    pub reindex: Option<std::time::Duration>,
}

impl LaunchOptions {
    /// Serve `graph` over stdio with the default configuration and ranker.
    pub fn new(graph: Arc<SchemaGraph>, source: impl Into<String>) -> Self {
        LaunchOptions {
            graph,
            source: source.into(),
            config: ServeConfig::default(),
            factory: None,
            stdio: true,
            docs: None,
        }
    }
}

/// Reindex the docs every `every`; each outcome is logged, and a failure keeps the old
/// index (and says why).
fn schedule_docs(live: &Arc<gqlnav_docs::LiveDocs>, every: std::time::Duration) {
    let what = live.origin().describe();
    live.spawn_schedule(every, move |r| match r {
        Ok(r) if r.swapped => {
            tracing::info!(
                "docs reindexed ({what}): generation {}, {} chunks in {:.1} s",
                r.generation,
                r.chunks,
                r.seconds
            );
            eprintln!(
                "gqlnav: docs reindexed: generation {}, {} chunks in {:.1} s",
                r.generation, r.chunks, r.seconds
            );
        }
        Ok(_) => tracing::info!("docs unchanged ({what})"),
        Err(e) => {
            tracing::warn!("docs reindex failed, the last index is kept: {e}");
            eprintln!("gqlnav: docs reindex failed, the last index is kept: {e}");
        }
    });
}

/// Start the server and run it until the stdio client disconnects or a listener fails:
/// logging, the toolbox (one generation: corpus, index, slicer), the schema-file watch,
/// the async runtime and the transports.
pub fn launch(opts: LaunchOptions) -> Result<(), ServeError> {
    let t0 = Instant::now();
    let LaunchOptions {
        graph,
        source,
        config,
        factory,
        stdio,
        docs,
    } = opts;
    config.check()?;
    init_logging(&config.log_level, config.log_file.as_deref())?;
    let tools = Arc::new(Toolbox::build(
        graph.clone(),
        factory,
        config.tools.clone(),
    )?);
    eprintln!(
        "gqlnav: index ready for {} ({} fields, {}) in {} ms",
        graph.source,
        graph.field_count(),
        tools.generation().backend.name(),
        t0.elapsed().as_millis()
    );
    if let Some(every) = config.reload_poll {
        if Path::new(&source).is_file() {
            tools.watch_schema_file(PathBuf::from(&source), every);
        }
    }
    let live = docs.map(|d| {
        if let Some(every) = d.reindex {
            schedule_docs(&d.live, every);
        }
        d.live
    });
    let state = Arc::new(AppState::new(tools, config)?.with_docs(live));
    if let Some(set) = &state.compiled {
        eprintln!(
            "gqlnav: {} compiled tools: {}",
            set.tools.len(),
            set.tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError::Runtime(format!("starting the async runtime: {e}")))?;
    let result = rt.block_on(serve(state, stdio));
    // A tool call still running on the blocking pool must not keep the process alive
    // after the client left (stdin EOF): give it a moment, then go.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}
