//! Retrieval metrics of one backend over one dataset, following the instrument's bench
//! command (`BenchmarkRunner`): every question counts in `n`, means are macro over
//! questions, and a question with no target scores 0.

use std::collections::BTreeMap;
use std::time::Instant;

use gqlnav_search::{Purpose, Query, SearchBackend, SearchContext, SearchError};
use serde::Serialize;

use crate::dataset::{Dataset, Question};
use crate::error::BenchError;

/// What to measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOptions {
    /// Retrieval depth `D`: each question is searched with `k = D`. A target that is
    /// not in the top `D` gets rank `D + 1` ("past the end").
    pub depth: usize,
    /// The `k` of recall@k.
    pub recall_ks: Vec<usize>,
    /// The `k` of tokens@k.
    pub token_ks: Vec<usize>,
    /// Context budgets (in tokens of the rendered corpus) of the budget sweep.
    pub budgets: Vec<usize>,
}

impl Default for RunOptions {
    /// `D = 100`, recall@{1,5,10,20,50,100}, tokens@{10,50}, budgets
    /// {125,250,500,1000,2000} (the instrument's defaults plus recall@100).
    fn default() -> Self {
        RunOptions {
            depth: 100,
            recall_ks: vec![1, 5, 10, 20, 50, 100],
            token_ks: vec![10, 50],
            budgets: vec![125, 250, 500, 1000, 2000],
        }
    }
}

/// One point of the context-budget sweep.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BudgetPoint {
    /// Macro mean over questions of the fraction of targets among the hits read.
    pub recall: f64,
    /// Mean over questions of the tokens read.
    pub avg_tokens: f64,
    /// Mean over questions of the hits read.
    pub avg_hits: f64,
}

/// One question's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionResult {
    /// The question id.
    pub id: String,
    /// The searched text.
    pub text: String,
    /// The targets (deduplicated, dataset order).
    pub expected: Vec<String>,
    /// Targets found within the depth, with their 1-based rank (dataset order).
    pub found: Vec<(String, usize)>,
    /// Targets not found within the depth (their rank counts as `D + 1`).
    pub missed: Vec<String>,
    /// Rank of the best-ranked target within the depth, if any.
    pub first_rank: Option<usize>,
    /// Number of hits the backend returned (at most `D`).
    pub hits: usize,
    /// Wall-clock time of the `search` call, in milliseconds.
    pub latency_ms: f64,
}

/// All metrics of one run. Undefined values (no question, no target) are `NaN`, which
/// serialises as JSON `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    /// Row label: the backend's [`SearchBackend::name`].
    pub name: String,
    /// The dataset's name.
    pub dataset: String,
    /// The rendering the hits were shown in (and whose tokens are counted).
    pub rendering: String,
    /// The token encoding of every token figure.
    pub encoding: String,
    /// Retrieval depth `D`.
    pub depth: usize,
    /// Number of questions `n` (every question counts, including ones without targets).
    pub questions: usize,
    /// Σ over questions of the number of targets (the number of rank pairs).
    pub targets_total: usize,
    /// Questions the loader skipped because their target list was empty.
    pub skipped_empty: usize,
    /// recall@k: `(1/n) Σ_q |expected_q ∩ top_k(q)| / |expected_q|` (0 when empty).
    pub recall: BTreeMap<usize, f64>,
    /// `(1/n) Σ_q 1/rank` of the first target found within `D` (0 when none).
    pub mrr: f64,
    /// Floor-percentile p50 of the ranks of all (question, target) pairs, missing = `D + 1`.
    pub rank_p50: f64,
    /// Floor-percentile p95 of the same ranks.
    pub rank_p95: f64,
    /// tokens@k: `(1/n) Σ_q Σ_{i < min(k, |hits|)} tokens(hit_i)`.
    pub tokens_at: BTreeMap<usize, f64>,
    /// The context-budget sweep, per budget.
    pub budget: BTreeMap<usize, BudgetPoint>,
    /// Floor-percentile p50 of the per-question `search` latency, in milliseconds.
    pub latency_ms_p50: f64,
    /// Floor-percentile p95 of the same latencies.
    pub latency_ms_p95: f64,
    /// Per-question outcomes, dataset order.
    pub per_question: Vec<QuestionResult>,
}

/// The suite's floor percentile: `sorted[min(n-1, floor((n-1)·p))]`; `None` when empty.
/// `sorted` must be ascending.
pub fn floor_percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    let i = (((n - 1) as f64) * p).floor().max(0.0) as usize;
    Some(sorted[i.min(n - 1)])
}

fn mean(sum: f64, n: usize) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    floor_percentile(&v, p).unwrap_or(f64::NAN)
}

/// The fraction of `ranks` (one per target) that are `≤ read`; 0 for no target.
fn found_fraction(ranks: &[usize], read: usize) -> f64 {
    if ranks.is_empty() {
        0.0
    } else {
        ranks.iter().filter(|&&r| r <= read).count() as f64 / ranks.len() as f64
    }
}

/// Run `backend` (already indexed over `ctx`) over every question of `ds` and compute
/// the metrics of [`RunResult`]. Each question is searched once with `k = opts.depth`
/// (extra hits are ignored); a target's rank is the 1-based position of its first
/// occurrence. `progress(done, total)` is called after each question.
pub fn run_retrieval(
    backend: &dyn SearchBackend,
    ctx: &SearchContext,
    ds: &Dataset,
    opts: &RunOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<RunResult, BenchError> {
    let depth = opts.depth;
    if depth == 0 {
        return Err(BenchError::Options("depth must be at least 1".to_string()));
    }
    let n = ds.questions.len();
    let mut sums = Sums::new(opts, n);
    let mut per_question = Vec::with_capacity(n);

    for (qi, q) in ds.questions.iter().enumerate() {
        let hits = search_question(backend, ctx, q, depth)?;
        let ranks = target_ranks(&q.targets, &hits.coords, depth);
        let first_rank = ranks.iter().copied().filter(|&r| r <= depth).min();
        sums.add(&ranks, first_rank, &hits.tokens, hits.latency_ms);
        per_question.push(question_result(q, &ranks, depth, first_rank, &hits));
        progress(qi + 1, n);
    }

    Ok(RunResult {
        name: backend.name(),
        dataset: ds.name.clone(),
        rendering: ctx.rendered.rendering.name().to_string(),
        encoding: ctx.rendered.encoding.name().to_string(),
        depth,
        questions: n,
        targets_total: ds.targets_total(),
        skipped_empty: ds.skipped_empty,
        recall: sums
            .recall
            .into_iter()
            .map(|(k, s)| (k, mean(s, n)))
            .collect(),
        mrr: mean(sums.mrr, n),
        rank_p50: pct(sums.all_ranks.clone(), 0.5),
        rank_p95: pct(sums.all_ranks, 0.95),
        tokens_at: sums
            .tokens
            .into_iter()
            .map(|(k, s)| (k, mean(s, n)))
            .collect(),
        budget: sums
            .budget
            .into_iter()
            .map(|(b, (r, t, h))| {
                (
                    b,
                    BudgetPoint {
                        recall: mean(r, n),
                        avg_tokens: mean(t, n),
                        avg_hits: mean(h, n),
                    },
                )
            })
            .collect(),
        latency_ms_p50: pct(sums.latencies.clone(), 0.5),
        latency_ms_p95: pct(sums.latencies, 0.95),
        per_question,
    })
}

/// The running sums over questions (means are taken at the end), and every rank and
/// latency for the percentiles.
struct Sums {
    recall: BTreeMap<usize, f64>,
    tokens: BTreeMap<usize, f64>,
    // (recall, tokens, hits) sums per budget.
    budget: BTreeMap<usize, (f64, f64, f64)>,
    mrr: f64,
    all_ranks: Vec<f64>,
    latencies: Vec<f64>,
}

impl Sums {
    fn new(opts: &RunOptions, n: usize) -> Sums {
        Sums {
            recall: opts.recall_ks.iter().map(|&k| (k, 0.0)).collect(),
            tokens: opts.token_ks.iter().map(|&k| (k, 0.0)).collect(),
            budget: opts.budgets.iter().map(|&b| (b, (0.0, 0.0, 0.0))).collect(),
            mrr: 0.0,
            all_ranks: Vec::new(),
            latencies: Vec::with_capacity(n),
        }
    }

    /// Add one question: its target ranks, best rank, hit tokens (rank order) and latency.
    fn add(&mut self, ranks: &[usize], first_rank: Option<usize>, tokens: &[usize], latency: f64) {
        self.all_ranks.extend(ranks.iter().map(|&r| r as f64));
        if let Some(r) = first_rank {
            self.mrr += 1.0 / r as f64;
        }
        for (&k, sum) in self.recall.iter_mut() {
            *sum += found_fraction(ranks, k);
        }
        for (&k, sum) in self.tokens.iter_mut() {
            *sum += tokens.iter().take(k).sum::<usize>() as f64;
        }
        for (&b, (r_sum, t_sum, h_sum)) in self.budget.iter_mut() {
            let mut used = 0usize;
            let mut read = 0usize;
            for &t in tokens {
                if used + t > b {
                    break;
                }
                used += t;
                read += 1;
            }
            *r_sum += found_fraction(ranks, read);
            *t_sum += used as f64;
            *h_sum += read as f64;
        }
        self.latencies.push(latency);
    }
}

/// One question's hits (at most `D`): coordinates and tokens in rank order, and the
/// time the search took.
struct Hits<'c> {
    coords: Vec<&'c str>,
    tokens: Vec<usize>,
    latency_ms: f64,
}

/// Search one question with `k = depth`, timed; a hit outside the corpus is an error.
fn search_question<'c>(
    backend: &dyn SearchBackend,
    ctx: &'c SearchContext,
    q: &Question,
    depth: usize,
) -> Result<Hits<'c>, BenchError> {
    let query = Query {
        text: q.text.clone(),
        sub_queries: q.sub_queries.clone(),
        purpose: Purpose::Search,
    };
    let t0 = Instant::now();
    let mut scored = backend
        .search(&query, depth)
        .map_err(|source| BenchError::Search {
            question: q.id.clone(),
            source: Box::new(source),
        })?;
    let latency_ms = t0.elapsed().as_secs_f64() * 1000.0;
    scored.truncate(depth);

    let mut coords: Vec<&str> = Vec::with_capacity(scored.len());
    let mut tokens: Vec<usize> = Vec::with_capacity(scored.len());
    for s in &scored {
        let (Some(e), Some(&t)) = (
            ctx.corpus.entries.get(s.doc),
            ctx.rendered.tokens.get(s.doc),
        ) else {
            return Err(BenchError::Search {
                question: q.id.clone(),
                source: Box::new(SearchError::Other(format!(
                    "hit document {} is outside the corpus ({} entries)",
                    s.doc,
                    ctx.corpus.entries.len()
                ))),
            });
        };
        coords.push(e.coordinate.as_str());
        tokens.push(t);
    }
    Ok(Hits {
        coords,
        tokens,
        latency_ms,
    })
}

/// Ranks, one per target: first occurrence, or D + 1.
fn target_ranks(targets: &[String], coords: &[&str], depth: usize) -> Vec<usize> {
    targets
        .iter()
        .map(|t| {
            coords
                .iter()
                .position(|c| c == t)
                .map(|i| i + 1)
                .unwrap_or(depth + 1)
        })
        .collect()
}

/// One question's outcome: targets found within the depth (with rank) and missed.
fn question_result(
    q: &Question,
    ranks: &[usize],
    depth: usize,
    first_rank: Option<usize>,
    hits: &Hits,
) -> QuestionResult {
    let mut found = Vec::new();
    let mut missed = Vec::new();
    for (t, &r) in q.targets.iter().zip(ranks) {
        if r <= depth {
            found.push((t.clone(), r));
        } else {
            missed.push(t.clone());
        }
    }
    QuestionResult {
        id: q.id.clone(),
        text: q.text.clone(),
        expected: q.targets.clone(),
        found,
        missed,
        first_rank,
        hits: hits.coords.len(),
        latency_ms: hits.latency_ms,
    }
}
