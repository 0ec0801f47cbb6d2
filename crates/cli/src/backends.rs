//! Backend selection shared by `search`, `bench`, `slice` and `serve`.

use anyhow::{bail, Result};
use clap::Args;
use gqlnav_corpus::Rendering;
use gqlnav_search::{
    Analyzer, Bm25Backend, Bm25Config, SearchBackend, StructureBackend, StructureWeights,
};

/// Vector share of `hybrid` when ranking (`search`, `bench`, `serve`).
pub const HYBRID_WEIGHT_RANKING: f32 = 0.3;
/// Vector share of `hybrid` when slicing (`slice`, `bench --mode slice`).
pub const HYBRID_WEIGHT_SLICING: f32 = 0.2;

/// Ranker options.
#[derive(Args, Debug, Clone)]
pub struct BackendArgs {
    /// Ranker: `structure` (structure-aware: lexical channels + type relevance + graph),
    /// `bm25` (lexical, tantivy), `vector` (embeddings: needs `--model` or
    /// `--embed-server`), `hybrid` (weighted fusion of structure and vector) or
    /// `hybrid-rrf` (reciprocal-rank fusion), or `swan` (the Swan MCP's depth-scored BFS
    /// baseline, docs/benchmarks.md). Comma-separated for several in one bench run.
    #[arg(long, short = 'b', default_value = "structure", value_name = "NAME")]
    pub backend: String,
    /// BM25 analyzer: `identifier` (splits camelCase/acronyms/`_`/`.`, light stemming,
    /// query stop words) or `standard` (Lucene StandardAnalyzer: `Type.field` is one
    /// token). Comma-separated for several.
    #[arg(long, short = 'a', default_value = "identifier", value_name = "NAME")]
    pub analyzer: String,
    /// Structure ranker: switch stages off, comma-separated, for ablations.
    #[arg(long, value_name = "STAGES", help = without_help())]
    pub without: Option<String>,
    /// Structure ranker: override weights, `key=value,…` (see docs/ranking.md).
    #[arg(long, value_name = "K=V,…")]
    pub weights: Option<String>,
    /// The embedding model or server (vector and hybrid rankers).
    #[command(flatten)]
    pub embed: EmbedArgs,
    /// Override the query prompt ("" for none).
    #[arg(long, value_name = "TEXT")]
    pub query_prompt: Option<String>,
    /// Override the document prompt ("" for none).
    #[arg(long, value_name = "TEXT")]
    pub document_prompt: Option<String>,
    /// Vector cache directory (default: $GQLNAV_CACHE_DIR/vectors or ~/.cache/gqlnav/vectors).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Do not read or write the vector cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Weight of the vector side in `hybrid` (0..1). Default: 0.3 for ranking (best
    /// retrieval on github and linear), 0.2 for slicing (best slices; docs/benchmarks.md).
    #[arg(long, value_name = "W")]
    pub hybrid_weight: Option<f32>,
    /// BM25 k1.
    #[arg(long, default_value_t = 1.2)]
    pub k1: f32,
    /// BM25 b.
    #[arg(long, default_value_t = 0.75)]
    pub b: f32,
}

/// One backend to build: its settings and the rendering it indexes.
#[derive(Debug, Clone)]
pub struct BackendSpec {
    pub backend: String,
    pub analyzer: Analyzer,
    pub rendering: Rendering,
}

impl BackendArgs {
    /// Cross product of backends × analyzers × renderings.
    pub fn specs(&self, renderings: &[Rendering]) -> Result<Vec<BackendSpec>> {
        let mut out = Vec::new();
        for b in self
            .backend
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let analyzers: Vec<Analyzer> = self
                .analyzer
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<Analyzer>())
                .collect::<Result<_, _>>()?;
            for r in renderings {
                match b {
                    "bm25" => {
                        for a in &analyzers {
                            out.push(BackendSpec {
                                backend: b.to_string(),
                                analyzer: *a,
                                rendering: *r,
                            });
                        }
                    }
                    "structure" | "vector" | "hybrid" | "hybrid-rrf" | "hybrid-weighted" | "swan" => out.push(BackendSpec {
                        backend: b.to_string(),
                        analyzer: Analyzer::Identifier,
                        rendering: *r,
                    }),
                    other => bail!("unknown backend `{other}`; expected structure, bm25, vector, hybrid, hybrid-rrf or swan"),
                }
            }
        }
        Ok(out)
    }

    pub fn build(&self, spec: &BackendSpec) -> Result<Box<dyn SearchBackend>> {
        match spec.backend.as_str() {
            "bm25" => {
                let mut c = Bm25Config::new(spec.analyzer);
                c.k1 = self.k1;
                c.b = self.b;
                Ok(Box::new(Bm25Backend::new(c)))
            }
            "vector" => Ok(Box::new(self.vector()?)),
            "swan" => Ok(Box::new(gqlnav_search::SwanBackend::new())),
            "hybrid-rrf" => Ok(Box::new(gqlnav_embed::HybridBackend::rrf(
                Box::new(self.vector()?),
                self.build(&BackendSpec {
                    backend: "structure".into(),
                    ..spec.clone()
                })?,
            ))),
            "hybrid" | "hybrid-weighted" => Ok(Box::new(gqlnav_embed::HybridBackend::weighted(
                Box::new(self.vector()?),
                self.build(&BackendSpec {
                    backend: "structure".into(),
                    ..spec.clone()
                })?,
                self.hybrid_weight.unwrap_or(HYBRID_WEIGHT_RANKING),
            )?)),
            "structure" => {
                let mut w = StructureWeights::default();
                if let Some(spec) = &self.weights {
                    w.apply_overrides(spec)?;
                }
                let mut s = StructureBackend::new(w);
                if let Some(w) = &self.without {
                    let chans: Vec<&str> = w
                        .split(',')
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .collect();
                    s = s.without(&chans)?;
                }
                Ok(Box::new(s))
            }
            other => bail!("unknown backend `{other}`"),
        }
    }
}

impl BackendArgs {
    /// The embedder chosen by the flags.
    pub fn embedder(&self) -> Result<Box<dyn gqlnav_embed::Embedder>> {
        let prompts = gqlnav_embed::PromptOverride {
            query: self.query_prompt.clone(),
            document: self.document_prompt.clone(),
        };
        let e = &self.embed;
        if let Some(kind) = &e.embed_server {
            return server_embedder(
                kind,
                e.embed_url.clone(),
                e.embed_model.clone(),
                &e.embed_api_key_env,
                &prompts,
            );
        }
        let dir = e.model.clone().or_else(|| std::env::var_os("GQLNAV_MINILM_DIR").map(Into::into)).ok_or_else(|| {
            anyhow::anyhow!(
                "the vector backend needs a model: pass --model DIR (a sentence-transformers folder), set GQLNAV_MODEL_DIR, or use --embed-server"
            )
        })?;
        Ok(Box::new(gqlnav_embed::LocalModel::load(&dir, prompts)?))
    }

    fn vector(&self) -> Result<gqlnav_embed::VectorBackend> {
        let emb = self.embedder()?;
        eprintln!(
            "embedding model {}: {}",
            emb.name(),
            emb.prompts().describe()
        );
        let cache = gqlnav_embed::CacheOptions {
            dir: self.cache_dir.clone(),
            no_cache: self.no_cache,
        };
        let pb = crate::common::progress(0, "embedding corpus");
        let v = gqlnav_embed::VectorBackend::new(emb, cache).with_progress(Box::new(
            move |done, total| {
                pb.set_length(total as u64);
                pb.set_position(done as u64);
                if done >= total {
                    pb.finish_and_clear();
                }
            },
        ));
        Ok(v)
    }
}

/// Where embeddings come from: a local model directory, or an embedding server. Shared
/// by the rankers' flags and `gqlnav docs`.
#[derive(Args, Debug, Clone)]
pub struct EmbedArgs {
    /// Embedding model directory in the sentence-transformers layout (config.json,
    /// tokenizer.json, model.safetensors, modules.json, 1_Pooling/config.json). Nothing is
    /// ever downloaded.
    #[arg(long, value_name = "DIR", env = "GQLNAV_MODEL_DIR")]
    pub model: Option<std::path::PathBuf>,
    /// Use an embedding server instead of a local model: `ollama` (POST /api/embed) or
    /// `openai` (POST /v1/embeddings).
    #[arg(long, value_name = "KIND")]
    pub embed_server: Option<String>,
    /// Embedding server base URL (http or https).
    #[arg(long, value_name = "URL", requires = "embed_server")]
    pub embed_url: Option<String>,
    /// Embedding server model name.
    #[arg(long, value_name = "NAME", requires = "embed_server")]
    pub embed_model: Option<String>,
    /// API key for an OpenAI-compatible server (read from the environment only).
    #[arg(
        long = "embed-api-key-env",
        value_name = "VAR",
        default_value = "GQLNAV_EMBED_API_KEY"
    )]
    pub embed_api_key_env: String,
}

/// An embedding server client: `ollama` (POST /api/embed) or `openai` (POST
/// /v1/embeddings), its key read from the environment variable `key_env` only.
pub fn server_embedder(
    kind: &str,
    url: Option<String>,
    model: Option<String>,
    key_env: &str,
    prompts: &gqlnav_embed::PromptOverride,
) -> Result<Box<dyn gqlnav_embed::Embedder>> {
    let url = url.ok_or_else(|| anyhow::anyhow!("--embed-server needs --embed-url"))?;
    let model = model.ok_or_else(|| anyhow::anyhow!("--embed-server needs --embed-model"))?;
    let mut opts = gqlnav_embed::ServerOptions::new(url, model);
    if let Ok(key) = std::env::var(key_env) {
        opts = opts.with_api_key(key);
    }
    if prompts.query.is_some() || prompts.document.is_some() {
        opts = opts.with_prompts(
            prompts.query.clone().unwrap_or_default(),
            prompts.document.clone().unwrap_or_default(),
        );
    }
    match kind {
        "ollama" => Ok(Box::new(gqlnav_embed::OllamaEmbedder::new(opts)?)),
        "openai" => Ok(Box::new(gqlnav_embed::OpenAiEmbedder::new(opts)?)),
        other => bail!("unknown --embed-server `{other}`; expected ollama or openai"),
    }
}

/// `--without`'s help: the stage names, from the ranker's own list.
fn without_help() -> String {
    format!(
        "Structure ranker: switch stages off (comma-separated: {}), for ablations",
        StructureBackend::stage_names().join(", ")
    )
}
