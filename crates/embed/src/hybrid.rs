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

use gqlnav_search::{top_k, Query, Scored, SearchBackend, SearchContext, SearchError};

use crate::error::{EmbedError, Result};

/// Reciprocal rank fusion constant.
pub const RRF_K: f32 = 60.0;
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
}

impl HybridBackend {
    /// Reciprocal rank fusion (k = 60) of `a` and `b`.
    pub fn rrf(a: Box<dyn SearchBackend>, b: Box<dyn SearchBackend>) -> HybridBackend {
        HybridBackend {
            a,
            b,
            fusion: Fusion::Rrf,
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
        self.b.index(ctx)
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
                    acc.entry(s.doc).or_default().0 += 1.0 / (RRF_K + rank as f32 + 1.0);
                }
                for (rank, s) in lb.iter().enumerate() {
                    acc.entry(s.doc).or_default().1 += 1.0 / (RRF_K + rank as f32 + 1.0);
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
            .map(|(&doc, &(ca, cb))| Scored {
                doc,
                score: ca + cb,
                explain: Vec::new(),
            })
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
