//! Which tools and field paths a question gets, from the ranked hits and the schema.
//!
//! - **Tools.** Root fields by the summed scores of the hits whose root paths start with
//!   them; for a question addressed to the caller, the best-ranked caller root first
//!   (`gqlnav_search::addresses_caller`); then each tool's *twin*: the collection of a
//!   lookup's type, or the lookup of a collection's item type (`issue` and `issues`),
//!   since the ranker's cheapest path is often the lookup when the question reads a list.
//! - **Paths.** Each hit's root path is read under every tool whose value type occurs on
//!   it. A hit on a leaf makes its owner an *object path* (`issues.nodes[]`) that selects
//!   that leaf among its fields; a leaf of the tool's own value is a path by itself; a
//!   hit on an object or connection makes an object path (a connection also its counts).
//!   Then every hit is offered under every object path of its owner type (a field of
//!   `Commit` under each way to a `Commit`). An object path selects the hits' fields of
//!   its type first, then its most basic leaves, up to [`TypedOptions::leaves`].

use std::collections::BTreeMap;

use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;
use gqlnav_schema::{connection_of, has_required_args};
use gqlnav_search::Hit;

use super::path::{field_def, is_leaf, steps_of, FieldPath, Step};
use super::TypedOptions;

/// The fields of an object or interface type (none for any other type).
fn fields_of<'s>(schema: &'s Schema, ty: &str) -> Vec<&'s FieldDefinition> {
    match schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => o.fields.values().map(|f| &***f).collect(),
        Some(ExtendedType::Interface(i)) => i.fields.values().map(|f| &***f).collect(),
        _ => Vec::new(),
    }
}

/// A leaf field's order among its type's leaves, most basic first: not a Boolean flag,
/// not an `ID`, fewer words, declaration order.
pub(crate) fn leaf_order(schema: &Schema, ty: &str) -> Vec<String> {
    let fields = fields_of(schema, ty);
    let mut leaves: Vec<(bool, bool, usize, usize, String)> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            is_leaf(schema, f.ty.inner_named_type())
                && !f.directives.has("deprecated")
                && !has_required_args(f)
                && !f.name.starts_with("__")
        })
        .map(|(i, f)| {
            let nt = f.ty.inner_named_type().as_str();
            (
                nt == "Boolean",
                nt == "ID",
                super::words(&f.name).len(),
                i,
                f.name.to_string(),
            )
        })
        .collect();
    leaves.sort();
    leaves.into_iter().map(|l| l.4).collect()
}

/// One offered path: a leaf, or an object with the leaves it selects.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    Leaf(FieldPath),
    Object {
        path: FieldPath,
        ty: String,
        leaves: Vec<String>,
    },
}

impl Entry {
    pub fn path(&self) -> &FieldPath {
        match self {
            Entry::Leaf(p) | Entry::Object { path: p, .. } => p,
        }
    }
}

pub(crate) struct Builder<'a> {
    pub schema: &'a Schema,
    pub root_type: String,
    pub opts: TypedOptions,
    pub hits: &'a [Hit],
    /// The answer schema's leaf keys (empty without one): an object path selects the
    /// leaves they name first.
    pub wants: Vec<super::fit::Want>,
    /// The answer schema's keys that hold objects: a field they name is offered first.
    pub objects: Vec<super::fit::Want>,
}

impl Builder<'_> {
    /// Root fields by the summed scores of the hits whose root paths start with them
    /// (ties: first seen).
    pub fn roots(&self) -> Vec<String> {
        let prefix = format!("{}.", self.root_type);
        let mut out: Vec<(String, f32)> = Vec::new();
        for h in self.hits {
            let mut mine: Vec<String> = Vec::new();
            for p in h
                .paths_to_root
                .iter()
                .chain(std::iter::once(&vec![h.coordinate.clone()]))
            {
                if let Some(f) = p.first().and_then(|c| c.strip_prefix(&prefix)) {
                    let f = f.split('(').next().unwrap_or(f).to_string();
                    let usable = field_def(self.schema, &self.root_type, &f)
                        .is_some_and(|d| !d.directives.has("deprecated"));
                    if usable && !mine.contains(&f) {
                        mine.push(f);
                    }
                }
            }
            for f in mine {
                match out.iter_mut().find(|(n, _)| *n == f) {
                    Some(e) => e.1 += h.score,
                    None => out.push((f, h.score)),
                }
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out.into_iter().map(|(n, _)| n).collect()
    }

    /// The item type a root field reads and whether it reads many.
    pub fn reads(&self, d: &FieldDefinition) -> (String, bool) {
        let t = d.ty.inner_named_type().to_string();
        match connection_of(self.schema, &t) {
            Some(c) => (c.node_type, true),
            None => (t, d.ty.is_list()),
        }
    }

    /// The root fields that read the same type as `root` the other way: the collections
    /// of a lookup's type (a connection or list of it, no required argument), or the
    /// lookups of a collection's item type; fewest extra name words first.
    pub fn twins(&self, root: &str) -> Vec<String> {
        let Some(ExtendedType::Object(q)) = self.schema.types.get(self.root_type.as_str()) else {
            return Vec::new();
        };
        let Some(def) = field_def(self.schema, &self.root_type, root) else {
            return Vec::new();
        };
        let (ty, many) = self.reads(def);
        let own = super::words(root);
        let mut out: Vec<(usize, String)> = q
            .fields
            .values()
            .filter(|f| f.name != root && !f.directives.has("deprecated"))
            .filter(|f| {
                let (t, m) = self.reads(f);
                t == ty && m != many && !(m && has_required_args(f))
            })
            .map(|f| {
                (
                    super::words(&f.name)
                        .iter()
                        .filter(|w| !own.contains(w))
                        .count(),
                    f.name.to_string(),
                )
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, n)| n).collect()
    }

    /// A hit's root path read under the tool `root` (returning `ret`): from the root field
    /// itself, or from the first coordinate whose owner the tool's value (or its items)
    /// can be read as.
    fn map(&self, root: &str, ret: &str, p: &[String]) -> Option<(FieldPath, String)> {
        if p.first().map(String::as_str) == Some(format!("{}.{root}", self.root_type).as_str()) {
            return steps_of(self.schema, ret, &p[1..]);
        }
        let item = connection_of(self.schema, ret).map(|c| c.node_type);
        let fits = |owner: &str| {
            owner == ret
                || self.schema.is_subtype(ret, owner)
                || item
                    .as_deref()
                    .is_some_and(|i| i == owner || self.schema.is_subtype(i, owner))
        };
        let j = (1..p.len()).find(|&j| p[j].split_once('.').is_some_and(|(o, _)| fits(o)))?;
        steps_of(self.schema, ret, &p[j..])
    }

    /// The offered paths of the tool `root`, and how many more were left out.
    pub fn entries(&self, root: &str) -> (Vec<Entry>, usize) {
        let Some(def) = field_def(self.schema, &self.root_type, root) else {
            return (Vec::new(), 0);
        };
        let ret = def.ty.inner_named_type().to_string();
        if is_leaf(self.schema, &ret) {
            return (Vec::new(), 0);
        }
        let mut set = PathSet {
            b: self,
            entries: Vec::new(),
            dropped: 0,
            unbounded: false,
        };
        set.answer_objects(&ret);
        for h in self.hits {
            for p in &h.paths_to_root {
                if let Some((path, end)) = self.map(root, &ret, p) {
                    set.add_hit(path, &end, &ret);
                }
            }
        }
        set.cross(&ret);
        set.answer_owners(&ret);
        if set.entries.is_empty() {
            match connection_of(self.schema, &ret) {
                Some(_) => {
                    set.add_object(FieldPath::default(), &ret);
                }
                None => {
                    for l in leaf_order(self.schema, &ret)
                        .into_iter()
                        .take(self.opts.leaves)
                    {
                        set.add_leaf(FieldPath {
                            steps: vec![Step {
                                field: l,
                                list: false,
                                on: None,
                            }],
                        });
                    }
                }
            }
        }
        set.fill();
        (set.entries, set.dropped)
    }
}

/// A path to a value of type `ty` read as its items: a connection's `nodes[]` (else
/// `edges[].node`) and their type; any other type as it is. `None`: a connection without
/// either.
fn items(schema: &Schema, path: FieldPath, ty: &str) -> Option<(FieldPath, String)> {
    let Some(c) = connection_of(schema, ty) else {
        return Some((path, ty.to_string()));
    };
    let mut q = path;
    let step = |field: &str, list| Step {
        field: field.to_string(),
        list,
        on: None,
    };
    match (&c.nodes, &c.edges) {
        (Some(n), _) => q.steps.push(step(n, true)),
        (None, Some((e, _))) => {
            q.steps.push(step(e, true));
            q.steps.push(step("node", false));
        }
        (None, None) => return None,
    }
    Some((q, c.node_type))
}

/// The object-typed fields of `owner` without required arguments, not deprecated: name,
/// type, and the path `path.field`.
fn object_fields(
    schema: &Schema,
    path: &FieldPath,
    owner: &str,
) -> Vec<(String, String, FieldPath)> {
    fields_of(schema, owner)
        .into_iter()
        .filter(|f| {
            !is_leaf(schema, f.ty.inner_named_type())
                && !f.directives.has("deprecated")
                && !has_required_args(f)
        })
        .map(|f| {
            let mut q = path.clone();
            q.steps.push(Step {
                field: f.name.to_string(),
                list: f.ty.is_list(),
                on: None,
            });
            (f.name.to_string(), f.ty.inner_named_type().to_string(), q)
        })
        .collect()
}

/// The first object field the answer key `w` names at its list depth: a field of `ty`
/// (read at `base`), else a field one type below (never back to `ty` or its owner).
fn named_object(
    schema: &Schema,
    base: &FieldPath,
    ty: &str,
    w: &super::fit::Want,
) -> Option<(FieldPath, String)> {
    let mut level = vec![(base.clone(), ty.to_string())];
    for _ in 0..2 {
        let mut next = Vec::new();
        for (path, owner) in &level {
            for (f, fty, q) in object_fields(schema, path, owner) {
                let Some((under, item)) = items(schema, q.clone(), &fty) else {
                    continue;
                };
                let depth = under.steps.iter().filter(|s| s.list).count();
                if depth == w.depth && super::fit::names_object(w, &f) {
                    return Some((q, fty));
                }
                if item != ty && item != *owner {
                    next.push((under, item));
                }
            }
        }
        level = next;
    }
    None
}

struct PathSet<'a, 'b> {
    b: &'a Builder<'b>,
    entries: Vec<Entry>,
    dropped: usize,
    /// Answer-named paths are being added: the path cap does not apply.
    unbounded: bool,
}

impl PathSet<'_, '_> {
    fn full(&mut self) -> bool {
        if !self.unbounded && self.entries.len() >= self.b.opts.paths {
            self.dropped += 1;
            return true;
        }
        false
    }

    fn object_at(&mut self, path: &FieldPath) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| matches!(e, Entry::Object { path: p, .. } if p == path))
    }

    /// The paths of the fields the answer's object keys name (at their list depth): one
    /// field of the tool's value, else one field below it; these come first.
    fn answer_objects(&mut self, ret: &str) {
        let schema = self.b.schema;
        let Some((base, ty)) = items(schema, FieldPath::default(), ret) else {
            return;
        };
        for w in &self.b.objects {
            if let Some((q, fty)) = named_object(schema, &base, &ty, w) {
                self.add_object(q, &fty);
            }
        }
    }

    /// The object fields the answer's leaf keys read through (`authorLogin` →
    /// `author {login}`, `issueCount` → `issues.totalCount`), one step below the tool's
    /// value or an offered object path at the key's list depth. Offered beyond
    /// [`TypedOptions::paths`]: there are at most as many as the answer has keys.
    fn answer_owners(&mut self, ret: &str) {
        if self.b.wants.is_empty() {
            return;
        }
        let schema = self.b.schema;
        let mut owners: Vec<(FieldPath, String)> = items(schema, FieldPath::default(), ret)
            .into_iter()
            .collect();
        owners.extend(self.entries.iter().filter_map(|e| match e {
            Entry::Object { path, ty, .. } => Some((path.clone(), ty.clone())),
            Entry::Leaf(_) => None,
        }));
        let mut add: Vec<(FieldPath, String)> = Vec::new();
        for (path, ty) in owners {
            let depth = path.steps.iter().filter(|s| s.list).count();
            for (f, fty, q) in object_fields(schema, &path, &ty) {
                let same_depth = !q.steps.last().is_some_and(|s| s.list)
                    || connection_of(schema, &fty).is_some();
                let named = self
                    .b
                    .wants
                    .iter()
                    .any(|w| super::fit::reads_through(w, &f, depth));
                if same_depth && named && !add.iter().any(|(p, _)| *p == q) {
                    add.push((q, fty));
                }
            }
        }
        self.unbounded = true;
        for (q, fty) in add {
            self.add_object(q, &fty);
        }
        self.unbounded = false;
    }

    /// An object path (a connection: its counts, then its items). The tool's own value
    /// is not one: its leaves are paths of their own.
    fn add_object(&mut self, path: FieldPath, ty: &str) -> Option<usize> {
        if path.depth() > self.b.opts.depth {
            return None;
        }
        if path.steps.is_empty() && connection_of(self.b.schema, ty).is_none() {
            return None;
        }
        if let Some(c) = connection_of(self.b.schema, ty) {
            for n in &c.count_fields {
                let mut q = path.clone();
                q.steps.push(Step {
                    field: n.clone(),
                    list: false,
                    on: None,
                });
                self.add_leaf(q);
            }
            let (q, item) = items(self.b.schema, path, ty)?;
            return self.add_object(q, &item);
        }
        if let Some(i) = self.object_at(&path) {
            return Some(i);
        }
        if self.full() {
            return None;
        }
        self.entries.push(Entry::Object {
            path: path.clone(),
            ty: ty.to_string(),
            leaves: Vec::new(),
        });
        let at = self.entries.len() - 1;
        // An edge read for its own fields (`starredAt`) reads its node beside them, so
        // each item's data stays together.
        if path.steps.last().is_some_and(|s| s.list) {
            if let Some(node) = field_def(self.b.schema, ty, "node")
                .filter(|d| !is_leaf(self.b.schema, d.ty.inner_named_type()))
            {
                let mut q = path;
                q.steps.push(Step {
                    field: "node".into(),
                    list: false,
                    on: None,
                });
                let nt = node.ty.inner_named_type().to_string();
                self.add_object(q, &nt);
            }
        }
        Some(at)
    }

    fn add_leaf(&mut self, path: FieldPath) {
        if path.depth() > self.b.opts.depth || self.entries.iter().any(|e| e.path() == &path) {
            return;
        }
        if !self.full() {
            self.entries.push(Entry::Leaf(path));
        }
    }

    /// Put a leaf field into an object entry's selection (hits first, in rank order).
    fn select(&mut self, i: usize, field: &str) {
        if let Entry::Object { leaves, .. } = &mut self.entries[i] {
            if !leaves.iter().any(|l| l == field) && leaves.len() < self.b.opts.leaves {
                leaves.push(field.to_string());
            }
        }
    }

    fn add_hit(&mut self, path: FieldPath, end: &str, ret: &str) {
        if !is_leaf(self.b.schema, end) {
            self.add_object(path, end);
            return;
        }
        let Some(last) = path.steps.last().cloned() else {
            return;
        };
        let owner_path = path.prefix(path.steps.len() - 1);
        if owner_path.steps.is_empty() {
            self.add_leaf(path);
            return;
        }
        let owner = match super::path::walk(self.b.schema, ret, &owner_path) {
            Ok(t) => t,
            Err(_) => return,
        };
        if connection_of(self.b.schema, &owner).is_some() {
            // A connection's own leaf (a count): a path of its own beside the items.
            self.add_object(owner_path, &owner);
            self.add_leaf(path);
            return;
        }
        if let Some(i) = self.add_object(owner_path, &owner) {
            self.select(i, &last.field);
        }
    }

    /// Every hit under every object path of its owner type.
    fn cross(&mut self, ret: &str) {
        let _ = ret;
        for h in self.b.hits {
            let Some((owner, field)) = h.coordinate.split_once('.') else {
                continue;
            };
            let objects: Vec<(usize, FieldPath, String)> = self
                .entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| match e {
                    Entry::Object { path, ty, .. }
                        if ty == owner || self.b.schema.is_subtype(owner, ty) =>
                    {
                        Some((i, path.clone(), ty.clone()))
                    }
                    _ => None,
                })
                .collect();
            for (i, path, ty) in objects {
                let Some(d) = field_def(self.b.schema, &ty, field) else {
                    continue;
                };
                if d.directives.has("deprecated") {
                    continue;
                }
                let nt = d.ty.inner_named_type().to_string();
                if is_leaf(self.b.schema, &nt) {
                    if !has_required_args(d) {
                        self.select(i, field);
                    }
                } else {
                    let mut q = path.clone();
                    q.steps.push(Step {
                        field: field.to_string(),
                        list: d.ty.is_list(),
                        on: None,
                    });
                    self.add_object(q, &nt);
                }
            }
        }
    }

    /// Fill each object's selection with its most basic leaves.
    fn fill(&mut self) {
        let schema = self.b.schema;
        let cap = self.b.opts.leaves;
        let mut memo: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &mut self.entries {
            if let Entry::Object { path, ty, leaves } = e {
                let order = memo
                    .entry(ty.clone())
                    .or_insert_with(|| leaf_order(schema, ty));
                if !self.b.wants.is_empty() {
                    let owner = path.steps.last().map_or("", |s| s.field.as_str());
                    let depth = path.steps.iter().filter(|s| s.list).count();
                    let named = super::fit::named_leaves(&self.b.wants, order, owner, depth);
                    if !named.is_empty() {
                        leaves.retain(|l| !named.contains(l));
                        let mut first = named;
                        first.append(leaves);
                        first.truncate(cap);
                        *leaves = first;
                    }
                }
                for l in order.iter() {
                    if leaves.len() >= cap {
                        break;
                    }
                    if !leaves.contains(l) {
                        leaves.push(l.clone());
                    }
                }
            }
        }
        self.entries
            .retain(|e| !matches!(e, Entry::Object { leaves, .. } if leaves.is_empty()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_leaves_come_first() {
        let s = Schema::parse(
            "type Query { a: A } type A { isX: Boolean id: ID! createdAtTime: String title: String n(x: Int!): Int }",
            "t.graphql",
        )
        .unwrap_or_else(|e| e.partial);
        assert_eq!(
            leaf_order(&s, "A"),
            vec!["title", "createdAtTime", "id", "isX"]
        );
    }
}
