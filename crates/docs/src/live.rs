//! A docs index that stays current while it is served: searches read the current
//! searcher through an `Arc` taken under a read lock, a reindex builds the next one
//! beside it and swaps it in with one write, so an in-flight search finishes on the index
//! it started with and never sees a half-built one. A failed reindex (the site is down,
//! the sitemap is malformed, nothing indexable came back, the disk is full) changes
//! nothing: the old index keeps answering and the failure is reported to the caller.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use gqlnav_embed::Embedder;

use crate::error::DocsError;
use crate::index::DocsIndex;
use crate::search::{DocResults, DocsSearcher, Mode};
use crate::source::{build_index, BuildOptions, BuildStats, Source};

/// Where a served index comes from.
#[derive(Debug, Clone)]
pub enum DocsOrigin {
    /// A saved index (`gqlnav docs index … --out DIR`), built elsewhere: a reindex
    /// reloads it when its `CURRENT` generation changed.
    Saved(PathBuf),
    /// A source this process indexes itself into `dir` (and reindexes incrementally).
    Build {
        source: Source,
        dir: PathBuf,
        opts: BuildOptions,
    },
}

impl DocsOrigin {
    /// `DIR` holding a saved index, or a URL / directory of pages to index into
    /// `index_dir`.
    pub fn parse(s: &str, index_dir: PathBuf, opts: BuildOptions) -> Result<Self, DocsError> {
        let p = Path::new(s);
        if p.is_dir() && DocsIndex::current_generation(p).is_some() {
            return Ok(DocsOrigin::Saved(p.to_path_buf()));
        }
        Ok(DocsOrigin::Build {
            source: Source::parse(s)?,
            dir: index_dir,
            opts,
        })
    }

    pub fn describe(&self) -> String {
        match self {
            DocsOrigin::Saved(d) => format!("the saved index {}", d.display()),
            DocsOrigin::Build { source, .. } => source.describe(),
        }
    }
}

/// What one reindex did.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reindexed {
    /// The searcher now served (counts swaps, starting at 1).
    pub generation: u64,
    /// False when a saved index had not changed (nothing was swapped).
    pub swapped: bool,
    pub chunks: usize,
    /// The build's stats (a process-built index only).
    pub stats: Option<BuildStats>,
    pub seconds: f64,
}

/// A served docs index.
pub struct LiveDocs {
    origin: DocsOrigin,
    embedder: Option<Arc<dyn Embedder>>,
    current: RwLock<Arc<DocsSearcher>>,
    /// The `CURRENT` generation name the served index was read from (saved origin).
    loaded_from: Mutex<Option<String>>,
    generation: AtomicU64,
    /// One reindex at a time.
    reindexing: Mutex<()>,
}

impl std::fmt::Debug for LiveDocs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveDocs")
            .field("origin", &self.origin.describe())
            .field("generation", &self.generation.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

impl LiveDocs {
    /// Open the index to serve. A saved index is loaded; a source is served from the last
    /// index this process family wrote into its directory when there is one for the same
    /// source (a fast start; the schedule refreshes it), else it is built now.
    pub fn open(
        origin: DocsOrigin,
        embedder: Option<Arc<dyn Embedder>>,
        progress: Progress<'_>,
    ) -> Result<Self, DocsError> {
        let (index, from) = match &origin {
            DocsOrigin::Saved(dir) => (DocsIndex::load(dir)?, DocsIndex::current_generation(dir)),
            DocsOrigin::Build { source, dir, opts } => {
                match DocsIndex::load(dir)
                    .ok()
                    .filter(|p| p.manifest.source == source.describe())
                {
                    Some(i) => (i, None),
                    None => {
                        let (i, _) =
                            build_checked(source, opts, None, embedder.as_deref(), progress)?;
                        i.save(dir)?;
                        (i, None)
                    }
                }
            }
        };
        let searcher = DocsSearcher::new(index)?;
        Ok(LiveDocs {
            origin,
            embedder,
            current: RwLock::new(Arc::new(searcher)),
            loaded_from: Mutex::new(from),
            generation: AtomicU64::new(1),
            reindexing: Mutex::new(()),
        })
    }

    pub fn origin(&self) -> &DocsOrigin {
        &self.origin
    }

    /// The searcher now served; a reindex does not change one already taken.
    pub fn searcher(&self) -> Arc<DocsSearcher> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Hybrid when the index has vectors and a model is loaded, else BM25.
    pub fn mode(&self) -> Mode {
        self.mode_for(&self.searcher())
    }

    fn mode_for(&self, s: &DocsSearcher) -> Mode {
        if self.embedder.is_some() && s.index.vectors.is_some() {
            Mode::Hybrid
        } else {
            Mode::Bm25
        }
    }

    /// Search the current index (one searcher for the whole call, even across a swap).
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        budget: Option<usize>,
    ) -> Result<DocResults, DocsError> {
        let s = self.searcher();
        s.search(
            query,
            self.mode_for(&s),
            limit,
            budget,
            self.embedder.as_deref(),
        )
    }

    /// Build (or reload) the next index and swap it in. On any error the served index is
    /// unchanged.
    pub fn reindex(&self, progress: Progress<'_>) -> Result<Reindexed, DocsError> {
        let _one = self.reindexing.lock().unwrap_or_else(|p| p.into_inner());
        let t0 = Instant::now();
        let (index, stats) = match &self.origin {
            DocsOrigin::Saved(dir) => {
                let now = DocsIndex::current_generation(dir);
                let mut from = self.loaded_from.lock().unwrap_or_else(|p| p.into_inner());
                if now.is_some() && now == *from {
                    return Ok(Reindexed {
                        generation: self.generation(),
                        swapped: false,
                        chunks: self.searcher().index.chunks.len(),
                        stats: None,
                        seconds: t0.elapsed().as_secs_f64(),
                    });
                }
                let i = DocsIndex::load(dir)?;
                *from = now;
                (i, None)
            }
            DocsOrigin::Build { source, dir, opts } => {
                let previous = self.searcher();
                let (i, stats) = build_checked(
                    source,
                    opts,
                    Some(&previous.index),
                    self.embedder.as_deref(),
                    progress,
                )?;
                i.save(dir)?;
                (i, Some(stats))
            }
        };
        let chunks = index.chunks.len();
        let next = Arc::new(DocsSearcher::new(index)?);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = next;
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Reindexed {
            generation,
            swapped: true,
            chunks,
            stats,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }

    /// Reindex every `every` on a background thread, reporting each outcome to `report`
    /// (the server logs it). The thread ends with the process.
    pub fn spawn_schedule(
        self: &Arc<Self>,
        every: Duration,
        report: impl Fn(Result<Reindexed, DocsError>) + Send + 'static,
    ) -> std::thread::JoinHandle<()> {
        let me = Arc::downgrade(self);
        std::thread::spawn(move || loop {
            std::thread::sleep(every);
            let Some(live) = me.upgrade() else { break };
            report(live.reindex(&|_, _, _| {}));
        })
    }
}

/// Build an index and refuse an empty one (a site that answered nothing indexable must
/// not replace a good index).
fn build_checked(
    source: &Source,
    opts: &BuildOptions,
    previous: Option<&DocsIndex>,
    embedder: Option<&dyn Embedder>,
    progress: Progress<'_>,
) -> Result<(DocsIndex, BuildStats), DocsError> {
    let (i, stats) = build_index(source, opts, previous, embedder, progress)?;
    if i.chunks.is_empty() {
        let first = stats
            .skipped
            .first()
            .map(|(u, why)| format!("; first: {u}: {why}"))
            .unwrap_or_default();
        return Err(DocsError::Empty {
            site: source.describe(),
            skipped: stats.skipped.len(),
            first,
        });
    }
    Ok((i, stats))
}
