//! `gqlnav index`: build a ranker's index once and save it, so `gqlnav serve --index-dir`
//! starts without indexing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use gqlnav_corpus::TokenMeter;
use gqlnav_schema::SchemaGraph;
use gqlnav_search::saved;
use gqlnav_tools::Indexed;

use serde_json::json;

use crate::backends::BackendArgs;
use crate::common::{print_json, SchemaArgs};

/// Flags of `gqlnav index`.
#[derive(Args, Debug, Clone)]
pub struct IndexArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Directory to write the index to (new, empty, or an earlier gqlnav index, which is
    /// replaced atomically). With --graphs: the folder that gets one index per graph,
    /// DIR/NAME (serve them with `index_root = "DIR"` in the graphs file).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Index every graph of a graphs file (`gqlnav serve --graphs`), each into DIR/NAME.
    /// A graph that fails is reported and the others are indexed; the exit status says
    /// whether all were.
    #[arg(long, value_name = "FILE")]
    pub graphs: Option<PathBuf>,
    /// The ranker to index (the same flags as `gqlnav serve`).
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Print one JSON object: directory, backend, entries, bytes, milliseconds.
    #[arg(long)]
    pub json: bool,
}

fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}

/// One saved index: what was written.
struct Built {
    backend: String,
    entries: usize,
    bytes: u64,
    ms: u64,
}

/// Index `graph` with the ranker the flags name and save it to `out`.
fn build_one(graph: Arc<SchemaGraph>, backend: &BackendArgs, out: &Path) -> Result<Built> {
    let t0 = Instant::now();
    let meter = TokenMeter::default();
    let ctx = gqlnav_tools::default_context(graph, &meter);
    let specs = backend.specs(&[gqlnav_tools::DEFAULT_RENDERING])?;
    let [spec] = specs.as_slice() else {
        anyhow::bail!("an index holds one ranker: give one --backend (and one --analyzer)");
    };
    let mut b = backend.build(spec)?;
    b.index(&ctx)?;
    b.save(out)
        .with_context(|| format!("saving the index to {}", out.display()))?;
    Ok(Built {
        backend: b.name(),
        entries: ctx.corpus.len(),
        bytes: dir_bytes(out),
        ms: t0.elapsed().as_millis() as u64,
    })
}

/// Build, index and save.
pub fn run(a: IndexArgs) -> Result<()> {
    if let Some(file) = &a.graphs {
        return run_graphs(&a, file);
    }
    let graph = Arc::new(a.schema.load(a.json)?);
    let source = graph.source.clone();
    let b = build_one(graph, &a.backend, &a.out)?;
    if a.json {
        return print_json(&json!({
            "dir": a.out.display().to_string(), "backend": b.backend,
            "schema": source, "entries": b.entries, "bytes": b.bytes, "ms": b.ms,
        }));
    }
    eprintln!(
        "indexed {source} ({} entries, {}) in {} ms: {} ({} KiB). Serve it with: gqlnav serve --schema {} --index-dir {}",
        b.entries,
        b.backend,
        b.ms,
        a.out.display(),
        b.bytes / 1024,
        a.schema.schema.as_deref().unwrap_or("builtin:github"),
        a.out.display()
    );
    Ok(())
}

/// `gqlnav index --graphs FILE --out DIR`: every graph into DIR/NAME, with a progress
/// bar; failures are listed and make the exit status non-zero.
fn run_graphs(a: &IndexArgs, file: &Path) -> Result<()> {
    if a.schema.schema.is_some() {
        anyhow::bail!(
            "--schema names one graph; with --graphs each [[graph]] table names its schema"
        );
    }
    let f = gqlnav_serve::GraphsFile::from_file(file)?;
    let t0 = Instant::now();
    let pb = crate::common::progress(f.graphs.len() as u64, "indexing graphs");
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for g in &f.graphs {
        pb.set_message(format!("indexing {}", g.name));
        let out = a.out.join(&g.name);
        let r = a
            .schema
            .for_graph(g)
            .load(true)
            .and_then(|graph| build_one(Arc::new(graph), &a.backend, &out));
        match r {
            Ok(b) => rows.push(json!({
                "graph": g.name, "dir": out.display().to_string(), "backend": b.backend,
                "entries": b.entries, "bytes": b.bytes, "ms": b.ms,
            })),
            Err(e) => failed.push(json!({"graph": g.name, "error": format!("{e:#}")})),
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let ms = t0.elapsed().as_millis() as u64;
    if a.json {
        print_json(
            &json!({"out": a.out.display().to_string(), "indexed": rows, "failed": failed, "ms": ms}),
        )?;
    } else {
        let bytes: u64 = rows.iter().filter_map(|r| r["bytes"].as_u64()).sum();
        eprintln!(
            "indexed {} of {} graphs into {} in {ms} ms ({} KiB). Serve them with `index_root = \"{}\"` in {}.",
            rows.len(),
            f.graphs.len(),
            a.out.display(),
            bytes / 1024,
            a.out.display(),
            file.display()
        );
        for e in &failed {
            eprintln!(
                "  failed: {}: {}",
                e["graph"].as_str().unwrap_or(""),
                e["error"].as_str().unwrap_or("")
            );
        }
    }
    if !failed.is_empty() {
        anyhow::bail!(
            "{} of {} graphs were not indexed",
            failed.len(),
            f.graphs.len()
        );
    }
    Ok(())
}

/// Load the saved index in `dir` (context and ranker) for `graph`: the token counts and
/// the index come from disk; a model is loaded only when the ranker embeds questions.
pub fn load(dir: &Path, backend: &BackendArgs, graph: Arc<SchemaGraph>) -> Result<Indexed> {
    let manifest = saved::Manifest::read(dir)?;
    let ctx = saved::load_context(dir, graph)?;
    let embedder = match &manifest.embedder {
        Some(_) => Some(backend.embedder()?),
        None => None,
    };
    let b = gqlnav_embed::load_backend(dir, &ctx, embedder)?;
    Ok(Indexed {
        ctx,
        backend: Arc::from(b),
    })
}
