//! Report shapes: Markdown, JSON, and the report directory with its SVG plots.

mod common;

use common::fake::{tiny_context, Fixed};
use gqlnav_bench::dataset::parse_tsv;
use gqlnav_bench::metrics::{run_retrieval, RunOptions, RunResult};
use gqlnav_bench::report::{self, json, markdown, write_report_dir};

fn two_runs() -> Vec<RunResult> {
    let ctx = tiny_context();
    let ds = parse_tsv("fixture.tsv", "q1\tA.y,B.u\nq2\tA.x\nq3\t ,\n", true).unwrap();
    let a = Fixed {
        name: "alpha|one".into(),
        rankings: [
            ("q1", vec![0, 1, 5, 3, 4]),
            ("q2", vec![4, 0]),
            ("q3", vec![0]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
    };
    let b = Fixed {
        name: "beta".into(),
        rankings: [("q1", vec![3, 1]), ("q2", vec![0]), ("q3", vec![])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    };
    let opts = RunOptions::default();
    vec![
        run_retrieval(&a, &ctx, &ds, &opts, &|_, _| {}).unwrap(),
        run_retrieval(&b, &ctx, &ds, &opts, &|_, _| {}).unwrap(),
    ]
}

#[test]
fn json_shape() {
    let runs = two_runs();
    let v = json(&runs);
    let rows = v["runs"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let r = &rows[1];
    assert_eq!(r["name"], "beta");
    assert_eq!(r["questions"], 3);
    assert_eq!(r["targets_total"], 3);
    assert_eq!(r["encoding"], "o200k_base");
    for k in ["1", "5", "10", "20", "50", "100"] {
        assert!(r["recall"][k].is_f64(), "recall {k}");
    }
    // beta: q1 B.u at 1, A.y at 2; q2 A.x at 1; q3 nothing → recall@1 = (1/2 + 1 + 0)/3.
    assert!((r["recall"]["1"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    assert!((r["mrr"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert!(r["rank_p50"].is_f64() && r["rank_p95"].is_f64());
    assert!(r["tokens_at_50"].is_f64() && r["tokens_at_10"].is_f64());
    assert_eq!(r["tokens_at"]["50"], r["tokens_at_50"]);
    for b in ["125", "250", "500", "1000", "2000"] {
        assert!(r["budget"][b].is_f64(), "budget {b}");
        assert_eq!(r["budget"][b], r["budget_detail"][b]["recall"]);
        assert!(r["budget_detail"][b]["avg_tokens"].is_f64());
    }
    assert!(r["latency_ms_p50"].is_f64());
}

#[test]
fn json_undefined_values_are_null() {
    let mut runs = two_runs();
    runs[0].rank_p50 = f64::NAN;
    let v = json(&runs);
    assert!(v["runs"][0]["rank_p50"].is_null());
    assert!(serde_json::to_string(&v).is_ok());
}

#[test]
fn markdown_table_and_definitions() {
    let runs = two_runs();
    let md = markdown(&runs);
    let header = md.lines().find(|l| l.starts_with("| run |")).unwrap();
    for col in [
        "recall@1",
        "recall@100",
        "MRR",
        "rank p50",
        "rank p95",
        "tokens@10 (o200k_base)",
        "tokens@50 (o200k_base)",
        "recall@125 tok",
        "recall@2000 tok",
        "latency p95 (ms)",
    ] {
        assert!(header.contains(col), "missing column {col}: {header}");
    }
    assert!(md.contains("| alpha\\|one | 3 |"), "{md}");
    assert!(md.contains("| beta | 3 |"));
    assert!(md.contains("dataset `fixture`: 3 questions, 3 (question, target) pairs"));
    for def in [
        "**recall@k**",
        "**MRR**",
        "**rank p50 / p95**",
        "**tokens@k**",
        "**recall@B tok**",
        "**latency",
    ] {
        assert!(md.contains(def), "missing definition {def}");
    }
    assert!(
        md.contains("rank 101"),
        "missing ranks are said to count as D + 1"
    );
    assert!(md.contains("N = 3"));
    // Same column count in every table row.
    let cols = header.matches('|').count();
    for l in md.lines().skip_while(|l| !l.starts_with("| run |")).take(4) {
        assert_eq!(
            l.matches('|').count() - l.matches("\\|").count(),
            cols,
            "{l}"
        );
    }
}

#[test]
fn report_dir_files_are_written() {
    let runs = two_runs();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/out");
    let written = write_report_dir(&out, &runs).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            report::REPORT_MD,
            report::REPORT_JSON,
            report::QUESTIONS_JSONL,
            report::RECALL_AT_K_SVG,
            report::RECALL_AT_BUDGET_SVG
        ]
    );
    for p in &written {
        assert!(std::fs::metadata(p).unwrap().len() > 0, "{}", p.display());
    }
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    // Compare through the same text round trip: serde_json's float parsing is not exact
    // (e.g. 0.00048 vs 0.00047999999999999996 for a measured latency).
    let expected: serde_json::Value = serde_json::from_str(&json(&runs).to_string()).unwrap();
    assert_eq!(j, expected);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(out.join("questions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["run"], "alpha|one");
    assert_eq!(lines[0]["found"][0], serde_json::json!(["A.y", 2]));
    assert_eq!(lines[3]["run"], "beta");
    for svg in [report::RECALL_AT_K_SVG, report::RECALL_AT_BUDGET_SVG] {
        let s = std::fs::read_to_string(out.join(svg)).unwrap();
        assert!(s.contains("<svg"), "{svg}");
        assert!(s.contains("beta"), "{svg} has a legend");
        assert!(s.contains("<polyline"), "{svg} has lines");
    }
    let k = std::fs::read_to_string(out.join(report::RECALL_AT_K_SVG)).unwrap();
    assert!(k.contains("k (top-k hits)") && k.contains("recall@k"));
    let b = std::fs::read_to_string(out.join(report::RECALL_AT_BUDGET_SVG)).unwrap();
    assert!(b.contains("token budget B (o200k_base)") && b.contains("2000"));

    if let Ok(keep) = std::env::var("GQLNAV_BENCH_KEEP_REPORT") {
        let keep = std::path::PathBuf::from(keep);
        write_report_dir(&keep, &runs).unwrap();
    }
}

#[test]
fn report_dir_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    // No run at all.
    let written = write_report_dir(&dir.path().join("empty"), &[]).unwrap();
    assert_eq!(written.len(), 5);
    assert_eq!(json(&[])["runs"], serde_json::json!([]));
    // One k and one budget.
    let ctx = tiny_context();
    let ds = parse_tsv("one.tsv", "q1\tA.x\n", true).unwrap();
    let f = Fixed {
        name: "solo".into(),
        rankings: [("q1".to_string(), vec![0])].into_iter().collect(),
    };
    let opts = RunOptions {
        depth: 3,
        recall_ks: vec![1],
        token_ks: vec![1],
        budgets: vec![5],
    };
    let r = run_retrieval(&f, &ctx, &ds, &opts, &|_, _| {}).unwrap();
    let written = write_report_dir(&dir.path().join("one"), &[r]).unwrap();
    for p in &written {
        assert!(std::fs::metadata(p).unwrap().len() > 0);
    }
}
