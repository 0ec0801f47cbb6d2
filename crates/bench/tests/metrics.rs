//! Metric values against hand-computed ones for a fixed ranking.

mod common;

use std::cell::Cell;
use std::collections::HashMap;

use common::fake::{tiny_context, Fixed};
use gqlnav_bench::dataset::{parse_tsv, Dataset};
use gqlnav_bench::metrics::{floor_percentile, run_retrieval, RunOptions, RunResult};

const EPS: f64 = 1e-12;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < EPS
}

/// Four questions (tokens: A.x 10, A.y 20, A.z 30, B.u 40, B.v 50, Query.a 60, Query.b 70):
///
/// - q1 targets A.y, B.u; ranking A.x A.y Query.a B.u B.v → ranks 2, 4
/// - q2 target A.x; ranking B.v A.x → rank 2 (a budget of 25 breaks at B.v = 50, although
///   A.x = 10 would fit)
/// - q3 no target (still counts in n); ranking A.x
/// - q4 targets A.x, A.z, A.y; ranking A.z A.x B.u Query.a Query.b A.y — 6 hits for a
///   depth of 5, so A.y is cut and counts as rank 6 = D + 1
pub fn fixture() -> (Fixed, Dataset) {
    let tsv = "q1\tA.y,B.u\nq2\tA.x\nq3\t ,\nq4\tA.x,A.z,A.y\n";
    let ds = parse_tsv("fixture.tsv", tsv, true).unwrap();
    let rankings: HashMap<String, Vec<usize>> = [
        ("q1", vec![0, 1, 5, 3, 4]),
        ("q2", vec![4, 0]),
        ("q3", vec![0]),
        ("q4", vec![2, 0, 3, 5, 6, 1]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    (
        Fixed {
            name: "fixed".into(),
            rankings,
        },
        ds,
    )
}

pub fn fixture_options() -> RunOptions {
    RunOptions {
        depth: 5,
        recall_ks: vec![1, 2, 5],
        token_ks: vec![1, 3],
        budgets: vec![25, 60, 1000],
    }
}

pub fn fixture_run() -> RunResult {
    let ctx = tiny_context();
    let (backend, ds) = fixture();
    run_retrieval(&backend, &ctx, &ds, &fixture_options(), &|_, _| {}).unwrap()
}

#[test]
fn recall_mrr_ranks_and_tokens_match_hand_computed_values() {
    let ctx = tiny_context();
    let (backend, ds) = fixture();
    let calls = Cell::new(Vec::new());
    let progress = |done: usize, total: usize| {
        let mut v = calls.take();
        v.push((done, total));
        calls.set(v);
    };
    let r = run_retrieval(&backend, &ctx, &ds, &fixture_options(), &progress).unwrap();
    assert_eq!(calls.take(), [(1, 4), (2, 4), (3, 4), (4, 4)]);

    assert_eq!(r.name, "fixed");
    assert_eq!(r.dataset, "fixture");
    assert_eq!(r.encoding, "o200k_base");
    assert_eq!(r.depth, 5);
    assert_eq!(r.questions, 4);
    assert_eq!(r.targets_total, 6);

    // recall@1: only q4 (A.z at 1): (1/3)/4.
    assert!(close(r.recall[&1], 1.0 / 12.0), "{}", r.recall[&1]);
    // recall@2: q1 1/2, q2 1, q3 0, q4 2/3 → (13/6)/4.
    assert!(close(r.recall[&2], 13.0 / 24.0), "{}", r.recall[&2]);
    // recall@5: q1 1, q2 1, q3 0, q4 2/3 (A.y was cut at the depth).
    assert!(close(r.recall[&5], 2.0 / 3.0), "{}", r.recall[&5]);
    // MRR: (1/2 + 1/2 + 0 + 1) / 4.
    assert!(close(r.mrr, 0.5));
    // Ranks sorted [1, 2, 2, 2, 4, 6]: p50 = [floor(5·0.5)] = [2] = 2,
    // p95 = [floor(5·0.95)] = [4] = 4 (nearest-rank would say 6).
    assert_eq!(r.rank_p50, 2.0);
    assert_eq!(r.rank_p95, 4.0);
    // tokens@1: 10 + 50 + 10 + 30; tokens@3: 90 + 60 (only 2 hits) + 10 + 80.
    assert!(close(r.tokens_at[&1], 25.0));
    assert!(close(r.tokens_at[&3], 60.0));

    let q4 = &r.per_question[3];
    assert_eq!(q4.expected, ["A.x", "A.z", "A.y"]);
    assert_eq!(q4.found, [("A.x".to_string(), 2), ("A.z".to_string(), 1)]);
    assert_eq!(q4.missed, ["A.y"]);
    assert_eq!(q4.first_rank, Some(1));
    assert_eq!(q4.hits, 5, "truncated to the depth");
    let q3 = &r.per_question[2];
    assert!(q3.expected.is_empty() && q3.found.is_empty() && q3.missed.is_empty());
    assert_eq!(q3.first_rank, None);
    assert_eq!(r.per_question[1].first_rank, Some(2));

    assert!(r.latency_ms_p50 >= 0.0 && r.latency_ms_p50 <= r.latency_ms_p95);
    assert!(r.per_question.iter().all(|q| q.latency_ms >= 0.0));
}

#[test]
fn budget_sweep_breaks_at_the_first_hit_over_budget() {
    let r = fixture_run();
    // B = 25: q1 reads A.x (10) and stops at A.y (30 > 25); q2 stops at once at B.v (50),
    // although A.x (10) would fit; q3 reads A.x; q4 stops at A.z (30). Nothing found.
    let b = r.budget[&25];
    assert!(close(b.recall, 0.0));
    assert!(close(b.avg_tokens, 5.0), "{}", b.avg_tokens);
    assert!(close(b.avg_hits, 0.5));
    // B = 60: q1 reads 2 (30), q2 reads 2 (exactly 60 fits), q3 1 (10), q4 2 (40).
    let b = r.budget[&60];
    assert!(close(b.recall, 13.0 / 24.0), "{}", b.recall);
    assert!(close(b.avg_tokens, 35.0));
    assert!(close(b.avg_hits, 1.75));
    // B = 1000: every hit within the depth: 180 + 60 + 10 + 210 tokens, 5 + 2 + 1 + 5 hits.
    let b = r.budget[&1000];
    assert!(close(b.recall, 2.0 / 3.0));
    assert!(close(b.avg_tokens, 115.0));
    assert!(close(b.avg_hits, 3.25));
}

#[test]
fn default_depth_counts_missing_as_101() {
    let ctx = tiny_context();
    let (backend, ds) = fixture();
    let r = run_retrieval(&backend, &ctx, &ds, &RunOptions::default(), &|_, _| {}).unwrap();
    // Depth 100: q4's A.y is now rank 6. Ranks sorted [1, 2, 2, 2, 4, 6].
    assert_eq!(r.rank_p95, 4.0);
    assert_eq!(
        r.recall.keys().copied().collect::<Vec<_>>(),
        [1, 5, 10, 20, 50, 100]
    );
    assert!(close(r.recall[&100], (1.0 + 1.0 + 0.0 + 1.0) / 4.0));
    // Add a question whose target is never returned: its rank is D + 1 = 101.
    let mut ds2 = ds.clone();
    ds2.questions.truncate(1);
    ds2.questions[0].targets = vec!["Query.b".into()];
    let r = run_retrieval(&backend, &ctx, &ds2, &RunOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(r.rank_p50, 101.0);
    assert_eq!(r.mrr, 0.0);
    assert_eq!(r.per_question[0].missed, ["Query.b"]);
}

#[test]
fn floor_percentile_is_the_suites() {
    let v: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(floor_percentile(&v, 0.5), Some(10.0)); // floor(19·0.5) = 9
    assert_eq!(floor_percentile(&v, 0.95), Some(19.0)); // floor(18.05) = 18
    assert_eq!(floor_percentile(&v, 1.0), Some(20.0));
    assert_eq!(floor_percentile(&v, 0.0), Some(1.0));
    assert_eq!(floor_percentile(&[7.0], 0.95), Some(7.0));
    assert_eq!(floor_percentile(&[], 0.5), None);
}

#[test]
fn empty_dataset_and_errors() {
    let ctx = tiny_context();
    let (backend, ds) = fixture();
    let empty = Dataset {
        questions: Vec::new(),
        ..ds.clone()
    };
    let r = run_retrieval(&backend, &ctx, &empty, &RunOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(r.questions, 0);
    assert!(r.mrr.is_nan() && r.rank_p50.is_nan());

    let bad = RunOptions {
        depth: 0,
        ..RunOptions::default()
    };
    assert!(run_retrieval(&backend, &ctx, &ds, &bad, &|_, _| {}).is_err());

    let mut unknown = ds.clone();
    unknown.questions[0].text = "never ranked".into();
    let e =
        run_retrieval(&backend, &ctx, &unknown, &RunOptions::default(), &|_, _| {}).unwrap_err();
    assert!(e.to_string().contains("fixture:1"), "{e}");

    let out_of_range = Fixed {
        name: "oob".into(),
        rankings: [("q1".to_string(), vec![99])].into_iter().collect(),
    };
    let mut one = ds.clone();
    one.questions.truncate(1);
    assert!(run_retrieval(
        &out_of_range,
        &ctx,
        &one,
        &RunOptions::default(),
        &|_, _| {}
    )
    .is_err());
}
