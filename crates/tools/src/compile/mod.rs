//! Compiled tools: one typed tool per root field, with a JSON-Schema input (draft
//! 2020-12) and a bounded default operation that validates against the schema.
//!
//! - [`compile`] turns `Query` fields (and, only when allowed by name, `Mutation` fields)
//!   into [`CompiledTool`]s; subscriptions are detected and not imported.
//! - Enums, input objects and described custom scalars are hoisted into `$defs` shared by
//!   the whole [`ToolSet`] ([`RefMode::Defs`]), or expanded inline to a depth cap
//!   ([`RefMode::Inline`]) for clients that cannot resolve `#/$defs` refs.
//! - [`ToolSet::render`] writes the set for MCP, OpenAI, Anthropic or as one JSON-Schema
//!   document; [`CompiledTool::operation_for`] turns a call's arguments into the operation
//!   and variables that `execute` runs (so compiled tools go through the same policy).

mod format;
mod input;
mod pick;
mod roots;
mod selection;

use std::collections::BTreeMap;

use apollo_compiler::executable::ExecutableDocument;
use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use gqlnav_schema::SchemaGraph;
use serde_json::{Map, Value};

pub use format::ToolFormat;
pub use pick::root_fields_by_reach;
pub use selection::{example_selection, FieldPathError, SelectionLimits};

pub(crate) use input::{closure, first_paragraph, refs_in, InputCompiler, InputStyle};
use roots::{choose_all, choose_selected, Roots};
use selection::{field_count, print, Selector};

/// How named input types are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RefMode {
    /// `{"$ref": "#/$defs/Name"}`, each definition said once.
    #[default]
    Defs,
    /// Expanded in place, input objects to [`CompileOptions::inline_depth`] levels.
    Inline,
}

/// How a nullable input is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NullableMode {
    /// Left out of `required` (the usual JSON-Schema reading).
    #[default]
    Omit,
    /// `anyOf [T, null]` and listed in `required`: the strict tool-mode convention
    /// (OpenAI strict function calling rejects `oneOf` and optional properties); defaults
    /// move into the description.
    AnyOf,
}

/// Which mutations may become tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MutationAllow {
    /// None (the default): mutations are counted, not compiled.
    #[default]
    None,
    /// Every mutation field.
    All,
    /// These mutation fields only.
    Names(Vec<String>),
}

impl MutationAllow {
    /// `all`, or a comma-separated list of mutation field names.
    pub fn parse(s: &str) -> MutationAllow {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return MutationAllow::All;
        }
        MutationAllow::Names(
            s.split(',')
                .map(|x| x.trim().trim_start_matches("Mutation.").to_string())
                .filter(|x| !x.is_empty())
                .collect(),
        )
    }

    fn allows(&self, name: &str) -> bool {
        match self {
            MutationAllow::None => false,
            MutationAllow::All => true,
            MutationAllow::Names(v) => v.iter().any(|n| n == name),
        }
    }
}

/// Most tools compiled without a selection; more root fields than this is an error that
/// says how to choose (`--select`, `--for`) or raise the cap. Of the five WG schemas the
/// widest query root has 148 fields (linear), under it; a 1,000-field root is over.
/// (OpenAI's chat API takes at most 128 tools per request: select for that.)
pub const DEFAULT_MAX_TOOLS: usize = 256;

/// What to compile and how.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// Only these root fields (`name`, `Query.name` or `Mutation.name`), in this order.
    pub select: Option<Vec<String>>,
    /// Mutations that may be compiled (marked destructive).
    pub allow_mutations: MutationAllow,
    /// `$defs` or inline.
    pub refs: RefMode,
    /// Input-object levels expanded by [`RefMode::Inline`] (recursive types stop here).
    pub inline_depth: usize,
    /// How nullable inputs are written.
    pub nullable: NullableMode,
    /// The cap on compiled tools.
    pub max_tools: usize,
    /// Also compile deprecated root fields (left out by default, with a reason).
    pub include_deprecated: bool,
    /// Bounds of the default selections.
    pub selection: SelectionLimits,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            select: None,
            allow_mutations: MutationAllow::None,
            refs: RefMode::Defs,
            inline_depth: 3,
            nullable: NullableMode::Omit,
            max_tools: DEFAULT_MAX_TOOLS,
            include_deprecated: false,
            selection: SelectionLimits::default(),
        }
    }
}

/// Why a tool set could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("the schema has no Query type, so there is nothing to compile (a schema needs `type Query` or a `schema {{ query: … }}` block)")]
    NoQueryType,
    #[error("`{name}` is not a root field{}", suggest_line(.nearest))]
    UnknownRootField { name: String, nearest: Vec<String> },
    #[error("`Mutation.{0}` is a mutation: compile it with --allow-mutations {0} (or all); it will be marked destructive")]
    MutationNotAllowed(String),
    #[error("{count} root fields to compile ({mutations} of them mutations), over the cap of {cap} tools: choose with --select a,b,c or --for \"question\", or raise --max-tools")]
    TooManyRootFields {
        count: usize,
        mutations: usize,
        cap: usize,
    },
}

fn suggest_line(v: &[String]) -> String {
    if v.is_empty() {
        String::new()
    } else {
        format!("; nearest root fields: {}", v.join(", "))
    }
}

/// A root field the compiler left out, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub coordinate: String,
    pub reason: String,
}

/// One tool compiled from one root field.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompiledTool {
    /// Tool name (the root field; `mutation_NAME` when a query field has that name).
    pub name: String,
    /// `Query.repository`.
    pub coordinate: String,
    /// True for a mutation (destructive).
    pub mutation: bool,
    /// What the tool does (the field's description, its return type, how to choose
    /// fields).
    pub description: String,
    /// The input schema; named types as `#/$defs/…` refs in [`RefMode::Defs`].
    pub input_schema: Value,
    /// The `$defs` this tool reaches, in name order.
    pub defs_used: Vec<String>,
    /// The GraphQL return type.
    pub returns: String,
    /// The default operation (arguments as variables).
    pub operation: String,
    /// Fields in the default selection.
    pub selected_fields: usize,
    /// The input property that takes field paths (`fields`, or `_fields` when an argument
    /// already has that name).
    pub fields_property: String,
    /// Variables that carry a compiled default (a connection's page size).
    #[serde(skip)]
    variable_defaults: BTreeMap<String, Value>,
    #[serde(skip)]
    header: OperationHeader,
}

/// The parts of an operation around its selection set.
#[derive(Debug, Clone, Default)]
struct OperationHeader {
    keyword: &'static str,
    name: String,
    variables: String,
    field: String,
    arguments: String,
    return_type: String,
}

impl OperationHeader {
    fn write(&self, body: &str) -> String {
        format!(
            "{} {}{} {{\n  {}{}{}}}\n",
            self.keyword, self.name, self.variables, self.field, self.arguments, body
        )
    }
}

fn body_of(set: &[selection::Sel]) -> String {
    let mut s = String::from(" {\n");
    print(set, 2, &mut s);
    s.push_str("  }\n");
    s
}

impl CompiledTool {
    /// The operation and variables for one call: the call's arguments become variables
    /// (the field-paths property chooses the selection instead of the default).
    pub fn operation_for(
        &self,
        schema: &Schema,
        limits: SelectionLimits,
        args: &Map<String, Value>,
    ) -> Result<(String, Map<String, Value>), FieldPathError> {
        let mut vars = Map::new();
        for (k, v) in args {
            if k != &self.fields_property && !v.is_null() {
                vars.insert(k.clone(), v.clone());
            }
        }
        let op = match args.get(&self.fields_property) {
            Some(Value::Array(paths)) if !paths.is_empty() => {
                let paths: Vec<String> = paths
                    .iter()
                    .map(|p| {
                        p.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| p.to_string())
                    })
                    .collect();
                let sel = Selector { schema, limits };
                let set = sel.paths_set(&self.header.return_type, &paths)?;
                self.header.write(&body_of(&set))
            }
            Some(Value::String(p)) => {
                let sel = Selector { schema, limits };
                let set = sel.paths_set(&self.header.return_type, std::slice::from_ref(p))?;
                self.header.write(&body_of(&set))
            }
            _ => self.operation.clone(),
        };
        Ok((op, vars))
    }

    /// Defaults compiled into the operation's variables (a connection's page size).
    pub fn variable_defaults(&self) -> &BTreeMap<String, Value> {
        &self.variable_defaults
    }
}

/// The compiled tools of one schema.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSet {
    /// Where the schema came from.
    pub source: String,
    /// Query root fields in the schema.
    pub query_fields: usize,
    /// Mutation root fields in the schema (compiled only when allowed).
    pub mutations_found: usize,
    /// Subscription root fields: detected, not imported.
    pub subscriptions_detected: Vec<String>,
    /// The tools, in selection or declaration order.
    pub tools: Vec<CompiledTool>,
    /// Every definition the tools reference (empty in inline mode).
    pub defs: BTreeMap<String, Value>,
    /// Root fields left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// The options' ref mode.
    #[serde(skip)]
    pub refs: RefMode,
    /// The selection bounds used.
    #[serde(skip)]
    pub limits: SelectionLimits,
}

impl ToolSet {
    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&CompiledTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Validate every tool's default operation; returns the failures as (tool, message).
    pub fn validate(&self, schema: &Valid<Schema>) -> Vec<(String, String)> {
        self.tools
            .iter()
            .filter_map(|t| {
                ExecutableDocument::parse_and_validate(schema, &t.operation, "tool.graphql")
                    .err()
                    .map(|e| (t.name.clone(), e.errors.to_string()))
            })
            .collect()
    }
}

fn is_deprecated(f: &FieldDefinition) -> Option<String> {
    let d = f.directives.get("deprecated")?;
    Some(
        d.specified_argument_by_name("reason")
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "deprecated".into()),
    )
}

/// Compile the root fields of `graph` into tools.
pub fn compile(graph: &SchemaGraph, opts: &CompileOptions) -> Result<ToolSet, CompileError> {
    let roots = Roots::read(graph)?;

    // (is_mutation, field) in the order to compile.
    let mut skipped = Vec::new();
    let mut chosen = match &opts.select {
        Some(names) => choose_selected(&roots, names, opts)?,
        None => choose_all(&roots, opts, &mut skipped)?,
    };
    chosen.truncate(opts.max_tools.max(1));

    let (tools, defs) = compile_chosen(&graph.schema, &roots, chosen, opts, &mut skipped);
    Ok(ToolSet {
        source: graph.source.clone(),
        query_fields: roots.queries.len(),
        mutations_found: roots.mutations.len(),
        subscriptions_detected: roots.subscriptions,
        tools,
        defs,
        skipped,
        refs: opts.refs,
        limits: opts.selection,
    })
}

/// Compile the chosen root fields (those a partial schema cannot serve go to
/// `skipped`); returns the tools, each with the `$defs` it uses, and the shared `$defs`.
fn compile_chosen(
    schema: &Schema,
    roots: &Roots,
    chosen: Vec<(bool, &FieldDefinition)>,
    opts: &CompileOptions,
    skipped: &mut Vec<Skipped>,
) -> (Vec<CompiledTool>, BTreeMap<String, Value>) {
    let mut inputs = InputCompiler::new(
        schema,
        InputStyle {
            refs: opts.refs,
            nullable: opts.nullable,
            inline_depth: opts.inline_depth,
        },
    );
    let selector = Selector {
        schema,
        limits: opts.selection,
    };
    let query_names: Vec<&str> = roots.queries.iter().map(|f| f.name.as_str()).collect();
    let mut tools = Vec::new();
    for (is_mut, f) in chosen {
        let root = if is_mut {
            roots.mutation_root.as_str()
        } else {
            roots.query
        };
        let coordinate = format!("{root}.{}", f.name);
        if let Some(m) = inputs.missing_type(&f.arguments) {
            skipped.push(Skipped {
                coordinate,
                reason: format!("argument `{}` uses type `{}`, which the schema does not define (a partial schema)", m.argument, m.ty),
            });
            continue;
        }
        let ret = f.ty.inner_named_type().to_string();
        if !schema.types.contains_key(ret.as_str()) {
            skipped.push(Skipped {
                coordinate,
                reason: format!(
                    "its return type `{ret}` is not defined in the schema (a partial schema)"
                ),
            });
            continue;
        }
        let name = if is_mut && query_names.contains(&f.name.as_str()) {
            format!("mutation_{}", f.name)
        } else {
            f.name.to_string()
        };
        tools.push(compile_one(
            &mut inputs,
            &selector,
            f,
            name,
            coordinate,
            is_mut,
        ));
    }
    let defs = std::mem::take(&mut inputs.defs);
    for t in &mut tools {
        let mut direct = Vec::new();
        input::refs_in(&t.input_schema, &mut direct);
        t.defs_used = input::closure(&defs, &direct);
    }
    (tools, defs)
}

fn compile_one(
    inputs: &mut InputCompiler,
    selector: &Selector,
    f: &FieldDefinition,
    name: String,
    coordinate: String,
    is_mut: bool,
) -> CompiledTool {
    let ret = f.ty.inner_named_type().to_string();
    let is_connection = selector.connection_items(&ret).is_some();
    let defaults = variable_defaults(selector, f, is_connection);
    let mut schema = inputs.arguments(&f.arguments, &defaults);
    let fields_property = if f.arguments.iter().any(|a| a.name == "fields") {
        "_fields"
    } else {
        "fields"
    }
    .to_string();
    let composite = !matches!(
        selector_schema(selector).types.get(ret.as_str()),
        Some(ExtendedType::Scalar(_)) | Some(ExtendedType::Enum(_))
    );
    if composite {
        add_fields_property(inputs, selector, &ret, &fields_property, &mut schema);
    }

    let header = operation_header(f, &name, is_mut, &defaults, &ret);
    let (body, selected) = if composite {
        default_selection(selector, &ret, is_mut)
    } else {
        ("\n".to_string(), 0)
    };
    let operation = header.write(&body);
    let description = tool_description(f, is_connection, is_mut);
    CompiledTool {
        name,
        coordinate,
        mutation: is_mut,
        description,
        input_schema: schema,
        defs_used: Vec::new(),
        returns: f.ty.to_string(),
        operation,
        selected_fields: selected,
        fields_property,
        variable_defaults: defaults,
        header,
    }
}

/// Defaults compiled into the operation's variables: a connection's page size on a
/// nullable `first: Int` without a default of its own.
fn variable_defaults(
    selector: &Selector,
    f: &FieldDefinition,
    is_connection: bool,
) -> BTreeMap<String, Value> {
    let mut defaults = BTreeMap::new();
    if is_connection {
        if let Some(a) = f.arguments.iter().find(|a| {
            a.name == "first"
                && !a.ty.is_non_null()
                && a.default_value.is_none()
                && a.ty.inner_named_type() == "Int"
        }) {
            defaults.insert(
                a.name.to_string(),
                Value::from(selector.limits.default_first),
            );
        }
    }
    defaults
}

/// The input property that takes field paths instead of the default selection.
fn add_fields_property(
    inputs: &InputCompiler,
    selector: &Selector,
    ret: &str,
    fields_property: &str,
    schema: &mut Value,
) {
    let mut p = serde_json::json!({
        "type": "array",
        "items": {"type": "string"},
        "description": format!("Field paths to return instead of the default selection, e.g. [\"{}\"]; `[]` after a list is optional. A path ending on an object returns its default fields.", example_path(selector, ret)),
    });
    if inputs.nullable() == NullableMode::AnyOf {
        p = serde_json::json!({"anyOf": [p, {"type": "null"}]});
        match schema["required"].as_array_mut() {
            Some(r) => r.push(Value::String(fields_property.to_string())),
            None => schema["required"] = serde_json::json!([fields_property.to_string()]),
        }
    }
    schema["properties"][fields_property] = p;
}

/// The operation around the selection: arguments as variables (with compiled defaults).
fn operation_header(
    f: &FieldDefinition,
    name: &str,
    is_mut: bool,
    defaults: &BTreeMap<String, Value>,
    ret: &str,
) -> OperationHeader {
    let variables: Vec<String> = f
        .arguments
        .iter()
        .map(|a| match defaults.get(a.name.as_str()) {
            Some(d) => format!("${}: {} = {d}", a.name, a.ty),
            None => format!("${}: {}", a.name, a.ty),
        })
        .collect();
    let arguments: Vec<String> = f
        .arguments
        .iter()
        .map(|a| format!("{0}: ${0}", a.name))
        .collect();
    OperationHeader {
        keyword: if is_mut { "mutation" } else { "query" },
        name: pascal(name),
        variables: if variables.is_empty() {
            String::new()
        } else {
            format!("({})", variables.join(", "))
        },
        field: f.name.to_string(),
        arguments: if arguments.is_empty() {
            String::new()
        } else {
            format!("({})", arguments.join(", "))
        },
        return_type: ret.to_string(),
    }
}

/// The default selection of a composite return type: its body and field count.
fn default_selection(selector: &Selector, ret: &str, is_mut: bool) -> (String, usize) {
    let mut budget = selector.limits.max_total;
    let mut set = selector.default_set(ret, 1, &mut Vec::new(), &mut budget);
    // A mutation's payload says what changed through its object fields: expand them
    // one level even when the payload has leaves of its own.
    if is_mut && set.iter().all(|s| s.children.is_empty()) {
        let objects = selector.objects(ret, 1, &mut vec![ret.to_string()], &mut budget);
        set.retain(|s| s.head != "__typename" || objects.is_empty());
        set.extend(objects);
    }
    (body_of(&set), field_count(&set))
}

/// What the tool does: the field's description, its return type, deprecation, and
/// whether it changes data.
fn tool_description(f: &FieldDefinition, is_connection: bool, is_mut: bool) -> String {
    let mut description = first_paragraph(f.description.as_deref())
        .unwrap_or_else(|| format!("The `{}` root field.", f.name));
    description.push_str(&format!(" Returns {}", f.ty));
    if is_connection {
        description.push_str(" (a connection: pages of items)");
    }
    description.push('.');
    if let Some(r) = is_deprecated(f) {
        description.push_str(&format!(" Deprecated: {r}."));
    }
    if is_mut {
        description.push_str(" A mutation: it changes data.");
    }
    description
}

fn selector_schema<'a>(s: &'a Selector) -> &'a Schema {
    s.schema
}

/// A field path to show in the `fields` description: through a connection's items to
/// the first leaf, else the first leaf field.
fn example_path(selector: &Selector, ty: &str) -> String {
    let mut path: Vec<String> = Vec::new();
    let mut ty = ty.to_string();
    if let Some((walk, item)) = selector.connection_items(&ty) {
        path.extend(walk.iter().map(|s| s.to_string()));
        ty = item;
    }
    let mut budget = 1;
    let set = selector.default_set(&ty, selector.limits.max_depth, &mut Vec::new(), &mut budget);
    match set
        .iter()
        .find(|s| s.children.is_empty() && s.head != "__typename")
    {
        Some(leaf) => path.push(leaf.head.clone()),
        None if path.is_empty() => path.push("__typename".into()),
        None => {}
    }
    path.join(".")
}

fn pascal(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}
