//! What can stop an agent run, each with what to do about it.

/// An agent failure.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The chat back end could not be reached or answered with an HTTP error.
    #[error("chat model at {url}: {detail}")]
    Model { url: String, detail: String },
    /// The chat back end answered something that is not a chat reply.
    #[error(
        "chat model at {url} answered something that is not a {provider} chat reply: {detail}"
    )]
    Reply {
        url: String,
        provider: &'static str,
        detail: String,
    },
    /// The prompt would not fit the model's context: refused before sending.
    #[error("the prompt would not fit: {prompt} tokens ({meter}) + {reserve} reserved for the reply > {window} tokens of context ({source_of_window}). Nothing was sent. Use the navigation tools instead of --inline, a model with a larger context, or --context if the window is larger than detected")]
    TooLong {
        prompt: usize,
        reserve: usize,
        window: usize,
        meter: String,
        source_of_window: String,
    },
    /// Bad options.
    #[error("{0}")]
    Options(String),
    /// The toolbox could not be built.
    #[error(transparent)]
    Tools(#[from] gqlnav_tools::ToolboxError),
    /// The transcript could not be written.
    #[error("transcript {0}: {1}")]
    Transcript(String, std::io::Error),
}
