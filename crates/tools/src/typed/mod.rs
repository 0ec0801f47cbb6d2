//! Typed tools for a question: a small model picks a tool, fills typed arguments and
//! chooses field paths from an enum; gqlnav writes, validates and runs the operation.
//! A model that never writes GraphQL cannot write invalid GraphQL.
//!
//! - [`Toolbox::typed_tools`] ranks the schema for the question and keeps up to
//!   [`TypedOptions::tools`] root fields (those the top hits' root paths start with), each
//!   with the field paths that lead to the ranked hits (connections unwrapped to
//!   `nodes[]`, abstract types read through `<Type>`, an object hit expanded to its
//!   leaves), at most [`TypedOptions::paths`] per tool.
//! - Arguments: the root field's, and those of the fields on the offered paths
//!   (`issues.states`), paging cursors left out; enums and input objects as `$defs`.
//! - [`TypedToolSet::fit_answer`] and [`TypedToolSet::answer_paths`] fit the set to the
//!   task's answer schema: tools that hold its keys first, a call completed with them.
//! - [`TypedToolSet::action_schema`] is the JSON Schema each model turn is constrained
//!   by; [`TypedToolSet::operation`] turns a call into an operation and its variables;
//!   [`render_data`] shows the result compactly; [`mapping_schema`] and [`assemble`] let
//!   the answer be given by paths of the data, gqlnav copying the values.

mod answer;
mod choose;
mod fit;
mod path;
mod render;
mod values;
mod write;

use std::collections::BTreeMap;

use apollo_compiler::schema::FieldDefinition;
use apollo_compiler::Schema;
use gqlnav_schema::RootKind;
use gqlnav_search::Query;
use serde_json::{json, Map, Value};

pub use answer::{assemble, mapping_schema, path_view};
pub use path::{FieldPath, Step};
pub use render::render_data;
pub use write::{composed_remainder, TypedCall, Written};

use crate::compile::{InputCompiler, InputStyle, NullableMode, RefMode};
use crate::error::ToolError;
use crate::toolbox::Toolbox;
use choose::{Builder, Entry};
use path::field_def;
use values::{can_fill, gives_an_argument, named_root, names_a_value};

/// Bounds of a typed tool set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypedOptions {
    /// Root fields offered as tools.
    pub tools: usize,
    /// Field paths offered per tool.
    pub paths: usize,
    /// Ranked hits read.
    pub hits: usize,
    /// Most field steps in a path.
    pub depth: usize,
    /// Leaf fields an object path selects.
    pub leaves: usize,
    /// Offer optional input-object arguments (filters, orderings) the question says a
    /// field of. Off by default: 9 reachable dev questions, Qwen2.5-Coder-1.5B answered 2
    /// with them offered (it filled a filter in 5 of the 9 calls, with values the question
    /// never gave) and 4 without; off, `bench --mode typed` answers dev 53.4% (on: 58.7%)
    /// and held out 22.5% (on: 26.7%), docs/agent.md.
    pub filters: bool,
}

/// Defaults from `gqlnav bench --mode typed` over the 206 dev questions (docs/agent.md):
/// 3 tools × 12 paths × 8 leaves reach 44.7% of the gold calls in 1,666 tool-description
/// tokens; 24 paths reach 48.5% for 3,109 tokens, 2 tools 40.3%. 12 leaves reach 48.1%
/// (held out 25.8% against 25.0%) but left the 1.5B model's answers where they were
/// (dev 1/24, held out 3/24) for 28% / 18% longer prompts (docs/agent.md).
impl Default for TypedOptions {
    fn default() -> Self {
        TypedOptions {
            tools: 3,
            paths: 12,
            hits: 60,
            depth: 6,
            leaves: 8,
            filters: false,
        }
    }
}

/// Most branches of a tool's `arguments` schema (one per choice among its lookups'
/// alternative arguments); a GitHub repository tool with `object(expression:, oid:)` has 3.
const MAX_BRANCHES: usize = 16;

/// The choices a tool's lookups give, one list per field that has alternatives: at the
/// root one of them; below it none (the call may not read that field) or one.
fn alternatives(t: &TypedTool) -> Vec<Vec<Vec<&TypedArg>>> {
    let mut groups: BTreeMap<&str, Vec<&TypedArg>> = BTreeMap::new();
    for a in t.args.iter().filter(|a| a.alternative) {
        groups.entry(a.at.as_str()).or_default().push(a);
    }
    groups
        .into_iter()
        .map(|(at, alts)| {
            let mut c: Vec<Vec<&TypedArg>> = alts.into_iter().map(|a| vec![a]).collect();
            if !at.is_empty() {
                c.push(Vec::new());
            }
            c
        })
        .collect()
}

/// Most field paths in one call: a small model that starts repeating one path fills every
/// slot it is given (1.5B, docs/agent.md), and four paths hold what a question asks.
const MAX_FIELDS: usize = 4;

/// One argument of a typed tool.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypedArg {
    /// The property name: the argument's name at the root, `field.arg` below it.
    pub key: String,
    /// The path of the field that takes it (empty: the root field).
    pub at: String,
    /// The argument's name on that field.
    pub name: String,
    /// Its GraphQL type.
    pub ty: String,
    /// Required on its field (for a nested field: when a path through it is chosen).
    pub required: bool,
    /// One of a lookup's arguments ([`is_lookup`]): a call gives one of those of its field
    /// (at the root exactly one, below it at most one).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub alternative: bool,
    /// Its JSON Schema (named types as `#/$defs/…`).
    pub schema: Value,
    /// The example values its description gives (`1` for an `iid`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// The example values its custom scalar's description gives: the form of every value
    /// of its type (`gid://gitlab/Issue/1`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub format: Vec<String>,
    /// The other arguments of its field its description says it requires (GitLab's
    /// `in`: "Requires the `search` argument."): without them it is left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
}

impl TypedArg {
    /// The keys of the arguments it requires ([`TypedArg::requires`]): its own key with
    /// its name replaced (`issues.in` → `issues.search`).
    pub(crate) fn required_keys(&self) -> Vec<String> {
        let prefix = self.key.strip_suffix(self.name.as_str()).unwrap_or("");
        self.requires
            .iter()
            .map(|n| format!("{prefix}{n}"))
            .collect()
    }
}

/// One typed tool: a root field, its arguments and the field paths it offers.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypedTool {
    /// The root field's name.
    pub name: String,
    /// `Query.repository`.
    pub coordinate: String,
    /// The field's description, first paragraph.
    pub description: String,
    /// The root field's return type.
    pub returns: String,
    /// The type of what it reads (a connection's or list's items), and whether many.
    pub item: String,
    pub many: bool,
    pub args: Vec<TypedArg>,
    /// Selectable field paths, most relevant first (empty for a leaf root field). A path
    /// that ends on an object selects the fields [`TypedTool::selects`] lists for it.
    pub paths: Vec<String>,
    /// For each object path: the leaf fields it selects.
    pub selects: BTreeMap<String, Vec<String>>,
}

/// The typed tools of one question.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypedToolSet {
    /// The operation root's type name.
    pub root_type: String,
    pub tools: Vec<TypedTool>,
    /// Shared definitions (enums, input objects) the arguments refer to.
    pub defs: BTreeMap<String, Value>,
    /// What was left out to stay within the bounds (said to the model's receipt).
    pub cut: Vec<String>,
}

/// The arguments of a root field and of the fields on `paths` (JSON Schemas through
/// `inputs`).
fn tool_args(
    schema: &Schema,
    root: &FieldDefinition,
    paths: &[FieldPath],
    inputs: &mut InputCompiler,
    question: &[String],
    filters: bool,
) -> Vec<TypedArg> {
    let mut args = Vec::new();
    let none = BTreeMap::new();
    let add = |at: &str,
               key: String,
               f: &FieldDefinition,
               inputs: &mut InputCompiler,
               args: &mut Vec<TypedArg>| {
        let lookup = is_lookup(schema, f);
        for a in &f.arguments {
            let required = a.ty.is_non_null() && a.default_value.is_none();
            let alternative = lookup && names_one(schema, a);
            let values = if required || alternative {
                Offer::All
            } else {
                offer(schema, a, question, filters)
            };
            if values == Offer::No {
                continue;
            }
            let k = if key.is_empty() {
                a.name.to_string()
            } else {
                format!("{key}.{}", a.name)
            };
            if args.iter().any(|x: &TypedArg| x.key == k) {
                continue;
            }
            let (examples, format) = values::argument_examples(schema, a);
            let requires = values::required_siblings(f, a);
            let s = inputs.arguments(std::slice::from_ref(a), &none);
            let mut schema = s["properties"][a.name.as_str()].clone();
            if let Offer::Values(v) = values {
                schema = enum_schema(&a.ty, v);
            }
            args.push(TypedArg {
                key: k,
                at: at.to_string(),
                name: a.name.to_string(),
                ty: a.ty.to_string(),
                required,
                alternative,
                schema,
                examples,
                format,
                requires,
            });
        }
        // An argument that needs another its field was not offered cannot be given well.
        let offered: Vec<String> = args.iter().map(|x| x.key.clone()).collect();
        args.retain(|x| x.required_keys().iter().all(|k| offered.contains(k)));
    };
    add("", String::new(), root, inputs, &mut args);
    let ret = root.ty.inner_named_type().to_string();
    let mut owners: BTreeMap<String, String> = BTreeMap::new();
    for p in paths {
        let mut cur = ret.clone();
        for (i, s) in p.steps.iter().enumerate() {
            if !s.field.is_empty() {
                let Some(def) = field_def(schema, &cur, &s.field) else {
                    break;
                };
                if !def.arguments.is_empty() {
                    let at = p.prefix(i + 1).to_string();
                    // The short key (`issues`) unless another field already took it.
                    let key = match owners.get(&s.field) {
                        Some(other) if *other != at => {
                            at.replace("[]", "").replace(['<', '>'], "_")
                        }
                        _ => s.field.clone(),
                    };
                    owners.entry(s.field.clone()).or_insert_with(|| at.clone());
                    add(&at, key, def, inputs, &mut args);
                }
                cur = def.ty.inner_named_type().to_string();
            }
            if let Some(t) = &s.on {
                cur = t.clone();
            }
        }
    }
    args
}

/// Whether (and with which values) an optional argument is offered. A small model fills
/// every optional argument it is offered, and an invented filter changes the data (1.5B,
/// docs/agent.md), so an optional argument is offered only for what the question says:
/// - an enum (or a list of one): the values of which the question says a word (`open` →
///   `OPEN`; `released` → `RELEASED_AT_ASC`, `RELEASED_AT_DESC`), only those;
/// - a Boolean flag: every word of its name (`includeArchived`: "include", "archived");
/// - an input object (a filter, an ordering): only with [`TypedOptions::filters`], then
///   when the question says a word of its name, or of a field or value of it;
/// - anything else: a word of its name;
/// - never the paging arguments: gqlnav writes the page size.
fn offer(
    schema: &Schema,
    a: &apollo_compiler::ast::InputValueDefinition,
    question: &[String],
    filters: bool,
) -> Offer {
    use apollo_compiler::schema::ExtendedType;
    if PAGING.contains(&a.name.as_str()) {
        return Offer::No;
    }
    let close = |w: &str| said(question, w);
    let ty = a.ty.inner_named_type().as_str();
    match schema.types.get(ty) {
        Some(ExtendedType::Enum(e)) => {
            let said: Vec<String> = e
                .values
                .keys()
                .filter(|v| {
                    let w: Vec<String> = v
                        .as_str()
                        .split('_')
                        .map(str::to_lowercase)
                        .filter(|w| w.len() >= 3)
                        .collect();
                    w.iter().any(|w| close(w))
                })
                .map(|v| v.to_string())
                .collect();
            if said.is_empty() {
                Offer::No
            } else {
                Offer::Values(said)
            }
        }
        Some(ExtendedType::Scalar(_)) if ty == "Boolean" => {
            let w: Vec<String> = words(&a.name)
                .into_iter()
                .filter(|w| w.len() >= 3)
                .collect();
            if !w.is_empty() && w.iter().all(|w| close(w)) {
                Offer::All
            } else {
                Offer::No
            }
        }
        Some(ExtendedType::InputObject(_)) if !filters => Offer::No,
        _ if words(&a.name).iter().any(|w| close(w)) || type_said(schema, ty, &close, 2) => {
            Offer::All
        }
        _ => Offer::No,
    }
}

/// A lookup: a field that returns one object (not a list, not a connection) and whose
/// arguments are all optional (`seller(id: ID, slug: String)`, `issue(iid: String)`,
/// `object(expression: String, oid: …)`). Read without an argument it finds nothing, so
/// the question names the thing by a value that goes into one of them, and the question
/// rarely says the argument's name ("the seller \"acme-outfitters\"", "issue #4521").
fn is_lookup(schema: &Schema, f: &FieldDefinition) -> bool {
    let ty = f.ty.inner_named_type().as_str();
    !f.arguments.is_empty()
        && !f.ty.is_list()
        && !path::is_leaf(schema, ty)
        && gqlnav_schema::connection_of(schema, ty).is_none()
        && !gqlnav_schema::has_required_args(f)
}

/// An argument a lookup's value can go into: a scalar other than a Boolean, not paging.
fn names_one(schema: &Schema, a: &apollo_compiler::ast::InputValueDefinition) -> bool {
    let ty = a.ty.inner_named_type().as_str();
    !PAGING.contains(&a.name.as_str())
        && !a.ty.is_list()
        && ty != "Boolean"
        && matches!(
            schema.types.get(ty),
            Some(apollo_compiler::schema::ExtendedType::Scalar(_))
        )
}

/// What of an optional argument a tool offers.
#[derive(Debug, PartialEq)]
enum Offer {
    No,
    All,
    /// An enum argument with only these values.
    Values(Vec<String>),
}

/// Arguments gqlnav writes itself: the page size (`first`, [`write`]'s default) and the
/// cursors; a tool reads one page.
const PAGING: [&str; 4] = ["first", "last", "after", "before"];

/// The schema of an enum argument restricted to `values` (a list type: an array of them).
fn enum_schema(ty: &apollo_compiler::ast::Type, values: Vec<String>) -> Value {
    if ty.is_list() {
        json!({"type": "array", "items": {"enum": values}, "minItems": 1})
    } else {
        json!({"enum": values})
    }
}

/// Whether the question says a value of an enum, or (`depth` levels down) a field name
/// or value of an input object.
fn type_said(schema: &Schema, ty: &str, close: &dyn Fn(&str) -> bool, depth: usize) -> bool {
    use apollo_compiler::schema::ExtendedType;
    match schema.types.get(ty) {
        Some(ExtendedType::Enum(e)) => e
            .values
            .keys()
            .any(|v| v.as_str().split('_').any(|w| close(&w.to_lowercase()))),
        Some(ExtendedType::InputObject(o)) if depth > 0 => o.fields.values().any(|f| {
            // `and` / `or` of the filter itself say nothing of what it filters.
            f.ty.inner_named_type() != ty
                && (words(&f.name).iter().any(|w| close(w))
                    || type_said(schema, f.ty.inner_named_type().as_str(), close, depth - 1))
        }),
        _ => false,
    }
}

/// Narrow an argument's input object (a filter) to the fields the question says: a word
/// of the field's name, or of a value or field of its type (the objects below those keep
/// their fields: `status: {type: {eq}}`). A filter the question says nothing of keeps its
/// fields. A field of an input object's own type (`and`, `or`, `not`) is never offered:
/// one level of conditions. The 1.5B model wrote a filter's every field, and nested
/// `and`/`or` until its reply was cut (docs/agent.md). Required fields stay.
fn prune_inputs(
    schema: &Schema,
    defs: &mut BTreeMap<String, Value>,
    arg_types: &[String],
    question: &[String],
) {
    use apollo_compiler::schema::ExtendedType;
    let close = |w: &str| said(question, w);
    for (name, def) in defs.iter_mut() {
        let Some(ExtendedType::InputObject(io)) = schema.types.get(name.as_str()) else {
            continue;
        };
        let required = |f: &apollo_compiler::ast::InputValueDefinition| {
            f.ty.is_non_null() && f.default_value.is_none()
        };
        let open: Vec<&str> = io
            .fields
            .values()
            .filter(|f| required(f) || f.ty.inner_named_type() != name.as_str())
            .map(|f| f.name.as_str())
            .collect();
        let said: Vec<&str> = io
            .fields
            .values()
            .filter(|f| open.contains(&f.name.as_str()))
            .filter(|f| {
                required(f)
                    || words(&f.name).iter().any(|w| close(w))
                    || type_said(schema, f.ty.inner_named_type().as_str(), &close, 1)
            })
            .map(|f| f.name.as_str())
            .collect();
        let top = arg_types.iter().any(|t| t == name);
        let keep = if top && said.iter().any(|n| !required(&io.fields[*n])) {
            said
        } else {
            open
        };
        if let Some(props) = def.get_mut("properties").and_then(Value::as_object_mut) {
            props.retain(|k, _| keep.contains(&k.as_str()));
        }
    }
}

/// The tools: up to `k` root fields by the hits' summed scores, the caller's root first
/// for a question addressed to the caller, then each one's twin.
fn choose_roots(
    b: &Builder,
    graph: &gqlnav_schema::SchemaGraph,
    question: &str,
    k: usize,
) -> Vec<String> {
    let ranked = b.roots();
    let mut roots: Vec<String> = Vec::new();
    let usable = b.schema.get_object(&b.root_type).into_iter().flat_map(|o| {
        o.fields
            .values()
            .filter(|f| !f.directives.has("deprecated"))
            .map(|f| f.name.as_str())
    });
    if let Some(named) = named_root(question, usable) {
        roots.push(named.to_string());
    }
    if gqlnav_search::addresses_caller(graph, question) {
        let callers: Vec<String> = gqlnav_search::caller_roots(graph)
            .into_iter()
            .filter_map(|(c, _)| c.split_once('.').map(|(_, f)| f.to_string()))
            .collect();
        if let Some(c) = ranked
            .iter()
            .find(|r| callers.contains(r) && !roots.contains(r))
        {
            roots.push(c.clone());
        }
    }
    for r in &ranked {
        if roots.len() >= k {
            break;
        }
        if !roots.contains(r) {
            roots.push(r.clone());
        }
    }
    for r in roots.clone() {
        if let Some(t) = b.twins(&r).into_iter().find(|t| !roots.contains(t)) {
            roots.push(t);
        }
    }
    roots
}

impl Toolbox {
    /// The typed tools for `question` ([`TypedOptions`] bounds them). Empty when no
    /// ranked hit leads to a usable query root field.
    pub fn typed_tools(
        &self,
        question: &str,
        opts: &TypedOptions,
    ) -> Result<TypedToolSet, ToolError> {
        self.typed_tools_for(question, opts, None)
    }

    /// [`Toolbox::typed_tools`] for a task whose answer must match the JSON Schema
    /// `answer`: an object path selects the leaves its keys name first (`priority` in
    /// `assignedIssues.nodes[] {…}` when the answer lists issues with a `priority`), and the
    /// set is ordered by [`TypedToolSet::fit_answer`].
    pub fn typed_tools_for(
        &self,
        question: &str,
        opts: &TypedOptions,
        answer: Option<&Value>,
    ) -> Result<TypedToolSet, ToolError> {
        crate::search::check_query(question)?;
        let generation = self.generation();
        let graph = &generation.graph;
        let schema: &Schema = &graph.schema;
        let root_type = graph
            .root(RootKind::Query)
            .ok_or(ToolError::NoQueryRoot)?
            .to_string();
        let scored = generation
            .backend
            .search(&Query::new(question), opts.hits)
            .map_err(|e| ToolError::Search(e.to_string()))?;
        let hits = generation.ctx.hits(&scored, 3);
        let b = Builder {
            schema,
            root_type: root_type.clone(),
            opts: *opts,
            hits: &hits,
            wants: answer.map(fit::wants).unwrap_or_default(),
            objects: answer.map(fit::object_wants).unwrap_or_default(),
        };
        let mut inputs = InputCompiler::new(
            schema,
            InputStyle {
                refs: RefMode::Defs,
                nullable: NullableMode::Omit,
                inline_depth: 3,
            },
        );
        let question_words: Vec<String> = question
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut tools = Vec::new();
        let mut cut = Vec::new();
        let roots = choose_roots(&b, graph, question, opts.tools);
        let ranked = b.roots();
        let left = ranked.iter().filter(|r| !roots.contains(r)).count();
        if left > 0 {
            cut.push(format!("{left} more root fields ranked lower"));
        }
        for root in roots {
            let Some(def) = field_def(schema, &root_type, &root) else {
                continue;
            };
            let (entries, dropped) = b.entries(&root);
            if dropped > 0 {
                cut.push(format!("{root}: {dropped} more field paths ranked lower"));
            }
            let paths: Vec<FieldPath> = entries.iter().map(|e| e.path().clone()).collect();
            let selects = entries
                .iter()
                .filter_map(|e| match e {
                    Entry::Object { path, leaves, .. } => Some((path.to_string(), leaves.clone())),
                    Entry::Leaf(_) => None,
                })
                .collect();
            let mut args = tool_args(
                schema,
                def,
                &paths,
                &mut inputs,
                &question_words,
                opts.filters,
            );
            values::order_alternatives(&mut args, question);
            let (item, many) = b.reads(def);
            tools.push(TypedTool {
                item,
                many,
                name: root.clone(),
                coordinate: format!("{root_type}.{root}"),
                description: crate::compile::first_paragraph(def.description.as_deref())
                    .unwrap_or_else(|| format!("The `{root}` root field.")),
                returns: def.ty.to_string(),
                args,
                paths: paths.iter().map(FieldPath::to_string).collect(),
                selects,
            });
        }
        let mut defs = std::mem::take(&mut inputs.defs);
        let arg_types: Vec<String> = tools
            .iter()
            .flat_map(|t| t.args.iter())
            .map(|a| {
                a.ty.trim_matches(|c| c == '[' || c == ']' || c == '!')
                    .to_string()
            })
            .collect();
        prune_inputs(schema, &mut defs, &arg_types, &question_words);
        let mut set = TypedToolSet {
            root_type,
            tools,
            defs,
            cut,
        };
        if let Some(a) = answer {
            set.fit_answer(a);
        }
        Ok(set)
    }
}

impl TypedToolSet {
    /// The tool named `name`.
    /// The tools a menu for `question` offers: when the question names one thing by a
    /// quoted value or a number ([`names_a_value`]), those that read one thing (if any);
    /// else all. Of the bundled questions with an answer schema that quote a value, the
    /// gold operation reads one thing in 22 of 24 (dev) and 31 of 34 (held out); the
    /// 1.5B model chose a list tool for `the issue with id 'issue-eng-1023'` and `the
    /// "running-shoes" category` with the lookup first in its menu (docs/agent.md).
    ///
    /// A tool the question names right before a value ([`named_root`]: "for product
    /// \"UHJ…\"") is the menu alone. A lookup the question cannot fill ([`can_fill`]: its
    /// value's examples have a shape no value of the question has) is left out, unless
    /// every tool is such a lookup.
    pub fn menu_tools(&self, question: &str) -> Vec<&TypedTool> {
        if let Some(t) = named_root(question, self.tools.iter().map(|t| t.name.as_str()))
            .and_then(|n| self.get(n))
        {
            return vec![t];
        }
        let mut tools: Vec<&TypedTool> = self
            .tools
            .iter()
            .filter(|t| can_fill(&t.args, question))
            .collect();
        if tools.is_empty() {
            tools = self.tools.iter().collect();
        }
        let one: Vec<&TypedTool> = tools.iter().copied().filter(|t| !t.many).collect();
        let arguments: Vec<&str> = one
            .iter()
            .flat_map(|t| t.args.iter().filter(|a| a.at.is_empty()))
            .map(|a| a.name.as_str())
            .collect();
        let named = names_a_value(question) || gives_an_argument(question, &arguments);
        if named && !one.is_empty() {
            one
        } else {
            tools
        }
    }

    pub fn get(&self, name: &str) -> Option<&TypedTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The `arguments` object schema of one tool. A lookup's arguments are alternatives
    /// (`seller(id:, slug:)`): one branch per choice of one of them (at the root one is
    /// required), so the grammar lets a model write only one; a small model given them
    /// all as optional wrote the same value into each (`object(expression: "HEAD", oid:
    /// "HEAD")`). Beyond [`MAX_BRANCHES`] choices they are all plainly optional.
    pub fn arguments_schema(&self, t: &TypedTool) -> Value {
        // `chosen`: the alternatives of this branch (a root one is then required).
        let object = |args: &[&TypedArg], chosen: bool| {
            let mut props = Map::new();
            let mut required = Vec::new();
            for a in args {
                props.insert(a.key.clone(), a.schema.clone());
                if a.at.is_empty() && (a.required || chosen && a.alternative) {
                    required.push(Value::String(a.key.clone()));
                }
            }
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
        };
        let choices = alternatives(t);
        let branches: usize = choices.iter().map(Vec::len).product();
        if choices.is_empty() || branches > MAX_BRANCHES {
            let all: Vec<&TypedArg> = t.args.iter().collect();
            return object(&all, false);
        }
        let base: Vec<&TypedArg> = t.args.iter().filter(|a| !a.alternative).collect();
        let mut combos: Vec<Vec<&TypedArg>> = vec![Vec::new()];
        for group in &choices {
            combos = combos
                .iter()
                .flat_map(|c| {
                    group.iter().map(move |g| {
                        let mut c = c.clone();
                        c.extend(g.iter().copied());
                        c
                    })
                })
                .collect();
        }
        let branches: Vec<Value> = combos
            .into_iter()
            .map(|c| {
                let mut args = base.clone();
                args.extend(c);
                args.sort_by(|a, b| a.key.cmp(&b.key));
                object(&args, true)
            })
            .collect();
        json!({"anyOf": branches})
    }

    /// The schema of one argument of `t` (`None`: not offered).
    pub fn argument_schema<'t>(&self, t: &'t TypedTool, key: &str) -> Option<&'t Value> {
        t.args.iter().find(|a| a.key == key).map(|a| &a.schema)
    }

    /// The JSON Schema of one model turn: `anyOf` one branch per tool (`action` the
    /// tool's name as a const, its arguments, `fields` from its path enum) and, when
    /// `answer` is given, an `answer` branch with that schema first. `$defs` are shared
    /// at the top. The keys sort in the order a model should write them (`action`,
    /// `answer` / `arguments`, `fields`): a JSON object's keys reach the back end sorted,
    /// and its grammar follows that order, so the tool is chosen before its arguments.
    pub fn action_schema(&self, answer: Option<&Value>, tools: bool) -> Value {
        let mut branches = Vec::new();
        if let Some(a) = answer {
            branches.push(json!({
                "type": "object",
                "properties": {"action": {"const": "answer"}, "answer": a},
                "required": ["action", "answer"],
                "additionalProperties": false
            }));
        }
        if tools {
            for t in &self.tools {
                let mut props = Map::new();
                props.insert("action".into(), json!({"const": t.name}));
                props.insert("arguments".into(), self.arguments_schema(t));
                let mut required = vec![json!("action"), json!("arguments")];
                if !t.paths.is_empty() {
                    props.insert(
                        "fields".into(),
                        json!({"type": "array", "items": {"enum": t.paths}, "minItems": 1, "maxItems": MAX_FIELDS, "uniqueItems": true}),
                    );
                    required.push(json!("fields"));
                }
                branches.push(json!({"type": "object", "properties": props, "required": required, "additionalProperties": false}));
            }
        }
        let mut out = json!({"anyOf": branches});
        let mut used = Vec::new();
        crate::compile::refs_in(&out, &mut used);
        let names = crate::compile::closure(&self.defs, &used);
        if !names.is_empty() {
            let defs: Map<String, Value> = names
                .iter()
                .filter_map(|n| self.defs.get(n).map(|d| (n.clone(), d.clone())))
                .collect();
            out["$defs"] = Value::Object(defs);
        }
        out
    }
}

/// Two words name the same thing: equal, or one starts the other and both have at least
/// four letters (`team` ~ `teams`, `release` ~ `released`).
pub(crate) fn close(a: &str, b: &str) -> bool {
    a == b || (a.len().min(b.len()) >= 4 && (a.starts_with(b) || b.starts_with(a)))
}

/// The question says the word `w` (of three letters or more).
fn said(question: &[String], w: &str) -> bool {
    w.len() >= 3 && question.iter().any(|q| close(q, w))
}

/// Lowercase words of an identifier (`searchIssues` → search, issues).
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in name.chars() {
        if (c.is_uppercase() || c == '_') && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if c != '_' {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
