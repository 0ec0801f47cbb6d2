//! Shared server state: the toolbox (tools, current generation, upstream client) and the
//! server's own settings (listeners, hosts, logging).

use std::sync::{Arc, Mutex};

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use gqlnav_docs::LiveDocs;
use gqlnav_tools::{
    compile, root_fields_by_reach, CompileOptions, Generation, MutationAllow, MutationPolicy,
    NavTool, ToolSet, Toolbox,
};

use crate::graphql::Introspection;

use crate::config::{CompiledTools, ServeConfig};
use crate::error::ServeError;

/// State shared by every transport.
pub struct AppState {
    /// The tools and the generation they answer from.
    pub tools: Arc<Toolbox>,
    /// Merged configuration; `config.tools` is the toolbox's own.
    pub config: ServeConfig,
    /// Typed tools compiled from root fields at start (`--tools`); a schema reload does
    /// not change the list, and each call is checked against the current schema.
    pub compiled: Option<Arc<ToolSet>>,
    /// The documentation index `search_docs` answers from (`--docs`), when served.
    pub docs: Option<Arc<LiveDocs>>,
    /// The GraphQL endpoint's introspection of the current generation's served schema.
    introspection: Mutex<Option<(u64, Arc<Introspection>)>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Serve `tools` with `config` (whose `tools` part should be the toolbox's), compiling
    /// the tools `config.compiled` names.
    pub fn new(tools: Arc<Toolbox>, config: ServeConfig) -> Result<Self, ServeError> {
        let compiled = compile_for(&tools, &config)?.map(Arc::new);
        Ok(AppState {
            tools,
            config,
            compiled,
            docs: None,
            introspection: Mutex::new(None),
        })
    }

    /// Also serve `search_docs` over `docs`.
    pub fn with_docs(mut self, docs: Option<Arc<LiveDocs>>) -> Self {
        self.docs = docs;
        self
    }

    /// The introspection of `generation`'s served schema, made once per generation.
    pub(crate) fn introspection(
        &self,
        generation: &Generation,
        served: &Valid<Schema>,
    ) -> Result<Arc<Introspection>, String> {
        let mut slot = self.introspection.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((n, i)) = slot.as_ref() {
            if *n == generation.number {
                return Ok(i.clone());
            }
        }
        let i = Arc::new(Introspection::new(served)?);
        *slot = Some((generation.number, i.clone()));
        Ok(i)
    }
}

/// The compiled tool set `config.compiled` asks for. Mutations compile only when the
/// execute policy allows them: `all`, or by operation name (the compiled operation of
/// `issueCreate` is named `IssueCreate`; either spelling is accepted).
fn compile_for(tools: &Toolbox, config: &ServeConfig) -> Result<Option<ToolSet>, ServeError> {
    let graph = tools.generation().graph.clone();
    let select = match &config.compiled {
        CompiledTools::None => return Ok(None),
        CompiledTools::Auto => root_fields_by_reach(&graph, config.max_compiled),
        CompiledTools::Names(v) => v.clone(),
    };
    let allow_mutations = match &config.tools.policy.mutations {
        MutationPolicy::None => MutationAllow::None,
        MutationPolicy::All => MutationAllow::All,
        MutationPolicy::Named(names) => MutationAllow::Names(
            names
                .iter()
                .flat_map(|n| {
                    let mut c = n.chars();
                    let lower = c
                        .next()
                        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                        .unwrap_or_default();
                    [n.clone(), lower]
                })
                .collect(),
        ),
    };
    let mut set = compile(
        &graph,
        &CompileOptions {
            select: Some(select),
            allow_mutations,
            ..CompileOptions::default()
        },
    )?;
    for t in &mut set.tools {
        // A compiled tool named like a navigation tool is served as `query_NAME`.
        if NavTool::from_name(&t.name).is_some() {
            t.name = format!("query_{}", t.name);
        }
    }
    Ok(Some(set))
}
