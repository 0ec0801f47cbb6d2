//! What surrounds the hits of a search page, from schema facts only: the ways in from
//! the root to their owner types, the link fields between their types, and what the top
//! hits return one level down. Each list is measured in `bench --mode tools`
//! (docs/benchmarks.md).

use apollo_compiler::collections::IndexMap;
use apollo_compiler::schema::{Component, ExtendedType, FieldDefinition};
use apollo_compiler::Name;
use gqlnav_schema::{SchemaGraph, Wrapper};

use crate::search::SearchItem;
use crate::util::has_required_args;

/// The fields of an object or interface type.
fn field_map<'g>(
    graph: &'g SchemaGraph,
    ty: &str,
) -> Option<&'g IndexMap<Name, Component<FieldDefinition>>> {
    match graph.schema.types.get(ty)? {
        ExtendedType::Object(o) => Some(&o.fields),
        ExtendedType::Interface(i) => Some(&i.fields),
        _ => None,
    }
}

/// Owner types among the top hits whose ways in from the root are listed. 5 (was 3), chosen
/// left one API out (tools bench, page policy, mean over 1 / 2 / 3 calls) among the sizes
/// that keep the page's mean first answer within 2,000 o200k tokens (the page's size rule,
/// ARCHITECTURE.md): 3 / 4 / 5 types × 2 / 3 paths; with github left out linear picks 4 × 3
/// (github 64.5 -> 65.2), with linear left out github picks 5 × 2 (linear 85.8 -> 87.3); on
/// all three, 5 × 2: dev within 1 / 3 calls 66.8 / 80.8% -> 69.2 / 81.5%, first answer
/// 1,864 -> 1,968 (measured 2026-12-04, docs/archive/history.md).
const ENTRY_TYPES: usize = 5;
/// Ways in listed per type.
const ENTRY_PATHS: usize = 2;

/// A field coordinate with its argument names, `Type.field(a:, b:)`: what an agent needs
/// to write the call.
fn with_args(graph: &SchemaGraph, coord: &str) -> String {
    let Some((ty, f)) = coord.split_once('.') else {
        return coord.to_string();
    };
    let args: Vec<String> = field_map(graph, ty)
        .and_then(|fs| fs.get(f))
        .map(|d| d.arguments.iter().map(|a| format!("{}:", a.name)).collect())
        .unwrap_or_default();
    if args.is_empty() {
        coord.to_string()
    } else {
        format!("{coord}({})", args.join(", "))
    }
}

/// Ways in through the current caller listed per type.
const CURRENT_WAYS: usize = 3;

/// For a first-person question, the ways in to `t` through a current-caller root field
/// `C` of type `V`: `C` itself when `V` is `t`, else `C > V.f` for each field `f` of `V`
/// returning `t` (directly or as a connection of it), the fields sharing most words
/// with the question first, then in declaration order; at most [`CURRENT_WAYS`].
fn current_ways(
    graph: &SchemaGraph,
    current: &[(String, String)],
    t: &str,
    question: &[String],
) -> Vec<Vec<String>> {
    let mut out: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (c, v) in current {
        if v == t {
            out.push((usize::MAX, out.len(), vec![c.clone()]));
            continue;
        }
        let Some(fields) = field_map(graph, v) else {
            continue;
        };
        for (name, f) in fields {
            let r = f.ty.inner_named_type().as_str();
            let r = graph.wrapped_type(r).unwrap_or_else(|| r.to_string());
            if r != t || f.directives.get("deprecated").is_some() {
                continue;
            }
            let shared = gqlnav_search::Analyzer::Identifier
                .index_terms(name)
                .iter()
                .filter(|w| question.contains(w))
                .count();
            out.push((shared, out.len(), vec![c.clone(), format!("{v}.{name}")]));
        }
    }
    out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    out.into_iter().take(CURRENT_WAYS).map(|w| w.2).collect()
}

/// The ways in from the query root to the owner types of the top hits (root types
/// excluded), each field written with its argument names, cheapest first (the schema
/// graph's path order: deprecated fields avoided, generic lookups last). For a
/// first-person question, the ways in through a current-caller root field
/// ([`current_ways`] over [`gqlnav_search::caller_roots`]) come first. When the cheapest
/// ways are all lookups by key, the cheapest way to a list of the type follows
/// ([`gqlnav_search::lookup_collection_path`], the ranker's collection path); when no way
/// is a list that takes arguments, the cheapest such list follows
/// ([`gqlnav_search::selectable_collection_path`]).
pub(crate) fn entry_points(
    graph: &SchemaGraph,
    items: &[SearchItem],
    question: &str,
) -> Vec<(String, Vec<String>)> {
    let mut types: Vec<String> = Vec::new();
    for it in items {
        let owner = it
            .coordinate
            .split(['.', '('])
            .next()
            .unwrap_or("")
            .to_string();
        if owner.is_empty() || graph.root_kind(&owner).is_some() || types.contains(&owner) {
            continue;
        }
        types.push(owner);
        if types.len() == ENTRY_TYPES {
            break;
        }
    }
    let opts = gqlnav_schema::PathOptions {
        max_paths: ENTRY_PATHS,
        // Entry points are read by an agent: a fixed root list is not a way to one item
        // (page policy, dev: within 3 calls 54.3% -> 54.6%; docs/ranking.md).
        selectable_first: true,
        ..gqlnav_schema::PathOptions::default()
    };
    let current = if gqlnav_search::addresses_caller(graph, question) {
        gqlnav_search::caller_roots(graph)
    } else {
        Vec::new()
    };
    let terms = gqlnav_search::Analyzer::Identifier.query_terms(question);
    types
        .into_iter()
        .filter_map(|t| {
            let mut paths = current_ways(graph, &current, &t, &terms);
            let cheapest = graph.paths_to_type(&t, None, opts);
            // Only lookups by key: the list of them too, as the ranker reads it.
            let list = gqlnav_search::lookup_collection_path(graph, &t, &cheapest);
            for p in cheapest.into_iter().chain(list) {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
            // No way to a list that takes arguments (only lookups and fixed lists such
            // as an archive): the cheapest one follows (page policy, linear, within 3
            // calls 68.0% -> 70.5%; measured 2026-12-04, docs/archive/history.md).
            if let Some(p) = gqlnav_search::selectable_collection_path(graph, &t, &paths) {
                paths.push(p);
            }
            let paths: Vec<String> = paths
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|c| with_args(graph, c))
                        .collect::<Vec<_>>()
                        .join(" > ")
                })
                .collect();
            (!paths.is_empty()).then_some((t, paths))
        })
        .collect()
}

/// Most link fields listed per answer. 12, chosen left one API out over 6 / 8 / 10 / 12 /
/// 16 / 20 (tools bench, page policy, by the mean over 1 / 2 / 3 calls, ties to the
/// fewest tokens read): github 50.0% -> 53.0% within 3 calls, linear 73.0% -> 74.0%
/// (measured 2026-12-04, docs/archive/history.md).
const MAX_LINKS: usize = 12;

/// Link fields between the types of the top hits: fields of one such type (an owner or
/// an object return type of a hit, root types excluded) that return another (directly,
/// or as a connection of it), and are not hits themselves, written with their argument
/// names and, through a connection, the hop to its nodes (`Project.issues(first:, …) >
/// IssueConnection.nodes -> Issue`). They join two parts of a question ("pull requests
/// of a deployment").
pub(crate) fn link_fields(graph: &SchemaGraph, items: &[SearchItem]) -> Vec<String> {
    let fields_of = |t: &str| field_map(graph, t).filter(|_| graph.root_kind(t).is_none());
    let target = |t: &str| graph.wrapped_type(t).unwrap_or_else(|| t.to_string());
    let mut types: Vec<String> = Vec::new();
    for it in items {
        let (owner, rest) = it
            .coordinate
            .split_once('.')
            .unwrap_or((it.coordinate.as_str(), ""));
        let field = rest.split('(').next().unwrap_or("");
        let ret = fields_of(owner)
            .and_then(|fs| fs.get(field))
            .map(|f| target(f.ty.inner_named_type().as_str()));
        for t in std::iter::once(owner.to_string()).chain(ret) {
            if fields_of(&t).is_some() && !types.contains(&t) {
                types.push(t);
            }
        }
    }
    let hits: std::collections::HashSet<&str> =
        items.iter().map(|i| i.coordinate.as_str()).collect();
    let mut out = Vec::new();
    for a in &types {
        let Some(fields) = fields_of(a) else { continue };
        for (name, f) in fields {
            if f.directives.get("deprecated").is_some() {
                continue;
            }
            let named = f.ty.inner_named_type().as_str();
            let b = target(named);
            let coord = format!("{a}.{name}");
            if &b != a && types.contains(&b) && !hits.contains(coord.as_str()) {
                let hop = connection_hop(graph, named, &b)
                    .map(|h| format!(" > {h}"))
                    .unwrap_or_default();
                out.push(format!("{}{hop} -> {b}", with_args(graph, &coord)));
                if out.len() == MAX_LINKS {
                    return out;
                }
            }
        }
    }
    out
}

/// Top hits whose return types' fields are listed: every hit of a default page. Chosen left
/// one API out over 3 / 4 / 5 / 6 / 8 / 10 / 12 (tools bench, page policy, mean over 1 / 2
/// / 3 calls, ties to the fewest tokens read): each pair picks 10; dev within 1 / 3 calls
/// 47.1 / 72.6% at 3, 52.4 / 73.3% at 10 (measured 2026-12-04, docs/archive/history.md).
/// The fields folded into a top hit count as that hit: left one API out over the fields
/// listed for a folded field's big return type (0 / 2 / 4 / 6 / 8 / 10 / 12 / 16) each pair
/// picks 16, all of them; dev within 1 / 3 calls 64.2 / 77.6% -> 66.3 / 80.3%, first answer
/// 1,488 -> 1,820 tokens (measured 2026-12-04, docs/archive/history.md).
const RETURN_HITS: usize = 10;
/// Most fields listed per return type. 16 with the basic-first order of [`fields_line`]
/// (tools bench, page policy, dev, within 1 / 2 / 3 calls: 41.1 / 57.9 / 58.7% at 8 in
/// declaration order, 42.1 / 58.2 / 58.9% at 8 basic first, 43.5 / 58.7 / 59.9% at 16;
/// measured 2026-12-04, docs/archive/history.md).
const RETURN_FIELDS: usize = 16;

/// A type of at most this many fields (an actor, a status, an environment) is listed
/// under any hit or folded field returning it, not only under the top hits. Left one
/// API out over 0 / 4 / 6 / 8 / 12 / 16 / 24 (page policy, mean over 1 / 2 / 3 calls,
/// ties to the fewest tokens read) the pairs pick 12 (github out) and 24 (linear out);
/// 12 (dev within 3 calls 74.8% -> 77.2%, first answer 1,316 -> 1,489 tokens) rather
/// than 24 (77.4%, 1,619 tokens; measured 2026-12-04, docs/archive/history.md).
const SMALL_TYPE_FIELDS: usize = 12;

/// What the hits return, one level down: for each of the first [`RETURN_HITS`] field
/// hits and each field folded into them (`more:`) returning an object (connections
/// unwrapped, root types excluded), and for every lower field hit returning a value
/// object ([`SchemaGraph::is_value_object`]: an amount and its currency) or a small
/// type (at most [`SMALL_TYPE_FIELDS`] fields), its non-deprecated
/// fields without required arguments, up to [`RETURN_FIELDS`], as `Hit -> Type: Type.a,
/// Type.b, …` (`Hit > XConnection.nodes -> Type: …` through a connection), so a
/// selection can be written without another call. A value object
/// nested in a listed one (a taxed amount's `gross` amount) follows it. Each type is
/// listed once.
pub(crate) fn return_fields(graph: &SchemaGraph, items: &[SearchItem]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut done: Vec<String> = Vec::new();
    // The hits in page order, each followed by the fields folded into it by type (they
    // count as the hit they are folded into).
    let hits = items
        .iter()
        .filter(|i| i.kind == "field")
        .enumerate()
        .flat_map(|(i, it)| {
            let top = i < RETURN_HITS;
            std::iter::once((top, &it.coordinate))
                .chain(it.more_on_type.iter().map(move |c| (top, c)))
        });
    for (top, coordinate) in hits {
        let Some((owner, field)) = coordinate.split_once('.') else {
            continue;
        };
        let Some(f) = field_map(graph, owner).and_then(|fs| fs.get(field)) else {
            continue;
        };
        let named = f.ty.inner_named_type().as_str();
        let t = graph
            .wrapped_type(named)
            .unwrap_or_else(|| named.to_string());
        let small = field_map(graph, &t).is_some_and(|fs| fs.len() <= SMALL_TYPE_FIELDS);
        if !top && !small && !graph.is_value_object(&t) {
            continue;
        }
        let from = match connection_hop(graph, named, &t) {
            Some(hop) => format!("{coordinate} > {hop}"),
            None => coordinate.clone(),
        };
        let mut queue = std::collections::VecDeque::from([(from, t)]);
        while let Some((from, t)) = queue.pop_front() {
            if done.contains(&t) || graph.root_kind(&t).is_some() {
                continue;
            }
            let Some(line) = fields_line(graph, &from, &t) else {
                continue;
            };
            out.push(line);
            if graph.is_value_object(&t) {
                for v in graph.value_object_fields(&t) {
                    let inner = field_map(graph, &t)
                        .and_then(|fs| fs.get(v.field.as_str()))
                        .map(|d| d.ty.inner_named_type().to_string());
                    if let Some(inner) = inner.filter(|n| graph.is_value_object(n)) {
                        queue.push_back((format!("{t}.{}", v.field), inner));
                    }
                }
            }
            done.push(t);
        }
    }
    out
}

/// How a selection reaches `node` through the connection or edge type `wrapper`
/// ([`SchemaGraph::wrapper`]): `XConnection.nodes`, else `XConnection.edges > XEdge.node`
/// (`XEdge.node` for an edge type); `None` when `wrapper` does not wrap `node`.
fn connection_hop(graph: &SchemaGraph, wrapper: &str, node: &str) -> Option<String> {
    let w = graph.wrapper(wrapper).filter(|w| w.node_type() == node)?;
    match w {
        Wrapper::Connection(c) => match (c.nodes, c.edges) {
            (Some(nodes), _) => Some(format!("{wrapper}.{nodes}")),
            (None, Some((edges, edge))) => Some(format!("{wrapper}.{edges} > {edge}.node")),
            (None, None) => None,
        },
        Wrapper::Edge { node: field, .. } => Some(format!("{wrapper}.{field}")),
    }
}

/// `from -> T: T.a, T.b, … +N`: the non-deprecated fields of `t` without required
/// arguments, up to [`RETURN_FIELDS`], basic ones first; `None` when there are none.
/// Basic first, from the schema alone: Boolean flags last (as the compiled tools'
/// default selections put them), then names of fewer words first (`title`, `state`
/// before `bodyResourcePath`), then, among names of as many words, single values (a
/// scalar or enum, not a list, not an `ID`) before the rest (`title` before `assignees`
/// and `author`), then declaration order. Declaration order alone is often
/// alphabetical, and GitHub's `Issue` listed `activeLockReason` … `body*` and never
/// reached `number` or `title`; by words alone its one-word links (`assignees`,
/// `author`, `comments`, `labels`, …) still came before `title`.
fn fields_line(graph: &SchemaGraph, from: &str, t: &str) -> Option<String> {
    let fs = field_map(graph, t)?;
    let mut names: Vec<(bool, usize, bool, usize, &str)> = fs
        .iter()
        .filter(|(_, d)| d.directives.get("deprecated").is_none())
        .filter(|(_, d)| !has_required_args(d))
        .enumerate()
        .map(|(i, (n, d))| {
            let nt = d.ty.inner_named_type().as_str();
            let flag = nt == "Boolean";
            let words = gqlnav_search::Analyzer::Identifier.index_terms(n).len();
            let value = nt != "ID"
                && !d.ty.is_list()
                && matches!(
                    graph.schema.types.get(nt),
                    Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
                );
            (flag, words, !value, i, n.as_str())
        })
        .collect();
    names.sort_unstable();
    names.truncate(RETURN_FIELDS);
    if names.is_empty() {
        return None;
    }
    let more = fs.len().saturating_sub(names.len());
    let tail = if more > 0 {
        format!(", … +{more}")
    } else {
        String::new()
    };
    let lines: Vec<String> = names.iter().map(|n| format!("{t}.{}", n.4)).collect();
    Some(format!("{from} -> {t}: {}{tail}", lines.join(", ")))
}
