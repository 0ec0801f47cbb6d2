//! Introspection objects for `__search` results' `definition` and for `__definitions`.
//!
//! apollo-compiler executes introspection (`__schema`, `__type`) itself, but its object
//! resolvers are private, so a `__Field` or `__InputValue` cannot be handed out on its own.
//! Instead the served schema is introspected once per generation by apollo-compiler (a full
//! introspection query, deprecated elements included), and one small resolver walks that
//! result: a named type reference is looked up among the full types, so any selection an
//! operation makes (`definition { ... on __Field { type { fields { name } } } }`) resolves.

use std::collections::HashMap;

use apollo_compiler::resolvers::{FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{serde_json_bytes, JsonMap};
use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use gqlnav_schema::Coordinate;
use serde_json_bytes::Value as JsonValue;

/// Every element an introspection query can return, deprecated ones included.
const FULL_QUERY: &str = r#"query FullIntrospection {
  __schema {
    types { ...FullType }
    directives {
      name description locations isRepeatable
      args(includeDeprecated: true) { ...InputValue }
    }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL
  fields(includeDeprecated: true) {
    name description
    args(includeDeprecated: true) { ...InputValue }
    type { ...TypeRef }
    isDeprecated deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name description type { ...TypeRef } defaultValue isDeprecated deprecationReason
}
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name
    ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
}"#;

/// Which introspection type an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Type,
    Field,
    InputValue,
    EnumValue,
    Directive,
}

impl Kind {
    fn type_name(self) -> &'static str {
        match self {
            Kind::Type => "__Type",
            Kind::Field => "__Field",
            Kind::InputValue => "__InputValue",
            Kind::EnumValue => "__EnumValue",
            Kind::Directive => "__Directive",
        }
    }

    /// The introspection type of an object-valued field.
    fn child(self, field: &str) -> Option<Kind> {
        Some(match (self, field) {
            (Kind::Type, "fields") => Kind::Field,
            (Kind::Type, "interfaces" | "possibleTypes" | "ofType") => Kind::Type,
            (Kind::Type, "enumValues") => Kind::EnumValue,
            (Kind::Type, "inputFields") => Kind::InputValue,
            (Kind::Field | Kind::Directive, "args") => Kind::InputValue,
            (Kind::Field | Kind::InputValue, "type") => Kind::Type,
            _ => return None,
        })
    }
}

/// The served schema's full introspection, indexed by type and directive name.
pub struct Introspection {
    types: HashMap<String, JsonValue>,
    directives: HashMap<String, JsonValue>,
}

fn by_name(list: Option<&JsonValue>) -> HashMap<String, JsonValue> {
    list.and_then(JsonValue::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| Some((t.get("name")?.as_str()?.to_string(), t.clone())))
        .collect()
}

fn named<'v>(list: &'v JsonValue, key: &str, name: &str) -> Option<&'v JsonValue> {
    list.get(key)?
        .as_array()?
        .iter()
        .find(|x| x.get("name").and_then(JsonValue::as_str) == Some(name))
}

impl Introspection {
    /// Introspect `schema` (apollo-compiler's own execution).
    pub fn new(schema: &Valid<Schema>) -> Result<Self, String> {
        let v = gqlnav_schema::execute_introspection(schema, FULL_QUERY, None, &JsonMap::new())?;
        let v = JsonValue::from(v);
        let s = v
            .get("data")
            .and_then(|d| d.get("__schema"))
            .ok_or("introspection returned no __schema")?;
        Ok(Introspection {
            types: by_name(s.get("types")),
            directives: by_name(s.get("directives")),
        })
    }

    fn obj<'a>(&'a self, v: &'a JsonValue, kind: Kind) -> IntroObj<'a> {
        IntroObj {
            v,
            kind,
            intro: self,
        }
    }

    /// The `__SchemaDefinition` a coordinate names, if the schema has it.
    pub fn definition<'a>(&'a self, coord: &Coordinate) -> Option<ResolvedValue<'a>> {
        let (v, kind) = match coord {
            Coordinate::Type(t) => (self.types.get(t.as_str())?, Kind::Type),
            Coordinate::Member { ty, member } => {
                let t = self.types.get(ty.as_str())?;
                [
                    ("fields", Kind::Field),
                    ("inputFields", Kind::InputValue),
                    ("enumValues", Kind::EnumValue),
                ]
                .into_iter()
                .find_map(|(key, kind)| Some((named(t, key, member)?, kind)))?
            }
            Coordinate::Argument { ty, field, arg } => {
                let f = named(self.types.get(ty.as_str())?, "fields", field)?;
                (named(f, "args", arg)?, Kind::InputValue)
            }
            Coordinate::Directive(d) => (self.directives.get(d.as_str())?, Kind::Directive),
            Coordinate::DirectiveArgument { directive, arg } => {
                let d = self.directives.get(directive.as_str())?;
                (named(d, "args", arg)?, Kind::InputValue)
            }
        };
        Some(ResolvedValue::object(self.obj(v, kind)))
    }
}

/// One introspection object: a node of the introspection result.
struct IntroObj<'a> {
    v: &'a JsonValue,
    kind: Kind,
    intro: &'a Introspection,
}

/// List fields that take `includeDeprecated` (default false).
const DEPRECATABLE: [&str; 4] = ["fields", "enumValues", "args", "inputFields"];

impl ObjectValue for IntroObj<'_> {
    fn type_name(&self) -> &str {
        self.kind.type_name()
    }

    fn resolve_field<'b>(
        &'b self,
        info: &'b ResolveInfo<'b>,
    ) -> Result<ResolvedValue<'b>, FieldError> {
        let field = info.field_name();
        let mut node = self.v;
        // A type reference (`{kind, name, ofType}`) stands for the full named type.
        if self.kind == Kind::Type && !matches!(field, "kind" | "name" | "ofType") {
            if let Some(full) = node
                .get("name")
                .and_then(JsonValue::as_str)
                .and_then(|n| self.intro.types.get(n))
            {
                node = full;
            }
        }
        let Some(value) = node.get(field) else {
            if field == "__typename" {
                return Ok(ResolvedValue::leaf(self.kind.type_name()));
            }
            return Ok(ResolvedValue::null());
        };
        let child = self.kind.child(field);
        Ok(match (value, child) {
            (JsonValue::Array(items), Some(kind)) => {
                let hide_deprecated = DEPRECATABLE.contains(&field)
                    && !info
                        .arguments()
                        .get("includeDeprecated")
                        .and_then(|v| v.as_bool())
                        .unwrap_or(false);
                ResolvedValue::list(
                    items
                        .iter()
                        .filter(move |x| {
                            !hide_deprecated
                                || x.get("isDeprecated").and_then(JsonValue::as_bool) != Some(true)
                        })
                        .map(move |x| ResolvedValue::object(self.intro.obj(x, kind))),
                )
            }
            (JsonValue::Object(_), Some(kind)) => {
                ResolvedValue::object(self.intro.obj(value, kind))
            }
            (leaf, _) => ResolvedValue::leaf(leaf.clone()),
        })
    }
}
