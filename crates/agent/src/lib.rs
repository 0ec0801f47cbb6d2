//! gqlnav agent stage: a chat model driving the tools (search_schema, introspect,
//! validate, execute, and `answer` when an answer schema is given), one visible step at
//! a time, with a context receipt and a truncation guard.
//!
//! - [`ChatClient`]: OpenAI-compatible `/v1/chat/completions`, Ollama `/api/chat`,
//!   Anthropic `/v1/messages` (`chat.rs`, bodies and replies in `wire.rs`).
//! - Tool calls: structured `tool_calls` when present, else one JSON call found in the
//!   content (`parse.rs`), or a JSON-Schema-constrained action ([`ToolProtocol::Json`]).
//! - [`Guard`]: counts every prompt before it is sent and refuses one that would not fit.
//! - [`Session`]: the loop and its limits; [`Receipt`]: what the run cost.
//! - The typed strategy ([`AgentOptions::typed`], `typed.rs`): each turn constrained to
//!   one typed-tool call or the answer; gqlnav writes the operation.

mod chat;
mod error;
mod guard;
mod hints;
mod parse;
mod prompt;
mod receipt;
mod session;
mod typed;
mod wire;

pub use chat::{
    action_schema, ChatClient, Message, Provider, Reply, Role, ToolCall, ToolProtocol, ToolSpec,
    Usage,
};
pub use error::AgentError;
pub use guard::{Guard, GuardMeter, ASSUMED_WINDOW, ESTIMATE_MARGIN_PCT};
pub use hints::{never_shown, operation_as_search};
pub use parse::{find_call, TextCall};
pub use prompt::{system, tools};
pub use receipt::{Receipt, ToolShare};
pub use session::{AgentOptions, Outcome, Session, Step, Stop};
pub use typed::{answer_grammar, TYPED_TURNS};
