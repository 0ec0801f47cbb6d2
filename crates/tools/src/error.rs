//! What can go wrong in a tool call, one variant per kind of failure, each message saying
//! what to change. A tool's own answer to the model is still a [`ToolOutput`]
//! (crate::ToolOutput) with `is_error`; these are the failures of the steps behind it
//! (reading arguments, a query or a cursor, ranking, building a generation, writing a
//! typed operation), which the surfaces turn into that output or into their own errors.

/// A failed step of a tool.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The arguments of a tool call do not fit its parameter schema.
    #[error("bad arguments for {tool}: {reason}. Send a JSON object with the tool's fields.")]
    Arguments {
        /// The tool called.
        tool: String,
        /// What did not fit (serde's message).
        reason: String,
    },
    /// A tool name that is not offered.
    #[error("there is no tool `{name}`; the tools are: {offered}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The names offered, comma-separated.
        offered: String,
    },
    /// A search query with no words.
    #[error(
        "`query` is empty; describe what you need, e.g. \"open pull requests of a repository\""
    )]
    EmptyQuery,
    /// A search query over [`MAX_QUERY_BYTES`](crate::MAX_QUERY_BYTES).
    #[error("`query` is {bytes} bytes; keep it under {max} (one short intent per call)")]
    QueryTooLong {
        /// Its length.
        bytes: usize,
        /// The most accepted.
        max: usize,
    },
    /// A cursor this server did not return for this query (or for this schema version).
    #[error("the cursor is not one this server returned for this query; call again without `cursor` (or `after`) to start from the first page")]
    BadCursor,
    /// `variables` is neither an object nor a JSON text of one.
    #[error("`variables` must be a JSON object")]
    VariablesNotObject,
    /// `variables` given as a string that is not JSON.
    #[error("`variables` is a string but not JSON: {0}")]
    VariablesNotJson(String),
    /// Variable values that do not coerce to the operation's variable types.
    #[error("{0}")]
    Variables(String),
    /// The schema has no query root.
    #[error("the schema has no Query type")]
    NoQueryRoot,
    /// The ranker failed.
    #[error("search failed: {0}")]
    Search(String),
    /// Building the search index of a generation failed.
    #[error("{0}")]
    Index(String),
    /// Building the slicer of a generation failed.
    #[error("{0}")]
    Slicer(String),
    /// A schema derived from the generation's (the GraphQL endpoint's) could not be built.
    #[error("{0}")]
    DerivedSchema(String),
    /// A field path (`a.b[]<T>.c`) that does not parse or does not fit the schema.
    #[error("{0}")]
    FieldPath(String),
    /// A typed-tool call that cannot be written as an operation (unknown tool or argument,
    /// a required argument missing).
    #[error("{0}")]
    TypedCall(String),
    /// A CPU-bound tool run on the blocking pool did not finish (it panicked or the
    /// runtime is shutting down).
    #[error("the tool did not finish: {0}")]
    Aborted(String),
}
