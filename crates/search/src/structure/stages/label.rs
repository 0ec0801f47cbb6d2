//! `label` (reader): a question about a type's items reads their labels whether it names
//! them or not ("which teams am I a member of" shows each team's `name`). Each label field
//! (a non-null `String` with a one-word name and no arguments) gets `label` × the owner
//! lift's second half, over the depth factor, but stays under the best base score among
//! its type's other fields that match a question word of their own: a label follows what
//! the question asks of the type and never passes it. Its own base score is kept when
//! higher. Left-one-API-out, linear left out: recall@50 0.8090 -> 0.8435.

use super::super::pipeline::{Question, Scores, Stage, StageId, UNDER};
use super::super::StructureBackend;
use super::types::{HALF, SCALE};

pub(crate) struct Label;

impl Stage for Label {
    fn name(&self) -> &'static str {
        "label"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.label == 0.0
    }

    fn base(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let w = &ix.weights;
        let mut best = vec![f32::NEG_INFINITY; s.trel.len()];
        for i in (0..s.n).filter(|&i| s.own[i] && !ix.label[i]) {
            let t = ix.owner_of[i];
            best[t] = best[t].max(s.score[i]);
        }
        s.labelled = vec![0f32; s.n];
        for i in (0..s.n).filter(|&i| ix.label[i]) {
            let t = ix.owner_of[i];
            let l = w.label * w.owner_type * s.trel[t] * HALF * SCALE / ix.depth_factor(i);
            if l <= 0.0 {
                continue;
            }
            let b = s.score[i];
            let mut lifted = b + l;
            if best[t].is_finite() {
                lifted = lifted.min((best[t] * UNDER).max(b));
            }
            s.labelled[i] = lifted - b;
            s.set(me, i, lifted);
        }
    }
}
