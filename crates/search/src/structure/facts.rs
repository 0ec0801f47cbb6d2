//! Per-doc facts the ranker reads from the schema and the corpus, computed when an index
//! is built and again when a saved one is loaded (they are not saved).

use gqlnav_corpus::EntryKind;
use gqlnav_schema::apollo_compiler::schema::ExtendedType;

use super::unwrap_connection;
use crate::SearchContext;

/// Per doc: whether its owner is a root type (the field is an entry point).
pub(super) fn root_fields(ctx: &SearchContext) -> Vec<bool> {
    ctx.corpus
        .entries
        .iter()
        .map(|e| ctx.graph.root_kind(&e.owner).is_some())
        .collect()
}

/// Per doc: the field is deprecated (the `deprecated` demotion).
pub(super) fn deprecated_fields(ctx: &SearchContext) -> Vec<bool> {
    ctx.corpus
        .entries
        .iter()
        .map(|e| e.deprecated.is_some())
        .collect()
}

/// Per doc: when the field returns a connection, that connection's count fields (its
/// non-list `Int` fields, such as `totalCount`); empty otherwise. A counting question
/// completes a top hit with them (`value_hits`).
pub(super) fn count_fields(ctx: &SearchContext) -> Vec<Vec<usize>> {
    let graph = &ctx.graph;
    let corpus = &ctx.corpus;
    corpus
        .entries
        .iter()
        .map(|e| {
            if e.kind != EntryKind::Field || unwrap_connection(graph, &e.named_type).is_none() {
                return Vec::new();
            }
            let Some(ExtendedType::Object(o)) = graph.schema.types.get(e.named_type.as_str())
            else {
                return Vec::new();
            };
            o.fields
                .iter()
                .filter(|(_, f)| !f.ty.is_list() && f.ty.inner_named_type().as_str() == "Int")
                .filter_map(|(n, _)| corpus.position(&format!("{}.{n}", e.named_type)))
                .collect()
        })
        .collect()
}
