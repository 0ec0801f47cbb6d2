//! Shared server state: the toolbox (tools, current generation, upstream client) and the
//! server's own settings (listeners, hosts, logging).

use std::sync::Arc;

use gqlnav_tools::Toolbox;

use crate::config::ServeConfig;

/// State shared by every transport.
pub struct AppState {
    /// The tools and the generation they answer from.
    pub tools: Arc<Toolbox>,
    /// Merged configuration; `config.tools` is the toolbox's own.
    pub config: ServeConfig,
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
        AppState { tools, config }
    }
}
