//! Shared server state: the toolbox (tools, current generation, upstream client) and the
//! server's own settings (listeners, hosts, logging).

use std::sync::{Arc, Mutex};

use apollo_compiler::Schema;
use gqlnav_tools::{Generation, Toolbox};

use crate::graphql::Introspection;

use crate::config::ServeConfig;

/// State shared by every transport.
pub struct AppState {
    /// The tools and the generation they answer from.
    pub tools: Arc<Toolbox>,
    /// Merged configuration; `config.tools` is the toolbox's own.
    pub config: ServeConfig,
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
    /// Serve `tools` with `config` (whose `tools` part should be the toolbox's).
    pub fn new(tools: Arc<Toolbox>, config: ServeConfig) -> Self {
        AppState {
            tools,
            config,
            introspection: Mutex::new(None),
        }
    }

    /// The introspection of `generation`'s served schema, made once per generation.
    pub(crate) fn introspection(
        &self,
        generation: &Generation,
        served: &Schema,
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
