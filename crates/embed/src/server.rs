//! Embedding servers over HTTP: Ollama and OpenAI-compatible.
//!
//! - Ollama: `POST {base}/api/embed` with `{"model": m, "input": [..]}`, answered by
//!   `{"embeddings": [[..], ..]}` in input order.
//! - OpenAI-compatible (OpenAI, llama.cpp `llama-server`, vLLM, …):
//!   `POST {base}/v1/embeddings` (or `{base}/embeddings` when the base already ends in
//!   `/v1`) with `{"model": m, "input": [..]}`, answered by
//!   `{"data": [{"embedding": [..], "index": i}, ..]}`; rows are put in `index` order.
//!
//! Both clients batch inputs, use a connect timeout and a total per-request timeout,
//! retry HTTP 429 and 5xx with exponential backoff (honouring a `Retry-After` in
//! seconds, capped) a bounded number of times, accept only `http`/`https` URLs without
//! credentials in them, and never follow redirects. A missing model (HTTP 404 with a
//! JSON error) becomes [`EmbedError::ModelNotFound`]. An optional API key is sent as a
//! bearer token and never appears in errors or in [`std::fmt::Debug`] output.
//!
//! The clients use `reqwest::blocking`: do not create or call them from inside an async
//! runtime thread (use `spawn_blocking`).

use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use reqwest::blocking::Client;
use reqwest::{StatusCode, Url};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{EmbedError, Result};
use crate::{Embedder, Progress, PromptSource, Prompts};

/// Settings shared by the server clients.
#[derive(Clone)]
pub struct ServerOptions {
    /// Server base URL, e.g. `http://127.0.0.1:11434`.
    pub base_url: String,
    /// Model name as the server knows it.
    pub model: String,
    /// Optional bearer token.
    pub api_key: Option<String>,
    /// Texts per request (at least 1). Default 64.
    pub batch_size: usize,
    /// TCP connect timeout. Default 5 s.
    pub connect_timeout: Duration,
    /// Total timeout per request. Default 120 s.
    pub timeout: Duration,
    /// Retries after the first attempt on 429/5xx. Default 4.
    pub max_retries: u32,
    /// First backoff delay; doubles on each retry. Default 500 ms.
    pub backoff: Duration,
    /// Cap on one backoff delay (and on `Retry-After`). Default 10 s.
    pub max_backoff: Duration,
    /// Expected vector length; learned from the first response when `None`.
    pub dims: Option<usize>,
    /// Prepended to queries (e.g. Qwen3-Embedding's `Instruct: …\nQuery:`).
    pub query_prompt: String,
    /// Prepended to documents.
    pub document_prompt: String,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("batch_size", &self.batch_size)
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff", &self.backoff)
            .field("max_backoff", &self.max_backoff)
            .field("dims", &self.dims)
            .field("query_prompt", &self.query_prompt)
            .field("document_prompt", &self.document_prompt)
            .finish()
    }
}

impl ServerOptions {
    /// Defaults for a server at `base_url` serving `model`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> ServerOptions {
        ServerOptions {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            batch_size: 64,
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(120),
            max_retries: 4,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(10),
            dims: None,
            query_prompt: String::new(),
            document_prompt: String::new(),
        }
    }

    /// Set the bearer API key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> ServerOptions {
        self.api_key = Some(key.into());
        self
    }

    /// Set the query and document prompts.
    pub fn with_prompts(
        mut self,
        query: impl Into<String>,
        document: impl Into<String>,
    ) -> ServerOptions {
        self.query_prompt = query.into();
        self.document_prompt = document.into();
        self
    }
}

/// Hide a `user:password@` part of a URL-like string.
fn redact_url(s: &str) -> String {
    match (s.find("://"), s.rfind('@')) {
        (Some(i), Some(j)) if j > i + 3 => format!("{}***{}", &s[..i + 3], &s[j..]),
        _ => s.to_string(),
    }
}

/// Validate a base URL: absolute, http or https, a host, no credentials.
fn parse_base(base: &str) -> Result<Url> {
    let invalid = |reason: &str| EmbedError::InvalidUrl {
        url: redact_url(base),
        reason: reason.to_string(),
    };
    let url = Url::parse(base.trim()).map_err(|e| invalid(&e.to_string()))?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(invalid(&format!("scheme `{other}` is not http or https"))),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "credentials in the URL are not allowed; pass an API key instead",
        ));
    }
    Ok(url)
}

/// `base` + `suffix` where `suffix` is a relative path like `api/embed`.
fn endpoint(base: &Url, suffix: &str) -> Result<Url> {
    let mut b = base.clone();
    if !b.path().ends_with('/') {
        let p = format!("{}/", b.path());
        b.set_path(&p);
    }
    b.join(suffix).map_err(|e| EmbedError::InvalidUrl {
        url: base.to_string(),
        reason: e.to_string(),
    })
}

struct HttpClient {
    client: Client,
    url: Url,
    opts: ServerOptions,
    dims: OnceLock<usize>,
}

/// The server's error message from a JSON body (`{"error": "…"}` or
/// `{"error": {"message": "…"}}`), else the body's start.
fn error_message(body: &str) -> (bool, String) {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        match v.get("error") {
            Some(Value::String(s)) => return (true, s.clone()),
            Some(e) => {
                if let Some(m) = e.get("message").and_then(Value::as_str) {
                    return (true, m.to_string());
                }
            }
            None => {}
        }
        if let Some(m) = v.get("message").and_then(Value::as_str) {
            return (true, m.to_string());
        }
    }
    let t: String = body.trim().chars().take(300).collect();
    (
        false,
        if t.is_empty() {
            "(empty body)".into()
        } else {
            t
        },
    )
}

impl HttpClient {
    fn new(opts: ServerOptions, path: &str) -> Result<HttpClient> {
        let base = parse_base(&opts.base_url)?;
        let url = endpoint(&base, path)?;
        if opts.model.trim().is_empty() {
            return Err(EmbedError::InvalidArgument(
                "the embedding model name is empty".into(),
            ));
        }
        let client = Client::builder()
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| EmbedError::Server {
                endpoint: url.to_string(),
                status: None,
                message: format!("cannot build the HTTP client: {e}"),
                attempts: 0,
            })?;
        let mut opts = opts;
        opts.batch_size = opts.batch_size.max(1);
        Ok(HttpClient {
            client,
            url,
            opts,
            dims: OnceLock::new(),
        })
    }

    fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let exp = self
            .opts
            .backoff
            .saturating_mul(2u32.saturating_pow(retry.min(20)));
        retry_after.unwrap_or(exp).min(self.opts.max_backoff)
    }

    /// POST `body`, retrying 429/5xx; the parsed JSON on success.
    fn post(&self, body: &Value, not_found_hint: &str) -> Result<Value> {
        let endpoint = self.url.to_string();
        let max_attempts = self.opts.max_retries.saturating_add(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut req = self.client.post(self.url.clone()).json(body);
            if let Some(k) = &self.opts.api_key {
                req = req.bearer_auth(k);
            }
            let resp = match req.send() {
                Ok(r) => r,
                Err(e) => {
                    let what = if e.is_timeout() {
                        "timed out"
                    } else if e.is_connect() {
                        "could not connect (is the server running?)"
                    } else {
                        "request failed"
                    };
                    return Err(EmbedError::Server {
                        endpoint,
                        status: None,
                        message: format!("{what}: {}", e.without_url()),
                        attempts: attempt,
                    });
                }
            };
            let status = resp.status();
            let retry_after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let text = resp.text().map_err(|e| EmbedError::Server {
                endpoint: endpoint.clone(),
                status: Some(status.as_u16()),
                message: format!("cannot read the response body: {}", e.without_url()),
                attempts: attempt,
            })?;
            if status.is_success() {
                return serde_json::from_str(&text).map_err(|e| EmbedError::BadResponse {
                    endpoint,
                    reason: format!("body is not JSON: {e}"),
                });
            }
            let retriable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
            if retriable && attempt < max_attempts {
                thread::sleep(self.delay(attempt - 1, retry_after));
                continue;
            }
            let (is_json, message) = error_message(&text);
            return Err(match status {
                StatusCode::NOT_FOUND if is_json => EmbedError::ModelNotFound {
                    model: self.opts.model.clone(),
                    endpoint,
                    message,
                    hint: not_found_hint.to_string(),
                },
                StatusCode::NOT_FOUND => EmbedError::Server {
                    endpoint,
                    status: Some(404),
                    message: format!(
                        "HTTP 404 without a JSON error (wrong base URL or not this kind of server?): {message}"
                    ),
                    attempts: attempt,
                },
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => EmbedError::Unauthorized {
                    endpoint,
                    status: status.as_u16(),
                    message,
                },
                s if s.is_redirection() => EmbedError::Server {
                    endpoint,
                    status: Some(s.as_u16()),
                    message: "the server answered with a redirect, which is not followed; use the final URL as the base URL".into(),
                    attempts: attempt,
                },
                s => EmbedError::Server {
                    endpoint,
                    status: Some(s.as_u16()),
                    message: format!("HTTP {}: {message}", s.as_u16()),
                    attempts: attempt,
                },
            });
        }
    }

    /// Check row count and dims of one batch's vectors.
    fn check(&self, rows: &[Vec<f32>], expected: usize) -> Result<()> {
        if rows.len() != expected {
            return Err(EmbedError::BadResponse {
                endpoint: self.url.to_string(),
                reason: format!("{} vectors for {expected} inputs", rows.len()),
            });
        }
        for r in rows {
            if r.is_empty() {
                return Err(EmbedError::BadResponse {
                    endpoint: self.url.to_string(),
                    reason: "an empty vector".into(),
                });
            }
            let d = *self.dims.get_or_init(|| self.opts.dims.unwrap_or(r.len()));
            if r.len() != d {
                return Err(EmbedError::DimsMismatch {
                    context: format!("vectors from `{}` (model {})", self.url, self.opts.model),
                    expected: d,
                    found: r.len(),
                });
            }
        }
        Ok(())
    }

    fn prompts(&self) -> Prompts {
        let o = &self.opts;
        Prompts {
            query: o.query_prompt.clone(),
            document: o.document_prompt.clone(),
            source: if o.query_prompt.is_empty() && o.document_prompt.is_empty() {
                PromptSource::None
            } else {
                PromptSource::Override
            },
        }
    }

    fn id(&self, kind: &str) -> String {
        format!(
            "{kind}:{}/query={:?}/document={:?}",
            self.opts.model, self.opts.query_prompt, self.opts.document_prompt
        )
    }

    fn dims(&self) -> Option<usize> {
        self.dims.get().copied().or(self.opts.dims)
    }

    fn run(
        &self,
        texts: &[String],
        prompt: &str,
        progress: Progress<'_>,
        batch: impl Fn(&[String]) -> Result<Vec<Vec<f32>>>,
    ) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        progress(0, texts.len());
        for chunk in texts.chunks(self.opts.batch_size) {
            let input: Vec<String> = chunk.iter().map(|t| format!("{prompt}{t}")).collect();
            let rows = batch(&input)?;
            self.check(&rows, input.len())?;
            out.extend(rows);
            progress(out.len(), texts.len());
        }
        Ok(out)
    }
}

/// The [`Embedder`] impl shared by the server embedders: each has an `http` client and a
/// `batch` method that sends one request; only the id tag differs.
macro_rules! server_embedder {
    ($ty:ty, $tag:literal) => {
        impl Embedder for $ty {
            fn name(&self) -> String {
                self.http.opts.model.clone()
            }
            fn id(&self) -> String {
                self.http.id($tag)
            }
            fn dims(&self) -> Option<usize> {
                self.http.dims()
            }
            fn prompts(&self) -> Prompts {
                self.http.prompts()
            }
            fn embed_documents_with_progress(
                &self,
                texts: &[String],
                progress: Progress<'_>,
            ) -> Result<Vec<Vec<f32>>> {
                self.http
                    .run(texts, &self.http.opts.document_prompt, progress, |b| {
                        self.batch(b)
                    })
            }
            fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
                let v = self.http.run(
                    &[text.to_string()],
                    &self.http.opts.query_prompt,
                    &|_, _| {},
                    |b| self.batch(b),
                )?;
                v.into_iter().next().ok_or_else(|| EmbedError::BadResponse {
                    endpoint: self.http.url.to_string(),
                    reason: "no vector for the query".into(),
                })
            }
        }
    };
}

/// An [Ollama](https://ollama.com) server's `/api/embed`.
pub struct OllamaEmbedder {
    http: HttpClient,
}

#[derive(Deserialize)]
struct OllamaResponse {
    embeddings: Vec<Vec<f32>>,
}

impl OllamaEmbedder {
    /// A client for `opts.base_url` (e.g. `http://127.0.0.1:11434`). Checks the URL;
    /// sends nothing.
    pub fn new(opts: ServerOptions) -> Result<OllamaEmbedder> {
        Ok(OllamaEmbedder {
            http: HttpClient::new(opts, "api/embed")?,
        })
    }

    /// The endpoint URL.
    pub fn endpoint(&self) -> &Url {
        &self.http.url
    }

    fn batch(&self, input: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = json!({ "model": self.http.opts.model, "input": input });
        let hint = format!("; run `ollama pull {}`", self.http.opts.model);
        let v = self.http.post(&body, &hint)?;
        let r: OllamaResponse = serde_json::from_value(v).map_err(|e| EmbedError::BadResponse {
            endpoint: self.http.url.to_string(),
            reason: format!("expected {{\"embeddings\": [[..]]}}: {e}"),
        })?;
        Ok(r.embeddings)
    }
}

server_embedder!(OllamaEmbedder, "ollama");

/// An OpenAI-compatible `/v1/embeddings` endpoint.
pub struct OpenAiEmbedder {
    http: HttpClient,
}

#[derive(Deserialize)]
struct OpenAiRow {
    embedding: Vec<f32>,
    index: usize,
}

#[derive(Deserialize)]
struct OpenAiResponse {
    data: Vec<OpenAiRow>,
}

impl OpenAiEmbedder {
    /// A client for `opts.base_url`: `{base}/v1/embeddings`, or `{base}/embeddings`
    /// when the base path already ends in `/v1`. Checks the URL; sends nothing.
    pub fn new(opts: ServerOptions) -> Result<OpenAiEmbedder> {
        let base = parse_base(&opts.base_url)?;
        let path = if base.path().trim_end_matches('/').ends_with("/v1") {
            "embeddings"
        } else {
            "v1/embeddings"
        };
        Ok(OpenAiEmbedder {
            http: HttpClient::new(opts, path)?,
        })
    }

    /// The endpoint URL.
    pub fn endpoint(&self) -> &Url {
        &self.http.url
    }

    fn batch(&self, input: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = json!({ "model": self.http.opts.model, "input": input });
        let v = self.http.post(&body, "")?;
        let bad = |reason: String| EmbedError::BadResponse {
            endpoint: self.http.url.to_string(),
            reason,
        };
        let mut r: OpenAiResponse = serde_json::from_value(v).map_err(|e| {
            bad(format!(
                "expected {{\"data\": [{{\"embedding\": [..], \"index\": i}}]}}: {e}"
            ))
        })?;
        r.data.sort_by_key(|row| row.index);
        for (i, row) in r.data.iter().enumerate() {
            if row.index != i {
                return Err(bad(format!(
                    "indices are not 0..{} (found {} at position {i})",
                    r.data.len(),
                    row.index
                )));
            }
        }
        Ok(r.data.into_iter().map(|row| row.embedding).collect())
    }
}

server_embedder!(OpenAiEmbedder, "openai");
