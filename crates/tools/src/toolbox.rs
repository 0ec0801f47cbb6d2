//! The shared state of every surface: one [`Generation`] per schema version (graph,
//! corpus, ranker and slicer built once and shared), swapped atomically on reload, plus
//! the upstream client, the meter and the policy.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, SystemTime};

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use gqlnav_corpus::{Rendering, TokenMeter};
use gqlnav_schema::{CheckedSchema, SchemaGraph};
use gqlnav_search::{SearchBackend, SearchContext, StructureBackend, StructureWeights};

use crate::error::ToolError;
use crate::policy::ToolsConfig;
use crate::util::Scrubber;

/// A context and the ranker indexed over it: what a [`BackendFactory`] makes.
pub struct Indexed {
    /// The corpus and rendering the ranker indexed.
    pub ctx: SearchContext,
    /// The indexed ranker.
    pub backend: Arc<dyn SearchBackend>,
}

/// Makes the search context and the **indexed** ranker of a generation (at start and on
/// every reload): build both in memory, or load a saved index.
pub type BackendFactory =
    Arc<dyn Fn(Arc<SchemaGraph>, &TokenMeter) -> Result<Indexed, ToolError> + Send + Sync>;

/// A factory that builds the [`default_context`] and indexes a ranker over it in memory.
pub fn in_memory_factory(
    index: impl Fn(&SearchContext) -> Result<Arc<dyn SearchBackend>, ToolError> + Send + Sync + 'static,
) -> BackendFactory {
    Arc::new(move |graph: Arc<SchemaGraph>, meter: &TokenMeter| {
        let ctx = default_context(graph, meter);
        let backend = index(&ctx)?;
        Ok(Indexed { ctx, backend })
    })
}

/// The default factory: the structure-aware ranker with default weights, in memory.
pub fn default_backend_factory() -> BackendFactory {
    in_memory_factory(|ctx: &SearchContext| {
        let mut b = StructureBackend::new(StructureWeights::default());
        b.index(ctx).map_err(|e| ToolError::Index(e.to_string()))?;
        Ok(Arc::new(b) as Arc<dyn SearchBackend>)
    })
}

/// The rendering every generation indexes (and the slicer ranks with).
pub const DEFAULT_RENDERING: Rendering = Rendering::DotPlusGloss;

/// Build the search context the tools use: the field corpus (one entry per field of
/// every object and interface type), rendered in [`DEFAULT_RENDERING`].
pub fn default_context(graph: Arc<SchemaGraph>, meter: &TokenMeter) -> SearchContext {
    SearchContext::fields(graph, DEFAULT_RENDERING, meter)
}

/// The schema operations are checked against, validated once per generation: `Valid`
/// when the schema passed validation, or an explicit partial state for a schema that
/// loaded with warnings (its valid parts are still usable; operations touching the broken
/// parts may be accepted or refused inconsistently, which the tools say).
pub struct OperationSchema {
    /// The schema, as apollo-compiler's proof type.
    pub schema: Valid<Schema>,
    /// Validation problems of the schema itself (0 = fully valid).
    pub schema_errors: usize,
}

impl OperationSchema {
    /// Validate `schema` (one derived from a graph's, such as the GraphQL endpoint's with
    /// its meta-fields); a schema with errors is kept as a partial one.
    pub fn new(schema: Schema) -> Self {
        Self::from_checked(&CheckedSchema::check(schema))
    }

    /// The schema a graph loaded, with the validation done at load time (not again).
    pub fn from_graph(graph: &SchemaGraph) -> Self {
        Self::from_checked(&graph.schema)
    }

    fn from_checked(checked: &CheckedSchema) -> Self {
        OperationSchema {
            schema: checked.for_operations().clone(),
            schema_errors: checked.errors(),
        }
    }

    /// True when the schema itself had validation errors.
    pub fn is_partial(&self) -> bool {
        self.schema_errors > 0
    }
}

/// The slicer of a generation: built (and its root paths warmed) on a background thread,
/// so a server answers at once; a budgeted search that arrives first waits for it.
type SlicerCell = Arc<OnceLock<Result<gqlnav_slice::Slicer, ToolError>>>;

/// One consistent view of a schema: graph, corpus, the indexed ranker and the slicer over
/// that same ranker. Built once per schema version and shared by every tool and surface.
pub struct Generation {
    /// The schema graph.
    pub graph: Arc<SchemaGraph>,
    /// The search context the ranker indexed.
    pub ctx: SearchContext,
    /// The indexed ranker (shared with the slicer).
    pub backend: Arc<dyn SearchBackend>,
    /// Increases on every reload (cursors from an older generation are refused).
    pub number: u64,
    slicer: SlicerCell,
    operations: OnceLock<OperationSchema>,
    served: OnceLock<Result<OperationSchema, ToolError>>,
    names: OnceLock<std::collections::HashSet<String>>,
}

impl Generation {
    /// Wrap an indexed ranker; with `background`, start building the slicer over it on a
    /// thread of its own (else the first budgeted search builds it).
    pub fn new(
        ctx: SearchContext,
        backend: Arc<dyn SearchBackend>,
        number: u64,
        background: bool,
    ) -> Self {
        let g = Generation {
            graph: ctx.graph.clone(),
            ctx,
            backend,
            number,
            slicer: Default::default(),
            operations: OnceLock::new(),
            served: OnceLock::new(),
            names: OnceLock::new(),
        };
        if !background {
            return g;
        }
        let (cell, ctx, backend) = (g.slicer.clone(), g.ctx.clone(), g.backend.clone());
        std::thread::Builder::new()
            .name("gqlnav-slicer".into())
            .spawn(move || {
                let s = cell.get_or_init(|| build_slicer(&ctx, &backend));
                // Then remember every type's root paths (GitHub: a few seconds of this
                // one thread), so even the first questions of each kind are fast.
                if let Ok(s) = s {
                    s.warm(&gqlnav_slice::Knobs::default(), 1);
                }
            })
            .ok();
        g
    }

    /// Build a generation: context and index with `factory`.
    pub fn build(
        graph: Arc<SchemaGraph>,
        factory: &BackendFactory,
        meter: &TokenMeter,
        number: u64,
        background: bool,
    ) -> Result<Self, ToolError> {
        let Indexed { ctx, backend } = factory(graph, meter)?;
        Ok(Generation::new(ctx, backend, number, background))
    }

    /// The slicer over this generation's ranker (waits while it is being built).
    pub fn slicer(&self) -> Result<&gqlnav_slice::Slicer, ToolError> {
        self.slicer
            .get_or_init(|| build_slicer(&self.ctx, &self.backend))
            .as_ref()
            .map_err(|e| e.clone())
    }

    /// The words of every coordinate, type and argument name of this schema, as the
    /// identifier analyzer cuts them (made once, on first use).
    pub fn name_words(&self) -> &std::collections::HashSet<String> {
        self.names.get_or_init(|| {
            let a = gqlnav_search::Analyzer::Identifier;
            let mut words = std::collections::HashSet::new();
            for e in &self.ctx.corpus.entries {
                words.extend(a.index_terms(&e.coordinate));
                words.extend(a.index_terms(&e.named_type));
                for arg in &e.args {
                    words.extend(a.index_terms(&arg.name));
                }
            }
            words
        })
    }

    /// The schema operations are validated against (validated once, on first use).
    pub fn operations(&self) -> &OperationSchema {
        self.operations
            .get_or_init(|| OperationSchema::from_graph(&self.graph))
    }

    /// A schema derived from this generation's (the GraphQL endpoint's, with its
    /// meta-fields), built and validated once by `build`.
    pub fn served_with<E: std::fmt::Display>(
        &self,
        build: impl FnOnce(&SchemaGraph) -> Result<Schema, E>,
    ) -> Result<&OperationSchema, ToolError> {
        self.served
            .get_or_init(|| {
                build(&self.graph)
                    .map(OperationSchema::new)
                    .map_err(|e| ToolError::DerivedSchema(e.to_string()))
            })
            .as_ref()
            .map_err(|e| e.clone())
    }
}

fn build_slicer(
    ctx: &SearchContext,
    backend: &Arc<dyn SearchBackend>,
) -> Result<gqlnav_slice::Slicer, ToolError> {
    gqlnav_slice::Slicer::from_index(ctx.clone(), backend.clone())
        .map_err(|e| ToolError::Slicer(e.to_string()))
}

/// A start-up failure.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    /// The HTTP client could not be built.
    #[error("building the upstream HTTP client failed: {0}")]
    Client(String),
    /// The endpoint URL is not http(s).
    #[error("endpoint: {0}")]
    Endpoint(String),
    /// Indexing failed.
    #[error("indexing failed: {0}")]
    Index(#[source] ToolError),
}

/// The tools' shared state: the current generation, the upstream client, the meter, the
/// policy. Every surface (MCP, the GraphQL endpoint, the CLI, the agent loop) holds one.
pub struct Toolbox {
    current: RwLock<Arc<Generation>>,
    /// Settings: upstream, headers, policy, page sizes.
    pub config: ToolsConfig,
    /// Token ruler for every count the tools report (o200k_base).
    pub meter: TokenMeter,
    pub(crate) scrubber: Scrubber,
    pub(crate) client: reqwest::Client,
    factory: BackendFactory,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("config", &self.config)
            .field("generation", &self.generation().number)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// Index `graph` with `factory` (the default structure ranker when `None`) and wrap
    /// it. The factory is kept for reloads.
    pub fn build(
        graph: Arc<SchemaGraph>,
        factory: Option<BackendFactory>,
        config: ToolsConfig,
    ) -> Result<Toolbox, ToolboxError> {
        let factory = factory.unwrap_or_else(default_backend_factory);
        let meter = TokenMeter::default();
        let generation = Generation::build(graph, &factory, &meter, 1, config.slicer_in_background)
            .map_err(ToolboxError::Index)?;
        Toolbox::with_generation(generation, factory, config, meter)
    }

    /// Wrap an already built generation.
    pub fn with_generation(
        generation: Generation,
        factory: BackendFactory,
        config: ToolsConfig,
        meter: TokenMeter,
    ) -> Result<Toolbox, ToolboxError> {
        if let Some(e) = &config.endpoint {
            gqlnav_schema::check_http_url(e).map_err(|e| ToolboxError::Endpoint(e.to_string()))?;
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.policy.connect_timeout)
            .timeout(config.policy.timeout)
            .user_agent(concat!("gqlnav/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ToolboxError::Client(e.to_string()))?;
        Ok(Toolbox {
            current: RwLock::new(Arc::new(generation)),
            scrubber: Scrubber::new(&config.headers),
            config,
            meter,
            client,
            factory,
        })
    }

    /// The current generation. In-flight calls keep the one they started with.
    pub fn generation(&self) -> Arc<Generation> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Scrub trusted header values from a text.
    pub fn scrub(&self, text: &str) -> String {
        self.scrubber.scrub(text)
    }

    /// Scrub trusted header values from every string of a JSON value.
    pub fn scrub_json(&self, v: &mut serde_json::Value) {
        self.scrubber.scrub_json(v)
    }

    /// Replace the schema: build the next generation (corpus, index, slicer) with the kept
    /// factory, then swap all of it at once. On error nothing changes.
    pub fn reload(&self, graph: Arc<SchemaGraph>) -> Result<u64, ToolboxError> {
        let mut next = Generation::build(
            graph,
            &self.factory,
            &self.meter,
            0,
            self.config.slicer_in_background,
        )
        .map_err(ToolboxError::Index)?;
        // Numbered under the lock, so two reloads never share a number.
        let mut w = self.current.write().unwrap_or_else(|p| p.into_inner());
        next.number = w.number + 1;
        *w = Arc::new(next);
        Ok(w.number)
    }

    /// Poll a schema file's modification time every `every` and [`reload`](Self::reload)
    /// when it changes, on a background thread for the life of the toolbox. A file that
    /// fails to load or index is logged and the last good generation kept.
    pub fn watch_schema_file(self: &Arc<Self>, path: PathBuf, every: Duration) {
        let toolbox = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("gqlnav-reload".into())
            .spawn(move || {
                let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
                let mut last: Option<SystemTime> = mtime(&path);
                loop {
                    std::thread::sleep(every);
                    let Some(toolbox) = toolbox.upgrade() else {
                        return;
                    };
                    let now = mtime(&path);
                    if now.is_none() || now == last {
                        continue;
                    }
                    last = now;
                    let t0 = std::time::Instant::now();
                    match gqlnav_schema::load_file(&path) {
                        Ok(g) => match toolbox.reload(Arc::new(g)) {
                            Ok(generation) => tracing::info!(
                                generation,
                                ms = t0.elapsed().as_millis() as u64,
                                "schema changed; index rebuilt"
                            ),
                            Err(e) => tracing::warn!(
                                "schema changed but re-indexing failed; keeping the last good index: {e}"
                            ),
                        },
                        Err(e) => tracing::warn!(
                            "schema changed but does not load; keeping the last good index: {e}"
                        ),
                    }
                }
            })
            .ok();
    }
}
