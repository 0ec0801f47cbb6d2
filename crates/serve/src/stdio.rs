//! MCP over stdio with JSON-RPC 2.0 error replies for what rmcp drops silently.
//!
//! rmcp ignores a line that is not JSON (its choice, to avoid echo storms: rust-sdk
//! issue #938), so a client that sent one waits forever. The JSON-RPC spec asks for a
//! `-32700` reply with a null id. This module sits between stdin/stdout and rmcp (over an
//! in-process pipe) and answers, itself:
//! - `-32700` for a line that is not UTF-8, not JSON, or longer than [`MAX_LINE_BYTES`];
//! - `-32600` for a batch (an array: MCP has no batching) or a message that is not an
//!   object;
//! - `-32602` for `tools/call` whose params are not `{name: string, arguments?: object}`;
//!
//! and it completes rmcp's bare "method not found" message with the methods this server
//! answers. Everything else passes through unchanged, one whole line at a time, so the
//! two writers never interleave. On stdin EOF the pipe to rmcp is closed and the server
//! ends.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::error::ServeError;
use crate::mcp::GqlnavMcp;
use crate::state::AppState;

/// The longest message line accepted (longer ones get `-32700` and are skipped).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The methods rmcp answers for this server, for the "method not found" message.
const METHODS: &str = "initialize, ping, tools/list, tools/call";

/// One line read from a bounded reader.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A whole line (without the newline).
    Text(Vec<u8>),
    /// A line over the limit (skipped up to its newline).
    TooLong,
    /// End of input.
    Eof,
}

/// Read one `\n`-terminated line without buffering more than `max` bytes of it.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut over = false;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(if over {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Text(std::mem::take(buf))
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !over && buf.len() + take > max.saturating_add(1) {
            over = true;
            buf.clear();
        }
        if !over {
            buf.extend_from_slice(&available[..take]);
        }
        r.consume(take);
        if newline.is_some() {
            if over {
                return Ok(Line::TooLong);
            }
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Line::Text(std::mem::take(buf)));
        }
    }
}

fn error_reply(id: Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// What to do with one input line: pass it to rmcp, or answer it here.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Forward to rmcp.
    Pass,
    /// Skip (a blank line).
    Skip,
    /// Reply with this line and do not forward.
    Reply(String),
}

/// Judge one input line.
pub(crate) fn judge(line: &Line) -> Verdict {
    let bytes = match line {
        Line::TooLong => {
            return Verdict::Reply(error_reply(
                Value::Null,
                -32700,
                format!(
                "Parse error: the message is longer than {MAX_LINE_BYTES} bytes and was skipped"
            ),
            ))
        }
        Line::Eof => return Verdict::Skip,
        Line::Text(b) => b,
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Verdict::Reply(error_reply(
            Value::Null,
            -32700,
            "Parse error: the message is not valid UTF-8".into(),
        ));
    };
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Verdict::Skip;
    }
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error_reply(
                Value::Null,
                -32700,
                format!(
                    "Parse error: the message is not JSON ({e}); send one JSON-RPC object per line"
                ),
            ))
        }
    };
    let Some(obj) = v.as_object() else {
        let what = if v.is_array() {
            "batching is not supported: send one JSON-RPC object per line"
        } else {
            "a JSON-RPC message must be an object"
        };
        return Verdict::Reply(error_reply(
            Value::Null,
            -32600,
            format!("Invalid Request: {what}"),
        ));
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    if obj.get("method").and_then(Value::as_str) == Some("tools/call") {
        if let Some(problem) = tools_call_problem(obj.get("params")) {
            return Verdict::Reply(error_reply(
                id,
                -32602,
                format!("Invalid params for tools/call: {problem}"),
            ));
        }
    }
    Verdict::Pass
}

fn tools_call_problem(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(p)) = params else {
        return Some(format!(
            "params must be an object {{\"name\": …, \"arguments\": {{…}}}}, got {}",
            kind(params)
        ));
    };
    if !p.get("name").is_some_and(Value::is_string) {
        return Some("params.name must be the tool's name (a string)".into());
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        other => Some(format!(
            "params.arguments must be an object of named arguments, got {}",
            kind(other)
        )),
    }
}

fn kind(v: Option<&Value>) -> &'static str {
    match v {
        None => "nothing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

/// Complete rmcp's "method not found" replies, whose message is the bare method name.
pub(crate) fn explain_output(line: String) -> String {
    if !line.contains("-32601") {
        return line;
    }
    let Ok(mut v) = serde_json::from_str::<Value>(&line) else {
        return line;
    };
    let err = &mut v["error"];
    if err["code"] != -32601 {
        return line;
    }
    let method = err["message"].as_str().unwrap_or_default().to_string();
    err["message"] = json!(format!(
        "Method not found: `{method}`; this server answers {METHODS}"
    ));
    v.to_string()
}

/// Serve MCP over stdin/stdout until stdin ends. Nothing else may write to stdout while
/// this runs (logs go to stderr or a file).
pub async fn run_stdio(state: Arc<AppState>) -> Result<(), ServeError> {
    run_stdio_with(GqlnavMcp::new(state)).await
}

/// [`run_stdio`] with any MCP handler (the multi-graph server's).
pub(crate) async fn run_stdio_with<H: rmcp::ServerHandler>(handler: H) -> Result<(), ServeError> {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let svc = rmcp::ServiceExt::serve(handler, theirs);
    let (rmcp_out, mut rmcp_in) = tokio::io::split(ours);
    let (tx, mut rx) = mpsc::channel::<String>(64);

    // One writer owns stdout: whole lines from rmcp and from the judge, never interleaved.
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            if out.write_all(line.as_bytes()).await.is_err()
                || out.write_all(b"\n").await.is_err()
                || out.flush().await.is_err()
            {
                break;
            }
        }
    });
    let out_tx = tx.clone();
    let from_rmcp = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(rmcp_out).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if out_tx.send(explain_output(line)).await.is_err() {
                break;
            }
        }
    });
    let to_rmcp = tokio::spawn(async move {
        let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
        let mut buf = Vec::new();
        loop {
            let line = match read_line(&mut stdin, &mut buf, MAX_LINE_BYTES).await {
                Ok(Line::Eof) | Err(_) => break,
                Ok(l) => l,
            };
            match judge(&line) {
                Verdict::Skip => {}
                Verdict::Reply(r) => {
                    if tx.send(r).await.is_err() {
                        break;
                    }
                }
                Verdict::Pass => {
                    let Line::Text(bytes) = line else { continue };
                    if rmcp_in.write_all(&bytes).await.is_err()
                        || rmcp_in.write_all(b"\n").await.is_err()
                    {
                        break;
                    }
                }
            }
        }
        // EOF: close rmcp's input so the service ends.
        let _ = rmcp_in.shutdown().await;
    });

    let running = svc.await.map_err(|e| ServeError::Stdio(e.to_string()))?;
    tracing::info!("MCP server ready on stdio");
    let _ = running.waiting().await;
    let _ = to_rmcp.await;
    let _ = from_rmcp.await;
    let _ = writer.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &[u8]) -> Value {
        match judge(&Line::Text(line.to_vec())) {
            Verdict::Reply(r) => serde_json::from_str(&r).expect("reply is JSON"),
            v => panic!("no reply: {v:?}"),
        }
    }

    #[test]
    fn unparseable_lines_get_a_parse_error_with_a_null_id() {
        for bad in [
            &b"{not json"[..],
            &[0xff, 0xfe, b'{'][..],
            &b"{\"jsonrpc\":"[..],
        ] {
            let r = reply(bad);
            assert_eq!(r["error"]["code"], -32700, "{r}");
            assert!(r["id"].is_null(), "{r}");
        }
        let r = match judge(&Line::TooLong) {
            Verdict::Reply(r) => r,
            v => panic!("{v:?}"),
        };
        assert!(r.contains("-32700") && r.contains("longer than"), "{r}");
    }

    #[test]
    fn batches_and_bad_tool_params_are_named() {
        let r = reply(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(r["error"]["code"], -32600);
        assert!(r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("batching is not supported"));
        let r = reply(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"validate","arguments":["x"]}}"#);
        assert_eq!(r["error"]["code"], -32602);
        assert_eq!(r["id"], 7);
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("an array"),
            "{r}"
        );
        let r = reply(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":[1]}"#);
        assert_eq!(r["error"]["code"], -32602);
        let ok = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"validate","arguments":{"operation":"{a}"}}}"#;
        assert_eq!(judge(&Line::Text(ok.to_vec())), Verdict::Pass);
        assert_eq!(judge(&Line::Text(b"  ".to_vec())), Verdict::Skip);
    }

    #[test]
    fn method_not_found_names_the_methods() {
        let out = explain_output(
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"resources/list"}}"#.into(),
        );
        assert!(out.contains("Method not found: `resources/list`"), "{out}");
        assert!(out.contains("tools/call"), "{out}");
        let other = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#.to_string();
        assert_eq!(explain_output(other.clone()), other);
    }

    #[tokio::test]
    async fn the_line_reader_bounds_what_it_buffers() {
        let mut input: &[u8] = b"short\nxxxxxxxxxxxxxxxxxxxx\nafter\r\ntail";
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            match read_line(&mut input, &mut buf, 10).await.expect("read") {
                Line::Eof => break,
                l => got.push(l),
            }
        }
        assert_eq!(
            got,
            vec![
                Line::Text(b"short".to_vec()),
                Line::TooLong,
                Line::Text(b"after".to_vec()),
                Line::Text(b"tail".to_vec()),
            ]
        );
    }
}
