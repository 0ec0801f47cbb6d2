//! Typed errors of the search stage.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum SearchError {
    #[error("the backend was used before `index` was called")]
    NotIndexed,
    #[error("unknown analyzer `{0}`; expected `standard` or `identifier`")]
    UnknownAnalyzer(String),
    #[error("unknown backend `{0}`")]
    UnknownBackend(String),
    #[error("search index error: {0}")]
    Index(String),
    #[error("saved index at `{path}` cannot be used: {reason}")]
    SavedIndex { path: String, reason: String },
    /// A saved index built from another schema than the one being served.
    #[error("index at `{path}` was built for another schema (fingerprint {saved}; `{source_label}` has {current}): rebuild it with `gqlnav index --schema {source_label} --out {path} --backend {backend}`")]
    WrongSchema {
        path: String,
        saved: String,
        current: String,
        /// Where the served schema came from.
        source_label: String,
        /// The saved backend kind.
        backend: String,
    },
    /// The backend cannot be written to disk.
    #[error("backend `{0}` has no saved form; index it at start-up instead (saved forms exist for structure, bm25, vector and hybrid)")]
    NoSavedForm(String),
    #[error("{0}")]
    Other(String),
}

impl SearchError {
    /// A saved index at `path` that cannot be used, and why (the reason says what to do).
    pub fn saved_index(path: &std::path::Path, reason: impl Into<String>) -> Self {
        SearchError::SavedIndex {
            path: path.display().to_string(),
            reason: reason.into(),
        }
    }
}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        SearchError::Index(e.to_string())
    }
}
