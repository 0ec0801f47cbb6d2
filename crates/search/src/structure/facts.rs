//! Per-doc facts the ranker reads from the schema and the corpus, computed when an index
//! is built and again when a saved one is loaded (they are not saved).

use gqlnav_corpus::{split_identifier, Entry, EntryKind};
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::LabelRule;

use crate::analyzer::s_stem;
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

/// Per doc: the field is a *label* of its type (the `label` channel), by
/// [`LabelRule::Name`]: a non-null `String` without arguments whose name is one
/// lower-case word (`name`, `title`, `key`, `login`; not `licenceType`).
pub(super) fn label_fields(ctx: &SearchContext) -> Vec<bool> {
    ctx.corpus
        .entries
        .iter()
        .map(|e| {
            e.kind == EntryKind::Field && ctx.graph.is_label(&e.owner, &e.name, LabelRule::Name)
        })
        .collect()
}

/// Per doc: a root field returning many, a list or a connection (`Query.teams`): the
/// collection a question about many of a type reads (the `root` channel's `list_cap`).
pub(super) fn root_lists(ctx: &SearchContext) -> Vec<bool> {
    ctx.corpus
        .entries
        .iter()
        .map(|e| {
            ctx.graph.root_kind(&e.owner).is_some()
                && (e.return_type.trim_end_matches('!').starts_with('[')
                    || ctx.graph.wrapped_type(&e.named_type).is_some())
        })
        .collect()
}

/// Per doc: when the field returns a connection, that connection's count fields
/// ([`gqlnav_schema::Connection::count_fields`], such as `totalCount`); empty otherwise.
/// A counting question completes a top hit with them (`value_hits`).
pub(super) fn count_fields(ctx: &SearchContext) -> Vec<Vec<usize>> {
    let (graph, corpus) = (&ctx.graph, &ctx.corpus);
    per_field(ctx, |e| {
        let Some(c) = graph.connection(&e.named_type) else {
            return Vec::new();
        };
        c.count_fields
            .iter()
            .filter_map(|n| corpus.position(&format!("{}.{n}", e.named_type)))
            .collect()
    })
}

/// Per type document ([`super::docs::type_names`] order): the words of the type's name,
/// singular (`PullRequest` → `pull`, `request`), for an object, interface or union type
/// that is not a root; empty for the others. A question that says the name word for word
/// ("the seller order", "pull requests") names the type itself (the `named` channel).
pub(super) fn type_name_words(ctx: &SearchContext) -> Vec<Vec<String>> {
    let graph = &ctx.graph;
    super::docs::type_names(graph)
        .into_iter()
        .map(|n| {
            let shaped = matches!(
                graph.schema.types.get(n),
                Some(ExtendedType::Object(_) | ExtendedType::Interface(_) | ExtendedType::Union(_))
            );
            if !shaped || graph.root_kind(n).is_some() {
                return Vec::new();
            }
            split_identifier(n).iter().map(|w| s_stem(w)).collect()
        })
        .collect()
}

/// Per doc: the words of the field's name, singular (`mergeRequests` → `merge`,
/// `request`), for a field returning a connection with count fields ([`count_fields`]);
/// empty for the others. A counting question that says the name word for word ("how many
/// customers") counts that list (the `count` channel).
pub(super) fn counted_list_words(ctx: &SearchContext, count_of: &[Vec<usize>]) -> Vec<Vec<String>> {
    (ctx.corpus.entries.iter().zip(count_of))
        .map(|(e, counts)| {
            if counts.is_empty() {
                return Vec::new();
            }
            split_identifier(&e.name)
                .iter()
                .map(|w| s_stem(w))
                .collect()
        })
        .collect()
}

/// Per type document ([`super::docs::type_names`] order): the type itself and, for an
/// abstract type, the types it can stand for, for object, interface and union types;
/// empty for the others.
pub(super) fn shapes(ctx: &SearchContext) -> Vec<Vec<usize>> {
    let graph = &ctx.graph;
    let names = super::docs::type_names(graph);
    let pos = |n: &str| names.binary_search(&n).ok();
    names
        .iter()
        .map(|&n| match graph.schema.types.get(n) {
            Some(ExtendedType::Object(_)) => pos(n).into_iter().collect(),
            Some(ExtendedType::Interface(_) | ExtendedType::Union(_)) => {
                let mut v: Vec<usize> = pos(n).into_iter().collect();
                v.extend(graph.possible_types(n).iter().filter_map(|m| pos(m)));
                v
            }
            _ => Vec::new(),
        })
        .collect()
}

/// Per doc: `f` of a field entry, nothing for other entries.
fn per_field(ctx: &SearchContext, f: impl Fn(&Entry) -> Vec<usize>) -> Vec<Vec<usize>> {
    ctx.corpus
        .entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Field => f(e),
            _ => Vec::new(),
        })
        .collect()
}

/// Per doc: when the field returns a connection or an edge type, the wrapper fields a
/// selection of it passes through ([`gqlnav_schema::SchemaGraph::wrapper_fields`]:
/// `nodes`, `edges`, the edge's `node`): the `conn` channel.
pub(super) fn connection_wrappers(ctx: &SearchContext) -> Vec<Vec<usize>> {
    let (graph, corpus) = (&ctx.graph, &ctx.corpus);
    corpus
        .entries
        .iter()
        .map(|e| {
            graph
                .wrapper_fields(&e.named_type)
                .iter()
                .filter_map(|f| corpus.position(&f.coordinate()))
                .collect()
        })
        .collect()
}

/// Per doc: the fields of the value object it returns ([`super::graph::value_object_fields`]),
/// except under connection and edge types (their `pageInfo` is paging, asked for by its
/// own words): the `value` channel and completions.
pub(super) fn value_fields(ctx: &SearchContext) -> Vec<Vec<usize>> {
    let (graph, corpus) = (&ctx.graph, &ctx.corpus);
    per_field(ctx, |e| {
        if graph.wrapped_type(&e.owner).is_some() {
            return Vec::new();
        }
        super::graph::value_object_fields(graph, corpus, &e.named_type)
    })
}
