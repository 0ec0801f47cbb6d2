//! Index build and query latency on the GitHub corpus (6,640 fields).
//! Run: `cargo bench -p gqlnav-search` (release profile).

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_search::{
    Analyzer, Bm25Backend, Bm25Config, Query, SearchBackend, SearchContext, StructureBackend,
    StructureWeights,
};

fn ctx() -> SearchContext {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../benchmarks/wg/schemas/github/schema.graphql");
    let g = Arc::new(gqlnav_schema::load_file(&p).expect("github schema"));
    let c = Arc::new(Corpus::build(&g, CorpusOptions::default()));
    let r = Arc::new(c.render(Rendering::DotPlusGloss, &TokenMeter::default()));
    SearchContext::new(g, c, r)
}

const QUESTIONS: [&str; 4] = [
    "Show me the commit history for the main branch of a repository",
    "List merged pull requests with each author's login and merge timestamp",
    "open issues labels",
    "Which members of the organization have two-factor authentication enabled?",
];

fn bench(c: &mut Criterion) {
    let ctx = ctx();
    c.bench_function("load github SDL + build corpus", |b| {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../benchmarks/wg/schemas/github/schema.graphql");
        b.iter(|| {
            let g = gqlnav_schema::load_file(&p).expect("github");
            Corpus::build(&g, CorpusOptions::default()).len()
        })
    });
    let mut g = c.benchmark_group("index");
    g.sample_size(10);
    g.bench_function("bm25 identifier", |b| {
        b.iter(|| {
            let mut be = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
            be.index(&ctx).expect("index");
        })
    });
    g.bench_function("structure", |b| {
        b.iter(|| {
            let mut be = StructureBackend::new(StructureWeights::default());
            be.index(&ctx).expect("index");
        })
    });
    g.finish();
    let mut bm = Bm25Backend::new(Bm25Config::new(Analyzer::Standard));
    bm.index(&ctx).expect("index");
    let mut bi = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
    bi.index(&ctx).expect("index");
    let mut st = StructureBackend::new(StructureWeights::default());
    st.index(&ctx).expect("index");
    let mut i = 0;
    for (name, be) in [
        ("query bm25 standard", &bm as &dyn SearchBackend),
        ("query bm25 identifier", &bi),
        ("query structure", &st),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % QUESTIONS.len();
                be.search(&Query::new(QUESTIONS[i]), 100)
                    .expect("search")
                    .len()
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
