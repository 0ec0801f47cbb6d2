//! `gqlnav serve`: the MCP server (stdio or streamable HTTP) and the GraphQL endpoint.
//!
//! Precedence: built-in defaults < `--config FILE` (TOML) < `GQLNAV_*` environment
//! variables < flags. Headers come from the caller (`--header`, `GQLNAV_HEADERS`) and
//! from `[upstream] headers` in the config file; they are never printed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use gqlnav_schema::SchemaGraph;
use gqlnav_search::{Analyzer, Bm25Backend, Bm25Config, SearchBackend, SearchContext};
use gqlnav_serve::{AppState, BackendFactory, MutationPolicy, ServeConfig};

/// Flags of `gqlnav serve`.
#[derive(Args, Debug, Clone, Default)]
pub struct ServeArgs {
    /// Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio (loopback only
    /// unless [server] allowed_hosts is set). Port 0 picks a free port (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Also serve a GraphQL endpoint at http://ADDR/graphql that answers __search /
    /// __definitions and introspection locally and forwards the rest to --endpoint.
    #[arg(long, value_name = "ADDR")]
    pub graphql: Option<String>,
    /// Upstream GraphQL API (http or https) that `execute` and the endpoint forward to.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// TOML config file (see docs/serve.md for every key).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Mutations `execute` may run: operation names (comma-separated) or `all`.
    /// Default: none.
    #[arg(long, value_name = "NAME,…|all")]
    pub allow_mutations: Option<String>,
    /// Write logs to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Saved BM25 index directory: loaded when it matches the schema, else built and
    /// saved there. Without it the structure ranker is built in memory at start.
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Deepest selection nesting accepted by execute and the endpoint.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Upstream request timeout, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Seconds between schema-file checks for a rebuild (0 = never).
    #[arg(long, value_name = "SECONDS")]
    pub reload_seconds: Option<u64>,
    /// With --graphql only: do not also serve MCP on stdio.
    #[arg(long)]
    pub no_stdio: bool,
}

/// Merge defaults, the config file, the environment and the flags.
pub fn config_from(args: &ServeArgs, headers: Vec<(String, String)>) -> Result<ServeConfig> {
    let mut c = match &args.config {
        Some(p) => ServeConfig::from_file(p)?,
        None => ServeConfig::default(),
    };
    c.apply_env()?;
    // Caller headers (`--header`) after the file's, so a flag can add to them.
    c.headers.extend(headers);
    if let Some(v) = &args.http {
        c.http = Some(v.clone());
    }
    if let Some(v) = &args.graphql {
        c.graphql = Some(v.clone());
    }
    if let Some(v) = &args.endpoint {
        c.endpoint = Some(v.clone());
    }
    if let Some(v) = &args.allow_mutations {
        c.policy.mutations = MutationPolicy::parse(v);
    }
    if let Some(v) = &args.log_file {
        c.log_file = Some(v.clone());
    }
    if let Some(v) = &args.index_dir {
        c.index_dir = Some(v.clone());
    }
    if let Some(v) = args.max_depth {
        c.policy.max_depth = v;
    }
    if let Some(v) = args.timeout {
        c.policy.timeout = Duration::from_secs(v.max(1));
    }
    if let Some(v) = args.reload_seconds {
        c.reload_poll = (v > 0).then(|| Duration::from_secs(v));
    }
    c.check()?;
    Ok(c)
}

/// A factory that loads a saved BM25 index from `dir` (or builds and saves one there).
pub fn saved_index_factory(dir: PathBuf) -> BackendFactory {
    Arc::new(move |ctx: &SearchContext| {
        if dir.read_dir().is_ok_and(|mut d| d.next().is_some()) {
            match Bm25Backend::load(&dir, ctx) {
                Ok(b) => return Ok(Box::new(b) as Box<dyn SearchBackend>),
                Err(e) => {
                    eprintln!("gqlnav: saved index not used ({e}); indexing in memory");
                    let mut b = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
                    b.index(ctx).map_err(|e| e.to_string())?;
                    return Ok(Box::new(b));
                }
            }
        }
        let mut b = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
        b.index_to_dir(ctx, &dir).map_err(|e| e.to_string())?;
        Ok(Box::new(b))
    })
}

/// Run `gqlnav serve` with an already loaded schema.
///
/// * `source`: where the schema came from; when it is a file, it is watched and the
///   index rebuilt when it changes.
/// * `headers`: trusted upstream headers (`--header`, `GQLNAV_HEADERS`), never printed.
/// * `backend_factory`: builds an indexed ranker for a context; `None` = the default
///   structure ranker (or the saved BM25 index with `--index-dir`).
pub fn run(
    args: ServeArgs,
    graph: Arc<SchemaGraph>,
    source: String,
    headers: Vec<(String, String)>,
    backend_factory: Option<BackendFactory>,
) -> Result<()> {
    let t0 = Instant::now();
    let config = config_from(&args, headers)?;
    gqlnav_serve::init_logging(&config.log_level, config.log_file.as_deref())?;
    let factory = match (&backend_factory, &config.index_dir) {
        (Some(f), _) => Some(f.clone()),
        (None, Some(dir)) => Some(saved_index_factory(dir.clone())),
        (None, None) => None,
    };
    let poll = config.reload_poll;
    let stdio = config.http.is_none() && !(args.no_stdio && config.graphql.is_some());
    let state =
        AppState::build(graph.clone(), factory, config).context("building the search index")?;
    // `search_schema` with `budget_tokens` returns a slice (crates/slice), built and warmed
    // in the background.
    let encoding = state.meter.encoding();
    let state = Arc::new(state.with_slicer(gqlnav_serve::slice_hook(graph.clone(), encoding)));
    eprintln!(
        "gqlnav: index ready for {} ({} fields, {}) in {} ms",
        graph.source,
        graph.field_count(),
        state.snapshot().backend.name(),
        t0.elapsed().as_millis()
    );
    if let Some(every) = poll {
        if Path::new(&source).is_file() {
            state.watch_schema_file(PathBuf::from(&source), every);
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(gqlnav_serve::serve(state, stdio))
}
