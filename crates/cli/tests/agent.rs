//! `gqlnav agent` end to end: the real binary, a scripted chat server on 127.0.0.1 (for
//! determinism: a real local model is too slow and too variable for a test; the real run
//! is in docs/agent.md), and the graphql-yoga mock upstream. Each protocol, the tool-call
//! fallbacks, limits, the truncation guard, the receipt's arithmetic and secret handling.

mod common;

use std::collections::VecDeque;
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use common::{bin, schema, upstream};

/// What the scripted server saw and will answer.
#[derive(Default)]
struct Script {
    replies: VecDeque<Value>,
    /// (path, body, authorization header)
    seen: Vec<(String, Value, Option<String>)>,
    /// Answer /props with this n_ctx (llama-server), and /tokenize.
    n_ctx: Option<u64>,
}

type Shared = Arc<Mutex<Script>>;

async fn chat(
    State(s): State<(Shared, &'static str)>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    let (s, path) = s;
    let mut g = s.lock().unwrap();
    let auth = headers
        .get("authorization")
        .or_else(|| headers.get("x-api-key"))
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    g.seen.push((path.to_string(), body, auth));
    Json(
        g.replies
            .pop_front()
            .unwrap_or_else(|| json!({"choices": [{"message": {"content": "out of script"}}]})),
    )
}

/// Start the scripted chat server; returns its base URL and the shared script.
fn scripted(replies: Vec<Value>, n_ctx: Option<u64>) -> (String, Shared) {
    let shared: Shared = Arc::new(Mutex::new(Script {
        replies: replies.into(),
        seen: Vec::new(),
        n_ctx,
    }));
    let s2 = shared.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let props = s2.clone();
            let app = Router::new()
                .route(
                    "/v1/chat/completions",
                    post(chat).with_state((s2.clone(), "/v1/chat/completions")),
                )
                .route(
                    "/api/chat",
                    post(chat).with_state((s2.clone(), "/api/chat")),
                )
                .route(
                    "/v1/messages",
                    post(chat).with_state((s2.clone(), "/v1/messages")),
                )
                .route(
                    "/props",
                    get(move || {
                        let n = props.lock().unwrap().n_ctx;
                        async move {
                            match n {
                                Some(n) => (
                                    axum::http::StatusCode::OK,
                                    Json(json!({"default_generation_settings": {"n_ctx": n}})),
                                ),
                                None => (axum::http::StatusCode::NOT_FOUND, Json(json!({}))),
                            }
                        }
                    }),
                )
                .route(
                    "/tokenize",
                    post(|Json(b): Json<Value>| async move {
                        // One token per 4 characters: enough to tell the guard used it.
                        let n = b["content"].as_str().unwrap_or("").len() / 4;
                        Json(json!({"tokens": vec![0; n]}))
                    }),
                );
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            axum::serve(l, app).await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    (format!("http://{addr}"), shared)
}

fn openai_call(name: &str, args: Value, prompt: u64) -> Value {
    json!({"choices": [{"message": {"content": "", "tool_calls": [{"id": format!("c_{name}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}],
           "usage": {"prompt_tokens": prompt, "completion_tokens": 10, "prompt_tokens_details": {"cached_tokens": prompt / 2}}})
}

fn openai_text(content: &str, prompt: u64) -> Value {
    json!({"choices": [{"message": {"content": content}}], "usage": {"prompt_tokens": prompt, "completion_tokens": 5}})
}

fn agent(args: &[&str], env: &[(&str, &str)]) -> (std::process::Output, Value) {
    let mut c = Command::new(bin());
    c.arg("agent")
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, v)
}

#[test]
fn openai_tool_calls_run_the_tools_against_the_upstream_and_the_receipt_adds_up() {
    let (_up, port) = upstream(&schema("linear"));
    let endpoint = format!("http://127.0.0.1:{port}/graphql");
    let (url, script) = scripted(
        vec![
            openai_call("search_schema", json!({"query": "the current user"}), 1000),
            openai_call(
                "execute",
                json!({"operation": "query { viewer { id name } }"}),
                2000,
            ),
            openai_call("answer", json!({"answer": {"name": "someone"}}), 3000),
        ],
        None,
    );
    let dir = tempfile::tempdir().unwrap();
    let tr = dir.path().join("run.jsonl");
    let (out, v) = agent(
        &[
            "who am I?",
            "--schema",
            &schema("linear"),
            "--endpoint",
            &endpoint,
            "--model-url",
            &url,
            "--answer-schema",
            r#"{"type": "object"}"#,
            "--transcript",
            tr.to_str().unwrap(),
            "--json",
        ],
        &[("OPENAI_API_KEY", "sk-test-secret-777")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["stop"]["reason"], "answered", "{v}");
    assert_eq!(v["answer"], json!({"name": "someone"}));
    assert_eq!(v["executesOk"], 1);
    assert_eq!(v["lastOperation"], "query { viewer { id name } }");
    let r = &v["receipt"];
    assert_eq!(r["modelCalls"], 3);
    assert_eq!(r["promptTokens"], 6000);
    assert_eq!(r["completionTokens"], 30);
    assert_eq!(r["cacheReadTokens"], 3000);
    let steps = v["steps"].as_array().unwrap();
    let payload: u64 = steps.iter().map(|s| s["tokens"].as_u64().unwrap()).sum();
    assert_eq!(r["toolPayloadTokens"], payload);
    assert_eq!(
        r["schemaKnowledgeTokens"],
        r["tools"]["search_schema"]["tokens"]
    );
    assert_eq!(
        r["corpusEveryCall"].as_u64().unwrap(),
        r["corpusTokens"].as_u64().unwrap() * 3
    );
    assert!(
        steps[1]["result"].as_str().unwrap().contains("viewer"),
        "{}",
        steps[1]
    );
    let g = script.lock().unwrap();
    // The second request carries the tool result, answering the first call by id.
    let msgs = g.seen[1].1["messages"].as_array().unwrap();
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "c_search_schema");
    assert_eq!(g.seen[0].1["temperature"], 0.0);
    assert_eq!(g.seen[0].1["seed"], 0);
    assert!(g.seen[0].1["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["function"]["name"] == "answer"));
    assert_eq!(g.seen[0].2.as_deref(), Some("Bearer sk-test-secret-777"));
    // The key never reaches output or transcript.
    let transcript = std::fs::read_to_string(&tr).unwrap();
    assert_eq!(
        transcript
            .lines()
            .filter(|l| l.contains("\"request\""))
            .count(),
        3
    );
    for text in [
        transcript.as_str(),
        &String::from_utf8_lossy(&out.stdout),
        &String::from_utf8_lossy(&out.stderr),
    ] {
        assert!(!text.contains("sk-test-secret-777"));
    }
}

#[test]
fn text_calls_repeats_malformed_arguments_and_a_plain_answer() {
    let (url, script) = scripted(
        vec![
            openai_text("I will look.\n```json\n{\"name\": \"search_schema\", \"arguments\": {\"query\": \"film release year\"}}\n```", 100),
            openai_text("{\"name\": \"search_schema\", \"arguments\": {\"query\": \"film release year\"}}", 100),
            openai_text("{\"name\": \"introspect\", \"arguments\": \"Film\"}", 100),
            openai_text("<tool_call>{\"name\": \"nosuch\", \"arguments\": {}}</tool_call>", 100),
            openai_text("Films have a release year.", 100),
        ],
        None,
    );
    let (out, v) = agent(
        &[
            "when was it released",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps[0]["tool"], "search_schema");
    assert!(
        steps[1]["result"]
            .as_str()
            .unwrap()
            .contains("You already called search_schema"),
        "{}",
        steps[1]
    );
    assert_eq!(steps[2]["isError"], true);
    assert!(
        steps[2]["result"]
            .as_str()
            .unwrap()
            .contains("not a JSON object"),
        "{}",
        steps[2]
    );
    assert!(
        steps[3]["result"]
            .as_str()
            .unwrap()
            .contains("there is no tool `nosuch`"),
        "{}",
        steps[3]
    );
    assert_eq!(v["stop"]["reason"], "final");
    assert_eq!(v["answer"], "Films have a release year.");
    assert_eq!(v["turns"], 5);
    // A text call is answered as a user message (no invented tool_calls).
    let g = script.lock().unwrap();
    let msgs = g.seen[1].1["messages"].as_array().unwrap();
    assert!(msgs.iter().all(|m| m.get("tool_calls").is_none()));
    assert!(msgs.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .starts_with("Result of search_schema:"));
}

#[test]
fn limits_stop_the_loop() {
    let many: Vec<Value> = (0..10)
        .map(|i| openai_call("search_schema", json!({"query": format!("film {i}")}), 10))
        .collect();
    let (url, _s) = scripted(many.clone(), None);
    let (_, v) = agent(
        &[
            "x",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--max-tool-calls",
            "3",
            "--json",
        ],
        &[],
    );
    assert_eq!(v["stop"]["reason"], "max_tool_calls", "{v}");
    assert_eq!(v["toolCalls"], 3);
    let (url, _s) = scripted(many, None);
    let (_, v) = agent(
        &[
            "x",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--max-turns",
            "2",
            "--json",
        ],
        &[],
    );
    assert_eq!(v["stop"]["reason"], "max_turns");
    assert_eq!(v["receipt"]["modelCalls"], 2);
    // A model that never calls a tool while an answer is expected.
    let (url, _s) = scripted(
        vec![openai_text("hmm", 1), openai_text("still thinking", 1)],
        None,
    );
    let (_, v) = agent(
        &[
            "x",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--answer-schema",
            r#"{"type":"string"}"#,
            "--json",
        ],
        &[],
    );
    assert_eq!(v["stop"]["reason"], "no_tool_call_loop", "{v}");
}

#[test]
fn ollama_and_anthropic_protocols_and_the_json_action_protocol() {
    let (url, script) = scripted(
        vec![
            json!({"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "search_schema", "arguments": {"query": "films"}}}]}, "prompt_eval_count": 50, "eval_count": 7}),
            json!({"message": {"role": "assistant", "content": "done"}, "prompt_eval_count": 60, "eval_count": 3}),
        ],
        None,
    );
    let (out, v) = agent(
        &[
            "films",
            "--schema",
            "builtin:demo",
            "--provider",
            "ollama",
            "--model-url",
            &url,
            "--model",
            "qwen",
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["receipt"]["promptTokens"], 110);
    assert_eq!(v["steps"][0]["tool"], "search_schema");
    assert_eq!(script.lock().unwrap().seen[0].0, "/api/chat");
    assert_eq!(script.lock().unwrap().seen[0].1["stream"], false);

    let (url, script) = scripted(
        vec![
            json!({"content": [{"type": "text", "text": "Searching."}, {"type": "tool_use", "id": "tu_1", "name": "search_schema", "input": {"query": "films"}}],
                   "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 100}}),
            json!({"content": [{"type": "text", "text": "Done."}], "usage": {"input_tokens": 45, "output_tokens": 2}}),
        ],
        None,
    );
    let (out, v) = agent(
        &[
            "films",
            "--schema",
            "builtin:demo",
            "--provider",
            "anthropic",
            "--model-url",
            &url,
            "--model",
            "claude",
            "--json",
        ],
        &[("ANTHROPIC_API_KEY", "ak-secret-1")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["receipt"]["promptTokens"], 185, "input + cache reads");
    assert_eq!(v["receipt"]["cacheReadTokens"], 100);
    let g = script.lock().unwrap();
    assert_eq!(g.seen[0].0, "/v1/messages");
    assert!(g.seen[0].1["system"]
        .as_str()
        .unwrap()
        .contains("Never guess a name"));
    assert_eq!(g.seen[0].2.as_deref(), Some("ak-secret-1"));
    let second = g.seen[1].1["messages"].as_array().unwrap();
    assert_eq!(second[2]["content"][0]["type"], "tool_result");
    assert_eq!(second[2]["content"][0]["tool_use_id"], "tu_1");
    drop(g);

    let (url, script) = scripted(
        vec![
            openai_text(
                "{\"name\": \"search_schema\", \"arguments\": {\"query\": \"films\"}}",
                5,
            ),
            openai_text("ok", 5),
        ],
        None,
    );
    let (_, v) = agent(
        &[
            "films",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--tool-protocol",
            "json",
            "--json",
        ],
        &[],
    );
    assert_eq!(v["steps"][0]["tool"], "search_schema", "{v}");
    let body = &script.lock().unwrap().seen[0].1;
    assert!(
        body.get("tools").is_none(),
        "the json protocol offers no native tools"
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    let branches = body["response_format"]["json_schema"]["schema"]["anyOf"]
        .as_array()
        .unwrap();
    let names: Vec<&Value> = branches
        .iter()
        .map(|b| &b["properties"]["name"]["const"])
        .collect();
    assert_eq!(
        names,
        [
            &json!("search_schema"),
            &json!("introspect"),
            &json!("validate"),
            &json!("execute")
        ]
    );
    // Each branch shapes its arguments: search_schema's are its required `query` only.
    assert_eq!(
        branches[0]["properties"]["arguments"]["required"],
        json!(["query"])
    );
    assert!(branches[0]["properties"]["arguments"]["properties"]
        .get("cursor")
        .is_none());
    // execute keeps its optional `variables`: an operation with `$login` cannot run
    // without them.
    assert!(
        branches[3]["properties"]["arguments"]["properties"]
            .get("variables")
            .is_some(),
        "{}",
        branches[3]
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("- search_schema(query: string"),
        "tools described in the prompt: {system}"
    );
}

#[test]
fn the_guard_refuses_an_inline_schema_that_does_not_fit_before_sending_anything() {
    // GitHub inline in a 128k window: refused, nothing sent.
    let (url, script) = scripted(vec![], None);
    let (out, _) = agent(
        &[
            "How many stars does rust-lang/rust have?",
            "--inline",
            "--context",
            "128000",
            "--model-url",
            &url,
        ],
        &[],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the prompt would not fit")
            && err.contains("> 128000 tokens of context (--context)")
            && err.contains("Nothing was sent"),
        "{err}"
    );
    assert!(script.lock().unwrap().seen.is_empty());
    // The window and the meter from llama-server's /props and /tokenize.
    let (url, script) = scripted(vec![], Some(4096));
    let (out, _) = agent(&["x", "--inline", "--model-url", &url], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("4096 tokens of context (llama-server /props n_ctx)")
            && err.contains("llama-server http"),
        "{err}"
    );
    assert!(script.lock().unwrap().seen.is_empty());
    // The small demo schema inline fits and runs.
    let (url, _s) = scripted(
        vec![
            openai_call("execute", json!({"operation": "{ films { title } }"}), 900),
            openai_text("no upstream", 5),
        ],
        Some(8192),
    );
    let (out, v) = agent(
        &[
            "list films",
            "--inline",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["steps"][0]["tool"], "execute");
    assert!(v["receipt"]["largestPrompt"].as_u64().unwrap() > 100);
    assert_eq!(v["receipt"]["contextWindow"], 8192);
}

#[test]
fn an_unreachable_model_is_a_clear_error() {
    let (out, _) = agent(
        &[
            "x",
            "--schema",
            "builtin:demo",
            "--model-url",
            "http://127.0.0.1:9",
        ],
        &[],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect") && err.contains("is the model server running?"),
        "{err}"
    );
    let (out, _) = agent(&["x", "--model-url", "ftp://x"], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--model-url"));
}

/// An upstream that accepts the request and never answers.
fn stalling_upstream() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let app = Router::new().route(
                "/graphql",
                post(|| async {
                    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                    Json(json!({"data": null}))
                }),
            );
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            axum::serve(l, app).await.unwrap();
        });
    });
    format!("http://{}/graphql", rx.recv().unwrap())
}

#[test]
fn an_upstream_that_times_out_is_a_tool_error_and_the_run_goes_on() {
    let endpoint = stalling_upstream();
    let (url, script) = scripted(
        vec![
            openai_call(
                "execute",
                json!({"operation": "{ books { nodes { title } } }"}),
                100,
            ),
            openai_text("The API did not answer in time.", 120),
        ],
        None,
    );
    let t0 = std::time::Instant::now();
    let (out, v) = agent(
        &[
            "list the books",
            "--schema",
            "builtin:demo",
            "--endpoint",
            &endpoint,
            "--upstream-timeout",
            "1",
            "--model-url",
            &url,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(t0.elapsed().as_secs() < 30, "the 1 s timeout held");
    let step = &v["steps"][0];
    assert_eq!(step["tool"], "execute");
    assert_eq!(step["isError"], true);
    let text = step["result"].as_str().unwrap();
    assert!(text.contains("did not answer within 1 s"), "{text}");
    assert_eq!(v["executesFailed"], 1);
    assert_eq!(v["stop"]["reason"], "final");
    // The model was told: the second request carries the timeout as the tool result.
    let g = script.lock().unwrap();
    let msgs = g.seen[1].1["messages"].as_array().unwrap();
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "tool");
    assert!(last["content"]
        .as_str()
        .unwrap()
        .contains(text.lines().next().unwrap()));
}

/// The typed tool set `gqlnav tools --typed` gives for `q`: (tool, a path containing
/// `want`, the tool's required root arguments).
fn typed_pick(schema_file: &str, q: &str, want: &str) -> (String, String, Vec<String>) {
    let v = typed_set(schema_file, q);
    for t in v["tools"].as_array().into_iter().flatten() {
        if let Some(p) = t["paths"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|p| p.contains(want))
        {
            let req = t["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|a| a["required"] == true && a["at"] == "")
                .filter_map(|a| a["key"].as_str().map(str::to_string))
                .collect();
            return (t["name"].as_str().unwrap().to_string(), p.to_string(), req);
        }
    }
    panic!("no typed path with `{want}` for {q:?}: {v}");
}

/// `gqlnav agent --strategy typed` on `q` against the upstream `url` and the chat server
/// `chat_url`, with an answer schema; asserts it exits 0 and returns its JSON.
fn typed_run(q: &str, schema: &str, url: &str, chat_url: &str, answer_schema: &str) -> Value {
    let (out, v) = agent(
        &[
            q,
            "--schema",
            schema,
            "--endpoint",
            url,
            "--model-url",
            chat_url,
            "--strategy",
            "typed",
            "--answer-schema",
            answer_schema,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

/// The typed tool set `gqlnav tools --typed --for q --json` prints.
fn typed_set(schema_file: &str, q: &str) -> Value {
    let out = Command::new(bin())
        .args([
            "tools",
            "--schema",
            schema_file,
            "--typed",
            "--for",
            q,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn typed_args(req: &[String]) -> Value {
    Value::Object(req.iter().map(|k| (k.clone(), json!("octocat"))).collect())
}

/// The `anyOf` branch names (`action` consts) of a request's response_format schema.
fn branches(body: &Value) -> Vec<String> {
    body["response_format"]["json_schema"]["schema"]["anyOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| {
            b["properties"]["action"]["const"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn the_typed_strategy_writes_the_operation_runs_it_on_the_mock_and_grades_the_grammar() {
    let s = schema("github");
    let (_mock, url) = common::mock_upstream(&s);
    // No root field is named right before the value: the menu turn is the model's.
    let q = "How many stargazers does octocat/hello-world have?";
    let (tool, path, req) = typed_pick(&s, q, "stargazer");
    let call = json!({"action": tool, "arguments": typed_args(&req), "fields": [path]});
    let (chat_url, shared) = scripted(
        vec![
            openai_text(&json!({ "tool": tool }).to_string(), 300),
            openai_text("Let me think about which tool to use.", 900),
            openai_text(
                &json!({"action": "answer", "answer": {"stars": 1}}).to_string(),
                950,
            ),
            openai_text(&call.to_string(), 1000),
            // Once data came, the answer gives the path of the data that holds each value.
            openai_text(
                &json!({"action": "answer", "answer": {"stars": format!("{tool}.{path}")}})
                    .to_string(),
                1400,
            ),
        ],
        None,
    );
    let schema_json =
        r#"{"type":"object","properties":{"stars":{"type":"integer"}},"required":["stars"]}"#;
    let v = typed_run(q, &s, &url, &chat_url, schema_json);
    assert_eq!(v["stop"]["reason"], "answered", "{v}");
    assert_eq!(v["receipt"]["strategy"], "typed");
    let steps = &v["steps"].as_array().unwrap()[..];
    // The first turn chooses the tool from the menu.
    assert_eq!(steps[0]["tool"], "choose");
    assert!(
        steps[0]["result"]
            .as_str()
            .unwrap()
            .contains(&format!("chose `{tool}`")),
        "{}",
        steps[0]
    );
    let steps = &steps[1..];
    // Prose instead of the grammar: said, and the run goes on.
    assert_eq!(steps[0]["isError"], true);
    assert!(
        steps[0]["result"]
            .as_str()
            .unwrap()
            .contains("not one JSON action"),
        "{}",
        steps[0]
    );
    // An answer before any data: refused with what to do.
    assert!(
        steps[1]["result"]
            .as_str()
            .unwrap()
            .contains("Fetch the data first"),
        "{}",
        steps[1]
    );
    // The call: gqlnav wrote the operation, the mock answered with data.
    assert_eq!(steps[2]["tool"], tool.as_str());
    assert_eq!(steps[2]["isError"], false, "{}", steps[2]);
    assert!(
        steps[2]["result"].as_str().unwrap().contains("stargazer"),
        "{}",
        steps[2]
    );
    assert!(
        v["lastOperation"].as_str().unwrap().contains("stargazer"),
        "{v}"
    );
    // The answer is the mock's value, copied by gqlnav from the path the model gave.
    let stars = v["answer"]["stars"].as_i64().expect("an integer, copied");
    assert!(
        steps[2]["result"]
            .as_str()
            .unwrap()
            .contains(&format!("{stars}")),
        "{v}"
    );
    assert_eq!(v["executesOk"], 1);
    let seen = shared.lock().unwrap().seen.clone();
    assert_eq!(seen.len(), 5);
    // The menu turn: one line per tool, the grammar an enum of their names.
    let menu = seen[0].1["messages"][0]["content"].as_str().unwrap();
    assert!(menu.contains(&format!("- {tool}: ")), "{menu}");
    let names =
        &seen[0].1["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"];
    assert!(
        names
            .as_array()
            .is_some_and(|n| n.len() > 1 && n.contains(&json!(tool))),
        "{names}"
    );
    let seen = &seen[1..];
    // After it the turns read only the chosen tool.
    let system = seen[0].1["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("Today is 2025-06-01") && system.contains(&format!("## {tool}:")),
        "{system}"
    );
    assert_eq!(system.matches("\n## ").count(), 1, "{system}");
    assert_eq!(branches(&seen[0].1), vec![tool.clone()]);
    // Before any data the grammar offers only the tools; after it, the answer too.
    assert!(
        !branches(&seen[0].1).contains(&"answer".to_string()),
        "{:?}",
        branches(&seen[0].1)
    );
    assert!(branches(&seen[0].1).contains(&tool));
    assert!(branches(&seen[3].1).contains(&"answer".to_string()));
    let answer_branch = &seen[3].1["response_format"]["json_schema"]["schema"]["anyOf"][0];
    let choices = &answer_branch["properties"]["answer"]["properties"]["stars"]["enum"];
    assert!(
        choices
            .as_array()
            .is_some_and(|c| c.contains(&json!(format!("{tool}.{path}")))),
        "the answer's value is a choice among the data's paths: {answer_branch}"
    );
    let prompt = seen[3].1["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("give the path of the data"), "{prompt}");
    // The data is shown as those paths, each with its value.
    let data = seen[3].1["messages"][1]["content"].as_str().unwrap();
    assert!(data.contains(&format!("{tool}.{path}: {stars}")), "{data}");
}

#[test]
fn typed_runs_say_what_they_cut_and_what_the_grammar_cannot_enforce() {
    let s = schema("github");
    let (_mock, url) = common::mock_upstream(&s);
    // No root field is named right before the value: the menu turn is the model's.
    let q = "How many stargazers does octocat/hello-world have?";
    let (chat_url, shared) = scripted(
        vec![
            openai_text("{\"action\": \"nope\", \"arguments\": {}}", 100),
            openai_text("{\"action\": \"nope\", \"arguments\": {}}", 100),
            openai_text("{\"action\": \"nope\", \"arguments\": {}}", 100),
            openai_text("{\"action\": \"answer\", \"answer\": 3}", 100),
        ],
        // A context the tool set does not fit beside the reply and one result.
        Some(1000),
    );
    let (out, v) = agent(
        &[
            q,
            "--schema",
            &s,
            "--endpoint",
            &url,
            "--model-url",
            &chat_url,
            "--strategy",
            "typed",
            "--answer-schema",
            r#"{"type":"object","not":{"required":["x"]}}"#,
            "--max-reply-tokens",
            "200",
            "--result-tokens",
            "300",
            "--max-turns",
            "4",
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let notes = v["receipt"]["notes"].to_string();
    assert!(notes.contains("cannot enforce"), "{notes}");
    assert!(notes.contains("did not fit the model's context"), "{notes}");
    let results: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["result"].as_str())
        .collect();
    // A menu reply that names no tool keeps them all (when there was a menu).
    if v["steps"][0]["tool"] == "choose" {
        assert!(results[0].contains("named no tool"), "{results:?}");
    }
    assert!(
        results
            .iter()
            .any(|r| r.contains("there is no tool `nope`")),
        "{results:?}"
    );
    // A repeated call is refused without running it again.
    assert!(
        results
            .iter()
            .any(|r| r.contains("This is the call of turn")),
        "{results:?}"
    );
    // The last turn offers only the answer, and the run ends answered.
    let seen = shared.lock().unwrap().seen.clone();
    let last = seen
        .iter()
        .rev()
        .find(|(p, ..)| p == "/v1/chat/completions")
        .unwrap();
    assert_eq!(branches(&last.1), vec!["answer".to_string()]);
    assert_eq!(v["stop"]["reason"], "answered", "{v}");
}

#[test]
fn a_failing_execute_is_answered_with_the_searched_operation_to_run() {
    // The chat model is scripted (a loopback server replaying fixed replies): what is
    // tested is what gqlnav hands back, which no real model's wording should decide.
    let (url, _script) = scripted(
        vec![
            openai_text("{\"name\": \"search_schema\", \"arguments\": {\"query\": \"book published year\"}}", 100),
            openai_text("{\"name\": \"execute\", \"arguments\": {\"operation\": \"query($id: ID!) { bookYear(id: $id) }\", \"variables\": {\"id\": \"b1\"}}}", 100),
            openai_text("It was published in 1999.", 100),
        ],
        None,
    );
    let (out, v) = agent(
        &[
            "when was book b1 published",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = v["steps"].as_array().unwrap();
    let page = steps[0]["result"].as_str().unwrap();
    let example = page
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("Reads what the task asks (execute with its variables): "))
        .expect("the search page leads with the task's operation");
    let failed = steps[1]["result"].as_str().unwrap();
    assert_eq!(steps[1]["isError"], true);
    let call: Value = serde_json::from_str(
        failed
            .rsplit("To run it, reply with: ")
            .next()
            .filter(|_| failed.contains("To run it, reply with: "))
            .expect("the failure says how to run the searched operation"),
    )
    .expect("a call a model can copy");
    assert_eq!(call["name"], "execute");
    assert_eq!(call["arguments"]["operation"], example);
    for (name, value) in call["arguments"]["variables"].as_object().unwrap() {
        assert!(example.contains(&format!("${name}:")), "{name} is declared");
        // The value the model gave for `id`; any other is left for it to fill.
        let want = if name == "id" {
            "b1".to_string()
        } else {
            format!("<{name}>")
        };
        assert_eq!(value, &want);
    }
}

#[test]
fn once_an_operation_brought_data_a_repeat_leaves_only_the_answer() {
    // Scripted model (a loopback server replaying fixed replies), the real mock upstream.
    let s = schema("github");
    let (_mock, url) = common::mock_upstream(&s);
    let op = json!({"name": "execute", "arguments": {"operation": "query { viewer { login } }"}});
    let (chat_url, shared) = scripted(
        vec![
            openai_text(&op.to_string(), 100),
            openai_text(&op.to_string(), 100),
            openai_text(
                &json!({"name": "answer", "arguments": {"answer": {"login": "x"}}}).to_string(),
                100,
            ),
        ],
        None,
    );
    let (out, v) = agent(
        &[
            "What is my login?",
            "--schema",
            &s,
            "--endpoint",
            &url,
            "--model-url",
            &chat_url,
            "--tool-protocol",
            "json",
            "--answer-schema",
            r#"{"type":"object","properties":{"login":{"type":"string"},"repos":{"type":"array","items":{"type":"string"}}},"required":["login"]}"#,
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps[0]["isError"], false, "{}", steps[0]);
    let repeat = steps[1]["result"].as_str().unwrap();
    {
        // The answer's grammar is bounded as the typed strategy's: lists and strings.
        let g = shared.lock().unwrap();
        let schema = &g.seen[0].1["response_format"]["json_schema"]["schema"];
        let answer = schema["anyOf"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|b| b["properties"]["name"]["const"] == "answer")
            })
            .map(|b| &b["properties"]["arguments"]["properties"]["answer"]["properties"])
            .expect("an answer branch");
        assert_eq!(answer["repos"]["maxItems"], 5, "{answer}");
        assert_eq!(answer["login"]["maxLength"], 200, "{answer}");
    }
    assert!(repeat.contains("call answer now"), "{repeat}");
    assert_eq!(v["stop"]["reason"], "answered", "{v}");
    // The turn after the repeat may write only the answer; the one before it any tool.
    let g = shared.lock().unwrap();
    let branches = |i: usize| -> Vec<String> {
        let schema = &g.seen[i].1["response_format"]["json_schema"]["schema"];
        schema["anyOf"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|b| b["properties"]["name"]["const"].to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        branches(2),
        ["\"answer\""],
        "{:?}",
        g.seen[2].1["response_format"]
    );
    assert!(branches(1).len() > 1, "{:?}", branches(1));
}

#[test]
fn a_later_prompt_that_outgrows_the_context_ends_the_run_with_what_it_did() {
    // Scripted model (loopback): ten different searches, each result growing the prompt.
    let many: Vec<Value> = [
        "film", "book", "author", "year", "title", "genre", "actor", "review", "rating", "page",
    ]
    .iter()
    .map(|q| openai_call("search_schema", json!({"query": q}), 10))
    .collect();
    let (url, _s) = scripted(many, None);
    let (out, v) = agent(
        &[
            "x",
            "--schema",
            "builtin:demo",
            "--model-url",
            &url,
            "--context",
            "2500",
            "--max-reply-tokens",
            "256",
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(v["stop"]["reason"], "too_long", "{v}");
    assert!(
        v["stop"]["detail"]
            .as_str()
            .unwrap()
            .contains("would not fit"),
        "{v}"
    );
    // The turns before the refusal are kept: their calls and the receipt.
    let calls = v["toolCalls"].as_u64().unwrap();
    assert!((1..10).contains(&calls), "{v}");
    assert_eq!(v["steps"].as_array().unwrap().len() as u64, calls);
    assert_eq!(
        v["turns"].as_u64().unwrap(),
        calls,
        "the refused turn is not counted"
    );
}

#[test]
fn a_call_with_a_value_the_question_does_not_say_offers_the_other_tools() {
    // Scripted model (a loopback server replaying fixed replies), the real mock upstream.
    let s = schema("github");
    let (_mock, url) = common::mock_upstream(&s);
    let q = "How many stargazers does my favourite repository have?";
    let set = typed_set(&s, q);
    let tools = set["tools"].as_array().unwrap();
    assert!(tools.len() >= 3, "a menu that stays a menu: {set}");
    let lookup = tools
        .iter()
        .find(|t| {
            t["args"]
                .as_array()
                .is_some_and(|a| a.iter().any(|a| a["required"] == true && a["at"] == ""))
        })
        .expect("a tool that needs an argument");
    let name = lookup["name"].as_str().unwrap();
    let invented: Map<String, Value> = lookup["args"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["required"] == true && a["at"] == "")
        .map(|a| {
            (
                a["key"].as_str().unwrap().to_string(),
                json!("your_value_here"),
            )
        })
        .collect();
    let call = json!({"action": name, "arguments": invented, "fields": [lookup["paths"][0]]});
    let (chat_url, shared) = scripted(
        vec![
            openai_text(&json!({ "tool": name }).to_string(), 300),
            openai_text(&call.to_string(), 600),
        ],
        None,
    );
    let schema_json = r#"{"type":"object","properties":{"stars":{"type":"integer"}}}"#;
    let v = typed_run(q, &s, &url, &chat_url, schema_json);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps[1]["tool"], name, "{v}");
    assert_eq!(steps[1]["isError"], true);
    let said = steps[1]["result"].as_str().unwrap();
    assert!(
        said.contains("is not a value the question says") && said.contains("Choose another tool"),
        "{said}"
    );
    assert_eq!(
        v["executesOk"], 0,
        "the invented value never reached the upstream"
    );
    // The next turn is the menu again, without the tool that needed a value.
    let seen = shared.lock().unwrap().seen.clone();
    let menu = &seen[2].1["response_format"]["json_schema"]["schema"]["properties"]["tool"]["enum"];
    let names: Vec<&str> = menu
        .as_array()
        .expect("a menu turn")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!names.is_empty() && !names.contains(&name), "{names:?}");
}

/// A result over the toolbox's cap: `execute` gives the model the capped text and no
/// structured data; `execute_data` also hands an in-process caller (the typed agent's
/// answer by paths) the whole data the upstream (the real mock, on 127.0.0.1) sent.
#[test]
fn execute_data_keeps_the_whole_data_the_cap_cut_from_the_text() {
    let s = schema("github");
    let (_mock, url) = common::mock_upstream(&s);
    let sdl = std::fs::read_to_string(&s).unwrap();
    let graph = Arc::new(gqlnav_schema::load_sdl_str(&sdl, "github").unwrap());
    let mut config = gqlnav_tools::ToolsConfig {
        endpoint: Some(url.clone()),
        ..Default::default()
    };
    config.policy.max_result_tokens = 40;
    let tools = gqlnav_tools::Toolbox::build(graph, None, config).unwrap();
    let req = gqlnav_tools::OperationRequest::new(
        "{ repository(owner: \"octocat\", name: \"hello-world\") { issues(first: 20) { nodes { title body } } } }",
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (out, data) = rt.block_on(tools.execute_data(&req));
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.contains("truncated"), "{}", out.text);
    let structured = out.structured.expect("structured");
    assert_eq!(structured["truncated"], true);
    assert_eq!(structured["data"], json!({"truncated": true}));
    let data = data.expect("the whole data");
    let nodes = data["repository"]["issues"]["nodes"]
        .as_array()
        .expect("the issues");
    assert!(nodes.iter().all(|n| n["title"].is_string()));
    let shown = nodes
        .iter()
        .filter(|n| out.text.contains(n["title"].as_str().unwrap_or("")))
        .count();
    assert!(
        nodes.len() > 1 && shown < nodes.len(),
        "the data holds the items the text cut: {shown} of {} shown",
        nodes.len()
    );
    // `execute` is the same call without the data.
    let plain = rt.block_on(tools.execute(&req));
    assert_eq!(plain.text, out.text);
    // Nothing executed, no data.
    let (bad, none) = rt.block_on(tools.execute_data(&gqlnav_tools::OperationRequest::new(
        "{ repository { nope } }",
    )));
    assert!(bad.is_error && none.is_none(), "{}", bad.text);
}
