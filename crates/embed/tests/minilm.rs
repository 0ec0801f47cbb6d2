//! all-MiniLM-L6-v2 (real weights from `$GQLNAV_MINILM_DIR`): numerical agreement with
//! sentence-transformers, truncation, padding, and vector search over a real schema.
//! These tests fail (never skip) when the model is not installed; see `minilm_dir`.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_embed::{
    CacheOptions, Embedder, LocalModel, Pooling, PromptOverride, PromptSource, VectorBackend,
};
use gqlnav_search::{Query, SearchBackend, SearchContext};

#[derive(serde::Deserialize)]
struct Reference {
    max_seq_length: usize,
    token_lengths: Vec<usize>,
    texts: Vec<String>,
    embeddings: Vec<Vec<f32>>,
}

fn model() -> LocalModel {
    LocalModel::load(&minilm_dir(), PromptOverride::none()).expect("load all-MiniLM-L6-v2")
}

#[test]
fn matches_sentence_transformers_reference() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/minilm_reference.json"
    );
    let r: Reference = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let m = model();
    assert_eq!(m.name(), "all-MiniLM-L6-v2");
    assert_eq!(m.dims(), Some(384));
    assert_eq!(m.pooling(), Pooling::Mean);
    assert!(m.normalizes());
    assert_eq!(m.max_seq_length(), r.max_seq_length);
    for (t, &n) in r.texts.iter().zip(&r.token_lengths) {
        assert_eq!(m.token_ids(t).unwrap().len(), n, "token count of {t:?}");
    }
    let got = m.embed_documents(&r.texts).unwrap();
    for (i, (g, want)) in got.iter().zip(&r.embeddings).enumerate() {
        let c = cos(g, want);
        assert!(c >= 0.9999, "text {i} ({:?}): cosine {c}", r.texts[i]);
    }
    // One at a time (no padding) agrees too.
    for (t, want) in r.texts.iter().zip(&r.embeddings) {
        let g = m.embed_query(t).unwrap();
        assert!(cos(&g, want) >= 0.9999);
    }
}

#[test]
fn no_prompts_and_stable_id() {
    let m = model();
    let p = m.prompts();
    assert!(p.is_bare());
    assert_eq!(p.source, PromptSource::None);
    assert_eq!(
        p.describe(),
        "no prompts: queries and documents are embedded bare"
    );
    assert_eq!(m.id(), model().id(), "id is stable across loads");
    let over = LocalModel::load(
        &minilm_dir(),
        PromptOverride {
            query: Some("query: ".into()),
            document: None,
        },
    )
    .unwrap();
    assert_ne!(over.id(), m.id());
    let a = m.embed_query("issue title").unwrap();
    let b = over.embed_query("issue title").unwrap();
    assert!(cos(&a, &b) < 0.999, "override changes the query vector");
}

#[test]
fn progress_reports_batches_and_order_is_restored() {
    let m = model().with_batch_size(4);
    let texts: Vec<String> = (0..10)
        .map(|i| format!("{} field{i}", "word ".repeat(10 - i)))
        .collect();
    let seen = std::sync::Mutex::new(Vec::new());
    let all = m
        .embed_documents_with_progress(&texts, &|d, t| seen.lock().unwrap().push((d, t)))
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(0, 10), (4, 10), (8, 10), (10, 10)]
    );
    for (i, t) in texts.iter().enumerate() {
        let one = m.embed_query(t).unwrap();
        assert!(cos(&one, &all[i]) > 0.99999, "row {i} is its own text");
    }
}

fn linear_ctx(limit: usize) -> SearchContext {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benchmarks/wg/schemas/linear/schema.graphql");
    let graph = gqlnav_schema::load_file(&path).expect("load linear schema");
    let mut corpus = Corpus::build(&graph, CorpusOptions::default());
    // Keep a small, deterministic subset (with the entries the query needs).
    let mut keep: Vec<_> = corpus
        .entries
        .iter()
        .filter(|e| e.coordinate.starts_with("Issue.") || e.coordinate.starts_with("Team."))
        .cloned()
        .collect();
    keep.truncate(limit);
    corpus = Corpus::from_entries(keep);
    let rendered = corpus.render(Rendering::CoordReturnDesc, &TokenMeter::default());
    SearchContext::new(Arc::new(graph), Arc::new(corpus), Arc::new(rendered))
}

#[test]
fn vector_backend_over_real_schema_with_cache() {
    let ctx = linear_ctx(120);
    let cache = tempfile::tempdir().unwrap();
    let opts = CacheOptions {
        dir: Some(cache.path().to_path_buf()),
        no_cache: false,
    };
    let mut b = VectorBackend::new(Box::new(model()), opts.clone());
    assert_eq!(b.name(), "vector(all-MiniLM-L6-v2)");
    b.index(&ctx).unwrap();
    assert!(!b.report().cache_hit);
    let hits = b.search(&Query::new("the title of an issue"), 5).unwrap();
    let top = &ctx.corpus.entries[hits[0].doc].coordinate;
    assert_eq!(
        top,
        "Issue.title",
        "hits: {:?}",
        hits.iter()
            .map(|h| &ctx.corpus.entries[h.doc].coordinate)
            .collect::<Vec<_>>()
    );
    // Second run: from the cache, identical results.
    let mut b2 = VectorBackend::new(Box::new(model()), opts);
    b2.index(&ctx).unwrap();
    assert!(b2.report().cache_hit);
    assert_eq!(b2.report().embedded, 0);
    assert_eq!(
        b2.search(&Query::new("the title of an issue"), 5).unwrap(),
        hits
    );
}
