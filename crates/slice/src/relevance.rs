//! Lexical relevance of schema names to a question: the test that decides which optional
//! arguments, input fields and enum values a slice keeps.
//!
//! Both sides go through the identifier analyzer (camelCase / snake_case split, stop
//! words dropped from the question, plural stemming). A name term matches a question
//! term when they are equal, or when one is a prefix of the other, both have at least
//! four characters and they differ by at most three (`filter` ~ `filtered`,
//! `order` ~ `ordered`). No word list is involved.

use std::collections::HashSet;

use gqlnav_search::Analyzer;

/// The pagination argument names (the WG `buildSlice` keeps all four on every field).
pub const PAGINATION_ARGS: [&str; 4] = ["first", "after", "last", "before"];

/// The pagination arguments a slice always keeps: forward paging (`first`, `after`) is
/// enough to read any connection; `last`/`before` survive only when the question names
/// them, like any other optional argument.
pub const FORWARD_PAGINATION_ARGS: [&str; 1] = ["first"];

/// The question's terms.
#[derive(Debug, Clone, Default)]
pub struct Relevance {
    terms: HashSet<String>,
}

fn close(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (s, l) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    s.len() >= 4 && l.len() - s.len() <= 3 && l.starts_with(s)
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
        Relevance { terms }
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
        // Enum values are SCREAMING_SNAKE; the analyzer splits on `_` and lowercases.
        let spaced = name.replace('_', " ");
        Analyzer::Identifier
            .query_terms(&spaced)
            .iter()
            .filter(|t| t.len() >= 2)
            .any(|t| self.terms.iter().any(|q| close(q, t)))
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
    }
}
