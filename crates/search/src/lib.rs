//! gqlnav search stage: the [`SearchBackend`] trait and the rankers behind it.
//!
//! A backend is indexed once over a [`SearchContext`] (graph + corpus + one rendering)
//! and then answers [`Query`]s with [`Scored`] corpus positions. Turning those into
//! [`Hit`]s (text, tokens, paths to root) is shared code, so every backend reports the
//! same way.

use std::path::Path;
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, EntryKind, RenderedCorpus, Rendering, TokenMeter};
use gqlnav_schema::{PathOptions, SchemaGraph};

pub mod analyzer;
pub mod bm25;
pub mod error;
mod family;
mod page;
mod person;
pub mod saved;
pub mod structure;
mod swan;
pub use analyzer::Analyzer;
pub use bm25::{Bm25Backend, Bm25Config, FieldSource};
pub use error::SearchError;
pub use page::{page, page_folded, Fold, Page, PageRequest, Slot};
pub use person::{
    addresses_caller, addresses_caller_in, caller_phrases, caller_roots, first_person,
};
pub use structure::{
    lookup_collection_path, selectable_collection_path, unwrap_connection, StructureBackend,
    StructureWeights,
};
pub use swan::{SwanBackend, SWAN_MAX_CHARS};

/// Reciprocal-rank fusion's constant: a document at 0-based rank `r` in one ranking adds
/// `1 / (RRF_K + r + 1)` to its fused score ([`rrf`]). 60, as in the original paper
/// (Cormack et al., 2009); the hybrid ranker and the docs search fuse with it.
pub const RRF_K: f32 = 60.0;

/// What a document at 0-based `rank` in one ranking adds to its reciprocal-rank fused
/// score: `1 / (RRF_K + rank + 1)`.
pub fn rrf(rank: usize) -> f32 {
    1.0 / (RRF_K + rank as f32 + 1.0)
}

/// What a backend indexes: the schema graph, the corpus and the rendering whose text is
/// indexed and shown.
#[derive(Clone)]
pub struct SearchContext {
    pub graph: Arc<SchemaGraph>,
    pub corpus: Arc<Corpus>,
    pub rendered: Arc<RenderedCorpus>,
}

/// A question. `sub_queries` are optional sub-asks (the WG `queries` key).
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub text: String,
    pub sub_queries: Vec<String>,
    /// What the ranking is for; [`Purpose::Search`] unless a slicer asks.
    pub purpose: Purpose,
}

/// What a ranking is for: a list a reader follows, or a slicer's candidates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Purpose {
    /// A ranked list an agent or a person reads: the structure ranker lifts root fields
    /// (the entry points) by the type they name and return (weight `root`).
    #[default]
    Search,
    /// Candidates for a slice: the slicer brings each type's root entries and paths
    /// itself, so root fields are not lifted (lifted, they crowd the relevant types out
    /// of the slicer's type expansion: auto slices github 92.5% -> 92.0%, linear 99.0%
    /// -> 98.0%; docs/ranking.md, "Entry points").
    Slice,
}

impl Query {
    pub fn new(text: impl Into<String>) -> Self {
        Query {
            text: text.into(),
            sub_queries: Vec::new(),
            purpose: Purpose::Search,
        }
    }
}

/// One ranked corpus position.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Index into [`Corpus::entries`].
    pub doc: usize,
    /// The backend's raw score (higher is better).
    pub score: f32,
    /// Per-channel contributions, when the backend can explain itself.
    pub explain: Vec<(String, f32)>,
}

impl Scored {
    /// A position and its score, without an explanation.
    pub fn new(doc: usize, score: f32) -> Self {
        Scored {
            doc,
            score,
            explain: Vec::new(),
        }
    }
}

/// A search hit as every surface shows it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub rank: usize,
    pub coordinate: String,
    pub kind: EntryKind,
    /// Raw backend score.
    pub raw_score: f32,
    /// Score mapped to [0, 1] (relative to the best hit of this query).
    pub score: f32,
    /// The rendered text of the entry.
    pub text: String,
    /// Tokens of `text` in the context's encoding.
    pub tokens: usize,
    /// Root-first lists of field coordinates ending at this coordinate.
    pub paths_to_root: Vec<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explain: Vec<(String, f32)>,
}

/// A ranker.
pub trait SearchBackend: Send + Sync {
    /// A label naming the backend and its settings (used as the bench row label).
    fn name(&self) -> String;
    /// Index the context's corpus. Called once before `search`.
    fn index(&mut self, ctx: &SearchContext) -> Result<(), SearchError>;
    /// The top `k` corpus positions for a query, best first, ties broken by corpus order.
    fn search(&self, query: &Query, k: usize) -> Result<Vec<Scored>, SearchError>;
    /// Write the indexed backend to `dir` (see [`saved`] for the layout), atomically, so
    /// that its `load` answers exactly as this backend does. `dir` must not exist, be
    /// empty or hold a saved index (which is replaced).
    fn save(&self, dir: &Path) -> Result<(), SearchError> {
        let _ = dir;
        Err(SearchError::NoSavedForm(self.name()))
    }
}

impl SearchContext {
    /// A context from its parts, each already built (a saved index's corpus and token
    /// counts, a shared rendering).
    pub fn new(
        graph: Arc<SchemaGraph>,
        corpus: Arc<Corpus>,
        rendered: Arc<RenderedCorpus>,
    ) -> Self {
        SearchContext {
            graph,
            corpus,
            rendered,
        }
    }

    /// `corpus` rendered in `rendering`, its tokens counted by `meter`.
    pub fn rendered(
        graph: Arc<SchemaGraph>,
        corpus: Arc<Corpus>,
        rendering: Rendering,
        meter: &TokenMeter,
    ) -> Self {
        let rendered = Arc::new(corpus.render(rendering, meter));
        SearchContext::new(graph, corpus, rendered)
    }

    /// The context the servers, the tools and the slicer index: the field corpus of
    /// `graph` ([`CorpusOptions::default`]: one entry per field of every object and
    /// interface type) rendered in `rendering`, its tokens counted by `meter`.
    pub fn fields(graph: Arc<SchemaGraph>, rendering: Rendering, meter: &TokenMeter) -> Self {
        let corpus = Arc::new(Corpus::build(&graph, CorpusOptions::default()));
        SearchContext::rendered(graph, corpus, rendering, meter)
    }

    /// Turn scored positions into hits; `paths` paths to root per hit (0 for none).
    pub fn hits(&self, scored: &[Scored], paths: usize) -> Vec<Hit> {
        let top = scored.first().map(|s| s.score).unwrap_or(0.0);
        scored
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let score = if top > 0.0 {
                    (s.score / top).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                self.hit(i, s, score, paths)
            })
            .collect()
    }

    /// One hit: the entry at `s.doc`, shown at 0-based `rank` with relative `score` and up
    /// to `paths` paths to root.
    pub fn hit(&self, rank: usize, s: &Scored, score: f32, paths: usize) -> Hit {
        let e = &self.corpus.entries[s.doc];
        let paths_to_root = if paths == 0 {
            Vec::new()
        } else {
            self.graph
                .paths_to_root(
                    &e.coordinate,
                    PathOptions {
                        max_paths: paths,
                        selectable_first: true,
                        ..PathOptions::default()
                    },
                )
                .unwrap_or_default()
        };
        Hit {
            rank: rank + 1,
            coordinate: e.coordinate.clone(),
            kind: e.kind,
            raw_score: s.score,
            score,
            text: self.rendered.texts[s.doc].clone(),
            tokens: self.rendered.tokens[s.doc],
            paths_to_root,
            explain: s.explain.clone(),
        }
    }
}

/// The `k` best of dense per-document scores (document `i` scored `scores[i]`), as
/// [`top_k`] orders them.
pub fn top_k_of(scores: impl IntoIterator<Item = f32>, k: usize) -> Vec<Scored> {
    top_k(scored(scores, |_| true), k)
}

/// [`top_k_of`] over the documents that scored above zero.
pub fn top_k_positive(scores: impl IntoIterator<Item = f32>, k: usize) -> Vec<Scored> {
    top_k(scored(scores, |s| s > 0.0), k)
}

fn scored(scores: impl IntoIterator<Item = f32>, keep: impl Fn(f32) -> bool) -> Vec<Scored> {
    scores
        .into_iter()
        .enumerate()
        .filter(|&(_, s)| keep(s))
        .map(|(doc, score)| Scored::new(doc, score))
        .collect()
}

/// Sort scored positions best first, ties by corpus order, and keep `k`.
pub fn top_k(mut v: Vec<Scored>, k: usize) -> Vec<Scored> {
    let order = |a: &Scored, b: &Scored| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc));
    // Select the k best first (linear), then sort only those: same order as a full sort,
    // since the order is total (ties broken by doc).
    if k == 0 {
        v.clear();
        return v;
    }
    if v.len() > k {
        v.select_nth_unstable_by(k - 1, order);
        v.truncate(k);
    }
    v.sort_unstable_by(order);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_equals_a_full_sort_with_ties_by_doc() {
        let v: Vec<Scored> = (0..500)
            .map(|doc| Scored {
                doc,
                // Many ties: scores repeat every 7 docs.
                score: ((doc * 37) % 7) as f32,
                explain: Vec::new(),
            })
            .collect();
        let mut full = v.clone();
        full.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        for k in [0, 1, 5, 71, 499, 500, 900] {
            let got: Vec<usize> = top_k(v.clone(), k).iter().map(|s| s.doc).collect();
            let want: Vec<usize> = full.iter().take(k).map(|s| s.doc).collect();
            assert_eq!(got, want, "k={k}");
        }
    }
}
