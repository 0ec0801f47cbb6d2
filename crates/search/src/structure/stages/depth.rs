//! `depth`: a field deep in the schema needs a longer operation and is less often what a
//! question asks; every score built so far is divided by 1 + `depth` × (owner depth − 1).
//! Without it recall@10 falls on every API (github 0.4984 -> 0.3900, gitlab MRR 0.6062 ->
//! 0.3507).

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;

/// The depth assumed for an owner no root path reaches.
pub(crate) const UNREACHED_DEPTH: f32 = 6.0;

pub(crate) struct Depth;

impl Stage for Depth {
    fn name(&self) -> &'static str {
        "depth"
    }

    fn base(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        for i in 0..s.n {
            let f = ix.depth_factor(i);
            let v = s.score[i] / f;
            s.set(me, i, v);
            s.wordless[i] /= f;
        }
    }
}
