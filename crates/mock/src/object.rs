//! The mock's objects: apollo-compiler's resolver trait over identities. An object is a
//! type and a 64-bit identity; a field's value is derived from (identity, field name,
//! arguments other than paging), so the same request always gets the same data and a
//! different filter gets different data. Connections page one stable list of items.

use std::cell::Cell;

use apollo_compiler::executable::{Selection, SelectionSet};
use apollo_compiler::resolvers::{FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{JsonMap, JsonValue};
use apollo_compiler::schema::{ExtendedType, Type};
use gqlnav_schema::{connection_of, Connection};

use crate::data;

/// Arguments that page a list instead of choosing it (Relay's cursor arguments).
const PAGING_ARGS: [&str; 4] = ["first", "last", "after", "before"];

/// One execution: the reference day and the value budget.
pub(crate) struct Run {
    pub today: i64,
    pub max_values: usize,
    pub values: Cell<usize>,
}

impl Run {
    fn tick(&self) -> Result<(), FieldError> {
        let n = self.values.get() + 1;
        self.values.set(n);
        if n > self.max_values {
            return Err(FieldError {
                message: format!(
                    "the response is over the mock's cap of {} values: ask for fewer items (a smaller `first`) or fewer fields",
                    self.max_values
                ),
            });
        }
        Ok(())
    }
}

/// A window on a connection's items.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Page {
    /// Seed of the item identities (independent of paging).
    items: u64,
    total: usize,
    start: usize,
    end: usize,
}

#[derive(Clone)]
enum Kind {
    /// An ordinary object; `echo`: scalar arguments of the field that returned it, which
    /// its fields of the same name and type answer with (a lookup by `name` has that
    /// `name`).
    Plain {
        echo: Vec<(String, JsonValue)>,
    },
    Connection(Page, Box<Connection>),
    Edge {
        node: u64,
        index: usize,
    },
    PageInfo(Page),
}

pub(crate) struct Obj<'m> {
    run: &'m Run,
    ty: String,
    id: u64,
    kind: Kind,
}

fn field_err(message: String) -> FieldError {
    FieldError { message }
}

impl<'m> Obj<'m> {
    pub(crate) fn root(run: &'m Run, ty: &str) -> Self {
        Obj {
            run,
            ty: ty.to_string(),
            id: data::mix(0, ty),
            kind: Kind::Plain { echo: Vec::new() },
        }
    }

    /// The identity of this field's value: (this object, field name, arguments other
    /// than paging).
    fn key(&self, info: &ResolveInfo<'_>) -> u64 {
        let mut text = String::from(info.field_name());
        let mut args: Vec<(&str, &JsonValue)> = info
            .arguments()
            .iter()
            .filter(|(k, v)| !PAGING_ARGS.contains(&k.as_str()) && !v.is_null())
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        args.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in args {
            text.push('|');
            text.push_str(k);
            text.push('=');
            data::canonical(v, &mut text);
        }
        data::mix(self.id, &text)
    }

    fn obj(&self, ty: &str, id: u64, kind: Kind) -> Obj<'m> {
        Obj {
            run: self.run,
            ty: ty.to_string(),
            id,
            kind,
        }
    }

    fn value<'a>(
        &'a self,
        ty: &'a Type,
        key: u64,
        info: &'a ResolveInfo<'a>,
        top: bool,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        match ty {
            Type::Named(n) | Type::NonNullNamed(n) => self.named(n.as_str(), key, info, top),
            Type::List(inner) | Type::NonNullList(inner) => {
                let mut n = data::list_len(key);
                if let Some(first) = info.arguments().get("first").and_then(JsonValue::as_i64) {
                    n = n.min(first.max(0) as usize);
                }
                Ok(ResolvedValue::List(Box::new((0..n).map(move |i| {
                    self.run.tick()?;
                    self.value(inner, data::mix_index(key, i), info, false)
                }))))
            }
        }
    }

    /// A value of the named type `ty`. `top`: the field's own value (not a list item),
    /// which a lookup argument may identify and which echoes scalar arguments.
    fn named<'a>(
        &'a self,
        ty: &str,
        key: u64,
        info: &'a ResolveInfo<'a>,
        top: bool,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        let schema = info.schema();
        match schema.types.get(ty) {
            Some(ExtendedType::Scalar(_)) => Ok(ResolvedValue::leaf(data::scalar(
                ty,
                info.field_name(),
                key,
                self.run.today,
            ))),
            None if is_builtin(ty) => Ok(ResolvedValue::leaf(data::scalar(
                ty,
                info.field_name(),
                key,
                self.run.today,
            ))),
            Some(ExtendedType::Enum(e)) => {
                let values: Vec<&str> = e
                    .values
                    .values()
                    .filter(|v| !v.directives.has("deprecated"))
                    .map(|v| v.value.as_str())
                    .collect();
                let all: Vec<&str> = e.values.keys().map(|k| k.as_str()).collect();
                let pool = if values.is_empty() { all } else { values };
                match pool.get((key % pool.len().max(1) as u64) as usize) {
                    Some(v) => Ok(ResolvedValue::leaf(*v)),
                    None => Ok(ResolvedValue::null()),
                }
            }
            Some(ExtendedType::Object(_))
            | Some(ExtendedType::Interface(_))
            | Some(ExtendedType::Union(_)) => self.composite(ty, key, info, top),
            Some(ExtendedType::InputObject(_)) | None => Err(field_err(format!(
                "the schema does not define `{ty}` as an output type, so the mock cannot answer this field"
            ))),
        }
    }

    fn composite<'a>(
        &'a self,
        ty: &str,
        key: u64,
        info: &'a ResolveInfo<'a>,
        top: bool,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        let schema = info.schema();
        if let Some(c) = connection_of(schema, ty) {
            let page = page(info.arguments(), key)?;
            let concrete = self.concrete(ty, key, info);
            return Ok(ResolvedValue::object(self.obj(
                &concrete,
                key,
                Kind::Connection(page, Box::new(c)),
            )));
        }
        // A lookup by one of this mock's global ids returns that object.
        if top {
            for (_, v) in info.arguments().iter() {
                if let Some((t, id)) = v.as_str().and_then(data::decode_id) {
                    if t == ty || self.possible(ty, info).iter().any(|p| p == t) {
                        return Ok(ResolvedValue::object(self.obj(
                            t,
                            id,
                            Kind::Plain { echo: Vec::new() },
                        )));
                    }
                }
            }
        }
        let echo = if top {
            info.arguments()
                .iter()
                .filter(|(_, v)| v.is_string() || v.is_number() || v.is_boolean())
                .map(|(k, v)| (k.as_str().to_string(), v.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let concrete = self.concrete(ty, key, info);
        Ok(ResolvedValue::object(self.obj(
            &concrete,
            key,
            Kind::Plain { echo },
        )))
    }

    /// The object types `ty` stands for (itself for an object), by name.
    fn possible(&self, ty: &str, info: &ResolveInfo<'_>) -> Vec<String> {
        let schema = info.schema();
        let mut out: Vec<String> = match schema.types.get(ty) {
            Some(ExtendedType::Object(_)) => return vec![ty.to_string()],
            Some(ExtendedType::Union(u)) => u.members.iter().map(|m| m.to_string()).collect(),
            Some(ExtendedType::Interface(_)) => info
                .implementers_map()
                .get(ty)
                .map(|i| i.objects.iter().map(|o| o.to_string()).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        out.sort();
        out
    }

    /// The concrete type of an abstract value: among the types the selection asks for
    /// with type conditions, when it names any, else among all it stands for; chosen by
    /// the value's identity.
    fn concrete(&self, ty: &str, key: u64, info: &ResolveInfo<'_>) -> String {
        let possible = self.possible(ty, info);
        if possible.len() <= 1 {
            return possible
                .into_iter()
                .next()
                .unwrap_or_else(|| ty.to_string());
        }
        let mut asked: Vec<String> = Vec::new();
        for f in info.field_selections() {
            conditions(&f.selection_set, info, &mut asked);
        }
        let mut wanted: Vec<&String> = possible
            .iter()
            .filter(|p| {
                asked
                    .iter()
                    .any(|a| *a == **p || info.schema().is_subtype(a.as_str(), p.as_str()))
            })
            .collect();
        if wanted.is_empty() {
            wanted = possible.iter().collect();
        }
        wanted[(data::mix(key, "__typename") % wanted.len() as u64) as usize].clone()
    }

    fn plain<'a>(&'a self, info: &'a ResolveInfo<'a>) -> Result<ResolvedValue<'a>, FieldError> {
        let f = info.field_definition();
        let name = info.field_name();
        if let Kind::Plain { echo } = &self.kind {
            if !f.ty.is_list() {
                if let Some((_, v)) = echo.iter().find(|(k, _)| k == name) {
                    if echo_fits(v, f.ty.inner_named_type().as_str(), info) {
                        return Ok(ResolvedValue::leaf(v.clone()));
                    }
                }
            }
        }
        if name == "id" && !f.ty.is_list() && f.ty.inner_named_type() == "ID" {
            return Ok(ResolvedValue::leaf(data::encode_id(&self.ty, self.id)));
        }
        let key = self.key(info);
        self.value(&f.ty, key, info, true)
    }

    fn connection_field<'a>(
        &'a self,
        p: Page,
        c: &'a Connection,
        info: &'a ResolveInfo<'a>,
    ) -> Result<Option<ResolvedValue<'a>>, FieldError> {
        let name = info.field_name();
        let f = info.field_definition();
        if c.nodes.as_deref() == Some(name) {
            let item = f.ty.inner_named_type().as_str();
            return Ok(Some(ResolvedValue::List(Box::new((p.start..p.end).map(
                move |i| {
                    self.run.tick()?;
                    self.named(item, data::mix_index(p.items, i), info, false)
                },
            )))));
        }
        if let Some((edges, edge_ty)) = &c.edges {
            if edges == name {
                return Ok(Some(ResolvedValue::List(Box::new((p.start..p.end).map(
                    move |i| {
                        self.run.tick()?;
                        let node = data::mix_index(p.items, i);
                        Ok(ResolvedValue::object(self.obj(
                            edge_ty,
                            data::mix(node, "edge"),
                            Kind::Edge { node, index: i },
                        )))
                    },
                )))));
            }
        }
        if c.page_info.as_deref() == Some(name) {
            let ty = f.ty.inner_named_type().to_string();
            return Ok(Some(ResolvedValue::object(self.obj(
                &ty,
                data::mix(self.id, "pageInfo"),
                Kind::PageInfo(p),
            ))));
        }
        if c.count_fields.iter().any(|n| n == name) {
            return Ok(Some(ResolvedValue::leaf(p.total as i64)));
        }
        Ok(None)
    }
}

fn is_builtin(ty: &str) -> bool {
    matches!(ty, "Int" | "Float" | "String" | "Boolean" | "ID")
}

/// Whether an argument value can stand as the value of a leaf of type `ty`.
fn echo_fits(v: &JsonValue, ty: &str, info: &ResolveInfo<'_>) -> bool {
    match info.schema().types.get(ty) {
        Some(ExtendedType::Enum(e)) => v.as_str().is_some_and(|s| e.values.contains_key(s)),
        Some(ExtendedType::Scalar(_)) => match ty {
            "Int" => v.is_i64() || v.is_u64(),
            "Float" => v.is_number(),
            "Boolean" => v.is_boolean(),
            _ => v.is_string(),
        },
        _ => false,
    }
}

/// Type conditions in a selection set (inline fragments and fragment spreads, nested).
fn conditions(set: &SelectionSet, info: &ResolveInfo<'_>, out: &mut Vec<String>) {
    for s in &set.selections {
        match s {
            Selection::Field(_) => {}
            Selection::InlineFragment(f) => {
                if let Some(t) = &f.type_condition {
                    out.push(t.to_string());
                }
                conditions(&f.selection_set, info, out);
            }
            Selection::FragmentSpread(s) => {
                if let Some(f) = info.document().fragments.get(&s.fragment_name) {
                    out.push(f.type_condition().to_string());
                    conditions(&f.selection_set, info, out);
                }
            }
        }
    }
}

/// The window a connection field's paging arguments ask for.
fn page(args: &JsonMap, key: u64) -> Result<Page, FieldError> {
    let total = data::connection_total(key);
    let (mut start, mut end) = (0usize, total);
    let count = |name: &str| -> Result<Option<usize>, FieldError> {
        match args.get(name).and_then(JsonValue::as_i64) {
            Some(n) if n < 0 => Err(field_err(format!(
                "`{name}` must not be negative (got {n})"
            ))),
            Some(n) => Ok(Some(n as usize)),
            None => Ok(None),
        }
    };
    let position = |name: &str| -> Result<Option<usize>, FieldError> {
        match args.get(name).and_then(JsonValue::as_str) {
            Some(c) => data::cursor_index(c).map(Some).ok_or_else(|| {
                field_err(format!(
                    "`{name}`: `{c}` is not a cursor of this connection (use a `cursor` or `pageInfo` cursor from an earlier page)"
                ))
            }),
            None => Ok(None),
        }
    };
    if let Some(a) = position("after")? {
        start = start.max(a + 1).min(total);
    }
    if let Some(b) = position("before")? {
        end = end.min(b);
    }
    end = end.max(start);
    if let Some(f) = count("first")? {
        end = end.min(start + f);
    }
    if let Some(l) = count("last")? {
        start = start.max(end.saturating_sub(l));
    }
    Ok(Page {
        items: data::mix(key, "items"),
        total,
        start,
        end,
    })
}

impl ObjectValue for Obj<'_> {
    fn type_name(&self) -> &str {
        &self.ty
    }

    fn resolve_field<'a>(
        &'a self,
        info: &'a ResolveInfo<'a>,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        self.run.tick()?;
        let name = info.field_name();
        match &self.kind {
            Kind::Connection(p, c) => {
                if let Some(v) = self.connection_field(*p, c, info)? {
                    return Ok(v);
                }
            }
            Kind::Edge { node, index } => match name {
                "node" => {
                    let ty = info.field_definition().ty.inner_named_type().as_str();
                    return self.named(ty, *node, info, false);
                }
                "cursor" => return Ok(ResolvedValue::leaf(data::cursor(*index))),
                _ => {}
            },
            Kind::PageInfo(p) => {
                let cursor_at = |i: usize| ResolvedValue::leaf(data::cursor(i));
                match name {
                    "hasNextPage" => return Ok(ResolvedValue::leaf(p.end < p.total)),
                    "hasPreviousPage" => return Ok(ResolvedValue::leaf(p.start > 0)),
                    "startCursor" if p.end > p.start => return Ok(cursor_at(p.start)),
                    "endCursor" if p.end > p.start => return Ok(cursor_at(p.end - 1)),
                    "startCursor" | "endCursor" if !info.field_definition().ty.is_non_null() => {
                        return Ok(ResolvedValue::null())
                    }
                    _ => {}
                }
            }
            Kind::Plain { .. } => {}
        }
        self.plain(info)
    }
}
