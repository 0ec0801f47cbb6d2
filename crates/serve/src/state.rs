//! Shared server state: the current index snapshot (swapped on schema reload), the
//! optional slicer hook, the upstream client and the policy.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, SystemTime};

use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_schema::SchemaGraph;
use gqlnav_search::{SearchBackend, SearchContext, StructureBackend, StructureWeights};

use crate::config::ServeConfig;
use crate::util::Scrubber;

/// What a slicer returns: valid SDL under a token budget.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SliceOut {
    /// The SDL text.
    pub sdl: String,
    /// Its token count (the slicer's own count).
    pub tokens: usize,
    /// The coordinates it covers.
    pub coordinates: Vec<String>,
}

/// The slice hook: `(query, budget_tokens) -> slice`. Plugged in by the caller, so this
/// crate does not depend on the slice stage's API.
pub type Slicer = Arc<dyn Fn(&str, usize) -> Result<SliceOut, String> + Send + Sync>;

/// The slice hook over gqlnav's own slicer (crates/slice): the slicer is indexed and then
/// warmed (`Slicer::warm`) on a background thread, so the server starts at once; a budgeted search that arrives before
/// it is ready waits for it (root paths are then remembered question by question). Slices
/// are in the `dense` style (no descriptions, one line per definition: at a small budget
/// structure matters more, and `introspect` gives the descriptions), counted in `encoding`. The hook slices the schema
/// it was built from (a schema reload keeps the old slicer; restart to slice a changed
/// schema).
pub fn slice_hook(graph: Arc<SchemaGraph>, encoding: gqlnav_corpus::Encoding) -> Slicer {
    let cell: Arc<std::sync::OnceLock<Result<gqlnav_slice::Slicer, String>>> = Default::default();
    let build = {
        let cell = cell.clone();
        let graph = graph.clone();
        move || {
            let s =
                cell.get_or_init(|| gqlnav_slice::Slicer::new(graph).map_err(|e| e.to_string()));
            // Then remember every type's root paths (GitHub: a few seconds of this one
            // thread), so that even the first questions of each kind are fast; slices
            // asked meanwhile share the memo.
            if let Ok(s) = s {
                s.warm(&gqlnav_slice::Knobs::default(), 1);
            }
        }
    };
    std::thread::spawn(build);
    Arc::new(move |query: &str, budget: usize| {
        let slicer = cell
            .get_or_init(|| gqlnav_slice::Slicer::new(graph.clone()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| e.clone())?;
        let s = slicer
            .slice(
                query,
                &[],
                &gqlnav_slice::SliceOptions {
                    budget: Some(budget),
                    encoding,
                    style: gqlnav_slice::Style::Dense,
                    ..Default::default()
                },
            )
            .map_err(|e| e.to_string())?;
        Ok(SliceOut {
            sdl: s.sdl,
            tokens: s.tokens,
            coordinates: s.coordinates,
        })
    })
}

/// Builds an **indexed** backend for a context (used at start and on every reload).
pub type BackendFactory =
    Arc<dyn Fn(&SearchContext) -> Result<Box<dyn SearchBackend>, String> + Send + Sync>;

/// The default factory: the structure-aware ranker with default weights.
pub fn default_backend_factory() -> BackendFactory {
    Arc::new(|ctx: &SearchContext| {
        let mut b: Box<dyn SearchBackend> =
            Box::new(StructureBackend::new(StructureWeights::default()));
        b.index(ctx).map_err(|e| e.to_string())?;
        Ok(b)
    })
}

/// The rendering indexed by the default context.
pub const DEFAULT_RENDERING: Rendering = Rendering::DotPlusGloss;

/// Build the search context the server uses: the field corpus (one entry per field of
/// every object and interface type), rendered in [`DEFAULT_RENDERING`].
pub fn default_context(graph: Arc<SchemaGraph>, meter: &TokenMeter) -> SearchContext {
    let corpus = Arc::new(Corpus::build(&graph, CorpusOptions::default()));
    let rendered = Arc::new(corpus.render(DEFAULT_RENDERING, meter));
    SearchContext::new(graph, corpus, rendered)
}

/// One consistent view of a schema and its index.
pub struct Snapshot {
    /// The schema graph.
    pub graph: Arc<SchemaGraph>,
    /// The search context the backend indexed.
    pub ctx: SearchContext,
    /// The indexed ranker.
    pub backend: Box<dyn SearchBackend>,
    /// Increases on every reload (cursors from an older generation are refused).
    pub generation: u64,
    pub(crate) served: OnceLock<Result<apollo_compiler::Schema, String>>,
}

impl Snapshot {
    /// Wrap an indexed backend.
    pub fn new(
        graph: Arc<SchemaGraph>,
        ctx: SearchContext,
        backend: Box<dyn SearchBackend>,
        generation: u64,
    ) -> Self {
        Snapshot {
            graph,
            ctx,
            backend,
            generation,
            served: OnceLock::new(),
        }
    }
}

/// State shared by every transport.
pub struct AppState {
    snap: RwLock<Arc<Snapshot>>,
    /// Optional slice hook for `search_schema` with `budget_tokens`.
    pub slicer: Option<Slicer>,
    /// Merged configuration (policy, upstream, limits).
    pub config: ServeConfig,
    /// Token ruler for every count the server reports (o200k_base).
    pub meter: TokenMeter,
    pub(crate) scrubber: Scrubber,
    pub(crate) client: reqwest::Client,
    factory: Option<BackendFactory>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the config: it holds header values.
        f.debug_struct("AppState").finish_non_exhaustive()
    }
}

/// A start-up failure.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The configuration is inconsistent.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The HTTP client could not be built.
    #[error("building the upstream HTTP client failed: {0}")]
    Client(String),
    /// Indexing failed.
    #[error("indexing failed: {0}")]
    Index(String),
}

impl AppState {
    /// State over an already indexed backend.
    pub fn new(
        graph: Arc<SchemaGraph>,
        ctx: SearchContext,
        backend: Box<dyn SearchBackend>,
        config: ServeConfig,
    ) -> Result<AppState, StateError> {
        config.check()?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.policy.connect_timeout)
            .timeout(config.policy.timeout)
            .user_agent(concat!("gqlnav-serve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| StateError::Client(e.to_string()))?;
        Ok(AppState {
            snap: RwLock::new(Arc::new(Snapshot::new(graph, ctx, backend, 1))),
            slicer: None,
            scrubber: Scrubber::new(&config.headers),
            config,
            meter: TokenMeter::default(),
            client,
            factory: None,
        })
    }

    /// Build the default context, index it with `factory` (or the default ranker) and
    /// wrap it. The factory is kept for reloads.
    pub fn build(
        graph: Arc<SchemaGraph>,
        factory: Option<BackendFactory>,
        config: ServeConfig,
    ) -> Result<AppState, StateError> {
        let factory = factory.unwrap_or_else(default_backend_factory);
        let meter = TokenMeter::default();
        meter.warm();
        let ctx = default_context(graph.clone(), &meter);
        let backend = factory(&ctx).map_err(StateError::Index)?;
        let mut s = AppState::new(graph, ctx, backend, config)?;
        s.factory = Some(factory);
        Ok(s)
    }

    /// Attach a slicer hook.
    pub fn with_slicer(mut self, slicer: Slicer) -> Self {
        self.slicer = Some(slicer);
        self
    }

    /// Keep a factory for reloads (set by [`AppState::build`]).
    pub fn with_factory(mut self, factory: BackendFactory) -> Self {
        self.factory = Some(factory);
        self
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snap.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Scrub trusted header values from a text.
    pub fn scrub(&self, text: &str) -> String {
        self.scrubber.scrub(text)
    }

    /// Replace the schema: rebuild corpus and index with the kept factory, then swap.
    /// In-flight requests keep the snapshot they started with.
    pub fn reload(&self, graph: Arc<SchemaGraph>) -> Result<u64, StateError> {
        let factory = self
            .factory
            .clone()
            .ok_or_else(|| StateError::Index("no backend factory to rebuild with".into()))?;
        let ctx = default_context(graph.clone(), &self.meter);
        let backend = factory(&ctx).map_err(StateError::Index)?;
        let mut w = self.snap.write().unwrap_or_else(|p| p.into_inner());
        let generation = w.generation + 1;
        *w = Arc::new(Snapshot::new(graph, ctx, backend, generation));
        Ok(generation)
    }

    /// Poll a schema file's modification time every `every` and [`reload`](Self::reload)
    /// when it changes. Runs on a background thread for the life of the process; a file
    /// that fails to load is logged and the old index kept.
    pub fn watch_schema_file(self: &Arc<Self>, path: PathBuf, every: Duration) {
        let state = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("gqlnav-reload".into())
            .spawn(move || {
                let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
                let mut last: Option<SystemTime> = mtime(&path);
                loop {
                    std::thread::sleep(every);
                    let Some(state) = state.upgrade() else { return };
                    let now = mtime(&path);
                    if now.is_none() || now == last {
                        continue;
                    }
                    last = now;
                    let t0 = std::time::Instant::now();
                    match gqlnav_schema::load_file(&path) {
                        Ok(g) => match state.reload(Arc::new(g)) {
                            Ok(generation) => tracing::info!(
                                generation,
                                ms = t0.elapsed().as_millis() as u64,
                                "schema changed; index rebuilt"
                            ),
                            Err(e) => tracing::warn!("schema changed but re-indexing failed: {e}"),
                        },
                        Err(e) => {
                            tracing::warn!(
                                "schema changed but does not load; keeping the old index: {e}"
                            )
                        }
                    }
                }
            })
            .ok();
    }
}
