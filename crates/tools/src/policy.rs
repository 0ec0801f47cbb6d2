//! What the tools may do: the execution policy (mutations, depth, sizes, time) and the
//! settings every tool reads (upstream, trusted headers, page sizes).

use std::time::Duration;

use crate::cost::CostLimits;

/// The largest `limit` a `search_schema` call may ask for, by default
/// ([`ToolsConfig::max_limit`]).
pub const MAX_SEARCH_LIMIT: usize = 50;

/// Which mutations `execute` may send upstream. Default: none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MutationPolicy {
    /// Refuse every mutation (the default).
    #[default]
    None,
    /// Allow mutations whose operation name is in the list (an anonymous mutation is refused).
    Named(Vec<String>),
    /// Allow every mutation.
    All,
}

impl MutationPolicy {
    /// Parse `none`, `all`, or a comma-separated list of operation names.
    pub fn parse(s: &str) -> MutationPolicy {
        let s = s.trim();
        match s {
            "" | "none" => MutationPolicy::None,
            "all" | "*" => MutationPolicy::All,
            list => MutationPolicy::Named(
                list.split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        }
    }

    /// May a mutation with this operation name run?
    pub fn allows(&self, operation_name: Option<&str>) -> bool {
        match self {
            MutationPolicy::None => false,
            MutationPolicy::All => true,
            MutationPolicy::Named(names) => {
                operation_name.is_some_and(|n| names.iter().any(|x| x == n))
            }
        }
    }
}

/// Limits applied to `execute` and to the GraphQL endpoint.
#[derive(Debug, Clone)]
pub struct ExecPolicy {
    /// Which mutations may run.
    pub mutations: MutationPolicy,
    /// Operation cost limits (depth, breadth, fragments, result size), checked before
    /// validation, execution or forwarding.
    pub cost: CostLimits,
    /// Most `__search` results and `__definitions` entries one operation on the GraphQL
    /// endpoint may return in all (aliases included).
    pub max_local_results: usize,
    /// Largest locally answered GraphQL response, bytes (introspection, `__search`).
    pub max_local_response_bytes: usize,
    /// Largest upstream response body read, in bytes (the read stops there).
    pub max_response_bytes: u64,
    /// Largest tool result shown to the model, in bytes (cut with a marker).
    pub max_result_bytes: usize,
    /// Largest tool result shown to the model, in tokens (o200k_base; cut with a marker).
    pub max_result_tokens: usize,
    /// Whole-request timeout for upstream calls.
    pub timeout: Duration,
    /// Connect timeout for upstream calls.
    pub connect_timeout: Duration,
    /// Largest accepted HTTP request body on the MCP and GraphQL endpoints, in bytes.
    pub max_request_bytes: usize,
}

impl Default for ExecPolicy {
    fn default() -> Self {
        ExecPolicy {
            mutations: MutationPolicy::None,
            cost: CostLimits::default(),
            max_local_results: 500,
            // A whole `__schema` introspection of GitHub is several MB: 16 MiB leaves
            // room for one.
            max_local_response_bytes: 16 * 1024 * 1024,
            max_response_bytes: 4 * 1024 * 1024,
            max_result_bytes: 64 * 1024,
            max_result_tokens: 6_000,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_request_bytes: 1024 * 1024,
        }
    }
}

/// Everything the tools read besides the schema: the upstream, its trusted headers, the
/// policy and page sizes. `Debug` never prints header values.
#[derive(Clone)]
pub struct ToolsConfig {
    /// Upstream GraphQL endpoint (http/https) for `execute`; `None` = execute unavailable.
    pub endpoint: Option<String>,
    /// Trusted upstream headers, in order. Never printed.
    pub headers: Vec<(String, String)>,
    /// Execution policy.
    pub policy: ExecPolicy,
    /// Paths to root per search hit.
    pub paths_per_hit: usize,
    /// Largest `limit` a caller may ask for.
    pub max_limit: usize,
    /// Full results per owner type on a search page: lower-ranked fields of a type that
    /// already has this many fold into its first result (`more: T.a, T.b`), so one word
    /// matching one type's fields cannot fill the page; 0 turns folding by type off.
    pub per_type: usize,
    /// Build each generation's slicer on a background thread as soon as the index is
    /// ready (the first budgeted search does not wait), or only when the first budgeted
    /// search asks for it (a multi-graph server, where most graphs never slice: the
    /// slicer and its warmed root paths are the largest part of a loaded graph).
    pub slicer_in_background: bool,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        ToolsConfig {
            endpoint: None,
            headers: Vec::new(),
            policy: ExecPolicy::default(),
            paths_per_hit: 2,
            max_limit: MAX_SEARCH_LIMIT,
            // Chosen left-one-API-out on github, linear and singapore (2026-12-03,
            // docs/archive/history.md; tools bench, page policy, 0 / 4 / 3 / 2 / 1): every
            // fold's left-out API rises at 1, and the dev set goes 23.1% -> 38.0% shown in
            // one call, 54.6% -> 57.2% within three, at 4,905 -> 4,631 tokens read.
            per_type: 1,
            slicer_in_background: true,
        }
    }
}

impl std::fmt::Debug for ToolsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ToolsConfig")
            .field(
                "endpoint",
                &self.endpoint.as_deref().map(gqlnav_schema::redact_url),
            )
            .field("headers", &names)
            .field("policy", &self.policy)
            .field("paths_per_hit", &self.paths_per_hit)
            .field("max_limit", &self.max_limit)
            .field("per_type", &self.per_type)
            .finish()
    }
}
