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
    /// replaced atomically).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
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

/// Build, index and save.
pub fn run(a: IndexArgs) -> Result<()> {
    let t0 = Instant::now();
    let graph = Arc::new(a.schema.load(a.json)?);
    let meter = TokenMeter::default();
    let ctx = gqlnav_tools::default_context(graph.clone(), &meter);
    let specs = a.backend.specs(&[gqlnav_tools::DEFAULT_RENDERING])?;
    let [spec] = specs.as_slice() else {
        anyhow::bail!("an index holds one ranker: give one --backend (and one --analyzer)");
    };
    let mut backend = a.backend.build(spec)?;
    backend.index(&ctx)?;
    backend
        .save(&a.out)
        .with_context(|| format!("saving the index to {}", a.out.display()))?;
    let ms = t0.elapsed().as_millis() as u64;
    let bytes = dir_bytes(&a.out);
    if a.json {
        return print_json(&json!({
            "dir": a.out.display().to_string(), "backend": backend.name(),
            "schema": graph.source, "entries": ctx.corpus.len(), "bytes": bytes, "ms": ms,
        }));
    }
    eprintln!(
        "indexed {} ({} entries, {}) in {ms} ms: {} ({} KiB). Serve it with: gqlnav serve --schema {} --index-dir {}",
        graph.source,
        ctx.corpus.len(),
        backend.name(),
        a.out.display(),
        bytes / 1024,
        a.schema.schema.as_deref().unwrap_or("builtin:github"),
        a.out.display()
    );
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
