//! Ollama and OpenAI-compatible clients against a real HTTP server on 127.0.0.1.
//!
//! No real Ollama or OpenAI server can be installed here, so the test starts a small
//! `std::net::TcpListener` HTTP/1.1 server in a thread. It reproduces the documented
//! request and response shapes exactly:
//! - Ollama `POST /api/embed` with `{"model", "input": [..]}` →
//!   `{"model", "embeddings": [[..]], "total_duration", "load_duration", "prompt_eval_count"}`;
//!   an unknown model → HTTP 404 `{"error": "model \"x\" not found, try pulling it first"}`.
//! - OpenAI `POST /v1/embeddings` with `{"model", "input": [..]}` →
//!   `{"object": "list", "data": [{"object": "embedding", "embedding": [..], "index": i}], "model", "usage"}`
//!   (the mock returns `data` in reverse order, which the client must sort by `index`);
//!   an unknown model → HTTP 404 `{"error": {"message", "type", "param", "code": "model_not_found"}}`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use gqlnav_embed::{
    CacheOptions, EmbedError, Embedder, OllamaEmbedder, OpenAiEmbedder, ServerOptions,
    VectorBackend,
};
use gqlnav_search::{Query, SearchBackend};
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Request {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
}

fn reply(status: u16, body: Value) -> Reply {
    Reply {
        status,
        headers: vec![],
        body: body.to_string(),
        delay: Duration::ZERO,
    }
}

type Handler = Box<dyn Fn(usize, &Request) -> Reply + Send + Sync>;

struct Mock {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Mock {
    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn serve(handler: Handler) -> Mock {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let reqs = requests.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                continue;
            }
            let mut parts = line.split_whitespace();
            let method = parts.next().unwrap_or("").to_string();
            let path = parts.next().unwrap_or("").to_string();
            let mut headers = HashMap::new();
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let n: usize = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0u8; n];
            reader.read_exact(&mut body).unwrap();
            let req = Request {
                method,
                path,
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            };
            let i = {
                let mut r = reqs.lock().unwrap();
                r.push(req.clone());
                r.len() - 1
            };
            let rep = handler(i, &req);
            thread::sleep(rep.delay);
            let mut out = format!(
                "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                rep.status,
                reason(rep.status),
                rep.body.len()
            );
            for (k, v) in &rep.headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            out.push_str(&rep.body);
            let _ = stream.write_all(out.as_bytes());
            let _ = stream.flush();
        }
    });
    Mock { addr, requests }
}

/// A deterministic 3-dim "embedding" of a text.
fn fake_vec(t: &str) -> Vec<f32> {
    vec![t.len() as f32, t.matches('e').count() as f32, 1.0]
}

fn inputs(req: &Request) -> Vec<String> {
    req.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// An embedding endpoint at `path` that knows one model: a POST naming another model gets
/// a 404 with `not_found(model)`, one naming it gets `ok(model, inputs)`.
fn embed_handler(
    path: &'static str,
    known_model: &'static str,
    not_found: fn(&str) -> Value,
    ok: fn(&str, &[String]) -> Value,
) -> impl Fn(usize, &Request) -> Reply + Send + Sync {
    move |_, req| {
        assert_eq!(req.method, "POST");
        assert_eq!(req.path, path);
        let model = req.body["model"].as_str().unwrap_or("");
        if model != known_model {
            return reply(404, not_found(model));
        }
        reply(200, ok(model, &inputs(req)))
    }
}

/// Ollama `/api/embed`, as documented.
fn ollama_handler(known_model: &'static str) -> impl Fn(usize, &Request) -> Reply + Send + Sync {
    embed_handler(
        "/api/embed",
        known_model,
        |model| json!({"error": format!("model \"{model}\" not found, try pulling it first")}),
        |model, input| {
            json!({
                "model": model,
                "embeddings": input.iter().map(|t| fake_vec(t)).collect::<Vec<_>>(),
                "total_duration": 14143917,
                "load_duration": 1019500,
                "prompt_eval_count": input.len() * 4
            })
        },
    )
}

/// OpenAI `/v1/embeddings`, as documented (data returned in reverse order).
fn openai_handler(known_model: &'static str) -> impl Fn(usize, &Request) -> Reply + Send + Sync {
    embed_handler(
        "/v1/embeddings",
        known_model,
        |model| {
            json!({"error": {
            "message": format!("The model `{model}` does not exist or you do not have access to it."),
            "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
        },
        |model, input| {
            let mut data: Vec<Value> = input
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "embedding": fake_vec(t), "index": i}))
                .collect();
            data.reverse();
            json!({"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": 8, "total_tokens": 8}})
        },
    )
}

fn fast(opts: ServerOptions) -> ServerOptions {
    ServerOptions {
        backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(50),
        ..opts
    }
}

/// Options for `model` on the mock server, `n` texts a request.
fn batches_of(n: usize, mock: &Mock, model: &str) -> ServerOptions {
    ServerOptions {
        batch_size: n,
        ..ServerOptions::new(mock.url(), model)
    }
}

fn texts(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("text number {i}{}", "e".repeat(i)))
        .collect()
}

#[test]
fn ollama_batches_and_keeps_order() {
    let mock = serve(Box::new(ollama_handler("all-minilm")));
    let e = OllamaEmbedder::new(batches_of(2, &mock, "all-minilm")).unwrap();
    assert_eq!(e.dims(), None);
    let t = texts(5);
    let seen = Mutex::new(vec![]);
    let v = e
        .embed_documents_with_progress(&t, &|d, n| seen.lock().unwrap().push((d, n)))
        .unwrap();
    assert_eq!(v, t.iter().map(|s| fake_vec(s)).collect::<Vec<_>>());
    assert_eq!(*seen.lock().unwrap(), vec![(0, 5), (2, 5), (4, 5), (5, 5)]);
    assert_eq!(e.dims(), Some(3));
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[0].body,
        json!({"model": "all-minilm", "input": [t[0], t[1]]}),
        "exact request shape"
    );
    assert_eq!(reqs[2].body["input"], json!([t[4]]));
    assert!(reqs[0].headers["content-type"].starts_with("application/json"));
    assert!(!reqs[0].headers.contains_key("authorization"));
    assert_eq!(e.name(), "all-minilm");
    assert!(e.id().starts_with("ollama:all-minilm"));
    assert!(e.embed_documents(&[]).unwrap().is_empty());
}

#[test]
fn ollama_missing_model_is_a_clear_error() {
    let mock = serve(Box::new(ollama_handler("all-minilm")));
    let e = OllamaEmbedder::new(fast(ServerOptions::new(mock.url(), "nomic-embed-text"))).unwrap();
    let err = e.embed_query("hello").unwrap_err();
    match &err {
        EmbedError::ModelNotFound { model, message, .. } => {
            assert_eq!(model, "nomic-embed-text");
            assert_eq!(
                message,
                "model \"nomic-embed-text\" not found, try pulling it first"
            );
        }
        other => panic!("expected ModelNotFound, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("ollama pull nomic-embed-text"), "{msg}");
    assert_eq!(mock.requests().len(), 1, "404 is not retried");
}

#[test]
fn retry_on_429_then_success() {
    let inner = ollama_handler("m");
    let mock = serve(Box::new(move |i, req| match i {
        0 => Reply {
            headers: vec![("Retry-After".into(), "0".into())],
            ..reply(429, json!({"error": "rate limited"}))
        },
        1 => reply(503, json!({"error": "loading model"})),
        _ => inner(i, req),
    }));
    let e = OllamaEmbedder::new(fast(ServerOptions::new(mock.url(), "m"))).unwrap();
    let v = e.embed_query("abc").unwrap();
    assert_eq!(v, fake_vec("abc"));
    assert_eq!(mock.requests().len(), 3);
}

#[test]
fn retries_are_bounded() {
    let mock = serve(Box::new(|_, _| reply(500, json!({"error": "boom"}))));
    let opts = ServerOptions {
        max_retries: 2,
        ..fast(ServerOptions::new(mock.url(), "m"))
    };
    let err = OllamaEmbedder::new(opts)
        .unwrap()
        .embed_query("x")
        .unwrap_err();
    match &err {
        EmbedError::Server {
            status,
            attempts,
            message,
            ..
        } => {
            assert_eq!(*status, Some(500));
            assert_eq!(*attempts, 3);
            assert!(message.contains("boom"));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("after 3 attempts"), "{err}");
    assert_eq!(mock.requests().len(), 3);
}

#[test]
fn openai_sorts_by_index_and_sends_the_key() {
    let mock = serve(Box::new(openai_handler("text-embedding-3-small")));
    let opts = batches_of(3, &mock, "text-embedding-3-small").with_api_key("sk-secret-123");
    assert!(!format!("{opts:?}").contains("sk-secret-123"));
    let e = OpenAiEmbedder::new(opts).unwrap();
    assert_eq!(
        e.endpoint().as_str(),
        format!("{}/v1/embeddings", mock.url())
    );
    let t = texts(4);
    let v = e.embed_documents(&t).unwrap();
    assert_eq!(v, t.iter().map(|s| fake_vec(s)).collect::<Vec<_>>());
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].body,
        json!({"model": "text-embedding-3-small", "input": [t[0], t[1], t[2]]})
    );
    assert_eq!(reqs[0].headers["authorization"], "Bearer sk-secret-123");
}

#[test]
fn openai_base_ending_in_v1() {
    let mock = serve(Box::new(openai_handler("m")));
    let e = OpenAiEmbedder::new(ServerOptions::new(format!("{}/v1/", mock.url()), "m")).unwrap();
    assert_eq!(
        e.endpoint().as_str(),
        format!("{}/v1/embeddings", mock.url())
    );
    assert_eq!(e.embed_query("q").unwrap(), fake_vec("q"));
}

#[test]
fn openai_missing_model_and_unauthorized_never_show_the_key() {
    let mock = serve(Box::new(openai_handler("m")));
    let e = OpenAiEmbedder::new(fast(
        ServerOptions::new(mock.url(), "nope").with_api_key("sk-secret-456"),
    ))
    .unwrap();
    let err = e.embed_query("x").unwrap_err();
    assert!(matches!(err, EmbedError::ModelNotFound { .. }), "{err:?}");
    assert!(
        err.to_string().contains("The model `nope` does not exist"),
        "{err}"
    );
    assert!(
        !err.to_string().contains("sk-secret-456") && !format!("{err:?}").contains("sk-secret-456")
    );

    let mock = serve(Box::new(|_, _| {
        reply(
            401,
            json!({"error": {"message": "Incorrect API key provided"}}),
        )
    }));
    let e = OpenAiEmbedder::new(fast(
        ServerOptions::new(mock.url(), "m").with_api_key("sk-secret-789"),
    ))
    .unwrap();
    let err = e.embed_query("x").unwrap_err();
    assert!(
        matches!(err, EmbedError::Unauthorized { status: 401, .. }),
        "{err:?}"
    );
    assert!(
        !err.to_string().contains("sk-secret-789") && !format!("{err:?}").contains("sk-secret-789")
    );
}

#[test]
fn only_http_urls_without_credentials() {
    for bad in [
        "ftp://127.0.0.1/",
        "file:///etc/passwd",
        "127.0.0.1:11434",
        "not a url",
        "http://",
    ] {
        let err = OllamaEmbedder::new(ServerOptions::new(bad, "m"))
            .err()
            .expect(bad);
        assert!(
            matches!(err, EmbedError::InvalidUrl { .. }),
            "{bad}: {err:?}"
        );
    }
    let err = OpenAiEmbedder::new(ServerOptions::new("http://user:hunter2@127.0.0.1:1/", "m"))
        .err()
        .unwrap();
    assert!(err.to_string().contains("credentials"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(OllamaEmbedder::new(ServerOptions::new("https://example.invalid", "m")).is_ok());
}

#[test]
fn redirects_are_not_followed() {
    let target = serve(Box::new(ollama_handler("m")));
    let loc = format!("{}/api/embed", target.url());
    let mock = serve(Box::new(move |_, _| Reply {
        headers: vec![("Location".into(), loc.clone())],
        ..reply(302, json!({}))
    }));
    let err = OllamaEmbedder::new(fast(ServerOptions::new(mock.url(), "m")))
        .unwrap()
        .embed_query("x")
        .unwrap_err();
    assert!(err.to_string().contains("redirect"), "{err}");
    assert_eq!(target.requests().len(), 0);
}

#[test]
fn timeouts_and_refused_connections() {
    let mock = serve(Box::new(|_, _| Reply {
        delay: Duration::from_millis(1500),
        ..reply(200, json!({"embeddings": [[1.0]]}))
    }));
    let opts = ServerOptions {
        timeout: Duration::from_millis(300),
        ..fast(ServerOptions::new(mock.url(), "m"))
    };
    let err = OllamaEmbedder::new(opts)
        .unwrap()
        .embed_query("x")
        .unwrap_err();
    assert!(err.to_string().contains("timed out"), "{err}");

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = OllamaEmbedder::new(fast(ServerOptions::new(
        format!("http://127.0.0.1:{port}"),
        "m",
    )))
    .unwrap()
    .embed_query("x")
    .unwrap_err();
    assert!(err.to_string().contains("could not connect"), "{err}");
}

#[test]
fn bad_bodies_and_dims_changes_are_errors() {
    let mock = serve(Box::new(|i, _| match i {
        0 => reply(200, json!({"embeddings": [[1.0, 2.0]]})),
        1 => reply(200, json!({"embeddings": [[1.0, 2.0, 3.0]]})),
        2 => reply(200, json!({"embeddings": [[1.0], [2.0]]})),
        _ => Reply {
            body: "<html>".into(),
            ..reply(200, json!({}))
        },
    }));
    let e = OllamaEmbedder::new(ServerOptions::new(mock.url(), "m")).unwrap();
    e.embed_query("a").unwrap();
    assert!(matches!(
        e.embed_query("b").unwrap_err(),
        EmbedError::DimsMismatch {
            expected: 2,
            found: 3,
            ..
        }
    ));
    assert!(e
        .embed_query("c")
        .unwrap_err()
        .to_string()
        .contains("2 vectors for 1 inputs"));
    assert!(matches!(
        e.embed_query("d").unwrap_err(),
        EmbedError::BadResponse { .. }
    ));
}

#[test]
fn prompts_are_prepended_and_vector_search_works_end_to_end() {
    let mock = serve(Box::new(ollama_handler("qwen3-embedding")));
    let opts = ServerOptions::new(mock.url(), "qwen3-embedding")
        .with_prompts("Instruct: find fields\nQuery:", "");
    let e = OllamaEmbedder::new(opts).unwrap();
    assert!(e.prompts().describe().contains("Instruct: find fields"));
    let mut b = VectorBackend::new(
        Box::new(e),
        CacheOptions {
            dir: None,
            no_cache: true,
        },
    );
    assert_eq!(b.name(), "vector(qwen3-embedding)");
    let docs = texts(3);
    b.index_texts(&docs, &|_, _| {}).unwrap();
    let hits = b.search(&Query::new("eee"), 2).unwrap();
    assert_eq!(hits.len(), 2);
    let reqs = mock.requests();
    assert_eq!(reqs[0].body["input"], json!(docs), "documents bare");
    assert_eq!(
        reqs[1].body["input"],
        json!(["Instruct: find fields\nQuery:eee"])
    );
}
