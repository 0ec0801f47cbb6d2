//! `named` (reader): the types the question names, by three readings, each raising type
//! relevance before the `type` stage lifts by it.
//!
//! * **By their name**, word for word ("the seller order", "pull requests" and
//!   `PullRequest`; plurals singular), however common its words are in the schema: an
//!   API's central types carry its commonest words (`Order` in `OrderLine`, `OrderEvent`,
//!   …), so their BM25 relevance is lowest exactly where a question is about them. A type
//!   named next to a value (a quoted string, or a chunk with a digit or a word the schema
//!   never uses: "the octocat/example repository") is where the question starts, not what
//!   it asks about: a *locator*. The others are *subjects*, with relevance at least
//!   `named_type`. Each type also gets a relevance as the owner of a link
//!   ([`Scores::link_rel`]): at least `named_type` for locators too, so that a locator
//!   lifts its entry points and its links to the subjects ([`Scores::owner_rel`]) and not
//!   its other fields. Left-one-API-out: github left out recall@10 0.4739 -> 0.4946,
//!   linear 0.5089 -> 0.5261.
//! * **By a field's name**: a field's name is another name for the type it returns
//!   (connections and lists unwrapped), so the question's match on the name is a match on
//!   that type: at least `root_alias` × the match for a root field (`Query.customers`
//!   returns users, and "customers" names no type) and `field_alias` × it for any other.
//!   Without it nautical's recall@50 falls 0.7327 -> 0.6977.
//! * **By a pronoun**: in a question addressed to the caller ("my assigned issues",
//!   [`crate::addresses_caller`]) the caller's type has relevance at least `caller`; the
//!   `path` stage also reaches the question's types through the caller. Without it
//!   linear's recall@50 falls 0.8635 -> 0.8284.

use super::super::pipeline::{Question, Scores, Stage};
use super::super::StructureBackend;
use super::lexical::NAME;
use crate::analyzer::{is_stop, s_stem};
use crate::bm25::Bm25Backend;
use crate::SearchError;

pub(crate) struct Named;

impl Stage for Named {
    fn name(&self) -> &'static str {
        "named"
    }

    fn reader_only(&self) -> bool {
        true
    }

    fn relevance(
        &self,
        ix: &StructureBackend,
        q: &Question,
        s: &mut Scores,
    ) -> Result<(), SearchError> {
        if q.person {
            for t in ix.callers.types(&ix.owner_of) {
                s.trel[t] = s.trel[t].max(ix.weights.caller);
            }
        }
        lend_aliases(ix, s);
        if let Some(fields) = ix
            .fields_bm25
            .as_ref()
            .filter(|_| ix.weights.named_type > 0.0)
        {
            s.link_rel = lift_named_types(ix, fields, q.text, &mut s.trel)?;
        }
        Ok(())
    }
}

/// A field's name match lends its returned type relevance (see the module docs).
fn lend_aliases(ix: &StructureBackend, s: &mut Scores) {
    let w = &ix.weights;
    for (i, &m) in s.fields[NAME].iter().enumerate().filter(|(_, &m)| m > 0.0) {
        let share = if ix.root_field[i] {
            w.root_alias
        } else {
            w.field_alias
        };
        if let Some(r) = ix.ret_of[i].filter(|_| share > 0.0) {
            s.trel[r] = s.trel[r].max(share * m);
        }
    }
}

/// The types the question names: raises `trel` for subjects, returns the link relevance.
fn lift_named_types(
    ix: &StructureBackend,
    fields: &Bm25Backend,
    text: &str,
    trel: &mut [f32],
) -> Result<Vec<f32>, SearchError> {
    let w = ix.weights.named_type;
    let (words, valueish) = question_words(text, |t| fields.knows(t))?;
    let mut link_rel = vec![0f32; trel.len()];
    for (t, name) in ix.name_words.iter().enumerate() {
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
