//! Lexical relevance of schema names to a question: the test that decides which optional
//! arguments, input fields and enum values a slice keeps.
//!
//! Both sides go through the identifier analyzer (camelCase / snake_case split, stop
//! words dropped from the question, plural stemming). A name term matches a question
//! term when they are equal, or when one is a prefix of the other, both have at least
//! four characters and they differ by at most three (`filter` ~ `filtered`,
//! `order` ~ `ordered`). With shared stems ([`Relevance::with_shared_stems`], slices
//! without a budget) two terms also match when they share a beginning of at least
//! [`SHARED_STEM_MIN`] characters that neither extends by more than three (`assigned` ~
//! `assignee`, `protected` ~ `protection`). No word list is
//! involved.

use std::collections::HashSet;

use gqlnav_search::Analyzer;

/// The pagination argument names (the WG `buildSlice` keeps all four on every field).
pub const PAGINATION_ARGS: [&str; 4] = ["first", "after", "last", "before"];

/// The pagination arguments a slice always keeps: forward paging (`first`, `after`) is
/// enough to read any connection; `last`/`before` survive only when the question names
/// them, like any other optional argument.
pub const FORWARD_PAGINATION_ARGS: [&str; 1] = ["first"];

/// Shortest shared beginning by which two different words match as one stem with two
/// endings (`assign|ed` ~ `assign|ee`, six characters and more). Slices without a budget
/// use it (measured 2026-12-03, docs/archive/history.md): dev auto slices unchanged in
/// grade at +1 / +6 o200k (github / linear); 4 and 5 characters add more (+29 / +47, +15 /
/// +39) for the same grades, so each pair of dev APIs picks 6 among them.
pub const SHARED_STEM_MIN: usize = 6;

/// The question's terms.
#[derive(Debug, Clone, Default)]
pub struct Relevance {
    terms: HashSet<String>,
    /// Also match terms sharing a stem ([`SHARED_STEM_MIN`]).
    shared_stems: bool,
}

fn close(a: &str, b: &str, shared_stems: bool) -> bool {
    if a == b {
        return true;
    }
    let (s, l) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if s.len() >= 4 && l.len() - s.len() <= 3 && l.starts_with(s) {
        return true;
    }
    shared_stems && {
        let p = s.bytes().zip(l.bytes()).take_while(|(x, y)| x == y).count();
        p >= SHARED_STEM_MIN && l.len() - p <= 3
    }
}

impl Relevance {
    /// Terms of the question text and its sub-asks.
    pub fn new(text: &str, sub_queries: &[String]) -> Self {
        let mut terms = HashSet::new();
        for t in std::iter::once(text).chain(sub_queries.iter().map(String::as_str)) {
            for w in Analyzer::Identifier.query_terms(t) {
                if w.len() >= 2 && !w.chars().all(|c| c.is_ascii_digit()) {
                    terms.insert(w);
                }
            }
        }
        Relevance {
            terms,
            shared_stems: false,
        }
    }

    /// Also match terms that share a stem of at least [`SHARED_STEM_MIN`] characters,
    /// each ending at most three characters after it (`assigned` ~ `assigneeUsername`):
    /// how a question says "assigned to" of an argument named for the assignee. Slices
    /// without a budget use it; under a budget each kept argument costs room (b2000
    /// linear 68.0% -> 67.5% with it).
    pub fn with_shared_stems(mut self) -> Self {
        self.shared_stems = true;
        self
    }

    /// No terms at all (nothing is relevant).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Does a schema name (identifier or enum value) share a term with the question?
    pub fn name_matches(&self, name: &str) -> bool {
        if self.terms.is_empty() {
            return false;
        }
        self.terms_match(&name_terms(name))
    }

    /// [`Relevance::name_matches`] for a name already split by [`name_terms`].
    pub fn terms_match(&self, terms: &[String]) -> bool {
        terms.iter().any(|t| self.term_matches(t))
    }

    /// The question's terms.
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(String::as_str)
    }

    /// Does one name term match a question term?
    pub fn term_matches(&self, t: &str) -> bool {
        self.terms.contains(t) || self.terms.iter().any(|q| close(q, t, self.shared_stems))
    }
}

/// The terms a schema name is matched by: the identifier analyzer's terms of at least two
/// characters (enum values are SCREAMING_SNAKE; `_` splits them).
pub fn name_terms(name: &str) -> Vec<String> {
    let spaced = name.replace('_', " ");
    Analyzer::Identifier
        .query_terms(&spaced)
        .into_iter()
        .filter(|t| t.len() >= 2)
        .collect()
}

/// [`name_terms`] of every type, field, argument, input field and enum value name of a
/// schema, computed once per schema (a slice asks about thousands of names). Terms are
/// interned: a question tests each distinct term once ([`NameTerms::hits`]), and a name
/// then matches when one of its term ids is a hit.
#[derive(Debug, Default)]
pub struct NameTerms {
    map: rustc_hash::FxHashMap<String, Box<[u32]>>,
    terms: Vec<String>,
    /// Term ids by term.
    ids: rustc_hash::FxHashMap<String, u32>,
    /// Term ids in lexicographic order of their terms (for prefix ranges).
    sorted: Vec<u32>,
}

impl NameTerms {
    /// Split every name of the schema.
    pub fn new(graph: &gqlnav_schema::SchemaGraph) -> Self {
        use gqlnav_schema::apollo_compiler::schema::ExtendedType;
        let mut map: rustc_hash::FxHashMap<String, Box<[u32]>> = Default::default();
        let mut ids: rustc_hash::FxHashMap<String, u32> = Default::default();
        let mut terms: Vec<String> = Vec::new();
        let mut add = |n: &str| {
            if !map.contains_key(n) {
                let v: Vec<u32> = name_terms(n)
                    .into_iter()
                    .map(|t| {
                        *ids.entry(t.clone()).or_insert_with(|| {
                            terms.push(t);
                            (terms.len() - 1) as u32
                        })
                    })
                    .collect();
                map.insert(n.to_string(), v.into_boxed_slice());
            }
        };
        for (tn, t) in &graph.schema.types {
            add(tn.as_str());
            let fields = match t {
                ExtendedType::Object(o) => Some(&o.fields),
                ExtendedType::Interface(o) => Some(&o.fields),
                _ => None,
            };
            for (f, d) in fields.into_iter().flatten() {
                add(f.as_str());
                for a in &d.arguments {
                    add(a.name.as_str());
                }
            }
            match t {
                ExtendedType::InputObject(i) => {
                    for f in i.fields.keys() {
                        add(f.as_str());
                    }
                }
                ExtendedType::Enum(e) => {
                    for v in e.values.keys() {
                        add(v.as_str());
                    }
                }
                _ => {}
            }
        }
        let mut sorted: Vec<u32> = (0..terms.len() as u32).collect();
        sorted.sort_by(|&a, &b| terms[a as usize].cmp(&terms[b as usize]));
        NameTerms {
            map,
            terms,
            ids,
            sorted,
        }
    }

    /// The term ids of a schema name, if the schema has that name.
    pub fn ids(&self, name: &str) -> Option<&[u32]> {
        self.map.get(name).map(|b| &b[..])
    }

    /// The terms of a schema name, if the schema has that name.
    pub fn get(&self, name: &str) -> Option<Vec<String>> {
        self.ids(name)
            .map(|v| v.iter().map(|&i| self.terms[i as usize].clone()).collect())
    }

    /// Which interned terms match the question (indexed by term id): for each question
    /// term, itself, the terms it is a prefix of (a sorted range) and the prefixes of it
    /// that are terms; exactly [`Relevance::term_matches`] (tested).
    pub fn hits(&self, rel: &Relevance) -> Vec<bool> {
        let mut hits = vec![false; self.terms.len()];
        for q in rel.terms() {
            if let Some(&i) = self.ids.get(q) {
                hits[i as usize] = true;
            }
            if q.len() >= 4 {
                // Longer terms starting with q, at most three characters longer.
                self.mark_extensions(q, &mut hits);
            }
            if rel.shared_stems && q.len() >= SHARED_STEM_MIN {
                // Terms sharing a stem with q: beginning with one of q's first
                // SHARED_STEM_MIN.. characters and ending at most three after it.
                for cut in q.len().saturating_sub(3).max(SHARED_STEM_MIN)..q.len() {
                    if let Some(p) = q.get(..cut) {
                        self.mark_extensions(p, &mut hits);
                    }
                }
            }
            // Shorter terms (four characters or more) that q starts with.
            for cut in q.len().saturating_sub(3).max(4)..q.len() {
                if let Some(&i) = q.get(..cut).and_then(|p| self.ids.get(p)) {
                    hits[i as usize] = true;
                }
            }
        }
        hits
    }

    /// Mark the terms that start with `p` and are at most three characters longer (a
    /// range of the sorted terms).
    fn mark_extensions(&self, p: &str, hits: &mut [bool]) {
        let start = self
            .sorted
            .partition_point(|&i| self.terms[i as usize].as_str() < p);
        for &i in &self.sorted[start..] {
            let t = &self.terms[i as usize];
            if !t.starts_with(p) {
                break;
            }
            if t.len() - p.len() <= 3 {
                hits[i as usize] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_split_identifiers_and_inflections() {
        let r = Relevance::new("List the open pull requests, ordered by creation", &[]);
        assert!(r.name_matches("orderBy"));
        assert!(r.name_matches("OPEN"));
        assert!(r.name_matches("pullRequests"));
        assert!(!r.name_matches("labels"));
        assert!(!r.name_matches("by"));
        let f = Relevance::new("users filtered to admins", &[]);
        assert!(f.name_matches("filter"));
        assert!(f.name_matches("admin"));
        assert!(Relevance::new("", &[]).is_empty());
        for n in [
            "orderBy",
            "OPEN",
            "pullRequests",
            "labels",
            "by",
            "CHANGES_REQUESTED",
        ] {
            assert_eq!(r.terms_match(&name_terms(n)), r.name_matches(n), "{n}");
        }
    }

    #[test]
    fn shared_stems_match_two_endings_of_one_word() {
        let plain = Relevance::new(
            "merge requests assigned to alice on protected branches",
            &[],
        );
        let r = plain.clone().with_shared_stems();
        for n in ["assigneeUsername", "ASSIGNEE", "protectionLevel"] {
            assert!(!plain.name_matches(n), "{n}");
            assert!(r.name_matches(n), "{n}");
        }
        // a shared beginning under six characters, or an ending over three, is not one
        // stem (`assign|ment`, `merg|ing`, `prote|st`)
        for n in ["assignment", "merging", "protest", "assets"] {
            assert!(!r.name_matches(n), "{n}");
        }
        // what matched before still matches
        for n in ["mergeRequests", "branchName", "alice", "merged"] {
            assert_eq!(plain.name_matches(n), r.name_matches(n), "{n}");
        }
    }

    #[test]
    fn interned_hits_equal_term_matches_on_a_real_schema() {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benchmarks/wg/schemas/linear/schema.graphql"
        );
        let g = gqlnav_schema::load_file(std::path::Path::new(p)).unwrap();
        let nt = NameTerms::new(&g);
        assert!(nt.terms.len() > 500);
        for q in [
            "issues assigned to me in the current cycle with their labels",
            "archived projects ordered by creation date",
            "webhooks",
            "",
        ] {
            for r in [
                Relevance::new(q, &[]),
                Relevance::new(q, &[]).with_shared_stems(),
            ] {
                let hits = nt.hits(&r);
                for (i, t) in nt.terms.iter().enumerate() {
                    assert_eq!(hits[i], r.term_matches(t), "{q:?}: {t}");
                }
            }
        }
    }

    #[test]
    fn schema_name_terms_agree_with_splitting_each_name() {
        let sdl = "type Query { pullRequests(orderBy: PROrder, first: Int): [PR] }\n\
                   type PR { state: PRState }\n\
                   enum PRState { OPEN CHANGES_REQUESTED }\n\
                   input PROrder { field: String }";
        let g = gqlnav_schema::load_sdl_str(sdl, "t.graphql").unwrap();
        let nt = NameTerms::new(&g);
        for n in [
            "pullRequests",
            "orderBy",
            "first",
            "PRState",
            "CHANGES_REQUESTED",
            "field",
        ] {
            assert_eq!(nt.get(n), Some(name_terms(n)), "{n}");
        }
        assert!(nt.get("nothere").is_none());
        let r = Relevance::new("open pull requests ordered by state", &[]);
        let hits = nt.hits(&r);
        for (i, t) in nt.terms.iter().enumerate() {
            assert_eq!(hits[i], r.term_matches(t), "{t}");
        }
        for n in [
            "pullRequests",
            "orderBy",
            "first",
            "PRState",
            "OPEN",
            "field",
        ] {
            let via_ids = nt.ids(n).unwrap().iter().any(|&i| hits[i as usize]);
            assert_eq!(via_ids, r.name_matches(n), "{n}");
        }
    }
}
