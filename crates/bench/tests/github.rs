//! Integration over the real GitHub schema and the real github-wg.tsv (both bundled in
//! benchmarks/wg).

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use gqlnav_bench::dataset::{self, TargetMode, Variant, WgOptions};
use gqlnav_bench::metrics::{run_retrieval, RunOptions};
use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_search::{Query, Scored, SearchBackend, SearchContext, SearchError};

/// Returns each question's targets first (in order), then corpus order: an upper bound
/// whose metrics are known in closed form.
struct Oracle {
    by_text: HashMap<String, Vec<usize>>,
    n: usize,
}

impl SearchBackend for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn index(&mut self, ctx: &SearchContext) -> Result<(), SearchError> {
        self.n = ctx.corpus.len();
        Ok(())
    }
    fn search(&self, q: &Query, k: usize) -> Result<Vec<Scored>, SearchError> {
        let mut docs = self.by_text.get(&q.text).cloned().unwrap_or_default();
        for d in 0..self.n {
            if docs.len() >= k {
                break;
            }
            if !docs.contains(&d) {
                docs.push(d);
            }
        }
        docs.truncate(k);
        Ok(docs
            .into_iter()
            .enumerate()
            .map(|(i, doc)| Scored::new(doc, -(i as f32)))
            .collect())
    }
}

#[test]
fn github_schema_with_github_wg_tsv() {
    let d = common::wg_dir();
    let g = gqlnav_schema::load_file(&d.join("schemas/github/schema.graphql")).unwrap();
    let ds = dataset::load_tsv(&d.join("github-wg.tsv"), true).unwrap();

    // Every target exists in the GitHub schema.
    let problems = dataset::validate_targets(&ds, &g);
    assert!(
        problems.is_empty(),
        "{:#?}",
        &problems[..problems.len().min(5)]
    );

    let corpus = Corpus::build(&g, CorpusOptions::default());
    assert_eq!(corpus.len(), 6640);
    let rendered = corpus.render(Rendering::DotPlusGloss, &TokenMeter::default());
    // Every target is a field-corpus entry (11 of them interface fields).
    let mut by_text = HashMap::new();
    for q in &ds.questions {
        let pos: Vec<usize> = q
            .targets
            .iter()
            .map(|t| corpus.position(t).expect(t))
            .collect();
        by_text.insert(q.text.clone(), pos);
    }
    let ctx = SearchContext::new(Arc::new(g), Arc::new(corpus), Arc::new(rendered));
    let mut oracle = Oracle { by_text, n: 0 };
    oracle.index(&ctx).unwrap();
    let r = run_retrieval(&oracle, &ctx, &ds, &RunOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(r.questions, 200);
    assert_eq!(r.targets_total, 1038);
    assert_eq!(r.encoding, "o200k_base");
    assert_eq!(r.rendering, Rendering::DotPlusGloss.name());
    assert_eq!(r.mrr, 1.0);
    assert_eq!(r.recall[&100], 1.0);
    assert_eq!(r.recall[&50], 1.0);
    // recall@1 = mean of 1/|targets|.
    let want: f64 = ds
        .questions
        .iter()
        .map(|q| 1.0 / q.targets.len() as f64)
        .sum::<f64>()
        / 200.0;
    assert!((r.recall[&1] - want).abs() < 1e-12);
    assert!(r.rank_p95 <= 20.0);
    assert!(r.tokens_at[&10] > 0.0 && r.tokens_at[&50] > r.tokens_at[&10]);
    let b = r.budget[&2000];
    assert!(b.avg_tokens <= 2000.0 && b.avg_hits > 0.0);
    assert!(r.budget[&125].recall <= r.budget[&2000].recall);
}

#[test]
fn github_targets_against_the_wrong_schema_are_reported() {
    let d = common::wg_dir();
    let sg = gqlnav_schema::load_file(&d.join("schemas/singapore/schema.graphql")).unwrap();
    let opts = WgOptions {
        schema_id: Some("github".into()),
        variant: Variant::NaturalLanguage,
        mode: TargetMode::Must,
        strict: true,
    };
    let ds = dataset::load_wg_dir(&d.join("queries"), &opts).unwrap();
    let problems = dataset::validate_targets(&ds, &sg);
    // Query.* roots may exist in both; nearly everything else is missing.
    assert!(problems.len() > 400, "{}", problems.len());
    let p = &problems[0];
    assert!(p.file.ends_with(".yaml"), "{}", p.file);
    assert!(p.line > 0);
    assert!(p.message.contains("is not in schema"), "{}", p.message);
    assert!(problems.iter().any(|p| p.message.contains("did you mean")));

    // The right schema: nothing.
    let gh = gqlnav_schema::load_file(&d.join("schemas/github/schema.graphql")).unwrap();
    assert!(dataset::validate_targets(&ds, &gh).is_empty());
}
