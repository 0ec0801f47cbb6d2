//! `bridge` (reader), on final scores: a link between two types the question is about.
//! Each of the top `value_hits` hits that returns a relevant type A
//! (`Repository.defaultBranchRef` → `Ref`) lends `bridge` × its score × r to the one field
//! of A that leads furthest into the question: r is the best relevance among the type
//! that field returns and, for an abstract type, the types it stands for (`Ref.target` →
//! `GitObject`, which `Commit` implements), leaving out A and the hit's own owner (a way
//! back is no bridge) and deprecated fields. Kept under the last seed's score, as
//! completions are. Left-one-API-out: github recall@50 0.7904 -> 0.7954.

use super::super::pipeline::{Question, Scores, Stage, StageId, SEEDS, UNDER};
use super::super::StructureBackend;
use crate::top_k_positive;

pub(crate) struct Bridge;

impl Stage for Bridge {
    fn name(&self) -> &'static str {
        "bridge"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.bridge == 0.0
    }

    fn finish(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let top = top_k_positive(s.score.iter().copied(), SEEDS);
        let cap = top.last().map_or(0.0, |h| h.score) * UNDER;
        let mut lift = vec![0f32; s.n];
        for hit in top.iter().take(ix.weights.value_hits) {
            if let Some((f, r)) = furthest(ix, s, hit.doc) {
                lift[f] = lift[f].max((ix.weights.bridge * hit.score * r).min(cap));
            }
        }
        for (i, &l) in lift.iter().enumerate() {
            if l > s.score[i] {
                s.set(me, i, l);
            }
        }
    }
}

/// The field of the type `hit` returns that leads furthest into the question, with the
/// relevance r of where it leads (the best r, then the better scored field).
fn furthest(ix: &StructureBackend, s: &Scores, hit: usize) -> Option<(usize, f32)> {
    let a = ix.ret_of[hit]?;
    if s.trel.get(a).is_none_or(|&r| r <= 0.0) {
        return None;
    }
    let back = ix.owner_of[hit];
    let mut best: Option<(usize, f32, f32)> = None;
    for &f in ix.fields_of.get(a).into_iter().flatten() {
        // A deprecated field is no way on (the `deprecated` stage).
        if ix.deprecated.get(f).is_some_and(|&d| d) && ix.on("deprecated") {
            continue;
        }
        let Some(b) = ix.ret_of[f] else { continue };
        let r = (ix.shapes_of.get(b).into_iter().flatten())
            .filter(|&&t| t != back && t != a)
            .map(|&t| s.trel.get(t).copied().unwrap_or(0.0))
            .fold(0.0f32, f32::max);
        let better = best.is_none_or(|(_, br, bs)| (r, s.score[f]) > (br, bs));
        if r > 0.0 && better {
            best = Some((f, r, s.score[f]));
        }
    }
    best.map(|(f, r, _)| (f, r))
}
