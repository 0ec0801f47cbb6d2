//! `selection`: what an operation selecting a top hit must name too.
//!
//! * In propagation, a seed returning a connection lends `selection` × its score to the
//!   connection's `nodes`/`edges` fields and the edge's `node` field (github recall@50
//!   0.7937 -> 0.7954).
//! * On final scores, each of the top seeds returning a *value object* (a few leaf fields, such as an
//!   amount and its currency) offers `selection` × its final score to that object's fields,
//!   and each of those returning a value object in turn `selection` × its own score to that
//!   one's fields (an order's total → the taxed amount's `gross` → the amount and
//!   currency). Without it held-out recall@50 falls (nautical 0.7327 -> 0.6642, shopify
//!   0.8757 -> 0.8090).
//! * For a reader, the top `value_hits` hits ([`completed_hits`]) are *completed*: their
//!   value objects' fields, the fields on their root paths, in a counting question
//!   ([`asks_how_many`]) the count fields of the connection they return, and at the
//!   [`LABEL_SHARE`]
//!   the labels of the type they return (`Issue.assignee` → `User.name`) are offered the
//!   hit's score, kept under the last seed's score: completions follow the question's own
//!   hits instead of sitting at a share far down the list.

use super::super::pipeline::{Question, Scores, Stage, StageId, SEEDS, UNDER};
use super::super::StructureBackend;
use crate::analyzer::asks_how_many;
use crate::{top_k_positive, Scored};

/// The share of a completed hit's score its returned type's labels are offered.
/// Left-one-API-out over {0, 0.25, …, 1} with `label` 1: github left out 0.6 (recall@50
/// 0.7798 -> 0.7833), linear 0.9, singapore 0.6; together 0.6.
const LABEL_SHARE: f32 = 0.6;

pub(crate) struct Selection;

impl Stage for Selection {
    fn name(&self) -> &'static str {
        "selection"
    }

    fn weighted_off(&self, ix: &StructureBackend) -> bool {
        ix.weights.selection == 0.0
    }

    fn propagate(&self, ix: &StructureBackend, _q: &Question, s: &mut Scores, me: StageId) {
        let seeds = std::mem::take(&mut s.seeds);
        for sd in &seeds {
            for &p in &ix.conn_of[sd.doc] {
                s.lend(me, p, ix.weights.selection * sd.score);
            }
        }
        s.seeds = seeds;
    }

    fn finish(&self, ix: &StructureBackend, q: &Question, s: &mut Scores, me: StageId) {
        let top = top_k_positive(s.score.iter().copied(), SEEDS);
        for hit in &top {
            lend(ix, s, me, hit, ix.weights.selection, f32::INFINITY);
        }
        if !q.reader {
            return;
        }
        let (hits, cap) = completed_hits(ix, s, &top);
        let counting = asks_how_many(q.text);
        for hit in &hits {
            lend(ix, s, me, hit, 1.0, cap);
            // In a counting question, the count fields of the connection it returns.
            if counting {
                for &c in &ix.count_of[hit.doc] {
                    s.complete(me, c, hit.score.min(cap));
                }
            }
            // The labels of the type it returns: a selection of an object names one.
            if ix.on("label") {
                if let Some(t) = ix.ret_of[hit.doc] {
                    for &p in &ix.labels_of[t] {
                        s.complete(me, p, (LABEL_SHARE * hit.score).min(cap));
                    }
                }
            }
            // The fields on its paths from the root: an operation selecting it names them.
            for &p in ix.paths_of(ix.owner_of[hit.doc], true).iter().flatten() {
                s.complete(me, p, hit.score.min(cap));
            }
        }
    }
}

/// A reader's top hits to complete: the first `value_hits` of the top seeds that the
/// `label` stage did not lift (a label is no hit to complete), with the ceiling their
/// completions stay under (just under the last seed's score).
pub(crate) fn completed_hits(
    ix: &StructureBackend,
    s: &Scores,
    top: &[Scored],
) -> (Vec<Scored>, f32) {
    let cap = top.last().map_or(0.0, |h| h.score) * UNDER;
    let hits = (top.iter())
        .filter(|h| !s.labelled.get(h.doc).is_some_and(|&l| l > 0.0))
        .take(ix.weights.value_hits)
        .cloned()
        .collect();
    (hits, cap)
}

/// `hit` offers `share` × its score (under `cap`) to the fields of the value object it
/// returns, and those offer it to the fields of a value object they return.
fn lend(ix: &StructureBackend, s: &mut Scores, me: StageId, hit: &Scored, share: f32, cap: f32) {
    for &p in &ix.value_of[hit.doc] {
        let lent = (share * hit.score).min(cap);
        s.complete(me, p, lent);
        let own = s.score[p].max(lent);
        for &q in &ix.value_of[p] {
            s.complete(me, q, (share * own).min(cap));
        }
    }
}
