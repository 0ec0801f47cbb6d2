//! Tool calls written as text: small models (Qwen2.5-Coder 0.5B/1.5B on llama-server)
//! answer with a fenced or bare JSON object, or one inside `<tool_call>` tags, instead of
//! structured `tool_calls`. This finds one such call in a reply's content.

use serde_json::{Map, Value};

use crate::chat::ToolCall;

/// What the content holds.
#[derive(Debug, Clone, PartialEq)]
pub enum TextCall {
    /// A call: `{"name": …, "arguments": {…}}` (also `parameters`, `input`, or
    /// `{"function": {…}}`).
    Call(ToolCall),
    /// JSON that names a tool but whose arguments are not an object.
    Malformed(String),
    /// No call in the text.
    None,
}

/// Candidate JSON texts, most explicit first: `<tool_call>` bodies, fenced blocks, then
/// every balanced `{…}` in the text.
fn candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("<tool_call>") {
        let after = &rest[i + "<tool_call>".len()..];
        let end = after.find("</tool_call>").unwrap_or(after.len());
        out.push(after[..end].trim());
        rest = &after[end..];
    }
    let mut rest = text;
    while let Some(i) = rest.find("```") {
        let after = &rest[i + 3..];
        let body_start = after.find('\n').map_or(0, |n| n + 1);
        let body = &after[body_start..];
        let end = body.find("```").unwrap_or(body.len());
        out.push(body[..end].trim());
        rest = &body[(end + 3).min(body.len())..];
    }
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            if let Some(len) = balanced(&text[i..]) {
                out.push(&text[i..i + len]);
                i += len;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Length of the balanced `{…}` at the start of `s` (strings and escapes respected).
fn balanced(s: &str) -> Option<usize> {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, c) in s.char_indices() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn as_call(v: &Value, n: usize) -> Option<Result<ToolCall, String>> {
    let o = v.as_object()?;
    let inner = o.get("function").and_then(Value::as_object).unwrap_or(o);
    let name = inner
        .get("name")
        .or_else(|| inner.get("tool"))
        .and_then(Value::as_str)?;
    let args = inner
        .get("arguments")
        .or_else(|| inner.get("parameters"))
        .or_else(|| inner.get("input"))
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let args = match args {
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Some(Err(format!(
                    "the arguments of `{name}` are a string, not a JSON object: {s}"
                )))
            }
        },
        v @ Value::Object(_) => v,
        other => {
            return Some(Err(format!(
                "the arguments of `{name}` must be a JSON object, not {other}"
            )))
        }
    };
    Some(Ok(ToolCall {
        id: format!("text_{n}"),
        name: name.to_string(),
        arguments: args,
    }))
}

/// The first tool call written in `text`; `n` numbers the made-up call id.
pub fn find_call(text: &str, n: usize) -> TextCall {
    let mut malformed = None;
    for c in candidates(text) {
        let Ok(v) = serde_json::from_str::<Value>(c) else {
            continue;
        };
        match as_call(&v, n) {
            Some(Ok(call)) => return TextCall::Call(call),
            Some(Err(e)) => malformed = malformed.or(Some(e)),
            None => {}
        }
    }
    malformed.map_or(TextCall::None, TextCall::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(t: &str) -> ToolCall {
        match find_call(t, 0) {
            TextCall::Call(c) => c,
            other => panic!("{t}: {other:?}"),
        }
    }

    #[test]
    fn finds_fenced_bare_and_tagged_calls() {
        let c = call("I will search.\n```json\n{\"name\": \"search_schema\", \"arguments\": {\"query\": \"stars\"}}\n```");
        assert_eq!(
            (c.name.as_str(), c.arguments.clone()),
            ("search_schema", json!({"query": "stars"}))
        );
        let c = call("{\"name\":\"introspect\",\"arguments\":{\"type\":\"Repository\"}}");
        assert_eq!(c.name, "introspect");
        let c = call("<tool_call>\n{\"name\": \"execute\", \"arguments\": {\"operation\": \"{ a { b } }\"}}\n</tool_call>");
        assert_eq!(c.arguments["operation"], "{ a { b } }");
        // Qwen's `parameters`, OpenAI's nested function with string arguments.
        assert_eq!(
            call("{\"name\": \"x\", \"parameters\": {\"a\": 1}}").arguments,
            json!({"a": 1})
        );
        assert_eq!(
            call("{\"function\": {\"name\": \"x\", \"arguments\": \"{\\\"a\\\": 2}\"}}").arguments,
            json!({"a": 2})
        );
        // Braces inside strings do not confuse the scan.
        let c = call("text {\"name\": \"validate\", \"arguments\": {\"operation\": \"query { viewer { login } }\"}} more");
        assert_eq!(c.arguments["operation"], "query { viewer { login } }");
    }

    #[test]
    fn no_call_and_malformed_arguments_are_told_apart() {
        assert_eq!(find_call("The answer is 42.", 0), TextCall::None);
        assert_eq!(find_call("{\"just\": \"data\"}", 0), TextCall::None);
        match find_call("{\"name\": \"search_schema\", \"arguments\": \"stars\"}", 0) {
            TextCall::Malformed(e) => assert!(e.contains("not a JSON object"), "{e}"),
            other => panic!("{other:?}"),
        }
    }
}
