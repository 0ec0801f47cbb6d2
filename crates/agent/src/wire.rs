//! Request bodies and reply parsing, one function per protocol.

use serde_json::{json, Map, Value};

use crate::chat::{
    ChatClient, Message, Provider, Reply, Role, ToolCall, ToolProtocol, ToolSpec, Usage,
};

fn role_name(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Arguments as the OpenAI protocol carries them: a JSON string.
fn args_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// OpenAI-compatible messages. A call the model wrote as text stays text (the reply to
/// it is a user message), so no `tool_calls` are invented for back ends that never sent
/// them.
fn openai_messages(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| {
            let mut v = json!({"role": role_name(m.role), "content": m.content});
            if !m.tool_calls.is_empty() {
                v["tool_calls"] = Value::Array(
                    m.tool_calls
                        .iter()
                        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args_string(&c.arguments)}}))
                        .collect(),
                );
            }
            if let Some(id) = &m.tool_call_id {
                v["tool_call_id"] = json!(id);
            }
            v
        })
        .collect()
}

pub(crate) fn openai_body(
    c: &ChatClient,
    messages: &[Message],
    tools: &[ToolSpec],
    protocol: ToolProtocol,
    action: Option<&Value>,
) -> Value {
    let mut b = json!({
        "model": c.model,
        "messages": openai_messages(messages),
        "temperature": c.temperature,
        "max_tokens": c.max_tokens,
    });
    if let Some(s) = c.seed {
        b["seed"] = json!(s);
    }
    match (protocol, action) {
        (ToolProtocol::Json, Some(schema)) => {
            b["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "action", "strict": true, "schema": schema}});
        }
        _ if !tools.is_empty() => {
            b["tools"] = Value::Array(
                tools
                    .iter()
                    .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                    .collect(),
            );
        }
        _ => {}
    }
    b
}

pub(crate) fn ollama_body(
    c: &ChatClient,
    messages: &[Message],
    tools: &[ToolSpec],
    protocol: ToolProtocol,
    action: Option<&Value>,
) -> Value {
    let msgs: Vec<Value> = messages
        .iter()
        .map(|m| {
            let mut v = json!({"role": role_name(m.role), "content": m.content});
            if !m.tool_calls.is_empty() {
                v["tool_calls"] = Value::Array(
                    m.tool_calls
                        .iter()
                        .map(|t| json!({"function": {"name": t.name, "arguments": t.arguments}}))
                        .collect(),
                );
            }
            if let Some(n) = &m.name {
                if m.role == Role::Tool {
                    v["tool_name"] = json!(n);
                }
            }
            v
        })
        .collect();
    let mut options = json!({"temperature": c.temperature, "num_predict": c.max_tokens});
    if let Some(s) = c.seed {
        options["seed"] = json!(s);
    }
    let mut b = json!({"model": c.model, "messages": msgs, "stream": false, "options": options});
    match (protocol, action) {
        (ToolProtocol::Json, Some(schema)) => b["format"] = schema.clone(),
        _ if !tools.is_empty() => {
            b["tools"] = Value::Array(
                tools
                    .iter()
                    .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                    .collect(),
            );
        }
        _ => {}
    }
    b
}

pub(crate) fn anthropic_body(c: &ChatClient, messages: &[Message], tools: &[ToolSpec]) -> Value {
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let mut out: Vec<Value> = Vec::new();
    for m in messages.iter().filter(|m| m.role != Role::System) {
        let (role, content) = match m.role {
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": m.content}));
                }
                for t in &m.tool_calls {
                    let input = if t.arguments.is_object() {
                        t.arguments.clone()
                    } else {
                        json!({})
                    };
                    blocks.push(
                        json!({"type": "tool_use", "id": t.id, "name": t.name, "input": input}),
                    );
                }
                ("assistant", Value::Array(blocks))
            }
            Role::Tool => (
                "user",
                json!([{"type": "tool_result", "tool_use_id": m.tool_call_id.clone().unwrap_or_default(), "content": m.content}]),
            ),
            _ => ("user", json!([{"type": "text", "text": m.content}])),
        };
        // Consecutive same-role messages are merged (the API wants them alternating).
        match out.last_mut() {
            Some(last) if last["role"] == role => {
                if let (Some(a), Some(b)) = (last["content"].as_array_mut(), content.as_array()) {
                    a.extend(b.iter().cloned());
                }
            }
            _ => out.push(json!({"role": role, "content": content})),
        }
    }
    let mut b = json!({
        "model": c.model,
        "max_tokens": c.max_tokens,
        "temperature": c.temperature,
        "messages": out,
    });
    if !system.is_empty() {
        b["system"] = json!(system.join("\n\n"));
    }
    if !tools.is_empty() {
        b["tools"] = Value::Array(tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})).collect());
    }
    b
}

fn parse_args(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// Parse a reply body of `provider`.
pub(crate) fn parse_reply(provider: Provider, raw: Value) -> Result<Reply, String> {
    match provider {
        Provider::OpenAi => openai_reply(raw),
        Provider::Ollama => ollama_reply(raw),
        Provider::Anthropic => anthropic_reply(raw),
    }
}

/// The `tool_calls` of an OpenAI or Ollama message (`{function: {name, arguments}}`), ids
/// from the call or `call_N`.
fn function_calls(msg: &Value, with_ids: bool) -> Vec<ToolCall> {
    let Some(calls) = msg["tool_calls"].as_array() else {
        return Vec::new();
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c["id"]
                .as_str()
                .filter(|_| with_ids)
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_{i}")),
            name: c["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            arguments: parse_args(&c["function"]["arguments"]),
        })
        .collect()
}

/// An OpenAI-compatible `/v1/chat/completions` reply.
fn openai_reply(raw: Value) -> Result<Reply, String> {
    let msg = raw["choices"][0]["message"].clone();
    if !msg.is_object() {
        return Err("no choices[0].message".into());
    }
    let usage = Usage {
        prompt: u(&raw["usage"]["prompt_tokens"]),
        completion: u(&raw["usage"]["completion_tokens"]),
        cache_read: u(&raw["usage"]["prompt_tokens_details"]["cached_tokens"]),
    };
    Ok(Reply {
        content: msg["content"].as_str().unwrap_or_default().to_string(),
        tool_calls: function_calls(&msg, true),
        usage,
        raw,
    })
}

/// An Ollama `/api/chat` reply (its tool calls carry no ids).
fn ollama_reply(raw: Value) -> Result<Reply, String> {
    let msg = raw["message"].clone();
    if !msg.is_object() {
        return Err("no message".into());
    }
    let usage = Usage {
        prompt: u(&raw["prompt_eval_count"]),
        completion: u(&raw["eval_count"]),
        cache_read: 0,
    };
    Ok(Reply {
        content: msg["content"].as_str().unwrap_or_default().to_string(),
        tool_calls: function_calls(&msg, false),
        usage,
        raw,
    })
}

/// An Anthropic `/v1/messages` reply: text blocks joined, `tool_use` blocks as calls;
/// prompt tokens include those read from the cache.
fn anthropic_reply(raw: Value) -> Result<Reply, String> {
    let blocks = raw["content"]
        .as_array()
        .ok_or("no content blocks")?
        .clone();
    let mut content = String::new();
    let mut tool_calls = Vec::new();
    for b in &blocks {
        match b["type"].as_str() {
            Some("text") => content.push_str(b["text"].as_str().unwrap_or_default()),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: b["id"].as_str().unwrap_or_default().to_string(),
                name: b["name"].as_str().unwrap_or_default().to_string(),
                arguments: b["input"].clone(),
            }),
            _ => {}
        }
    }
    let usage = Usage {
        prompt: u(&raw["usage"]["input_tokens"]) + u(&raw["usage"]["cache_read_input_tokens"]),
        completion: u(&raw["usage"]["output_tokens"]),
        cache_read: u(&raw["usage"]["cache_read_input_tokens"]),
    };
    Ok(Reply {
        content,
        tool_calls,
        usage,
        raw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_replies_keep_call_ids_and_read_string_arguments() {
        let raw = json!({
            "choices": [{"message": {"content": null, "tool_calls": [
                {"id": "abc", "function": {"name": "introspect", "arguments": "{\"type\": \"User\"}"}},
                {"function": {"name": "execute", "arguments": {"operation": "{a}"}}}
            ]}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 9,
                      "prompt_tokens_details": {"cached_tokens": 100}}
        });
        let r = parse_reply(Provider::OpenAi, raw).unwrap();
        assert_eq!(r.content, "");
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].id, "abc");
        assert_eq!(r.tool_calls[0].arguments, json!({"type": "User"}));
        assert_eq!(r.tool_calls[1].id, "call_1");
        assert_eq!(r.tool_calls[1].arguments, json!({"operation": "{a}"}));
        assert_eq!(
            r.usage,
            Usage {
                prompt: 120,
                completion: 9,
                cache_read: 100
            }
        );
        assert!(parse_reply(Provider::OpenAi, json!({"choices": []})).is_err());
    }

    #[test]
    fn ollama_replies_number_their_calls_and_count_eval_tokens() {
        let raw = json!({
            "message": {"content": "ok", "tool_calls": [
                {"id": "ignored", "function": {"name": "search_schema", "arguments": {"query": "stars"}}}
            ]},
            "prompt_eval_count": 50, "eval_count": 7
        });
        let r = parse_reply(Provider::Ollama, raw).unwrap();
        assert_eq!(r.content, "ok");
        assert_eq!(r.tool_calls[0].id, "call_0");
        assert_eq!(r.tool_calls[0].name, "search_schema");
        assert_eq!(r.usage.prompt, 50);
        assert_eq!(r.usage.completion, 7);
        assert!(parse_reply(Provider::Ollama, json!({"done": true})).is_err());
    }

    #[test]
    fn anthropic_replies_join_text_and_count_cache_reads_as_prompt() {
        let raw = json!({
            "content": [
                {"type": "text", "text": "Looking "},
                {"type": "tool_use", "id": "tu_1", "name": "validate", "input": {"operation": "{a}"}},
                {"type": "text", "text": "now."}
            ],
            "usage": {"input_tokens": 30, "cache_read_input_tokens": 200, "output_tokens": 12}
        });
        let r = parse_reply(Provider::Anthropic, raw).unwrap();
        assert_eq!(r.content, "Looking now.");
        assert_eq!(r.tool_calls[0].id, "tu_1");
        assert_eq!(r.tool_calls[0].arguments, json!({"operation": "{a}"}));
        assert_eq!(r.usage.prompt, 230);
        assert_eq!(r.usage.cache_read, 200);
        assert_eq!(r.usage.completion, 12);
        assert!(parse_reply(Provider::Anthropic, json!({"error": "x"})).is_err());
    }
}
