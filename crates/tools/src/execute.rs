//! The execution client: validated operations go to the upstream endpoint with the
//! trusted headers only; responses are bounded in time and bytes, then capped in bytes
//! and tokens for the model.

use serde_json::{json, Value};

use crate::output::ToolOutput;
use crate::toolbox::Toolbox;
use crate::validate::{
    check_operation, policy_refusal, variables_value, OperationRequest, OperationText,
};

/// Why an upstream call failed (messages never hold header values or URL credentials).
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// No endpoint configured.
    #[error("no upstream endpoint is configured; the user must start the server with --endpoint URL (or GQLNAV_ENDPOINT)")]
    NoEndpoint,
    /// Timed out.
    #[error("the upstream did not answer within {0} s")]
    Timeout(u64),
    /// Redirect refused.
    #[error("the upstream answered HTTP {0} (a redirect); redirects are not followed")]
    Redirect(u16),
    /// Too big.
    #[error("the upstream response exceeded {0} bytes; the read was stopped. Select fewer fields or pass a smaller `first`")]
    TooLarge(u64),
    /// Non-2xx without a GraphQL body.
    #[error("the upstream answered HTTP {status} without a GraphQL response ({advice}); body starts with: {snippet}")]
    Status {
        /// HTTP status.
        status: u16,
        /// What to check.
        advice: &'static str,
        /// Start of the body (control characters escaped).
        snippet: String,
    },
    /// Not JSON.
    #[error("the upstream did not answer with JSON; body starts with: {0}")]
    NotJson(String),
    /// JSON, but neither `data` nor `errors`.
    #[error("the upstream answered JSON that is not a GraphQL response (no `data` or `errors`); check the endpoint URL. Body starts with: {0}")]
    NotGraphql(String),
    /// Transport failure.
    #[error("the request to the upstream failed: {0}")]
    Request(String),
}

fn snippet(b: &[u8]) -> String {
    gqlnav_schema::body_snippet(b, 160)
}

impl Toolbox {
    /// POST a GraphQL request body upstream with the trusted headers; the parsed JSON body.
    /// GraphQL error responses with a 4xx/5xx status and a JSON body are returned as JSON.
    pub async fn post_upstream(&self, body: &Value) -> Result<Value, UpstreamError> {
        let state = self;
        let url = state
            .config
            .endpoint
            .as_deref()
            .ok_or(UpstreamError::NoEndpoint)?;
        let parsed = gqlnav_schema::check_http_url(url)
            .map_err(|e| UpstreamError::Request(e.to_string()))?;
        let policy = &state.config.policy;
        let mut req = state
            .client
            .post(parsed)
            .header("content-type", "application/json")
            .header(
                "accept",
                "application/graphql-response+json, application/json",
            );
        for (k, v) in &state.config.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let label = gqlnav_schema::redact_url(url);
        let map = |e: reqwest::Error| {
            if e.is_timeout() {
                UpstreamError::Timeout(policy.timeout.as_secs())
            } else if e.is_connect() {
                UpstreamError::Request(format!("could not connect to {label}"))
            } else {
                UpstreamError::Request(state.scrub(&e.to_string().replace(url, &label)))
            }
        };
        // The timeout covers the whole exchange, body included (a server that sends its
        // headers and then one byte a second is cut off like one that never answers).
        let fetch = async {
            let mut resp = req.body(body.to_string()).send().await.map_err(map)?;
            let status = resp.status();
            if status.is_redirection() {
                return Err(UpstreamError::Redirect(status.as_u16()));
            }
            if resp
                .content_length()
                .is_some_and(|n| n > policy.max_response_bytes)
            {
                return Err(UpstreamError::TooLarge(policy.max_response_bytes));
            }
            let mut buf: Vec<u8> = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(map)? {
                buf.extend_from_slice(&chunk);
                if buf.len() as u64 > policy.max_response_bytes {
                    return Err(UpstreamError::TooLarge(policy.max_response_bytes));
                }
            }
            Ok((status, buf))
        };
        let (status, buf) = tokio::time::timeout(policy.timeout, fetch)
            .await
            .map_err(|_| UpstreamError::Timeout(policy.timeout.as_secs()))??;
        let parsed = serde_json::from_slice::<Value>(&buf).ok();
        match parsed {
            // A GraphQL response (GraphQL over HTTP allows one with a 4xx status).
            Some(v) if is_graphql_response(&v) => Ok(v),
            _ if !status.is_success() => Err(UpstreamError::Status {
                status: status.as_u16(),
                advice: status_advice(status.as_u16()),
                snippet: state.scrub(&snippet(&buf)),
            }),
            Some(_) => Err(UpstreamError::NotGraphql(state.scrub(&snippet(&buf)))),
            None => Err(UpstreamError::NotJson(state.scrub(&snippet(&buf)))),
        }
    }
}

/// An object with `data` or an `errors` list: what a GraphQL server answers.
fn is_graphql_response(v: &Value) -> bool {
    v.get("data").is_some() || v.get("errors").is_some_and(Value::is_array)
}

/// What to check for a failing HTTP status.
fn status_advice(status: u16) -> &'static str {
    match status {
        401 | 403 => {
            "check the credentials the server sends (--header / GQLNAV_HEADERS) and their scopes"
        }
        404 | 405 => "check the endpoint URL (--endpoint): it should be the API's GraphQL URL",
        413 => "the request was too large for the upstream",
        429 => "the upstream is rate limiting; wait before retrying",
        500..=599 => "the upstream is failing; try again later",
        _ => "check the endpoint and the request",
    }
}

/// One line per distinct error message, in first-seen order: `message (at a.b, c.d) ×N`
/// (an upstream that fails one field on every node repeats the same error per node).
/// At most 10 lines; paths listed up to 3 per message.
pub(crate) fn error_lines(errors: &[Value]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<String>, usize)> = Vec::new();
    for e in errors {
        // Upstream text goes to a terminal or a model: control characters escaped.
        let msg = gqlnav_schema::escape_controls(
            e.get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)"),
        );
        let path = e
            .get("path")
            .and_then(Value::as_array)
            .map(|p| {
                p.iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .filter(|p| !p.is_empty())
            .map(|p| gqlnav_schema::escape_controls(&p));
        match groups.iter_mut().find(|(m, _, _)| *m == msg) {
            Some((_, paths, n)) => {
                *n += 1;
                paths.extend(path);
            }
            None => groups.push((msg, path.into_iter().collect(), 1)),
        }
    }
    groups
        .into_iter()
        .take(10)
        .map(|(msg, paths, n)| {
            let mut line = msg;
            if !paths.is_empty() {
                let more = if paths.len() > 3 { ", …" } else { "" };
                line.push_str(&format!(
                    " (at {}{more})",
                    paths[..paths.len().min(3)].join(", ")
                ));
            }
            if n > 1 {
                line.push_str(&format!(" ×{n}"));
            }
            line
        })
        .collect()
}

impl Toolbox {
    /// `execute`: validate, apply the policy, send, cap.
    pub async fn execute(&self, a: &OperationRequest) -> ToolOutput {
        self.execute_data(a).await.0
    }

    /// [`Toolbox::execute`], with the whole `data` the upstream answered (read under
    /// `max_response_bytes`) beside the capped output: for an in-process caller that shows
    /// the model its own rendering and reads values the cap cut (the typed agent's answer
    /// by paths). `None` when nothing was executed or the upstream sent no data.
    pub async fn execute_data(&self, a: &OperationRequest) -> (ToolOutput, Option<Value>) {
        let (out, data) = self.execute_inner(a).await;
        (out.counted(&self.meter), data.filter(|d| !d.is_null()))
    }

    async fn execute_inner(&self, a: &OperationRequest) -> (ToolOutput, Option<Value>) {
        let state = self;
        let variables = match variables_value(a.variables.clone()) {
            Ok(v) => v,
            Err(e) => return (ToolOutput::err(e, None), None),
        };
        let generation = state.generation();
        let graph = &generation.graph;
        let op = OperationText {
            text: &a.operation,
            name: a.operation_name.as_deref(),
            variables: variables.as_ref(),
        };
        let schema = &generation.operations().schema;
        let info = match check_operation(graph, schema, op, &state.config.policy.cost) {
            Err(errs) => {
                let mut text = format!(
                    "Not executed: the operation is invalid ({} problem(s)):\n",
                    errs.len()
                );
                for e in &errs {
                    text.push_str(&format!("- {}\n", e.line()));
                }
                text.push_str("Fix these (validate helps) and execute again.");
                return (
                    ToolOutput::err(text, Some(json!({"executed": false, "errors": errs}))),
                    None,
                );
            }
            Ok((_, info)) => info,
        };
        if let Some(r) = policy_refusal(&state.config.policy, &info) {
            return (
                ToolOutput::err(
                    format!("Not executed: {r}."),
                    Some(json!({"executed": false, "refusal": r})),
                ),
                None,
            );
        }
        let mut body = json!({"query": &a.operation});
        if let Some(v) = variables {
            body["variables"] = v;
        }
        if let Some(n) = &a.operation_name {
            body["operationName"] = json!(n);
        }
        let t0 = std::time::Instant::now();
        let resp = state.post_upstream(&body).await;
        let ms = t0.elapsed().as_millis() as u64;
        let mut v = match resp {
            Ok(v) => v,
            Err(e) => {
                tracing::info!(ms, op = ?info.name, "execute failed: {}", state.scrub(&e.to_string()));
                return (
                    ToolOutput::err(
                        format!("Not executed: {}.", state.scrub(&e.to_string())),
                        Some(json!({"executed": false})),
                    ),
                    None,
                );
            }
        };
        state.scrubber.scrub_json(&mut v);
        tracing::info!(ms, op = ?info.name, "executed");
        let errors: Vec<Value> = v
            .get("errors")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let data = v.get("data").cloned().unwrap_or(Value::Null);
        let data_text = serde_json::to_string(&data).unwrap_or_default();
        let policy = &state.config.policy;
        let (shown, cut) = crate::util::cap_text(
            &data_text,
            policy.max_result_bytes,
            policy.max_result_tokens,
            &state.meter,
            "Select fewer fields or pass a smaller `first`.",
        );
        let structured_data = if cut {
            json!({"truncated": true})
        } else {
            data.clone()
        };
        if !errors.is_empty() {
            let lines = error_lines(&errors);
            let mut text = format!("The upstream returned {} GraphQL error(s):\n", errors.len());
            for l in &lines {
                text.push_str(&format!("- {l}\n"));
            }
            if !data.is_null() {
                text.push_str(&format!("Partial data: {shown}"));
            }
            return (
                ToolOutput::err(
                    text,
                    Some(
                        json!({"executed": true, "errors": errors, "data": structured_data, "truncated": cut}),
                    ),
                ),
                Some(data),
            );
        }
        (
            ToolOutput::ok(
                shown,
                Some(json!({"executed": true, "data": structured_data, "truncated": cut})),
            ),
            Some(data),
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn identical_errors_are_said_once_with_a_count() {
        let errs: Vec<_> = (0..5)
            .map(|i| json!({"message": "Cannot return null", "path": ["nodes", i, "name"]}))
            .chain([json!({"message": "other \u{1b}[2J"})])
            .collect();
        let lines = super::error_lines(&errs);
        assert_eq!(
            lines,
            vec![
                "Cannot return null (at nodes.0.name, nodes.1.name, nodes.2.name, …) ×5"
                    .to_string(),
                "other \\u{1b}[2J".to_string(),
            ]
        );
    }
}
