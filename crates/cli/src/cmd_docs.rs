//! `gqlnav docs index | search | bench`: documentation search next to the schema.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use gqlnav_docs::{BuildOptions, DocsIndex, DocsSearcher, FetchPolicy, Mode, Source};
use gqlnav_embed::Embedder;
use serde_json::json;

use crate::backends::EmbedArgs;
use crate::common::{print_json, progress};

/// `gqlnav docs …`.
#[derive(Args, Debug)]
pub struct DocsArgs {
    #[command(subcommand)]
    pub cmd: DocsCmd,
}

#[derive(Subcommand, Debug)]
pub enum DocsCmd {
    /// Read a documentation site (sitemap.xml URL, site root, or local directory of
    /// HTML/Markdown) into sections, chunks, BM25 and (with --model) vectors.
    #[command(
        after_help = "Examples:\n  gqlnav docs index /usr/share/doc/python3.11/html/library --out py-index --model $GQLNAV_MODEL_DIR\n  gqlnav docs index https://docs.example.com/sitemap.xml --out idx --max-pages 500 --json\n  gqlnav docs index https://docs.example.com --out idx      (its /sitemap.xml; reindexing reuses unchanged pages)\n  gqlnav docs index https://docs.example.com --out idx --model DIR --store qdrant --qdrant-url http://127.0.0.1:6333\n      (also syncs a Qdrant collection for a fleet; QDRANT_API_KEY if the server needs one)"
    )]
    Index(IndexArgs),
    /// Search a docs index: ranked sections with link, heading path, snippet and tokens.
    #[command(
        after_help = "Examples:\n  gqlnav docs search \"write a dict as pretty JSON\" --index py-index\n  gqlnav docs search \"rate limits\" --index idx --mode hybrid --model DIR --budget 1500 --json\n  gqlnav docs search \"rate limits\" --store qdrant --qdrant-url http://127.0.0.1:6333 --qdrant-collection NAME --model DIR"
    )]
    Search(SearchArgs),
    /// Grade a docs index on labelled questions (YAML: questions[].{id, question, expect}):
    /// recall@1/5/10 and MRR per mode.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct IndexArgs {
    /// A sitemap.xml URL, a site root (its /sitemap.xml is read), or a local directory.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// The index directory (created; a reindex replaces it atomically).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The embedding model for vectors; without one the index is BM25 only.
    #[command(flatten)]
    pub model: EmbedArgs,
    /// Most pages (the rest of a sitemap is reported, not fetched).
    #[arg(long, default_value_t = 5000)]
    pub max_pages: usize,
    /// Largest page body, bytes.
    #[arg(long, default_value_t = 5 * 1024 * 1024, value_name = "BYTES")]
    pub max_page_bytes: u64,
    /// Whole-request timeout per page, seconds.
    #[arg(long, default_value_t = 20, value_name = "SECONDS")]
    pub timeout: u64,
    /// Pages fetched at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Politeness delay between one worker's requests, milliseconds.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    pub delay_ms: u64,
    /// Another host pages may come from (repeatable); by default only the sitemap's.
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Chunk size, o200k_base tokens.
    #[arg(long, default_value_t = gqlnav_docs::CHUNK_TOKENS, value_name = "TOKENS")]
    pub chunk_tokens: usize,
    /// Overlap between a section's consecutive chunks, tokens.
    #[arg(long, default_value_t = gqlnav_docs::CHUNK_OVERLAP, value_name = "TOKENS")]
    pub overlap: usize,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Print the build's stats as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Where the vectors live.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// `embedded` (the index directory; no server) or `qdrant` (also sync the chunks and
    /// vectors to a Qdrant collection that a fleet of servers shares; needs --model).
    #[arg(long, default_value = "embedded", value_parser = ["embedded", "qdrant"])]
    pub store: String,
    /// Qdrant's REST URL, e.g. http://127.0.0.1:6333. The API key, if the server needs
    /// one, comes from QDRANT_API_KEY (never a flag: flags show in process lists).
    #[arg(long, value_name = "URL", env = "QDRANT_URL")]
    pub qdrant_url: Option<String>,
    /// The collection. Default: one per source, gqlnav_docs_<hash of the source>.
    #[arg(long, value_name = "NAME")]
    pub qdrant_collection: Option<String>,
}

impl StoreArgs {
    /// The Qdrant store, when `--store qdrant`; `source` names the default collection.
    fn qdrant(&self, source: Option<&str>) -> Result<Option<gqlnav_docs::QdrantStore>> {
        if self.store != "qdrant" {
            return Ok(None);
        }
        let Some(url) = &self.qdrant_url else {
            bail!(
                "--store qdrant needs --qdrant-url URL (or QDRANT_URL), e.g. http://127.0.0.1:6333"
            );
        };
        let collection = match (&self.qdrant_collection, source) {
            (Some(c), _) => c.clone(),
            (None, Some(s)) => gqlnav_docs::collection_for(s),
            (None, None) => bail!(
                "name the collection with --qdrant-collection (`gqlnav docs index` prints it), or pass --index DIR"
            ),
        };
        let key = std::env::var("QDRANT_API_KEY")
            .ok()
            .filter(|k| !k.is_empty());
        Ok(Some(gqlnav_docs::QdrantStore::new(
            url,
            collection,
            key,
            Duration::from_secs(30),
        )?))
    }
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The question.
    pub query: String,
    /// The index directory (`gqlnav docs index … --out DIR`). With --store qdrant it is
    /// optional: the collection alone answers vector search.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// bm25, vector or hybrid (reciprocal-rank fusion). Default: hybrid when the index has
    /// vectors and --model is given, else bm25.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// The embedding model the index was built with (vector and hybrid modes).
    #[command(flatten)]
    pub model: EmbedArgs,
    /// Most sections.
    #[arg(long, default_value_t = 5)]
    pub limit: usize,
    /// Stop before the section that would take the answer over this many tokens.
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Labelled questions (benchmarks/docs/python-questions.yaml).
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,
    /// Modes to grade (comma-separated).
    #[arg(long, default_value = "bm25,vector,hybrid")]
    pub modes: String,
    #[command(flatten)]
    pub model: EmbedArgs,
    #[arg(long)]
    pub json: bool,
}

/// The embedder `a` names, if any.
pub fn load_model(a: &EmbedArgs) -> Result<Option<Box<dyn Embedder>>> {
    let prompts = gqlnav_embed::PromptOverride::default();
    if let Some(kind) = &a.embed_server {
        return crate::backends::server_embedder(
            kind,
            a.embed_url.clone(),
            a.embed_model.clone(),
            &a.embed_api_key_env,
            &prompts,
        )
        .map(Some);
    }
    match &a.model {
        None => Ok(None),
        Some(d) => Ok(Some(Box::new(
            gqlnav_embed::LocalModel::load(d, prompts)
                .with_context(|| format!("loading the embedding model from {}", d.display()))?,
        ))),
    }
}

pub fn run(a: DocsArgs) -> Result<()> {
    match a.cmd {
        DocsCmd::Index(a) => index(a),
        DocsCmd::Search(a) => search(a),
        DocsCmd::Bench(a) => bench(a),
    }
}

fn index(a: IndexArgs) -> Result<()> {
    let source = Source::parse(&a.source)?;
    let opts = BuildOptions {
        policy: FetchPolicy {
            max_pages: a.max_pages.max(1),
            max_page_bytes: a.max_page_bytes,
            timeout: Duration::from_secs(a.timeout.max(1)),
            concurrency: a.concurrency.clamp(1, 16),
            delay: Duration::from_millis(a.delay_ms),
            allow_hosts: a.allow_host.clone(),
            ..FetchPolicy::default()
        },
        chunk_tokens: a.chunk_tokens,
        chunk_overlap: a.overlap,
    };
    let model = load_model(&a.model)?;
    let qdrant = a.store.qdrant(Some(&source.describe()))?;
    if qdrant.is_some() && model.is_none() {
        bail!("--store qdrant holds vectors: pass --model DIR (or set GQLNAV_MODEL_DIR)");
    }
    // A reindex of the same source starts from the last good index.
    let previous = DocsIndex::load(&a.out)
        .ok()
        .filter(|p| p.manifest.source == source.describe());
    let bar = progress(0, "pages");
    let phase = std::sync::Mutex::new(String::new());
    let (idx, stats) = gqlnav_docs::build_index(
        &source,
        &opts,
        previous.as_ref(),
        model.as_deref(),
        &|what, done, total| {
            if let Ok(mut p) = phase.lock() {
                if *p != what {
                    *p = what.to_string();
                    bar.set_message(what.to_string());
                    bar.set_position(0);
                }
            }
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    )?;
    bar.finish_and_clear();
    if idx.chunks.is_empty() {
        bail!(
            "no sections found in {} ({} pages skipped); nothing was written, the last index (if any) is kept",
            source.describe(),
            stats.skipped.len()
        );
    }
    let gen = idx.save(&a.out)?;
    let synced = match &qdrant {
        Some(q) => {
            let st = q.sync(&idx)?;
            eprintln!(
                "qdrant collection {}: {} upserted, {} unchanged, {} deleted",
                st.collection, st.upserted, st.unchanged, st.deleted
            );
            Some(st)
        }
        None => None,
    };
    if a.json {
        return print_json(&json!({
            "source": source.describe(), "out": a.out, "generation": gen, "stats": stats,
            "qdrant": synced,
            "vectors": idx.vectors.is_some(),
            "pagesPerSecond": stats.pages as f64 / stats.seconds.max(1e-9),
            "chunksPerSecond": stats.chunks as f64 / stats.seconds.max(1e-9),
        }));
    }
    eprintln!(
        "indexed {}: {} pages ({} unchanged), {} sections, {} chunks, {} tokens (o200k_base) in {:.1} s{}",
        source.describe(),
        stats.pages,
        stats.reused,
        stats.sections,
        stats.chunks,
        stats.tokens,
        stats.seconds,
        if idx.vectors.is_some() {
            format!(" ({:.1} s embedding)", stats.embed_seconds)
        } else {
            ", BM25 only (no --model)".into()
        }
    );
    if stats.over_cap > 0 {
        eprintln!(
            "{} more listed URLs were not fetched (--max-pages {})",
            stats.over_cap, a.max_pages
        );
    }
    for (u, why) in stats.skipped.iter().take(20) {
        eprintln!("skipped {u}: {why}");
    }
    if stats.skipped.len() > 20 {
        eprintln!("… and {} more skipped", stats.skipped.len() - 20);
    }
    println!("{}", a.out.display());
    Ok(())
}

fn pick_mode(m: &Option<String>, idx: &DocsIndex, model: bool) -> Result<Mode> {
    match m {
        Some(s) => Mode::parse(s).ok_or_else(|| {
            anyhow::anyhow!("unknown --mode `{s}`; expected bm25, vector or hybrid")
        }),
        None if idx.vectors.is_some() && model => Ok(Mode::Hybrid),
        None => Ok(Mode::Bm25),
    }
}

fn search(a: SearchArgs) -> Result<()> {
    let model = load_model(&a.model)?;
    let local = a.index.as_deref().map(DocsIndex::load).transpose()?;
    let r = match a
        .store
        .qdrant(local.as_ref().map(|i| i.manifest.source.as_str()))?
    {
        Some(q) => {
            let Some(m) = model.as_deref() else {
                bail!("--store qdrant searches vectors: pass --model DIR (the model the index was built with)");
            };
            if a.mode.as_deref().is_some_and(|m| m != "vector") {
                bail!("--store qdrant answers --mode vector only (BM25 and hybrid read the local --index without --store)");
            }
            q.search(&a.query, m, a.limit, a.budget)?
        }
        None => {
            let Some(idx) = local else {
                bail!(
                    "pass --index DIR (made by `gqlnav docs index … --out DIR`), or --store qdrant"
                );
            };
            let mode = pick_mode(&a.mode, &idx, model.is_some())?;
            DocsSearcher::new(idx)?.search(&a.query, mode, a.limit, a.budget, model.as_deref())?
        }
    };
    if a.json {
        return print_json(&json!({"query": a.query, "results": r}));
    }
    for h in &r.hits {
        println!(
            "{:>2}. {}  [{} tok, {:.2}]\n    {}\n    {}\n",
            h.rank,
            h.url,
            h.tokens,
            h.score,
            h.heading_path.join(" › "),
            h.snippet.replace('\n', " ")
        );
    }
    println!(
        "{} sections, {} tokens ({:?}){}",
        r.hits.len(),
        r.tokens,
        r.mode,
        if r.more { "; more match" } else { "" }
    );
    Ok(())
}

#[derive(serde::Deserialize)]
struct QFile {
    questions: Vec<Q>,
}

#[derive(serde::Deserialize)]
struct Q {
    id: String,
    question: String,
    expect: Vec<String>,
}

fn bench(a: BenchArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.questions)
        .with_context(|| format!("reading {}", a.questions.display()))?;
    let qs: QFile = serde_saphyr::from_str(&text).with_context(|| {
        format!(
            "{}: expected questions: [{{id, question, expect}}]",
            a.questions.display()
        )
    })?;
    let idx = DocsIndex::load(&a.index)?;
    let model = load_model(&a.model)?;
    let s = DocsSearcher::new(idx)?;
    let mut rows = Vec::new();
    for m in a.modes.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        let mode = Mode::parse(m).ok_or_else(|| anyhow::anyhow!("unknown mode `{m}`"))?;
        if mode != Mode::Bm25 && (model.is_none() || s.index.vectors.is_none()) {
            eprintln!("skipped {m}: needs an index built with --model and the same --model here");
            continue;
        }
        let (mut r1, mut r5, mut r10, mut mrr) = (0.0, 0.0, 0.0, 0.0);
        let t0 = std::time::Instant::now();
        for q in &qs.questions {
            let r = s.search(&q.question, mode, 10, None, model.as_deref())?;
            // A hit's URL matches an expected `page#anchor` when it ends with it (a
            // crawled index holds absolute URLs, the labels relative ones).
            let rank = r
                .hits
                .iter()
                .position(|h| q.expect.iter().any(|e| h.url.ends_with(e.as_str())))
                .map(|p| p + 1);
            if let Some(k) = rank {
                r1 += (k <= 1) as u8 as f64;
                r5 += (k <= 5) as u8 as f64;
                r10 += 1.0;
                mrr += 1.0 / k as f64;
            }
            let _ = &q.id;
        }
        let n = qs.questions.len().max(1) as f64;
        rows.push(json!({
            "mode": m, "questions": qs.questions.len(),
            "recall@1": r1 / n, "recall@5": r5 / n, "recall@10": r10 / n, "mrr@10": mrr / n,
            "msPerQuery": t0.elapsed().as_secs_f64() * 1000.0 / n,
        }));
    }
    if a.json {
        return print_json(&json!({"index": a.index, "rows": rows}));
    }
    println!("| mode | questions | recall@1 | recall@5 | recall@10 | MRR@10 | ms / query |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in &rows {
        let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
        println!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} |",
            r["mode"].as_str().unwrap_or(""),
            r["questions"],
            f("recall@1"),
            f("recall@5"),
            f("recall@10"),
            f("mrr@10"),
            f("msPerQuery")
        );
    }
    Ok(())
}
