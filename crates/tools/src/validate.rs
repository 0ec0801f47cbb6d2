//! `validate`: parse and validate an operation against the schema, with compact errors
//! (message, location, did-you-mean, what to introspect) and the execution policy's
//! verdict.

use apollo_compiler::executable::{ExecutableDocument, OperationType};
use apollo_compiler::response::serde_json_bytes;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use gqlnav_schema::SchemaGraph;
use serde_json::{json, Value};

use crate::cost::{parse_and_check, Cost, CostLimits};
use crate::error::ToolError;
use crate::introspect::suggest;
use crate::output::ToolOutput;
use crate::policy::ExecPolicy;
use crate::toolbox::Toolbox;

/// One compacted validation problem.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactError {
    /// The message, useful part first.
    pub message: String,
    /// `line:column` in the operation text, when known.
    pub location: Option<String>,
    /// Existing coordinates close to the bad one.
    pub did_you_mean: Vec<String>,
    /// Types worth introspecting to fix it.
    pub introspect: Vec<String>,
    /// The concrete change that fixes it, when one is known (the selection a field of
    /// object type needs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl CompactError {
    /// One line: `message (at L:C) — did you mean …? introspect …`.
    pub fn line(&self) -> String {
        let mut s = self.message.clone();
        if let Some(l) = &self.location {
            s.push_str(&format!(" (at {l})"));
        }
        if !self.did_you_mean.is_empty() {
            s.push_str(&format!(
                " — did you mean {}?",
                self.did_you_mean.join(", ")
            ));
        }
        if let Some(f) = &self.fix {
            s.push_str(&format!(" Fix: {f}."));
        }
        if !self.introspect.is_empty() {
            s.push_str(&format!(" Introspect {}.", self.introspect.join(", ")));
        }
        s
    }

    fn plain(message: impl Into<String>) -> Self {
        CompactError {
            message: message.into(),
            location: None,
            did_you_mean: Vec::new(),
            introspect: Vec::new(),
            fix: None,
        }
    }
}

fn backticked(msg: &str) -> Vec<String> {
    msg.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

fn arg_suggestions(graph: &SchemaGraph, field_coord: &str, bad: &str) -> Vec<String> {
    let Some((ty, field)) = field_coord.split_once('.') else {
        return Vec::new();
    };
    let f = match graph.schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => o.fields.get(field),
        Some(ExtendedType::Interface(o)) => o.fields.get(field),
        _ => None,
    };
    let Some(f) = f else { return Vec::new() };
    let mut v: Vec<(usize, String)> = f
        .arguments
        .iter()
        .map(|a| {
            (
                gqlnav_schema::edit_distance(
                    &bad.to_ascii_lowercase(),
                    &a.name.to_ascii_lowercase(),
                ),
                format!("{ty}.{field}({}:)", a.name),
            )
        })
        .collect();
    v.sort();
    v.into_iter()
        .filter(|(d, _)| *d <= (bad.len() / 2).max(3))
        .take(3)
        .map(|x| x.1)
        .collect()
}

/// The fix for a field of composite type selected without fields: apollo's report label
/// (`` `T.f` is an object type `R` and must select fields ``) names the field and its
/// type, and the fix is a small valid selection of that type (a connection's
/// `nodes { … } pageInfo { … }`), which small models otherwise never find: the WG
/// baseline's 1.5B model resent a connection without `nodes` until its turns ran out.
fn subselection_fix(graph: &SchemaGraph, report: &str) -> Option<(String, String)> {
    let label = report.lines().find(|l| l.contains("must select fields"))?;
    let ticks = backticked(label);
    let (coord, ty) = (ticks.first()?, ticks.get(1)?);
    let field = coord.rsplit('.').next().unwrap_or(coord);
    let set = crate::compile::example_selection(&graph.schema, ty)?;
    Some((
        ty.clone(),
        format!("`{coord}` returns `{ty}`, so select its fields, e.g. `{field} {set}`"),
    ))
}

/// Turn an apollo-compiler message into a compact error with suggestions. `report` is
/// the diagnostic's full text (its labels name what the message leaves out), when known.
pub fn compact_error(
    graph: &SchemaGraph,
    message: &str,
    location: Option<String>,
    report: Option<&str>,
) -> CompactError {
    let ticks = backticked(message);
    let mut did_you_mean = Vec::new();
    let mut introspect = Vec::new();
    let mut fix = None;
    let msg = message.trim().trim_end_matches('.').to_string();
    if msg.contains("does not have a field") && ticks.len() >= 2 {
        // type `T` does not have a field `f`
        let (t, f) = (&ticks[0], &ticks[1]);
        did_you_mean = suggest(graph, &format!("{t}.{f}"), 3);
        introspect.push(t.clone());
    } else if msg.contains("is not supported by") && ticks.len() >= 2 {
        // the argument `a` is not supported by `T.f`
        did_you_mean = arg_suggestions(graph, &ticks[1], &ticks[0]);
        introspect.push(ticks[1].clone());
    } else if msg.starts_with("cannot find type") && !ticks.is_empty() {
        did_you_mean = suggest(graph, &ticks[0], 3);
    } else if (msg.contains("does not exist on")) && ticks.len() >= 2 {
        // value `V` does not exist on `Enum` / field `f` does not exist on `Input`
        did_you_mean = suggest(graph, &format!("{}.{}", ticks[1], ticks[0]), 3);
        introspect.push(ticks[1].clone());
    } else if msg.contains("required argument") && !ticks.is_empty() {
        if let Some((owner, _)) = ticks[0].split_once('(') {
            introspect.push(owner.to_string());
        }
    } else if msg.contains("must have a subselection set") || msg.contains("subselection") {
        for t in &ticks {
            if graph.schema.types.contains_key(t.as_str()) {
                introspect.push(t.clone());
            }
        }
        if let Some((ty, f)) = report.and_then(|r| subselection_fix(graph, r)) {
            if !introspect.contains(&ty) {
                introspect.push(ty);
            }
            fix = Some(f);
        }
    }
    CompactError {
        message: msg,
        location,
        did_you_mean,
        introspect,
        fix,
    }
}

/// What a parsed, validated operation is.
#[derive(Debug, Clone)]
pub struct OpInfo {
    /// query / mutation / subscription.
    pub kind: OperationType,
    /// Operation name, if any.
    pub name: Option<String>,
    /// Deepest selection nesting (fragments expanded).
    pub depth: usize,
    /// What the cost pass measured.
    pub cost: Cost,
    /// Root field names (aliases resolved to field names).
    pub root_fields: Vec<String>,
}

/// An operation to check: its text, which operation, its variables.
#[derive(Debug, Clone, Copy)]
pub struct OperationText<'a> {
    /// The document.
    pub text: &'a str,
    /// Which operation (`None` = the only one).
    pub name: Option<&'a str>,
    /// Variables (they give page sizes to the cost pass).
    pub variables: Option<&'a Value>,
}

/// Check an operation's cost against `limits`, then parse and validate it against a
/// schema; on failure, compacted errors. Nothing else is done with an operation over a
/// limit (the cost pass is linear in the document).
pub fn check_operation(
    graph: &SchemaGraph,
    schema: &Valid<Schema>,
    op: OperationText<'_>,
    limits: &CostLimits,
) -> Result<(Valid<ExecutableDocument>, OpInfo), Vec<CompactError>> {
    let (operation, operation_name) = (op.text, op.name);
    let (ast, cost) = parse_and_check(schema, operation, operation_name, op.variables, limits)
        .map_err(|e| vec![CompactError::plain(e.to_string())])?;
    // The cost pass parsed it already; a document with syntax errors is parsed again by
    // apollo so its errors come with their locations.
    let validated = match &ast {
        Some(ast) => ast.to_executable_validate(schema),
        None => ExecutableDocument::parse_and_validate(schema, operation, "operation.graphql"),
    };
    let doc = match validated {
        Ok(d) => d,
        Err(mut with) => {
            // Labels can point into the schema: give the report its sources, or the
            // renderer prints "Unable to fetch source" on stderr.
            with.errors
                .merge(apollo_compiler::validation::DiagnosticList::new(
                    schema.sources.clone(),
                ));
            let mut out = Vec::new();
            for d in with.errors.iter().take(10) {
                let loc = d
                    .line_column_range()
                    .map(|r| format!("{}:{}", r.start.line, r.start.column));
                let report = d.to_string();
                out.push(compact_error(
                    graph,
                    &d.error.to_string(),
                    loc,
                    Some(&report),
                ));
            }
            // Errors that name the right spelling first, then those with a concrete fix;
            // a missing subselection is often the cascade of a misspelt field inside it.
            out.sort_by_key(|e| match (e.did_you_mean.is_empty(), e.fix.is_none()) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            });
            if out.is_empty() {
                out.push(CompactError::plain("the operation does not parse"));
            }
            return Err(out);
        }
    };
    let op = match doc.operations.get(operation_name) {
        Ok(op) => op,
        Err(_) => {
            let names: Vec<String> = doc.operations.named.keys().map(|k| k.to_string()).collect();
            let message = match operation_name {
                Some(n) => format!(
                    "no operation named `{n}` in the document; it has: {}",
                    if names.is_empty() {
                        "(an anonymous operation)".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
                None => format!(
                    "the document has several operations ({}); pass operationName",
                    names.join(", ")
                ),
            };
            return Err(vec![CompactError::plain(message)]);
        }
    };
    let root_fields = op.root_fields(&doc).map(|f| f.name.to_string()).collect();
    let info = OpInfo {
        kind: op.operation_type,
        name: op.name.as_ref().map(|n| n.to_string()),
        depth: cost.depth,
        cost,
        root_fields,
    };
    Ok((doc, info))
}

/// `validate` and `execute` input: an operation with its variables.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationRequest {
    /// The GraphQL document (query, mutation or subscription, with any fragments).
    pub operation: String,
    /// Variables as a JSON object (or a JSON string). Default: none.
    #[serde(default)]
    pub variables: Option<Value>,
    /// Which operation to use when the document has several. Default: the only one.
    #[serde(default, alias = "operation_name")]
    pub operation_name: Option<String>,
}

impl OperationRequest {
    /// An operation without variables.
    pub fn new(operation: impl Into<String>) -> Self {
        OperationRequest {
            operation: operation.into(),
            variables: None,
            operation_name: None,
        }
    }
}

pub(crate) fn kind_name(k: OperationType) -> &'static str {
    match k {
        OperationType::Query => "query",
        OperationType::Mutation => "mutation",
        OperationType::Subscription => "subscription",
    }
}

/// What `execute` would say about an operation of this kind and name (None = allowed).
pub fn policy_refusal(policy: &ExecPolicy, info: &OpInfo) -> Option<String> {
    match info.kind {
        OperationType::Subscription => Some(
            "subscriptions are not executed by this server (they need a long-lived stream); rewrite it as a query".into(),
        ),
        OperationType::Mutation if !policy.mutations.allows(info.name.as_deref()) => {
            Some(match &info.name {
                Some(n) => format!("mutation `{n}` is refused: mutations are off unless the server's local config allows them (allow_mutations = [\"{n}\"] or \"all\"); ask the user to enable it"),
                None => "anonymous mutations are refused: mutations are off unless the server's local config allows them by operation name or \"all\"; ask the user to enable it".into(),
            })
        }
        _ => None,
    }
}

fn check_variables(
    schema: &Valid<Schema>,
    doc: &Valid<ExecutableDocument>,
    operation_name: Option<&str>,
    variables: Option<&Value>,
) -> Result<(), ToolError> {
    let map = match variables {
        None | Some(Value::Null) => serde_json_bytes::Map::new(),
        Some(Value::Object(_)) => {
            let v = variables.cloned().unwrap_or(Value::Null);
            match serde_json_bytes::Value::from(v) {
                serde_json_bytes::Value::Object(m) => m,
                _ => serde_json_bytes::Map::new(),
            }
        }
        Some(_) => return Err(ToolError::VariablesNotObject),
    };
    let Ok(op) = doc.operations.get(operation_name) else {
        return Ok(());
    };
    apollo_compiler::request::coerce_variable_values(schema, op, &map)
        .map(|_| ())
        .map_err(|e| ToolError::Variables(e.message().to_string()))
}

/// Parse `variables` given as an object or as a JSON string.
pub fn variables_value(v: Option<Value>) -> Result<Option<Value>, ToolError> {
    match v {
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => serde_json::from_str::<Value>(&s)
            .map(Some)
            .map_err(|e| ToolError::VariablesNotJson(e.to_string())),
        other => Ok(other),
    }
}

impl Toolbox {
    /// `validate`.
    pub fn validate(&self, a: &OperationRequest) -> ToolOutput {
        self.validate_inner(a).counted(&self.meter)
    }

    fn validate_inner(&self, a: &OperationRequest) -> ToolOutput {
        let variables = match variables_value(a.variables.clone()) {
            Ok(v) => v,
            Err(e) => return ToolOutput::err(e, None),
        };
        let generation = self.generation();
        let graph = &generation.graph;
        let schema = &generation.operations().schema;
        let op = OperationText {
            text: &a.operation,
            name: a.operation_name.as_deref(),
            variables: variables.as_ref(),
        };
        match check_operation(graph, schema, op, &self.config.policy.cost) {
            Err(errs) => {
                let mut text = format!("Invalid operation ({} problem(s)):\n", errs.len());
                for e in &errs {
                    text.push_str(&format!("- {}\n", e.line()));
                }
                text.push_str("Fix these and validate again.");
                ToolOutput::err(text, Some(json!({"valid": false, "errors": errs})))
            }
            Ok((doc, info)) => {
                if let Err(e) = check_variables(
                    schema,
                    &doc,
                    a.operation_name.as_deref(),
                    variables.as_ref(),
                ) {
                    return ToolOutput::err(
                        format!("The operation is valid but its variables are not: {e}"),
                        Some(json!({"valid": false, "errors": [{"message": e.to_string()}]})),
                    );
                }
                let refusal = policy_refusal(&self.config.policy, &info);
                let mut text = format!(
                    "Valid {}{} (depth {}).",
                    kind_name(info.kind),
                    info.name
                        .as_ref()
                        .map(|n| format!(" `{n}`"))
                        .unwrap_or_default(),
                    info.depth
                );
                match &refusal {
                    Some(r) => text.push_str(&format!(" Note: execute would refuse it: {r}.")),
                    None => text.push_str(" You can execute it."),
                }
                ToolOutput::ok(
                    text,
                    Some(json!({
                        "valid": true,
                        "operationType": kind_name(info.kind),
                        "operationName": info.name,
                        "depth": info.depth,
                        "executable": refusal.is_none(),
                        "refusal": refusal,
                    })),
                )
            }
        }
    }
}
