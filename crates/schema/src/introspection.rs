//! Introspection: the standard query, introspection JSON -> SDL, and a schema's own
//! introspection result (for costing and for serving `__schema` locally).

use apollo_compiler::response::JsonMap;
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};
use serde_json::Value;

use crate::error::SchemaError;

/// The standard introspection query (graphql-js `getIntrospectionQuery()` with
/// descriptions, without `specifiedByURL` / `isRepeatable`, which some servers reject).
pub const INTROSPECTION_QUERY: &str = r#"query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives {
      name
      description
      locations
      args { ...InputValue }
    }
  }
}
fragment FullType on __Type {
  kind
  name
  description
  fields(includeDeprecated: true) {
    name
    description
    args { ...InputValue }
    type { ...TypeRef }
    isDeprecated
    deprecationReason
  }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) {
    name
    description
    isDeprecated
    deprecationReason
  }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name
  description
  type { ...TypeRef }
  defaultValue
}
fragment TypeRef on __Type {
  kind
  name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
}
"#;

/// Default bound on `ofType` nesting accepted from an introspection result.
pub const DEFAULT_MAX_TYPE_DEPTH: usize = 16;

const BUILTIN_SCALARS: [&str; 5] = ["String", "Int", "Float", "Boolean", "ID"];
const BUILTIN_DIRECTIVES: [&str; 5] = ["skip", "include", "deprecated", "specifiedBy", "oneOf"];

/// Find the `__schema` object in `{"data":{"__schema":…}}` or `{"__schema":…}`.
pub fn find_schema_object(v: &Value) -> Option<&Value> {
    v.get("data")
        .and_then(|d| d.get("__schema"))
        .or_else(|| v.get("__schema"))
        .filter(|s| s.is_object())
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn type_ref(v: &Value, depth: usize, max: usize, owner: &str) -> Result<String, String> {
    if depth > max {
        return Err(format!("TOO_DEEP:{owner}"));
    }
    match s(v, "kind") {
        Some("NON_NULL") => {
            let inner = v.get("ofType").ok_or("NON_NULL without ofType")?;
            Ok(format!("{}!", type_ref(inner, depth + 1, max, owner)?))
        }
        Some("LIST") => {
            let inner = v.get("ofType").ok_or("LIST without ofType")?;
            Ok(format!("[{}]", type_ref(inner, depth + 1, max, owner)?))
        }
        Some(_) => s(v, "name")
            .map(str::to_string)
            .ok_or_else(|| "type reference without a name".into()),
        None => Err("type reference without `kind`".into()),
    }
}

fn description(out: &mut String, d: Option<&str>, indent: &str) {
    if let Some(d) = d.filter(|d| !d.trim().is_empty()) {
        let esc = d.replace("\"\"\"", "\\\"\"\"");
        out.push_str(indent);
        out.push_str("\"\"\"\n");
        for line in esc.lines() {
            out.push_str(indent);
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(indent);
        out.push_str("\"\"\"\n");
    }
}

fn deprecated(v: &Value) -> String {
    if v.get("isDeprecated").and_then(Value::as_bool) == Some(true) {
        match s(v, "deprecationReason") {
            Some(r) => format!(
                " @deprecated(reason: {})",
                serde_json::to_string(r).unwrap_or_default()
            ),
            None => " @deprecated".into(),
        }
    } else {
        String::new()
    }
}

fn input_values(vals: &[Value], max: usize, owner: &str, inline: bool) -> Result<String, String> {
    let mut parts = Vec::new();
    for a in vals {
        let name = s(a, "name").ok_or("input value without a name")?;
        let ty = type_ref(
            a.get("type").ok_or("input value without a type")?,
            0,
            max,
            owner,
        )?;
        let mut p = String::new();
        if !inline {
            description(&mut p, s(a, "description"), "  ");
            p.push_str("  ");
        } else if let Some(d) = s(a, "description").filter(|d| !d.trim().is_empty()) {
            p.push_str(&serde_json::to_string(d).unwrap_or_default());
            p.push(' ');
        }
        p.push_str(name);
        p.push_str(": ");
        p.push_str(&ty);
        if let Some(dv) = s(a, "defaultValue") {
            p.push_str(" = ");
            p.push_str(dv);
        }
        parts.push(p);
    }
    Ok(if inline {
        parts.join(", ")
    } else {
        parts.join("\n")
    })
}

/// Convert an introspection result (`__schema` object) into SDL text.
pub fn introspection_to_sdl(schema_obj: &Value, max_depth: usize) -> Result<String, String> {
    introspection_to_sdl_marked(schema_obj, max_depth).map(|(sdl, _)| sdl)
}

/// Where each part of the generated SDL came from in the JSON: `(byte offset in the SDL,
/// JSON path such as `__schema.types[12].fields[3]`)`, in offset order.
pub type JsonMarks = Vec<(usize, String)>;

/// [`introspection_to_sdl`], with the JSON path of each type, field, enum value and
/// directive, so problems found in the SDL can be located in the JSON.
pub fn introspection_to_sdl_marked(
    schema_obj: &Value,
    max_depth: usize,
) -> Result<(String, JsonMarks), String> {
    let mut marks: JsonMarks = Vec::new();
    let mut out = String::new();
    let root = |k: &str| {
        schema_obj
            .get(k)
            .and_then(|t| s(t, "name"))
            .map(str::to_string)
    };
    let (q, m, sub) = (
        root("queryType"),
        root("mutationType"),
        root("subscriptionType"),
    );
    let q = q.ok_or("`__schema.queryType.name` is missing")?;
    out.push_str("schema {\n");
    out.push_str(&format!("  query: {q}\n"));
    if let Some(m) = m {
        out.push_str(&format!("  mutation: {m}\n"));
    }
    if let Some(sub) = sub {
        out.push_str(&format!("  subscription: {sub}\n"));
    }
    out.push_str("}\n\n");
    let types = schema_obj
        .get("types")
        .and_then(Value::as_array)
        .ok_or("`__schema.types` is missing or not a list")?;
    for (ti, t) in types.iter().enumerate() {
        marks.push((out.len(), format!("__schema.types[{ti}]")));
        let name = s(t, "name").ok_or("a type without a name")?;
        if name.starts_with("__") || BUILTIN_SCALARS.contains(&name) {
            continue;
        }
        let kind = s(t, "kind").ok_or_else(|| format!("type `{name}` has no kind"))?;
        description(&mut out, s(t, "description"), "");
        match kind {
            "SCALAR" => out.push_str(&format!("scalar {name}\n\n")),
            "OBJECT" | "INTERFACE" => {
                let kw = if kind == "OBJECT" {
                    "type"
                } else {
                    "interface"
                };
                out.push_str(&format!("{kw} {name}"));
                let ifaces: Vec<String> = arr(t, "interfaces")
                    .iter()
                    .filter_map(|i| s(i, "name").map(str::to_string))
                    .collect();
                if !ifaces.is_empty() {
                    out.push_str(" implements ");
                    out.push_str(&ifaces.join(" & "));
                }
                let fields = arr(t, "fields");
                if fields.is_empty() {
                    out.push_str("\n\n");
                    continue;
                }
                out.push_str(" {\n");
                for (fi, f) in fields.iter().enumerate() {
                    marks.push((out.len(), format!("__schema.types[{ti}].fields[{fi}]")));
                    let fname =
                        s(f, "name").ok_or_else(|| format!("a field of `{name}` has no name"))?;
                    description(&mut out, s(f, "description"), "  ");
                    out.push_str("  ");
                    out.push_str(fname);
                    let args = arr(f, "args");
                    if !args.is_empty() {
                        out.push('(');
                        out.push_str(&input_values(args, max_depth, name, true)?);
                        out.push(')');
                    }
                    out.push_str(": ");
                    out.push_str(&type_ref(
                        f.get("type")
                            .ok_or_else(|| format!("field `{name}.{fname}` has no type"))?,
                        0,
                        max_depth,
                        name,
                    )?);
                    out.push_str(&deprecated(f));
                    out.push('\n');
                }
                out.push_str("}\n\n");
            }
            "UNION" => {
                let members: Vec<String> = arr(t, "possibleTypes")
                    .iter()
                    .filter_map(|i| s(i, "name").map(str::to_string))
                    .collect();
                if members.is_empty() {
                    out.push_str(&format!("union {name}\n\n"));
                } else {
                    out.push_str(&format!("union {name} = {}\n\n", members.join(" | ")));
                }
            }
            "ENUM" => {
                out.push_str(&format!("enum {name} {{\n"));
                for (vi, v) in arr(t, "enumValues").iter().enumerate() {
                    marks.push((out.len(), format!("__schema.types[{ti}].enumValues[{vi}]")));
                    let vname = s(v, "name")
                        .ok_or_else(|| format!("a value of enum `{name}` has no name"))?;
                    description(&mut out, s(v, "description"), "  ");
                    out.push_str(&format!("  {vname}{}\n", deprecated(v)));
                }
                out.push_str("}\n\n");
            }
            "INPUT_OBJECT" => {
                out.push_str(&format!("input {name} {{\n"));
                out.push_str(&input_values(
                    arr(t, "inputFields"),
                    max_depth,
                    name,
                    false,
                )?);
                out.push_str("\n}\n\n");
            }
            other => return Err(format!("type `{name}` has unknown kind `{other}`")),
        }
    }
    for (di, d) in arr(schema_obj, "directives").iter().enumerate() {
        marks.push((out.len(), format!("__schema.directives[{di}]")));
        let Some(name) = s(d, "name") else { continue };
        if BUILTIN_DIRECTIVES.contains(&name) {
            continue;
        }
        description(&mut out, s(d, "description"), "");
        out.push_str(&format!("directive @{name}"));
        let args = arr(d, "args");
        if !args.is_empty() {
            out.push('(');
            out.push_str(&input_values(args, max_depth, name, true)?);
            out.push(')');
        }
        let locs: Vec<&str> = arr(d, "locations")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if locs.is_empty() {
            return Err(format!("directive `@{name}` has no locations"));
        }
        out.push_str(&format!(" on {}\n\n", locs.join(" | ")));
    }
    Ok((out, marks))
}

/// Rewrite a location `path:LINE:COL` in the generated `sdl` to the JSON path it came
/// from (`path: __schema.types[12].fields[3]`); other text is returned unchanged.
pub fn locate_in_json(location: &str, path: &str, sdl: &str, marks: &JsonMarks) -> String {
    let Some(rest) = location
        .strip_prefix(path)
        .and_then(|r| r.strip_prefix(':'))
    else {
        return location.to_string();
    };
    let mut it = rest.splitn(2, ':');
    let (Some(Ok(line)), Some(Ok(col))) = (
        it.next().map(str::parse::<usize>),
        it.next().map(str::parse::<usize>),
    ) else {
        return location.to_string();
    };
    let line_start: usize = sdl
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = line_start + col.saturating_sub(1);
    let i = marks.partition_point(|(o, _)| *o <= offset);
    match i.checked_sub(1).and_then(|i| marks.get(i)) {
        Some((_, json)) => format!("{path}: {json}"),
        None => format!("{path}: __schema"),
    }
}

/// Map a converter failure to a typed error.
pub(crate) fn conversion_error(path: &str, detail: String) -> SchemaError {
    if let Some(t) = detail.strip_prefix("TOO_DEEP:") {
        SchemaError::TooDeep {
            type_name: t.to_string(),
            limit: DEFAULT_MAX_TYPE_DEPTH,
        }
    } else {
        SchemaError::IntrospectionFormat {
            path: path.to_string(),
            detail,
        }
    }
}

/// Execute the standard introspection query against a schema and return the result
/// as `{"data": {"__schema": …}}`.
pub fn introspection_result(schema: &Valid<Schema>) -> Result<Value, String> {
    execute_introspection(schema, INTROSPECTION_QUERY, None, &JsonMap::new())
}

/// Execute the introspection part (`__schema`, `__type`, `__typename`) of an operation.
pub fn execute_introspection(
    valid: &Valid<Schema>,
    query: &str,
    operation_name: Option<&str>,
    variables: &JsonMap,
) -> Result<Value, String> {
    let doc = ExecutableDocument::parse_and_validate(valid, query, "operation.graphql")
        .map_err(|e| e.errors.to_string())?;
    let op = doc
        .operations
        .get(operation_name)
        .map_err(|e| format!("{e:?}"))?;
    apollo_compiler::introspection::check_max_depth(&doc, op).map_err(|e| format!("{e:?}"))?;
    let vars = apollo_compiler::request::coerce_variable_values(valid, op, variables)
        .map_err(|e| format!("{e:?}"))?;
    let resp = apollo_compiler::introspection::partial_execute(
        valid,
        &valid.implementers_map(),
        &doc,
        op,
        &vars,
    )
    .map_err(|e| format!("{e:?}"))?;
    serde_json::to_value(resp).map_err(|e| e.to_string())
}
