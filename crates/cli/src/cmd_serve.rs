//! `gqlnav serve`: the MCP server (stdio or streamable HTTP) and the GraphQL endpoint.
//!
//! Precedence: built-in defaults < `--config FILE` (TOML) < `GQLNAV_*` environment
//! variables < flags. Headers come from the caller (`--header`, `GQLNAV_HEADERS`) and
//! from `[upstream] headers` in the config file; they are never printed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use gqlnav_corpus::TokenMeter;
use gqlnav_schema::SchemaGraph;
use gqlnav_serve::{LaunchOptions, ServeConfig};
use gqlnav_tools::{BackendFactory, MutationPolicy, ToolError};

use crate::backends::BackendArgs;

/// Flags of `gqlnav serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Serve many graphs from one process: a TOML file with one [[graph]] table per
    /// graph (name, schema, endpoint, headers, allow_mutations, index, docs) and optional
    /// [[credential]] scopes (docs/serve.md, "Many graphs"). Every tool then takes
    /// `graph`; the GraphQL endpoint answers at /graphql/NAME. A --config file with
    /// [[graph]] tables does the same.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["endpoint", "index_dir", "compiled_tools", "docs", "allow_mutations"])]
    pub graphs: Option<PathBuf>,
    /// With --graphs: load every graph before serving (default: each on first use).
    #[arg(long, requires = "graphs")]
    pub preload: bool,
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
    /// Saved index made by `gqlnav index` for this schema and ranker: loaded instead of
    /// indexing at start (fast start). An index for another schema or ranker is refused
    /// with a message saying how to rebuild it.
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Deepest selection nesting accepted by execute and the endpoint.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Timeout of each upstream request (execute and the endpoint's forwarding), in
    /// seconds. Default 30.
    #[arg(long, value_name = "SECONDS")]
    pub upstream_timeout: Option<u64>,
    /// Seconds between schema-file checks for a rebuild (0 = never).
    #[arg(long, value_name = "SECONDS")]
    pub reload_seconds: Option<u64>,
    /// With --graphql only: do not also serve MCP on stdio.
    #[arg(long)]
    pub no_stdio: bool,
    /// Also serve typed tools compiled from root fields (see `gqlnav tools`): `auto`
    /// (the query root fields that reach the most of the schema, at most
    /// --max-compiled-tools) or `name,name`. Their calls go through execute's policy;
    /// a mutation needs --allow-mutations too.
    #[arg(long = "tools", value_name = "auto|NAME,…")]
    pub compiled_tools: Option<String>,
    /// Most compiled tools with `--tools auto` (default 16).
    #[arg(long, value_name = "N")]
    pub max_compiled_tools: Option<usize>,
    /// Also serve the API's documentation through the MCP tool `search_docs`: a saved
    /// index (`gqlnav docs index … --out DIR`), a directory of HTML/Markdown, a site root
    /// or a sitemap.xml URL (indexed at start into --docs-index-dir, or served from the
    /// last index there).
    #[arg(long, value_name = "DIR|URL")]
    pub docs: Option<String>,
    /// Where a --docs source is indexed. Default: $XDG_CACHE_HOME/gqlnav/docs/<hash of
    /// the source> (~/.cache when unset).
    #[arg(long, value_name = "DIR", requires = "docs")]
    pub docs_index_dir: Option<PathBuf>,
    /// Reindex --docs on this schedule (incremental: unchanged pages are reused), e.g.
    /// 6h, 30m, 90s. A failed reindex keeps the old index and logs why. Default: never.
    #[arg(long, value_name = "DURATION", requires = "docs", value_parser = parse_duration)]
    pub docs_reindex: Option<Duration>,
    /// Embedding model for hybrid docs search (the one the index was built with);
    /// without it docs search is BM25.
    #[arg(long, value_name = "DIR", requires = "docs")]
    pub docs_model: Option<PathBuf>,
    /// The ranker that answers search and budgeted slices (one ranker for both).
    #[command(flatten)]
    pub backend: BackendArgs,
}

/// Merge defaults, the config file, the environment and the flags.
pub fn config_from(args: &ServeArgs, headers: Vec<(String, String)>) -> Result<ServeConfig> {
    let mut c = match &args.config {
        Some(p) => ServeConfig::from_file(p)?,
        None => ServeConfig::default(),
    };
    c.apply_env()?;
    // Caller headers (`--header`) after the file's, so a flag can add to them.
    c.tools.headers.extend(headers);
    if let Some(v) = &args.http {
        c.http = Some(v.clone());
    }
    if let Some(v) = &args.graphql {
        c.graphql = Some(v.clone());
    }
    if let Some(v) = &args.endpoint {
        c.tools.endpoint = Some(v.clone());
    }
    if let Some(v) = &args.allow_mutations {
        c.tools.policy.mutations = MutationPolicy::parse(v);
    }
    if let Some(v) = &args.compiled_tools {
        c.compiled = gqlnav_serve::CompiledTools::parse(v);
    }
    if let Some(n) = args.max_compiled_tools {
        c.max_compiled = n.max(1);
    }
    if let Some(v) = &args.log_file {
        c.log_file = Some(v.clone());
    }
    if let Some(v) = &args.index_dir {
        c.index_dir = Some(v.clone());
    }
    if let Some(v) = args.max_depth {
        c.tools.policy.cost.max_depth = v;
    }
    if let Some(v) = args.upstream_timeout {
        c.tools.policy.timeout = Duration::from_secs(v.max(1));
    }
    if let Some(v) = args.reload_seconds {
        c.reload_poll = (v > 0).then(|| Duration::from_secs(v));
    }
    c.check()?;
    Ok(c)
}

/// The factory that builds (or, with an index directory, loads) the ranker of every
/// generation from the ranker flags.
pub fn backend_factory(
    backend: &BackendArgs,
    index_dir: Option<PathBuf>,
) -> Result<BackendFactory> {
    let specs = backend.specs(&[gqlnav_tools::DEFAULT_RENDERING])?;
    let [spec] = specs.as_slice() else {
        anyhow::bail!("serve runs one ranker: give one --backend (and one --analyzer)");
    };
    let (backend, spec) = (backend.clone(), spec.clone());
    if let Some(dir) = index_dir {
        return Ok(Arc::new(
            move |graph: Arc<SchemaGraph>, _meter: &TokenMeter| {
                crate::cmd_index::load(&dir, &backend, graph)
                    .map_err(|e| ToolError::Index(format!("{e:#}")))
            },
        ));
    }
    Ok(gqlnav_tools::in_memory_factory(move |ctx| {
        let mut b = backend
            .build(&spec)
            .map_err(|e| ToolError::Index(format!("{e:#}")))?;
        b.index(ctx).map_err(|e| ToolError::Index(e.to_string()))?;
        Ok(Arc::from(b))
    }))
}

/// Run `gqlnav serve` with an already loaded schema.
///
/// * `source`: where the schema came from; when it is a file, it is watched and the
///   index rebuilt when it changes.
/// * `headers`: trusted upstream headers (`--header`, `GQLNAV_HEADERS`), never printed.
pub fn run(
    args: ServeArgs,
    graph: Arc<SchemaGraph>,
    source: String,
    headers: Vec<(String, String)>,
) -> Result<()> {
    let config = config_from(&args, headers)?;
    let factory = backend_factory(&args.backend, config.index_dir.clone())?;
    let stdio = config.http.is_none() && !(args.no_stdio && config.graphql.is_some());
    let docs = match &args.docs {
        None => None,
        Some(src) => Some(gqlnav_serve::DocsServe {
            live: Arc::new(open_docs(&args, src)?),
            reindex: args.docs_reindex,
        }),
    };
    gqlnav_serve::launch(LaunchOptions {
        graph,
        source,
        config,
        factory: Some(factory),
        stdio,
        docs,
    })?;
    Ok(())
}

/// How the multi-graph server loads a graph: the schema flags' caps and timeouts with
/// the graph's own source and headers, and the ranker flags with the graph's saved index.
struct CliLoader {
    schema: crate::common::SchemaArgs,
    backend: BackendArgs,
}

impl gqlnav_serve::GraphLoader for CliLoader {
    fn schema(&self, spec: &gqlnav_serve::GraphSpec) -> std::result::Result<SchemaGraph, String> {
        self.schema
            .for_graph(spec)
            .load(true)
            .map_err(|e| format!("{e:#}"))
    }

    fn factory(
        &self,
        spec: &gqlnav_serve::GraphSpec,
    ) -> std::result::Result<BackendFactory, String> {
        backend_factory(&self.backend, spec.index.clone()).map_err(|e| format!("{e:#}"))
    }

    fn docs(
        &self,
        spec: &gqlnav_serve::GraphSpec,
    ) -> std::result::Result<Option<Arc<gqlnav_docs::LiveDocs>>, String> {
        let Some(src) = &spec.docs else {
            return Ok(None);
        };
        open_docs_at(src, spec.docs_index.clone(), None)
            .map(|d| Some(Arc::new(d)))
            .map_err(|e| format!("{e:#}"))
    }
}

/// The graphs file `gqlnav serve` was given: `--graphs`, or a `--config` file with
/// [[graph]] tables.
pub fn graphs_file(args: &ServeArgs) -> Result<Option<PathBuf>> {
    if let Some(g) = &args.graphs {
        return Ok(Some(g.clone()));
    }
    let Some(c) = &args.config else {
        return Ok(None);
    };
    Ok(gqlnav_serve::GraphsFile::holds_graphs(c)?.then(|| c.clone()))
}

/// Run `gqlnav serve --graphs FILE`: the file's [server] section, then GQLNAV_LOG and
/// GQLNAV_LOG_FILE, then the listener flags (--http, --graphql, --log-file,
/// --reload-seconds).
pub fn run_graphs(
    args: ServeArgs,
    file: &std::path::Path,
    schema: crate::common::SchemaArgs,
) -> Result<()> {
    if schema.schema.is_some() {
        anyhow::bail!(
            "--schema names one graph; with --graphs each [[graph]] table names its schema"
        );
    }
    let mut f = gqlnav_serve::GraphsFile::from_file(file)?;
    let c = &mut f.server;
    // The server-wide variables; the others (endpoint, headers, …) are per graph here.
    if let Ok(v) = std::env::var("GQLNAV_LOG") {
        c.log_level = v;
    }
    if let Ok(v) = std::env::var("GQLNAV_LOG_FILE") {
        c.log_file = Some(v.into());
    }
    if let Some(v) = &args.http {
        c.http = Some(v.clone());
    }
    if let Some(v) = &args.graphql {
        c.graphql = Some(v.clone());
    }
    if let Some(v) = &args.log_file {
        c.log_file = Some(v.clone());
    }
    if let Some(v) = args.reload_seconds {
        c.reload_poll = (v > 0).then(|| Duration::from_secs(v));
    }
    let stdio = c.http.is_none() && !(args.no_stdio && c.graphql.is_some());
    gqlnav_serve::launch_graphs(gqlnav_serve::GraphsLaunch {
        file: f,
        loader: Arc::new(CliLoader {
            schema,
            backend: args.backend.clone(),
        }),
        stdio,
        preload: args.preload,
    })?;
    Ok(())
}

/// `6h`, `30m`, `90s`, `2d` or plain seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("`{s}` is not a duration like 6h, 30m or 90s"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => return Err(format!("`{s}`: the unit must be s, m, h or d (e.g. 6h)")),
    };
    if secs == 0 {
        return Err("a reindex interval must be at least 1s".into());
    }
    Ok(Duration::from_secs(secs))
}

/// The default index directory of a docs source: one per source under the user cache.
fn default_docs_dir(src: &str) -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let abs = std::fs::canonicalize(src)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| src.to_string());
    base.join("gqlnav")
        .join("docs")
        .join(&gqlnav_docs::content_hash(abs.as_bytes())[..16])
}

/// Load or build the served docs index, with a progress bar while a first build runs.
fn open_docs(args: &ServeArgs, src: &str) -> Result<gqlnav_docs::LiveDocs> {
    open_docs_at(src, args.docs_index_dir.clone(), args.docs_model.as_deref())
}

/// Load or build a docs index for `src` in `dir` (default: the user's cache, by source),
/// with a progress bar while a first build runs.
fn open_docs_at(
    src: &str,
    dir: Option<PathBuf>,
    model: Option<&std::path::Path>,
) -> Result<gqlnav_docs::LiveDocs> {
    use anyhow::Context;
    let dir = dir.unwrap_or_else(|| default_docs_dir(src));
    let origin = gqlnav_docs::DocsOrigin::parse(src, dir, gqlnav_docs::BuildOptions::default())?;
    let embedder: Option<Arc<dyn gqlnav_embed::Embedder>> = match model {
        None => None,
        Some(d) => Some(Arc::new(
            gqlnav_embed::LocalModel::load(d, gqlnav_embed::PromptOverride::default())
                .with_context(|| format!("loading the docs model from {}", d.display()))?,
        )),
    };
    let bar = crate::common::progress(0, "docs pages");
    let t0 = std::time::Instant::now();
    let live = gqlnav_docs::LiveDocs::open(origin, embedder, &|_, done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })
    .with_context(|| format!("serving the docs {src}"))?;
    bar.finish_and_clear();
    eprintln!(
        "gqlnav: docs ready from {} ({} chunks, {:?} search) in {} ms",
        live.origin().describe(),
        live.searcher().index.chunks.len(),
        live.mode(),
        t0.elapsed().as_millis()
    );
    Ok(live)
}
