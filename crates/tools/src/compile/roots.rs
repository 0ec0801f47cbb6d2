//! The schema's root types and fields, and which root fields a compile takes: those
//! named by `--select`, or every query field and the allowed mutations.

use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;
use gqlnav_schema::{RootKind, SchemaGraph};

use super::{is_deprecated, CompileError, CompileOptions, Skipped};

fn root_fields<'s>(schema: &'s Schema, root: Option<&str>) -> Vec<&'s FieldDefinition> {
    match root.and_then(|r| schema.types.get(r)) {
        Some(ExtendedType::Object(o)) => o
            .fields
            .values()
            .map(|f| &***f)
            .filter(|f| !f.name.starts_with("__"))
            .collect(),
        _ => Vec::new(),
    }
}

/// The schema's root types and fields, read once for a compile.
pub(super) struct Roots<'s> {
    /// The query root's name.
    pub(super) query: &'s str,
    /// The mutation root's name (`Mutation` when the schema has none).
    pub(super) mutation_root: String,
    pub(super) queries: Vec<&'s FieldDefinition>,
    pub(super) mutations: Vec<&'s FieldDefinition>,
    /// `Subscription.name` coordinates: detected, not imported.
    pub(super) subscriptions: Vec<String>,
}

impl<'s> Roots<'s> {
    pub(super) fn read(graph: &'s SchemaGraph) -> Result<Roots<'s>, CompileError> {
        let schema = &graph.schema;
        let query = graph
            .root(RootKind::Query)
            .ok_or(CompileError::NoQueryType)?;
        let queries = root_fields(schema, Some(query));
        let mutations = root_fields(schema, graph.root(RootKind::Mutation));
        let subscriptions: Vec<String> = root_fields(schema, graph.root(RootKind::Subscription))
            .iter()
            .map(|f| {
                format!(
                    "{}.{}",
                    graph.root(RootKind::Subscription).unwrap_or("Subscription"),
                    f.name
                )
            })
            .collect();
        let mutation_root = graph
            .root(RootKind::Mutation)
            .unwrap_or("Mutation")
            .to_string();
        Ok(Roots {
            query,
            mutation_root,
            queries,
            mutations,
            subscriptions,
        })
    }
}

/// The root fields named by `--select`, in that order.
pub(super) fn choose_selected<'s>(
    roots: &Roots<'s>,
    names: &[String],
    opts: &CompileOptions,
) -> Result<Vec<(bool, &'s FieldDefinition)>, CompileError> {
    let mut chosen = Vec::new();
    for raw in names {
        let (want_mut, name) = match raw.split_once('.') {
            Some((t, n)) if t == roots.mutation_root => (Some(true), n),
            Some((t, n)) if t == roots.query => (Some(false), n),
            _ => (None, raw.as_str()),
        };
        let q = roots
            .queries
            .iter()
            .find(|f| f.name == name && want_mut != Some(true));
        let m = roots
            .mutations
            .iter()
            .find(|f| f.name == name && want_mut != Some(false));
        match (q, m) {
            (Some(f), _) => chosen.push((false, *f)),
            (None, Some(f)) if opts.allow_mutations.allows(name) => chosen.push((true, *f)),
            (None, Some(_)) => return Err(CompileError::MutationNotAllowed(name.to_string())),
            (None, None) => return Err(unknown_root_field(roots, raw, name)),
        }
    }
    Ok(chosen)
}

/// The error for a `--select` name that is no root field, with the nearest ones.
fn unknown_root_field(roots: &Roots, raw: &str, name: &str) -> CompileError {
    let all: Vec<String> = roots
        .queries
        .iter()
        .map(|f| format!("{}.{}", roots.query, f.name))
        .chain(
            roots
                .mutations
                .iter()
                .map(|f| format!("{}.{}", roots.mutation_root, f.name)),
        )
        .collect();
    let mut near: Vec<(usize, &String)> = all
        .iter()
        .map(|c| {
            let n = c.split_once('.').map(|x| x.1).unwrap_or(c);
            (
                gqlnav_schema::edit_distance(&name.to_ascii_lowercase(), &n.to_ascii_lowercase()),
                c,
            )
        })
        .collect();
    near.sort();
    CompileError::UnknownRootField {
        name: raw.to_string(),
        nearest: near.into_iter().take(5).map(|(_, c)| c.clone()).collect(),
    }
}

/// Every query field (deprecated ones skipped unless included) and the allowed
/// mutations, under the tool cap.
pub(super) fn choose_all<'s>(
    roots: &Roots<'s>,
    opts: &CompileOptions,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<(bool, &'s FieldDefinition)>, CompileError> {
    let mut chosen = Vec::new();
    for f in &roots.queries {
        match is_deprecated(f) {
            Some(r) if !opts.include_deprecated => skipped.push(Skipped {
                coordinate: format!("{}.{}", roots.query, f.name),
                reason: format!("deprecated: {r}"),
            }),
            _ => chosen.push((false, *f)),
        }
    }
    for f in &roots.mutations {
        if opts.allow_mutations.allows(&f.name) {
            chosen.push((true, *f));
        }
    }
    if chosen.len() > opts.max_tools {
        return Err(CompileError::TooManyRootFields {
            count: chosen.len(),
            mutations: chosen.iter().filter(|c| c.0).count(),
            cap: opts.max_tools,
        });
    }
    Ok(chosen)
}
