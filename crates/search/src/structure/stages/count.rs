//! `count` (reader), on final scores, in a counting question
//! ([`crate::analyzer::asks_how_many`]: "how many", "number of"): the count fields
//! (`totalCount`) of each list the question counts by name ("how many customers" and
//! `Query.customers`, "how many open merge requests" and `Project.mergeRequests`) are
//! offered just under that list's score, wherever it ranks, under the completions'
//! ceiling ([`super::selection::completed_hits`]). Nautical recall@50 0.7077 -> 0.7327.

use super::super::pipeline::{Question, Scores, Stage, StageId, SEEDS};
use super::super::StructureBackend;
use super::selection::completed_hits;
use crate::analyzer::{asks_how_many, counted_phrases};
use crate::top_k_positive;

/// A counted list's count fields are offered this share of the list's score: just under
/// it.
const COUNT_SHARE: f32 = 0.99;

pub(crate) struct Count;

impl Stage for Count {
    fn name(&self) -> &'static str {
        "count"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.value_hits == 0
    }

    fn finish(&self, ix: &StructureBackend, q: &Question, s: &mut Scores, me: StageId) {
        if !asks_how_many(q.text) {
            return;
        }
        let top = top_k_positive(s.score.iter().copied(), SEEDS);
        let (_, cap) = completed_hits(ix, s, &top);
        for (i, _) in counted_lists(ix, q.text)
            .iter()
            .enumerate()
            .filter(|(_, &c)| c)
        {
            for &c in &ix.count_of[i] {
                s.complete(me, c, (COUNT_SHARE * s.score[i]).min(cap));
            }
        }
    }
}

/// Per doc, whether it is a list a counting question counts: its name, word for word,
/// within a phrase after "how many" or "number of" ([`counted_phrases`]; not
/// `User.organizations` in "how many repositories does the organization own"). Only docs
/// with count fields.
fn counted_lists(ix: &StructureBackend, text: &str) -> Vec<bool> {
    let phrases = counted_phrases(text);
    let said = |name: &[String]| {
        !name.is_empty()
            && phrases.iter().any(|p| {
                p.len() >= name.len()
                    && (0..=p.len() - name.len()).any(|k| p[k..k + name.len()] == *name)
            })
    };
    ix.list_words.iter().map(|n| said(n)).collect()
}
