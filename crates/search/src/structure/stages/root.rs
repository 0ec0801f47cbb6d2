//! `root` (reader): a root field is an entry point to the type it returns, and its owner
//! (the root) says nothing, so where other fields are lifted by their owner type's
//! relevance a root field is lifted by the best of its own name's relevance (the
//! normalised name part: `customers` in "how many customers") and its return type's, at
//! the owner-type scale times `root`. The lifted score stays under [`ROOT_CAP`] × the best
//! base score (or its own when higher), so entry points join the hits a path lifts and do
//! not take the top; a root list the question names by a plural word ("which teams" and
//! `Query.teams`) stays under [`LIST_CAP`] × it instead. Without it nautical's recall@50
//! falls 0.7327 -> 0.6675.

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;
use super::lexical::NAME;
use super::types::SCALE;

/// A lifted root field stays under this share of the best base score, so entry points
/// join the hits a path lifts (`path`, 0.8) and do not take the top. Chosen with `root`
/// (see its entry in weights.rs).
const ROOT_CAP: f32 = 0.6;

/// A root list the question names by a plural word stays under this share instead.
/// Left-one-API-out over {0, 0.65, …, 1}: only linear moves (recall@50 0.8534 -> 0.8590);
/// held-out nautical 0.6955 -> 0.7063.
const LIST_CAP: f32 = 0.75;

pub(crate) struct Root;

impl Stage for Root {
    fn name(&self) -> &'static str {
        "root"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.root == 0.0
    }

    fn base(&self, ix: &StructureBackend, q: &Question, s: &mut Scores, me: StageId) {
        let w = &ix.weights;
        let named = plural_lists(ix, q.text);
        let top = s.score.iter().copied().fold(0.0f32, f32::max);
        for i in (0..s.n).filter(|&i| ix.root_field[i]) {
            let rel = if s.link_rel.is_empty() {
                &s.trel
            } else {
                &s.link_rel
            };
            let ret = ix.ret_of[i].map_or(0.0, |r| rel[r]);
            let l = w.root * w.owner_type * s.fields[NAME][i].max(ret) * SCALE / ix.depth_factor(i);
            if l > 0.0 {
                let cap = if named.get(i).is_some_and(|&x| x) {
                    LIST_CAP
                } else {
                    ROOT_CAP
                };
                let b = s.score[i];
                s.set(me, i, (b + l).min((cap * top).max(b)));
            }
        }
    }
}

/// Per doc: a root field returning many whose whole name is a plural word of the
/// question (a word of more than three letters ending in `s`): "which teams" and
/// `Query.teams`. The question asks for many of the type, and this list is where they
/// are.
fn plural_lists(ix: &StructureBackend, text: &str) -> Vec<bool> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 3 && w.ends_with('s'))
        .map(str::to_lowercase)
        .collect();
    let Some(ctx) = ix.ctx.as_ref().filter(|_| !words.is_empty()) else {
        return Vec::new();
    };
    (ctx.corpus.entries.iter().enumerate())
        .map(|(i, e)| ix.root_list[i] && words.iter().any(|w| w.eq_ignore_ascii_case(&e.name)))
        .collect()
}
