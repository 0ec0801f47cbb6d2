//! End-to-end tests of the `gqlnav` binary's agent-facing commands on the real WG schemas
//! and the film fixture: `tools`, `link`, tokenizer files, `docs`, the tools bench and
//! the search page (split from cli.rs, which keeps corpus, cost, search, bench and slice).

mod common;

use common::run::{run, run_err, run_json, temp_file};
use std::path::PathBuf;

use common::wg_schema;

#[test]
fn tools_compiles_specs_operations_and_clear_errors() {
    // MCP specs on stdout, a summary on stderr.
    let out = run(&["tools", "--select", "repository,search"]);
    assert!(out.status.success());
    let specs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(specs[0]["name"], "repository");
    assert_eq!(specs[0]["annotations"]["readOnlyHint"], true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2/2 default operations validate"), "{err}");
    // The operations themselves.
    let out = run(&["tools", "--select", "repository", "--operations"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("query Repository($followRenames: Boolean, $name: String!, $owner: String!)"),
        "{text}"
    );
    // OpenAI strict form: every property required.
    let o = run_json(&[
        "tools",
        "--select",
        "repository",
        "--format",
        "openai",
        "--nullable",
        "anyof",
    ]);
    let p = &o[0]["function"]["parameters"];
    assert_eq!(
        p["required"].as_array().unwrap().len(),
        p["properties"].as_object().unwrap().len()
    );
    // The report: every default operation validates; tokens with and without $defs.
    let r = run_json(&["tools", "--json"]);
    assert_eq!(r["compiled"], r["validOperations"]);
    assert_eq!(r["compiled"], 31);
    assert!(r["tokens"]["withDefs"].as_u64().unwrap() > 1000);
    assert!(r["tokens"]["inline"].as_u64().unwrap() > 1000);
    assert_eq!(r["mutationsFound"], 266);
    // --for picks root fields through search.
    let f = run_json(&[
        "tools",
        "--for",
        "open issues of a repository",
        "--limit",
        "3",
        "--json",
    ]);
    let names: Vec<&str> = f["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"repository"), "{names:?}");
    assert!(names.len() <= 3);

    // Bad input.
    let e = run_err(&["tools", "--select", "repositry"]);
    assert!(
        e.contains("`repositry` is not a root field; nearest root fields: Query.repository"),
        "{e}"
    );
    let e = run_err(&["tools", "--select", "createIssue"]);
    assert!(e.contains("--allow-mutations createIssue"), "{e}");
    let (_d, noq) = temp_file("noq.graphql", "type Thing { id: ID }");
    let e = run_err(&["tools", "--schema", noq.to_str().unwrap()]);
    assert!(e.contains("no Query type"), "{e}");
    let mut wide = String::from("type Query {\n");
    for i in 0..1001 {
        wide.push_str(&format!("  f{i}: Int\n"));
    }
    wide.push('}');
    let (_d2, w) = temp_file("wide.graphql", &wide);
    let e = run_err(&["tools", "--schema", w.to_str().unwrap()]);
    assert!(
        e.contains("1001 root fields to compile") && e.contains("--select"),
        "{e}"
    );
    let ok = run_json(&[
        "tools",
        "--schema",
        w.to_str().unwrap(),
        "--max-tools",
        "2000",
        "--json",
    ]);
    assert_eq!(ok["compiled"], 1001);
    let e = run_err(&["tools", "--format", "yaml"]);
    assert!(e.contains("mcp, openai, anthropic, json-schema"), "{e}");
}

#[test]
fn link_names_types_and_cuts_whole_types_to_a_budget() {
    let v = run_json(&[
        "link",
        "pull requests associated with a deployment",
        "--budget",
        "3000",
        "--json",
    ]);
    let types = v["types"].as_array().unwrap();
    assert!(
        types
            .iter()
            .any(|t| t["name"] == "Deployment" && t["hop"] == 0),
        "{v}"
    );
    assert!(v["tokens"].as_u64().unwrap() <= 3000);
    assert_eq!(v["encoding"], "o200k_base");
    let out = run(&["link", "zzzz qqqq"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("names no type"));
}

#[test]
fn encodings_take_a_tokenizer_json() {
    let Some(dir) = std::env::var_os("GQLNAV_MINILM_DIR")
        .map(PathBuf::from)
        .filter(|d| d.join("tokenizer.json").is_file())
    else {
        common::skip("GQLNAV_MINILM_DIR does not hold tokenizer.json (scripts/test.sh installs the MiniLM package)");
        return;
    };
    let enc = format!("tokenizer:{}", dir.display());
    let v = run_json(&[
        "slice",
        "stargazers of a repository",
        "--encoding",
        &enc,
        "--budget",
        "400",
        "--json",
    ]);
    assert!(
        v["encoding"].as_str().unwrap().starts_with("tokenizer:"),
        "{v}"
    );
    let t = v["tokens"].as_u64().unwrap();
    assert!(t > 0 && t <= 400, "{t}");
    let c = run_json(&["cost", "--encoding", &enc, "--json"]);
    let o = run_json(&["cost", "--json"]);
    assert_ne!(
        c.to_string(),
        o.to_string(),
        "the model's counts differ from o200k's"
    );
    let e = run_err(&[
        "search",
        "stars",
        "--encoding",
        "tokenizer:/nonexistent.json",
    ]);
    assert!(e.contains("give a Hugging Face tokenizer.json"), "{e}");
}

/// `gqlnav docs index | search` on the bundled Python pages (PSF licence), and the
/// mistakes a user makes with the store flags.
#[test]
fn docs_index_and_search_on_bundled_pages_and_store_flag_errors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/tests/fixtures/python/library");
    let out = tempfile::tempdir().unwrap();
    let idx = out.path().join("idx");
    let v = run_json(&[
        "docs",
        "index",
        root.to_str().unwrap(),
        "--out",
        idx.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["stats"]["pages"], 3, "{v}");
    assert!(v["stats"]["chunks"].as_u64().unwrap() > 10, "{v}");
    assert_eq!(v["vectors"], false);
    let v = run_json(&[
        "docs",
        "search",
        "CSV file reading and writing",
        "--index",
        idx.to_str().unwrap(),
        "--limit",
        "2",
        "--json",
    ]);
    let hits = v["results"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{v}");
    assert!(
        hits[0]["url"].as_str().unwrap().starts_with("csv.html"),
        "{v}"
    );
    assert_eq!(v["results"]["mode"], "bm25");

    let e = run_err(&[
        "docs",
        "search",
        "x",
        "--store",
        "qdrant",
        "--index",
        idx.to_str().unwrap(),
    ]);
    assert!(e.contains("--qdrant-url"), "{e}");
    let e = run_err(&["docs", "search", "x"]);
    assert!(e.contains("--index DIR"), "{e}");
    let e = run_err(&[
        "docs",
        "index",
        root.to_str().unwrap(),
        "--out",
        idx.to_str().unwrap(),
        "--store",
        "qdrant",
        "--qdrant-url",
        "http://127.0.0.1:9",
    ]);
    assert!(e.contains("--model"), "{e}");
    let e = run_err(&[
        "docs",
        "search",
        "x",
        "--index",
        out.path().to_str().unwrap(),
    ]);
    assert!(e.contains("gqlnav docs index"), "{e}");
}

/// `bench --mode MODE` on the bundled singapore questions, as JSON, with `extra` flags.
fn singapore_bench(mode: &str, extra: &[&str]) -> serde_json::Value {
    let wg = common::repo().join("benchmarks/wg");
    let mut args = vec![
        "bench",
        "--mode",
        mode,
        "--wg",
        wg.to_str().unwrap(),
        "--schema-ids",
        "singapore",
        "--json",
    ];
    args.extend_from_slice(extra);
    run_json(&args)
}

/// `bench --mode tools --tools-policy page` on the bundled singapore questions, as JSON,
/// with `extra` flags.
fn singapore_page_policy(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--tools-policy", "page"];
    args.extend_from_slice(extra);
    singapore_bench("tools", &args)
}

/// `bench --mode tools` ranks with the ranker flags, as `serve` does: the same page
/// policy over plain BM25 shows other pages than over the default structure ranker.
#[test]
fn bench_tools_mode_ranks_with_the_ranker_flags() {
    let tokens = |extra: &[&str]| -> Vec<u64> {
        let v = singapore_page_policy(extra);
        v["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["tokens"].as_u64().unwrap())
            .collect()
    };
    let structure = tokens(&[]);
    let bm25 = tokens(&["--backend", "bm25"]);
    assert_eq!(structure.len(), 16);
    assert_ne!(
        structure, bm25,
        "the --backend flag did not reach the tools"
    );
}

/// `bench --mode tools` on the bundled singapore questions: every row replayed, the
/// policy recorded, and what the tools showed graded per question.
#[test]
fn bench_tools_mode_replays_the_scripted_policy() {
    let v = singapore_bench("tools", &[]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["schemaId"], "singapore");
    assert_eq!(rows[0]["questions"], 16);
    let within: Vec<f64> = rows[0]["within"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        within[0] <= within[1] && within[1] <= within[2],
        "{within:?}"
    );
    assert!(within[2] >= 0.9, "singapore is small: {within:?}");
    // The default policy starts with a budgeted search (a slice).
    assert_eq!(v["policy"]["kind"], "slice");
    assert_eq!(v["policy"]["budget"], 4000);
    assert!(
        within[0] >= 0.9,
        "a slice shows singapore's paths at once: {within:?}"
    );
    // The page policy is recorded as such and replays every row too; `--report DIR`
    // writes the table, the JSON and one line per question.
    let dir = tempfile::tempdir().unwrap();
    let p = singapore_page_policy(&["--report", dir.path().to_str().unwrap()]);
    assert_eq!(p["policy"]["kind"], "page");
    assert!(p["policyText"].as_str().unwrap().contains("owner types"));
    assert_eq!(p["questions"].as_array().unwrap().len(), 16);
    let md = std::fs::read_to_string(dir.path().join("tools.md")).unwrap();
    assert!(md.contains("| singapore | 16 |"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("tools.json")).unwrap())
            .unwrap();
    assert_eq!(json["questions"].as_array().map(Vec::len), Some(16));
    let lines = std::fs::read_to_string(dir.path().join("tools_questions.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 16);
    // A budget too small for a slice is refused with the fix.
    let wg = common::repo().join("benchmarks/wg");
    let e = run_err(&[
        "bench",
        "--mode",
        "tools",
        "--tools-budget",
        "50",
        "--wg",
        wg.to_str().unwrap(),
        "--schema-ids",
        "singapore",
    ]);
    assert!(
        e.contains("--tools-budget 50") && e.contains("500 or more"),
        "{e}"
    );
    let qs = v["questions"].as_array().unwrap();
    assert_eq!(qs.len(), 16);
    for q in qs {
        assert!(q["tokens"].as_u64().unwrap() > 0, "{q}");
        let missing = q["missing"].as_array().unwrap();
        match q["passedAt"].as_u64() {
            Some(n) => assert!((1..=3).contains(&n) && missing.is_empty(), "{q}"),
            None => assert!(!missing.is_empty(), "{q}"),
        }
    }
}

/// `search --page` prints what an agent's `search_schema` call returns: one result per
/// type with the rest of the type folded into `more:`, paths from the root and the ways
/// in; `--json` is its structured content; a page size out of range is refused.
#[test]
fn search_page_shows_the_agent_page() {
    let schema = wg_schema("linear");
    let schema = schema.to_str().unwrap();
    let q = "customer linked engineering issues status";
    let out = run(&["search", q, "--schema", schema, "--page"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    // First the operation that reads the top hits (one line), then the ranked results.
    let (example, rest) = text.split_once('\n').unwrap_or_default();
    assert!(
        example.starts_with("Reads the top hits") && example.contains("query Typed("),
        "{text}"
    );
    assert!(rest.starts_with("1. "), "{text}");
    assert!(text.contains("\n   path: Query."), "{text}");
    assert!(text.contains("\n   more: CustomerStatus."), "{text}");
    assert!(text.contains("Ways in from the root"), "{text}");
    let v = run_json(&[
        "search", q, "--schema", schema, "--page", "-k", "5", "--json",
    ]);
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 5, "{v}");
    assert!(results[0]["moreOnType"].is_array() || results[1]["moreOnType"].is_array());
    let e = run_err(&["search", q, "--schema", schema, "--page", "-k", "0"]);
    assert!(e.contains("not a page size"), "{e}");
    let e = run_err(&["search", q, "--schema", schema, "--page", "--budget", "500"]);
    assert!(e.contains("cannot be used with"), "{e}");
}

/// `bench --mode typed` samples like the agent bench (`--every`, then `--limit`), and
/// every row says its tools and whether its gold call answers.
#[test]
fn bench_typed_mode_samples_with_every_and_limit() {
    let rows = |extra: &[&str]| -> Vec<serde_json::Value> {
        singapore_bench("typed", extra)["rows"]
            .as_array()
            .unwrap()
            .clone()
    };
    let all = rows(&[]);
    assert_eq!(
        all.len(),
        8,
        "the bundled singapore questions with an operation"
    );
    assert!(all
        .iter()
        .all(|r| r["tools"].as_array().is_some_and(|t| !t.is_empty())));
    assert!(all.iter().any(|r| r["answered"] == true));
    let some = rows(&["--every", "2", "--limit", "3"]);
    let ids: Vec<&serde_json::Value> = some.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, vec![&all[0]["id"], &all[2]["id"], &all[4]["id"]]);
}
