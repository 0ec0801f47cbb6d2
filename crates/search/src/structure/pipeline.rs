//! The ranker as a pipeline of named stages ([`Stage`]) over one shared state
//! ([`Scores`]).
//!
//! A search runs four phases, each going through [`super::stages::STAGES`] in order and
//! calling the stages that take part in it:
//!
//! 1. **relevance**: the question's type relevance (`trel`, from BM25 over type
//!    documents) and the other per-type and per-enum relevances are adjusted;
//! 2. **base**: each doc's base score is built (lexical evidence, type lifts, the depth
//!    divisor, the reader lifts on base scores);
//! 3. **propagate**: the top [`SEEDS`] base hits lend shares of their score along the
//!    schema graph (`prop`); then each doc's score becomes max(base, prop) +
//!    [`TIE_SHARE`] × min(base, prop);
//! 4. **finish**: adjustments on final scores (demotions), and completions offered on
//!    them ([`Scores::complete`]), applied together at the end.
//!
//! Every change a stage makes to a doc's score goes through [`Scores::set`] (or
//! [`Scores::lend`] for propagation), which books the difference to that stage: the
//! parts `--explain` prints sum to the score.

use super::stages::STAGES;
use super::StructureBackend;
use crate::{top_k_positive, Scored, SearchError};

/// How many top base hits propagate along the graph. Chosen with the path share on
/// github and linear (docs/ranking.md, "Propagation"); larger seed sets lend path shares
/// to fields of types the question is not about.
pub(super) const SEEDS: usize = 20;

/// The share of the lesser of base and propagated score added to the greater, so that a
/// field with both outranks one with either alone (a tie-break, not a weight).
pub(super) const TIE_SHARE: f32 = 0.01;

/// A ceiling just under a reference score: lifts kept "under" a score stay below it, so
/// that what they complete keeps its place (completions, labels, bridges).
pub(super) const UNDER: f32 = 0.999;

/// The question, as the stages read it.
pub(super) struct Question<'a> {
    /// The question as asked.
    pub text: &'a str,
    /// The question and its sub-queries, the text BM25 scores.
    pub terms: String,
    /// A reader's question ([`crate::Purpose::Search`]): the reader-only stages run.
    pub reader: bool,
    /// A reader's question addressed to the current caller ("my issues"; the `person`
    /// stage).
    pub person: bool,
}

/// The state every stage reads and writes.
pub(super) struct Scores {
    pub n: usize,
    /// Per lexical field ([`super::stages::lexical::FIELDS`]), each doc's BM25 score,
    /// normalised to [0, 1] by the best.
    pub fields: Vec<Vec<f32>>,
    /// Per doc: the weighted sum of the lexical fields (before the division by the
    /// weights' sum).
    pub lexical: Vec<f32>,
    /// Per doc, for a reader: it matches a question word by its own name, description or
    /// arguments (not only through its owner's name).
    pub own: Vec<bool>,
    /// Per type: the question's relevance (BM25 over type documents, normalised).
    pub trel: Vec<f32>,
    /// Per type, for a reader: its relevance as the owner of a link (the `named` stage;
    /// empty when it did not run).
    pub link_rel: Vec<f32>,
    /// Per enum document: the question's match on its value names (the `enum` stage).
    pub erel: Vec<f32>,
    /// Per doc, for a reader: the part of the owner-type lift that the `balance` stage may
    /// take back (fields matching no word of their own).
    pub wordless: Vec<f32>,
    /// Per doc: the `label` stage's lift (the `value` stage does not complete a label).
    pub labelled: Vec<f32>,
    /// Per doc: the current score (the base score until propagation, then the final one).
    pub score: Vec<f32>,
    /// Per doc: the base score, fixed when propagation starts.
    pub base: Vec<f32>,
    /// Per doc: the best share lent to it by propagation (and completions).
    pub prop: Vec<f32>,
    /// The top base hits, fixed when propagation starts.
    pub seeds: Vec<Scored>,
    /// Per doc: the stage that lent its `prop`.
    prop_by: Vec<u8>,
    /// Per doc: the best completion offered on final scores ([`Scores::complete`]), and
    /// the stage that offered it; applied after the finish phase.
    completion: Vec<f32>,
    completion_by: Vec<u8>,
    /// Per stage (in [`STAGES`] order), per doc: what it added to the score.
    ledger: Vec<Vec<f32>>,
}

impl Scores {
    fn new(n: usize, fields: Vec<Vec<f32>>, trel: Vec<f32>) -> Self {
        Scores {
            n,
            fields,
            lexical: vec![0.0; n],
            own: Vec::new(),
            trel,
            link_rel: Vec::new(),
            erel: Vec::new(),
            wordless: vec![0.0; n],
            labelled: Vec::new(),
            score: vec![0.0; n],
            base: Vec::new(),
            prop: vec![0.0; n],
            seeds: Vec::new(),
            prop_by: vec![0; n],
            completion: vec![0.0; n],
            completion_by: vec![0; n],
            ledger: vec![Vec::new(); STAGES.len()],
        }
    }

    /// Set doc `i`'s score to `v`, booking the change to `stage`.
    pub fn set(&mut self, stage: StageId, i: usize, v: f32) {
        let d = v - self.score[i];
        if d != 0.0 {
            let l = &mut self.ledger[stage.0];
            if l.is_empty() {
                l.resize(self.n, 0.0);
            }
            l[i] += d;
        }
        self.score[i] = v;
    }

    /// Raise doc `i`'s propagated score to `v` when higher, lent by `stage`.
    pub fn lend(&mut self, stage: StageId, i: usize, v: f32) {
        if v > self.prop[i] {
            self.prop[i] = v;
            self.prop_by[i] = stage.0 as u8;
        }
    }

    /// Offer doc `i` the completion score `v` (kept when the best offered): after the
    /// finish phase, a doc whose best completion passes its score takes it (plus
    /// [`TIE_SHARE`] of its base score), all completions read from the same final scores.
    pub fn complete(&mut self, stage: StageId, i: usize, v: f32) {
        if v > self.completion[i] {
            self.completion[i] = v;
            self.completion_by[i] = stage.0 as u8;
        }
    }

    /// Apply the completions ([`Scores::complete`]).
    fn apply_completions(&mut self) {
        for i in 0..self.n {
            let l = self.completion[i];
            if l > self.score[i] {
                self.prop[i] = self.prop[i].max(l);
                let by = StageId(self.completion_by[i] as usize);
                self.set(by, i, l + TIE_SHARE * self.base[i].min(l));
            }
        }
    }

    /// The relevance of doc `i`'s owner type `o`, or for a link from a type the question
    /// names (`link_rel`), that type's named relevance times the relevance of the type it
    /// returns, when higher (`ret`: the type doc `i` returns).
    pub fn owner_rel(&self, o: usize, ret: Option<usize>) -> f32 {
        let own = self.trel[o];
        match (self.link_rel.get(o), ret) {
            (Some(&l), Some(r)) => own.max(l * self.trel[r]),
            _ => own,
        }
    }
}

/// A stage's position in [`STAGES`], handed to it so that it books its changes.
#[derive(Debug, Clone, Copy)]
pub(super) struct StageId(pub usize);

/// One named step of the ranker. A stage takes part in any of the four phases; each
/// default does nothing.
pub(super) trait Stage: Sync {
    /// The name `--without` and `--explain` use.
    fn name(&self) -> &'static str;
    /// Runs for a reader's question only ([`crate::Purpose::Search`]): a slicer's
    /// ranking runs none of these (the slice digest test holds them to it).
    fn reader_only(&self) -> bool {
        false
    }
    /// Whether the weights switch it off (a weight of 0).
    fn weighted_off(&self, _ix: &StructureBackend) -> bool {
        false
    }
    fn relevance(
        &self,
        _ix: &StructureBackend,
        _q: &Question,
        _s: &mut Scores,
    ) -> Result<(), SearchError> {
        Ok(())
    }
    fn base(&self, _ix: &StructureBackend, _q: &Question, _s: &mut Scores, _me: StageId) {}
    fn propagate(&self, _ix: &StructureBackend, _q: &Question, _s: &mut Scores, _me: StageId) {}
    fn finish(&self, _ix: &StructureBackend, _q: &Question, _s: &mut Scores, _me: StageId) {}
}

/// Run the pipeline; returns the top `k` with each hit's parts (which sum to its score).
pub(super) fn run(
    ix: &StructureBackend,
    q: &Question,
    fields: Vec<Vec<f32>>,
    trel: Vec<f32>,
    k: usize,
) -> Result<Vec<Scored>, SearchError> {
    let mut s = Scores::new(ix.n, fields, trel);
    if q.reader {
        s.own = (0..s.n).map(|i| own_words(&s.fields, i)).collect();
    }
    let active: Vec<(StageId, &dyn Stage)> = (STAGES.iter().enumerate())
        .filter(|(_, st)| ix.on(st.name()) && (q.reader || !st.reader_only()))
        .filter(|(_, st)| !st.weighted_off(ix))
        .map(|(i, st)| (StageId(i), *st))
        .collect();
    for (_, st) in &active {
        st.relevance(ix, q, &mut s)?;
    }
    for (me, st) in &active {
        st.base(ix, q, &mut s, *me);
    }
    s.base = s.score.clone();
    s.seeds = top_k_positive(s.base.iter().copied(), SEEDS);
    for (me, st) in &active {
        st.propagate(ix, q, &mut s, *me);
    }
    for i in 0..s.n {
        let (b, p) = (s.base[i], s.prop[i]);
        let by = StageId(s.prop_by[i] as usize);
        s.set(by, i, b.max(p) + TIE_SHARE * p.min(b));
    }
    for (me, st) in &active {
        st.finish(ix, q, &mut s, *me);
    }
    s.apply_completions();
    let mut out = top_k_positive(s.score.iter().copied(), k);
    for hit in &mut out {
        hit.explain = (STAGES.iter().zip(&s.ledger))
            .filter_map(|(st, l)| l.get(hit.doc).filter(|&&d| d != 0.0).map(|&d| (st, d)))
            .map(|(st, d)| (st.name().to_string(), d))
            .collect();
    }
    Ok(out)
}

/// Whether doc `i` matches a question word by its own name, description or arguments (not
/// only through its owner's name, which its rendered text also carries).
fn own_words(fields: &[Vec<f32>], i: usize) -> bool {
    use super::stages::lexical::{ARGS, DESC, NAME};
    [NAME, DESC, ARGS].iter().any(|&f| fields[f][i] > 0.0)
}
