//! `lexical`: BM25 (identifier analyzer, k1 1.2, b 0.75) over separate parts of each
//! field entry — its rendered text, name, description, owner type name and arguments —
//! each normalised to [0, 1] per query by its best, then a weighted mean (divided by the
//! sum of the weights). The weights are the first ones chosen, on github's TSV; without
//! the name part recall@50 falls on every API (github 0.7954 -> 0.7808, nautical 0.7327
//! -> 0.6400).

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;
use crate::bm25::FieldSource;

/// The lexical parts and their boosts, in the order [`Scores::fields`] holds them. The
/// first weights, chosen on github's TSV before the leave-one-out rule; each part off
/// (boost 0) lowers some API by more than 0.3 points (docs/ranking.md, the ablation).
pub(crate) const FIELDS: [(FieldSource, f32); 5] = [
    (FieldSource::Text, 3.0),
    (FieldSource::Name, 3.0),
    (FieldSource::Description, 2.0),
    (FieldSource::Owner, 1.0),
    (FieldSource::Args, 0.3),
];

/// Where [`Scores::fields`] holds the name, description and argument parts.
pub(crate) const NAME: usize = 1;
/// See [`NAME`].
pub(crate) const DESC: usize = 2;
/// See [`NAME`].
pub(crate) const ARGS: usize = 4;

pub(crate) struct Lexical;

impl Stage for Lexical {
    fn name(&self) -> &'static str {
        "lexical"
    }

    fn base(&self, _ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let wsum = FIELDS.iter().map(|f| f.1).sum::<f32>().max(1e-6);
        for (v, &(_, wt)) in s.fields.iter().zip(&FIELDS) {
            if wt == 0.0 {
                continue;
            }
            for (l, x) in s.lexical.iter_mut().zip(v) {
                *l += wt * x;
            }
        }
        for i in 0..s.n {
            let v = s.lexical[i] / wsum;
            s.set(me, i, v);
        }
    }
}
