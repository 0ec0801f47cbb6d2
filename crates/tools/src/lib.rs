//! gqlnav tools stage: the agent tools as plain Rust, with no transport — `search_schema`
//! (a ranked page with cursors, or a budgeted slice), `introspect`, `validate` and
//! `execute` (with the execution policy, size and time caps and trusted headers).
//!
//! Every surface calls these: the MCP server and the GraphQL endpoint (crates/serve), the
//! CLI, and the agent loop. Each result is a [`ToolOutput`]: the text for the model, its
//! structured form and its token count. The state they share is a [`Toolbox`]: the current
//! [`Generation`] (schema graph, corpus, the indexed ranker and the slicer over that same
//! ranker, built once per schema version and swapped atomically on reload), the upstream
//! client, the meter and the policy.
//!
//! ```no_run
//! # fn demo(graph: std::sync::Arc<gqlnav_schema::SchemaGraph>) -> Result<(), gqlnav_tools::ToolboxError> {
//! use gqlnav_tools::{SearchRequest, Toolbox, ToolsConfig};
//! let tools = Toolbox::build(graph, None, ToolsConfig::default())?;
//! let out = tools.search_schema(&SearchRequest::new("open pull requests of a repository"));
//! println!("{} ({} tokens)", out.text, out.tokens);
//! # Ok(()) }
//! ```

mod around;
mod catalog;
mod compile;
mod cost;
mod error;
mod execute;
mod introspect;
mod output;
mod policy;
mod search;
mod toolbox;
mod typed;
mod util;
mod validate;

pub use catalog::{navigation_tools, NavCall, NavTool, ToolDef};
pub use compile::{
    compile, root_fields_by_reach, CompileError, CompileOptions, CompiledTool, FieldPathError,
    MutationAllow, NullableMode, RefMode, SelectionLimits, Skipped, ToolFormat, ToolSet,
    DEFAULT_MAX_TOOLS,
};
pub use cost::{check_cost, Cost, CostError, CostLimits};
pub use error::ToolError;
pub use execute::UpstreamError;
pub use introspect::{
    suggest, IntrospectRequest, INTROSPECT_EXPANSION_TOKENS, MAX_INTROSPECT_COORDINATES,
    MAX_INTROSPECT_DEPTH,
};
pub use output::ToolOutput;
pub use policy::{ExecPolicy, MutationPolicy, ToolsConfig, MAX_SEARCH_LIMIT};
pub use search::{
    check_query, item_block, name_terms, short_definition, SearchItem, SearchPage, SearchRequest,
    DEFAULT_SEARCH_LIMIT, EXAMPLE_LEAD, FIRST_LOOK_BUDGET_TOKENS, MAX_QUERY_BYTES,
};
pub use toolbox::{
    default_backend_factory, default_context, in_memory_factory, BackendFactory, Generation,
    Indexed, OperationSchema, Toolbox, ToolboxError, DEFAULT_RENDERING,
};
pub use typed::{
    assemble as assemble_answer, composed_remainder, mapping_schema as answer_mapping, path_view,
    render_data, words as name_words, FieldPath, Step, TypedArg, TypedCall, TypedOptions,
    TypedTool, TypedToolSet, Written,
};
pub use util::{cap_text, make_cursor, read_cursor, Scrubber};
pub use validate::{
    check_operation, compact_error, policy_refusal, variables_value, CompactError, OpInfo,
    OperationRequest, OperationText,
};
