//! The MCP server over many graphs: the navigation tools of the tools crate's one list,
//! each with a `graph` argument whose enum is the graphs this caller may use. A graph the
//! caller may not see is absent from the tool schemas, from search results and from
//! errors (an unknown graph and a hidden one get the same answer).

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use gqlnav_tools::{item_block, navigation_tools, NavCall, NavTool, SearchItem, ToolsConfig};

use super::registry::GraphSet;
use super::scope::{Access, Scopes};

/// The argument every tool takes.
pub const GRAPH_ARG: &str = "graph";

/// The MCP handler over a [`GraphSet`].
#[derive(Clone)]
pub struct GraphsMcp {
    set: Arc<GraphSet>,
    scopes: Arc<Scopes>,
    tools: ToolsConfig,
    /// Over HTTP the caller's headers say its scope; over stdio it sees every graph.
    http: bool,
    /// Threads a search across graphs splits over (read once: each reading of the
    /// cgroup's CPU limit is a few system calls).
    threads: usize,
}

fn error_result(text: impl ToString) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.to_string())])
}

impl GraphsMcp {
    /// A handler over `set`; `tools` gives the tool descriptions their limits.
    pub fn new(set: Arc<GraphSet>, scopes: Arc<Scopes>, tools: ToolsConfig, http: bool) -> Self {
        GraphsMcp {
            set,
            scopes,
            tools,
            http,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }

    fn access(&self, ctx: &RequestContext<RoleServer>) -> Access {
        if !self.http {
            return Access::All;
        }
        match ctx.extensions.get::<axum::http::request::Parts>() {
            Some(parts) => self.scopes.access(&parts.headers),
            None if self.scopes.enabled() => Access::Denied,
            None => Access::All,
        }
    }

    /// The graphs `access` sees, in file order.
    pub fn visible(&self, access: &Access) -> Vec<String> {
        self.set
            .names()
            .filter(|n| access.sees(n))
            .map(str::to_string)
            .collect()
    }

    /// The tools as a caller that sees `visible` lists them.
    pub fn tools_for(&self, visible: &[String]) -> Vec<Tool> {
        if visible.is_empty() {
            return Vec::new();
        }
        let mut tools: Vec<Tool> = navigation_tools(&self.tools)
            .into_iter()
            .map(|def| {
                let mut schema = def.input_schema;
                let search = def.tool == NavTool::Search;
                let what = if search {
                    "Which graph to search; leave it out to search every graph you may use (each hit is labelled with its graph)."
                } else {
                    "Which graph the call is for."
                };
                if let Some(Value::Object(props)) = schema.get_mut("properties") {
                    props.insert(
                        GRAPH_ARG.into(),
                        json!({"type": "string", "enum": visible, "description": what}),
                    );
                }
                if !search {
                    let req = schema
                        .entry("required")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(r) = req {
                        r.push(Value::String(GRAPH_ARG.into()));
                    }
                }
                let description = format!(
                    "{} Graphs: {}.",
                    def.description,
                    visible.join(", ")
                );
                let annotations: ToolAnnotations =
                    serde_json::from_value(def.annotations).unwrap_or_default();
                Tool::new(def.name.to_string(), description, Arc::new(schema))
                    .with_annotations(annotations)
            })
            .collect();
        let with_docs: Vec<&String> = visible.iter().filter(|g| self.set.has_docs(g)).collect();
        if !with_docs.is_empty() {
            let mut t = crate::mcp::docs_tool();
            let mut schema = (*t.input_schema).clone();
            if let Some(Value::Object(props)) = schema.get_mut("properties") {
                props.insert(
                    GRAPH_ARG.into(),
                    json!({"type": "string", "enum": with_docs, "description": "Whose documentation to search."}),
                );
            }
            if let Value::Array(r) = schema
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                r.push(Value::String(GRAPH_ARG.into()));
            }
            t.input_schema = Arc::new(schema);
            t.description = Some(
                format!(
                    "{} Graphs with documentation: {}.",
                    t.description.as_deref().unwrap_or_default(),
                    with_docs
                        .iter()
                        .map(|g| g.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into(),
            );
            tools.push(t);
        }
        tools
    }

    /// `search_docs` for one graph the caller may see.
    async fn call_docs(
        &self,
        mut args: Map<String, Value>,
        visible: &[String],
    ) -> Result<CallToolResult, ErrorData> {
        let with_docs: Vec<String> = visible
            .iter()
            .filter(|g| self.set.has_docs(g))
            .cloned()
            .collect();
        let graph = match args.remove(GRAPH_ARG) {
            Some(Value::String(g)) if with_docs.contains(&g) => g,
            None if with_docs.len() == 1 => with_docs[0].clone(),
            Some(Value::String(g)) => {
                return Ok(error_result(format!(
                    "no documentation for a graph `{g}` here; the graphs with documentation you may use: {}",
                    with_docs.join(", ")
                )))
            }
            _ => {
                return Ok(error_result(format!(
                    "`{GRAPH_ARG}` is required for search_docs: one of {}",
                    with_docs.join(", ")
                )))
            }
        };
        let req: crate::mcp::DocsRequest = match serde_json::from_value(Value::Object(args)) {
            Ok(r) => r,
            Err(e) => {
                return Ok(error_result(format!(
                    "bad arguments for search_docs: {e}. Send a JSON object with the tool's fields."
                )))
            }
        };
        let set = self.set.clone();
        tokio::task::spawn_blocking(move || match set.get(&graph) {
            Ok(state) => match &state.docs {
                Some(docs) => crate::mcp::docs_result(docs, &req),
                None => error_result(format!("graph `{graph}` serves no documentation")),
            },
            Err(e) => error_result(e),
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    fn unknown_graph(&self, name: &str, visible: &[String]) -> CallToolResult {
        error_result(format!(
            "no graph `{name}` here; the graphs you may use: {}",
            visible.join(", ")
        ))
    }

    /// Run one call as a caller that sees `visible`.
    pub async fn call(
        &self,
        name: &str,
        args: Option<Map<String, Value>>,
        visible: &[String],
    ) -> Result<CallToolResult, ErrorData> {
        if visible.is_empty() {
            return Ok(error_result(
                "this credential may use no graph: ask the server's operator for a scope",
            ));
        }
        if name == crate::mcp::DOCS_TOOL && visible.iter().any(|g| self.set.has_docs(g)) {
            return self.call_docs(args.unwrap_or_default(), visible).await;
        }
        let Some(tool) = NavTool::from_name(name) else {
            return Ok(error_result(format!(
                "unknown tool `{name}`; the tools are: {}",
                NavTool::ALL.map(NavTool::name).join(", ")
            )));
        };
        let mut args = args.unwrap_or_default();
        let graph = match args.remove(GRAPH_ARG) {
            None | Some(Value::Null) => None,
            Some(Value::String(g)) => Some(g),
            Some(other) => {
                return Ok(error_result(format!(
                    "`{GRAPH_ARG}` is a string, one of: {} (got {other})",
                    visible.join(", ")
                )))
            }
        };
        let graph = match graph {
            Some(g) if visible.contains(&g) => g,
            Some(g) => return Ok(self.unknown_graph(&g, visible)),
            None if visible.len() == 1 => visible[0].clone(),
            None if tool == NavTool::Search => {
                return Ok(self.search_all(Value::Object(args), visible).await)
            }
            None => {
                return Ok(error_result(format!(
                    "`{GRAPH_ARG}` is required for {name}: one of {}",
                    visible.join(", ")
                )))
            }
        };
        let set = self.set.clone();
        let g = graph.clone();
        let state = match tokio::task::spawn_blocking(move || set.get(&g)).await {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => return Ok(error_result(e)),
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        match state.tools.call(name, Value::Object(args)).await {
            Ok(out) => {
                let mut r = if out.is_error {
                    CallToolResult::error(vec![Content::text(out.text)])
                } else {
                    CallToolResult::success(vec![Content::text(out.text)])
                };
                r.structured_content = out.structured.map(|mut s| {
                    if let Value::Object(m) = &mut s {
                        m.insert(GRAPH_ARG.into(), Value::String(graph));
                    }
                    s
                });
                Ok(r)
            }
            Err(gqlnav_tools::ToolError::Aborted(e)) => Err(ErrorData::internal_error(e, None)),
            Err(e) => Ok(error_result(e)),
        }
    }

    /// `search_schema` over every visible graph: ranked in each (see `rank_all`), results
    /// built for the best `limit` only, each labelled with its graph.
    async fn search_all(&self, args: Value, visible: &[String]) -> CallToolResult {
        let req = match NavCall::parse(NavTool::Search, args) {
            Ok(NavCall::Search(r)) => r,
            Ok(_) => return error_result("search_schema takes a query"),
            Err(e) => return error_result(e),
        };
        if req.budget_tokens.is_some()
            || req.service.is_some()
            || req.cursor.as_deref().is_some_and(|c| !c.is_empty())
        {
            return error_result(format!(
                "a budgeted slice, a service filter and a next page are of one graph: pass `{GRAPH_ARG}` (one of {})",
                visible.join(", ")
            ));
        }
        let limit = (req.limit as usize).max(1);
        let clock = std::time::Instant::now();
        let (winners, mut failed) = self.rank_all(&req.query, limit, visible).await;
        let ranked = clock.elapsed();
        // Build results only for the graphs that hold one of the best `limit` raw scores.
        let mut tasks = tokio::task::JoinSet::new();
        for (g, n, coverage) in winners {
            let set = self.set.clone();
            let q = req.query.clone();
            tasks.spawn_blocking(move || {
                let r = set
                    .get(&g)
                    .and_then(|s| s.tools.search_items(&q, n).map_err(|e| e.to_string()));
                (g, r.map(|(items, _)| (items, coverage)))
            });
        }
        let mut hits: Vec<(f32, String, SearchItem)> = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((g, Ok((items, coverage)))) => hits.extend(
                    items
                        .into_iter()
                        .map(|it| (it.score * coverage, g.clone(), it)),
                ),
                Ok((_, Err(e))) => failed.push(e),
                Err(e) => failed.push(e.to_string()),
            }
        }
        // Best raw score first; ties by graph order, then rank (deterministic).
        let order = |g: &str| visible.iter().position(|v| v == g).unwrap_or(usize::MAX);
        hits.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| order(&a.1).cmp(&order(&b.1)))
                .then_with(|| a.2.rank.cmp(&b.2.rank))
        });
        hits.truncate(limit.max(1));
        tracing::debug!(
            build_us = (clock.elapsed() - ranked).as_micros(),
            "search across graphs: results built"
        );
        let mut text = String::new();
        for (i, (_, g, it)) in hits.iter().enumerate() {
            let mut shown = it.clone();
            shown.rank = i + 1;
            text.push_str(&format!("[{g}] {}\n", item_block(&shown)));
        }
        if hits.is_empty() {
            text.push_str(&format!(
                "No coordinates match \"{}\" in any graph you may use. Try other words.\n",
                req.query
            ));
        } else {
            text.push_str(&format!(
                "Searched {} graphs. Next: search_schema with `{GRAPH_ARG}` for that graph's ways in and a next page, then introspect with `{GRAPH_ARG}`.\n",
                visible.len()
            ));
        }
        for f in &failed {
            text.push_str(&format!("{f}\n"));
        }
        let results: Vec<Value> = hits
            .iter()
            .map(|(raw, g, it)| {
                let mut v = serde_json::to_value(it).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert(GRAPH_ARG.into(), Value::String(g.clone()));
                    m.insert("graphScore".into(), json!(raw));
                    m.remove("cursor");
                }
                v
            })
            .collect();
        let mut r = CallToolResult::success(vec![Content::text(text)]);
        r.structured_content = Some(json!({
            "query": req.query, "results": results, "graphs": visible, "unavailable": failed,
        }));
        r
    }
}

/// One graph's answer to a per-graph step: its name and the value, or why it could not.
type PerGraph<T> = Vec<(String, Result<T, String>)>;

impl GraphsMcp {
    /// `step` on each of `graphs` (loading those not loaded yet), split over the blocking
    /// pool's threads; answers in `graphs`' order.
    async fn each_graph<T: Send + 'static>(
        &self,
        graphs: &[String],
        step: impl Fn(&gqlnav_tools::Toolbox) -> Result<T, String> + Send + Sync + 'static,
    ) -> PerGraph<T> {
        let chunk = graphs.len().div_ceil(self.threads).max(1);
        let step = Arc::new(step);
        let mut tasks = tokio::task::JoinSet::new();
        for (at, part) in graphs.chunks(chunk).enumerate() {
            let (set, part, step) = (self.set.clone(), part.to_vec(), step.clone());
            tasks.spawn_blocking(move || {
                let rows: PerGraph<T> = part
                    .into_iter()
                    .map(|g| {
                        let r = set.get(&g).and_then(|s| step(&s.tools));
                        (g, r)
                    })
                    .collect();
                (at, rows)
            });
        }
        let mut parts = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(part) => parts.push(part),
                Err(e) => parts.push((usize::MAX, vec![(String::new(), Err(e.to_string()))])),
            }
        }
        parts.sort_by_key(|(at, _)| *at);
        parts.into_iter().flat_map(|(_, rows)| rows).collect()
    }

    /// Rank `query` across the visible graphs: each hit's score relative to its graph's
    /// best, times the share of the query's words the graph's names hold (its coverage);
    /// say how many of the best `limit` each graph holds, with its coverage, and the graphs
    /// that could not answer. A hit's merged score is at most its graph's coverage, so the
    /// graphs are ranked highest coverage first, each thread taking the next, until the
    /// `limit`-th best merged score is above the next graph's coverage: the same answer as
    /// ranking them all.
    async fn rank_all(
        &self,
        query: &str,
        limit: usize,
        visible: &[String],
    ) -> (Vec<(String, usize, f32)>, Vec<String>) {
        let clock = std::time::Instant::now();
        let terms = gqlnav_tools::name_terms(query);
        let mut failed = Vec::new();
        let mut covered: Vec<(usize, String, f32)> = Vec::new();
        for (g, r) in self
            .each_graph(visible, move |tb| Ok(tb.name_coverage(&terms)))
            .await
        {
            match r {
                Ok(c) => {
                    let at = visible.iter().position(|x| *x == g).unwrap_or(usize::MAX);
                    covered.push((at, g, c));
                }
                Err(e) => failed.push(e),
            }
        }
        covered.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        let coverage_us = clock.elapsed().as_micros();
        let bound = Arc::new(Bound {
            covered,
            next: AtomicUsize::new(0),
            ranked: AtomicUsize::new(0),
            kth: AtomicU32::new((-1f32).to_bits()),
            best: Mutex::new(Vec::new()),
            failed: Mutex::new(Vec::new()),
        });
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..self.threads.min(bound.covered.len()) {
            let (set, bound, q) = (self.set.clone(), bound.clone(), query.to_string());
            tasks.spawn_blocking(move || bound.work(&set, &q, limit));
        }
        while let Some(joined) = tasks.join_next().await {
            if let Err(e) = joined {
                failed.push(e.to_string());
            }
        }
        let best = std::mem::take(&mut *lock(&bound.best));
        failed.append(&mut lock(&bound.failed));
        tracing::debug!(
            graphs = bound.covered.len(),
            ranked = bound.ranked.load(Ordering::Relaxed),
            coverage_us,
            rank_us = clock.elapsed().as_micros() - coverage_us,
            "search across graphs: ranked the graphs whose name coverage could reach the best {limit}"
        );
        let mut winners: Vec<(String, usize, f32)> = Vec::new();
        for (_, _, _, g, coverage) in best {
            match winners.iter_mut().find(|(w, _, _)| *w == g) {
                Some(w) => w.1 += 1,
                None => winners.push((g, 1, coverage)),
            }
        }
        failed.sort();
        (winners, failed)
    }
}

/// A poisoned lock's data is still whole here (each holder only sorts and extends).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A merged hit: (merged score, raw score, the graph's place among the visible ones,
/// the graph, its coverage).
type MergedHit = (f32, f32, usize, String, f32);

/// The shared state of one search across graphs: the graphs by coverage, the next one to
/// rank, and the best `limit` merged hits so far with the `limit`-th score as the bound.
struct Bound {
    covered: Vec<(usize, String, f32)>,
    next: AtomicUsize,
    ranked: AtomicUsize,
    /// The `limit`-th best merged score so far (f32 bits; -1 until there are `limit`).
    kth: AtomicU32,
    best: Mutex<Vec<MergedHit>>,
    failed: Mutex<Vec<String>>,
}

impl Bound {
    /// Rank the next graph until none is left or none left can reach the best `limit`.
    fn work(&self, set: &GraphSet, query: &str, limit: usize) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some((at, g, coverage)) = self.covered.get(i) else {
                return;
            };
            if f32::from_bits(self.kth.load(Ordering::Acquire)) > *coverage {
                return;
            }
            self.ranked.fetch_add(1, Ordering::Relaxed);
            let relative = set.get(g).and_then(|s| {
                s.tools
                    .graph_relevance(query, limit)
                    .map_err(|e| e.to_string())
            });
            match relative {
                Ok(relative) => {
                    let mut best = lock(&self.best);
                    best.extend(
                        relative
                            .into_iter()
                            .map(|(rel, raw)| (coverage * rel, raw, *at, g.clone(), *coverage)),
                    );
                    best.sort_by(|a, b| {
                        b.0.total_cmp(&a.0)
                            .then(b.1.total_cmp(&a.1))
                            .then(a.2.cmp(&b.2))
                    });
                    best.truncate(limit);
                    if best.len() >= limit {
                        self.kth
                            .store(best[limit - 1].0.to_bits(), Ordering::Release);
                    }
                }
                Err(e) => lock(&self.failed).push(e),
            }
        }
    }
}

impl ServerHandler for GraphsMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gqlnav", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Tools over several GraphQL schemas; every tool takes `{GRAPH_ARG}` (the tool schemas list the graphs you may use). Loop: {} (find coordinates; without `{GRAPH_ARG}` it searches every graph) -> {} (exact definitions) -> {} (check your operation) -> {} (run it).",
                NavTool::Search.name(),
                NavTool::Introspect.name(),
                NavTool::Validate.name(),
                NavTool::Execute.name(),
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let visible = self.visible(&self.access(&context));
        Ok(ListToolsResult::with_all_items(self.tools_for(&visible)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let visible = self.visible(&self.access(&context));
        let r = self
            .call(&request.name, request.arguments, &visible)
            .await?;
        Ok(CallToolResponse::from(r))
    }
}
