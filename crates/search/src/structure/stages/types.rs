//! `type`: a question names types ("pull requests", "repository") before fields.
//!
//! * A field is lifted by its owner type's relevance (BM25 over type documents: type name
//!   × 2 and its description, as adjusted by the `named` stage), half of it
//!   unconditionally and half when the field matches a question word at all; for a link
//!   from a type the question names, the named relevance times the relevance of the type
//!   it returns counts when higher. Without it recall@50 falls on every dev API (linear
//!   0.8635 -> 0.7749) and held-out slices lose 11.7 points.
//! * For a reader, a field returning an enum is lifted by the question's match on the
//!   enum's value names (a word that names a value and no type: `admins` ~ `ADMIN`,
//!   `closed` ~ `CLOSED`), times its owner type's relevance, at `enum_value`. Not for a
//!   slicer: there it displaced the leaves of budgeted slices. Without it shopify's
//!   recall@10 falls 0.5050 -> 0.4988.

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;
use crate::SearchError;

/// The owner lift's scale: half of `owner_type` × relevance goes to every field of the
/// type and the other half to the fields that match a question word; `balance` and
/// `label` work on that second half ([`HALF`] × [`SCALE`]).
pub(crate) const SCALE: f32 = 0.5;
/// See [`SCALE`].
pub(crate) const HALF: f32 = 0.5;

pub(crate) struct Types;

impl Stage for Types {
    fn name(&self) -> &'static str {
        "type"
    }

    fn relevance(
        &self,
        ix: &StructureBackend,
        q: &Question,
        s: &mut Scores,
    ) -> Result<(), SearchError> {
        if q.reader && ix.weights.enum_value > 0.0 {
            if let Some(ei) = &ix.enums {
                s.erel = ei.score(&q.terms)?;
            }
        }
        Ok(())
    }

    fn base(&self, ix: &StructureBackend, q: &Question, s: &mut Scores, me: StageId) {
        let w = ix.weights.owner_type;
        let enums = ix.enums.as_ref().filter(|_| !s.erel.is_empty());
        for i in 0..s.n {
            let matched = s.lexical[i] > 0.0;
            let orel = s.owner_rel(ix.owner_of[i], ix.ret_of[i]);
            let mut v = s.score[i] + w * orel * (HALF + HALF * matched as u8 as f32) * SCALE;
            if let Some(e) = enums.and_then(|x| x.returns[i]) {
                v += ix.weights.enum_value * s.erel[e] * s.trel[ix.owner_of[i]] * SCALE;
            }
            s.set(me, i, v);
            if q.reader && matched && !s.own[i] {
                // The second half, which the balance may take back.
                s.wordless[i] = w * s.trel[ix.owner_of[i]] * HALF * SCALE;
            }
        }
    }
}
