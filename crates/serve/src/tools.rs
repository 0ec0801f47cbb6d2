//! The tool logic, transport-free: each tool turns arguments into a [`ToolOutput`]
//! (text for the model, structured JSON, an error flag). The MCP layer only wraps these.

use std::collections::{BTreeSet, HashSet};

use apollo_compiler::executable::{ExecutableDocument, OperationType, Selection, SelectionSet};
use apollo_compiler::response::serde_json_bytes;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::Valid;
use gqlnav_corpus::Entry;
use gqlnav_schema::{Coordinate, SchemaGraph};
use gqlnav_search::Query;
use serde_json::{json, Value};

use crate::state::{AppState, Snapshot};
use crate::util::{cap_text, make_cursor, read_cursor};

/// What a tool returns.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// Text for the model (short, useful part first).
    pub text: String,
    /// Machine-readable result (`structuredContent`).
    pub structured: Option<Value>,
    /// A tool-level error (the model should read `text` and correct itself).
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: String, structured: Option<Value>) -> Self {
        ToolOutput {
            text,
            structured,
            is_error: false,
        }
    }
    /// An error result.
    pub fn err(text: String, structured: Option<Value>) -> Self {
        ToolOutput {
            text,
            structured,
            is_error: true,
        }
    }
}

fn first_sentence(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = s.find(". ").map(|i| i + 1).unwrap_or(s.len()).min(s.len());
    let mut out = s[..end].to_string();
    if out.len() > max {
        let mut cut = max;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// `Type.field(req: T!, opt, …): Ret — first sentence` for a field entry.
pub fn short_definition(e: &Entry) -> String {
    let mut sig = e.coordinate.clone();
    if !e.args.is_empty() {
        let mut parts: Vec<String> = Vec::new();
        for a in e.args.iter().filter(|a| a.required) {
            parts.push(format!("{}: {}", a.name, a.ty));
        }
        let optional: Vec<&str> = e
            .args
            .iter()
            .filter(|a| !a.required)
            .map(|a| a.name.as_str())
            .collect();
        let shown = optional.len().min(6);
        parts.extend(optional[..shown].iter().map(|s| s.to_string()));
        if optional.len() > shown {
            parts.push("…".into());
        }
        sig.push_str(&format!("({})", parts.join(", ")));
    }
    if !e.return_type.is_empty() {
        sig.push_str(&format!(": {}", e.return_type));
    }
    if e.deprecated.is_some() {
        sig.push_str(" @deprecated");
    }
    let d = first_sentence(&e.description, 140);
    if d.is_empty() {
        sig
    } else {
        format!("{sig} — {d}")
    }
}

/// `search_schema` arguments.
#[derive(Debug, Clone)]
pub struct SearchArgs {
    /// Natural-language question or keywords.
    pub query: String,
    /// Results per page.
    pub limit: usize,
    /// Token budget (slice when a slicer is plugged in; else hits are cut to it).
    pub budget_tokens: Option<usize>,
    /// Opaque cursor from a previous page.
    pub cursor: Option<String>,
}

/// One search result as both surfaces expose it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    /// Schema coordinate.
    pub coordinate: String,
    /// Entry kind (`field`, …).
    pub kind: String,
    /// Score in [0, 1], relative to the best hit of the query.
    pub score: f32,
    /// Short signature and first sentence of the description.
    pub definition: String,
    /// Root-first paths of field coordinates.
    pub paths_to_root: Vec<Vec<String>>,
    /// Cursor pointing after this result.
    pub cursor: String,
}

/// Largest accepted query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 1024;

/// Run the ranker and page: results `offset..offset+limit`, with `more` telling if a
/// next page exists. Shared by `search_schema` and `__search`.
pub fn ranked_page(
    snap: &Snapshot,
    query: &str,
    offset: usize,
    limit: usize,
    paths: usize,
    min_score: Option<f64>,
) -> Result<(Vec<SearchItem>, bool), String> {
    if query.trim().is_empty() {
        return Err(
            "`query` is empty; describe what you need, e.g. \"open pull requests of a repository\""
                .into(),
        );
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(format!(
            "`query` is {} bytes; keep it under {MAX_QUERY_BYTES} (one short intent per call)",
            query.len()
        ));
    }
    // One extra to know whether a next page exists; the top hit is always fetched so
    // scores stay relative to the best hit of the query, on every page.
    let depth = offset + limit + 1;
    let scored = snap
        .backend
        .search(&Query::new(query), depth)
        .map_err(|e| format!("search failed: {e}"))?;
    let top = scored.first().map(|s| s.score).unwrap_or(0.0);
    let mut items = Vec::new();
    let mut more = false;
    for (i, s) in scored.iter().enumerate().skip(offset) {
        let score = if top > 0.0 {
            (s.score / top).clamp(0.0, 1.0)
        } else {
            0.0
        };
        if let Some(m) = min_score {
            if f64::from(score) < m {
                break;
            }
        }
        if items.len() == limit {
            more = true;
            break;
        }
        let e = &snap.ctx.corpus.entries[s.doc];
        let paths_to_root = if paths == 0 {
            Vec::new()
        } else {
            snap.graph
                .paths_to_root(
                    &e.coordinate,
                    gqlnav_schema::PathOptions {
                        max_paths: paths,
                        ..Default::default()
                    },
                )
                .unwrap_or_default()
        };
        items.push(SearchItem {
            coordinate: e.coordinate.clone(),
            kind: serde_json::to_value(e.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            score,
            definition: short_definition(e),
            paths_to_root,
            cursor: make_cursor(i + 1, query, snap.generation),
        });
    }
    Ok((items, more))
}

/// `search_schema`.
pub fn search_schema(state: &AppState, a: &SearchArgs) -> ToolOutput {
    let snap = state.snapshot();
    if let (Some(budget), Some(slicer)) = (a.budget_tokens, &state.slicer) {
        return match slicer(&a.query, budget) {
            Ok(s) => ToolOutput::ok(
                format!(
                    "# Schema slice for \"{}\": {} coordinates, {} tokens ({}) within a budget of {budget}\n{}",
                    a.query,
                    s.coordinates.len(),
                    s.tokens,
                    state.meter.encoding(),
                    s.sdl
                ),
                Some(json!({"query": a.query, "budget": budget, "slice": s})),
            ),
            Err(e) => ToolOutput::err(format!("slicing failed: {e}"), None),
        };
    }
    let offset = match &a.cursor {
        Some(c) if !c.trim().is_empty() => match read_cursor(c, &a.query, snap.generation) {
            Ok(o) => o,
            Err(e) => return ToolOutput::err(e, None),
        },
        _ => 0,
    };
    let limit = a.limit.clamp(1, state.config.max_limit);
    let (mut items, mut more) = match ranked_page(
        &snap,
        &a.query,
        offset,
        limit,
        state.config.paths_per_hit,
        None,
    ) {
        Ok(x) => x,
        Err(e) => return ToolOutput::err(e, None),
    };
    let mut lines = Vec::new();
    let mut used = 0usize;
    let mut kept = 0usize;
    for (i, it) in items.iter().enumerate() {
        let mut block = format!(
            "{}. {} ({}, score {:.2})\n   {}",
            offset + i + 1,
            it.coordinate,
            it.kind,
            it.score,
            it.definition
        );
        match it.paths_to_root.first() {
            Some(p) => block.push_str(&format!("\n   path: {}", p.join(" > "))),
            None => block.push_str("\n   path: (none from Query)"),
        }
        if let Some(b) = a.budget_tokens {
            let t = state.meter.count(&block);
            if used + t > b && kept > 0 {
                more = true;
                break;
            }
            used += t;
        }
        kept += 1;
        lines.push(block);
    }
    items.truncate(kept);
    let next = if more {
        items.last().map(|it| it.cursor.clone())
    } else {
        None
    };
    let mut text = if items.is_empty() {
        format!(
            "No coordinates match \"{}\". Try other words for the same intent, or introspect a type you know (e.g. Query).",
            a.query
        )
    } else {
        format!("{}\n", lines.join("\n"))
    };
    if let Some(n) = &next {
        text.push_str(&format!(
            "More results: call search_schema again with the same query and cursor \"{n}\".\n"
        ));
    }
    if !items.is_empty() {
        text.push_str(
            "Next: introspect a coordinate for its full definition, then validate an operation.",
        );
    }
    ToolOutput::ok(
        text,
        Some(json!({
            "query": a.query,
            "results": items,
            "nextCursor": next,
        })),
    )
}

/// `introspect` arguments.
#[derive(Debug, Clone)]
pub struct IntrospectArgs {
    /// Coordinates (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`, `@dir`).
    pub coordinates: Vec<String>,
    /// Expansion depth: 1 = exactly what was asked, 2 = also the types it references, …
    pub depth: usize,
}

/// Deepest `depth` accepted by `introspect`.
pub const MAX_INTROSPECT_DEPTH: usize = 3;
/// Most coordinates per `introspect` call.
pub const MAX_INTROSPECT_COORDINATES: usize = 20;

fn type_sdl(graph: &SchemaGraph, name: &str) -> Option<String> {
    graph.schema.types.get(name).map(|t| t.to_string())
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

/// `introspect`.
pub fn introspect(state: &AppState, a: &IntrospectArgs) -> ToolOutput {
    let snap = state.snapshot();
    let graph = &snap.graph;
    if a.coordinates.is_empty() {
        return ToolOutput::err(
            "Give `coordinates` (e.g. [\"Repository.pullRequests\"]) or `type` (e.g. \"Repository\").".into(),
            None,
        );
    }
    if a.coordinates.len() > MAX_INTROSPECT_COORDINATES {
        return ToolOutput::err(
            format!(
                "{} coordinates asked; at most {MAX_INTROSPECT_COORDINATES} per call.",
                a.coordinates.len()
            ),
            None,
        );
    }
    let depth = a.depth.clamp(1, MAX_INTROSPECT_DEPTH);
    let mut unknown: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut resolved = Vec::new();
    for raw in &a.coordinates {
        match graph.resolve_str(raw) {
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
    if !unknown.is_empty() {
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
        return ToolOutput::err(text, Some(structured));
    }
    let mut seen_types: HashSet<String> = HashSet::new();
    let mut blocks: Vec<String> = Vec::new();
    let mut frontier: Vec<String> = Vec::new();
    for c in &resolved {
        if let Coordinate::Type(t) = c {
            if !seen_types.insert(t.clone()) {
                continue;
            }
        }
        let (text, refs) = coordinate_sdl(graph, c);
        blocks.push(text);
        frontier.extend(refs);
    }
    for _ in 1..depth {
        let mut next = Vec::new();
        let mut level: BTreeSet<String> = BTreeSet::new();
        for t in frontier.drain(..) {
            if !is_builtin_type(graph, &t) && !seen_types.contains(&t) {
                level.insert(t);
            }
        }
        for t in level {
            seen_types.insert(t.clone());
            if let Some(s) = type_sdl(graph, &t) {
                blocks.push(s);
                referenced_types(graph, &t, &mut next);
            }
        }
        frontier = next;
    }
    let full = blocks.join("\n");
    let (text, cut) = cap_text(
        &full,
        state.config.policy.max_result_bytes,
        state.config.policy.max_result_tokens,
        &state.meter,
        "Introspect fewer coordinates, single fields (Type.field) or depth 1.",
    );
    ToolOutput::ok(
        text,
        Some(json!({
            "coordinates": resolved.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "depth": depth,
            "truncated": cut,
        })),
    )
}

/// One compacted validation problem.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactError {
    /// The message, useful part first.
    pub message: String,
    /// `line:column` in the operation text, when known.
    pub location: Option<String>,
    /// Existing coordinates close to the bad one.
    pub did_you_mean: Vec<String>,
    /// Types worth introspecting to fix it.
    pub introspect: Vec<String>,
}

impl CompactError {
    /// One line: `message (at L:C) — did you mean …? introspect …`.
    pub fn line(&self) -> String {
        let mut s = self.message.clone();
        if let Some(l) = &self.location {
            s.push_str(&format!(" (at {l})"));
        }
        if !self.did_you_mean.is_empty() {
            s.push_str(&format!(
                " — did you mean {}?",
                self.did_you_mean.join(", ")
            ));
        }
        if !self.introspect.is_empty() {
            s.push_str(&format!(" Introspect {}.", self.introspect.join(", ")));
        }
        s
    }
}

fn backticked(msg: &str) -> Vec<String> {
    msg.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

fn arg_suggestions(graph: &SchemaGraph, field_coord: &str, bad: &str) -> Vec<String> {
    let Some((ty, field)) = field_coord.split_once('.') else {
        return Vec::new();
    };
    let f = match graph.schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => o.fields.get(field),
        Some(ExtendedType::Interface(o)) => o.fields.get(field),
        _ => None,
    };
    let Some(f) = f else { return Vec::new() };
    let mut v: Vec<(usize, String)> = f
        .arguments
        .iter()
        .map(|a| {
            (
                gqlnav_schema::graph::edit_distance(
                    &bad.to_ascii_lowercase(),
                    &a.name.to_ascii_lowercase(),
                ),
                format!("{ty}.{field}({}:)", a.name),
            )
        })
        .collect();
    v.sort();
    v.into_iter()
        .filter(|(d, _)| *d <= (bad.len() / 2).max(3))
        .take(3)
        .map(|x| x.1)
        .collect()
}

/// Turn an apollo-compiler message into a compact error with suggestions.
pub fn compact_error(graph: &SchemaGraph, message: &str, location: Option<String>) -> CompactError {
    let ticks = backticked(message);
    let mut did_you_mean = Vec::new();
    let mut introspect = Vec::new();
    let msg = message.trim().trim_end_matches('.').to_string();
    if msg.contains("does not have a field") && ticks.len() >= 2 {
        // type `T` does not have a field `f`
        let (t, f) = (&ticks[0], &ticks[1]);
        did_you_mean = suggest(graph, &format!("{t}.{f}"), 3);
        introspect.push(t.clone());
    } else if msg.contains("is not supported by") && ticks.len() >= 2 {
        // the argument `a` is not supported by `T.f`
        did_you_mean = arg_suggestions(graph, &ticks[1], &ticks[0]);
        introspect.push(ticks[1].clone());
    } else if msg.starts_with("cannot find type") && !ticks.is_empty() {
        did_you_mean = suggest(graph, &ticks[0], 3);
    } else if (msg.contains("does not exist on")) && ticks.len() >= 2 {
        // value `V` does not exist on `Enum` / field `f` does not exist on `Input`
        did_you_mean = suggest(graph, &format!("{}.{}", ticks[1], ticks[0]), 3);
        introspect.push(ticks[1].clone());
    } else if msg.contains("required argument") && !ticks.is_empty() {
        if let Some((owner, _)) = ticks[0].split_once('(') {
            introspect.push(owner.to_string());
        }
    } else if msg.contains("must have a subselection set") || msg.contains("subselection") {
        for t in &ticks {
            if graph.schema.types.contains_key(t.as_str()) {
                introspect.push(t.clone());
            }
        }
    }
    CompactError {
        message: msg,
        location,
        did_you_mean,
        introspect,
    }
}

/// What a parsed, validated operation is.
#[derive(Debug, Clone)]
pub struct OpInfo {
    /// query / mutation / subscription.
    pub kind: OperationType,
    /// Operation name, if any.
    pub name: Option<String>,
    /// Deepest selection nesting (fragments expanded).
    pub depth: usize,
    /// Root field names (aliases resolved to field names).
    pub root_fields: Vec<String>,
}

fn selection_depth(
    doc: &ExecutableDocument,
    set: &SelectionSet,
    visiting: &mut Vec<String>,
    cap: usize,
) -> usize {
    if cap == 0 {
        return 1;
    }
    let mut best = 0;
    for sel in &set.selections {
        let d = match sel {
            Selection::Field(f) => {
                if f.selection_set.selections.is_empty() {
                    1
                } else {
                    1 + selection_depth(doc, &f.selection_set, visiting, cap - 1)
                }
            }
            Selection::InlineFragment(i) => selection_depth(doc, &i.selection_set, visiting, cap),
            Selection::FragmentSpread(s) => {
                let n = s.fragment_name.to_string();
                if visiting.contains(&n) {
                    0
                } else if let Some(fr) = doc.fragments.get(s.fragment_name.as_str()) {
                    visiting.push(n);
                    let d = selection_depth(doc, &fr.selection_set, visiting, cap);
                    visiting.pop();
                    d
                } else {
                    0
                }
            }
        };
        best = best.max(d);
    }
    best
}

/// Parse and validate an operation against a schema; on failure, compacted errors.
pub fn check_operation(
    graph: &SchemaGraph,
    schema: &apollo_compiler::Schema,
    operation: &str,
    operation_name: Option<&str>,
) -> Result<(Valid<ExecutableDocument>, OpInfo), Vec<CompactError>> {
    let valid = Valid::assume_valid_ref(schema);
    let doc = match ExecutableDocument::parse_and_validate(valid, operation, "operation.graphql") {
        Ok(d) => d,
        Err(with) => {
            let mut out = Vec::new();
            for d in with.errors.iter().take(10) {
                let loc = d
                    .line_column_range()
                    .map(|r| format!("{}:{}", r.start.line, r.start.column));
                out.push(compact_error(graph, &d.error.to_string(), loc));
            }
            // Errors that name a fix first; cascades (missing subselection) last.
            out.sort_by_key(|e| e.did_you_mean.is_empty());
            if out.is_empty() {
                out.push(CompactError {
                    message: "the operation does not parse".into(),
                    location: None,
                    did_you_mean: Vec::new(),
                    introspect: Vec::new(),
                });
            }
            return Err(out);
        }
    };
    let op = match doc.operations.get(operation_name) {
        Ok(op) => op,
        Err(_) => {
            let names: Vec<String> = doc.operations.named.keys().map(|k| k.to_string()).collect();
            let message = match operation_name {
                Some(n) => format!(
                    "no operation named `{n}` in the document; it has: {}",
                    if names.is_empty() {
                        "(an anonymous operation)".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
                None => format!(
                    "the document has several operations ({}); pass operationName",
                    names.join(", ")
                ),
            };
            return Err(vec![CompactError {
                message,
                location: None,
                did_you_mean: Vec::new(),
                introspect: Vec::new(),
            }]);
        }
    };
    let depth = selection_depth(&doc, &op.selection_set, &mut Vec::new(), 64);
    let root_fields = op.root_fields(&doc).map(|f| f.name.to_string()).collect();
    let info = OpInfo {
        kind: op.operation_type,
        name: op.name.as_ref().map(|n| n.to_string()),
        depth,
        root_fields,
    };
    Ok((doc, info))
}

/// `validate` arguments.
#[derive(Debug, Clone)]
pub struct ValidateArgs {
    /// The GraphQL document.
    pub operation: String,
    /// Variables (checked against the operation's variable definitions).
    pub variables: Option<Value>,
    /// Operation to validate when the document has several.
    pub operation_name: Option<String>,
}

fn kind_name(k: OperationType) -> &'static str {
    match k {
        OperationType::Query => "query",
        OperationType::Mutation => "mutation",
        OperationType::Subscription => "subscription",
    }
}

/// What `execute` would say about an operation of this kind and name (None = allowed).
pub fn policy_refusal(state: &AppState, info: &OpInfo) -> Option<String> {
    match info.kind {
        OperationType::Subscription => Some(
            "subscriptions are not executed by this server (they need a long-lived stream); rewrite it as a query".into(),
        ),
        OperationType::Mutation if !state.config.policy.mutations.allows(info.name.as_deref()) => {
            Some(match &info.name {
                Some(n) => format!("mutation `{n}` is refused: mutations are off unless the server's local config allows them (allow_mutations = [\"{n}\"] or \"all\"); ask the user to enable it"),
                None => "anonymous mutations are refused: mutations are off unless the server's local config allows them by operation name or \"all\"; ask the user to enable it".into(),
            })
        }
        _ if info.depth > state.config.policy.max_depth => Some(format!(
            "the operation nests {} levels deep; the limit is {}. Select fewer nested fields",
            info.depth, state.config.policy.max_depth
        )),
        _ => None,
    }
}

fn check_variables(
    schema: &apollo_compiler::Schema,
    doc: &Valid<ExecutableDocument>,
    operation_name: Option<&str>,
    variables: Option<&Value>,
) -> Result<(), String> {
    let map = match variables {
        None | Some(Value::Null) => serde_json_bytes::Map::new(),
        Some(Value::Object(_)) => {
            let v = variables.cloned().unwrap_or(Value::Null);
            match serde_json_bytes::Value::from(v) {
                serde_json_bytes::Value::Object(m) => m,
                _ => serde_json_bytes::Map::new(),
            }
        }
        Some(_) => return Err("`variables` must be a JSON object".into()),
    };
    let Ok(op) = doc.operations.get(operation_name) else {
        return Ok(());
    };
    apollo_compiler::request::coerce_variable_values(Valid::assume_valid_ref(schema), op, &map)
        .map(|_| ())
        .map_err(|e| e.message().to_string())
}

/// Parse `variables` given as an object or as a JSON string.
pub fn variables_value(v: Option<Value>) -> Result<Option<Value>, String> {
    match v {
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => serde_json::from_str::<Value>(&s)
            .map(Some)
            .map_err(|e| format!("`variables` is a string but not JSON: {e}")),
        other => Ok(other),
    }
}

/// `validate`.
pub fn validate(state: &AppState, a: &ValidateArgs) -> ToolOutput {
    let snap = state.snapshot();
    let graph = &snap.graph;
    match check_operation(
        graph,
        &graph.schema,
        &a.operation,
        a.operation_name.as_deref(),
    ) {
        Err(errs) => {
            let mut text = format!("Invalid operation ({} problem(s)):\n", errs.len());
            for e in &errs {
                text.push_str(&format!("- {}\n", e.line()));
            }
            text.push_str("Fix these and validate again.");
            ToolOutput::err(text, Some(json!({"valid": false, "errors": errs})))
        }
        Ok((doc, info)) => {
            if let Err(e) = check_variables(
                &graph.schema,
                &doc,
                a.operation_name.as_deref(),
                a.variables.as_ref(),
            ) {
                return ToolOutput::err(
                    format!("The operation is valid but its variables are not: {e}"),
                    Some(json!({"valid": false, "errors": [{"message": e}]})),
                );
            }
            let refusal = policy_refusal(state, &info);
            let mut text = format!(
                "Valid {}{} (depth {}).",
                kind_name(info.kind),
                info.name
                    .as_ref()
                    .map(|n| format!(" `{n}`"))
                    .unwrap_or_default(),
                info.depth
            );
            match &refusal {
                Some(r) => text.push_str(&format!(" Note: execute would refuse it: {r}.")),
                None => text.push_str(" You can execute it."),
            }
            ToolOutput::ok(
                text,
                Some(json!({
                    "valid": true,
                    "operationType": kind_name(info.kind),
                    "operationName": info.name,
                    "depth": info.depth,
                    "executable": refusal.is_none(),
                    "refusal": refusal,
                })),
            )
        }
    }
}
