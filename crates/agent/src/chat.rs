//! Chat back ends: the OpenAI-compatible `/v1/chat/completions` protocol (hosted APIs,
//! llama-server, vLLM), Ollama `/api/chat` and Anthropic `/v1/messages`. One message
//! model for all three; keys come from the environment and never appear in `Debug`,
//! errors or transcripts.

use std::time::Duration;

use serde_json::{json, Value};

use crate::error::AgentError;

/// Largest chat reply read (a reply of `max_tokens` is a few kB; a larger body is a
/// misconfigured or hostile back end, refused before it fills memory).
pub const MAX_REPLY_BYTES: usize = 8 << 20;

/// The body as text, refused when it grows past `cap` bytes.
async fn read_capped(mut resp: reqwest::Response, cap: usize) -> Result<String, String> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
        if buf.len() + chunk.len() > cap {
            return Err(format!(
                "the reply is larger than {cap} bytes; refused (is --model-url a chat endpoint?)"
            ));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Which protocol a model URL speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// `/v1/chat/completions` (OpenAI, llama-server, vLLM, …).
    OpenAi,
    /// Ollama `/api/chat`.
    Ollama,
    /// Anthropic `/v1/messages`.
    Anthropic,
}

impl Provider {
    pub fn parse(s: &str) -> Option<Provider> {
        match s.to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "llama-server" | "vllm" => Some(Provider::OpenAi),
            "ollama" => Some(Provider::Ollama),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Ollama => "ollama",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The environment variable the key is read from.
    pub fn key_var(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_API_KEY",
            Provider::Ollama => "OLLAMA_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
        }
    }
}

/// A message role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One tool call a model asked for.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolCall {
    /// The provider's call id (made up when the model wrote the call as text).
    pub id: String,
    pub name: String,
    /// The arguments (an object; a string the model wrote that is not JSON stays a string).
    pub arguments: Value,
}

/// One message of the conversation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Tool calls of an assistant message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool message: the tool's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }
}

/// A tool offered to the model.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// Token usage as the provider reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub prompt: u64,
    pub completion: u64,
    /// Prompt tokens read from the provider's cache, where reported.
    pub cache_read: u64,
}

/// A model's reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub content: String,
    /// Structured tool calls (`tool_calls`, `tool_use`), if the model used them.
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The response body (for the transcript).
    pub raw: Value,
}

/// How each turn is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolProtocol {
    /// Offer the tools natively; accept `tool_calls`, or one JSON call in the content.
    Auto,
    /// Constrain each turn with a JSON-Schema "action" object (`response_format` /
    /// Ollama `format`): `{"name": …, "arguments": {…}}`. Tools are described in the
    /// system prompt.
    Json,
}

/// A chat back end.
#[derive(Clone)]
pub struct ChatClient {
    pub provider: Provider,
    /// Base URL (`http://127.0.0.1:8080`; a trailing `/v1` is accepted).
    pub url: String,
    pub model: String,
    key: Option<String>,
    http: reqwest::Client,
    pub temperature: f32,
    pub seed: Option<u64>,
    /// Most tokens per reply.
    pub max_tokens: u32,
}

impl std::fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatClient")
            .field("provider", &self.provider)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

impl ChatClient {
    /// A client; the key is read from the provider's environment variable
    /// ([`Provider::key_var`]) when set.
    pub fn new(
        provider: Provider,
        url: &str,
        model: &str,
        timeout: Duration,
    ) -> Result<Self, AgentError> {
        gqlnav_schema::check_http_url(url)
            .map_err(|e| AgentError::Options(format!("--model-url: {e}")))?;
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AgentError::Options(format!("HTTP client: {e}")))?;
        let key = std::env::var(provider.key_var())
            .ok()
            .filter(|k| !k.is_empty());
        Ok(ChatClient {
            provider,
            url: url
                .trim_end_matches('/')
                .trim_end_matches("/v1")
                .to_string(),
            model: model.to_string(),
            key,
            http,
            temperature: 0.0,
            seed: Some(0),
            max_tokens: 1024,
        })
    }

    /// The key, for scrubbing text that leaves the process.
    pub fn secret(&self) -> Option<&str> {
        self.key.as_deref()
    }

    fn endpoint(&self) -> String {
        match self.provider {
            Provider::OpenAi => format!("{}/v1/chat/completions", self.url),
            Provider::Ollama => format!("{}/api/chat", self.url),
            Provider::Anthropic => format!("{}/v1/messages", self.url),
        }
    }

    /// The request body for one turn.
    pub fn body(
        &self,
        messages: &[Message],
        tools: &[ToolSpec],
        protocol: ToolProtocol,
        action: Option<&Value>,
    ) -> Value {
        match self.provider {
            Provider::OpenAi => crate::wire::openai_body(self, messages, tools, protocol, action),
            Provider::Ollama => crate::wire::ollama_body(self, messages, tools, protocol, action),
            Provider::Anthropic => crate::wire::anthropic_body(self, messages, tools),
        }
    }

    /// Send one turn; returns the request body sent and the reply.
    pub async fn complete(&self, body: &Value) -> Result<Reply, AgentError> {
        let url = self.endpoint();
        let mut req = self.http.post(&url).json(body);
        if let Some(k) = &self.key {
            req = match self.provider {
                Provider::Anthropic => req
                    .header("x-api-key", k)
                    .header("anthropic-version", "2023-06-01"),
                _ => req.bearer_auth(k),
            };
        } else if self.provider == Provider::Anthropic {
            req = req.header("anthropic-version", "2023-06-01");
        }
        let scrub = |s: String| match &self.key {
            Some(k) => s.replace(k.as_str(), "<key>"),
            None => s,
        };
        let resp = req.send().await.map_err(|e| AgentError::Model {
            url: url.clone(),
            detail: scrub(if e.is_connect() {
                format!("cannot connect ({e}); is the model server running? (llama-server: scripts/agent_model.sh)")
            } else if e.is_timeout() {
                format!("no answer in time ({e})")
            } else {
                e.to_string()
            }),
        })?;
        let status = resp.status();
        let text =
            read_capped(resp, MAX_REPLY_BYTES)
                .await
                .map_err(|detail| AgentError::Model {
                    url: url.clone(),
                    detail: scrub(detail),
                })?;
        if !status.is_success() {
            return Err(AgentError::Model {
                url,
                detail: scrub(format!(
                    "HTTP {status}: {}",
                    gqlnav_schema::body_snippet(text.as_bytes(), 300)
                )),
            });
        }
        let raw: Value = serde_json::from_str(&text).map_err(|e| AgentError::Reply {
            url: url.clone(),
            provider: self.provider.name(),
            detail: format!("{e}: {}", gqlnav_schema::body_snippet(text.as_bytes(), 200)),
        })?;
        crate::wire::parse_reply(self.provider, raw).map_err(|detail| AgentError::Reply {
            url,
            provider: self.provider.name(),
            detail,
        })
    }
}

/// The JSON-Schema "action" object for [`ToolProtocol::Json`]: one tool name and that
/// tool's arguments (`anyOf` one branch per tool, so a constrained decoder also shapes the
/// arguments; a 0.5B model otherwise copies the parameter schema into them).
pub fn action_schema(tools: &[ToolSpec]) -> Value {
    let branches: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "type": "object",
                "properties": {"name": {"const": t.name}, "arguments": required_only(&lean_schema(&t.parameters))},
                "required": ["name", "arguments"],
                "additionalProperties": false
            })
        })
        .collect();
    json!({"anyOf": branches})
}

/// Only the required properties of an object schema (all of them when none is
/// required) and the optional ones that hold an object of values (an operation's
/// `variables`, without which the operation a search result shows cannot run): optional
/// cursors and budgets invite a small model to invent values.
fn required_only(v: &Value) -> Value {
    let req: Vec<&str> = v["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = v.clone();
    if let (false, Some(props)) = (req.is_empty(), v["properties"].as_object()) {
        let kept: serde_json::Map<String, Value> = props
            .iter()
            .filter(|(k, x)| req.contains(&k.as_str()) || free_values(x))
            .map(|(k, x)| (k.clone(), x.clone()))
            .collect();
        out["properties"] = Value::Object(kept);
        out["additionalProperties"] = Value::Bool(false);
    }
    out
}

/// A property that holds an object of values: typed `object`, or any JSON (no type, no
/// enum, no reference), as an operation's `variables` is.
fn free_values(x: &Value) -> bool {
    x["type"] == "object"
        || (x.get("type").is_none() && x.get("$ref").is_none() && x.get("enum").is_none())
}

/// A parameter schema without what a decoder or a small model does not need: `$schema`,
/// titles, descriptions, `format`, `default: null`; `["T", "null"]` types as `T`.
pub fn lean_schema(v: &Value) -> Value {
    lean(v, false)
}

/// [`lean_schema`] keeping descriptions: an answer schema's words say what a value holds
/// (`Full repository name in owner/name form`), which its key alone does not.
pub fn lean_schema_described(v: &Value) -> Value {
    lean(v, true)
}

fn lean(v: &Value, described: bool) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m {
                match k.as_str() {
                    "description" if described && x.is_string() => {
                        out.insert(k.clone(), x.clone());
                    }
                    "$schema" | "title" | "description" | "format" | "examples" => continue,
                    "default" if x.is_null() => continue,
                    "type" => {
                        if let Value::Array(a) = x {
                            let non_null: Vec<&Value> = a.iter().filter(|t| *t != "null").collect();
                            if non_null.len() == 1 {
                                out.insert(k.clone(), non_null[0].clone());
                                continue;
                            }
                        }
                        out.insert(k.clone(), x.clone());
                    }
                    "properties" => {
                        let props: serde_json::Map<String, Value> = x
                            .as_object()
                            .map(|p| {
                                p.iter()
                                    .map(|(n, s)| (n.clone(), lean(s, described)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    _ => {
                        out.insert(k.clone(), lean(x, described));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| lean(x, described)).collect()),
        other => other.clone(),
    }
}

/// A tool as one line a small model can copy: `search_schema(query: string, limit?: integer)`.
pub fn signature(t: &ToolSpec) -> String {
    let req: Vec<&str> = t.parameters["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut props: Vec<(&String, &Value)> = t.parameters["properties"]
        .as_object()
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    // Required arguments first: they are what a call must carry.
    props.sort_by_key(|(n, _)| !req.contains(&n.as_str()));
    let args: Vec<String> = Some(&props)
        .map(|p| {
            p.iter()
                .map(|(n, s)| {
                    let ty = match lean_schema(s).get("type") {
                        Some(Value::String(x)) => x.clone(),
                        Some(other) => other.to_string(),
                        None => "any".into(),
                    };
                    format!(
                        "{n}{}: {ty}",
                        if req.contains(&n.as_str()) { "" } else { "?" }
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{}({})", t.name, args.join(", "))
}
