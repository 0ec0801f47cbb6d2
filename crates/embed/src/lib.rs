//! gqlnav embed stage: dense embeddings for schema search.
//!
//! - [`Embedder`]: something that turns documents and queries into vectors.
//!   - [`LocalModel`]: an in-process candle model loaded from a local
//!     sentence-transformers folder (BERT family or Qwen3). Nothing is ever downloaded.
//!   - [`OllamaEmbedder`] and [`OpenAiEmbedder`]: embedding servers over HTTP.
//! - [`VectorBackend`]: a [`gqlnav_search::SearchBackend`] doing exact cosine search over
//!   L2-normalised vectors, with an on-disk [`cache`] of document vectors.
//! - [`HybridBackend`]: fuses two backends (reciprocal rank fusion or weighted scores).
//!
//! Prompts matter: instruction-tuned models (Qwen3-Embedding, e5, bge) expect a query
//! prefix and sometimes a document prefix. [`LocalModel`] reads them from
//! `config_sentence_transformers.json`; every embedder reports the prompts it uses
//! through [`Embedder::prompts`].

#![warn(missing_docs)]

pub mod cache;
pub mod error;
pub mod hybrid;
pub mod local;
pub mod server;
pub mod vector;

pub use cache::{CacheOptions, VectorCache};
pub use error::{EmbedError, Result};
pub use hybrid::{load_backend, Fusion, HybridBackend};
pub use local::{Architecture, LocalModel, Pooling};
pub use server::{OllamaEmbedder, OpenAiEmbedder, ServerOptions};
pub use vector::{IndexReport, VectorBackend};

/// A progress callback: `(done, total)` texts.
pub type Progress<'a> = &'a dyn Fn(usize, usize);

/// Turns texts into dense vectors.
///
/// Implementations apply their query and document prompts themselves: callers pass the
/// bare text.
pub trait Embedder: Send + Sync {
    /// A short human label for the model, e.g. `all-MiniLM-L6-v2`, used in backend names.
    fn name(&self) -> String;

    /// A stable identifier of everything that changes the vectors: model identity
    /// (including a fingerprint of its files where known), prompts and truncation
    /// length. Used as part of the vector cache key.
    fn id(&self) -> String;

    /// The vector length, when known. Server embedders learn it from the first response
    /// unless it was configured, so they answer `None` before that.
    fn dims(&self) -> Option<usize>;

    /// The prompts applied to queries and documents.
    fn prompts(&self) -> Prompts;

    /// Embed documents (the document prompt is applied), in input order.
    fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        self.embed_documents_with_progress(texts, &|_, _| {})
    }

    /// Embed documents, reporting `(done, total)` as batches complete.
    fn embed_documents_with_progress(
        &self,
        texts: &[String],
        progress: Progress<'_>,
    ) -> Result<Vec<Vec<f32>>>;

    /// Embed one query (the query prompt is applied).
    fn embed_query(&self, text: &str) -> Result<Vec<f32>>;
}

/// Where the prompts in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromptSource {
    /// Read from the model's `config_sentence_transformers.json`.
    ModelConfig,
    /// Set (at least partly) by the caller through a [`PromptOverride`].
    Override,
    /// Neither the model nor the caller defines prompts: both sides are embedded bare.
    None,
}

/// The prompts an embedder prepends to queries and documents (empty = bare).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Prompts {
    /// Prepended to every query.
    pub query: String,
    /// Prepended to every document.
    pub document: String,
    /// Where they came from.
    pub source: PromptSource,
}

impl Prompts {
    /// No prompts: both sides are embedded bare.
    pub fn none() -> Self {
        Prompts {
            query: String::new(),
            document: String::new(),
            source: PromptSource::None,
        }
    }

    /// Whether both prompts are empty.
    pub fn is_bare(&self) -> bool {
        self.query.is_empty() && self.document.is_empty()
    }

    /// A one-line description for CLIs, e.g.
    /// `prompts (model config): query "Instruct: …\nQuery:", document bare`.
    pub fn describe(&self) -> String {
        let side = |p: &str| {
            if p.is_empty() {
                "bare".to_string()
            } else {
                format!("{p:?}")
            }
        };
        match (self.is_bare(), self.source) {
            (true, PromptSource::None) => {
                "no prompts: queries and documents are embedded bare".to_string()
            }
            _ => {
                let src = match self.source {
                    PromptSource::ModelConfig => "model config",
                    PromptSource::Override => "override",
                    PromptSource::None => "none",
                };
                format!(
                    "prompts ({src}): query {}, document {}",
                    side(&self.query),
                    side(&self.document)
                )
            }
        }
    }
}

/// Caller-supplied prompts that replace the model's. `Some("")` means "bare";
/// `None` keeps what the model config says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptOverride {
    /// Replacement query prompt.
    pub query: Option<String>,
    /// Replacement document prompt.
    pub document: Option<String>,
}

impl PromptOverride {
    /// Keep the model's prompts.
    pub fn none() -> Self {
        PromptOverride::default()
    }

    /// Whether anything is overridden.
    pub fn is_empty(&self) -> bool {
        self.query.is_none() && self.document.is_none()
    }

    /// Apply to a base set of prompts.
    pub fn apply(&self, base: Prompts) -> Prompts {
        if self.is_empty() {
            return base;
        }
        Prompts {
            query: self.query.clone().unwrap_or(base.query),
            document: self.document.clone().unwrap_or(base.document),
            source: PromptSource::Override,
        }
    }
}

/// L2-normalise a vector in place (a zero vector stays zero).
pub fn l2_normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        for x in v.iter_mut() {
            *x /= n;
        }
    }
}

/// Cosine similarity of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}
