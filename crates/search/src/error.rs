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
    #[error("{0}")]
    Other(String),
}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        SearchError::Index(e.to_string())
    }
}
