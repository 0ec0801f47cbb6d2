//! The reader-only lifts of the structure ranker, applied to base scores before the
//! graph propagation: entry points (`root`), term balance (`balance`), labels (`label`)
//! and a field's name as another name for its type (`alias`). A slicer's ranking runs
//! none of them ([`crate::Purpose::Slice`]).

use super::StructureBackend;

use crate::analyzer::{counted_phrases, is_stop, s_stem};
use crate::bm25::Bm25Backend;
use crate::top_k_positive;
use crate::SearchError;

impl StructureBackend {
    /// Per doc, for the `root` channel: a root field returning many
    /// ([`super::facts::root_lists`]) whose whole name is a plural word of the question
    /// (a word of more than three letters ending in `s`): "which teams" and `Query.teams`,
    /// "what releases are there" and `Query.releases`. The question asks for many of the
    /// type, and this list is where they are.
    pub(super) fn plural_lists(&self, text: &str) -> Vec<bool> {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3 && w.ends_with('s'))
            .map(str::to_lowercase)
            .collect();
        let Some(ctx) = self.ctx.as_ref().filter(|_| !words.is_empty()) else {
            return Vec::new();
        };
        (ctx.corpus.entries.iter().enumerate())
            .map(|(i, e)| {
                self.root_list[i] && words.iter().any(|w| w.eq_ignore_ascii_case(&e.name))
            })
            .collect()
    }

    /// The `root` channel: a root field is an entry point to the type it returns, and
    /// its owner (the root) says nothing, so where other fields are lifted by their owner
    /// type's relevance a root field is lifted by the best of its own name's relevance
    /// (the normalised `name` channel: `customers` in "how many customers") and its
    /// return type's, at the owner-type scale (`owner_type` × 0.5) times `root`. The
    /// lifted base score stays under `root_cap` × the best base score (or its own base
    /// score when higher), and under `list_cap` × it for a list the question names by a
    /// plural word (`named`, [`StructureBackend::plural_lists`]). Returns each doc's lift
    /// (0 for the others), for `--explain`.
    pub(super) fn lift_root_fields(
        &self,
        name: &[f32],
        trel: &[f32],
        base: &mut [f32],
        named: &[bool],
    ) -> Vec<f32> {
        let w = &self.weights;
        let top = base.iter().copied().fold(0.0f32, f32::max);
        let mut lift = vec![0f32; base.len()];
        for (i, b) in base.iter_mut().enumerate() {
            if !self.root_field[i] {
                continue;
            }
            let ret = self.ret_of[i].map_or(0.0, |r| trel[r]);
            let l = w.root * w.owner_type * name[i].max(ret) * 0.5 / self.depth_factor(i);
            if l > 0.0 {
                let cap = if w.list_cap > 0.0 && named.get(i).is_some_and(|&x| x) {
                    w.list_cap
                } else {
                    w.root_cap
                };
                let lifted = (*b + l).min((cap * top).max(*b));
                lift[i] = lifted - *b;
                *b = lifted;
            }
        }
        lift
    }

    /// The `balance` channel, for a reader: term balance. Every field of a type the
    /// question names gets the owner lift, and its second half when the field matches
    /// anything (the rendered text carries the owner's name, so every field of the type
    /// does); one word naming a big type ("marketplace" for a configuration of 60 fields)
    /// then fills the list with fields that match nothing else. Among the fields of one
    /// type that match no question word of their own (`wordless[i]` > 0: that second
    /// half), the first `balance_keep` by base score keep it (their short rendered texts
    /// rank first: `body`, `createdAt`) and the others keep `balance_share` of it.
    pub(super) fn balance(&self, wordless: &[f32], base: &mut [f32]) {
        let w = &self.weights;
        let mut docs: Vec<usize> = (0..wordless.len()).filter(|&i| wordless[i] > 0.0).collect();
        // By owner type, then best base first (ties by corpus order).
        docs.sort_by(|&a, &b| {
            (self.owner_of[a].cmp(&self.owner_of[b]))
                .then(base[b].total_cmp(&base[a]))
                .then(a.cmp(&b))
        });
        let mut kept = 0;
        for (k, &i) in docs.iter().enumerate() {
            let same_type = k > 0 && self.owner_of[docs[k - 1]] == self.owner_of[i];
            kept = if same_type { kept + 1 } else { 1 };
            if kept > w.balance_keep {
                base[i] -= (1.0 - w.balance_share) * wordless[i];
            }
        }
    }

    /// The `label` channel, for a reader: a question about a type's items reads their
    /// labels whether it names them or not ("which teams am I a member of" shows each
    /// team's `name`, "what issues are assigned to me" each issue's `title`). Each label
    /// field ([`facts::label_fields`]) gets `label` × the owner lift's second half
    /// (`owner_type` × its type's relevance × 0.25, over the depth factor), but stays
    /// under the best base score among its type's other fields that match a question word
    /// of their own: a label follows what the question asks of the type and never passes
    /// it ("which clinics have a phone number listed": `telephone` stays above `name`).
    /// Its own base score is kept when higher. Returns each doc's lift, for `--explain`.
    pub(super) fn lift_labels(&self, own: &[bool], trel: &[f32], base: &mut [f32]) -> Vec<f32> {
        let w = &self.weights;
        let mut best = vec![f32::NEG_INFINITY; trel.len()];
        for i in (0..base.len()).filter(|&i| own[i] && !self.label[i]) {
            let t = self.owner_of[i];
            best[t] = best[t].max(base[i]);
        }
        let mut lift = vec![0f32; base.len()];
        for i in (0..base.len()).filter(|&i| self.label[i]) {
            let t = self.owner_of[i];
            let l = w.label * w.owner_type * trel[t] * 0.25 / self.depth_factor(i);
            if l <= 0.0 {
                continue;
            }
            let mut lifted = base[i] + l;
            if best[t].is_finite() {
                lifted = lifted.min((best[t] * 0.999).max(base[i]));
            }
            lift[i] = lifted - base[i];
            base[i] = lifted;
        }
        lift
    }

    /// The `alias` channel, for a reader: a field's name is another name for the type it
    /// returns (connections and lists unwrapped), so the question's match on the name
    /// (the normalised `name` channel) is a match on that type too: the type's relevance
    /// is at least `root_alias` × the match for a root field (`Query.customers` returns
    /// users, and "customers" names no type) and `field_alias` × it for any other field.
    pub(super) fn lend_aliases(&self, name: &[f32], trel: &mut [f32]) {
        let w = &self.weights;
        for (i, &m) in name.iter().enumerate().filter(|(_, &m)| m > 0.0) {
            let share = if self.root_field[i] {
                w.root_alias
            } else {
                w.field_alias
            };
            if let Some(r) = self.ret_of[i].filter(|_| share > 0.0) {
                trel[r] = trel[r].max(share * m);
            }
        }
    }

    /// The `bridge` channel, for a reader, on final scores: a link between two types the
    /// question is about. Each of the top `value_hits` hits that returns a relevant type A
    /// (`Repository.defaultBranchRef` → `Ref`) lends `bridge` × its score × r to the one
    /// field of A that leads furthest into the question: r is the best relevance among
    /// the type that field returns and, for an abstract type, the types it stands for
    /// (`Ref.target` → `GitObject`, which `Commit` implements), leaving out A and the
    /// hit's own owner (a way back is no bridge) and deprecated fields. Kept under the
    /// `seeds`-th score, as completions are. Returns each doc's lift, for `--explain`.
    pub(super) fn lift_bridges(&self, trel: &[f32], final_s: &mut [f32]) -> Vec<f32> {
        let w = &self.weights;
        let top = top_k_positive(final_s.iter().copied(), w.seeds);
        let cap = top.last().map_or(0.0, |h| h.score) * 0.999;
        let mut lift = vec![0f32; final_s.len()];
        for hit in top.iter().take(w.value_hits) {
            let Some(a) = self.ret_of[hit.doc] else {
                continue;
            };
            if trel.get(a).is_none_or(|&r| r <= 0.0) {
                continue;
            }
            let back = self.owner_of[hit.doc];
            // (field, r, its final score): the best r, then the better scored field.
            let mut best: Option<(usize, f32, f32)> = None;
            for &f in self.fields_of.get(a).into_iter().flatten() {
                // A deprecated field is no way on (the `deprecated` channel).
                if self.deprecated.get(f).is_some_and(|&d| d) && self.on("deprecated") {
                    continue;
                }
                let Some(b) = self.ret_of[f] else { continue };
                let r = (self.shapes_of.get(b).into_iter().flatten())
                    .filter(|&&t| t != back && t != a)
                    .map(|&t| trel.get(t).copied().unwrap_or(0.0))
                    .fold(0.0f32, f32::max);
                let better = best.is_none_or(|(_, br, bs)| (r, final_s[f]) > (br, bs));
                if r > 0.0 && better {
                    best = Some((f, r, final_s[f]));
                }
            }
            if let Some((f, r, _)) = best {
                lift[f] = lift[f].max((w.bridge * hit.score * r).min(cap));
            }
        }
        for (l, s) in lift.iter_mut().zip(final_s.iter_mut()) {
            if *l > *s {
                *s = *l;
            } else {
                *l = 0.0;
            }
        }
        lift
    }

    /// For a counting question: per doc, whether it is a list the question counts: its
    /// name, word for word, within a phrase after "how many" or "number of"
    /// ([`counted_phrases`]: "how many customers" and `Query.customers`, "how many open
    /// merge requests" and `Project.mergeRequests`, not `User.organizations` in "how many
    /// repositories does the organization own"). Only docs with count fields
    /// ([`facts::counted_list_words`](super::facts::counted_list_words)).
    pub(super) fn counted_lists(&self, text: &str) -> Vec<bool> {
        let phrases = counted_phrases(text);
        let said = |name: &[String]| {
            !name.is_empty()
                && phrases.iter().any(|p| {
                    p.len() >= name.len()
                        && (0..=p.len() - name.len()).any(|k| p[k..k + name.len()] == *name)
                })
        };
        self.list_words.iter().map(|n| said(n)).collect()
    }

    /// The `named` channel, for a reader: a question that says a type's name word for
    /// word ("the seller order", "pull requests" and `PullRequest`; plurals singular)
    /// names that type, however common its words are in the schema. An API's central
    /// types carry its commonest words (`Order` in `OrderLine`, `OrderEvent`, …), so their
    /// BM25 relevance is lowest exactly where a question is about them.
    ///
    /// A type named next to a value (a quoted string, or a chunk with a digit or a word
    /// the schema never uses: "the octocat/example repository", `seller "U2VsbGVy…"`) is
    /// where the question starts, not what it asks about: a *locator*. The others are
    /// *subjects*, and their relevance is at least `named_type` (in `trel`). Returns each
    /// type's relevance as the owner of a link (a field returning another type): `trel`,
    /// and at least `named_type` for the locators too, so that a locator lifts its entry
    /// points and its links to the subjects ([`StructureBackend::owner_rel`]) and not its
    /// other fields.
    pub(super) fn lift_named_types(
        &self,
        fields: &Bm25Backend,
        text: &str,
        trel: &mut [f32],
    ) -> Result<Vec<f32>, SearchError> {
        let w = self.weights.named_type;
        let (words, valueish) = question_words(text, |t| fields.knows(t))?;
        let mut link_rel = vec![0f32; trel.len()];
        for (t, name) in self.name_words.iter().enumerate() {
            if name.is_empty() || t >= trel.len() || words.len() < name.len() {
                continue;
            }
            // Some(true) while every mention so far is next to a value.
            let mut locator = None;
            for k in 0..=words.len() - name.len() {
                if (0..name.len()).all(|m| words[k + m].0 == name[m]) {
                    let (first, last) = (words[k].1, words[k + name.len() - 1].1);
                    let by_value = (first > 0 && valueish[first - 1])
                        || valueish.get(last + 1).is_some_and(|&v| v);
                    locator = Some(locator.unwrap_or(true) && by_value);
                }
            }
            match locator {
                Some(false) => {
                    trel[t] = trel[t].max(w);
                    link_rel[t] = w;
                }
                Some(true) => link_rel[t] = w,
                None => {}
            }
        }
        for (l, &t) in link_rel.iter_mut().zip(trel.iter()) {
            *l = l.max(t);
        }
        Ok(link_rel)
    }
}

/// The question's words, each with its chunk's index, and per chunk whether it is a value.
type Words = (Vec<(String, usize)>, Vec<bool>);

/// The question's words for the `named` channel, each with the index of its whitespace
/// chunk, and per chunk whether it is a *value*: quoted, or holding a digit or a word the
/// schema never uses (no indexed field holds it: a login, a slug, an id; a stop word is no
/// value). A value's words are not words; a chunk of digits alone is a count ("the first 5
/// results"), not a value. Stop words are left out, as the query analyzer leaves them out.
fn question_words(
    text: &str,
    knows: impl Fn(&str) -> Result<bool, SearchError>,
) -> Result<Words, SearchError> {
    let chunks: Vec<&str> = text.split_whitespace().collect();
    let mut words = Vec::new();
    let mut valueish = vec![false; chunks.len()];
    for (j, raw) in chunks.iter().enumerate() {
        let c = raw
            .trim_end_matches(['.', ',', '?', '!', ':', ';', ')'])
            .trim_end_matches("'s")
            .trim_end_matches("\u{2019}s");
        if c.chars().all(|ch| ch.is_ascii_digit()) {
            continue;
        }
        let quoted = c.starts_with(['"', '\u{201c}', '\'', '`', '\u{2018}'])
            || c.ends_with(['"', '\u{201d}', '`']);
        let parts: Vec<String> = c
            .split(|ch: char| !ch.is_alphanumeric())
            .filter(|p| !p.is_empty())
            .map(|p| s_stem(&p.to_lowercase()))
            .collect();
        let mut unknown = false;
        for p in &parts {
            if p.chars().any(|ch| ch.is_ascii_digit()) || !(is_stop(p) || knows(p)?) {
                unknown = true;
                break;
            }
        }
        valueish[j] = quoted || unknown;
        if !valueish[j] {
            words.extend(parts.into_iter().filter(|p| !is_stop(p)).map(|p| (p, j)));
        }
    }
    Ok((words, valueish))
}
