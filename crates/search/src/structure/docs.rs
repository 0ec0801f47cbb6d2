//! Documents that are not fields, each indexed on its own: *type documents* (the `type`
//! channel: type name and description) and *enum documents* (the `enum` channel: an enum's
//! value names).

use std::sync::Arc;

use gqlnav_corpus::{Corpus, EntryKind, OwnerKind};
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::SchemaGraph;

use super::normalise;
use crate::analyzer::Analyzer;
use crate::bm25::{Bm25Backend, Bm25Config, FieldSource};
use crate::{SearchBackend, SearchContext, SearchError};

/// A search context over documents that are not fields (types, enums): one entry per
/// `(coordinate, name text, description)`, its rendered text the name text.
fn doc_context(ctx: &SearchContext, docs: Vec<(String, String, String)>) -> SearchContext {
    let entries: Vec<gqlnav_corpus::Entry> = docs
        .into_iter()
        .map(|(coordinate, name, description)| gqlnav_corpus::Entry {
            owner: coordinate.clone(),
            coordinate,
            kind: EntryKind::Type,
            owner_kind: OwnerKind::Object,
            name,
            return_type: String::new(),
            named_type: String::new(),
            description,
            args: Vec::new(),
            deprecated: None,
        })
        .collect();
    let corpus = Arc::new(Corpus::from_entries(entries));
    let rendered = Arc::new(gqlnav_corpus::RenderedCorpus {
        rendering: ctx.rendered.rendering,
        encoding: ctx.rendered.encoding,
        texts: corpus.entries.iter().map(|e| e.name.clone()).collect(),
        tokens: vec![0; corpus.len()],
    });
    SearchContext::new(ctx.graph.clone(), corpus, rendered)
}

/// The names of the type documents, in their order (the schema's own types, sorted).
pub(super) fn type_names(graph: &SchemaGraph) -> Vec<&str> {
    let mut names: Vec<&str> = graph
        .schema
        .types
        .iter()
        .filter(|(n, t)| !n.starts_with("__") && !t.is_built_in())
        .map(|(n, _)| n.as_str())
        .collect();
    names.sort_unstable();
    names
}

/// Type documents: a corpus of type entries (sorted by name; coordinate = name),
/// indexed by name + description.
pub(super) fn type_context(ctx: &SearchContext) -> SearchContext {
    let graph: &SchemaGraph = &ctx.graph;
    let docs = type_names(graph)
        .iter()
        .map(|&n| {
            let desc = graph
                .schema
                .types
                .get(n)
                .and_then(|t| t.description())
                .map(|d| d.trim().to_string())
                .unwrap_or_default();
            (n.to_string(), n.to_string(), desc)
        })
        .collect();
    doc_context(ctx, docs)
}

/// The `enum` channel's index: a question word that names an enum *value* ("admins",
/// "closed", "central") and no type says which state or role the question is about, and
/// the fields returning that enum are where an agent reads it (`Issue.state`,
/// `OrganizationMemberEdge.role`); no name or description of theirs carries the word.
pub(super) struct EnumIndex {
    /// BM25 over enum documents: one per enum some field returns, its value names as the
    /// text (in memory: a few hundred short documents, built in milliseconds).
    bm25: Bm25Backend,
    /// Per doc: the enum document of the enum it returns.
    pub(super) returns: Vec<Option<usize>>,
    /// Every term of the schema's type names: question words that name a type say which
    /// type, not which value ("active cycle" names the cycle, not a view called
    /// `activeCycle`), so they are left out of the enum query.
    type_terms: std::collections::HashSet<String>,
}

impl EnumIndex {
    /// Each enum document's match with the question's words that name no type, scaled to
    /// [0, 1] by the best (empty when no such word matches).
    pub(super) fn score(&self, text: &str) -> Result<Vec<f32>, SearchError> {
        let words: Vec<String> = Analyzer::Identifier
            .query_terms(text)
            .into_iter()
            .filter(|t| !self.type_terms.contains(t))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let mut v = self.bm25.score_all(&words.join(" "))?;
        normalise(&mut v);
        Ok(v)
    }
}

/// Build the `enum` channel's index (see [`EnumIndex`]).
pub(super) fn enum_index(ctx: &SearchContext) -> Result<EnumIndex, SearchError> {
    let graph: &SchemaGraph = &ctx.graph;
    let mut names: Vec<&str> = ctx
        .corpus
        .entries
        .iter()
        .map(|e| e.named_type.as_str())
        .filter(|n| matches!(graph.schema.types.get(*n), Some(ExtendedType::Enum(_))))
        .collect();
    names.sort_unstable();
    names.dedup();
    let docs = names
        .iter()
        .map(|&n| {
            let values = match graph.schema.types.get(n) {
                Some(ExtendedType::Enum(e)) => e
                    .values
                    .keys()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => String::new(),
            };
            (n.to_string(), values, String::new())
        })
        .collect();
    let ectx = doc_context(ctx, docs);
    let mut eb = Bm25Backend::new(Bm25Config {
        analyzer: Analyzer::Identifier,
        k1: 1.2,
        b: 0.75,
        fields: vec![(FieldSource::Name, 1.0)],
    });
    eb.index(&ectx)?;
    let ret = ctx
        .corpus
        .entries
        .iter()
        .map(|e| names.binary_search(&e.named_type.as_str()).ok())
        .collect();
    // Every type name, built-in ones included: their words (type, field, value) name
    // schema things, not values.
    let type_terms = graph
        .schema
        .types
        .keys()
        .flat_map(|n| Analyzer::Identifier.index_terms(n.as_str()))
        .collect();
    Ok(EnumIndex {
        bm25: eb,
        returns: ret,
        type_terms,
    })
}
