//! One server, many graphs (`gqlnav serve --graphs graphs.toml`), end to end: the real
//! `gqlnav` binary, the official MCP Python SDK as client with two credentials, a
//! `gqlnav mock` upstream on 127.0.0.1, and the GraphQL endpoints over reqwest.
//!
//! Needs `GQLNAV_PYMCP` (see serve_e2e.rs); a missing prerequisite FAILS the test.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

mod common;
use common::{bin, mock_upstream, pymcp, schema, support, Proc};

const ONLY_PUB: &str = "token-only-pub-7731";
const EVERY: &str = "token-every-graph-0912";

/// Types only the hidden graph (Linear's schema) has: none may reach credential A.
const SECRET_TYPES: [&str; 3] = ["CustomerNeed", "Initiative", "ProjectMilestone"];

/// Drive the server with the Python SDK, sending `headers` with every request.
fn py(url: &str, calls: &Value, headers: &Value) -> Value {
    let out = Command::new("python3")
        .arg(support().join("mcp_client.py"))
        .args(["http", &calls.to_string(), url])
        .env("PYTHONPATH", pymcp())
        .env("MCP_HEADERS", headers.to_string())
        .stderr(Stdio::piped())
        .output()
        .expect("python3 not found");
    assert!(
        out.status.success(),
        "MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("client output is JSON")
}

/// Start `gqlnav serve --graphs FILE` with MCP and GraphQL listeners; returns the
/// process, the MCP URL and the GraphQL base (`http://ADDR/graphql`).
fn start(file: &Path) -> (Proc, String, String) {
    let mut c = Command::new(bin())
        .args(["serve", "--graphs"])
        .arg(file)
        .args(["--http", "127.0.0.1:0", "--graphql", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = c.stderr.take().unwrap();
    let p = Proc(c);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let (mut mcp, mut gql) = (None, None);
    while mcp.is_none() || gql.is_none() {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server printed its listeners");
        if let Some(i) = line.find("MCP streamable HTTP on ") {
            mcp = Some(line[i + 23..].trim().to_string());
        }
        if let Some(i) = line.find("GraphQL endpoints on ") {
            gql = Some(line[i + 21..].trim().trim_end_matches("/NAME").to_string());
        }
    }
    (p, mcp.unwrap_or_default(), gql.unwrap_or_default())
}

fn graphs_file(dir: &Path, upstream: &str) -> std::path::PathBuf {
    let pub_schema = dir.join("pub.graphql");
    std::fs::copy(schema("github"), &pub_schema).unwrap();
    let file = dir.join("graphs.toml");
    std::fs::write(
        &file,
        format!(
            r#"
[server]
reload_poll_seconds = 1
log_file = "{log}"

[[graph]]
name = "pub"
schema = "pub.graphql"
endpoint = "{upstream}"
docs = "{docs}"
docs_index = "docs-index"

[[graph]]
name = "zq-secret"
schema = "{secret}"

[[graph]]
name = "zq-gone"
schema = "missing.graphql"

[[credential]]
name = "a"
token = "{ONLY_PUB}"
graphs = ["pub"]

[[credential]]
name = "b"
token = "{EVERY}"
header = "X-Api-Key"
graphs = ["*"]
"#,
            log = dir.join("serve.log").display(),
            docs = common::root()
                .join("crates/docs/tests/fixtures/python/library")
                .display(),
            secret = schema("linear"),
        ),
    )
    .unwrap();
    file
}

#[test]
fn two_credentials_see_their_graphs_and_the_leak_probe_finds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_up, upstream) = mock_upstream(&schema("github"));
    let file = graphs_file(dir.path(), &upstream);
    let (_srv, url, gql) = start(&file);
    let a = json!({"Authorization": format!("Bearer {ONLY_PUB}")});
    let b = json!({"X-Api-Key": EVERY});

    // The leak probe: every tool, with and without `graph`, the hidden graph named,
    // coordinates of the hidden graph asked for on the visible one.
    let probe = json!([
        ["search_schema", {"query": "customer needs of an initiative", "limit": 10}],
        ["search_schema", {"query": "customer needs", "graph": "zq-secret"}],
        ["search_schema", {"query": "customer needs", "budgetTokens": 800}],
        ["introspect", {"type": "CustomerNeed", "graph": "zq-secret"}],
        ["introspect", {"type": "CustomerNeed"}],
        ["introspect", {"type": "Initiative", "graph": "pub"}],
        ["validate", {"operation": "{ initiatives { nodes { id } } }", "graph": "zq-secret"}],
        ["validate", {"operation": "{ initiatives { nodes { id } } }"}],
        ["execute", {"operation": "{ initiatives { nodes { id } } }", "graph": "zq-secret"}],
        ["execute", {"operation": "{ viewer { login } }", "graph": "nonexistent"}],
        ["execute", {"operation": "{ viewer { login } }", "graph": "pub"}],
        ["search_docs", {"query": "serialize a dict to a JSON string", "limit": 2}],
        ["search_docs", {"query": "serialize a dict to a JSON string", "graph": "zq-secret"}],
    ]);
    let seen = py(&url, &probe, &a);
    for t in seen["tools"].as_array().unwrap() {
        assert_eq!(
            t["inputSchema"]["properties"]["graph"]["enum"],
            json!(["pub"]),
            "{t}"
        );
        assert!(t["schemaError"].is_null(), "{t}");
    }
    let c = seen["calls"].as_array().unwrap();
    // The probe: no hidden graph name and no type of the hidden graph in any tool spec,
    // nor in any answer to a call that did not send that word itself (an error may echo
    // what the caller sent; it must not confirm that it exists elsewhere).
    let words = [
        "zq-secret",
        "zq-gone",
        SECRET_TYPES[0],
        SECRET_TYPES[1],
        SECRET_TYPES[2],
    ];
    for t in seen["tools"].as_array().unwrap() {
        for w in words {
            assert!(!t.to_string().contains(w), "`{w}` is in a tool spec");
        }
    }
    for (call, out) in probe.as_array().unwrap().iter().zip(c) {
        for w in words {
            if !call.to_string().contains(w) {
                let out = out.to_string();
                assert!(
                    !out.contains(w),
                    "`{w}` reached credential A in the answer to {call}"
                );
            }
        }
    }
    // A hidden graph and one that does not exist get the same answer.
    let hidden = c[1]["text"].as_str().unwrap().replace("zq-secret", "X");
    let missing = c[9]["text"].as_str().unwrap().replace("nonexistent", "X");
    assert_eq!(c[1]["isError"], true);
    assert_eq!(hidden, missing);
    assert!(missing.contains("the graphs you may use: pub"), "{missing}");
    // The graph with documentation answers search_docs; a hidden one is not named.
    assert_eq!(c[11]["isError"], false, "{}", c[11]["text"]);
    assert!(
        c[11]["text"].as_str().unwrap().contains("json"),
        "{}",
        c[11]["text"]
    );
    assert_eq!(c[12]["isError"], true);
    let docs_tool = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search_docs")
        .expect("search_docs is listed");
    assert_eq!(
        docs_tool["inputSchema"]["properties"]["graph"]["enum"],
        json!(["pub"])
    );
    // One visible graph: calls without `graph` go to it; execute reaches its upstream.
    assert_eq!(c[0]["isError"], false, "{}", c[0]["text"]);
    assert_eq!(c[10]["isError"], false, "{}", c[10]["text"]);
    assert!(
        c[10]["text"].as_str().unwrap().contains("login"),
        "{}",
        c[10]["text"]
    );

    // Credential B sees every graph: a search without `graph` ranks them all, finds each
    // question in the graph that answers it, labels each hit with its graph and reports
    // the graph that does not load; a call without `graph` names the choices.
    let calls = json!([
        ["introspect", {"type": "CustomerNeed"}],
        ["introspect", {"type": "CustomerNeed", "graph": "zq-secret"}],
        ["introspect", {"type": "Query", "graph": "zq-gone"}],
        ["search_schema", {"query": "customer needs of a customer", "limit": 5}],
        ["search_schema", {"query": "stargazers of a repository", "limit": 5}],
        ["search_schema", {"query": "customer needs of a customer", "limit": 1}],
        ["search_schema", {"query": "stargazers of a repository", "limit": 1}],
    ]);
    let seen = py(&url, &calls, &b);
    let enum_ = &seen["tools"][0]["inputSchema"]["properties"]["graph"]["enum"];
    assert_eq!(enum_, &json!(["pub", "zq-secret", "zq-gone"]));
    let c = seen["calls"].as_array().unwrap();
    for (i, want) in [(3, "zq-secret"), (4, "pub")] {
        let text = c[i]["text"].as_str().unwrap();
        assert!(text.starts_with(&format!("[{want}] 1. ")), "{text}");
        assert!(text.contains("graph `zq-gone` is not available"), "{text}");
        let first = &c[i]["structured"]["results"][0];
        assert_eq!(first["graph"], want, "{first}");
        // The search stops ranking graphs that cannot reach the best `limit`: with a
        // limit of one it must still find the same best hit.
        let alone = &c[i + 2]["structured"]["results"];
        assert_eq!(alone.as_array().map(Vec::len), Some(1), "{alone}");
        assert_eq!(alone[0]["coordinate"], first["coordinate"], "{alone}");
        assert_eq!(alone[0]["graph"], want, "{alone}");
    }
    assert!(c[0]["text"]
        .as_str()
        .unwrap()
        .contains("one of pub, zq-secret, zq-gone"));
    assert!(c[1]["text"].as_str().unwrap().contains("type CustomerNeed"));
    assert_eq!(c[2]["isError"], true);
    assert!(
        c[2]["text"].as_str().unwrap().contains("missing.graphql"),
        "{}",
        c[2]["text"]
    );

    // No credential: refused before MCP. The GraphQL endpoints: per graph, scoped.
    let http = reqwest::blocking::Client::new();
    let r = http
        .post(&url)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let q = json!({"query": "{ __schema { queryType { name } } }"});
    let ask = |graph: &str, (k, v): (&str, &str)| {
        http.post(format!("{gql}/{graph}"))
            .header(k, v)
            .json(&q)
            .send()
            .unwrap()
    };
    let bearer_a = format!("Bearer {ONLY_PUB}");
    assert_eq!(
        ask("pub", ("authorization", &bearer_a)).status().as_u16(),
        200
    );
    let hidden = ask("zq-secret", ("authorization", &bearer_a));
    assert_eq!(hidden.status().as_u16(), 404);
    assert!(!hidden.text().unwrap().contains("Linear"));
    let r = ask("zq-secret", ("x-api-key", EVERY));
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(v["data"]["__schema"]["queryType"]["name"], "Query", "{v}");
}

#[test]
fn a_graph_reloads_alone_and_a_bad_reload_keeps_its_last_good_schema() {
    let dir = tempfile::tempdir().unwrap();
    let file = graphs_file(dir.path(), "http://127.0.0.1:9/graphql");
    let (_srv, url, _) = start(&file);
    let b = json!({"X-Api-Key": EVERY});
    let probe = |ty: &str| {
        let v = py(
            &url,
            &json!([
                ["introspect", {"type": ty, "graph": "pub"}],
                ["introspect", {"type": "CustomerNeed", "graph": "zq-secret"}],
            ]),
            &b,
        );
        let c = v["calls"].as_array().unwrap().clone();
        assert_eq!(
            c[1]["isError"], false,
            "the other graph serves: {}",
            c[1]["text"]
        );
        c[0].clone()
    };
    assert_eq!(probe("ZzAddedType")["isError"], true);
    let pub_schema = dir.path().join("pub.graphql");
    let mut sdl = std::fs::read_to_string(&pub_schema).unwrap();
    sdl.push_str("\n\"\"\"Added while serving.\"\"\"\ntype ZzAddedType { id: ID! }\n");
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(&pub_schema, &sdl).unwrap();
    let reloaded = (0..60).any(|_| {
        std::thread::sleep(Duration::from_millis(500));
        probe("ZzAddedType")["isError"] == false
    });
    assert!(reloaded, "the changed schema was not reloaded");
    std::fs::write(&pub_schema, "}}} not graphql {{{").unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let still = probe("ZzAddedType");
    assert_eq!(
        still["isError"], false,
        "the last good schema serves: {}",
        still["text"]
    );
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert_eq!(
        log.matches("schema changed but does not load").count(),
        1,
        "reported once: {log}"
    );
}

#[test]
fn bad_graphs_files_are_refused_with_what_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    let write = |text: &str| {
        let f = dir.path().join("g.toml");
        std::fs::write(&f, text).unwrap();
        let out = Command::new(bin())
            .args(["serve", "--graphs"])
            .arg(&f)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = write("[[graph]]\nname = \"a\"\nschema = \"x.graphql\"\n[[graph]]\nname = \"a\"\nschema = \"y.graphql\"\n");
    assert!(e.contains("`a` is named twice"), "{e}");
    let e = write("[[graph]]\nname = \"a\"\nschema = \"x\"\n[[credential]]\ntoken = \"abcdefgh\"\ngraphs = [\"zz\"]\n");
    assert!(e.contains("no graph is named `zz`"), "{e}");
    let e = write("[server]\nhttp = \"127.0.0.1:0\"\n");
    assert!(e.contains("names no graph"), "{e}");
}
