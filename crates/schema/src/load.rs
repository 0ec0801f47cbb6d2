//! Schema sources: SDL files, introspection JSON files and live endpoints.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::DiagnosticList;
use apollo_compiler::Schema;

use crate::error::SchemaError;
use crate::graph::{SchemaGraph, Warning};
use crate::introspection::{self, DEFAULT_MAX_TYPE_DEPTH, INTROSPECTION_QUERY};

/// How to talk to a live endpoint.
#[derive(Debug, Clone)]
pub struct EndpointOptions {
    /// Extra request headers (`Authorization`, …). Never printed, logged or put in errors.
    pub headers: Vec<(String, String)>,
    /// Largest accepted response body, in bytes.
    pub max_response_bytes: u64,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Largest accepted `ofType` nesting.
    pub max_type_depth: usize,
}

impl Default for EndpointOptions {
    fn default() -> Self {
        EndpointOptions {
            headers: Vec::new(),
            max_response_bytes: 32 * 1024 * 1024,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(60),
            max_type_depth: DEFAULT_MAX_TYPE_DEPTH,
        }
    }
}

/// Parse `Name: value` into a header pair. The error names the header, never its value.
pub fn parse_header(h: &str) -> Result<(String, String), SchemaError> {
    let (name, value) = h.split_once(':').ok_or_else(|| SchemaError::BadHeader {
        name: h.chars().take_while(|c| *c != ' ').take(40).collect(),
    })?;
    let name = name.trim();
    let value = value.trim();
    let name_ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b));
    let value_ok = value
        .bytes()
        .all(|b| b == b'\t' || (0x20..0x7f).contains(&b) || b >= 0x80);
    if !name_ok || !value_ok {
        return Err(SchemaError::BadHeader {
            name: name.chars().take(40).collect(),
        });
    }
    Ok((name.to_string(), value.to_string()))
}

/// Parse headers given as one string, separated by newlines (the env var form).
pub fn parse_headers_env(s: &str) -> Result<Vec<(String, String)>, SchemaError> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(parse_header)
        .collect()
}

fn warnings_from(list: &DiagnosticList, path: &str) -> Vec<Warning> {
    list.iter()
        .map(|d| {
            let location = match d.line_column_range() {
                Some(r) => format!("{path}:{}:{}", r.start.line, r.start.column),
                None => path.to_string(),
            };
            Warning {
                location,
                message: d.error.to_string(),
            }
        })
        .collect()
}

fn usable(schema: &Schema) -> bool {
    schema.types.iter().any(|(n, t)| {
        !n.starts_with("__") && matches!(t, ExtendedType::Object(o) if !o.fields.is_empty())
    })
}

/// Load a schema from SDL text. Invalid parts become warnings; only a schema with no
/// usable object type is refused.
pub fn load_sdl_str(sdl: &str, path: &str) -> Result<SchemaGraph, SchemaError> {
    match Schema::parse_and_validate(sdl, path) {
        Ok(valid) => Ok(SchemaGraph::new(valid.into_inner(), path, Vec::new())),
        Err(with) => {
            let warnings = warnings_from(&with.errors, path);
            if !usable(&with.partial) {
                let detail = warnings
                    .first()
                    .map(|w| w.to_string())
                    .unwrap_or_else(|| "no object type with fields was found".into());
                return Err(SchemaError::NoUsableSchema {
                    path: path.to_string(),
                    detail,
                });
            }
            Ok(SchemaGraph::new(with.partial, path, warnings))
        }
    }
}

/// Load a schema from an introspection result given as JSON text.
pub fn load_introspection_str(
    json: &str,
    path: &str,
    max_type_depth: usize,
) -> Result<SchemaGraph, SchemaError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| SchemaError::IntrospectionFormat {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
    load_introspection_value(&v, path, max_type_depth)
}

fn load_introspection_value(
    v: &serde_json::Value,
    path: &str,
    max_type_depth: usize,
) -> Result<SchemaGraph, SchemaError> {
    let obj =
        introspection::find_schema_object(v).ok_or_else(|| SchemaError::IntrospectionFormat {
            path: path.to_string(),
            detail: "no `__schema` object found".into(),
        })?;
    let sdl = introspection::introspection_to_sdl(obj, max_type_depth)
        .map_err(|d| introspection::conversion_error(path, d))?;
    load_sdl_str(&sdl, path)
}

/// Load from a file: `.json` is an introspection result, anything else SDL (a file that
/// starts with `{` is also read as JSON).
pub fn load_file(path: &Path) -> Result<SchemaGraph, SchemaError> {
    let label = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SchemaError::Io {
        path: label.clone(),
        source,
    })?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        || text.trim_start().starts_with('{');
    if is_json {
        load_introspection_str(&text, &label, DEFAULT_MAX_TYPE_DEPTH)
    } else {
        load_sdl_str(&text, &label)
    }
}

/// Remove credentials from a URL before it appears anywhere.
pub fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.to_string()
        }
        Err(_) => url.split('?').next().unwrap_or(url).to_string(),
    }
}

/// Check that a URL is http(s); the error names the offending URL.
pub fn check_http_url(url: &str) -> Result<reqwest::Url, SchemaError> {
    let parsed = reqwest::Url::parse(url).map_err(|_| SchemaError::UnsupportedScheme {
        url: redact_url(url),
    })?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        _ => Err(SchemaError::UnsupportedScheme {
            url: redact_url(url),
        }),
    }
}

fn snippet(body: &[u8]) -> String {
    let s = String::from_utf8_lossy(&body[..body.len().min(120)]);
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// POST a JSON body to an endpoint with the safety rules: http(s) only, no redirects,
/// capped streamed body, timeouts. Returns the body bytes on a 2xx answer.
pub fn post_json_bounded(
    url: &str,
    body: &serde_json::Value,
    opts: &EndpointOptions,
) -> Result<Vec<u8>, SchemaError> {
    let parsed = check_http_url(url)?;
    let label = redact_url(url);
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(opts.connect_timeout)
        .timeout(opts.timeout)
        .user_agent(concat!("gqlnav/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| SchemaError::Request {
            url: label.clone(),
            detail: e.to_string(),
        })?;
    let mut req = client
        .post(parsed)
        .header("content-type", "application/json")
        .header(
            "accept",
            "application/json, application/graphql-response+json",
        );
    for (k, v) in &opts.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let map_err = |e: reqwest::Error| {
        if e.is_timeout() {
            SchemaError::Timeout {
                url: label.clone(),
                seconds: opts.timeout.as_secs(),
            }
        } else {
            // Only the error kind: reqwest errors never carry header values, but keep it short.
            let detail = if e.is_connect() {
                "could not connect".to_string()
            } else {
                let mut s = e.to_string();
                if let Some(src) = std::error::Error::source(&e) {
                    s = format!("{s}: {src}");
                }
                s.replace(url, &label)
            };
            SchemaError::Request {
                url: label.clone(),
                detail,
            }
        }
    };
    let resp = req.body(body.to_string()).send().map_err(map_err)?;
    let status = resp.status();
    if status.is_redirection() {
        let location = resp
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
            .map(redact_url)
            .unwrap_or_else(|| "(no Location header)".into());
        return Err(SchemaError::Redirect {
            url: label,
            status: status.as_u16(),
            location,
        });
    }
    if let Some(len) = resp.content_length() {
        if len > opts.max_response_bytes {
            return Err(SchemaError::ResponseTooLarge {
                url: label,
                limit: opts.max_response_bytes,
            });
        }
    }
    let mut buf = Vec::new();
    let mut limited = resp.take(opts.max_response_bytes + 1);
    limited.read_to_end(&mut buf).map_err(|e| {
        // reqwest wraps its error inside io::Error; recover timeouts.
        let inner = e.get_ref().and_then(|i| i.downcast_ref::<reqwest::Error>());
        if inner.is_some_and(reqwest::Error::is_timeout) || e.kind() == std::io::ErrorKind::TimedOut
        {
            SchemaError::Timeout {
                url: label.clone(),
                seconds: opts.timeout.as_secs(),
            }
        } else {
            SchemaError::Request {
                url: label.clone(),
                detail: format!("reading the body failed: {e}"),
            }
        }
    })?;
    if buf.len() as u64 > opts.max_response_bytes {
        return Err(SchemaError::ResponseTooLarge {
            url: label,
            limit: opts.max_response_bytes,
        });
    }
    if !status.is_success() {
        return Err(SchemaError::HttpStatus {
            url: label,
            status: status.as_u16(),
            snippet: snippet(&buf),
        });
    }
    Ok(buf)
}

/// Introspect a live endpoint.
pub fn load_endpoint(url: &str, opts: &EndpointOptions) -> Result<SchemaGraph, SchemaError> {
    let label = redact_url(url);
    let body =
        serde_json::json!({"query": INTROSPECTION_QUERY, "operationName": "IntrospectionQuery"});
    let bytes = post_json_bounded(url, &body, opts)?;
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| SchemaError::NotJson {
            url: label.clone(),
            detail: e.to_string(),
            snippet: snippet(&bytes),
        })?;
    if let Some(errs) = v
        .get("errors")
        .and_then(|e| e.as_array())
        .filter(|e| !e.is_empty())
    {
        if introspection::find_schema_object(&v).is_none() {
            let messages: Vec<String> = errs
                .iter()
                .take(3)
                .map(|e| {
                    e.get("message")
                        .and_then(|m| m.as_str())
                        .unwrap_or("(no message)")
                        .to_string()
                })
                .collect();
            return Err(SchemaError::GraphqlErrors {
                url: label,
                messages: messages.join("; "),
            });
        }
    }
    load_introspection_value(&v, &label, opts.max_type_depth)
}

/// Load from a path or a URL. Anything with `://` is a URL (and must be http or https).
pub fn load(source: &str, opts: &EndpointOptions) -> Result<SchemaGraph, SchemaError> {
    if source.contains("://") {
        load_endpoint(source, opts)
    } else {
        load_file(Path::new(source))
    }
}
