//! `gqlnav index`: build a ranker's index once and save it, so `gqlnav serve --index-dir`
//! starts without indexing.

use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use gqlnav_search::{SearchBackend, SearchContext};

use crate::backends::{BackendArgs, BackendSpec};

/// Load the saved index in `dir` for this ranker over `ctx`.
pub fn load(
    dir: &Path,
    _backend: &BackendArgs,
    _spec: &BackendSpec,
    _ctx: &SearchContext,
) -> Result<Arc<dyn SearchBackend>> {
    anyhow::bail!("saved index {} cannot be read yet", dir.display())
}
