//! Schema-graph facts the ranker reads: the node behind a connection, the collection
//! path of a type reached only through lookups by key, and the fields of value objects.

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{PathOptions, SchemaGraph};

/// The node type behind a connection or edge type
/// ([`SchemaGraph::wrapped_type`], defined in gqlnav-schema).
pub fn unwrap_connection(graph: &SchemaGraph, ty: &str) -> Option<String> {
    graph.wrapped_type(ty)
}

/// The collection path to `ty` ([`collection_path`]) when none of its `cheapest` root
/// paths is one (they are all lookups by key); `None` otherwise. The ranker lends it the
/// path share, and the search page lists it among the ways in.
pub fn lookup_collection_path(
    graph: &SchemaGraph,
    ty: &str,
    cheapest: &[Vec<String>],
) -> Option<Vec<String>> {
    if cheapest.iter().any(|p| is_collection_path(graph, p, ty)) {
        return None;
    }
    collection_path(graph, ty)
}

/// The cheapest root path to `ty` through a collection of it that can be *selected
/// from*: the field returning the list or the connection takes arguments (a filter, a
/// page size) and requires none, when none of `ways` is such a path; `None` otherwise.
/// A fixed list with no arguments (an "archived" or "recently used" list) is not the
/// collection a question about many of a type reads. Among paths of equal cost, the collection
/// field whose name adds the fewest words to the type's name comes first (`teams`
/// before `administrableTeams` for `Team`), then the schema graph's path order. The
/// search page lists it among the ways in.
pub fn selectable_collection_path(
    graph: &SchemaGraph,
    ty: &str,
    ways: &[Vec<String>],
) -> Option<Vec<String>> {
    if ways
        .iter()
        .any(|p| selectable_collection_field(graph, p, ty).is_some())
    {
        return None;
    }
    let own = crate::Analyzer::Identifier.index_terms(ty);
    let qualifiers = |field: &str| {
        crate::Analyzer::Identifier
            .index_terms(field)
            .iter()
            .filter(|w| !own.contains(w))
            .count()
    };
    let opts = PathOptions {
        max_paths: SELECTABLE_PATH_CHOICES,
        ..PathOptions::default()
    };
    let mut best: Option<((u64, usize, usize), Vec<String>)> = None;
    for (owner, coord, d) in collection_fields(graph, ty) {
        for p in graph.paths_to_type(&owner, Some(&coord), opts) {
            let Some(field) = selectable_collection_field(graph, &p, ty) else {
                continue;
            };
            let name = field.split_once('.').map_or("", |x| x.1);
            // Milli-units, as the graph's hop costs: a total order on the distance.
            let key = ((d * 1000.0).round() as u64, qualifiers(name), p.len());
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, p));
            }
        }
    }
    best.map(|b| b.1)
}

/// Paths compared per collection field by [`selectable_collection_path`].
const SELECTABLE_PATH_CHOICES: usize = 8;

/// The fields producing `ty` that are collections of it ([`is_collection_path`]), each as
/// (owner, `Owner.field`, the owner's distance from the query root), in producer order;
/// owners the query root cannot reach are left out.
fn collection_fields(graph: &SchemaGraph, ty: &str) -> Vec<(String, String, f64)> {
    let Some(query) = graph.root(gqlnav_schema::RootKind::Query) else {
        return Vec::new();
    };
    graph
        .producers(ty)
        .iter()
        .filter_map(|fr| {
            let coord = format!("{}.{}", fr.owner, fr.field);
            if !is_collection_path(graph, std::slice::from_ref(&coord), ty) {
                return None;
            }
            // A list of `ty` on `ty` itself is a relation among its items.
            if fr.owner == ty {
                return None;
            }
            let d = if fr.owner == query {
                0.0
            } else {
                graph.distance_from_root(gqlnav_schema::RootKind::Query, &fr.owner)?
            };
            Some((fr.owner.clone(), coord, d))
        })
        .collect()
}

/// The cheapest root path that reaches `ty` through a collection of it (a field
/// returning a list of `ty`, or the `nodes`/`node` field of its connection or edge),
/// in the schema graph's path order; `None` when there is none.
fn collection_path(graph: &SchemaGraph, ty: &str) -> Option<Vec<String>> {
    let mut best: Option<(f64, Vec<String>)> = None;
    for (owner, coord, d) in collection_fields(graph, ty) {
        if best.as_ref().is_some_and(|(bd, _)| *bd <= d) {
            continue;
        }
        let one = PathOptions {
            max_paths: 1,
            ..PathOptions::default()
        };
        if let Some(p) = graph
            .paths_to_type(&owner, Some(&coord), one)
            .into_iter()
            .next()
        {
            best = Some((d, p));
        }
    }
    best.map(|b| b.1)
}

/// The field of a root path that returns its collection of `ty` ([`is_collection_path`])
/// when it takes arguments and requires none: the list field itself, or the field
/// returning the connection whose `nodes` (or edge's `node`) ends the path; `None`
/// otherwise. A list that requires an argument is a search by that key
/// (`issueFigmaFileKeySearch(fileKey:)`), not the list of all.
fn selectable_collection_field<'p>(
    graph: &SchemaGraph,
    path: &'p [String],
    ty: &str,
) -> Option<&'p str> {
    if !is_collection_path(graph, path, ty) {
        return None;
    }
    // Step back over the connection and edge fields to the field that returns them.
    let mut i = path.len().checked_sub(1)?;
    while i > 0 {
        let owner = path[i].split_once('.').map_or("", |x| x.0);
        if graph.wrapped_type(owner).is_none_or(|n| n != ty) {
            break;
        }
        i -= 1;
    }
    let c = path[i].as_str();
    let (owner, name) = c.split_once('.')?;
    let f = match graph.schema.types.get(owner)? {
        ExtendedType::Object(o) => o.fields.get(name),
        ExtendedType::Interface(i) => i.fields.get(name),
        _ => None,
    }?;
    let required = f
        .arguments
        .iter()
        .any(|a| a.ty.is_non_null() && a.default_value.is_none());
    (!f.arguments.is_empty() && !required).then_some(c)
}

/// Whether a root path reaches type `ty` through a collection of `ty` itself: its last
/// field returns a list of `ty`, or sits on a connection or edge type of `ty`
/// (`…Connection.nodes`, `…Edge.node`). A list of an abstract type that merely contains
/// `ty` (a generic search) does not count, nor does a path that reaches `ty` before its
/// last hop ([`passes_through`]). Measured (docs/ranking.md, "Relations are not
/// collections"): no dev figure moves; held-out Nautical's `Query.products` joins a
/// question about many products (rank past 100 -> 14), its `Query.product >
/// Product.recommendedProducts` having stood for the collection of products.
fn is_collection_path(graph: &SchemaGraph, path: &[String], ty: &str) -> bool {
    let Some((owner, name)) = path.last().and_then(|c| c.split_once('.')) else {
        return false;
    };
    let field = match graph.schema.types.get(owner) {
        Some(ExtendedType::Object(o)) => o.fields.get(name),
        Some(ExtendedType::Interface(i)) => i.fields.get(name),
        _ => None,
    };
    let Some(f) = field else { return false };
    let direct = f.ty.inner_named_type().as_str() == ty;
    direct
        && (f.ty.is_list() || graph.wrapped_type(owner).is_some_and(|n| n == ty))
        && !passes_through(graph, path, ty)
}

/// Whether a path reaches `ty` before its last hop: a list of `ty` read from one `ty`
/// (`Product.recommendedProducts`, `Category.children`) is a relation among its items,
/// not the collection a question about many of them reads.
fn passes_through(graph: &SchemaGraph, path: &[String], ty: &str) -> bool {
    path[..path.len().saturating_sub(1)].iter().any(|c| {
        let Some((owner, name)) = c.split_once('.') else {
            return false;
        };
        let f = match graph.schema.types.get(owner) {
            Some(ExtendedType::Object(o)) => o.fields.get(name),
            Some(ExtendedType::Interface(i)) => i.fields.get(name),
            _ => None,
        };
        f.is_some_and(|f| f.ty.inner_named_type().as_str() == ty)
    })
}

/// Corpus positions of the fields of `ty` when it is a value object
/// ([`SchemaGraph::value_object_fields`]); empty otherwise.
pub(super) fn value_object_fields(
    graph: &SchemaGraph,
    corpus: &gqlnav_corpus::Corpus,
    ty: &str,
) -> Vec<usize> {
    graph
        .value_object_fields(ty)
        .iter()
        .filter_map(|f| corpus.position(&f.coordinate()))
        .collect()
}
