//! Typed errors of the bench stage.

use thiserror::Error;

/// Everything that can go wrong while loading a dataset, running a backend over it or
/// writing a report.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path that failed.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A dataset line or file is malformed (strict loading only; lenient loading records
    /// a [`crate::dataset::Problem`] instead).
    #[error("{file}:{line}: {message}")]
    Malformed {
        /// The file.
        file: String,
        /// 1-based line number (0 when unknown).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The backend failed on a question.
    #[error("search failed on question `{question}`: {source}")]
    Search {
        /// Id of the question.
        question: String,
        /// The backend's error (boxed: it is large and rare).
        #[source]
        source: Box<gqlnav_search::SearchError>,
    },
    /// The run options are unusable (for example depth 0).
    #[error("invalid run options: {0}")]
    Options(String),
    /// A plot could not be drawn.
    #[error("plot `{path}`: {message}")]
    Plot {
        /// The SVG path.
        path: String,
        /// The drawing error.
        message: String,
    },
    /// JSON serialisation failed.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

impl BenchError {
    /// An [`BenchError::Io`] for `path`.
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        BenchError::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
}
