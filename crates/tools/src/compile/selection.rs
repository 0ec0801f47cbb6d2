//! Selection sets for compiled tools: a bounded default (leaf fields, connections as
//! `nodes { leaves }` with a page size), or one compiled from field paths such as
//! `nodes[].title` / `owner.login`.
//!
//! Limits of the default ([`SelectionLimits`]): at most `max_depth` levels below the root
//! field, `max_fields` fields per selection set and `max_total` in all; fields with
//! required arguments and deprecated fields are skipped; a type already on the path is
//! never entered again; a type with fewer than two leaf fields (a mutation payload, a
//! wrapper) is expanded one level into its object fields; unions list up to
//! `max_members` members as inline fragments. Whatever it cannot fill ends in
//! `__typename`, so every default selection is valid.

use crate::util::has_required_args;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;

/// Bounds of a compiled default selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectionLimits {
    /// Levels below the root field (the root field's own set is level 1).
    pub max_depth: usize,
    /// Fields per selection set.
    pub max_fields: usize,
    /// Fields in the whole operation.
    pub max_total: usize,
    /// The `first` given to a connection that takes one and has no default.
    pub default_first: u32,
    /// Union members written as inline fragments.
    pub max_members: usize,
}

impl Default for SelectionLimits {
    fn default() -> Self {
        SelectionLimits {
            max_depth: 3,
            max_fields: 24,
            max_total: 80,
            default_first: 10,
            max_members: 8,
        }
    }
}

/// One node of a selection set: a field (with literal arguments) or an inline fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sel {
    /// Field name, or `... on Type` for a fragment.
    pub head: String,
    pub children: Vec<Sel>,
    /// The children are a default selection (field paths below replace them).
    pub filled: bool,
}

impl Sel {
    fn leaf(name: &str) -> Sel {
        Sel {
            head: name.to_string(),
            children: Vec::new(),
            filled: false,
        }
    }

    fn count(&self) -> usize {
        1 + self.children.iter().map(Sel::count).sum::<usize>()
    }
}

/// Write a selection set at `indent` (two spaces per level).
pub(crate) fn print(set: &[Sel], indent: usize, out: &mut String) {
    for s in set {
        out.push_str(&"  ".repeat(indent));
        out.push_str(&s.head);
        if !s.children.is_empty() {
            out.push_str(" {\n");
            print(&s.children, indent + 1, out);
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        }
        out.push('\n');
    }
}

/// A selection set on one line: `{ a b { c } }`.
pub(crate) fn inline(set: &[Sel]) -> String {
    let mut out = String::from("{");
    for s in set {
        out.push(' ');
        out.push_str(&s.head);
        if !s.children.is_empty() {
            out.push(' ');
            out.push_str(&inline(&s.children));
        }
    }
    out.push_str(" }");
    out
}

/// A small valid selection of `ty` on one line, for an error that says a field must
/// select fields: 2 levels, 6 fields per set, 16 in all (a connection becomes
/// `nodes { … } pageInfo { … }`). `None` for a type that takes no selection.
pub fn example_selection(schema: &Schema, ty: &str) -> Option<String> {
    let sel = Selector {
        schema,
        limits: SelectionLimits {
            max_depth: 2,
            max_fields: 6,
            max_total: 16,
            ..SelectionLimits::default()
        },
    };
    if !sel.is_composite(ty) {
        return None;
    }
    let mut budget = sel.limits.max_total;
    let set = sel.default_set(ty, 1, &mut Vec::new(), &mut budget);
    Some(inline(&set))
}

/// A field path that does not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPathError {
    /// The path as given.
    pub path: String,
    /// What is wrong, naming the type.
    pub reason: String,
    /// Existing fields close to the bad segment.
    pub nearest: Vec<String>,
}

impl std::fmt::Display for FieldPathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "field path `{}`: {}", self.path, self.reason)?;
        if !self.nearest.is_empty() {
            write!(f, "; nearest fields: {}", self.nearest.join(", "))?;
        }
        Ok(())
    }
}

pub(crate) struct Selector<'a> {
    pub schema: &'a Schema,
    pub limits: SelectionLimits,
}

fn fields_of<'s>(schema: &'s Schema, ty: &str) -> Option<Vec<&'s FieldDefinition>> {
    match schema.types.get(ty)? {
        ExtendedType::Object(o) => Some(o.fields.values().map(|f| &***f).collect()),
        ExtendedType::Interface(i) => Some(i.fields.values().map(|f| &***f).collect()),
        _ => None,
    }
}

impl<'a> Selector<'a> {
    fn is_leaf(&self, ty: &str) -> bool {
        matches!(
            self.schema.types.get(ty),
            Some(ExtendedType::Scalar(_)) | Some(ExtendedType::Enum(_))
        )
    }

    fn is_composite(&self, ty: &str) -> bool {
        matches!(
            self.schema.types.get(ty),
            Some(ExtendedType::Object(_))
                | Some(ExtendedType::Interface(_))
                | Some(ExtendedType::Union(_))
        )
    }

    /// The list field that holds a connection's items: `nodes`, else `edges { node }`.
    /// Returns the field names to walk and the item type.
    pub fn connection_items(&self, ty: &str) -> Option<(Vec<&'static str>, String)> {
        let fields = fields_of(self.schema, ty)?;
        let list_of = |name: &str| {
            fields
                .iter()
                .find(|f| f.name == name && f.ty.is_list() && !has_required_args(f))
                .map(|f| f.ty.inner_named_type().to_string())
        };
        if let Some(t) = list_of("nodes").filter(|t| self.is_composite(t)) {
            return Some((vec!["nodes"], t));
        }
        let edge = list_of("edges")?;
        let node = fields_of(self.schema, &edge)?
            .into_iter()
            .find(|f| f.name == "node" && !has_required_args(f))
            .map(|f| f.ty.inner_named_type().to_string())
            .filter(|t| self.is_composite(t))?;
        Some((vec!["edges", "node"], node))
    }

    /// The literal arguments written on a nested field: a page size for a connection
    /// that takes an optional `first` without a default.
    fn literal_args(&self, f: &FieldDefinition) -> String {
        let ty = f.ty.inner_named_type();
        let pages = f.arguments.iter().any(|a| {
            a.name == "first"
                && !a.ty.is_non_null()
                && a.default_value.is_none()
                && a.ty.inner_named_type() == "Int"
        });
        if pages && self.connection_items(ty).is_some() {
            format!("(first: {})", self.limits.default_first)
        } else {
            String::new()
        }
    }

    /// The bounded default selection of `ty` at `depth` (1 = the root field's set).
    pub fn default_set(
        &self,
        ty: &str,
        depth: usize,
        path: &mut Vec<String>,
        budget: &mut usize,
    ) -> Vec<Sel> {
        let mut out = Vec::new();
        match self.schema.types.get(ty) {
            Some(ExtendedType::Union(u)) => {
                out.push(Sel::leaf("__typename"));
                // Members share the set's response names: a name already selected with
                // another type is left out of later fragments (fields in one set must
                // merge), and each member gets an equal share of the field cap.
                let members: Vec<&str> = u
                    .members
                    .iter()
                    .map(|m| m.as_str())
                    .take(self.limits.max_members)
                    .collect();
                let share = (self.limits.max_fields / members.len().max(1)).max(4);
                let mut taken: std::collections::HashMap<String, String> = Default::default();
                for m in members {
                    let mut leaves = Vec::new();
                    for f in self.leaf_fields(m) {
                        if leaves.len() >= share || *budget == 0 {
                            break;
                        }
                        let t = f.ty.to_string();
                        match taken.get(f.name.as_str()) {
                            Some(prev) if *prev != t => continue,
                            _ => {}
                        }
                        taken.insert(f.name.to_string(), t);
                        *budget -= 1;
                        leaves.push(Sel::leaf(f.name.as_str()));
                    }
                    if !leaves.is_empty() {
                        out.push(Sel {
                            head: format!("... on {m}"),
                            children: leaves,
                            filled: true,
                        });
                    }
                }
            }
            Some(ExtendedType::Object(_)) | Some(ExtendedType::Interface(_)) => {
                if matches!(self.schema.types.get(ty), Some(ExtendedType::Interface(_))) {
                    out.push(Sel::leaf("__typename"));
                }
                let leaves = self.leaves(ty, budget);
                let few = leaves.len() < 2;
                out.extend(leaves);
                path.push(ty.to_string());
                if let Some((walk, item)) = self.connection_items(ty) {
                    if depth < self.limits.max_depth && !path.contains(&item) {
                        let inner = self.default_set(&item, depth + 1, path, budget);
                        out.push(nest(&walk, inner));
                    }
                    if let Some(p) = self.page_info(ty, budget) {
                        out.push(p);
                    }
                } else if few && depth < self.limits.max_depth {
                    out.extend(self.objects(ty, depth, path, budget));
                }
                path.pop();
            }
            _ => {}
        }
        if out.is_empty() {
            out.push(Sel::leaf("__typename"));
        }
        out
    }

    /// Leaf fields of `ty` without required arguments and not deprecated; Boolean flags
    /// after the other leaves (they say least about an item).
    fn leaf_fields(&self, ty: &str) -> Vec<&'a FieldDefinition> {
        let Some(fields) = fields_of(self.schema, ty) else {
            return Vec::new();
        };
        let mut cand: Vec<&FieldDefinition> = fields
            .into_iter()
            .filter(|f| {
                !f.name.starts_with("__")
                    && !has_required_args(f)
                    && !f.directives.has("deprecated")
                    && self.is_leaf(f.ty.inner_named_type())
            })
            .collect();
        cand.sort_by_key(|f| f.ty.inner_named_type() == "Boolean");
        cand
    }

    /// [`Selector::leaf_fields`] within the caps.
    fn leaves(&self, ty: &str, budget: &mut usize) -> Vec<Sel> {
        let cand = self.leaf_fields(ty);
        let take = cand.len().min(self.limits.max_fields).min(*budget);
        *budget -= take;
        cand[..take]
            .iter()
            .map(|f| Sel::leaf(f.name.as_str()))
            .collect()
    }

    /// A connection's page info, as its leaf fields (the cursor an agent pages with).
    fn page_info(&self, ty: &str, budget: &mut usize) -> Option<Sel> {
        let f = fields_of(self.schema, ty)?
            .into_iter()
            .find(|f| f.name == "pageInfo" && !has_required_args(f))?;
        let children = self.leaves(f.ty.inner_named_type(), budget);
        (!children.is_empty()).then(|| Sel {
            head: "pageInfo".into(),
            children,
            filled: true,
        })
    }

    /// Object fields of `ty` one level down (for a type with fewer than two leaves).
    pub fn objects(
        &self,
        ty: &str,
        depth: usize,
        path: &mut Vec<String>,
        budget: &mut usize,
    ) -> Vec<Sel> {
        let Some(fields) = fields_of(self.schema, ty) else {
            return Vec::new();
        };
        let mut out: Vec<Sel> = Vec::new();
        for f in fields {
            if out.len() >= self.limits.max_fields || *budget == 0 {
                break;
            }
            let t = f.ty.inner_named_type().as_str();
            if has_required_args(f)
                || f.directives.has("deprecated")
                || !self.is_composite(t)
                || path.iter().any(|p| p == t)
            {
                continue;
            }
            *budget = budget.saturating_sub(1);
            let children = self.default_set(t, depth + 1, path, budget);
            out.push(Sel {
                head: format!("{}{}", f.name, self.literal_args(f)),
                children,
                filled: true,
            });
        }
        out
    }

    /// A selection compiled from field paths (`nodes[].title`, `owner.login`); a path that
    /// ends on an object type gets that type's default selection.
    pub fn paths_set(&self, ty: &str, paths: &[String]) -> Result<Vec<Sel>, FieldPathError> {
        if paths.is_empty() {
            return Err(FieldPathError {
                path: String::new(),
                reason: "no field paths given (omit `fields` for the default selection)".into(),
                nearest: Vec::new(),
            });
        }
        let mut root: Vec<Sel> = Vec::new();
        for p in paths {
            let segs: Vec<&str> = p
                .split('.')
                .map(|s| s.trim().trim_end_matches("[]"))
                .collect();
            if segs.iter().any(|s| s.is_empty()) {
                return Err(FieldPathError {
                    path: p.clone(),
                    reason: "empty segment (write `a.b.c`, `[]` optional after a list)".into(),
                    nearest: Vec::new(),
                });
            }
            self.insert_path(&mut root, ty, &segs, p, 1)?;
        }
        Ok(root)
    }

    fn insert_path(
        &self,
        set: &mut Vec<Sel>,
        ty: &str,
        segs: &[&str],
        path: &str,
        depth: usize,
    ) -> Result<(), FieldPathError> {
        let err = |reason: String, nearest: Vec<String>| FieldPathError {
            path: path.to_string(),
            reason,
            nearest,
        };
        let Some(fields) = fields_of(self.schema, ty) else {
            let what = match self.schema.types.get(ty) {
                Some(ExtendedType::Union(u)) => format!(
                    "`{ty}` is a union of {}; field paths cannot select into a union (write the operation with `... on Member` and use execute)",
                    u.members.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ")
                ),
                _ => format!("`{ty}` is a leaf type and has no fields"),
            };
            return Err(err(what, Vec::new()));
        };
        let seg = segs[0];
        let Some(f) = fields.iter().find(|f| f.name == seg) else {
            let mut near: Vec<(usize, String)> = fields
                .iter()
                .map(|f| {
                    let d = gqlnav_schema::edit_distance(
                        &seg.to_ascii_lowercase(),
                        &f.name.to_ascii_lowercase(),
                    );
                    (d, format!("{ty}.{}", f.name))
                })
                .collect();
            near.sort();
            return Err(err(
                format!("`{ty}` has no field `{seg}`"),
                near.into_iter().take(5).map(|(_, n)| n).collect(),
            ));
        };
        if has_required_args(f) {
            let names: Vec<String> = f
                .arguments
                .iter()
                .filter(|a| a.ty.is_non_null() && a.default_value.is_none())
                .map(|a| format!("{}: {}", a.name, a.ty))
                .collect();
            return Err(err(
                format!("`{ty}.{seg}` needs argument(s) {}, which a field path cannot pass; write the operation and use execute", names.join(", ")),
                Vec::new(),
            ));
        }
        let next = f.ty.inner_named_type().as_str();
        let head = format!("{seg}{}", self.literal_args(f));
        let pos = match set.iter().position(|s| s.head == head) {
            Some(i) => i,
            None => {
                set.push(Sel {
                    head,
                    children: Vec::new(),
                    filled: false,
                });
                set.len() - 1
            }
        };
        if segs.len() == 1 {
            if self.is_composite(next) && set[pos].children.is_empty() {
                let mut budget = self.limits.max_total;
                set[pos].children =
                    self.default_set(next, depth + 1, &mut vec![ty.to_string()], &mut budget);
                set[pos].filled = true;
            }
            return Ok(());
        }
        if self.is_leaf(next) {
            return Err(err(
                format!("`{ty}.{seg}` is a leaf ({}) and has no fields", f.ty),
                Vec::new(),
            ));
        }
        // A path below a node that had the default selection replaces it.
        if set[pos].filled {
            set[pos].children.clear();
            set[pos].filled = false;
        }
        self.insert_path(&mut set[pos].children, next, &segs[1..], path, depth + 1)
    }
}

fn nest(walk: &[&str], inner: Vec<Sel>) -> Sel {
    match walk {
        [one] => Sel {
            head: one.to_string(),
            children: inner,
            filled: true,
        },
        [first, rest @ ..] => Sel {
            head: first.to_string(),
            children: vec![nest(rest, inner)],
            filled: true,
        },
        [] => Sel::leaf("__typename"),
    }
}

/// Fields in a selection tree.
pub(crate) fn field_count(set: &[Sel]) -> usize {
    set.iter().map(Sel::count).sum()
}
