//! What every tool returns.

use serde_json::Value;

/// A tool's result: the text for the model, its structured form, an error flag and the
/// text's token count (in the toolbox's encoding, o200k_base).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// Text for the model (short, useful part first).
    pub text: String,
    /// Machine-readable result (MCP `structuredContent`).
    pub structured: Option<Value>,
    /// A tool-level error (the model should read `text` and correct itself).
    pub is_error: bool,
    /// Tokens of `text`, counted by the toolbox's meter.
    pub tokens: usize,
}

impl ToolOutput {
    /// A successful result (its tokens are counted when the toolbox returns it).
    pub fn ok(text: String, structured: Option<Value>) -> Self {
        ToolOutput {
            text,
            structured,
            is_error: false,
            tokens: 0,
        }
    }

    /// An error result.
    pub fn err(text: impl ToString, structured: Option<Value>) -> Self {
        ToolOutput {
            text: text.to_string(),
            structured,
            is_error: true,
            tokens: 0,
        }
    }

    /// Count the text's tokens.
    pub(crate) fn counted(mut self, meter: &gqlnav_corpus::TokenMeter) -> Self {
        self.tokens = meter.count(&self.text);
        self
    }
}
