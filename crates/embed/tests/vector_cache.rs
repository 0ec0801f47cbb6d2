//! VectorBackend (with a deterministic keyword embedder) and the on-disk vector cache.

mod common;

use std::fs;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use common::KeywordEmbedder;
use gqlnav_embed::cache::{cache_key, Matrix, VectorCache, MAGIC};
use gqlnav_embed::{CacheOptions, EmbedError, VectorBackend};
use gqlnav_search::{Query, SearchBackend, SearchError};

const VOCAB: &[&str] = &["issue", "title", "repository", "owner", "pull", "request"];

fn docs() -> Vec<String> {
    [
        "Issue.title -> String — the issue title",
        "Repository.owner -> User — the repository owner",
        "PullRequest.title -> String — the pull request title",
        "Repository.name -> String",
        "Issue.title -> String — the issue title (copy)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn cache_in(dir: &std::path::Path) -> CacheOptions {
    CacheOptions {
        dir: Some(dir.to_path_buf()),
        no_cache: false,
    }
}

#[test]
fn cosine_ranking_ties_by_corpus_order_and_name() {
    let mut b = VectorBackend::new(
        Box::new(KeywordEmbedder::new(VOCAB)),
        CacheOptions {
            dir: None,
            no_cache: true,
        },
    );
    assert_eq!(b.name(), "vector(keywords)");
    assert!(matches!(
        b.search(&Query::new("x"), 3),
        Err(SearchError::NotIndexed)
    ));
    b.index_texts(&docs(), &|_, _| {}).unwrap();
    let hits = b.search(&Query::new("issue title"), 3).unwrap();
    // docs 0 and 4 are identical: tie broken by corpus order.
    assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>()[..2], [0, 4]);
    assert!((hits[0].score - hits[1].score).abs() < 1e-7);
    assert!(hits[0].score <= 1.0 + 1e-6);
    assert_eq!(hits[0].explain[0].0, "cosine");
    assert!(b.search(&Query::new("   "), 3).unwrap().is_empty());
}

#[test]
fn sub_queries_score_the_max_cosine() {
    let emb = KeywordEmbedder::new(VOCAB);
    let calls = emb.query_calls.clone();
    let mut b = VectorBackend::new(
        Box::new(emb),
        CacheOptions {
            dir: None,
            no_cache: true,
        },
    );
    b.index_texts(&docs(), &|_, _| {}).unwrap();
    let q = Query {
        text: "repository owner".into(),
        sub_queries: vec!["pull request".into(), "".into()],
        ..Query::default()
    };
    let hits = b.search(&q, 5).unwrap();
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "text + one non-empty sub-query"
    );
    let by_doc = |d: usize| hits.iter().find(|h| h.doc == d).map(|h| h.score).unwrap();
    // doc 1 matches the main text best, doc 2 the sub-query; both get their best cosine.
    let only_main = b.scores(&Query::new("repository owner")).unwrap().unwrap();
    let only_sub = b.scores(&Query::new("pull request")).unwrap().unwrap();
    for d in 0..5 {
        let want = only_main[d].max(only_sub[d]);
        if let Some(h) = hits.iter().find(|h| h.doc == d) {
            assert!((h.score - want).abs() < 1e-6);
        }
    }
    assert!(by_doc(1) > 0.99 && by_doc(2) > 0.5, "{hits:?}");
}

#[test]
fn second_index_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let emb = KeywordEmbedder::new(VOCAB);
    let calls = emb.doc_calls.clone();
    let progress = Arc::new(Mutex::new(Vec::new()));
    let p2 = progress.clone();
    let mut b = VectorBackend::new(Box::new(emb), cache_in(dir.path()))
        .with_progress(Box::new(move |d, t| p2.lock().unwrap().push((d, t))));
    b.index_texts(&docs(), &|d, t| progress.lock().unwrap().push((d, t)))
        .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 5);
    assert_eq!(
        *progress.lock().unwrap(),
        vec![(0, 5), (2, 5), (4, 5), (5, 5)]
    );
    assert!(!b.report().cache_hit);
    let path = b.report().cache_path.clone().unwrap();
    assert!(path.is_file());
    // Only the final file remains: no temp files.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

    let emb2 = KeywordEmbedder::new(VOCAB);
    let calls2 = emb2.doc_calls.clone();
    let mut b2 = VectorBackend::new(Box::new(emb2), cache_in(dir.path()));
    b2.index_texts(&docs(), &|_, _| {}).unwrap();
    assert!(b2.report().cache_hit);
    assert_eq!(calls2.load(Ordering::SeqCst), 0, "nothing embedded");
    assert_eq!(
        b2.search(&Query::new("issue title"), 5).unwrap(),
        b.search(&Query::new("issue title"), 5).unwrap()
    );

    // A different text or a different embedder id is a different file.
    let mut other = docs();
    other[3].push('!');
    let mut b3 = VectorBackend::new(Box::new(KeywordEmbedder::new(VOCAB)), cache_in(dir.path()));
    b3.index_texts(&other, &|_, _| {}).unwrap();
    assert!(!b3.report().cache_hit);
    let mut e4 = KeywordEmbedder::new(VOCAB);
    e4.tag = "other-prompts".into();
    let mut b4 = VectorBackend::new(Box::new(e4), cache_in(dir.path()));
    b4.index_texts(&docs(), &|_, _| {}).unwrap();
    assert!(!b4.report().cache_hit);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn via_search_backend_index_uses_the_stored_progress() {
    // (SearchBackend::index is exercised in the MiniLM test with a real context; here the
    // no_cache option is checked to write nothing.)
    let dir = tempfile::tempdir().unwrap();
    let mut b = VectorBackend::new(
        Box::new(KeywordEmbedder::new(VOCAB)),
        CacheOptions {
            dir: Some(dir.path().to_path_buf()),
            no_cache: true,
        },
    );
    b.index_texts(&docs(), &|_, _| {}).unwrap();
    assert!(b.report().cache_path.is_none());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn cache_file_round_trip_and_rejections() {
    let dir = tempfile::tempdir().unwrap();
    let texts = docs();
    let c = VectorCache::new(dir.path(), "model-a", &texts);
    assert_eq!(c.path().parent().unwrap(), dir.path());
    assert!(c.load(5, Some(2)).unwrap().is_none(), "no file is a miss");
    let m = Matrix {
        dims: 2,
        data: (0..10).map(|i| i as f32 * 0.5).collect(),
    };
    c.store(&m).unwrap();
    assert_eq!(c.load(5, Some(2)).unwrap().unwrap(), m);
    assert_eq!(c.load(5, None).unwrap().unwrap(), m);

    // Header layout: magic, version, dims, count, key.
    let bytes = fs::read(c.path()).unwrap();
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 2);
    assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), 5);
    assert_eq!(&bytes[24..56], &cache_key("model-a", &texts));
    assert_eq!(bytes.len(), 56 + 10 * 4);
    assert_eq!(
        f32::from_le_bytes(bytes[56 + 4..56 + 8].try_into().unwrap()),
        0.5
    );

    // Wrong count / dims.
    let e = c.load(6, Some(2)).unwrap_err();
    assert!(
        matches!(e, EmbedError::Cache { .. }) && e.to_string().contains("holds 5 vectors"),
        "{e}"
    );
    let e = c.load(5, Some(3)).unwrap_err();
    assert!(
        matches!(
            e,
            EmbedError::DimsMismatch {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{e:?}"
    );
    // A damaged file is refused, saying what is wrong with it.
    let with = |at: usize, b: u8| {
        let mut v = bytes.clone();
        v[at] = b;
        v
    };
    for (what, file, want) in [
        ("wrong magic", with(0, b'X'), "magic"),
        (
            "truncated (half-written)",
            bytes[..bytes.len() - 3].to_vec(),
            "bytes, expected",
        ),
        ("cut inside the header", bytes[..20].to_vec(), "header"),
        ("wrong version", with(8, 2), "version 2"),
    ] {
        fs::write(c.path(), &file).unwrap();
        let e = c.load(5, Some(2)).unwrap_err().to_string();
        assert!(e.contains(want), "{what}: {e}");
    }
    // A file copied under another key's name.
    let other = VectorCache::new(dir.path(), "model-b", &texts);
    fs::write(other.path(), &bytes).unwrap();
    let e = other.load(5, Some(2)).unwrap_err().to_string();
    assert!(e.contains("key"), "{e}");
}

#[test]
fn backend_treats_a_corrupt_cache_file_as_a_miss_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = VectorBackend::new(Box::new(KeywordEmbedder::new(VOCAB)), cache_in(dir.path()));
    b.index_texts(&docs(), &|_, _| {}).unwrap();
    let path = b.report().cache_path.clone().unwrap();
    let good = fs::read(&path).unwrap();
    // Corrupt the dims field: the file now claims 7 dims for a 6-dim embedder.
    let mut bad = good.clone();
    bad[12] = 7;
    fs::write(&path, &bad).unwrap();
    let emb = KeywordEmbedder::new(VOCAB);
    let calls = emb.doc_calls.clone();
    let mut b2 = VectorBackend::new(Box::new(emb), cache_in(dir.path()));
    b2.index_texts(&docs(), &|_, _| {}).unwrap();
    let r = b2.report();
    assert!(!r.cache_hit);
    assert_eq!(calls.load(Ordering::SeqCst), 5, "re-embedded");
    let w = r.warning.clone().expect("a warning");
    assert!(
        w.contains("dimension mismatch") && w.contains("expected 6, found 7"),
        "{w}"
    );
    assert_eq!(fs::read(&path).unwrap(), good, "rewritten correctly");
}

#[test]
fn mismatched_embedder_output_is_an_error() {
    struct Ragged;
    impl gqlnav_embed::Embedder for Ragged {
        fn name(&self) -> String {
            "ragged".into()
        }
        fn id(&self) -> String {
            "ragged".into()
        }
        fn dims(&self) -> Option<usize> {
            None
        }
        fn prompts(&self) -> gqlnav_embed::Prompts {
            gqlnav_embed::Prompts::none()
        }
        fn embed_documents_with_progress(
            &self,
            texts: &[String],
            _: gqlnav_embed::Progress<'_>,
        ) -> gqlnav_embed::Result<Vec<Vec<f32>>> {
            Ok(texts
                .iter()
                .enumerate()
                .map(|(i, _)| vec![1.0; 2 + i % 2])
                .collect())
        }
        fn embed_query(&self, _: &str) -> gqlnav_embed::Result<Vec<f32>> {
            Ok(vec![1.0; 5])
        }
    }
    let mut b = VectorBackend::new(
        Box::new(Ragged),
        CacheOptions {
            dir: None,
            no_cache: true,
        },
    );
    let e = b.index_texts(&docs(), &|_, _| {}).unwrap_err();
    assert!(
        matches!(
            e,
            EmbedError::DimsMismatch {
                expected: 2,
                found: 3,
                ..
            }
        ),
        "{e:?}"
    );
}
