//! The graphs one server holds: each loaded on first use (schema, then its saved index
//! or an index built in memory), reloaded on its own when its schema file changes, and
//! failing on its own: a graph that does not load answers with why, the others serve.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use gqlnav_schema::SchemaGraph;
use gqlnav_tools::{BackendFactory, Toolbox};

use super::config::GraphSpec;
use crate::config::CompiledTools;
use crate::state::AppState;

/// What the binary supplies: how to load a graph's schema and how to make its ranker
/// (the flags that choose a ranker are parsed by the CLI).
pub trait GraphLoader: Send + Sync {
    /// Load the schema `spec.schema` names.
    fn schema(&self, spec: &GraphSpec) -> Result<SchemaGraph, String>;
    /// The factory of the graph's ranker: its saved index when `spec.index` is set.
    fn factory(&self, spec: &GraphSpec) -> Result<BackendFactory, String>;
    /// The documentation `search_docs` answers from for this graph (`spec.docs`).
    fn docs(&self, spec: &GraphSpec) -> Result<Option<Arc<gqlnav_docs::LiveDocs>>, String> {
        let _ = spec;
        Ok(None)
    }
}

enum SlotState {
    /// Not loaded yet.
    Idle,
    /// Serving, and the schema file's time it was last read at.
    Ready {
        state: Arc<AppState>,
        stamp: Option<SystemTime>,
    },
    /// The last load failed: why, and the schema file's time then (a file that changes
    /// is tried again).
    Failed {
        error: String,
        stamp: Option<SystemTime>,
    },
}

struct Slot {
    spec: GraphSpec,
    state: Mutex<SlotState>,
}

/// How a graph stands, for `graphs` listings and logs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphStatus {
    /// Not loaded yet (loads on first use).
    Idle,
    /// Loaded and serving.
    Ready,
    /// Its last load failed.
    Failed,
}

/// The graphs of one server.
pub struct GraphSet {
    slots: Vec<Slot>,
    by_name: BTreeMap<String, usize>,
    loader: Arc<dyn GraphLoader>,
}

impl std::fmt::Debug for GraphSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphSet")
            .field("graphs", &self.slots.len())
            .finish_non_exhaustive()
    }
}

fn mtime(p: &str) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// A source that is not a file (an endpoint to introspect, or an embedded schema):
/// nothing to watch or check on disk.
fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://") || s.starts_with("builtin:")
}

impl GraphSet {
    /// Hold `specs` (names are unique: the graphs file checks it); nothing loads yet.
    pub fn new(specs: Vec<GraphSpec>, loader: Arc<dyn GraphLoader>) -> GraphSet {
        let by_name = specs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        let slots = specs
            .into_iter()
            .map(|spec| Slot {
                spec,
                state: Mutex::new(SlotState::Idle),
            })
            .collect();
        GraphSet {
            slots,
            by_name,
            loader,
        }
    }

    /// The graph names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.slots.iter().map(|s| s.spec.name.as_str())
    }

    /// Whether the graph serves documentation (`docs` in its table).
    pub fn has_docs(&self, name: &str) -> bool {
        self.by_name
            .get(name)
            .is_some_and(|&i| self.slots[i].spec.docs.is_some())
    }

    /// Whether a graph of this name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// How each graph stands.
    pub fn status(&self, name: &str) -> Option<GraphStatus> {
        let slot = &self.slots[*self.by_name.get(name)?];
        let st = slot.state.lock().unwrap_or_else(|p| p.into_inner());
        Some(match &*st {
            SlotState::Idle => GraphStatus::Idle,
            SlotState::Ready { .. } => GraphStatus::Ready,
            SlotState::Failed { .. } => GraphStatus::Failed,
        })
    }

    /// The files a start-up check finds missing: each `(graph, why)`, reported once.
    pub fn check_sources(&self) -> Vec<(String, String)> {
        self.slots
            .iter()
            .filter(|s| !is_url(&s.spec.schema) && !Path::new(&s.spec.schema).is_file())
            .map(|s| {
                (
                    s.spec.name.clone(),
                    format!("schema file {} not found", s.spec.schema),
                )
            })
            .collect()
    }

    /// The graph's server state, loading it on first use (blocking: call from a
    /// blocking thread). A graph whose last load failed answers with that failure until
    /// its schema file changes.
    pub fn get(&self, name: &str) -> Result<Arc<AppState>, String> {
        let Some(&i) = self.by_name.get(name) else {
            return Err(format!("no graph `{name}`"));
        };
        let slot = &self.slots[i];
        let mut st = slot.state.lock().unwrap_or_else(|p| p.into_inner());
        match &*st {
            SlotState::Ready { state, .. } => return Ok(state.clone()),
            SlotState::Failed { error, stamp } => {
                let now = mtime(&slot.spec.schema);
                if is_url(&slot.spec.schema) || now.is_none() || now == *stamp {
                    return Err(error.clone());
                }
            }
            SlotState::Idle => {}
        }
        let stamp = mtime(&slot.spec.schema);
        match self.load(&slot.spec) {
            Ok(s) => {
                *st = SlotState::Ready {
                    state: s.clone(),
                    stamp,
                };
                Ok(s)
            }
            Err(error) => {
                let error = format!("graph `{name}` is not available: {error}");
                tracing::warn!("{error}");
                eprintln!("gqlnav: {error}");
                *st = SlotState::Failed {
                    error: error.clone(),
                    stamp,
                };
                Err(error)
            }
        }
    }

    fn load(&self, spec: &GraphSpec) -> Result<Arc<AppState>, String> {
        let t0 = Instant::now();
        let graph = Arc::new(self.loader.schema(spec)?);
        let factory = self.loader.factory(spec)?;
        let tools = Toolbox::build(graph.clone(), Some(factory), spec.config.tools.clone())
            .map_err(|e| e.to_string())?;
        let mut config = spec.config.clone();
        config.compiled = CompiledTools::None;
        let docs = self.loader.docs(spec)?;
        let state = AppState::new(Arc::new(tools), config)
            .map_err(|e| e.to_string())?
            .with_docs(docs);
        tracing::info!(
            graph = spec.name.as_str(),
            fields = graph.field_count(),
            ms = t0.elapsed().as_millis() as u64,
            "graph loaded"
        );
        Ok(Arc::new(state))
    }

    /// Poll every loaded (or failed) graph's schema file each `every`, on one thread:
    /// a changed file is reloaded into that graph alone (a failure keeps its last good
    /// generation and is reported once); a failed graph whose file changes is tried
    /// again on its next use.
    pub fn watch(self: &Arc<Self>, every: Duration) {
        let set = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("gqlnav-graphs-reload".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                let Some(set) = set.upgrade() else {
                    return;
                };
                for slot in &set.slots {
                    if is_url(&slot.spec.schema) {
                        continue;
                    }
                    let now = mtime(&slot.spec.schema);
                    let state = {
                        let mut st = slot.state.lock().unwrap_or_else(|p| p.into_inner());
                        match &mut *st {
                            SlotState::Ready { state, stamp } if now.is_some() && now != *stamp => {
                                *stamp = now;
                                state.clone()
                            }
                            _ => continue,
                        }
                    };
                    set.reload_one(&slot.spec, &state);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the schema watch thread: {e}");
        }
    }

    fn reload_one(&self, spec: &GraphSpec, state: &AppState) {
        let t0 = Instant::now();
        let r = self
            .loader
            .schema(spec)
            .and_then(|g| state.tools.reload(Arc::new(g)).map_err(|e| e.to_string()));
        match r {
            Ok(generation) => {
                tracing::info!(
                    graph = spec.name.as_str(),
                    generation,
                    ms = t0.elapsed().as_millis() as u64,
                    "schema changed; graph reloaded"
                );
                eprintln!(
                    "gqlnav: graph `{}` reloaded (generation {generation})",
                    spec.name
                );
            }
            Err(e) => {
                tracing::warn!(
                    graph = spec.name.as_str(),
                    "schema changed but does not load; keeping the last good generation: {e}"
                );
                eprintln!(
                    "gqlnav: graph `{}`: schema changed but does not load; keeping the last good generation: {e}",
                    spec.name
                );
            }
        }
    }
}
