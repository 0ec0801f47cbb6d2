//! The bad-input catalogue: every probe that once hung, blew up or answered wrongly, as
//! one table of real runs of the `gqlnav` binary (schema files, the GraphQL endpoint,
//! MCP over stdio with raw JSON-RPC lines, upstreams that misbehave on 127.0.0.1). Each
//! row asserts the error text and a bounded time; none may panic. Peak memory is checked
//! by `scripts/bad_input_rss.sh`, not here.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
use common::{bin, schema, server, Proc};

/// Run `gqlnav ARGS` to completion; (success, stderr), with a time bound.
fn run(args: &[&str], secs: u64) -> (bool, String, Duration) {
    let t0 = Instant::now();
    let mut c = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gqlnav");
    let mut err = String::new();
    let mut pipe = c.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let _ = pipe.read_to_string(&mut err);
        err
    });
    loop {
        if let Some(st) = c.try_wait().expect("wait") {
            let err = reader.join().unwrap_or_default();
            assert!(!err.contains("panicked"), "panic: {err}");
            return (st.success(), err, t0.elapsed());
        }
        if t0.elapsed() > Duration::from_secs(secs) {
            let _ = c.kill();
            panic!("`gqlnav {}` did not finish within {secs} s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn refused(file: &std::path::Path, needle: &str) {
    let f = file.to_str().expect("utf-8 path");
    let (ok, err, took) = run(&["search", "x", "--schema", f], 20);
    assert!(!ok, "{f} was accepted");
    assert!(err.contains(needle), "{f}: `{needle}` not in {err}");
    assert!(took < Duration::from_secs(10), "{f} took {took:?}");
}

#[test]
fn schema_files_that_are_not_schemas_fail_fast_with_one_clear_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nul = dir.path().join("nul.graphql");
    std::fs::write(&nul, vec![0u8; 10 * 1024 * 1024]).expect("write");
    refused(&nul, "is binary data, not SDL");
    refused(std::path::Path::new("/dev/zero"), "is binary data");
    let random = dir.path().join("random.graphql");
    let bytes: Vec<u8> = (0..2_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80)
        .collect();
    std::fs::write(&random, bytes).expect("write");
    refused(&random, "is not UTF-8 text");
    // Printable garbage: refused by one lexer pass before the parser builds anything.
    let printable = dir.path().join("printable.graphql");
    let text = common::garbage_text(3_000_000);
    std::fs::write(&printable, text).expect("write");
    refused(&printable, "characters that GraphQL does not allow");
    let (ok, err, _) = run(
        &["search", "x", "--schema", dir.path().to_str().unwrap()],
        20,
    );
    assert!(!ok);
    assert!(err.contains("it is a directory"), "{err}");
    assert_eq!(
        err.matches("os error").count(),
        0,
        "cause said twice: {err}"
    );
    let big = dir.path().join("big.graphql");
    std::fs::write(&big, "type Query { a: Int }\n".repeat(2000)).expect("write");
    let (ok, err, _) = run(
        &[
            "search",
            "x",
            "--schema",
            big.to_str().unwrap(),
            "--max-schema-bytes",
            "1000",
        ],
        20,
    );
    assert!(!ok);
    assert!(err.contains("larger than 1000 bytes"), "{err}");
}

/// A tiny HTTP server on 127.0.0.1 that answers every request with `respond`.
fn http_server(respond: fn(&mut std::net::TcpStream)) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut s = s;
                let mut r = BufReader::new(s.try_clone().expect("clone"));
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; len];
                let _ = r.read_exact(&mut body);
                respond(&mut s);
            });
        }
    });
    port
}

fn trickle(s: &mut std::net::TcpStream) {
    let _ = s.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n",
    );
    for _ in 0..1000 {
        if s.write_all(b" ").is_err() {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Write a whole HTTP response.
fn respond_with(s: &mut std::net::TcpStream, status: &str, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
}

fn unauthorized(s: &mut std::net::TcpStream) {
    let body = br#"{"message":"Bad credentials","documentation_url":"https://docs.example.com"}"#;
    respond_with(s, "401 Unauthorized", "application/json", body);
}

fn hostile(s: &mut std::net::TcpStream) {
    respond_with(
        s,
        "502 Bad Gateway",
        "text/html",
        b"\x1b[2J\x1b[31mgotcha\x07 <html>",
    );
}

fn not_graphql(s: &mut std::net::TcpStream) {
    respond_with(s, "200 OK", "application/json", br#"{"status":"ok"}"#);
}

/// `gqlnav serve --graphql` on the bundled linear schema forwarding to `upstream`.
fn endpoint(upstream: Option<u16>, extra: &[&str]) -> (Proc, String) {
    let file = schema("linear");
    let up = upstream.map(|p| format!("http://127.0.0.1:{p}/graphql"));
    let mut args = vec![
        "--schema",
        file.as_str(),
        "--graphql",
        "127.0.0.1:0",
        "--no-stdio",
        "--reload-seconds",
        "0",
    ];
    if let Some(u) = &up {
        args.extend(["--endpoint", u.as_str()]);
    }
    args.extend_from_slice(extra);
    server(&args, "GraphQL endpoint on ")
}

fn post(url: &str, body: &str, secs: u64) -> (Value, Duration) {
    let t0 = Instant::now();
    let r = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(secs))
        .build()
        .expect("client")
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap_or_else(|e| panic!("no answer within {secs} s: {e}"));
    let v: Value = r.json().expect("a JSON answer");
    (v, t0.elapsed())
}

fn first_error(v: &Value) -> String {
    v["errors"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn fan_out(levels: usize) -> String {
    let mut doc = String::from("query { viewer { ...F0 } }\n");
    for i in 0..levels {
        doc.push_str(&format!(
            "fragment F{i} on User {{ name ...F{n} ...F{n} }}\n",
            n = i + 1
        ));
    }
    doc.push_str(&format!("fragment F{levels} on User {{ name }}\n"));
    doc
}

#[test]
fn the_endpoint_refuses_expensive_operations_and_keeps_answering() {
    let (_srv, url) = endpoint(None, &[]);
    // Fragment fan-out, 40 levels: refused by the linear cost pass, at once.
    let body = json!({"query": fan_out(40)}).to_string();
    let (v, took) = post(&url, &body, 10);
    assert!(first_error(&v).contains("fragment spreads"), "{v}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // An alias bomb of local meta-fields: refused by the token cap (10,000 aliases) or by
    // breadth (3,000), before any search runs.
    // `n` aliases of `__search(first: 150)`: the first error's text.
    let bomb = |n: usize| {
        let aliases: String = (0..n)
            .map(|i| format!("a{i}: __search(query: \"issue\", first: 150) {{ coordinate }} "))
            .collect();
        let q = json!({"query": format!("{{ {aliases} }}")}).to_string();
        let (v, _) = post(&url, &q, 20);
        let text = v.to_string();
        (first_error(&v), text.chars().take(400).collect::<String>())
    };
    let (e, _) = bomb(10_000);
    assert!(e.contains("more than 100000 lexical tokens"), "{e}");
    let (e, _) = bomb(3_000);
    assert!(e.contains("widest selection set is 3000"), "{e}");
    // Within breadth but over the per-operation result cap.
    let (_, text) = bomb(20);
    assert!(
        text.contains("more local results than the server gives"),
        "{text}"
    );
    // Whole introspection, aliased: one `__schema` per operation.
    let (v, _) = post(
        &url,
        r#"{"query":"{ a: __schema { queryType { name } } b: __schema { queryType { name } } }"}"#,
        10,
    );
    assert!(first_error(&v).contains("at most one `__schema`"), "{v}");
    let (v, _) = post(
        &url,
        r#"{"query":"{ __schema { queryType { name } } }"}"#,
        10,
    );
    assert_eq!(v["data"]["__schema"]["queryType"]["name"], "Query", "{v}");
    // A batch gets a plain sentence.
    let (v, _) = post(&url, r#"[{"query":"{ __typename }"}]"#, 5);
    assert!(first_error(&v).contains("batching is not supported"), "{v}");
    // While heavy requests run, `{ __typename }` is still answered quickly.
    let heavy = {
        let url = url.clone();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(3) {
                let _ = post(&url, &json!({"query": fan_out(9)}).to_string(), 20);
            }
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    let mut took = Vec::new();
    for _ in 0..5 {
        let (v, t) = post(&url, r#"{"query":"{ __typename }"}"#, 5);
        assert_eq!(v["data"]["__typename"], "Query", "{v}");
        took.push(t);
    }
    took.sort();
    let _ = heavy.join();
    eprintln!("{{__typename}} latency under load: {took:?}");
    assert!(took[2] < Duration::from_millis(100), "median {:?}", took[2]);
}

#[test]
fn upstreams_that_stall_refuse_or_lie_get_honest_errors() {
    // Headers, then one byte a second: the whole-request timeout still applies.
    let port = http_server(trickle);
    let (_srv, url) = endpoint(Some(port), &["--upstream-timeout", "2"]);
    let (v, took) = post(&url, r#"{"query":"{ viewer { name } }"}"#, 20);
    assert!(first_error(&v).contains("did not answer within 2 s"), "{v}");
    assert!(took < Duration::from_secs(6), "{took:?}");
    // The schema loader applies it to the body too.
    let (ok, err, took) = run(
        &[
            "search",
            "x",
            "--schema",
            &format!("http://127.0.0.1:{port}/graphql"),
            "--schema-timeout",
            "2",
        ],
        30,
    );
    assert!(!ok && err.contains("did not answer within 2 s"), "{err}");
    assert!(took < Duration::from_secs(8), "{took:?}");

    // 401 with a JSON body that is not a GraphQL response.
    let (_srv, url) = endpoint(Some(http_server(unauthorized)), &[]);
    let (v, _) = post(&url, r#"{"query":"{ viewer { name } }"}"#, 10);
    let e = first_error(&v);
    assert!(e.contains("HTTP 401") && e.contains("credentials"), "{v}");
    assert!(v.get("data").is_none(), "{v}");

    // Control characters from outside are escaped.
    let (_srv, url) = endpoint(Some(http_server(hostile)), &[]);
    let (v, _) = post(&url, r#"{"query":"{ viewer { name } }"}"#, 10);
    let e = first_error(&v);
    assert!(e.contains("HTTP 502") && e.contains("\\u{1b}"), "{e}");
    assert!(!e.contains('\u{1b}'), "raw escape in {e:?}");

    // JSON that is not a GraphQL response.
    let (_srv, url) = endpoint(Some(http_server(not_graphql)), &[]);
    let (v, _) = post(&url, r#"{"query":"{ viewer { name } }"}"#, 10);
    assert!(first_error(&v).contains("not a GraphQL response"), "{v}");
}

/// Raw JSON-RPC over `gqlnav serve` stdio: one line in, the replies out.
struct Stdio2 {
    child: Proc,
    out: std::sync::mpsc::Receiver<Value>,
}

impl Stdio2 {
    fn start() -> Self {
        let file = schema("singapore");
        let mut c = Command::new(bin())
            .args(["serve", "--schema", &file, "--reload-seconds", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdout = c.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout holds a non-JSON line ({e}): {line}"));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut s = Stdio2 {
            child: Proc(c),
            out: rx,
        };
        s.send_line(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
        let init = s.reply();
        assert_eq!(init["id"], 0, "{init}");
        s.send_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }
    fn send_line(&mut self, line: &[u8]) {
        let stdin = self.child.0.stdin.as_mut().expect("stdin");
        stdin.write_all(line).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }
    fn reply(&self) -> Value {
        self.out
            .recv_timeout(Duration::from_secs(60))
            .expect("a reply within 60 s")
    }
}

#[test]
fn stdio_answers_every_bad_line_and_exits_on_eof() {
    let mut s = Stdio2::start();
    s.send_line(b"{this is not json");
    let r = s.reply();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(r["id"].is_null(), "{r}");
    s.send_line(&[0xff, 0xfe, b'{', b'}']);
    assert_eq!(s.reply()["error"]["code"], -32700);
    s.send_line(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"validate","arguments":["{ a }"]}}"#);
    let r = s.reply();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(5), json!(-32602)),
        "{r}"
    );
    s.send_line(br#"{"jsonrpc":"2.0","id":6,"method":"resources/list"}"#);
    let r = s.reply();
    assert_eq!(r["id"], 6, "{r}");
    // A good call still works after all that.
    let fan = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"validate","arguments":{"operation": fan_out(40)}}});
    s.send_line(fan.to_string().as_bytes());
    let r = s.reply();
    assert_eq!(r["id"], 7, "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("fragment spreads"), "{r}");
    // EOF: the server exits within a second or so.
    drop(s.child.0.stdin.take());
    let t0 = Instant::now();
    loop {
        if s.child.0.try_wait().expect("wait").is_some() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "still running after stdin EOF"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!("exit after EOF: {:?}", t0.elapsed());
}
