//! Backend selection shared by `search`, `bench`, `slice` and `serve`.

use anyhow::{bail, Result};
use clap::Args;
use gqlnav_corpus::Rendering;
use gqlnav_search::{
    Analyzer, Bm25Backend, Bm25Config, SearchBackend, StructureBackend, StructureWeights,
};

/// Ranker options.
#[derive(Args, Debug, Clone)]
pub struct BackendArgs {
    /// Ranker: `bm25` (lexical, tantivy). Comma-separated for several in one bench run.
    #[arg(long, short = 'b', default_value = "bm25", value_name = "NAME")]
    pub backend: String,
    /// BM25 analyzer: `identifier` (splits camelCase/acronyms/`_`/`.`, light stemming,
    /// query stop words) or `standard` (Lucene StandardAnalyzer: `Type.field` is one
    /// token). Comma-separated for several.
    #[arg(long, short = 'a', default_value = "identifier", value_name = "NAME")]
    pub analyzer: String,
    /// Structure ranker: switch channels off (comma-separated: name, desc, owner, ret,
    /// args, type, path, conn, iface, depth), for ablations.
    #[arg(long, value_name = "CHANNELS")]
    pub without: Option<String>,
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
                    "structure" => out.push(BackendSpec {
                        backend: b.to_string(),
                        analyzer: Analyzer::Identifier,
                        rendering: *r,
                    }),
                    other => bail!("unknown backend `{other}`; expected structure or bm25"),
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
            "structure" => {
                let mut s = StructureBackend::new(StructureWeights::default());
                if let Some(w) = &self.without {
                    let chans: Vec<&str> = w
                        .split(',')
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .collect();
                    s = s.without(&chans);
                }
                Ok(Box::new(s))
            }
            other => bail!("unknown backend `{other}`"),
        }
    }
}
