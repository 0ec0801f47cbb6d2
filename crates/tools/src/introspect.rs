//! `introspect`: the SDL of exactly the schema elements named, optionally with the
//! types they reference; unknown names come back with the nearest existing ones.

use std::collections::{BTreeSet, HashSet};

use apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{Coordinate, SchemaGraph};
use serde_json::json;

use crate::output::ToolOutput;
use crate::toolbox::Toolbox;
use crate::util::cap_text;

/// `introspect` input.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntrospectRequest {
    /// Schema coordinates to show: "Type", "Type.field", "Type.field(arg:)", "Enum.VALUE", "@directive". Default: none (then `type` is required).
    #[serde(default)]
    pub coordinates: Option<Vec<String>>,
    /// A single type name (shorthand for coordinates: [type]). Default: none.
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    /// 1 = exactly what was asked; 2 = also the types it references; at most
    /// [`MAX_INTROSPECT_DEPTH`]. Default 1.
    #[serde(default = "one")]
    pub depth: u32,
}

fn one() -> u32 {
    1
}

impl IntrospectRequest {
    /// Introspect these coordinates at depth 1.
    pub fn new(coordinates: impl IntoIterator<Item = impl Into<String>>) -> Self {
        IntrospectRequest {
            coordinates: Some(coordinates.into_iter().map(Into::into).collect()),
            type_name: None,
            depth: 1,
        }
    }

    /// `type` first, then `coordinates`.
    pub fn all_coordinates(&self) -> Vec<String> {
        let mut v: Vec<String> = self.type_name.iter().cloned().collect();
        v.extend(self.coordinates.iter().flatten().cloned());
        v
    }
}

/// Deepest `depth` accepted by `introspect`.
pub const MAX_INTROSPECT_DEPTH: usize = 3;
/// Most coordinates per `introspect` call.
pub const MAX_INTROSPECT_COORDINATES: usize = 20;
/// Most tokens (the toolbox's encoding) the types added by `depth` ≥ 2 may take. They are
/// written compactly (one line each, no descriptions, field arguments as `(…)`), unions,
/// enums and input types first; what does not fit is named, not shown. On GitHub,
/// `PushAllowance` at depth 2 took about 1,400 tokens of full SDL (mostly connection
/// arguments) where one union line was needed.
pub const INTROSPECT_EXPANSION_TOKENS: usize = 800;

/// One line for a referenced type: what an agent needs to write an operation with it.
fn compact_type(graph: &SchemaGraph, name: &str) -> Option<String> {
    let field_line = |n: &str, f: &apollo_compiler::schema::FieldDefinition| {
        let args = if f.arguments.is_empty() { "" } else { "(…)" };
        format!("{n}{args}: {}", f.ty)
    };
    Some(match graph.schema.types.get(name)? {
        ExtendedType::Object(o) => {
            let imps: Vec<&str> = o
                .implements_interfaces
                .iter()
                .map(|i| i.name.as_str())
                .collect();
            let imps = if imps.is_empty() {
                String::new()
            } else {
                format!(" implements {}", imps.join(" & "))
            };
            let fields: Vec<String> = o.fields.iter().map(|(n, f)| field_line(n, f)).collect();
            format!("type {name}{imps} {{ {} }}", fields.join(" "))
        }
        ExtendedType::Interface(o) => {
            let fields: Vec<String> = o.fields.iter().map(|(n, f)| field_line(n, f)).collect();
            let members = graph.possible_types(name);
            format!(
                "interface {name} {{ {} }}  # implemented by {}",
                fields.join(" "),
                members.join(", ")
            )
        }
        ExtendedType::Union(u) => {
            let m: Vec<&str> = u.members.iter().map(|m| m.name.as_str()).collect();
            format!("union {name} = {}", m.join(" | "))
        }
        ExtendedType::Enum(e) => {
            let v: Vec<&str> = e.values.keys().map(|k| k.as_str()).collect();
            format!("enum {name} {{ {} }}", v.join(" "))
        }
        ExtendedType::InputObject(i) => {
            let f: Vec<String> = i
                .fields
                .iter()
                .map(|(n, f)| match &f.default_value {
                    Some(d) => format!("{n}: {} = {d}", f.ty),
                    None => format!("{n}: {}", f.ty),
                })
                .collect();
            format!("input {name} {{ {} }}", f.join(", "))
        }
        ExtendedType::Scalar(_) => format!("scalar {name}"),
    })
}

/// Order of expansion: what fills in a selection or an argument value cheaply first.
fn expansion_rank(graph: &SchemaGraph, name: &str) -> u8 {
    match graph.schema.types.get(name) {
        Some(ExtendedType::Union(_)) => 0,
        Some(ExtendedType::Enum(_)) => 1,
        Some(ExtendedType::InputObject(_)) => 2,
        Some(ExtendedType::Interface(_)) => 3,
        Some(ExtendedType::Object(_)) => 4,
        _ => 5,
    }
}

fn type_sdl(graph: &SchemaGraph, name: &str) -> Option<String> {
    graph.schema.types.get(name).map(|t| t.to_string())
}

/// A type's SDL without descriptions (of the type, its fields, their arguments, input
/// fields and enum values): every member and signature, in fewer tokens.
fn bare_type_sdl(graph: &SchemaGraph, name: &str) -> Option<String> {
    let mut t = graph.schema.types.get(name)?.clone();
    match &mut t {
        ExtendedType::Object(o) => {
            let o = o.make_mut();
            o.description = None;
            for f in o.fields.values_mut() {
                strip_field(f.make_mut());
            }
        }
        ExtendedType::Interface(o) => {
            let o = o.make_mut();
            o.description = None;
            for f in o.fields.values_mut() {
                strip_field(f.make_mut());
            }
        }
        ExtendedType::InputObject(o) => {
            let o = o.make_mut();
            o.description = None;
            for f in o.fields.values_mut() {
                f.make_mut().description = None;
            }
        }
        ExtendedType::Enum(e) => {
            let e = e.make_mut();
            e.description = None;
            for v in e.values.values_mut() {
                v.make_mut().description = None;
            }
        }
        ExtendedType::Union(u) => u.make_mut().description = None,
        ExtendedType::Scalar(sc) => sc.make_mut().description = None,
    }
    Some(t.to_string())
}

fn strip_field(f: &mut apollo_compiler::schema::FieldDefinition) {
    f.description = None;
    for a in f.arguments.iter_mut() {
        a.make_mut().description = None;
    }
}

fn referenced_types(graph: &SchemaGraph, name: &str, out: &mut Vec<String>) {
    let mut push = |n: &str| out.push(n.to_string());
    match graph.schema.types.get(name) {
        Some(ExtendedType::Object(o)) => {
            for i in &o.implements_interfaces {
                push(i.name.as_str());
            }
            for f in o.fields.values() {
                push(f.ty.inner_named_type().as_str());
                for a in &f.arguments {
                    push(a.ty.inner_named_type().as_str());
                }
            }
        }
        Some(ExtendedType::Interface(o)) => {
            for f in o.fields.values() {
                push(f.ty.inner_named_type().as_str());
                for a in &f.arguments {
                    push(a.ty.inner_named_type().as_str());
                }
            }
        }
        Some(ExtendedType::InputObject(o)) => {
            for f in o.fields.values() {
                push(f.ty.inner_named_type().as_str());
            }
        }
        Some(ExtendedType::Union(u)) => {
            for m in &u.members {
                push(m.name.as_str());
            }
        }
        _ => {}
    }
}

fn is_builtin_type(graph: &SchemaGraph, name: &str) -> bool {
    name.starts_with("__")
        || graph
            .schema
            .types
            .get(name)
            .is_some_and(|t| t.is_built_in())
}

/// SDL for one resolved coordinate plus the named types it references (for expansion).
fn coordinate_sdl(graph: &SchemaGraph, c: &Coordinate) -> (String, Vec<String>) {
    let mut refs = Vec::new();
    let text = match c {
        Coordinate::Type(t) => {
            referenced_types(graph, t, &mut refs);
            type_sdl(graph, t).unwrap_or_default()
        }
        Coordinate::Member { ty, member }
        | Coordinate::Argument {
            ty, field: member, ..
        } => match graph.schema.types.get(ty.as_str()) {
            Some(ExtendedType::Object(_)) | Some(ExtendedType::Interface(_)) => {
                let (kw, f) = match graph.schema.types.get(ty.as_str()) {
                    Some(ExtendedType::Object(o)) => ("type", o.fields.get(member.as_str())),
                    Some(ExtendedType::Interface(o)) => {
                        ("interface", o.fields.get(member.as_str()))
                    }
                    _ => ("type", None),
                };
                match f {
                    Some(f) => {
                        refs.push(f.ty.inner_named_type().to_string());
                        for a in &f.arguments {
                            refs.push(a.ty.inner_named_type().to_string());
                        }
                        let body = f.to_string();
                        let body: Vec<String> = body.lines().map(|l| format!("  {l}")).collect();
                        format!("{kw} {ty} {{\n{}\n}}\n", body.join("\n"))
                    }
                    None => String::new(),
                }
            }
            Some(ExtendedType::InputObject(o)) => match o.fields.get(member.as_str()) {
                Some(f) => {
                    refs.push(f.ty.inner_named_type().to_string());
                    let body: Vec<String> =
                        f.to_string().lines().map(|l| format!("  {l}")).collect();
                    format!("input {ty} {{\n{}\n}}\n", body.join("\n"))
                }
                None => String::new(),
            },
            Some(ExtendedType::Enum(o)) => match o.values.get(member.as_str()) {
                Some(v) => {
                    let body: Vec<String> =
                        v.to_string().lines().map(|l| format!("  {l}")).collect();
                    format!("enum {ty} {{\n{}\n}}\n", body.join("\n"))
                }
                None => String::new(),
            },
            _ => String::new(),
        },
        Coordinate::Directive(d) | Coordinate::DirectiveArgument { directive: d, .. } => graph
            .schema
            .directive_definitions
            .get(d.as_str())
            .map(|d| {
                for a in &d.arguments {
                    refs.push(a.ty.inner_named_type().to_string());
                }
                format!("{d}\n")
            })
            .unwrap_or_default(),
    };
    (text, refs)
}

/// Nearest existing coordinates: names that start with (then contain) the input first,
/// shortest first, then the edit-distance suggestions of the schema graph.
pub fn suggest(graph: &SchemaGraph, input: &str, n: usize) -> Vec<String> {
    let (owner, member) = match input.split_once('.') {
        Some((o, m)) => (o, Some(m.split('(').next().unwrap_or(m))),
        None => (input, None),
    };
    let mut cands: Vec<String> = match member {
        None => graph
            .schema
            .types
            .keys()
            .filter(|k| !k.starts_with("__"))
            .map(|k| k.to_string())
            .collect(),
        Some(_) if graph.schema.types.contains_key(owner) => graph
            .member_names(owner)
            .into_iter()
            .map(|m| format!("{owner}.{m}"))
            .collect(),
        Some(_) => Vec::new(),
    };
    let needle = member.unwrap_or(owner).to_ascii_lowercase();
    let last = |c: &str| c.rsplit('.').next().unwrap_or(c).to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    if needle.len() >= 3 {
        cands.sort_by_key(|c| (c.len(), c.clone()));
        for c in cands.iter().filter(|c| last(c).starts_with(&needle)) {
            out.push(c.clone());
        }
        for c in cands.iter().filter(|c| {
            let l = last(c);
            !l.starts_with(&needle) && l.contains(&needle)
        }) {
            out.push(c.clone());
        }
    }
    out.truncate(n);
    for c in graph.suggest(input, n) {
        if out.len() >= n {
            break;
        }
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

impl Toolbox {
    /// `introspect`.
    pub fn introspect(&self, a: &IntrospectRequest) -> ToolOutput {
        self.introspect_inner(a).counted(&self.meter)
    }

    fn introspect_inner(&self, a: &IntrospectRequest) -> ToolOutput {
        let generation = self.generation();
        let graph = &generation.graph;
        let coordinates = a.all_coordinates();
        if coordinates.is_empty() {
            return ToolOutput::err(
                "Give `coordinates` (e.g. [\"Repository.pullRequests\"]) or `type` (e.g. \"Repository\").",
                None,
            );
        }
        if coordinates.len() > MAX_INTROSPECT_COORDINATES {
            return ToolOutput::err(
                format!(
                    "{} coordinates asked; at most {MAX_INTROSPECT_COORDINATES} per call.",
                    coordinates.len()
                ),
                None,
            );
        }
        let depth = (a.depth as usize).clamp(1, MAX_INTROSPECT_DEPTH);
        let resolved = match resolve_all(graph, &coordinates) {
            Ok(r) => r,
            Err(out) => return out,
        };
        let mut asked = self.asked_blocks(graph, &resolved);
        let expansion = expand_referenced(
            graph,
            &self.meter,
            std::mem::take(&mut asked.frontier),
            &mut asked.seen_types,
            depth,
        );
        let mut blocks = asked.blocks;
        if !expansion.added.is_empty() {
            blocks.push(format!(
                "# referenced types (compact)\n{}\n",
                expansion.added.join("\n")
            ));
        }
        if !expansion.left_out.is_empty() {
            blocks.push(format!(
                "# not shown (over the {INTROSPECT_EXPANSION_TOKENS}-token cap for referenced types): {}. Introspect them by name.\n",
                expansion.left_out.join(", ")
            ));
        }
        let full = blocks.join("\n");
        let (text, cut) = cap_text(
            &full,
            self.config.policy.max_result_bytes,
            self.config.policy.max_result_tokens,
            &self.meter,
            "Introspect fewer coordinates, single fields (Type.field) or depth 1.",
        );
        ToolOutput::ok(
            text,
            Some(json!({
                "coordinates": resolved.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "depth": depth,
                "truncated": cut,
                "notShown": expansion.left_out,
                "descriptionsLeftOut": asked.bare > 0,
            })),
        )
    }

    /// The SDL of the coordinates asked for, one block each (a type once). Over the
    /// answer's cap with descriptions, the types asked for lose their descriptions (every
    /// member and signature stays), so the last ones asked for are not cut off.
    fn asked_blocks(&self, graph: &SchemaGraph, resolved: &[Coordinate]) -> Asked {
        let mut asked = Asked::default();
        let mut type_blocks: Vec<(usize, String)> = Vec::new();
        for c in resolved {
            if let Coordinate::Type(t) = c {
                if !asked.seen_types.insert(t.clone()) {
                    continue;
                }
                type_blocks.push((asked.blocks.len(), t.clone()));
            }
            let (text, refs) = coordinate_sdl(graph, c);
            asked.blocks.push(text);
            asked.frontier.extend(refs);
        }
        let cap = self.config.policy.max_result_tokens;
        if type_blocks.is_empty() || self.meter.count(&asked.blocks.join("\n")) <= cap {
            return asked;
        }
        for (i, t) in &type_blocks {
            if let Some(b) = bare_type_sdl(graph, t) {
                asked.blocks[*i] = b;
                asked.bare += 1;
            }
        }
        asked.blocks.insert(
            0,
            format!(
                "# descriptions left out of the {} types asked for (with them the answer is over its {cap}-token cap); introspect `Type.field` for one field with its description.\n",
                asked.bare
            ),
        );
        asked
    }
}

/// The blocks of the coordinates asked for, and what they reference.
#[derive(Default)]
struct Asked {
    blocks: Vec<String>,
    /// Types already shown (asked for or added).
    seen_types: HashSet<String>,
    /// Types the blocks reference (the first level of expansion).
    frontier: Vec<String>,
    /// Types shown without their descriptions.
    bare: usize,
}

/// Every coordinate resolved, or the error answer that lists each unknown one with the
/// nearest existing names.
/// A coordinate in a form `search_schema` prints, read as the coordinate it ends on: a
/// path (`Query.repository > Repository.object > Commit.history`) as its last step, a
/// field with its argument list or types (`Query.organization(login: String!)`,
/// `Query.repository(followRenames:, name:, owner:)`) as the field. `None`: nothing to
/// read otherwise.
fn as_printed(raw: &str) -> Option<String> {
    let last = raw.rsplit(" > ").next().unwrap_or(raw).trim();
    let field = match last.split_once('(') {
        // `T.f(arg:)` is an argument coordinate of its own: an unknown one stays unknown.
        Some((_, args))
            if !raw.contains(" > ")
                && args
                    .trim_end_matches(')')
                    .trim()
                    .strip_suffix(':')
                    .is_some_and(|a| {
                        !a.is_empty() && a.chars().all(|c| c.is_alphanumeric() || c == '_')
                    }) =>
        {
            return None
        }
        Some((head, _)) => head.trim(),
        None => last,
    };
    (field != raw.trim() && !field.is_empty()).then(|| field.to_string())
}

fn resolve_all(graph: &SchemaGraph, coordinates: &[String]) -> Result<Vec<Coordinate>, ToolOutput> {
    let mut unknown: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut resolved = Vec::new();
    for raw in coordinates {
        let read = graph.resolve_str(raw).or_else(|e| match as_printed(raw) {
            Some(c) => graph.resolve_str(&c),
            None => Err(e),
        });
        match read {
            Ok((c, _)) => resolved.push(c),
            Err(gqlnav_schema::SchemaError::UnknownCoordinate { .. }) => {
                unknown.push((
                    raw.clone(),
                    "not in this schema".into(),
                    suggest(graph, raw, 3),
                ));
            }
            Err(e) => unknown.push((raw.clone(), e.to_string(), Vec::new())),
        }
    }
    if unknown.is_empty() {
        return Ok(resolved);
    }
    let mut text = String::new();
    for (c, why, s) in &unknown {
        text.push_str(&format!("Unknown coordinate `{c}` ({why})."));
        if s.is_empty() {
            text.push_str(" No close names; use search_schema to find it by meaning.\n");
        } else {
            text.push_str(&format!(" Did you mean: {}?\n", s.join(", ")));
        }
    }
    text.push_str("Call introspect again with an existing coordinate.");
    let structured = json!({"unknown": unknown.iter().map(|(c, why, s)| json!({"coordinate": c, "reason": why, "suggestions": s})).collect::<Vec<_>>()});
    Err(ToolOutput::err(text, Some(structured)))
}

/// The types added by depth ≥ 2, and those over the expansion cap.
struct Expansion {
    /// One compact line per type added.
    added: Vec<String>,
    /// Types named but not shown.
    left_out: Vec<String>,
}

/// Depth ≥ 2: the referenced types, level by level, one compact line each (unions,
/// enums and input types first) under [`INTROSPECT_EXPANSION_TOKENS`].
fn expand_referenced(
    graph: &SchemaGraph,
    meter: &gqlnav_corpus::TokenMeter,
    mut frontier: Vec<String>,
    seen_types: &mut HashSet<String>,
    depth: usize,
) -> Expansion {
    let mut added: Vec<String> = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    let mut spent = 0usize;
    for _ in 1..depth {
        let mut level: Vec<String> = frontier
            .drain(..)
            .filter(|t| !is_builtin_type(graph, t) && seen_types.insert(t.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        level.sort_by_key(|t| expansion_rank(graph, t));
        let mut next = Vec::new();
        for t in level {
            let Some(line) = compact_type(graph, &t) else {
                continue;
            };
            let cost = meter.count(&line) + 1;
            if spent + cost > INTROSPECT_EXPANSION_TOKENS {
                left_out.push(t);
                continue;
            }
            spent += cost;
            added.push(line);
            referenced_types(graph, &t, &mut next);
        }
        frontier = next;
    }
    Expansion { added, left_out }
}

#[cfg(test)]
mod tests {
    #[test]
    fn coordinates_in_the_forms_search_prints_are_read_as_what_they_end_on() {
        assert_eq!(
            super::as_printed("Query.repository > Repository.object > Commit.history").as_deref(),
            Some("Commit.history")
        );
        assert_eq!(
            super::as_printed("Query.organization(login: String!)").as_deref(),
            Some("Query.organization")
        );
        assert_eq!(
            super::as_printed("Query.repository(followRenames:, name:, owner:) > Repository.object(expression:, oid:)").as_deref(),
            Some("Repository.object")
        );
        assert_eq!(super::as_printed("Repository.name"), None);
        assert_eq!(super::as_printed("Query.repository(nope:)"), None);
    }
}
