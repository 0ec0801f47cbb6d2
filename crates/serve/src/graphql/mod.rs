//! The GraphQL endpoint: answers the semantic-introspection RFC's `__search` and
//! `__definitions`, standard introspection (`__schema`, `__type`, `__typename`) locally,
//! and forwards every other operation to the upstream with the trusted headers.
//!
//! An operation that mixes local meta-fields (`__search`, `__definitions`, `__schema`,
//! `__type`) with upstream fields is **refused** with an error that says to send them
//! as two operations (`__typename` alone goes either way).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use apollo_compiler::executable::OperationType;
use apollo_compiler::resolvers::{Execution, FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{serde_json_bytes, JsonMap};
use apollo_compiler::schema::{ExtendedType, Schema};
use apollo_compiler::validation::Valid;
use axum::extract::{DefaultBodyLimit, Query as UrlQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gqlnav_schema::{Coordinate, RootKind};
use serde_json::{json, Value};

use gqlnav_search::PageRequest;
use gqlnav_tools::{
    check_operation, policy_refusal, read_cursor, Generation, SearchItem, Toolbox,
    DEFAULT_SEARCH_LIMIT,
};

mod introspection;

pub use introspection::Introspection;

use crate::error::ServeError;
use crate::state::AppState;

/// The SDL added to the served schema (RFC graphql/ai-wg semantic-introspection).
pub const META_SDL: &str = r#"
"A result of `__search`: a schema coordinate, its definition, how to reach it and how well it matched."
type __SearchResult {
  "The schema coordinate, e.g. `Query.user` or `Mutation.createPost(input:)`."
  coordinate: String!
  "The definition the coordinate points at."
  definition: __SchemaDefinition!
  "Root-first lists of field coordinates that reach the definition."
  pathsToRoot: [[String!]!]!
  "Relevance in [0.0, 1.0], relative to the best result of the query (1.0 = best)."
  score: Float
  "Opaque cursor: pass it as `after` to get the results after this one."
  cursor: String!
  "The same field on sibling types of its interface family (ranked lower, folded into this result so they do not take a result each), e.g. `User.avatarUrl` under `Organization.avatarUrl`. A gqlnav extension."
  sameFieldOn: [String!]!
  "More fields of this result's type, ranked lower and folded into it so that one type's fields do not fill the page, e.g. `CustomerStatus.color` under `CustomerStatus.description`. A gqlnav extension."
  moreOnType: [String!]!
}

"Any schema element `__search` and `__definitions` can return."
union __SchemaDefinition = __Type | __Field | __InputValue | __EnumValue | __Directive
"#;

/// The two meta-fields on the query root; `first` defaults to the `search_schema` page
/// size of the tools crate.
fn meta_query_fields() -> String {
    format!(
        r#"
type Query {{
  "Search the schema in natural language; results ordered by score, descending."
  __search(query: String!, first: Int! = {DEFAULT_SEARCH_LIMIT}, after: String, minScore: Float): [__SearchResult!]!
  "Resolve schema coordinates to their definitions, in the same order as the input."
  __definitions(coordinates: [String!]!): [__SchemaDefinition!]!
}}
"#
    )
}

/// Most results per `__search` page.
pub const MAX_FIRST: i64 = 150;
/// Most `__type` fields (aliases) per operation.
pub const MAX_TYPE_ROOTS: usize = 50;
/// Most coordinates per `__definitions` call.
pub const MAX_DEFINITIONS: usize = 150;

/// The schema this endpoint serves: the upstream schema plus the RFC meta types and the
/// two meta-fields on the query root.
pub fn served_schema(graph: &gqlnav_schema::SchemaGraph) -> Result<Schema, String> {
    let mut schema = Schema::clone(&graph.schema);
    let meta = format!("{META_SDL}\n{}", meta_query_fields());
    let parsed =
        Schema::parse(&meta, "semantic-introspection.graphql").unwrap_or_else(|e| e.partial);
    for name in ["__SearchResult", "__SchemaDefinition"] {
        let t = parsed
            .types
            .get(name)
            .ok_or_else(|| format!("meta type {name} did not parse"))?
            .clone();
        schema
            .types
            .insert(apollo_compiler::Name::new_unchecked(name), t);
    }
    let root = graph
        .root(RootKind::Query)
        .ok_or("the schema has no query root")?
        .to_string();
    let Some(ExtendedType::Object(meta_q)) = parsed.types.get("Query") else {
        return Err("meta query fields did not parse".into());
    };
    match schema.types.get_mut(root.as_str()) {
        Some(ExtendedType::Object(q)) => {
            let q = q.make_mut();
            for (k, f) in &meta_q.fields {
                q.fields.insert(k.clone(), f.clone());
            }
        }
        _ => return Err(format!("query root `{root}` is not an object type")),
    }
    Ok(schema)
}

/// The served schema of a generation, built and validated once per generation.
fn served(generation: &Generation) -> Result<&Valid<Schema>, String> {
    generation
        .served_with(served_schema)
        .map(|s| &s.schema)
        .map_err(|e| e.to_string())
}

fn unknown(info: &ResolveInfo<'_>, ty: &str) -> FieldError {
    FieldError {
        message: format!("unexpected field {ty}.{}", info.field_name()),
    }
}

/// `__SearchResult`.
struct SearchResultObj<'a> {
    item: SearchItem,
    intro: &'a Introspection,
}

impl ObjectValue for SearchResultObj<'_> {
    fn type_name(&self) -> &str {
        "__SearchResult"
    }
    fn resolve_field<'a>(
        &'a self,
        info: &'a ResolveInfo<'a>,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        Ok(match info.field_name() {
            "coordinate" => ResolvedValue::leaf(self.item.coordinate.as_str()),
            "score" => ResolvedValue::leaf(f64::from(self.item.score)),
            "cursor" => ResolvedValue::leaf(self.item.cursor.as_str()),
            "sameFieldOn" => ResolvedValue::list(
                self.item
                    .same_field_on
                    .iter()
                    .map(|c| ResolvedValue::leaf(c.as_str())),
            ),
            "moreOnType" => ResolvedValue::list(
                self.item
                    .more_on_type
                    .iter()
                    .map(|c| ResolvedValue::leaf(c.as_str())),
            ),
            "pathsToRoot" => {
                ResolvedValue::list(self.item.paths_to_root.iter().map(|p| {
                    ResolvedValue::list(p.iter().map(|c| ResolvedValue::leaf(c.as_str())))
                }))
            }
            "definition" => {
                let c = Coordinate::parse(&self.item.coordinate).map_err(|e| FieldError {
                    message: e.to_string(),
                })?;
                self.intro.definition(&c).ok_or_else(|| FieldError {
                    message: format!("`{}` is no longer in the schema", self.item.coordinate),
                })?
            }
            _ => return Err(unknown(info, "__SearchResult")),
        })
    }
}

/// The query root for local execution.
struct RootObj<'s> {
    tools: &'s Toolbox,
    generation: &'s Generation,
    intro: &'s Introspection,
    type_name: String,
    paths: usize,
    /// `__search` results and `__definitions` entries this operation may still return.
    budget: std::sync::atomic::AtomicUsize,
}

impl RootObj<'_> {
    /// Take `n` results from the operation's budget, or say why not.
    fn take(&self, n: usize) -> Result<(), FieldError> {
        use std::sync::atomic::Ordering;
        self.budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(n))
            .map(|_| ())
            .map_err(|left| FieldError {
                message: format!(
                    "this operation asks for more local results than the server gives per operation ({} left, {n} asked); send fewer aliases or a smaller `first`",
                    left
                ),
            })
    }
}

impl ObjectValue for RootObj<'_> {
    fn type_name(&self) -> &str {
        &self.type_name
    }
    fn resolve_field<'a>(
        &'a self,
        info: &'a ResolveInfo<'a>,
    ) -> Result<ResolvedValue<'a>, FieldError> {
        let args = info.arguments();
        let err = |m: String| FieldError { message: m };
        match info.field_name() {
            "__search" => {
                let query = args.get("query").and_then(|v| v.as_str()).unwrap_or("");
                let first = args
                    .get("first")
                    .and_then(|v| v.as_i64())
                    .unwrap_or(i64::from(DEFAULT_SEARCH_LIMIT));
                if !(1..=MAX_FIRST).contains(&first) {
                    return Err(err(format!("`first` must be between 1 and {MAX_FIRST}")));
                }
                let offset = match args.get("after").and_then(|v| v.as_str()) {
                    Some(c) => read_cursor(c, query, self.generation.number)
                        .map_err(|e| err(e.to_string()))?,
                    None => 0,
                };
                let req = PageRequest {
                    offset,
                    limit: first as usize,
                    min_score: args
                        .get("minScore")
                        .and_then(|v| v.as_f64())
                        .map(|m| m as f32),
                    budget: None,
                };
                self.take(first as usize)?;
                let page = self
                    .tools
                    .ranked_page(self.generation, query, &req, self.paths)
                    .map_err(|e| err(e.to_string()))?;
                Ok(ResolvedValue::list(page.items.into_iter().map(|item| {
                    ResolvedValue::object(SearchResultObj {
                        item,
                        intro: self.intro,
                    })
                })))
            }
            "__definitions" => {
                let list: Vec<String> = args
                    .get("coordinates")
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                if list.len() > MAX_DEFINITIONS {
                    return Err(err(format!(
                        "at most {MAX_DEFINITIONS} coordinates per call"
                    )));
                }
                self.take(list.len())?;
                let mut out = Vec::new();
                let mut bad = Vec::new();
                for raw in &list {
                    let resolved = Coordinate::parse(raw)
                        .ok()
                        .filter(|c| !c.owner().starts_with("__"))
                        .and_then(|c| self.intro.definition(&c));
                    match resolved {
                        Some(v) => out.push(v),
                        None => {
                            let s = gqlnav_tools::suggest(&self.generation.graph, raw, 3);
                            bad.push(if s.is_empty() {
                                format!("`{raw}`")
                            } else {
                                format!("`{raw}` (did you mean {}?)", s.join(", "))
                            });
                        }
                    }
                }
                if !bad.is_empty() {
                    // Results are positional, so an unknown coordinate fails the field
                    // rather than shifting every later definition.
                    return Err(err(format!("unknown coordinate(s): {}", bad.join(", "))));
                }
                Ok(ResolvedValue::list(out))
            }
            _ => Ok(ResolvedValue::SkipForPartialExecution),
        }
    }
}

// ---------------------------------------------------------------------------------
// HTTP

/// A GraphQL-over-HTTP request.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphqlRequest {
    /// The document.
    pub query: String,
    /// Variables.
    #[serde(default)]
    pub variables: Option<Value>,
    /// Operation name.
    #[serde(default)]
    pub operation_name: Option<String>,
}

pub(crate) fn gql_error(msg: impl Into<String>) -> Value {
    json!({"errors": [{"message": msg.into()}]})
}

const LOCAL_ONLY: [&str; 4] = ["__search", "__definitions", "__schema", "__type"];

/// What the blocking step decided: the answer, or a body to forward upstream.
enum Step {
    Done(Value),
    Forward(Value),
}

/// Answer one GraphQL request: locally, by forwarding, or with an error body.
///
/// The CPU-bound part (cost pass, validation, local execution) runs on the blocking pool
/// under the policy's timeout, so one heavy request never stalls the others.
pub async fn handle_request(state: &Arc<AppState>, req: GraphqlRequest, via_get: bool) -> Value {
    let st = state.clone();
    let deadline = state.tools.config.policy.timeout;
    let work = tokio::task::spawn_blocking(move || answer_locally(&st, req, via_get));
    let step = match tokio::time::timeout(deadline, work).await {
        Ok(Ok(step)) => step,
        Ok(Err(e)) => return gql_error(format!("the request failed inside the server: {e}")),
        Err(_) => {
            return gql_error(format!(
                "the request was not answered within {} s and was abandoned; ask for less",
                deadline.as_secs()
            ))
        }
    };
    let body = match step {
        Step::Done(v) => return v,
        Step::Forward(body) => body,
    };
    let tools = &state.tools;
    match tools.post_upstream(&body).await {
        Ok(mut v) => {
            tools.scrub_json(&mut v);
            v
        }
        Err(e) => gql_error(tools.scrub(&e.to_string())),
    }
}

fn validation_errors(errs: &[gqlnav_tools::CompactError]) -> Value {
    json!({"errors": errs.iter().map(|e| json!({
        "message": e.line(),
        "extensions": {"didYouMean": e.did_you_mean, "introspect": e.introspect}
    })).collect::<Vec<_>>()})
}

/// The blocking step: check the operation, and answer it here when it asks only for
/// local fields.
fn answer_locally(state: &AppState, req: GraphqlRequest, via_get: bool) -> Step {
    let tools = &state.tools;
    let generation = tools.generation();
    let schema = match served(&generation) {
        Ok(s) => s,
        Err(e) => {
            return Step::Done(gql_error(format!(
                "the served schema could not be built: {e}"
            )))
        }
    };
    let op = gqlnav_tools::OperationText {
        text: &req.query,
        name: req.operation_name.as_deref(),
        variables: req.variables.as_ref(),
    };
    let policy = &tools.config.policy;
    let (doc, info) = match check_operation(&generation.graph, schema, op, &policy.cost) {
        Ok(x) => x,
        Err(errs) => return Step::Done(validation_errors(&errs)),
    };
    if via_get && info.kind != OperationType::Query {
        return Step::Done(gql_error("only queries may be sent with GET; use POST"));
    }
    if let Some(r) = policy_refusal(policy, &info) {
        return Step::Done(gql_error(r));
    }
    let is_local = |f: &String| LOCAL_ONLY.contains(&f.as_str());
    let local = info.root_fields.iter().filter(|f| is_local(f)).count();
    let concrete = info
        .root_fields
        .iter()
        .filter(|f| !is_local(f) && f.as_str() != "__typename")
        .count();
    if local > 0 && concrete > 0 {
        return Step::Done(gql_error(
            "this operation mixes local meta-fields (__search, __definitions, __schema, __type) with fields answered by the upstream API; send them as two separate operations",
        ));
    }
    // Standard introspection is answered whole before the byte cap can look at it: bound
    // how many of its roots one operation may ask for (aliases count).
    let count = |name: &str| info.root_fields.iter().filter(|f| *f == name).count();
    if count("__schema") > 1 || count("__type") > MAX_TYPE_ROOTS {
        return Step::Done(gql_error(format!(
            "this operation asks for `__schema` {} times and `__type` {} times; the server answers at most one `__schema` and {MAX_TYPE_ROOTS} `__type` per operation",
            count("__schema"),
            count("__type")
        )));
    }
    if local == 0 && concrete > 0 {
        let mut body = json!({"query": req.query});
        if let Some(v) = req.variables {
            body["variables"] = v;
        }
        if let Some(n) = req.operation_name {
            body["operationName"] = json!(n);
        }
        return Step::Forward(body);
    }
    Step::Done(execute_locally(state, &generation, schema, &doc, &req))
}

/// Execute an operation of local fields only, within the result and byte caps.
fn execute_locally(
    state: &AppState,
    generation: &Generation,
    schema: &Valid<Schema>,
    doc: &Valid<apollo_compiler::ExecutableDocument>,
    req: &GraphqlRequest,
) -> Value {
    let tools = &state.tools;
    let policy = &tools.config.policy;
    let vars = match req.variables.clone() {
        None | Some(Value::Null) => JsonMap::new(),
        Some(v @ Value::Object(_)) => match serde_json_bytes::Value::from(v) {
            serde_json_bytes::Value::Object(m) => m,
            _ => JsonMap::new(),
        },
        Some(_) => return gql_error("`variables` must be a JSON object"),
    };
    let op = match doc.operations.get(req.operation_name.as_deref()) {
        Ok(op) => op,
        Err(_) => return gql_error("the operation to run was not found; pass operationName"),
    };
    let intro = match state.introspection(generation, schema) {
        Ok(i) => i,
        Err(e) => return gql_error(format!("introspecting the served schema failed: {e}")),
    };
    let root = RootObj {
        tools,
        generation,
        intro: &intro,
        type_name: op.object_type().to_string(),
        paths: tools.config.paths_per_hit.max(1),
        budget: std::sync::atomic::AtomicUsize::new(policy.max_local_results),
    };
    let imap = schema.implementers_map();
    let result = Execution::new(schema, doc)
        .operation(op)
        .implementers_map(&imap)
        .raw_variable_values(&vars)
        .enable_schema_introspection(true)
        .execute_sync(&root);
    let v = match result {
        Ok(resp) => serde_json::to_value(resp).unwrap_or_else(|e| gql_error(e.to_string())),
        Err(e) => return gql_error(e.message().to_string()),
    };
    let bytes = serde_json::to_vec(&v).map(|b| b.len()).unwrap_or(0);
    if bytes > policy.max_local_response_bytes {
        return gql_error(format!(
            "the answer would be {bytes} bytes; the limit for locally answered fields is {}. Ask for fewer results or fields",
            policy.max_local_response_bytes
        ));
    }
    v
}

/// A request refused before it runs: its HTTP status and a GraphQL error message.
pub(crate) struct Refused(pub StatusCode, pub String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        if self.0 == StatusCode::UNAUTHORIZED {
            return (
                self.0,
                [("www-authenticate", "Bearer")],
                Json(gql_error(self.1)),
            )
                .into_response();
        }
        (self.0, Json(gql_error(self.1))).into_response()
    }
}

/// Read a POSTed GraphQL request, or why it is refused.
pub(crate) fn read_post(headers: &HeaderMap, body: &[u8]) -> Result<GraphqlRequest, Refused> {
    if let Some(ct) = headers.get("content-type").and_then(|v| v.to_str().ok()) {
        if !ct.starts_with("application/json")
            && !ct.starts_with("application/graphql-response+json")
        {
            return Err(Refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send Content-Type: application/json".into(),
            ));
        }
    }
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(Refused(
            StatusCode::BAD_REQUEST,
            "batching is not supported: send one operation per request".into(),
        ));
    }
    serde_json::from_slice(body).map_err(|e| {
        Refused(
            StatusCode::BAD_REQUEST,
            format!("the body is not a GraphQL request ({{\"query\": …}}): {e}"),
        )
    })
}

/// Read a GraphQL request from GET parameters, or why it is refused.
pub(crate) fn read_get(params: &HashMap<String, String>) -> Result<GraphqlRequest, Refused> {
    let Some(query) = params.get("query").cloned() else {
        return Err(Refused(StatusCode::BAD_REQUEST, "pass ?query=…".into()));
    };
    let variables = match params.get("variables") {
        Some(v) => match serde_json::from_str(v) {
            Ok(v) => Some(v),
            Err(_) => {
                return Err(Refused(
                    StatusCode::BAD_REQUEST,
                    "`variables` is not JSON".into(),
                ))
            }
        },
        None => None,
    };
    Ok(GraphqlRequest {
        query,
        variables,
        operation_name: params.get("operationName").cloned(),
    })
}

async fn post_handler(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    match read_post(&headers, &body) {
        Ok(req) => Json(handle_request(&state, req, false).await).into_response(),
        Err(refused) => refused.into_response(),
    }
}

async fn get_handler(
    State(state): State<Arc<AppState>>,
    UrlQuery(params): UrlQuery<HashMap<String, String>>,
) -> Response {
    match read_get(&params) {
        Ok(req) => Json(handle_request(&state, req, true).await).into_response(),
        Err(refused) => refused.into_response(),
    }
}

/// Check `Host` (and `Origin`, when present) against loopback plus the configured
/// names: a DNS-rebinding guard for servers on 127.0.0.1.
pub fn host_allowed(headers: &HeaderMap, port: u16, config: &crate::config::ServeConfig) -> bool {
    let loop_hosts = ["localhost", "127.0.0.1", "[::1]"];
    let host_ok = match headers.get("host").and_then(|h| h.to_str().ok()) {
        None => false,
        Some(h) => {
            let h = h.to_ascii_lowercase();
            let bare = h.rsplit_once(':').map(|(b, _)| b.to_string());
            loop_hosts
                .iter()
                .any(|l| h == *l || h == format!("{l}:{port}"))
                || config.allowed_hosts.iter().any(|a| {
                    let a = a.to_ascii_lowercase();
                    h == a || bare.as_deref() == Some(a.as_str())
                })
        }
    };
    let origin_ok = match headers.get("origin").and_then(|h| h.to_str().ok()) {
        None => true,
        Some(o) => {
            let o = o.to_ascii_lowercase();
            loop_hosts
                .iter()
                .any(|l| o == format!("http://{l}:{port}") || o == format!("http://{l}"))
                || config
                    .allowed_origins
                    .iter()
                    .any(|a| a.to_ascii_lowercase() == o)
        }
    };
    host_ok && origin_ok
}

/// Refuse a request whose Host or Origin is not allowed ([`host_allowed`]), else run it:
/// the GraphQL endpoints' middleware, single-graph and many-graph.
pub(crate) async fn guard_host(
    port: u16,
    config: &crate::config::ServeConfig,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !host_allowed(req.headers(), port, config) {
        return Refused(
            StatusCode::FORBIDDEN,
            "Host or Origin not allowed (DNS-rebinding guard); add it to [server] allowed_hosts / allowed_origins".into(),
        )
        .into_response();
    }
    next.run(req).await
}

/// The GraphQL endpoint as an axum router (`POST /graphql`, `GET /graphql`).
pub fn graphql_router(port: u16, state: Arc<AppState>) -> axum::Router {
    let limit = state.config.tools.policy.max_request_bytes;
    let guard_state = state.clone();
    axum::Router::new()
        .route(
            "/graphql",
            axum::routing::post(post_handler).get(get_handler),
        )
        .route("/health", axum::routing::get(|| async { "ok" }))
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let st = guard_state.clone();
                async move { guard_host(port, &st.config, req, next).await }
            },
        ))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

/// Serve the GraphQL endpoint at `http://ADDR/graphql` until the process ends.
pub async fn run_graphql(addr: SocketAddr, state: Arc<AppState>) -> Result<(), ServeError> {
    let listener = crate::mcp::bind(addr, &state.config).await?;
    let real = listener
        .local_addr()
        .map_err(|e| ServeError::Listen(addr, e))?;
    tracing::info!("GraphQL endpoint ready on http://{real}/graphql");
    eprintln!("gqlnav: GraphQL endpoint on http://{real}/graphql");
    axum::serve(listener, graphql_router(real.port(), state))
        .await
        .map_err(|e| ServeError::Listen(real, e))
}
