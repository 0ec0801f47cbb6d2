//! From a typed call to an operation: the chosen paths merged into one selection set,
//! arguments as variables on the fields that take them, a page size on connections that
//! take one and got none.

use serde_json::{Map, Value};

use apollo_compiler::Schema;
use gqlnav_schema::connection_of;

use super::path::{field_def, walk, FieldPath};
use super::{TypedArg, TypedTool, TypedToolSet};
use crate::error::ToolError;

/// The page size a connection gets when the call gives none (the compiled tools' default).
const DEFAULT_FIRST: u32 = 10;

/// A model's call of a typed tool.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TypedCall {
    /// The tool's name (`action` in the model's JSON).
    #[serde(alias = "action")]
    pub tool: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
    #[serde(default)]
    pub fields: Vec<String>,
}

/// A selection node: a field with its arguments, or a type condition.
#[derive(Debug, Default, Clone)]
struct Node {
    /// `field(args)` or `... on T`.
    head: String,
    field: String,
    on: bool,
    children: Vec<Node>,
}

impl Node {
    fn child(&mut self, field: &str, on: bool) -> Option<usize> {
        self.children
            .iter()
            .position(|c| c.field == field && c.on == on)
    }

    fn print(&self, indent: usize, out: &mut String) {
        for c in &self.children {
            out.push_str(&"  ".repeat(indent));
            out.push_str(&c.head);
            if !c.children.is_empty() {
                out.push_str(" {\n");
                c.print(indent + 1, out);
                out.push_str(&"  ".repeat(indent));
                out.push('}');
            }
            out.push('\n');
        }
    }
}

/// Whether `body` uses the variable `$name` (not just one whose name starts with it).
fn mentions(body: &str, name: &str) -> bool {
    let needle = format!("${name}");
    body.match_indices(&needle).any(|(i, _)| {
        body[i + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    })
}

fn var_name(key: &str) -> String {
    key.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Whether an argument value counts as given: a small model fills every optional slot,
/// with `""`, `[]` or `{}` where it has nothing to say.
fn given(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    }
}

/// An operation written from a typed call.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub operation: String,
    pub variables: Map<String, Value>,
    /// Field paths left out, each with why (a field on the path needs an argument the
    /// call did not give).
    pub skipped: Vec<String>,
    /// Argument values read otherwise than given, each with why ([`split_composed`]).
    pub adjusted: Vec<String>,
}

impl TypedToolSet {
    /// The operation and variables for `call`; `Err` says what to change (an unknown
    /// tool, argument or field path, a required argument missing).
    pub fn operation(
        &self,
        schema: &Schema,
        call: &TypedCall,
    ) -> Result<(String, Map<String, Value>), ToolError> {
        self.write(schema, call).map(|w| (w.operation, w.variables))
    }

    /// The operation for `call`, leaving out the field paths that need an argument the
    /// call did not give (said in [`Written::skipped`]) as long as one path remains.
    pub fn write(&self, schema: &Schema, call: &TypedCall) -> Result<Written, ToolError> {
        let Some(tool) = self.get(&call.tool) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
            return Err(ToolError::TypedCall(format!(
                "there is no tool `{}`; the tools are: {}",
                call.tool,
                names.join(", ")
            )));
        };
        let mut arguments: Map<String, Value> = call
            .arguments
            .iter()
            .filter(|(_, v)| given(v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        check_arguments(tool, &arguments)?;
        let mut adjusted = split_composed(tool, &mut arguments);
        adjusted.extend(drop_unpaired(tool, &mut arguments));
        let ret = field_def(schema, &self.root_type, &tool.name)
            .map(|d| d.ty.inner_named_type().to_string())
            .ok_or_else(|| {
                ToolError::TypedCall(format!(
                    "`{}` is not a field of {}",
                    tool.name, self.root_type
                ))
            })?;
        let (fields, parallel) = one_route(&call.fields);
        let (root, mut skipped) = select_fields(schema, &ret, tool, &fields, &arguments)?;
        skipped.extend(parallel);
        let (operation, variables) = print_operation(schema, &ret, tool, root, &arguments);
        Ok(Written {
            operation,
            variables,
            skipped,
            adjusted,
        })
    }
}

impl TypedToolSet {
    /// An operation that reads the first tool's first path that can be written, its
    /// required arguments as variables (`query Typed($owner: String!, …) {…}`): how to
    /// reach what the set was chosen for, for a client that writes GraphQL itself.
    pub fn example(&self, schema: &Schema) -> Option<String> {
        self.example_for(schema, None, None)
    }

    /// [`TypedToolSet::example`] for a task: the first tool of its menu
    /// ([`TypedToolSet::menu_tools`]), reading the paths that hold `answer`'s keys
    /// ([`TypedToolSet::answer_paths`]) when there are any.
    pub fn example_for(
        &self,
        schema: &Schema,
        question: Option<&str>,
        answer: Option<&Value>,
    ) -> Option<String> {
        let tool = match question {
            Some(q) => *self.menu_tools(q).first()?,
            None => self.tools.first()?,
        };
        // Placeholders (only the operation's text is shown): the required arguments and
        // the first of each lookup's alternatives (`object(expression:)` on a path
        // through `object`: without one it finds nothing).
        let mut lookups: Vec<&str> = Vec::new();
        let arguments: Map<String, Value> = tool
            .args
            .iter()
            .filter(|a| {
                let first = a.alternative && !lookups.contains(&a.at.as_str());
                if first {
                    lookups.push(&a.at);
                }
                a.required || first
            })
            .map(|a| (a.key.clone(), Value::Bool(true)))
            .collect();
        let fitted = answer
            .map(|a| self.answer_paths(&tool.name, a, &[]))
            .unwrap_or_default();
        let mut candidates: Vec<Vec<String>> = tool.paths.iter().map(|p| vec![p.clone()]).collect();
        if !fitted.is_empty() {
            candidates.insert(0, fitted);
        }
        if candidates.is_empty() {
            candidates.push(Vec::new());
        }
        candidates.into_iter().find_map(|fields| {
            let call = TypedCall {
                tool: tool.name.clone(),
                arguments: arguments.clone(),
                fields,
            };
            self.write(schema, &call).ok().map(|w| w.operation)
        })
    }
}

/// The field names of a path's steps (`object<Commit>.checkSuites.nodes[]` → object,
/// checkSuites, nodes).
fn field_names(path: &str) -> Vec<&str> {
    path.split('.')
        .map(|s| s.split(['[', '<']).next().unwrap_or(s))
        .filter(|s| !s.is_empty())
        .collect()
}

/// The asked paths with those that read the same fields as an earlier one through another
/// route left out (`latestRelease.tagCommit.checkSuites.nodes[]` after
/// `object<Commit>.checkSuites.nodes[]`: both end in `checkSuites.nodes`), each with why.
/// A small model fills every path slot it is given, and two routes to the same fields give
/// two lists of which it answers from either (1.5B, docs/agent.md); the first asked is
/// the one it means.
fn one_route(asked: &[String]) -> (Vec<String>, Vec<String>) {
    let mut kept: Vec<String> = Vec::new();
    let mut left = Vec::new();
    for p in asked {
        let f = field_names(p);
        let tail = |x: &[&str]| x.len() >= 2 && x[x.len() - 2..] == f[f.len().saturating_sub(2)..];
        let other = kept.iter().find(|k| {
            let g = field_names(k);
            f.len() >= 2 && tail(&g) && g[..g.len() - 2] != f[..f.len() - 2]
        });
        match other {
            Some(k) => left.push(format!(
                "`{p}` (it reads what `{k}` reads through another route; ask for one)"
            )),
            None => kept.push(p.clone()),
        }
    }
    (kept, left)
}

/// Separators of a composed identifier (`owner/name`, `scope:name`).
const COMPOSED: [char; 3] = ['/', ':', '#'];

/// `long` is `short` joined to a remainder by `/`, `:` or `#`, on either side
/// (`octocat/example` of `octocat`): the remainder. A question names a thing by its
/// composed identifier and a small model copies it whole into each part.
pub fn composed_remainder<'a>(long: &'a str, short: &str) -> Option<&'a str> {
    long.strip_prefix(short)
        .and_then(|r| r.strip_prefix(COMPOSED))
        .or_else(|| {
            long.strip_suffix(short)
                .and_then(|r| r.strip_suffix(COMPOSED))
        })
        .filter(|r| !r.is_empty())
}

/// Two required string arguments of one field where one value is the other's joined to a
/// remainder (`owner: "octocat", name: "octocat/example"`): the longer is read as the
/// remainder (`name: "example"`). A question names a thing by its composed identifier
/// and a small model copies it whole into each part (Qwen2.5-Coder-1.5B wrote it in
/// every GitHub repository lookup of the dev sample, docs/agent.md).
fn split_composed(tool: &TypedTool, arguments: &mut Map<String, Value>) -> Vec<String> {
    let strings: Vec<&TypedArg> = tool
        .args
        .iter()
        .filter(|a| a.required && matches!(a.ty.as_str(), "String!" | "ID!"))
        .collect();
    let mut out = Vec::new();
    for a in &strings {
        for b in &strings {
            if a.key == b.key || a.at != b.at {
                continue;
            }
            let (Some(va), Some(vb)) = (
                arguments.get(&a.key).and_then(Value::as_str),
                arguments.get(&b.key).and_then(Value::as_str),
            ) else {
                continue;
            };
            if let Some(rest) = composed_remainder(va, vb) {
                out.push(format!(
                    "`{}` \"{va}\" read as \"{rest}\" (it repeats `{}` \"{vb}\")",
                    a.key, b.key
                ));
                let rest = rest.to_string();
                arguments.insert(a.key.clone(), Value::String(rest));
            }
        }
    }
    out
}

/// Leave out each given argument whose description requires another argument of its
/// field ([`TypedArg::requires`]) the call did not give (`issues.in` without
/// `issues.search`: a small model fills an enum it was offered beside a filter it means,
/// and the upstream refuses or reads it otherwise). Says what it left out.
fn drop_unpaired(tool: &TypedTool, arguments: &mut Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for a in &tool.args {
        if a.requires.is_empty() || !arguments.contains_key(&a.key) {
            continue;
        }
        let missing: Vec<String> = a
            .required_keys()
            .into_iter()
            .filter(|k| !arguments.contains_key(k))
            .collect();
        if !missing.is_empty() {
            arguments.remove(&a.key);
            out.push(format!(
                "`{}` left out: its description requires `{}`, which the call did not give",
                a.key,
                missing.join("`, `")
            ));
        }
    }
    out
}

/// Refuse an argument the tool does not take, and a required root argument not given.
fn check_arguments(tool: &TypedTool, arguments: &Map<String, Value>) -> Result<(), ToolError> {
    for k in arguments.keys() {
        if !tool.args.iter().any(|a| &a.key == k) {
            let keys: Vec<&str> = tool.args.iter().map(|a| a.key.as_str()).collect();
            return Err(ToolError::TypedCall(format!(
                "`{}` takes no argument `{k}`; its arguments are: {}",
                tool.name,
                keys.join(", ")
            )));
        }
    }
    for a in tool.args.iter().filter(|a| a.required && a.at.is_empty()) {
        if !arguments.contains_key(&a.key) {
            return Err(ToolError::TypedCall(format!(
                "`{}` needs the argument `{}` ({})",
                tool.name, a.key, a.ty
            )));
        }
    }
    // A lookup's alternatives: one of them (at the root, one is needed).
    let mut groups: Vec<(&str, Vec<&str>, usize)> = Vec::new();
    for a in tool.args.iter().filter(|a| a.alternative) {
        let n = usize::from(arguments.contains_key(&a.key));
        match groups.iter_mut().find(|(at, _, _)| *at == a.at) {
            Some(g) => {
                g.1.push(&a.key);
                g.2 += n;
            }
            None => groups.push((&a.at, vec![&a.key], n)),
        }
    }
    for (at, keys, given) in groups {
        let what = if at.is_empty() {
            tool.name.as_str()
        } else {
            at
        };
        if given > 1 || (at.is_empty() && given == 0) {
            return Err(ToolError::TypedCall(format!(
                "`{what}` finds one thing by one of `{}`: give exactly one of them, the one the question's value is",
                keys.join("`, `")
            )));
        }
    }
    Ok(())
}

/// The selection tree of the field paths asked for (each once), from the root field's
/// type `ret`. A path that needs an argument the call did not give is left out and said
/// in the second value; when every path is left out, the first reason is the error.
fn select_fields(
    schema: &Schema,
    ret: &str,
    tool: &TypedTool,
    asked: &[String],
    arguments: &Map<String, Value>,
) -> Result<(Node, Vec<String>), ToolError> {
    let mut root = Node::default();
    let mut skipped = Vec::new();
    let mut first_err = None;
    let mut fields: Vec<&String> = Vec::new();
    for f in asked {
        if !fields.contains(&f) {
            fields.push(f);
        }
    }
    for text in fields {
        let path = FieldPath::parse(text)
            .map_err(|e| ToolError::FieldPath(format!("field path `{text}`: {e}")))?;
        if !tool.paths.contains(text) {
            walk(schema, ret, &path)
                .map_err(|e| ToolError::FieldPath(format!("field path `{text}`: {e}")))?;
        }
        let mut paths = Vec::new();
        match tool.selects.get(text) {
            Some(leaves) => {
                for l in leaves {
                    let mut q = path.clone();
                    q.steps.push(super::path::Step {
                        field: l.clone(),
                        list: false,
                        on: None,
                    });
                    paths.push(q);
                }
            }
            None => paths.push(path),
        }
        let before = root.clone();
        let inserted = paths
            .iter()
            .try_for_each(|q| insert(schema, ret, q, &mut root, tool, arguments));
        if let Err(e) = inserted {
            root = before;
            skipped.push(e.to_string());
            first_err.get_or_insert(e);
        }
    }
    if root.children.is_empty() {
        if let Some(e) = first_err {
            return Err(e);
        }
    }
    Ok((root, skipped))
}

/// The operation text and its variables: the arguments the selection uses become
/// variables, the root field's own are passed to it.
fn print_operation(
    schema: &Schema,
    ret: &str,
    tool: &TypedTool,
    mut root: Node,
    arguments: &Map<String, Value>,
) -> (String, Map<String, Value>) {
    let mut vars = Map::new();
    let mut defs = Vec::new();
    let mut root_args = Vec::new();
    let mut body = String::new();
    root.print(2, &mut body);
    for a in &tool.args {
        let used = a.at.is_empty() || mentions(&body, &var_name(&a.key));
        if let Some(v) = arguments.get(&a.key).filter(|_| used) {
            vars.insert(var_name(&a.key), v.clone());
            defs.push(format!("${}: {}", var_name(&a.key), a.ty));
            if a.at.is_empty() {
                root_args.push(format!("{}: ${}", a.name, var_name(&a.key)));
            }
        }
    }
    let mut op = String::from("query Typed");
    if !defs.is_empty() {
        op.push_str(&format!("({})", defs.join(", ")));
    }
    op.push_str(" {\n  ");
    op.push_str(&tool.name);
    if !root_args.is_empty() {
        op.push_str(&format!("({})", root_args.join(", ")));
    }
    if path_is_leaf(schema, ret) {
        op.push('\n');
    } else {
        if root.children.is_empty() {
            root.children.push(Node {
                head: "__typename".into(),
                field: "__typename".into(),
                ..Node::default()
            });
        }
        op.push_str(" {\n");
        root.print(2, &mut op);
        op.push_str("  }\n");
    }
    op.push_str("}\n");
    (op, vars)
}

fn path_is_leaf(schema: &Schema, ty: &str) -> bool {
    super::path::is_leaf(schema, ty)
}

/// Add one path to the selection tree, with the arguments given for its fields.
fn insert(
    schema: &Schema,
    ret: &str,
    path: &FieldPath,
    root: &mut Node,
    tool: &TypedTool,
    args: &Map<String, Value>,
) -> Result<(), ToolError> {
    let mut node = root;
    let mut cur = ret.to_string();
    for (i, s) in path.steps.iter().enumerate() {
        if !s.field.is_empty() {
            let def = field_def(schema, &cur, &s.field).ok_or_else(|| {
                ToolError::FieldPath(format!("`{cur}` has no field `{}`", s.field))
            })?;
            let at = path.prefix(i + 1).to_string();
            let idx = match node.child(&s.field, false) {
                Some(i) => i,
                None => {
                    let mut parts: Vec<String> = Vec::new();
                    for a in tool.args.iter().filter(|a| a.at == at) {
                        if args.get(&a.key).is_some_and(given) {
                            parts.push(format!("{}: ${}", a.name, var_name(&a.key)));
                        }
                    }
                    for a in def.arguments.iter() {
                        let given = parts.iter().any(|p| p.starts_with(&format!("{}:", a.name)));
                        if a.ty.is_non_null() && a.default_value.is_none() && !given {
                            // The argument's key in this tool (`pullRequest.number`, or a
                            // longer one when another field of that name took the short).
                            let key = tool
                                .args
                                .iter()
                                .find(|x| x.at == at && x.name == a.name.as_str())
                                .map_or_else(
                                    || format!("{}.{}", s.field, a.name),
                                    |x| x.key.clone(),
                                );
                            return Err(ToolError::FieldPath(format!(
                                "field path `{path}`: `{cur}.{}` needs `{}` ({}); pass it as `{key}`",
                                s.field, a.name, a.ty
                            )));
                        }
                    }
                    let ty = def.ty.inner_named_type().as_str();
                    let pages = def.arguments.iter().any(|a| {
                        a.name == "first" && !a.ty.is_non_null() && a.ty.inner_named_type() == "Int"
                    });
                    if pages
                        && connection_of(schema, ty).is_some()
                        && !parts.iter().any(|p| p.starts_with("first:"))
                    {
                        parts.push(format!("first: {DEFAULT_FIRST}"));
                    }
                    let head = if parts.is_empty() {
                        s.field.clone()
                    } else {
                        format!("{}({})", s.field, parts.join(", "))
                    };
                    node.children.push(Node {
                        head,
                        field: s.field.clone(),
                        ..Node::default()
                    });
                    node.children.len() - 1
                }
            };
            node = &mut node.children[idx];
            cur = def.ty.inner_named_type().to_string();
        }
        if let Some(t) = &s.on {
            let idx = match node.child(t, true) {
                Some(i) => i,
                None => {
                    node.children.push(Node {
                        head: format!("... on {t}"),
                        field: t.clone(),
                        on: true,
                        children: Vec::new(),
                    });
                    node.children.len() - 1
                }
            };
            node = &mut node.children[idx];
            cur = t.clone();
        }
    }
    if !path_is_leaf(schema, &cur) && node.children.is_empty() {
        node.children.push(Node {
            head: "__typename".into(),
            field: "__typename".into(),
            ..Node::default()
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::one_route;

    #[test]
    fn a_second_route_to_the_same_fields_is_left_out() {
        let asked: Vec<String> = [
            "object<Commit>.checkSuites.totalCount",
            "object<Commit>.checkSuites.nodes[]",
            "latestRelease.tagCommit.checkSuites.totalCount",
            "latestRelease.tagCommit.checkSuites.nodes[]",
            "starredRepositories.edges[].node",
            "starredRepositories.nodes[]",
            "team.name",
            "project.name",
            "title",
        ]
        .map(String::from)
        .to_vec();
        let (kept, left) = one_route(&asked);
        assert_eq!(
            kept,
            [
                "object<Commit>.checkSuites.totalCount",
                "object<Commit>.checkSuites.nodes[]",
                "starredRepositories.edges[].node",
                "starredRepositories.nodes[]",
                "team.name",
                "project.name",
                "title"
            ]
        );
        assert_eq!(left.len(), 2);
        assert!(left[0].contains("latestRelease.tagCommit.checkSuites.totalCount"));
        // The same path twice is not a second route.
        let same = vec!["a.b.c".to_string(), "a.b.c".to_string()];
        assert_eq!(one_route(&same).0.len(), 2);
    }
}
