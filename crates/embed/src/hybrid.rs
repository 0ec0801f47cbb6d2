//! Fusing two rankers into one.
//!
//! Two fusions are offered:
//!
//! - **Reciprocal rank fusion** ([`HybridBackend::rrf`]): `score(d) = Σ_side 1 / (60 + rank_side(d))`
//!   with 1-based ranks; a document a side did not return contributes nothing from it.
//!   `k = 60` is the constant of Cormack et al. (2009). RRF ignores score scales, so it
//!   needs no tuning and is the default choice.
//! - **Weighted score fusion** ([`HybridBackend::weighted`]): each side's scores are
//!   min-max normalised to [0, 1] over the list that side returned for this query (a
//!   list whose scores are all equal maps to 1), a missing document counts 0, and
//!   `score(d) = w · a(d) + (1 − w) · b(d)`. `w` weighs the first backend (by
//!   convention the vector side).
//!
//! Each side is searched to depth `max(k, 200)`, so a document ranked low on one side
//! can still surface. Ties are broken by corpus order.

use std::collections::HashMap;
use std::path::Path;

use gqlnav_search::saved::{self, Manifest, ManifestHeader};
use gqlnav_search::{rrf, top_k, Query, Scored, SearchBackend, SearchContext, SearchError};

use crate::error::{EmbedError, Result};
use crate::{Embedder, VectorBackend};

/// Minimum depth each side is searched to.
pub const MIN_DEPTH: usize = 200;

/// The fusion rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion with k = 60.
    Rrf,
    /// Min-max normalised weighted sum; the weight is for the first backend.
    Weighted(f32),
}

/// A [`SearchBackend`] fusing two others. See the [module docs](self) for the rules.
pub struct HybridBackend {
    a: Box<dyn SearchBackend>,
    b: Box<dyn SearchBackend>,
    fusion: Fusion,
    /// The indexed context, kept so that [`SearchBackend::save`] can write the index.
    ctx: Option<SearchContext>,
}

/// The fusion rule as a saved hybrid index records it (the weight also as its bits, so
/// it is restored exactly).
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedConfig {
    fusion: String,
    weight: Option<f32>,
    weight_bits: Option<u32>,
}

impl HybridBackend {
    /// Reciprocal rank fusion (k = 60) of `a` and `b`.
    pub fn rrf(a: Box<dyn SearchBackend>, b: Box<dyn SearchBackend>) -> HybridBackend {
        HybridBackend {
            a,
            b,
            fusion: Fusion::Rrf,
            ctx: None,
        }
    }

    /// Weighted fusion of min-max normalised scores: `w` for `a`, `1 − w` for `b`.
    /// `w` must be a number in [0, 1].
    pub fn weighted(
        a: Box<dyn SearchBackend>,
        b: Box<dyn SearchBackend>,
        w: f32,
    ) -> Result<HybridBackend> {
        if !(0.0..=1.0).contains(&w) {
            return Err(EmbedError::InvalidArgument(format!(
                "fusion weight {w} is not in [0, 1]"
            )));
        }
        Ok(HybridBackend {
            a,
            b,
            fusion: Fusion::Weighted(w),
            ctx: None,
        })
    }

    /// Load an index saved by [`SearchBackend::save`]: both sides from `dir/a` and
    /// `dir/b`. `embedder` serves the (one) vector side.
    pub fn load(
        dir: &Path,
        ctx: &SearchContext,
        embedder: Option<Box<dyn Embedder>>,
    ) -> std::result::Result<HybridBackend, SearchError> {
        let m = saved::open(dir, ctx, "hybrid")?;
        let bad = |reason: String| SearchError::saved_index(dir, reason);
        let config: SavedConfig = serde_json::from_value(m.config)
            .map_err(|e| bad(format!("the manifest's hybrid config is malformed: {e}")))?;
        let fusion = match (config.fusion.as_str(), config.weight_bits) {
            ("rrf", _) => Fusion::Rrf,
            ("weighted", Some(bits)) => Fusion::Weighted(f32::from_bits(bits)),
            (other, _) => return Err(bad(format!("unknown fusion `{other}`"))),
        };
        let mut embedder = embedder;
        let a = load_part(&dir.join("a"), ctx, &mut embedder)?;
        let b = load_part(&dir.join("b"), ctx, &mut embedder)?;
        Ok(HybridBackend {
            a,
            b,
            fusion,
            ctx: Some(ctx.clone()),
        })
    }

    /// The fusion rule.
    pub fn fusion(&self) -> Fusion {
        self.fusion
    }
}

fn min_max(list: &[Scored]) -> Vec<f32> {
    let (lo, hi) = list
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s.score), hi.max(s.score))
        });
    list.iter()
        .map(|s| {
            if hi > lo {
                (s.score - lo) / (hi - lo)
            } else {
                1.0
            }
        })
        .collect()
}

impl SearchBackend for HybridBackend {
    /// `hybrid-rrf(A+B)` or `hybrid-w0.70(A+B)`.
    fn name(&self) -> String {
        let rule = match self.fusion {
            Fusion::Rrf => "rrf".to_string(),
            Fusion::Weighted(w) => format!("w{w:.2}"),
        };
        format!("hybrid-{rule}({}+{})", self.a.name(), self.b.name())
    }

    /// Indexes both sides.
    fn index(&mut self, ctx: &SearchContext) -> std::result::Result<(), SearchError> {
        self.a.index(ctx)?;
        self.b.index(ctx)?;
        self.ctx = Some(ctx.clone());
        Ok(())
    }

    /// Saves both sides (`a/`, `b/`) under one manifest.
    fn save(&self, dir: &Path) -> std::result::Result<(), SearchError> {
        let ctx = self.ctx.as_ref().ok_or(SearchError::NotIndexed)?;
        let config = match self.fusion {
            Fusion::Rrf => SavedConfig {
                fusion: "rrf".into(),
                weight: None,
                weight_bits: None,
            },
            Fusion::Weighted(w) => SavedConfig {
                fusion: "weighted".into(),
                weight: Some(w),
                weight_bits: Some(w.to_bits()),
            },
        };
        let header = ManifestHeader {
            backend: "hybrid".into(),
            name: self.name(),
            config: serde_json::to_value(&config).map_err(|e| SearchError::Other(e.to_string()))?,
            embedder: None,
        };
        saved::save_dir(dir, header, ctx, |tmp, header| {
            for (side, backend) in [("a", &self.a), ("b", &self.b)] {
                let sub = tmp.join(side);
                backend.save(&sub)?;
                let m = Manifest::read(&sub)?;
                if m.embedder.is_some() {
                    if header.embedder.is_some() {
                        return Err(SearchError::NoSavedForm(format!(
                            "{} (both sides need an embedder; a saved hybrid holds at most one vector side)",
                            self.name()
                        )));
                    }
                    header.embedder = m.embedder;
                }
            }
            Ok(())
        })
    }

    fn search(&self, query: &Query, k: usize) -> std::result::Result<Vec<Scored>, SearchError> {
        let depth = k.max(MIN_DEPTH);
        let la = self.a.search(query, depth)?;
        let lb = self.b.search(query, depth)?;
        let (na, nb) = (self.a.name(), self.b.name());
        // doc -> (contribution a, contribution b)
        let mut acc: HashMap<usize, (f32, f32)> = HashMap::new();
        match self.fusion {
            Fusion::Rrf => {
                for (rank, s) in la.iter().enumerate() {
                    acc.entry(s.doc).or_default().0 += rrf(rank);
                }
                for (rank, s) in lb.iter().enumerate() {
                    acc.entry(s.doc).or_default().1 += rrf(rank);
                }
            }
            Fusion::Weighted(w) => {
                for (s, n) in la.iter().zip(min_max(&la)) {
                    let e = acc.entry(s.doc).or_default();
                    e.0 = e.0.max(w * n);
                }
                for (s, n) in lb.iter().zip(min_max(&lb)) {
                    let e = acc.entry(s.doc).or_default();
                    e.1 = e.1.max((1.0 - w) * n);
                }
            }
        }
        let fused = acc
            .iter()
            .map(|(&doc, &(ca, cb))| Scored::new(doc, ca + cb))
            .collect();
        let mut top = top_k(fused, k);
        for s in &mut top {
            let (ca, cb) = acc.get(&s.doc).copied().unwrap_or_default();
            s.explain.push((na.clone(), ca));
            s.explain.push((nb.clone(), cb));
        }
        Ok(top)
    }
}

/// Load any saved index for a context: `structure` and `bm25` need nothing more,
/// `vector` and `hybrid` need the embedder that embedded the documents
/// ([`Manifest::embedder`] names it; `None` is refused with an error naming it).
pub fn load_backend(
    dir: &Path,
    ctx: &SearchContext,
    embedder: Option<Box<dyn Embedder>>,
) -> std::result::Result<Box<dyn SearchBackend>, SearchError> {
    let mut embedder = embedder;
    load_part(dir, ctx, &mut embedder)
}

fn load_part(
    dir: &Path,
    ctx: &SearchContext,
    embedder: &mut Option<Box<dyn Embedder>>,
) -> std::result::Result<Box<dyn SearchBackend>, SearchError> {
    let m = Manifest::read(dir)?;
    match m.backend.as_str() {
        "vector" => match embedder.take() {
            Some(e) => Ok(Box::new(VectorBackend::load(dir, ctx, e)?)),
            None => Err(SearchError::saved_index(
                dir,
                format!(
                    "it needs the embedding model `{}` to embed questions; pass it with --model",
                    m.embedder.unwrap_or_default()
                ),
            )),
        },
        "hybrid" => Ok(Box::new(HybridBackend::load(dir, ctx, embedder.take())?)),
        _ => saved::load_backend(dir, ctx),
    }
}
