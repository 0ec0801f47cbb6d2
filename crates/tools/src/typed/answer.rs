//! An answer built from the data by paths: the model says, for each value of the answer,
//! which path of the data holds it (`project.issues.nodes[].title`), and gqlnav copies the
//! values. A model that never writes a value cannot invent one, and an answer key one list
//! down can only be read from a list (`parent.name` is no item of a list of ancestors).
//!
//! - [`mapping_schema`]: the answer schema with each value a choice among those paths, a
//!   list of values its items' choice;
//! - [`assemble`]: the answer, from a mapping and the data.

use serde_json::{json, Map, Value};

use super::fit::is_scalar_schema;
use super::path::FieldPath;

/// Most choices per value: a result of 1,500 tokens holds fewer leaves.
const MAX_CHOICES: usize = 300;

/// Most items of a list in an assembled answer.
const MAX_ITEMS: usize = 50;

/// The kinds of value a leaf path holds in the data (`null` is none of them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Kinds {
    string: bool,
    /// A number, or a string that reads as one (an amount: `"12.50"`).
    numeric: bool,
    boolean: bool,
}

impl Kinds {
    /// Whether a value of these kinds can be an answer value of schema `s`: a Boolean
    /// only for a Boolean and only a Boolean for one; for an integer or a number, a number
    /// or a string that reads as one (not a fork's `name` for a `forkCount`); a string or a
    /// number for anything else; nothing known (all null) for any.
    fn fit(self, s: &Value) -> bool {
        if self == Kinds::default() {
            return true;
        }
        if is_type(s, "boolean") {
            return self.boolean;
        }
        if (is_type(s, "integer") || is_type(s, "number")) && !is_type(s, "string") {
            return self.numeric;
        }
        self.string || self.numeric
    }
}

/// The leaf paths of `data` with the kinds of value each holds, each once, in the order
/// met (objects by key): a list's items read as `[]`, a list of scalars is a leaf (`tags[]`).
fn leaf_kinds(data: &Value) -> Vec<(String, Kinds)> {
    let mut out = Vec::new();
    visit(data, String::new(), &mut |p, v| push(&mut out, p, v));
    out
}

/// Call `f` with each leaf value of `v` and its path (`a.b[].c`); a list of scalars is
/// visited item by item and once more with `null`, so an empty one still has its path.
fn visit(v: &Value, at: String, f: &mut dyn FnMut(String, &Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                visit(x, p, f);
            }
        }
        Value::Array(a) => {
            let p = format!("{at}[]");
            if a.iter().all(|x| !x.is_object() && !x.is_array()) {
                for x in a {
                    f(p.clone(), x);
                }
                f(p, &Value::Null);
            } else {
                for x in a {
                    visit(x, p.clone(), f);
                }
            }
        }
        _ if !at.is_empty() => f(at, v),
        _ => {}
    }
}

/// Longest value shown in [`path_view`], characters.
const SHOWN_CHARS: usize = 60;

/// The data as one line per leaf path with its first `values` distinct values and how many
/// it holds (`project.issues.nodes[].title: "a", "b", … (23)`): the answer turn's view,
/// where each value of the answer is one of these paths.
pub fn path_view(data: &Value, values: usize) -> String {
    let mut rows: Vec<(String, Vec<String>, usize)> = Vec::new();
    visit(data, String::new(), &mut |p, v| {
        if v.is_null() && p.ends_with("[]") {
            return;
        }
        let i = match rows.iter().position(|(q, _, _)| *q == p) {
            Some(i) => i,
            None if rows.len() < MAX_CHOICES => {
                rows.push((p, Vec::new(), 0));
                rows.len() - 1
            }
            None => return,
        };
        let row = &mut rows[i];
        row.2 += 1;
        let mut shown = v.to_string();
        if shown.chars().count() > SHOWN_CHARS {
            shown = shown.chars().take(SHOWN_CHARS).collect::<String>() + "…";
        }
        if row.1.len() < values && !row.1.contains(&shown) {
            row.1.push(shown);
        }
    });
    let mut out = String::new();
    for (p, shown, n) in rows {
        let more = if n > shown.len() {
            format!(", … ({n} values)")
        } else {
            String::new()
        };
        out.push_str(&format!("{p}: {}{more}\n", shown.join(", ")));
    }
    out
}

fn push(out: &mut Vec<(String, Kinds)>, p: String, v: &Value) {
    let i = match out.iter().position(|(q, _)| *q == p) {
        Some(i) => i,
        None if out.len() < MAX_CHOICES => {
            out.push((p, Kinds::default()));
            out.len() - 1
        }
        None => return,
    };
    let k = &mut out[i].1;
    match v {
        Value::String(x) if x.trim().parse::<f64>().is_ok() => k.numeric = true,
        Value::String(_) => k.string = true,
        Value::Number(_) => k.numeric = true,
        Value::Bool(_) => k.boolean = true,
        _ => {}
    }
}

/// How many lists down a data path reads (`a.b[].c` → 1).
fn depth(path: &str) -> usize {
    path.matches("[]").count()
}

/// The properties of an object schema (none for any other).
fn properties(s: &Value) -> impl Iterator<Item = (&String, &Value)> {
    s.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

fn is_type(s: &Value, t: &str) -> bool {
    match s.get("type") {
        Some(Value::String(x)) => x == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x == t),
        _ => false,
    }
}

/// The first branch of an `anyOf` / `oneOf` that is not `null` (a nullable value).
fn branch(s: &Value) -> &Value {
    for k in ["anyOf", "oneOf"] {
        if let Some(b) = s.get(k).and_then(Value::as_array).and_then(|a| {
            a.iter()
                .find(|x| !is_type(x, "null") || x.get("type").is_none())
        }) {
            return b;
        }
    }
    s
}

/// The answer schema `answer` with each value a choice among the leaf paths of `data`:
/// those whose values fit the value's type ([`Kinds::fit`]) and that are at least as many
/// lists down as the value, of those ending in the same field the nearest its depth (else
/// those that fit; else all); an object keeps its keys, a
/// list becomes its items' choice. `None` when the data has no leaf. There is no choice
/// that counts a list's items: offered one, the 1.5B model took it for `additions` and
/// `forkCount` beside those fields (docs/agent.md).
pub fn mapping_schema(answer: &Value, data: &Value) -> Option<Value> {
    let leaves = leaf_kinds(data);
    if leaves.is_empty() {
        return None;
    }
    Some(map(answer, &leaves, 0))
}

fn map(s: &Value, leaves: &[(String, Kinds)], d: usize) -> Value {
    let s = branch(s);
    if is_scalar_schema(s) {
        let paths: Vec<String> = leaves.iter().map(|(p, _)| p.clone()).collect();
        let fit: Vec<&(String, Kinds)> = leaves.iter().filter(|(_, k)| k.fit(s)).collect();
        let deep: Vec<&String> = fit
            .iter()
            .filter(|(p, _)| depth(p) >= d)
            .map(|(p, _)| p)
            .collect();
        // Of the paths that end in the same field, those nearest the value's depth: the
        // repository's `forkCount`, not its forks' items', for a count one list up.
        let last = |p: &str| {
            p.rsplit('.')
                .next()
                .unwrap_or(p)
                .trim_end_matches("[]")
                .to_string()
        };
        let deep: Vec<String> = deep
            .iter()
            .filter(|p| {
                !deep
                    .iter()
                    .any(|q| last(q) == last(p) && depth(q).abs_diff(d) < depth(p).abs_diff(d))
            })
            .map(|p| p.to_string())
            .collect();
        let choices = if !deep.is_empty() {
            deep
        } else if !fit.is_empty() {
            fit.iter().map(|(p, _)| p.clone()).collect()
        } else {
            paths.clone()
        };
        let mut out = json!({"type": "string", "enum": choices});
        if let Some(desc) = s.get("description") {
            out["description"] = desc.clone();
        }
        return out;
    }
    if let Some(items) = s.get("items") {
        return map(items, leaves, d + 1);
    }
    let mut out = Map::new();
    let mut props = Map::new();
    for (k, x) in properties(s) {
        props.insert(k.clone(), map(x, leaves, d));
    }
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    if let Some(r) = s.get("required") {
        out.insert("required".into(), r.clone());
    }
    out.insert("additionalProperties".into(), json!(false));
    Value::Object(out)
}

/// The answer from a `mapping` ([`mapping_schema`]'s shape, paths as values) and the data:
/// a value is the one at its path (the first item of a list the answer does not list), a
/// list the items of the list its values' paths share (else the first's), each item's
/// values read from it. Values take the answer schema's type where they can (`526` as
/// `"526"` for a string).
pub fn assemble(answer: &Value, mapping: &Value, data: &Value) -> Value {
    build(answer, mapping, data, &Ctx::root(data))
}

/// Where an item of a list is read from: the item, and the path of the list it is in.
struct Ctx<'a> {
    value: &'a Value,
    prefix: Vec<Seg>,
    root: &'a Value,
}

impl<'a> Ctx<'a> {
    fn root(data: &'a Value) -> Ctx<'a> {
        Ctx {
            value: data,
            prefix: Vec::new(),
            root: data,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Each,
}

fn segs(path: &str) -> Vec<Seg> {
    let Ok(p) = FieldPath::parse(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in p.steps {
        out.push(Seg::Key(s.field));
        if s.list {
            out.push(Seg::Each);
        }
    }
    out
}

/// Walk `segs` from `v`: a key reads the field, `[]` the first item.
fn walk<'v>(v: &'v Value, segs: &[Seg]) -> &'v Value {
    let mut cur = v;
    for s in segs {
        cur = match s {
            Seg::Key(k) => cur.get(k).unwrap_or(&Value::Null),
            Seg::Each => cur
                .as_array()
                .and_then(|a| a.first())
                .unwrap_or(&Value::Null),
        };
    }
    cur
}

/// The path segments `path` reads from `ctx`: its rest when it starts with the context's
/// list, else all of it from the root.
fn relative<'a>(ctx: &Ctx<'a>, path: &[Seg]) -> (&'a Value, Vec<Seg>) {
    if !ctx.prefix.is_empty() && path.starts_with(&ctx.prefix) {
        (ctx.value, path[ctx.prefix.len()..].to_vec())
    } else {
        (ctx.root, path.to_vec())
    }
}

fn paths_in(mapping: &Value, out: &mut Vec<String>) {
    match mapping {
        Value::String(s) => out.push(s.clone()),
        Value::Object(m) => m.values().for_each(|x| paths_in(x, out)),
        Value::Array(a) => a.iter().for_each(|x| paths_in(x, out)),
        _ => {}
    }
}

fn build(s: &Value, mapping: &Value, data: &Value, ctx: &Ctx) -> Value {
    let s = branch(s);
    if is_scalar_schema(s) {
        let Some(path) = mapping.as_str() else {
            return Value::Null;
        };
        let (from, rest) = relative(ctx, &segs(path));
        return typed(s, walk(from, &rest));
    }
    if let Some(items) = s.get("items") {
        return Value::Array(list(items, mapping, data, ctx));
    }
    let mut out = Map::new();
    for (k, x) in properties(s) {
        if let Some(m) = mapping.get(k) {
            out.insert(k.clone(), build(x, m, data, ctx));
        }
    }
    Value::Object(out)
}

/// A list of the answer: the items of the list its values' paths share below the context
/// (the first path's first list when they share none), each read by `items`.
fn list(items: &Value, mapping: &Value, data: &Value, ctx: &Ctx) -> Vec<Value> {
    let mut paths = Vec::new();
    paths_in(mapping, &mut paths);
    let rel: Vec<Vec<Seg>> = paths.iter().map(|p| relative(ctx, &segs(p)).1).collect();
    // The path that leads: the first that reads through a list.
    let Some(lead) = rel.iter().position(|r| r.contains(&Seg::Each)) else {
        // No list: one item.
        return vec![build(items, mapping, data, ctx)];
    };
    let first = &rel[lead];
    let shared = first
        .iter()
        .enumerate()
        .take_while(|(i, s)| rel.iter().all(|r| r.get(*i) == Some(*s)))
        .count();
    let each = first[..shared]
        .iter()
        .position(|s| *s == Seg::Each)
        .or_else(|| first.iter().position(|s| *s == Seg::Each))
        .unwrap_or_default();
    let (from, _) = relative(ctx, &segs(&paths[lead]));
    let list = walk(from, &first[..each]);
    let inside = !ctx.prefix.is_empty() && segs(&paths[lead]).starts_with(&ctx.prefix);
    let mut prefix = if inside {
        ctx.prefix.clone()
    } else {
        Vec::new()
    };
    prefix.extend_from_slice(&first[..=each]);
    list.as_array()
        .into_iter()
        .flatten()
        .take(MAX_ITEMS)
        .map(|item| {
            let c = Ctx {
                value: item,
                prefix: prefix.clone(),
                root: ctx.root,
            };
            build(items, mapping, data, &c)
        })
        .collect()
}

/// A copied value in the answer schema's type where it converts (`526` → `"526"` for a
/// string, `"7"` → `7` for an integer); else as it is.
fn typed(s: &Value, v: &Value) -> Value {
    match v {
        Value::Number(n) if is_type(s, "string") && !is_type(s, "number") => json!(n.to_string()),
        Value::String(x) if is_type(s, "integer") && !is_type(s, "string") => {
            x.parse::<i64>().map_or_else(|_| v.clone(), |n| json!(n))
        }
        Value::String(x) if is_type(s, "number") && !is_type(s, "string") => {
            x.parse::<f64>().map_or_else(|_| v.clone(), |n| json!(n))
        }
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Value {
        json!({"category": {
            "parent": {"name": "p", "level": 1},
            "ancestors": {"totalCount": 2, "edges": [
                {"node": {"name": "a", "level": 0}},
                {"node": {"name": "b", "level": 1}}]},
            "tags": ["x", "y"]}})
    }

    #[test]
    fn the_path_view_shows_each_leaf_path_once_with_its_first_values() {
        let view = path_view(&data(), 1);
        let lines: Vec<&str> = view.lines().collect();
        assert_eq!(
            lines,
            [
                "category.ancestors.edges[].node.level: 0, … (2 values)",
                "category.ancestors.edges[].node.name: \"a\", … (2 values)",
                "category.ancestors.totalCount: 2",
                "category.parent.level: 1",
                "category.parent.name: \"p\"",
                "category.tags[]: \"x\", … (2 values)",
            ]
        );
        // Every line's path is one the mapping chooses from.
        let paths: Vec<String> = leaf_kinds(&data()).into_iter().map(|(p, _)| p).collect();
        for l in &lines {
            let p = l.split(':').next().unwrap();
            assert!(paths.iter().any(|c| c == p), "{p}");
        }
        let long = json!({"a": "x".repeat(100)});
        assert!(path_view(&long, 3).starts_with(&format!("a: \"{}…", "x".repeat(59))));
    }

    #[test]
    fn the_data_paths_and_a_mapping_schema_by_list_depth() {
        let paths: Vec<String> = leaf_kinds(&data()).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            paths,
            [
                "category.ancestors.edges[].node.level",
                "category.ancestors.edges[].node.name",
                "category.ancestors.totalCount",
                "category.parent.level",
                "category.parent.name",
                "category.tags[]",
            ]
        );
        let answer = json!({"type": "object", "properties": {
            "parents": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "level": {"type": "integer"}}}},
            "count": {"type": "integer"}}, "required": ["parents"]});
        let m = mapping_schema(&answer, &data()).unwrap();
        let name = m["properties"]["parents"]["properties"]["name"]["enum"].clone();
        assert_eq!(
            name,
            json!([
                "category.ancestors.edges[].node.level",
                "category.ancestors.edges[].node.name",
                "category.tags[]"
            ]),
            "one list down: only paths through a list"
        );
        let count = m["properties"]["count"]["enum"].as_array().unwrap().clone();
        assert!(count.contains(&json!("category.ancestors.totalCount")));
        assert_eq!(m["required"], json!(["parents"]));
        assert!(mapping_schema(&answer, &json!({})).is_none(), "no data");
        let flags = json!({"repo": {"isFork": true, "name": "x", "stars": 3}});
        let typed = json!({"type": "object", "properties": {
            "fork": {"type": "boolean"}, "name": {"type": "string"}}});
        let m = mapping_schema(&typed, &flags).unwrap();
        assert_eq!(m["properties"]["fork"]["enum"], json!(["repo.isFork"]));
        assert_eq!(
            m["properties"]["name"]["enum"],
            json!(["repo.name", "repo.stars"]),
            "a string may be a number, never a Boolean"
        );
        let forks =
            json!({"repo": {"forkCount": 3, "forks": {"nodes": [{"forkCount": 1, "name": "f"}]}}});
        let counts = json!({"type": "object", "properties": {"forkCount": {"type": "integer"},
            "forks": {"type": "array", "items": {"type": "object", "properties": {
                "forkCount": {"type": "integer"}}}}}});
        let m = mapping_schema(&counts, &forks).unwrap();
        assert_eq!(
            m["properties"]["forkCount"]["enum"],
            json!(["repo.forkCount"]),
            "the items' forkCount is one list further than the repository's, a name no count"
        );
        assert_eq!(
            m["properties"]["forks"]["properties"]["forkCount"]["enum"],
            json!(["repo.forks.nodes[].forkCount"])
        );
    }

    #[test]
    fn an_answer_is_assembled_from_the_paths() {
        let answer = json!({"type": "object", "properties": {
            "parents": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "level": {"type": "string"}}}},
            "first": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "count": {"type": "integer"}}});
        let mapping = json!({
            "parents": {"name": "category.ancestors.edges[].node.name",
                        "level": "category.ancestors.edges[].node.level"},
            "first": "category.ancestors.edges[].node.name",
            "tags": "category.tags[]",
            "count": "category.ancestors.totalCount"});
        assert_eq!(
            assemble(&answer, &mapping, &data()),
            json!({
                "parents": [{"name": "a", "level": "0"}, {"name": "b", "level": "1"}],
                "first": "a",
                "tags": ["x", "y"],
                "count": 2})
        );
        // Values from a list and from outside it: the outside one in every item.
        let mixed = json!({"parents": {"name": "category.ancestors.edges[].node.name",
                                        "level": "category.parent.level"}});
        assert_eq!(
            assemble(&answer, &mixed, &data())["parents"],
            json!([{"name": "a", "level": "1"}, {"name": "b", "level": "1"}])
        );
        // A path the data lacks gives null, not a panic.
        let lost = json!({"first": "category.nothing.here", "tags": "nope[]"});
        assert_eq!(
            assemble(&answer, &lost, &data()),
            json!({"first": null, "tags": []})
        );
    }

    #[test]
    fn nested_lists_are_read_item_by_item() {
        let data = json!({"order": {"fulfillments": {"nodes": [
            {"location": {"name": "L1"}, "items": {"nodes": [{"t": "a"}, {"t": "b"}]}},
            {"location": {"name": "L2"}, "items": {"nodes": [{"t": "c"}]}}]}}});
        let answer = json!({"type": "object", "properties": {"orders": {"type": "array",
            "items": {"type": "object", "properties": {
                "location": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "title": {"type": "string"}}}}}}}}});
        let mapping = json!({"orders": {
            "location": "order.fulfillments.nodes[].location.name",
            "items": {"title": "order.fulfillments.nodes[].items.nodes[].t"}}});
        assert_eq!(
            assemble(&answer, &mapping, &data),
            json!({"orders": [
                {"location": "L1", "items": [{"title": "a"}, {"title": "b"}]},
                {"location": "L2", "items": [{"title": "c"}]}]})
        );
    }
}
