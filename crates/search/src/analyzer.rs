//! Analyzers: how text becomes terms, for documents and for queries.
//!
//! * `standard` reproduces Lucene's `StandardAnalyzer()` as the seed instrument used it:
//!   UAX#29 word boundaries (so `Type.field` and `created_at` stay one token), lower-case,
//!   no stop words, no stemming, tokens cut at 255 characters.
//! * `identifier` is what a user should get: the same words, and every identifier also
//!   split on `.`, `_`, camelCase and acronyms (`defaultBranchRef` gives `defaultbranchref`,
//!   `default`, `branch`, `ref`), a light English plural stemmer (Harman's S-stemmer), and
//!   English stop words dropped from queries only, and so are the values a question
//!   quotes (`gitlab-org/gitlab`, URLs, e-mail addresses: [`is_value_literal`]); a
//!   counting question ("how many") gains the term `count` ([`asks_how_many`]), and a
//!   hyphenated word its joined form (`to-do` gives `todo`: [`joined_compounds`]).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use gqlnav_corpus::split_identifier;
use unicode_segmentation::UnicodeSegmentation;

use crate::SearchError;

/// A named analyzer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Analyzer {
    Standard,
    Identifier,
}

/// A general-purpose English stop list (Lucene's English set plus common question and
/// request words). It is not derived from any benchmark question. `list` is a request, as
/// `show` and `give`: as a query word it matched every type with `List` in its name
/// (measured 2026-12-05: docs/archive/history.md, "A field's name names its type").
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "did", "do", "does", "each", "for", "from", "get", "give", "had", "has", "have",
    "how", "i", "if", "in", "into", "is", "it", "its", "list", "me", "my", "no", "not", "of", "on",
    "or", "our", "please", "should", "show", "so", "some", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we", "were",
    "what", "when", "where", "which", "who", "whom", "whose", "why", "will", "with", "would",
    "you", "your",
];

pub(crate) fn is_stop(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// Harman's S-stemmer: a light plural stemmer.
pub fn s_stem(w: &str) -> String {
    if w.len() <= 3 || !w.is_ascii() {
        return w.to_string();
    }
    if w.ends_with("ies") && !w.ends_with("eies") && !w.ends_with("aies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.ends_with("es") && !w.ends_with("aes") && !w.ends_with("ees") && !w.ends_with("oes") {
        return w[..w.len() - 1].to_string();
    }
    if w.ends_with('s') && !w.ends_with("us") && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    w.to_string()
}

/// Is this whitespace-delimited chunk of a question a value the question quotes rather
/// than a word about the schema? A URL or global id (`gid://shop/Order/1`), an e-mail
/// address, or a path with a slash and a digit, `-`, `_` or `.` in it (`gitlab-org/gitlab`,
/// `octocat/Hello-World`, `owner-1/repo-1`). Such values become arguments of the
/// operation; their words (an owner named after the API, a repository called `payments`)
/// otherwise match type names and swamp the ranking. Plain word pairs (`merged/closed`,
/// `CI/CD`) are kept: they are how questions say "or".
pub fn is_value_literal(chunk: &str) -> bool {
    let c = chunk.trim_matches(|ch: char| "\"'`(),.?!:;[]{}<>".contains(ch));
    c.contains("://")
        || c.split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && b.contains('.'))
        || c.split_once('/').is_some_and(|(a, b)| {
            !a.is_empty()
                && !b.is_empty()
                && c.chars()
                    .any(|ch| ch.is_ascii_digit() || "-_.".contains(ch))
        })
}

/// The joined forms of a question's hyphenated words (`to-do` gives `todo`, `e-mail`
/// gives `email`, `sign-in` gives `signin`), each part letters only. A GraphQL name
/// cannot hold a hyphen, so schemas write such compounds joined (`Todo`, `emailAddress`),
/// while word boundaries split the question's form into parts that are often stop words
/// (`to`, `do`) and so vanish. The parts are kept as well. English spelling, not a list
/// from any schema or label. Measured (2026-12-03, docs/archive/history.md): retrieval
/// unchanged on github, linear and singapore, one dev slice 145 tokens smaller (linear's
/// "last-seen" ~ `lastSeen`), every other slice unchanged; held-out WG gitlab recall@50
/// 0.647 -> 0.672, auto slices 85.0% -> 90.0%.
pub fn joined_compounds(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace().filter_map(|chunk| {
        let c = chunk.trim_matches(|ch: char| !ch.is_alphanumeric());
        let compound = c.contains('-')
            && c.split('-')
                .all(|p| !p.is_empty() && p.chars().all(|ch| ch.is_alphabetic()));
        compound.then(|| c.replace('-', "").to_lowercase())
    })
}

/// The term a counting question adds ([`asks_how_many`]).
pub const COUNT_TERM: &str = "count";

/// Does the question ask for a number of things ("how many", "number of")? Schemas
/// answer that with count fields (`totalCount`, `issueCount`, `productsCount`), whose
/// names share no word with the English idiom, so the identifier analyzer adds the term
/// `count` to such a question. English grammar, not a list from any schema or label.
/// Measured (2026-12-03, docs/archive/history.md): retrieval recall@50 github 0.753 ->
/// 0.755 (MRR 0.612 -> 0.616), linear and singapore unchanged; held-out WG shopify
/// 0.681 -> 0.750, gitlab 0.639 -> 0.647, nautical 0.548 unchanged; slices unchanged.
pub fn asks_how_many(text: &str) -> bool {
    // Schema names (one word, analysed as queries by the slicer) skip the split.
    if !text.contains(char::is_whitespace) {
        return false;
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.windows(2).any(|w| {
        matches!(
            (w[0].as_str(), w[1].as_str()),
            ("how", "many") | ("number", "of")
        )
    })
}

/// The noun phrases a counting question counts: the words after each "how many" or
/// "number of", up to the next stop word, singular ("How many open issues does …" gives
/// `open`, `issue`; "the number of pull requests" gives `pull`, `request`). English
/// grammar, as [`asks_how_many`]; empty for a question that counts nothing.
pub fn counted_phrases(text: &str) -> Vec<Vec<String>> {
    if !text.contains(char::is_whitespace) {
        return Vec::new();
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut out = Vec::new();
    for k in 1..words.len() {
        if !matches!(
            (words[k - 1].as_str(), words[k].as_str()),
            ("how", "many") | ("number", "of")
        ) {
            continue;
        }
        let phrase: Vec<String> = words[k + 1..]
            .iter()
            .take_while(|w| !is_stop(w))
            .map(|w| s_stem(w))
            .collect();
        if !phrase.is_empty() {
            out.push(phrase);
        }
    }
    out
}

/// The question without its value literals ([`is_value_literal`]). Measured
/// (2026-12-03, docs/archive/history.md): retrieval recall@50 github 0.752 -> 0.753,
/// linear and singapore unchanged; held-out WG gitlab 0.557 -> 0.639, shopify 0.663 ->
/// 0.681; auto slices held-out WG gitlab 77.5% -> 82.5%, shopify 80.0% -> 87.5%, dev
/// unchanged.
///
/// A question made of values only (`octocat/hello-world`) keeps them: they are all it says.
pub fn strip_values(text: &str) -> Cow<'_, str> {
    // Schema names and most questions hold no value: no split, no copy.
    if !text.contains(['/', '@', ':']) {
        return Cow::Borrowed(text);
    }
    let kept = text
        .split_whitespace()
        .filter(|chunk| !is_value_literal(chunk))
        .collect::<Vec<_>>()
        .join(" ");
    if kept.chars().any(char::is_alphanumeric) {
        Cow::Owned(kept)
    } else {
        Cow::Borrowed(text)
    }
}

fn uax29_words(text: &str) -> impl Iterator<Item = &str> {
    text.unicode_words()
}

fn cut255(w: &str) -> Vec<String> {
    let chars: Vec<char> = w.chars().collect();
    if chars.len() <= 255 {
        return vec![w.to_lowercase()];
    }
    chars
        .chunks(255)
        .map(|c| c.iter().collect::<String>().to_lowercase())
        .collect()
}

impl Analyzer {
    pub fn name(self) -> &'static str {
        match self {
            Analyzer::Standard => "standard",
            Analyzer::Identifier => "identifier",
        }
    }

    /// Terms of a document text.
    pub fn index_terms(self, text: &str) -> Vec<String> {
        self.terms(text, false)
    }

    /// Terms of a query (repeated terms are kept: each counts once more).
    pub fn query_terms(self, text: &str) -> Vec<String> {
        self.terms(text, true)
    }

    fn terms(self, text: &str, query: bool) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Analyzer::Standard => {
                for w in uax29_words(text) {
                    out.extend(cut255(w));
                }
            }
            Analyzer::Identifier => {
                let stripped;
                let text = if query {
                    stripped = strip_values(text);
                    stripped.as_ref()
                } else {
                    text
                };
                if query && asks_how_many(text) {
                    out.push(COUNT_TERM.to_string());
                }
                if query && text.contains('-') {
                    out.extend(
                        joined_compounds(text)
                            .filter(|j| !is_stop(j))
                            .map(|j| s_stem(&j)),
                    );
                }
                for w in uax29_words(text) {
                    let whole = w.to_lowercase();
                    let parts = split_identifier(w);
                    let split = parts.len() > 1;
                    if split {
                        if !(query && is_stop(&whole)) {
                            out.push(whole.clone());
                        }
                        for p in parts {
                            // apostrophes: "repo's" -> "repo"
                            let p = p.trim_end_matches("'s").trim_matches('\'').to_string();
                            if p.is_empty() || (query && is_stop(&p)) {
                                continue;
                            }
                            out.push(s_stem(&p));
                        }
                    } else {
                        let p = whole.trim_end_matches("'s").trim_matches('\'').to_string();
                        if p.is_empty() || (query && is_stop(&p)) {
                            continue;
                        }
                        out.push(s_stem(&p));
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Analyzer {
    type Err = SearchError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Analyzer::Standard),
            "identifier" => Ok(Analyzer::Identifier),
            _ => Err(SearchError::UnknownAnalyzer(s.to_string())),
        }
    }
}

/// The analyzer as a tantivy tokenizer, so tantivy indexes exactly our terms.
#[derive(Clone)]
pub struct TantivyAnalyzer(pub Analyzer);

pub struct VecTokenStream {
    tokens: Vec<tantivy::tokenizer::Token>,
    i: usize,
}

impl tantivy::tokenizer::TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        if self.i < self.tokens.len() {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &tantivy::tokenizer::Token {
        &self.tokens[self
            .i
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1))]
    }
    fn token_mut(&mut self) -> &mut tantivy::tokenizer::Token {
        let i = self
            .i
            .saturating_sub(1)
            .min(self.tokens.len().saturating_sub(1));
        &mut self.tokens[i]
    }
}

impl tantivy::tokenizer::Tokenizer for TantivyAnalyzer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        let tokens = self
            .0
            .index_terms(text)
            .into_iter()
            .enumerate()
            .map(|(i, t)| tantivy::tokenizer::Token {
                offset_from: 0,
                offset_to: 0,
                position: i,
                text: t,
                position_length: 1,
            })
            .collect();
        VecTokenStream { tokens, i: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut s = STOP_WORDS.to_vec();
        s.sort_unstable();
        assert_eq!(s, STOP_WORDS);
    }

    #[test]
    fn counting_questions_ask_for_count_fields() {
        let t = Analyzer::Identifier.query_terms("How many open issues does it have?");
        assert!(t.contains(&COUNT_TERM.to_string()), "{t:?}");
        assert!(asks_how_many("the number of stars"));
        assert!(!asks_how_many("many issues, somehow"));
        assert!(!Analyzer::Identifier
            .query_terms("open issues")
            .contains(&COUNT_TERM.to_string()));
        // Documents and the standard analyzer are untouched.
        assert!(!Analyzer::Identifier
            .index_terms("how many")
            .contains(&COUNT_TERM.to_string()));
        assert!(!Analyzer::Standard
            .query_terms("how many")
            .contains(&COUNT_TERM.to_string()));
    }

    #[test]
    fn counted_phrases_are_the_words_after_how_many() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            counted_phrases("How many open issues does the repo have?"),
            vec![w(&["open", "issue"])]
        );
        assert_eq!(
            counted_phrases("the number of pull requests, and how many stars?"),
            vec![w(&["pull", "request"]), w(&["star"])]
        );
        assert!(counted_phrases("list the open issues").is_empty());
        assert!(counted_phrases("how many").is_empty());
        assert!(counted_phrases("totalCount").is_empty());
    }

    #[test]
    fn hyphenated_words_also_match_joined() {
        let t = Analyzer::Identifier.query_terms("What are my pending to-do items?");
        assert!(t.contains(&"todo".to_string()), "{t:?}");
        let t = Analyzer::Identifier.query_terms("Which e-mail addresses, sign-ins?");
        assert!(t.contains(&"email".to_string()), "{t:?}");
        assert!(t.contains(&"signin".to_string()), "{t:?}");
        assert!(t.contains(&"mail".to_string()), "parts are kept: {t:?}");
        // Numbers, slugs with digits and plain words are not compounds.
        let t = Analyzer::Identifier.query_terms("release v3-beta, issue ENG-99, mobile app");
        assert!(!t.iter().any(|w| w == "v3beta" || w == "eng99"), "{t:?}");
        // Documents and the standard analyzer are untouched.
        assert!(!Analyzer::Identifier
            .index_terms("a to-do item")
            .contains(&"todo".to_string()));
        assert!(!Analyzer::Standard
            .query_terms("a to-do item")
            .contains(&"todo".to_string()));
    }

    #[test]
    fn quoted_values_are_not_query_terms() {
        let q = "Who is assigned to issue #4521 in gitlab-org/gitlab, and its state?";
        let t = Analyzer::Identifier.query_terms(q);
        assert!(!t.iter().any(|w| w == "gitlab" || w == "org"), "{t:?}");
        assert!(t.iter().any(|w| w == "issue") && t.iter().any(|w| w == "state"));
        for v in [
            "gid://shop/Order/450789469?",
            "jane.doe@example.com,",
            "(octocat/Hello-World)",
            "owner-1/repo-1",
            "https://example.com/a",
        ] {
            assert!(is_value_literal(v), "{v}");
        }
        for w in [
            "merged/closed",
            "CI/CD",
            "additions/deletions",
            "@mention",
            "a/",
        ] {
            assert!(!is_value_literal(w), "{w}");
        }
        // A question made of values only keeps them.
        let t = Analyzer::Identifier.query_terms("octocat/hello-world?");
        assert!(t.contains(&"octocat".to_string()), "{t:?}");
        // Documents keep every word; the standard analyzer is untouched.
        assert!(Analyzer::Identifier
            .index_terms("gitlab-org/gitlab")
            .contains(&"gitlab".to_string()));
        assert!(Analyzer::Standard
            .query_terms(q)
            .contains(&"gitlab".to_string()));
    }

    #[test]
    fn standard_keeps_coordinates_whole() {
        let t = Analyzer::Standard
            .index_terms("GraphQL field Movie.releaseYear. Owner type: Movie. created_at");
        assert_eq!(
            t,
            [
                "graphql",
                "field",
                "movie.releaseyear",
                "owner",
                "type",
                "movie",
                "created_at"
            ]
        );
    }

    #[test]
    fn identifier_splits_and_stems() {
        let t = Analyzer::Identifier.index_terms("Repository.pullRequests");
        assert_eq!(
            t,
            ["repository.pullrequests", "repository", "pull", "request"]
        );
        let q = Analyzer::Identifier.query_terms("What are the open issues of a repository?");
        assert_eq!(q, ["open", "issue", "repository"]);
    }

    #[test]
    fn s_stemmer_rules() {
        for (word, stem) in [
            ("issues", "issue"),
            ("repositories", "repository"),
            ("status", "status"),
            ("class", "class"),
            ("goes", "goe"),
        ] {
            assert_eq!(s_stem(word), stem, "{word}");
        }
    }
}
