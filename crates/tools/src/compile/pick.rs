//! Which root fields become tools when none are named: those search ranks for a
//! question (`--for`), or those that reach the most of the schema (`serve --tools auto`).

use std::collections::{HashSet, VecDeque};

use apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{RootKind, SchemaGraph};
use gqlnav_search::PageRequest;

use crate::error::ToolError;
use crate::toolbox::Toolbox;

/// Hits read to find root fields for a question.
const HITS_READ: usize = 50;

impl Toolbox {
    /// Up to `n` query root fields for `question`, best first: the root field that starts
    /// each ranked hit's path from the root (or the hit itself when it is a root field).
    pub fn root_fields_for(&self, question: &str, n: usize) -> Result<Vec<String>, ToolError> {
        let generation = self.generation();
        let query = generation
            .graph
            .root(RootKind::Query)
            .ok_or(ToolError::NoQueryRoot)?
            .to_string();
        let page = self.ranked_page(&generation, question, &PageRequest::first(HITS_READ), 3)?;
        let mut out: Vec<String> = Vec::new();
        for item in &page.items {
            let firsts = item
                .paths_to_root
                .iter()
                .filter_map(|p| p.first().cloned())
                .chain(std::iter::once(item.coordinate.clone()));
            for c in firsts {
                if let Some(field) = c.strip_prefix(&format!("{query}.")) {
                    let field = field.split('(').next().unwrap_or(field).to_string();
                    if !out.contains(&field) {
                        out.push(field);
                    }
                }
            }
            if out.len() >= n {
                break;
            }
        }
        out.truncate(n);
        Ok(out)
    }
}

/// Up to `n` query root fields by reach: how many named types each one's return type
/// leads to through output fields, most first, ties in declaration order. Deprecated
/// root fields are left out.
pub fn root_fields_by_reach(graph: &SchemaGraph, n: usize) -> Vec<String> {
    let Some(ExtendedType::Object(q)) = graph
        .root(RootKind::Query)
        .and_then(|r| graph.schema.types.get(r))
    else {
        return Vec::new();
    };
    let mut scored: Vec<(usize, usize, String)> = q
        .fields
        .values()
        .enumerate()
        .filter(|(_, f)| !f.directives.has("deprecated") && !f.name.starts_with("__"))
        .map(|(i, f)| {
            (
                reach(graph, f.ty.inner_named_type().as_str()),
                i,
                f.name.to_string(),
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(n)
        .map(|(_, _, name)| name)
        .collect()
}

fn reach(graph: &SchemaGraph, start: &str) -> usize {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut queue = VecDeque::from([start]);
    while let Some(t) = queue.pop_front() {
        if !seen.insert(t) {
            continue;
        }
        let next: Vec<&str> = match graph.schema.types.get(t) {
            Some(ExtendedType::Object(o)) => o
                .fields
                .values()
                .map(|f| f.ty.inner_named_type().as_str())
                .collect(),
            Some(ExtendedType::Interface(o)) => o
                .fields
                .values()
                .map(|f| f.ty.inner_named_type().as_str())
                .collect(),
            Some(ExtendedType::Union(u)) => u.members.iter().map(|m| m.as_str()).collect(),
            _ => Vec::new(),
        };
        queue.extend(next.into_iter().filter(|n| !seen.contains(n)));
    }
    seen.len()
}
