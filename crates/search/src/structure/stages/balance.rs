//! `balance` (reader): term balance. Every field of a type the question names gets the
//! owner lift, and its second half when the field matches anything (the rendered text
//! carries the owner's name, so every field of the type does); one word naming a big type
//! ("marketplace" for a configuration of 60 fields) then fills the list with fields that
//! match nothing else. Among the fields of one type that match no question word of their
//! own, the first [`KEEP`] by base score keep that second half (their short texts
//! rank first: `body`, `createdAt`) and the others `balance_share` of it.

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;

/// The fields of one type, matching no word of their own, that keep the owner lift's
/// second half whole. Chosen with `balance_share` (see its entry in weights.rs).
const KEEP: usize = 2;

pub(crate) struct Balance;

impl Stage for Balance {
    fn name(&self) -> &'static str {
        "balance"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.balance_share >= 1.0
    }

    fn base(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let w = &ix.weights;
        let mut docs: Vec<usize> = (0..s.n).filter(|&i| s.wordless[i] > 0.0).collect();
        // By owner type, then best base first (ties by corpus order).
        docs.sort_by(|&a, &b| {
            (ix.owner_of[a].cmp(&ix.owner_of[b]))
                .then(s.score[b].total_cmp(&s.score[a]))
                .then(a.cmp(&b))
        });
        let mut kept = 0;
        for (k, &i) in docs.iter().enumerate() {
            let same_type = k > 0 && ix.owner_of[docs[k - 1]] == ix.owner_of[i];
            kept = if same_type { kept + 1 } else { 1 };
            if kept > KEEP {
                let v = s.score[i] - (1.0 - w.balance_share) * s.wordless[i];
                s.set(me, i, v);
            }
        }
    }
}
