//! `swan`: the schema search of the Swan GraphQL MCP, reproduced as a measured baseline.
//!
//! Its index is a breadth-first walk of every field reachable from the operation roots,
//! each with its depth, parent type, return type and description. A question scores a
//! field as
//!
//! ```text
//! (3 · name + 2 · description + parent) / depth
//! ```
//!
//! and each hit comes with its walk to the root. That is the whole ranker; nothing of
//! ours (no stemming, stop words, type relevance or graph channels) is added.
//!
//! Where the description of the original leaves a detail open, this is what we chose:
//! - **Words.** The question and every identifier are split into lower-cased words
//!   ([`gqlnav_corpus::split_identifier`]: camelCase, acronyms, `_`, punctuation);
//!   descriptions are split on anything that is not a letter or digit. Question words are
//!   counted once each (a set); words of one character are dropped.
//! - **name** = how many question words are among the field name's words;
//!   **description** = how many are among the description's words; **parent** = 1 when
//!   any question word is among the parent type's name words, else 0 ("counted once").
//! - **depth** = BFS depth from the nearest root: the root's own fields are at depth 1, a
//!   field of a type first reached through a depth-d field is at depth d + 1. The roots
//!   are Query and Mutation (the original walks up to either); subscription fields are
//!   not indexed. An interface or union reached at depth d makes its possible types
//!   reachable at the same depth (the walk goes through the fragment, not a field).
//! - Only fields are indexed (arguments, input fields, enum values and type entries are
//!   not); fields no root reaches are not indexed. A score of 0 is no hit. Ties go to
//!   the shallower field, then to corpus order.
//! - The answer cap (`--max-chars`, 10,000 by default) belongs to the surface that
//!   prints hits (`gqlnav search`); ranking metrics are computed on the ranked list.

use std::collections::{HashMap, HashSet, VecDeque};

use gqlnav_corpus::{split_identifier, EntryKind};
use gqlnav_schema::RootKind;

use crate::{Query, Scored, SearchBackend, SearchContext, SearchError};

/// The default answer cap of the original, in characters.
pub const SWAN_MAX_CHARS: usize = 10_000;

/// One indexed field.
#[derive(Debug, Clone)]
struct Indexed {
    doc: usize,
    depth: u32,
    name: HashSet<String>,
    description: HashSet<String>,
    parent: HashSet<String>,
}

/// The depth-scored BFS ranker.
#[derive(Debug, Clone, Default)]
pub struct SwanBackend {
    fields: Vec<Indexed>,
}

impl SwanBackend {
    pub fn new() -> Self {
        SwanBackend::default()
    }

    /// Fields indexed (those a root reaches).
    pub fn indexed(&self) -> usize {
        self.fields.len()
    }
}

/// Lower-cased words of free text (letters and digits), one character or longer.
fn text_words(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .flat_map(split_identifier)
        .collect()
}

/// The question's distinct words of two characters or more.
fn question_words(q: &Query) -> HashSet<String> {
    let mut text = q.text.clone();
    for s in &q.sub_queries {
        text.push(' ');
        text.push_str(s);
    }
    text_words(&text)
        .into_iter()
        .filter(|w| w.chars().count() > 1)
        .collect()
}

/// BFS depth of every type from the Query and Mutation roots: a root is at 0, the type a
/// depth-d type's field returns is at d + 1, an abstract type's possible types at its own
/// depth.
fn type_depths(ctx: &SearchContext) -> HashMap<String, u32> {
    let mut returns: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in &ctx.corpus.entries {
        if e.kind == EntryKind::Field {
            returns
                .entry(e.owner.as_str())
                .or_default()
                .push(e.named_type.as_str());
        }
    }
    let mut depth: HashMap<String, u32> = HashMap::new();
    let mut queue = VecDeque::new();
    for kind in [RootKind::Query, RootKind::Mutation] {
        if let Some(r) = ctx.graph.root(kind) {
            if depth.insert(r.to_string(), 0).is_none() {
                queue.push_back(r.to_string());
            }
        }
    }
    while let Some(ty) = queue.pop_front() {
        let d = depth[&ty];
        // Possible types first, at the same depth (0-1 BFS: they go to the front).
        for member in ctx.graph.possible_types(&ty) {
            if depth.get(&member).is_none_or(|&m| m > d) {
                depth.insert(member.clone(), d);
                queue.push_front(member);
            }
        }
        for next in returns.get(ty.as_str()).into_iter().flatten() {
            if !depth.contains_key(*next) {
                depth.insert(next.to_string(), d + 1);
                queue.push_back(next.to_string());
            }
        }
    }
    depth
}

impl SearchBackend for SwanBackend {
    fn name(&self) -> String {
        "swan".into()
    }

    fn index(&mut self, ctx: &SearchContext) -> Result<(), SearchError> {
        let depths = type_depths(ctx);
        self.fields = ctx
            .corpus
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind == EntryKind::Field)
            .filter_map(|(doc, e)| {
                let d = *depths.get(&e.owner)?;
                Some(Indexed {
                    doc,
                    depth: d + 1,
                    name: split_identifier(&e.name).into_iter().collect(),
                    description: text_words(&e.description),
                    parent: split_identifier(&e.owner).into_iter().collect(),
                })
            })
            .collect();
        Ok(())
    }

    fn search(&self, query: &Query, k: usize) -> Result<Vec<Scored>, SearchError> {
        let words = question_words(query);
        let mut scored: Vec<(f32, u32, usize, [f32; 3])> = self
            .fields
            .iter()
            .filter_map(|f| {
                let name = words.iter().filter(|w| f.name.contains(*w)).count() as f32;
                let desc = words.iter().filter(|w| f.description.contains(*w)).count() as f32;
                let parent = if words.iter().any(|w| f.parent.contains(w)) {
                    1.0
                } else {
                    0.0
                };
                let raw = 3.0 * name + 2.0 * desc + parent;
                (raw > 0.0).then(|| (raw / f.depth as f32, f.depth, f.doc, [name, desc, parent]))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        Ok(scored
            .into_iter()
            .take(k)
            .map(|(score, depth, doc, [n, d, p])| Scored {
                doc,
                score,
                explain: vec![
                    ("name".into(), n),
                    ("description".into(), d),
                    ("parent".into(), p),
                    ("depth".into(), depth as f32),
                ],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_identifiers_and_text() {
        let w = text_words("The pullRequests of a repository's owner.");
        for x in ["the", "pull", "requests", "of", "repository", "owner"] {
            assert!(w.contains(x), "{x} in {w:?}");
        }
        let q = question_words(&Query::new("a PR's reviewers"));
        assert!(q.contains("reviewers") && q.contains("pr") && !q.contains("a"));
    }
}
