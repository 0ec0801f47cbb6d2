//! Typed errors of the schema stage. Every message says what to fix.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum SchemaError {
    /// The cause is said once, in the message (it is not also a `source`, which would
    /// print it twice in a chain).
    #[error("cannot read schema file `{path}`: {reason}")]
    Io { path: String, reason: String },
    #[error("schema file `{path}` is larger than {limit} bytes; refusing to read it (the largest real schemas are a few MB; raise --max-schema-bytes if this one really is larger)")]
    FileTooLarge { path: String, limit: u64 },
    #[error(
        "`{path}` is binary data, not SDL or introspection JSON (a NUL byte at offset {offset})"
    )]
    Binary { path: String, offset: usize },
    #[error(
        "`{path}` is not UTF-8 text (invalid bytes at offset {offset}); SDL and JSON must be UTF-8"
    )]
    NotUtf8 { path: String, offset: usize },
    #[error("`{path}` is too large to parse: {detail}")]
    ParseLimit { path: String, detail: String },
    #[error("`{path}` holds no usable GraphQL schema (expected SDL such as `type Query {{ … }}`): {detail}")]
    NoUsableSchema { path: String, detail: String },
    #[error("`{path}` is not an introspection result: expected JSON of the form {{\"data\":{{\"__schema\":…}}}} or {{\"__schema\":…}}: {detail}")]
    IntrospectionFormat { path: String, detail: String },
    #[error("unsupported URL `{url}`: only http:// and https:// endpoints can be introspected")]
    UnsupportedScheme { url: String },
    #[error("endpoint {url} answered {status} redirecting to `{location}`; redirects are not followed, pass the final URL instead")]
    Redirect {
        url: String,
        status: u16,
        location: String,
    },
    #[error("endpoint {url} sent more than {limit} bytes; the body was cut off (raise --max-response-bytes if the schema really is that large)")]
    ResponseTooLarge { url: String, limit: u64 },
    #[error("endpoint {url} answered HTTP {status}: {snippet}")]
    HttpStatus {
        url: String,
        status: u16,
        snippet: String,
    },
    #[error("endpoint {url} did not answer with JSON ({detail}); body starts with: {snippet}")]
    NotJson {
        url: String,
        detail: String,
        snippet: String,
    },
    #[error("endpoint {url} refused the introspection query: {messages}")]
    GraphqlErrors { url: String, messages: String },
    #[error("endpoint {url} did not answer within {seconds} s (raise --timeout if it is slow)")]
    Timeout { url: String, seconds: u64 },
    #[error("request to {url} failed: {detail}")]
    Request { url: String, detail: String },
    #[error("introspection result nests `ofType` deeper than {limit} levels (type `{type_name}`); refusing it")]
    TooDeep { type_name: String, limit: usize },
    #[error("invalid header `{name}`: expected 'Name: value' with a valid header name and value")]
    BadHeader { name: String },
    #[error("invalid schema coordinate `{input}`: {reason}")]
    BadCoordinate { input: String, reason: String },
    #[error("unknown coordinate `{coordinate}`{}", suggestion_text(.suggestions))]
    UnknownCoordinate {
        coordinate: String,
        suggestions: Vec<String>,
    },
}

fn suggestion_text(s: &[String]) -> String {
    if s.is_empty() {
        " (not in this schema; is it the right schema?)".to_string()
    } else {
        format!("; did you mean {}?", s.join(", "))
    }
}
