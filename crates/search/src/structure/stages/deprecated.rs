//! `deprecated` (reader): a deprecated field's final score is scaled by 1 − `deprecated`:
//! an agent should not be steered to a field on its way out while another matches as
//! well.

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;

pub(crate) struct Deprecated;

impl Stage for Deprecated {
    fn name(&self) -> &'static str {
        "deprecated"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.deprecated == 0.0
    }

    fn finish(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let keep = (1.0 - ix.weights.deprecated).max(0.0);
        for i in (0..s.n).filter(|&i| ix.deprecated[i]) {
            let v = s.score[i] * keep;
            s.set(me, i, v);
        }
    }
}
