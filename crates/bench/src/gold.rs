//! Expected answers without hand-written values: a question's gold `operation` runs on
//! the deterministic mock (gqlnav-mock), its result is restricted to the question's
//! `targetFields`, and what remains is put in the shape of the question's
//! `answerSchema` — the shape the agent's `answer` must take — so the WG tolerant match
//! ([`crate::answer_matches`]) can grade an agent's answer against it.
//!
//! The projection: at each object level of the answer schema, each scalar property
//! takes one target leaf found at that level of the result (without crossing a list),
//! and each array property one list of the result; when there are more leaves (or
//! lists) than properties, those whose names share the most words with a property are
//! kept. An array of scalars takes the one leaf of each item. A list where the schema
//! asks for single values gives its first item (a "most recent" question). Names are
//! compared by their words only (`authorName` ~ `author { name }`), with no list of
//! words of any API.

use apollo_compiler::executable::{ExecutableDocument, Selection, SelectionSet};
use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use serde_json::{Map, Value};

use gqlnav_mock::{Mock, Request};

/// Why a question has no expected answer on the mock.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoldError {
    #[error("the question has no gold operation")]
    NoOperation,
    #[error("the question has no targetFields, so nothing says which values answer it")]
    NoTargets,
    #[error("the gold operation fails on the mock: {0}")]
    Execute(String),
    #[error("no target field has a value in the gold operation's result")]
    Empty,
}

/// A target leaf of the result: its coordinate, the response keys from its record,
/// and the value.
#[derive(Debug, Clone)]
struct LeafAt {
    coord: String,
    path: Vec<String>,
    value: Value,
}

/// A list of the result that holds targets.
#[derive(Debug, Clone)]
struct ListAt {
    path: Vec<String>,
    items: Vec<Rec>,
}

/// A record: target leaves reachable without crossing a list, and the lists below.
#[derive(Debug, Clone, Default)]
struct Rec {
    leaves: Vec<LeafAt>,
    lists: Vec<ListAt>,
}

impl Rec {
    fn is_empty(&self) -> bool {
        self.leaves.is_empty() && self.lists.iter().all(|l| l.items.iter().all(Rec::is_empty))
    }
}

/// Is `Type.field` (as selected on `ty`) one of the targets, directly or through an
/// interface it implements or a type that implements it?
fn targeted(schema: &Schema, targets: &[String], ty: &str, field: &str) -> bool {
    let hit = |t: &str| targets.iter().any(|c| c == &format!("{t}.{field}"));
    if hit(ty) {
        return true;
    }
    targets.iter().any(|c| {
        c.strip_suffix(&format!(".{field}"))
            .is_some_and(|owner| schema.is_subtype(owner, ty) || schema.is_subtype(ty, owner))
    })
}

/// Whether a selection set reaches a target (the static question: an empty list still
/// answers "none").
fn holds_targets(
    doc: &ExecutableDocument,
    schema: &Schema,
    targets: &[String],
    set: &SelectionSet,
    depth: usize,
) -> bool {
    if depth > 32 {
        return false;
    }
    set.selections.iter().any(|s| match s {
        Selection::Field(f) => {
            if f.selection_set.selections.is_empty() {
                targeted(schema, targets, set.ty.as_str(), f.name.as_str())
            } else {
                holds_targets(doc, schema, targets, &f.selection_set, depth + 1)
            }
        }
        Selection::InlineFragment(i) => {
            holds_targets(doc, schema, targets, &i.selection_set, depth + 1)
        }
        Selection::FragmentSpread(fs) => doc
            .fragments
            .get(&fs.fragment_name)
            .is_some_and(|f| holds_targets(doc, schema, targets, &f.selection_set, depth + 1)),
    })
}

struct Restrict<'a> {
    doc: &'a ExecutableDocument,
    schema: &'a Schema,
    targets: &'a [String],
}

impl Restrict<'_> {
    fn walk(&self, set: &SelectionSet, data: &Value, rec: &mut Rec, path: &[String], depth: usize) {
        if depth > 32 {
            return;
        }
        for s in &set.selections {
            match s {
                Selection::Field(f) => {
                    let key = f.alias.as_ref().unwrap_or(&f.name).to_string();
                    let Some(v) = data.get(&key) else { continue };
                    let mut at = path.to_vec();
                    at.push(key);
                    if f.selection_set.selections.is_empty() {
                        if !targeted(self.schema, self.targets, set.ty.as_str(), f.name.as_str()) {
                            continue;
                        }
                        let coord = format!("{}.{}", set.ty, f.name);
                        match v {
                            Value::Null => {}
                            Value::Array(a) => rec.lists.push(ListAt {
                                path: at,
                                items: a
                                    .iter()
                                    .filter(|x| !x.is_null())
                                    .map(|x| Rec {
                                        leaves: vec![LeafAt {
                                            coord: coord.clone(),
                                            path: Vec::new(),
                                            value: x.clone(),
                                        }],
                                        lists: Vec::new(),
                                    })
                                    .collect(),
                            }),
                            x => rec.leaves.push(LeafAt {
                                coord,
                                path: at,
                                value: x.clone(),
                            }),
                        }
                    } else if holds_targets(
                        self.doc,
                        self.schema,
                        self.targets,
                        &f.selection_set,
                        depth + 1,
                    ) {
                        match v {
                            Value::Array(a) => {
                                let items = a
                                    .iter()
                                    .map(|item| {
                                        let mut r = Rec::default();
                                        self.walk(&f.selection_set, item, &mut r, &[], depth + 1);
                                        r
                                    })
                                    .collect();
                                rec.lists.push(ListAt { path: at, items });
                            }
                            Value::Object(_) => self.walk(&f.selection_set, v, rec, &at, depth + 1),
                            _ => {}
                        }
                    }
                }
                Selection::InlineFragment(i) => {
                    self.walk(&i.selection_set, data, rec, path, depth + 1)
                }
                Selection::FragmentSpread(fs) => {
                    if let Some(fr) = self.doc.fragments.get(&fs.fragment_name) {
                        self.walk(&fr.selection_set, data, rec, path, depth + 1);
                    }
                }
            }
        }
    }
}

/// Lowercase words of identifiers and keys (`authorName` → author, name).
fn words(texts: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for t in texts {
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in t.chars() {
            if !c.is_alphanumeric() {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                prev_lower = false;
                continue;
            }
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// Words the two sides share: equal, or one a prefix of the other with 4+ letters
/// (`repo` ~ `repository`, `count` ~ `counts`).
fn similarity(a: &[String], b: &[String]) -> usize {
    a.iter()
        .filter(|x| {
            b.iter().any(|y| {
                x == &y
                    || (x.len().min(y.len()) >= 4
                        && (x.starts_with(y.as_str()) || y.starts_with(x.as_str())))
            })
        })
        .count()
}

fn json_type_fits(v: &Value, ty: Option<&str>) -> bool {
    match (ty, v) {
        (None, _) => true,
        (Some("string"), Value::String(_)) => true,
        (Some("integer"), Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Some("number"), Value::Number(_)) => true,
        (Some("boolean"), Value::Bool(_)) => true,
        _ => false,
    }
}

/// An answer-schema object level, with nested objects folded in (nesting is ignored by
/// the match).
#[derive(Debug, Default)]
struct Shape {
    scalars: Vec<(Vec<String>, Option<String>)>,
    arrays: Vec<(Vec<String>, Item)>,
}

#[derive(Debug)]
enum Item {
    Scalar,
    Object(Shape),
}

fn type_of(s: &Value) -> Option<String> {
    match s.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_string),
        _ => None,
    }
}

fn shape_of(s: &Value, path: Vec<String>, out: &mut Shape, depth: usize) {
    if depth > 16 {
        return;
    }
    match type_of(s).as_deref() {
        Some("object") | None if s.get("properties").is_some() => {
            if let Some(props) = s["properties"].as_object() {
                for (k, v) in props {
                    let mut p = path.clone();
                    p.push(k.clone());
                    shape_of(v, p, out, depth + 1);
                }
            }
        }
        Some("array") => {
            let items = s.get("items").cloned().unwrap_or(Value::Null);
            let item = if type_of(&items).as_deref() == Some("object")
                || items.get("properties").is_some()
            {
                let mut inner = Shape::default();
                shape_of(&items, Vec::new(), &mut inner, depth + 1);
                Item::Object(inner)
            } else {
                Item::Scalar
            };
            out.arrays.push((path, item));
        }
        t => out.scalars.push((path, t.map(str::to_string))),
    }
}

/// Greedy assignment of `n_left` things to `n_right` slots by score (highest first,
/// then left order, then right order): pairs (left, right).
fn assign(
    scores: Vec<(usize, usize, usize)>,
    n_left: usize,
    n_right: usize,
) -> Vec<(usize, usize)> {
    let mut s = scores;
    s.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_l, mut used_r) = (vec![false; n_left], vec![false; n_right]);
    let mut out = Vec::new();
    for (_, l, r) in s {
        if !used_l[l] && !used_r[r] {
            used_l[l] = true;
            used_r[r] = true;
            out.push((l, r));
        }
    }
    out
}

fn leaf_words(l: &LeafAt) -> Vec<String> {
    let mut texts: Vec<&str> = l.path.iter().map(String::as_str).collect();
    texts.push(&l.coord);
    words(&texts)
}

fn put(obj: &mut Map<String, Value>, path: &[String], v: Value) {
    match path {
        [] => {}
        [last] => {
            obj.insert(last.clone(), v);
        }
        [first, rest @ ..] => {
            let e = obj
                .entry(first.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = e {
                put(m, rest, v);
            }
        }
    }
}

fn project(rec: &Rec, shape: &Shape) -> Map<String, Value> {
    let mut out = Map::new();
    // Leaves: the record's own, then (for single values asked where the result has a
    // list) the first item's of each list no array property takes.
    let list_pairs = {
        let scores = rec
            .lists
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                let lw = words(&l.path.iter().map(String::as_str).collect::<Vec<_>>());
                shape.arrays.iter().enumerate().map(move |(j, (p, _))| {
                    let pw = words(&p.iter().map(String::as_str).collect::<Vec<_>>());
                    (similarity(&pw, &lw), i, j)
                })
            })
            .collect();
        assign(scores, rec.lists.len(), shape.arrays.len())
    };
    let mut leaves: Vec<&LeafAt> = rec.leaves.iter().collect();
    if leaves.len() < shape.scalars.len() {
        for (i, l) in rec.lists.iter().enumerate() {
            if list_pairs.iter().all(|(li, _)| *li != i) {
                if let Some(first) = l.items.first() {
                    leaves.extend(first.leaves.iter());
                }
            }
        }
    }
    let scores = leaves
        .iter()
        .enumerate()
        .flat_map(|(i, l)| {
            let lw = leaf_words(l);
            shape.scalars.iter().enumerate().map(move |(j, (p, t))| {
                let pw = words(&p.iter().map(String::as_str).collect::<Vec<_>>());
                let fit = usize::from(json_type_fits(&l.value, t.as_deref()));
                (similarity(&pw, &lw) * 2 + fit, i, j)
            })
        })
        .collect();
    for (i, j) in assign(scores, leaves.len(), shape.scalars.len()) {
        put(&mut out, &shape.scalars[j].0, leaves[i].value.clone());
    }
    for (i, j) in list_pairs {
        let (path, item) = &shape.arrays[j];
        let items: Vec<Value> = rec.lists[i]
            .items
            .iter()
            .filter_map(|r| match item {
                Item::Object(s) => Some(Value::Object(project(r, s))),
                Item::Scalar => {
                    let pw = words(&path.iter().map(String::as_str).collect::<Vec<_>>());
                    r.leaves
                        .iter()
                        .max_by_key(|l| {
                            (similarity(&pw, &leaf_words(l)), usize::MAX - l.path.len())
                        })
                        .map(|l| l.value.clone())
                }
            })
            .collect();
        put(&mut out, path, Value::Array(items));
    }
    out
}

/// Does a projected answer hold any value (a list, even empty, or a leaf)?
fn has_content(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.values().any(has_content),
        Value::Array(_) => true,
        Value::Null => false,
        _ => true,
    }
}

/// The expected answer of a gold operation's result `data`: restricted to `targets`,
/// A gold operation parsed and validated; `Err`: apollo's messages on one line.
pub(crate) fn parse_gold(
    schema: &Valid<Schema>,
    operation: &str,
) -> Result<Valid<ExecutableDocument>, String> {
    ExecutableDocument::parse_and_validate(schema, operation, "gold.graphql").map_err(|e| {
        e.errors
            .iter()
            .map(|d| d.error.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// in the shape of `answer_schema` (without one, the restricted result as records).
pub fn expected_from_data(
    schema: &Valid<Schema>,
    operation: &str,
    data: &Value,
    targets: &[String],
    answer_schema: Option<&Value>,
) -> Result<Value, GoldError> {
    if targets.is_empty() {
        return Err(GoldError::NoTargets);
    }
    let doc = parse_gold(schema, operation).map_err(GoldError::Execute)?;
    let op = doc
        .operations
        .iter()
        .next()
        .ok_or_else(|| GoldError::Execute("no operation in the document".into()))?;
    let mut rec = Rec::default();
    Restrict {
        doc: &doc,
        schema,
        targets,
    }
    .walk(&op.selection_set, data, &mut rec, &[], 0);
    if rec.is_empty() && rec.lists.is_empty() {
        return Err(GoldError::Empty);
    }
    let mut shape = Shape::default();
    match answer_schema {
        Some(s) if s.get("type").is_some() || s.get("properties").is_some() => {
            shape_of(s, Vec::new(), &mut shape, 0);
            // A bare array or scalar schema: one property, `answer` (a record wrapping
            // one list matches a bare list).
            for (p, _) in shape.scalars.iter_mut() {
                if p.is_empty() {
                    p.push("answer".into());
                }
            }
            for (p, _) in shape.arrays.iter_mut() {
                if p.is_empty() {
                    p.push("answer".into());
                }
            }
        }
        _ => {
            // No schema: every leaf under its coordinate, every list as a list.
            for l in &rec.leaves {
                shape.scalars.push((vec![l.coord.clone()], None));
            }
            for l in &rec.lists {
                shape
                    .arrays
                    .push((l.path.clone(), Item::Object(Shape::default())));
            }
        }
    }
    let out = Value::Object(project(&rec, &shape));
    if has_content(&out) {
        Ok(out)
    } else {
        Err(GoldError::Empty)
    }
}

/// The expected answer of a question on `mock`: its gold operation run there, then
/// [`expected_from_data`].
pub fn expected_answer(
    mock: &Mock,
    operation: &str,
    targets: &[String],
    answer_schema: Option<&Value>,
) -> Result<Value, GoldError> {
    if operation.trim().is_empty() {
        return Err(GoldError::NoOperation);
    }
    let data = mock.data(operation).map_err(GoldError::Execute)?;
    expected_from_data(mock.schema(), operation, &data, targets, answer_schema)
}

/// The gold operation with every optional argument other than paging left out (what an
/// agent that forgot its filters would send); `None` when it has none to leave out.
pub fn without_filters(schema: &Valid<Schema>, operation: &str) -> Option<String> {
    let doc = ExecutableDocument::parse_and_validate(schema, operation, "gold.graphql").ok()?;
    let mut doc = doc.into_inner();
    let mut dropped = 0usize;
    fn strip(set: &mut SelectionSet, dropped: &mut usize, depth: usize) {
        if depth > 32 {
            return;
        }
        for s in &mut set.selections {
            match s {
                Selection::Field(f) => {
                    let f = f.make_mut();
                    let def = f.definition.clone();
                    let before = f.arguments.len();
                    f.arguments.retain(|a| {
                        let required = def.arguments.iter().any(|d| {
                            d.name == a.name && d.ty.is_non_null() && d.default_value.is_none()
                        });
                        required || ["first", "last", "after", "before"].contains(&a.name.as_str())
                    });
                    *dropped += before - f.arguments.len();
                    strip(&mut f.selection_set, dropped, depth + 1);
                }
                Selection::InlineFragment(i) => {
                    strip(&mut i.make_mut().selection_set, dropped, depth + 1)
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }
    if let Some(op) = doc.operations.anonymous.as_mut() {
        strip(&mut op.make_mut().selection_set, &mut dropped, 0);
    }
    for (_, op) in doc.operations.named.iter_mut() {
        strip(&mut op.make_mut().selection_set, &mut dropped, 0);
    }
    for (_, f) in doc.fragments.iter_mut() {
        strip(&mut f.make_mut().selection_set, &mut dropped, 0);
    }
    (dropped > 0).then(|| doc.to_string())
}

/// Run a request on the mock and return `data` (for an agent's or a check's
/// operation).
pub fn mock_data(mock: &Mock, operation: &str) -> Result<Value, String> {
    let out = mock.execute(&Request::new(operation));
    match out.get("errors").and_then(Value::as_array) {
        Some(e) if !e.is_empty() => Err(e
            .iter()
            .filter_map(|x| x["message"].as_str())
            .collect::<Vec<_>>()
            .join("; ")),
        _ => Ok(out["data"].clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_camel_case_and_keys() {
        assert_eq!(words(&["authorName"]), vec!["author", "name"]);
        assert_eq!(words(&["GitActor.name"]), vec!["git", "actor", "name"]);
        assert_eq!(words(&["HTTPUrl"]), vec!["httpurl"]);
        assert_eq!(
            similarity(&words(&["repoCount"]), &words(&["repositoriesCount"])),
            2
        );
    }

    fn leaf(coord: &str, path: &[&str], v: Value) -> LeafAt {
        LeafAt {
            coord: coord.into(),
            path: path.iter().map(|s| s.to_string()).collect(),
            value: v,
        }
    }

    #[test]
    fn leaves_go_to_the_properties_that_name_them_and_extras_are_dropped() {
        let rec = Rec {
            leaves: vec![
                leaf("Notification.type", &["type"], Value::from("mention")),
                leaf(
                    "Notification.readAt",
                    &["readAt"],
                    Value::from("2025-01-01"),
                ),
            ],
            lists: Vec::new(),
        };
        let schema: Value =
            serde_json::json!({"type": "object", "properties": {"kind": {"type": "string"}}});
        let mut shape = Shape::default();
        shape_of(&schema, Vec::new(), &mut shape, 0);
        // One property for two leaves: the first leaf by order wins a tie.
        let out = project(&rec, &shape);
        assert_eq!(out.len(), 1);
        let schema: Value =
            serde_json::json!({"type": "object", "properties": {"readTime": {"type": "string"}}});
        let mut shape = Shape::default();
        shape_of(&schema, Vec::new(), &mut shape, 0);
        let out = project(&rec, &shape);
        assert_eq!(
            out["readTime"],
            Value::from("2025-01-01"),
            "the named leaf wins"
        );
    }

    #[test]
    fn arrays_of_scalars_take_each_items_leaf_and_single_values_take_the_first_item() {
        let item = |n: &str| Rec {
            leaves: vec![leaf("Topic.name", &["topic", "name"], Value::from(n))],
            lists: Vec::new(),
        };
        let rec = Rec {
            leaves: Vec::new(),
            lists: vec![ListAt {
                path: vec!["repositoryTopics".into(), "nodes".into()],
                items: vec![item("rust"), item("cli")],
            }],
        };
        let schema: Value = serde_json::json!({"type": "object", "properties": {"topics": {"type": "array", "items": {"type": "string"}}}});
        let mut shape = Shape::default();
        shape_of(&schema, Vec::new(), &mut shape, 0);
        assert_eq!(
            Value::Object(project(&rec, &shape)),
            serde_json::json!({"topics": ["rust", "cli"]})
        );
        let schema: Value = serde_json::json!({"type": "object", "properties": {"latest": {"type": "object", "properties": {"name": {"type": "string"}}}}});
        let mut shape = Shape::default();
        shape_of(&schema, Vec::new(), &mut shape, 0);
        assert_eq!(
            Value::Object(project(&rec, &shape)),
            serde_json::json!({"latest": {"name": "rust"}})
        );
    }
}
