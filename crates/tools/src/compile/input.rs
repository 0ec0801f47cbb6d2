//! Argument types as JSON Schema (draft 2020-12): scalars mapped, non-null as `required`,
//! lists as arrays, defaults carried, enums / input objects / described custom scalars
//! hoisted into `$defs` shared by the whole tool set (recursive input types through
//! `$ref`), or expanded inline to a depth cap for clients that cannot resolve refs.

use std::collections::BTreeMap;

use apollo_compiler::ast::{InputValueDefinition, Type, Value as AstValue};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Schema;
use serde_json::{json, Map, Value};

use super::{NullableMode, RefMode};

/// How inputs are written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputStyle {
    pub refs: RefMode,
    pub nullable: NullableMode,
    /// Input-object nesting expanded before `--refs inline` stops (recursive types).
    pub inline_depth: usize,
}

/// Why a tool could not be compiled from its arguments.
#[derive(Debug, Clone)]
pub(crate) struct MissingType {
    pub argument: String,
    pub ty: String,
}

/// Builds argument schemas and collects the `$defs` they need.
pub(crate) struct InputCompiler<'a> {
    schema: &'a Schema,
    style: InputStyle,
    /// Every hoisted definition, by GraphQL type name.
    pub defs: BTreeMap<String, Value>,
}

/// The first paragraph of a description, whitespace collapsed.
pub(crate) fn first_paragraph(d: Option<&str>) -> Option<String> {
    let d = d?.trim();
    let para = d.split("\n\n").next().unwrap_or(d);
    let s = para.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

/// A GraphQL literal as JSON (enum values as strings; variables cannot occur in defaults).
pub(crate) fn literal_json(v: &AstValue) -> Value {
    match v {
        AstValue::Null | AstValue::Variable(_) => Value::Null,
        AstValue::Enum(n) => Value::String(n.to_string()),
        AstValue::String(s) => Value::String(s.clone()),
        AstValue::Float(f) => f
            .try_to_f64()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        AstValue::Int(i) => i
            .try_to_i32()
            .map(|n| json!(n))
            .unwrap_or_else(|_| Value::String(i.as_str().to_string())),
        AstValue::Boolean(b) => Value::Bool(*b),
        AstValue::List(l) => Value::Array(l.iter().map(|x| literal_json(x)).collect()),
        AstValue::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.to_string(), literal_json(x)))
                .collect(),
        ),
    }
}

impl<'a> InputCompiler<'a> {
    pub fn new(schema: &'a Schema, style: InputStyle) -> Self {
        InputCompiler {
            schema,
            style,
            defs: BTreeMap::new(),
        }
    }

    /// How nullable inputs are written.
    pub fn nullable(&self) -> NullableMode {
        self.style.nullable
    }

    /// The first argument whose named type the schema does not define (partial schemas).
    pub fn missing_type(
        &self,
        args: &[apollo_compiler::Node<InputValueDefinition>],
    ) -> Option<MissingType> {
        let mut stack: Vec<(String, String)> = args
            .iter()
            .map(|a| (a.name.to_string(), a.ty.inner_named_type().to_string()))
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some((arg, ty)) = stack.pop() {
            if !seen.insert(ty.clone()) {
                continue;
            }
            match self.schema.types.get(ty.as_str()) {
                None => return Some(MissingType { argument: arg, ty }),
                Some(ExtendedType::InputObject(io)) => {
                    for f in io.fields.values() {
                        stack.push((arg.clone(), f.ty.inner_named_type().to_string()));
                    }
                }
                Some(_) => {}
            }
        }
        None
    }

    /// The `{type: object, properties, required}` schema of a field's arguments, plus
    /// extra properties appended by the caller. `defaults` overrides argument defaults
    /// (the compiled page size of a connection).
    pub fn arguments(
        &mut self,
        args: &[apollo_compiler::Node<InputValueDefinition>],
        defaults: &BTreeMap<String, Value>,
    ) -> Value {
        let mut props = Map::new();
        let mut required = Vec::new();
        for a in args {
            let mut s = self.value_schema(&a.ty, 0);
            let default = defaults
                .get(a.name.as_str())
                .cloned()
                .or_else(|| a.default_value.as_ref().map(|d| literal_json(d)));
            annotate(
                &mut s,
                first_paragraph(a.description.as_deref()),
                default.clone(),
                self.style.nullable,
            );
            if a.ty.is_non_null() && default.is_none() {
                required.push(Value::String(a.name.to_string()));
            } else if self.style.nullable == NullableMode::AnyOf {
                s = nullable(s);
                required.push(Value::String(a.name.to_string()));
            }
            props.insert(a.name.to_string(), s);
        }
        object_schema(props, required)
    }

    /// The schema of one GraphQL input type reference (wrappers included).
    fn value_schema(&mut self, ty: &Type, depth: usize) -> Value {
        match ty {
            Type::List(inner) | Type::NonNullList(inner) => {
                let mut items = self.value_schema(inner, depth);
                if self.style.nullable == NullableMode::AnyOf && !inner.is_non_null() {
                    items = nullable(items);
                }
                json!({"type": "array", "items": items})
            }
            Type::Named(n) | Type::NonNullNamed(n) => self.named(n.as_str(), depth),
        }
    }

    fn named(&mut self, name: &str, depth: usize) -> Value {
        match name {
            "Int" => return json!({"type": "integer"}),
            "Float" => return json!({"type": "number"}),
            "String" => return json!({"type": "string"}),
            "Boolean" => return json!({"type": "boolean"}),
            "ID" => return json!({"type": "string"}),
            _ => {}
        }
        let hoist = match self.schema.types.get(name) {
            Some(ExtendedType::Scalar(s)) => match first_paragraph(s.description.as_deref()) {
                // A described custom scalar is said once; an undescribed one is a string.
                Some(_) => true,
                None => return json!({"type": "string", "description": name}),
            },
            Some(ExtendedType::Enum(_)) | Some(ExtendedType::InputObject(_)) => true,
            // Output or unknown types cannot be inputs in a valid schema; stay permissive.
            _ => return json!({}),
        };
        debug_assert!(hoist);
        match self.style.refs {
            RefMode::Defs => {
                self.define(name);
                json!({"$ref": format!("#/$defs/{name}")})
            }
            RefMode::Inline => self.inline(name, depth),
        }
    }

    /// Put `name` (and everything it references) into `defs`.
    fn define(&mut self, name: &str) {
        if self.defs.contains_key(name) {
            return;
        }
        // Insert a placeholder first, so a recursive input type ends at a `$ref`.
        self.defs.insert(name.to_string(), Value::Null);
        let body = self.definition(name, 0);
        self.defs.insert(name.to_string(), body);
    }

    fn inline(&mut self, name: &str, depth: usize) -> Value {
        if depth >= self.style.inline_depth
            && matches!(
                self.schema.types.get(name),
                Some(ExtendedType::InputObject(_))
            )
        {
            return json!({
                "type": "object",
                "description": format!("{name}: nested deeper than {} levels, not expanded here; introspect {name} for its fields", self.style.inline_depth),
            });
        }
        self.definition(name, depth)
    }

    /// The body of a hoistable type: an enum, an input object or a custom scalar.
    fn definition(&mut self, name: &str, depth: usize) -> Value {
        let Some(t) = self.schema.types.get(name) else {
            return json!({});
        };
        match t {
            ExtendedType::Scalar(s) => {
                let mut v = json!({"type": "string"});
                if let Some(d) = first_paragraph(s.description.as_deref()) {
                    v["description"] = Value::String(format!("{name}: {d}"));
                }
                v
            }
            ExtendedType::Enum(e) => {
                let values: Vec<Value> = e
                    .values
                    .values()
                    .filter(|v| !v.directives.has("deprecated"))
                    .map(|v| Value::String(v.value.to_string()))
                    .collect();
                let mut v = json!({"type": "string", "enum": values});
                if let Some(d) = first_paragraph(e.description.as_deref()) {
                    v["description"] = Value::String(d);
                }
                v
            }
            ExtendedType::InputObject(io) => {
                let fields: Vec<_> = io.fields.values().cloned().collect();
                let mut props = Map::new();
                let mut required = Vec::new();
                for f in &fields {
                    let mut s = self.value_schema(&f.ty, depth + 1);
                    let default = f.default_value.as_ref().map(|d| literal_json(d));
                    annotate(
                        &mut s,
                        first_paragraph(f.description.as_deref()),
                        default.clone(),
                        self.style.nullable,
                    );
                    if f.ty.is_non_null() && default.is_none() {
                        required.push(Value::String(f.name.to_string()));
                    } else if self.style.nullable == NullableMode::AnyOf {
                        s = nullable(s);
                        required.push(Value::String(f.name.to_string()));
                    }
                    props.insert(f.name.to_string(), s);
                }
                let mut v = object_schema(props, required);
                if let Some(d) = first_paragraph(io.description.as_deref()) {
                    v["description"] = Value::String(d);
                }
                if io.directives.has("oneOf") {
                    // Strict tool modes reject `oneOf`; say it with property counts.
                    v["minProperties"] = json!(1);
                    v["maxProperties"] = json!(1);
                }
                v
            }
            _ => json!({}),
        }
    }
}

fn object_schema(props: Map<String, Value>, required: Vec<Value>) -> Value {
    let mut v = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        v["required"] = Value::Array(required);
    }
    v["additionalProperties"] = Value::Bool(false);
    v
}

/// `anyOf [schema, null]`, the strict-mode way to say "may be null".
fn nullable(s: Value) -> Value {
    json!({"anyOf": [s, {"type": "null"}]})
}

/// Add a description and a default to a property schema. Next to a `$ref`, siblings are
/// allowed in 2020-12. In strict (`anyof`) mode the default goes into the description,
/// since strict tool modes reject the `default` keyword.
fn annotate(s: &mut Value, desc: Option<String>, default: Option<Value>, mode: NullableMode) {
    let Some(obj) = s.as_object_mut() else { return };
    let mut text = match (desc, obj.get("description").and_then(Value::as_str)) {
        (Some(d), _) => Some(d),
        (None, Some(existing)) if !obj.contains_key("$ref") => Some(existing.to_string()),
        _ => None,
    };
    if let Some(d) = &default {
        match mode {
            NullableMode::Omit => {
                obj.insert("default".into(), d.clone());
            }
            NullableMode::AnyOf => {
                let note = format!("Default: {d}.");
                text = Some(match text {
                    Some(t) => format!("{t} {note}"),
                    None => note,
                });
            }
        }
    }
    if let Some(t) = text {
        obj.insert("description".into(), Value::String(t));
    }
}

/// The names a schema value refers to through `#/$defs/NAME`.
pub(crate) fn refs_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                if let Some(n) = r.strip_prefix("#/$defs/") {
                    out.push(n.to_string());
                }
            }
            m.values().for_each(|x| refs_in(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs_in(x, out)),
        _ => {}
    }
}

/// `names` and every definition they reach, in name order.
pub(crate) fn closure(defs: &BTreeMap<String, Value>, names: &[String]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack: Vec<String> = names.to_vec();
    while let Some(n) = stack.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        if let Some(d) = defs.get(&n) {
            let mut more = Vec::new();
            refs_in(d, &mut more);
            stack.extend(more);
        }
    }
    seen.into_iter().collect()
}
