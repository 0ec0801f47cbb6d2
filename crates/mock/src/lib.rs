//! gqlnav mock stage: a deterministic GraphQL upstream for any schema, so that agent
//! answers can be graded (`gqlnav mock`, and in-process for `bench --mode agent`).
//!
//! - **Same input, same data.** An object is a type and an identity; a field's value is
//!   derived from a hash of (the parent's identity, the field, its arguments other than
//!   paging), so `issues(states: OPEN)` and `issues(states: CLOSED)` differ and a
//!   forgotten filter gives a different answer. Arguments are compared after coercion,
//!   so a default written out equals one left out.
//! - **Real paging.** A connection ([`gqlnav_schema::connection_of`]) holds 1–30 stable
//!   items; `first`/`last`/`after`/`before` take windows of them, `pageInfo` and the
//!   count fields agree with the list, cursors read back.
//! - **Valid values.** Scalars fit their type (dates around a fixed "today", URLs, enum
//!   values of the schema); non-null fields are never null (nor are nullable ones);
//!   abstract types resolve to a member, one the selection asks for when it asks.
//! - A lookup argument echoes into the object's field of the same name
//!   (`repository(name: "x") { name }` is `"x"`); an `id` names its object, so a lookup
//!   by that id returns the same object.
//! - **Real validation.** Operations are parsed and validated by apollo-compiler before
//!   they run; the answer is `{data, errors}` as a GraphQL server gives it.

mod data;
mod object;
mod server;

use std::cell::Cell;

use apollo_compiler::collections::HashMap;
use apollo_compiler::executable::ExecutableDocument;
use apollo_compiler::resolvers::Execution;
use apollo_compiler::response::{JsonMap, JsonValue};
use apollo_compiler::schema::Implementers;
use apollo_compiler::validation::Valid;
use apollo_compiler::{Name, Schema};
use serde_json::{json, Value};

pub use server::{serve, MockServer};

/// 2025-06-01T00:00:00Z, the WG agent benchmark's fixed "today" (its system prompt and
/// mock use the same instant).
pub const DEFAULT_TODAY: i64 = 1_748_736_000;

/// Most values (fields and list items) in one response. Deep nested lists multiply
/// (30 × 30 × 30); a real server refuses such queries by cost, and so does this one.
pub const DEFAULT_MAX_VALUES: usize = 50_000;

/// What the mock derives its data from.
#[derive(Debug, Clone, Copy)]
pub struct MockOptions {
    /// "Today", seconds since the epoch: dates fall in the year before it.
    pub today: i64,
    /// Most values in one response ([`DEFAULT_MAX_VALUES`]).
    pub max_values: usize,
}

impl Default for MockOptions {
    fn default() -> Self {
        MockOptions {
            today: DEFAULT_TODAY,
            max_values: DEFAULT_MAX_VALUES,
        }
    }
}

/// One GraphQL request.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub query: String,
    #[serde(default)]
    pub variables: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub operation_name: Option<String>,
}

impl Request {
    /// A request for `query` with no variables.
    pub fn new(query: impl Into<String>) -> Self {
        Request {
            query: query.into(),
            ..Request::default()
        }
    }
}

/// A deterministic upstream over one schema.
pub struct Mock {
    schema: Valid<Schema>,
    implementers: HashMap<Name, Implementers>,
    opts: MockOptions,
}

impl std::fmt::Debug for Mock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mock")
            .field("types", &self.schema.types.len())
            .field("opts", &self.opts)
            .finish()
    }
}

impl Mock {
    /// A mock of `schema` (a schema that loaded with errors is served over its valid
    /// parts: pass `CheckedSchema::for_operations`).
    pub fn new(schema: Valid<Schema>, opts: MockOptions) -> Self {
        let implementers = schema.implementers_map();
        Mock {
            schema,
            implementers,
            opts,
        }
    }

    /// A mock of a loaded schema graph.
    pub fn of_graph(graph: &gqlnav_schema::SchemaGraph, opts: MockOptions) -> Self {
        Mock::new(graph.schema.for_operations().clone(), opts)
    }

    /// The schema served.
    pub fn schema(&self) -> &Valid<Schema> {
        &self.schema
    }

    /// Validate and run one request; the GraphQL response (`{"data": …}`, with
    /// `"errors"` when there are any; no `data` when the request was refused before it
    /// ran).
    pub fn execute(&self, req: &Request) -> Value {
        let doc = match ExecutableDocument::parse_and_validate(
            &self.schema,
            req.query.as_str(),
            "operation.graphql",
        ) {
            Ok(d) => d,
            Err(with) => {
                let errors: Vec<Value> = with
                    .errors
                    .iter()
                    .map(|d| serde_json::to_value(d.to_json()).unwrap_or(Value::Null))
                    .collect();
                return json!({ "errors": errors });
            }
        };
        self.run(&doc, req)
    }

    fn run(&self, doc: &Valid<ExecutableDocument>, req: &Request) -> Value {
        let refused = |e: apollo_compiler::request::RequestError| json!({"errors": [serde_json::to_value(e.to_graphql_error(&doc.sources)).unwrap_or(Value::Null)]});
        let operation = match doc.operations.get(req.operation_name.as_deref()) {
            Ok(o) => o,
            Err(e) => return refused(e),
        };
        let vars: JsonMap = match &req.variables {
            Some(v) => match JsonValue::from(Value::Object(v.clone())) {
                JsonValue::Object(m) => m,
                _ => JsonMap::new(),
            },
            None => JsonMap::new(),
        };
        let run = object::Run {
            today: self.opts.today,
            max_values: self.opts.max_values,
            values: Cell::new(0),
        };
        let root = object::Obj::root(&run, operation.object_type().as_str());
        let exec = Execution::new(&self.schema, doc)
            .operation(operation)
            .implementers_map(&self.implementers)
            .raw_variable_values(&vars)
            .enable_schema_introspection(true);
        match exec.execute_sync(&root) {
            Ok(resp) => serde_json::to_value(resp).unwrap_or(Value::Null),
            Err(e) => refused(e),
        }
    }

    /// Run `query` (no variables) and return its `data`, or the errors as one line.
    pub fn data(&self, query: &str) -> Result<Value, String> {
        let out = self.execute(&Request::new(query));
        match out.get("errors").and_then(Value::as_array) {
            Some(errs) if !errs.is_empty() => Err(errs
                .iter()
                .filter_map(|e| e["message"].as_str())
                .collect::<Vec<_>>()
                .join("; ")),
            _ => Ok(out.get("data").cloned().unwrap_or(Value::Null)),
        }
    }
}
