//! Exact cosine search over L2-normalised document vectors.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gqlnav_search::saved::{self, ManifestHeader};
use gqlnav_search::{top_k_of, Query, Scored, SearchBackend, SearchContext, SearchError};

use crate::cache::{CacheOptions, Matrix, VectorCache};
use crate::error::{EmbedError, Result};
use crate::{l2_normalize, Embedder, Prompts};

/// A boxed progress callback `(done, total)` stored by [`VectorBackend::with_progress`].
pub type ProgressFn = Box<dyn Fn(usize, usize) + Send + Sync>;

/// What the last [`SearchBackend::index`] call did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexReport {
    /// Number of documents.
    pub count: usize,
    /// Vector length.
    pub dims: usize,
    /// The cache file used, when caching was on.
    pub cache_path: Option<PathBuf>,
    /// Whether the vectors came from the cache.
    pub cache_hit: bool,
    /// Texts embedded (0 on a cache hit).
    pub embedded: usize,
    /// Wall time of the whole `index` call, in seconds.
    pub seconds: f64,
    /// A non-fatal problem, e.g. an unusable cache file that was treated as a miss, or a
    /// cache write that failed.
    pub warning: Option<String>,
}

/// A dense-vector [`SearchBackend`]: document vectors are L2-normalised and searched by
/// an exact linear scan (dot product = cosine). At gqlnav's scale (thousands of
/// documents) a scan takes milliseconds, so no approximate index is used.
///
/// For a query with `sub_queries`, every one of `[text] + sub_queries` is embedded and a
/// document scores the maximum cosine over them. Ties are broken by corpus order.
pub struct VectorBackend {
    embedder: Box<dyn Embedder>,
    cache: CacheOptions,
    progress: Option<ProgressFn>,
    matrix: Option<Matrix>,
    report: IndexReport,
    /// The indexed context, kept so that [`SearchBackend::save`] can write the index.
    ctx: Option<SearchContext>,
}

/// The vectors of a saved vector index: `count × dims` little-endian f32, row-major,
/// L2-normalised (read in one read).
pub const VECTORS_FILE: &str = "vectors.f32";

/// The settings a saved vector index records.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedConfig {
    embedder_name: String,
    embedder_id: String,
    count: usize,
    dims: usize,
}

impl VectorBackend {
    /// A backend over `embedder`, caching document vectors as `cache` says.
    pub fn new(embedder: Box<dyn Embedder>, cache: CacheOptions) -> VectorBackend {
        VectorBackend {
            embedder,
            cache,
            progress: None,
            matrix: None,
            report: IndexReport::default(),
            ctx: None,
        }
    }

    /// Load an index saved by [`SearchBackend::save`] for the same schema, corpus and
    /// rendering. `embedder` embeds the questions and must be the one that embedded the
    /// documents (same [`Embedder::id`]: model files, prompts, truncation).
    pub fn load(
        dir: &Path,
        ctx: &SearchContext,
        embedder: Box<dyn Embedder>,
    ) -> std::result::Result<VectorBackend, SearchError> {
        let start = Instant::now();
        let m = saved::open(dir, ctx, "vector")?;
        let bad = |reason: String| SearchError::saved_index(dir, reason);
        let config: SavedConfig = serde_json::from_value(m.config)
            .map_err(|e| bad(format!("the manifest's vector config is malformed: {e}")))?;
        let id = embedder.id();
        if id != config.embedder_id {
            return Err(bad(format!(
                "its vectors were made by `{}` ({}), not by the given `{}` ({id}); load it with that model or rebuild it with `gqlnav index --backend vector` and this model",
                config.embedder_name,
                config.embedder_id,
                embedder.name()
            )));
        }
        let n = ctx.corpus.len();
        if config.count != n || embedder.dims().is_some_and(|d| d != config.dims) {
            return Err(bad(format!(
                "it holds {} vectors of {} dims; the corpus has {n} entries and the model {:?} dims",
                config.count,
                config.dims,
                embedder.dims()
            )));
        }
        let path = dir.join(VECTORS_FILE);
        let bytes =
            std::fs::read(&path).map_err(|e| bad(format!("cannot read {VECTORS_FILE}: {e}")))?;
        if bytes.len() as u128 != n as u128 * config.dims as u128 * 4 {
            return Err(bad(format!(
                "{VECTORS_FILE} holds {} bytes, expected {n} × {} × 4",
                bytes.len(),
                config.dims
            )));
        }
        let data: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let mut v = VectorBackend::new(
            embedder,
            CacheOptions {
                dir: None,
                no_cache: true,
            },
        );
        v.matrix = Some(Matrix {
            dims: config.dims,
            data,
        });
        v.report = IndexReport {
            count: n,
            dims: config.dims,
            seconds: start.elapsed().as_secs_f64(),
            ..IndexReport::default()
        };
        v.ctx = Some(ctx.clone());
        Ok(v)
    }

    /// Report `(done, total)` texts while [`SearchBackend::index`] embeds documents.
    pub fn with_progress(mut self, progress: ProgressFn) -> VectorBackend {
        self.progress = Some(progress);
        self
    }

    /// The embedder.
    pub fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }

    /// The prompts in use (for display).
    pub fn prompts(&self) -> Prompts {
        self.embedder.prompts()
    }

    /// What the last `index` call did.
    pub fn report(&self) -> &IndexReport {
        &self.report
    }

    /// Index with an explicit progress callback (overrides [`VectorBackend::with_progress`]).
    pub fn index_with_progress(
        &mut self,
        ctx: &SearchContext,
        progress: &dyn Fn(usize, usize),
    ) -> Result<()> {
        self.index_texts(&ctx.rendered.texts, progress)?;
        self.ctx = Some(ctx.clone());
        Ok(())
    }

    /// Index a plain list of texts (document `i` is `texts[i]`).
    pub fn index_texts(&mut self, texts: &[String], progress: &dyn Fn(usize, usize)) -> Result<()> {
        let start = Instant::now();
        self.matrix = None;
        self.ctx = None;
        let mut report = IndexReport {
            count: texts.len(),
            ..IndexReport::default()
        };
        let id = self.embedder.id();
        let cache = self
            .cache
            .resolve()
            .map(|dir| VectorCache::new(&dir, &id, texts));
        report.cache_path = cache.as_ref().map(|c| c.path().to_path_buf());
        let mut matrix = None;
        if let Some(c) = &cache {
            match c.load(texts.len(), self.embedder.dims()) {
                Ok(Some(m)) => {
                    report.cache_hit = true;
                    matrix = Some(m);
                }
                Ok(None) => {}
                Err(e) => {
                    let w = format!("{e}; ignoring it and embedding again");
                    eprintln!("warning: {w}");
                    report.warning = Some(w);
                }
            }
        }
        let matrix = match matrix {
            Some(m) => m,
            None => {
                let rows = self
                    .embedder
                    .embed_documents_with_progress(texts, progress)?;
                if rows.len() != texts.len() {
                    return Err(EmbedError::DimsMismatch {
                        context: format!("number of vectors returned by {}", self.embedder.name()),
                        expected: texts.len(),
                        found: rows.len(),
                    });
                }
                report.embedded = texts.len();
                let dims = self
                    .embedder
                    .dims()
                    .or_else(|| rows.first().map(Vec::len))
                    .unwrap_or(0);
                let mut m = Matrix::from_rows(
                    rows,
                    dims,
                    &format!("document vectors of {}", self.embedder.name()),
                )?;
                if dims > 0 {
                    for row in m.data.chunks_mut(dims) {
                        l2_normalize(row);
                    }
                }
                if let Some(c) = &cache {
                    if let Err(e) = c.store(&m) {
                        let w = format!("could not write the vector cache: {e}");
                        eprintln!("warning: {w}");
                        report.warning = Some(match report.warning.take() {
                            Some(prev) => format!("{prev}; {w}"),
                            None => w,
                        });
                    }
                }
                m
            }
        };
        report.dims = matrix.dims;
        report.seconds = start.elapsed().as_secs_f64();
        self.report = report;
        self.matrix = Some(matrix);
        Ok(())
    }

    /// Cosine scores of every document against the query (max over text and
    /// sub-queries); empty strings are skipped. `None` when there is nothing to embed.
    pub fn scores(&self, query: &Query) -> Result<Option<Vec<f32>>> {
        let m = self.matrix.as_ref().ok_or_else(|| {
            EmbedError::InvalidArgument("the vector backend was used before `index`".into())
        })?;
        let asks: Vec<&str> = std::iter::once(query.text.as_str())
            .chain(query.sub_queries.iter().map(String::as_str))
            .filter(|s| !s.trim().is_empty())
            .collect();
        if asks.is_empty() {
            return Ok(None);
        }
        let mut best = vec![f32::NEG_INFINITY; m.count()];
        for ask in asks {
            let mut q = self.embedder.embed_query(ask)?;
            if q.len() != m.dims {
                return Err(EmbedError::DimsMismatch {
                    context: format!(
                        "query vector vs document vectors of {}",
                        self.embedder.name()
                    ),
                    expected: m.dims,
                    found: q.len(),
                });
            }
            l2_normalize(&mut q);
            for (i, b) in best.iter_mut().enumerate() {
                let s = dot(m.row(i), &q);
                if s > *b {
                    *b = s;
                }
            }
        }
        Ok(Some(best))
    }
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Four accumulators let the compiler vectorise the loop.
    let mut acc = [0f32; 4];
    let chunks = a.len() / 4 * 4;
    for (x, y) in a[..chunks].chunks_exact(4).zip(b[..chunks].chunks_exact(4)) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = acc[0] + acc[1] + acc[2] + acc[3];
    for (x, y) in a[chunks..].iter().zip(&b[chunks..]) {
        s += x * y;
    }
    s
}

impl SearchBackend for VectorBackend {
    /// `vector(<model name>)`, e.g. `vector(all-MiniLM-L6-v2)`.
    fn name(&self) -> String {
        format!("vector({})", self.embedder.name())
    }

    fn index(&mut self, ctx: &SearchContext) -> std::result::Result<(), SearchError> {
        let progress = self.progress.take();
        let noop = |_: usize, _: usize| {};
        let r = match &progress {
            Some(p) => self.index_texts(&ctx.rendered.texts, p.as_ref()),
            None => self.index_texts(&ctx.rendered.texts, &noop),
        };
        self.progress = progress;
        r.map_err(|e| SearchError::Index(e.to_string()))?;
        self.ctx = Some(ctx.clone());
        Ok(())
    }

    fn save(&self, dir: &Path) -> std::result::Result<(), SearchError> {
        let (Some(ctx), Some(m)) = (&self.ctx, &self.matrix) else {
            return Err(SearchError::NotIndexed);
        };
        let config = SavedConfig {
            embedder_name: self.embedder.name(),
            embedder_id: self.embedder.id(),
            count: m.count(),
            dims: m.dims,
        };
        let header = ManifestHeader {
            backend: "vector".into(),
            name: self.name(),
            config: serde_json::to_value(&config).map_err(|e| SearchError::Other(e.to_string()))?,
            embedder: Some(config.embedder_id.clone()),
        };
        saved::save_dir(dir, header, ctx, |tmp, _| {
            let bytes: Vec<u8> = m.data.iter().flat_map(|x| x.to_le_bytes()).collect();
            saved::write_file(&tmp.join(VECTORS_FILE), &bytes)
        })
    }

    fn search(&self, query: &Query, k: usize) -> std::result::Result<Vec<Scored>, SearchError> {
        if self.matrix.is_none() {
            return Err(SearchError::NotIndexed);
        }
        let Some(scores) = self.scores(query)? else {
            return Ok(Vec::new());
        };
        let mut top = top_k_of(scores, k);
        for s in &mut top {
            s.explain.push(("cosine".to_string(), s.score));
        }
        Ok(top)
    }
}
