//! Schema sources: SDL files, introspection JSON files and live endpoints.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use crate::checked::CheckedSchema;

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
    /// Largest schema file read (a path source), in bytes.
    pub max_file_bytes: u64,
}

impl Default for EndpointOptions {
    fn default() -> Self {
        EndpointOptions {
            headers: Vec::new(),
            max_response_bytes: 32 * 1024 * 1024,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(60),
            max_type_depth: DEFAULT_MAX_TYPE_DEPTH,
            max_file_bytes: DEFAULT_MAX_SCHEMA_BYTES,
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

/// Most warnings kept per load (a garbage file yields one per token).
const MAX_WARNINGS: usize = 1_000;

fn warnings_from(list: &DiagnosticList, path: &str) -> Vec<Warning> {
    let mut out: Vec<Warning> = list
        .iter()
        .take(MAX_WARNINGS)
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
        .collect();
    if list.len() > MAX_WARNINGS {
        out.push(Warning {
            location: path.to_string(),
            message: format!("… and {} more problems", list.len() - MAX_WARNINGS),
        });
    }
    out
}

fn usable(schema: &Schema) -> bool {
    schema.types.iter().any(|(n, t)| {
        !n.starts_with("__") && matches!(t, ExtendedType::Object(o) if !o.fields.is_empty())
    })
}

/// One streaming pass of the lexer: refuse text with more than [`MAX_LEXICAL_ERRORS`]
/// characters GraphQL does not allow, or more than [`MAX_SCHEMA_TOKENS`] tokens, before
/// the parser builds anything.
fn lexical_check(sdl: &str, path: &str) -> Result<(), SchemaError> {
    let mut errors = 0usize;
    let mut first = None;
    for t in apollo_parser::Lexer::new(sdl).with_limit(MAX_SCHEMA_TOKENS) {
        if let Err(e) = t {
            if e.message().contains("token limit") {
                return Err(SchemaError::ParseLimit {
                    path: path.to_string(),
                    detail: format!("more than {MAX_SCHEMA_TOKENS} lexical tokens"),
                });
            }
            errors += 1;
            first.get_or_insert(e.index());
            if errors > MAX_LEXICAL_ERRORS {
                return Err(SchemaError::NoUsableSchema {
                    path: path.to_string(),
                    detail: format!(
                        "more than {MAX_LEXICAL_ERRORS} characters that GraphQL does not allow (the first at byte {}); is this an SDL file?",
                        first.unwrap_or(0)
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Load a schema from SDL text. Invalid parts become warnings; only a schema with no
/// usable object type is refused.
pub fn load_sdl_str(sdl: &str, path: &str) -> Result<SchemaGraph, SchemaError> {
    lexical_check(sdl, path)?;
    let parsed = apollo_compiler::parser::Parser::new()
        .token_limit(MAX_SCHEMA_TOKENS)
        .parse_schema(sdl, path);
    // Syntax errors, then validation of what parsed (as `Schema::parse_and_validate`).
    let (validated, mut warnings) = match parsed {
        Ok(s) => (s.validate(), Vec::new()),
        Err(with) => {
            if let Some(d) = with
                .errors
                .iter()
                .find(|d| d.error.to_string().contains("token limit"))
            {
                return Err(SchemaError::ParseLimit {
                    path: path.to_string(),
                    detail: d.error.to_string(),
                });
            }
            (with.partial.validate(), warnings_from(&with.errors, path))
        }
    };
    match validated {
        Ok(valid) => Ok(SchemaGraph::new(
            CheckedSchema::Valid(valid),
            path,
            warnings,
        )),
        Err(with) => {
            warnings.extend(warnings_from(&with.errors, path));
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
            let errors = with.errors.len();
            Ok(SchemaGraph::new(
                CheckedSchema::Partial {
                    schema: with.partial,
                    errors,
                },
                path,
                warnings,
            ))
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
    let (sdl, marks) = introspection::introspection_to_sdl_marked(obj, max_type_depth)
        .map_err(|d| introspection::conversion_error(path, d))?;
    // Problems are found in the generated SDL; say where they are in the JSON.
    let locate = |l: &str| introspection::locate_in_json(l, path, &sdl, &marks);
    match load_sdl_str(&sdl, path) {
        Ok(mut g) => {
            for w in &mut g.warnings {
                w.location = locate(&w.location);
            }
            Ok(g)
        }
        Err(SchemaError::NoUsableSchema { path: p, detail }) => {
            let detail = match detail.split_once(' ') {
                Some((loc, msg)) if loc.starts_with(path) => {
                    format!("{} {msg}", locate(loc.trim_end_matches(':')))
                }
                _ => detail,
            };
            Err(SchemaError::NoUsableSchema { path: p, detail })
        }
        Err(e) => Err(e),
    }
}

/// The largest schema file read by default (Shopify's SDL, the largest measured, is
/// 3.2 MB).
pub const DEFAULT_MAX_SCHEMA_BYTES: u64 = 64 * 1024 * 1024;

/// Most lexical tokens in a schema document (GitHub's 1.5 MB SDL has about 170k; this
/// bounds the parser's work and memory on garbage input).
pub const MAX_SCHEMA_TOKENS: usize = 2_000_000;

/// Most characters GraphQL does not allow before a file is refused as not SDL (a real
/// schema has none; random text has one every few bytes, and each would become a
/// diagnostic: an 8 MB file of random printable text peaked at 812 MB before this check).
pub const MAX_LEXICAL_ERRORS: usize = 100;

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => {
            "it is a directory; pass the schema file inside it".into()
        }
        _ => e.to_string(),
    }
}

/// Read a schema file as text: at most `max` bytes (refused past that, before reading
/// more), no NUL bytes, valid UTF-8.
pub fn read_schema_file(path: &Path, label: &str, max: u64) -> Result<String, SchemaError> {
    let io = |e: std::io::Error| SchemaError::Io {
        path: label.to_string(),
        reason: io_reason(&e),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.is_dir() {
        return Err(SchemaError::Io {
            path: label.to_string(),
            reason: "it is a directory; pass the schema file inside it".into(),
        });
    }
    let mut bytes = Vec::new();
    let mut limited = file.take(max.saturating_add(1));
    // The first 64 KiB tell a binary file (`/dev/zero`, an image) at once.
    (&mut limited)
        .take(64 * 1024)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if let Some(offset) = bytes.iter().position(|b| *b == 0) {
        return Err(SchemaError::Binary {
            path: label.to_string(),
            offset,
        });
    }
    limited.read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(SchemaError::FileTooLarge {
            path: label.to_string(),
            limit: max,
        });
    }
    text_of(bytes, label)
}

/// Bytes received from a file or stdin as schema text: no NUL bytes, valid UTF-8.
pub fn text_of(bytes: Vec<u8>, label: &str) -> Result<String, SchemaError> {
    if let Some(offset) = bytes.iter().position(|b| *b == 0) {
        return Err(SchemaError::Binary {
            path: label.to_string(),
            offset,
        });
    }
    String::from_utf8(bytes).map_err(|e| SchemaError::NotUtf8 {
        path: label.to_string(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Load from a file: `.json` is an introspection result, anything else SDL (a file that
/// starts with `{` is also read as JSON).
pub fn load_file(path: &Path) -> Result<SchemaGraph, SchemaError> {
    load_file_with(path, DEFAULT_MAX_SCHEMA_BYTES)
}

/// [`load_file`] reading at most `max_bytes`.
pub fn load_file_with(path: &Path, max_bytes: u64) -> Result<SchemaGraph, SchemaError> {
    let label = path.display().to_string();
    let text = read_schema_file(path, &label, max_bytes)?;
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
    body_snippet(body, 120)
}

/// The start of a body received from outside, safe to print: at most `max` bytes, runs
/// of whitespace as one space, and control characters escaped (`\u{1b}`), so a hostile
/// body cannot drive the terminal.
pub fn body_snippet(body: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(&body[..body.len().min(max)]);
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    escape_controls(&joined)
}

/// Escape control characters (`\u{1b}`; tab, newline and return as `\t` `\n` `\r`).
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// Read to the end, failing with `TimedOut` once `deadline` has passed: the client's own
/// timeout bounds each read, so a server that trickles one byte a second would otherwise
/// never be cut off.
fn read_with_deadline(
    r: &mut impl Read,
    buf: &mut Vec<u8>,
    deadline: std::time::Instant,
) -> std::io::Result<()> {
    let mut chunk = [0u8; 64 * 1024];
    loop {
        if std::time::Instant::now() > deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the whole-request timeout passed while reading the body",
            ));
        }
        match r.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
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
    let started = std::time::Instant::now();
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
    read_with_deadline(&mut limited, &mut buf, started + opts.timeout).map_err(|e| {
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
        load_file_with(Path::new(source), opts.max_file_bytes)
    }
}
