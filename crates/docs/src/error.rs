//! Errors of the docs stage, each saying what to fix.

/// A docs-stage failure.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("not a docs index: {0}")]
    NotAnIndex(String),
    #[error("{0}")]
    Options(String),
    #[error("fetching {url}: {reason}")]
    Fetch { url: String, reason: String },
    #[error("the sitemap {url} is not usable: {reason}")]
    Sitemap { url: String, reason: String },
    #[error("embedding: {0}")]
    Embed(String),
    #[error(
        "no sections found in {site} ({skipped} pages skipped{first}); the last index is kept"
    )]
    Empty {
        site: String,
        skipped: usize,
        first: String,
    },
    #[error("Qdrant: {what}: {reason}")]
    Store { what: String, reason: String },
    #[error("BM25 index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
}
