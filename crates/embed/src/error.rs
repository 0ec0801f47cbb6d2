//! Typed errors of the embed stage.

use std::path::PathBuf;

use gqlnav_search::SearchError;
use thiserror::Error;

/// Everything that can go wrong while loading a model, embedding, talking to an
/// embedding server or reading the vector cache.
///
/// Messages are meant to be shown to a user as they are: they name the file, directory,
/// architecture, endpoint or model involved. They never contain an API key.
#[derive(Debug, Error)]
pub enum EmbedError {
    /// A file that the sentence-transformers layout requires is not in the model directory.
    #[error("model directory `{dir}` has no `{file}`; expected a sentence-transformers folder (config.json, tokenizer.json, model.safetensors, modules.json, 1_Pooling/config.json, config_sentence_transformers.json, sentence_bert_config.json)")]
    MissingFile {
        /// The missing file, relative to `dir`.
        file: String,
        /// The model directory.
        dir: PathBuf,
    },
    /// The model directory path does not exist or is not a directory.
    #[error("model directory `{0}` does not exist or is not a directory")]
    NotADirectory(PathBuf),
    /// `config.json` names an architecture this crate cannot run.
    #[error("model in `{dir}` has unsupported architecture `{architecture}`; supported: BERT family (model_type bert) and Qwen3 (model_type qwen3)")]
    UnsupportedArchitecture {
        /// The `model_type` / `architectures` value found.
        architecture: String,
        /// The model directory.
        dir: PathBuf,
    },
    /// The model is of a known family but uses a setting this crate does not implement
    /// (a pooling mode, a module type in modules.json, ...).
    #[error("model in `{dir}` is not supported: {what}")]
    Unsupported {
        /// What is not supported.
        what: String,
        /// The model directory.
        dir: PathBuf,
    },
    /// A configuration file exists but cannot be parsed or holds bad values.
    #[error("cannot read `{path}`: {reason}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O error on a named path.
    #[error("I/O error on `{path}`: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The tokenizer failed.
    #[error("tokenizer error: {0}")]
    Tokenizer(String),
    /// The model failed while loading weights or running a forward pass.
    #[error("model error: {0}")]
    Model(String),
    /// An embedding server URL is not an absolute http(s) URL.
    #[error("invalid embedding server URL `{url}`: {reason}")]
    InvalidUrl {
        /// The URL as given (with any user:password part removed).
        url: String,
        /// Why it is rejected.
        reason: String,
    },
    /// The embedding server does not know the model.
    #[error("embedding server at `{endpoint}` has no model `{model}`: {message}{hint}")]
    ModelNotFound {
        /// The model name sent.
        model: String,
        /// The endpoint called.
        endpoint: String,
        /// The server's own message.
        message: String,
        /// A hint such as `; run \`ollama pull x\``.
        hint: String,
    },
    /// The embedding server rejected the credentials (401/403).
    #[error("embedding server at `{endpoint}` rejected the request with HTTP {status} (check the API key): {message}")]
    Unauthorized {
        /// The endpoint called.
        endpoint: String,
        /// HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The embedding server answered with an error status, or could not be reached,
    /// after all retries.
    #[error("embedding server at `{endpoint}` failed{}: {message}", attempts_note(.attempts))]
    Server {
        /// The endpoint called.
        endpoint: String,
        /// HTTP status, when there was a response.
        status: Option<u16>,
        /// What happened.
        message: String,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The server's response body does not have the documented shape.
    #[error("embedding server at `{endpoint}` sent an unexpected response: {reason}")]
    BadResponse {
        /// The endpoint called.
        endpoint: String,
        /// What is wrong.
        reason: String,
    },
    /// Vectors of different lengths where one length is required.
    #[error("dimension mismatch in {context}: expected {expected}, found {found}")]
    DimsMismatch {
        /// Where the mismatch was seen.
        context: String,
        /// The expected number of dimensions.
        expected: usize,
        /// The number found.
        found: usize,
    },
    /// A vector cache file exists but cannot be used (bad magic, version, count, dims,
    /// key or length).
    #[error("vector cache file `{path}` cannot be used: {reason}")]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An invalid argument (e.g. a fusion weight outside [0, 1]).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

fn attempts_note(attempts: &u32) -> String {
    if *attempts > 1 {
        format!(" after {attempts} attempts")
    } else {
        String::new()
    }
}

impl From<candle_core::Error> for EmbedError {
    fn from(e: candle_core::Error) -> Self {
        EmbedError::Model(e.to_string())
    }
}

impl From<EmbedError> for SearchError {
    fn from(e: EmbedError) -> Self {
        SearchError::Other(e.to_string())
    }
}

/// Result alias of this crate.
pub type Result<T, E = EmbedError> = std::result::Result<T, E>;
