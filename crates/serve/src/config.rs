//! Server configuration: a TOML file, overridden by `GQLNAV_*` environment variables,
//! overridden by command-line flags (the caller applies flags last).
//!
//! Every field has a safe default: loopback addresses, no mutations, bounded responses.
//! A complete example with every key is in `docs/serve.md`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gqlnav_tools::{MutationPolicy, ToolsConfig};
use serde::Deserialize;

/// The TOML file, section by section. Unknown keys are errors.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
    /// `[server]`
    pub server: ServerSection,
    /// `[upstream]`
    pub upstream: UpstreamSection,
    /// `[policy]`
    pub policy: PolicySection,
    /// `[search]`
    pub search: SearchSection,
    /// `[tools]`: compiled tools served beside the navigation tools.
    pub tools: ToolsSection,
    /// `[limits]`: operation cost limits (`max_depth`, `max_breadth`, `max_fields`,
    /// `max_spreads`, `max_result_estimate`, `assumed_list_size`, `max_tokens`).
    pub limits: Option<gqlnav_tools::CostLimits>,
}

/// `[server]`: listeners and logging.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSection {
    /// MCP streamable HTTP address (`127.0.0.1:8808`); absent = stdio.
    pub http: Option<String>,
    /// GraphQL endpoint address (`127.0.0.1:8809`); absent = none.
    pub graphql: Option<String>,
    /// Extra `Host` values accepted besides loopback (DNS-rebinding guard).
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s accepted (`http://localhost:*`); empty = loopback origins only.
    pub allowed_origins: Vec<String>,
    /// Log file (default: stderr).
    pub log_file: Option<PathBuf>,
    /// `tracing` filter, e.g. `info` or `gqlnav_serve=debug`.
    pub log_level: Option<String>,
    /// Seconds between schema-file mtime checks (0 = never reload).
    pub reload_poll_seconds: Option<u64>,
}

/// `[upstream]`: where `execute` and the GraphQL endpoint forward operations.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UpstreamSection {
    /// http(s) URL of the GraphQL API.
    pub endpoint: Option<String>,
    /// Trusted headers sent with every upstream request (`Authorization = "Bearer …"`).
    pub headers: std::collections::BTreeMap<String, String>,
    /// Whole-request timeout, seconds.
    pub timeout_seconds: Option<u64>,
    /// Connect timeout, seconds.
    pub connect_timeout_seconds: Option<u64>,
    /// Largest upstream response read, bytes.
    pub max_response_bytes: Option<u64>,
}

/// `[policy]`: what may run and how much comes back.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicySection {
    /// `"none"` (default), `"all"`, or a list of mutation operation names.
    pub allow_mutations: Option<toml::Value>,
    /// Deepest selection nesting.
    pub max_depth: Option<usize>,
    /// Largest tool result, bytes.
    pub max_result_bytes: Option<usize>,
    /// Largest tool result, tokens (o200k_base).
    pub max_result_tokens: Option<usize>,
    /// Largest HTTP request body accepted, bytes.
    pub max_request_bytes: Option<usize>,
    /// Most `__search` results and `__definitions` entries per GraphQL operation.
    pub max_local_results: Option<usize>,
    /// Largest locally answered GraphQL response, bytes.
    pub max_local_response_bytes: Option<usize>,
}

/// `[search]`: the ranker and its defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSection {
    /// Saved BM25 index directory (loaded if it matches the schema, else built there).
    pub index_dir: Option<PathBuf>,
    /// Paths to root per hit (default 2).
    pub paths_per_hit: Option<usize>,
    /// Largest `limit` a caller may ask for (default 50).
    pub max_limit: Option<usize>,
    /// Full results per owner type on a page, the rest folded into the first (default
    /// 1; 0 = no folding by type).
    pub per_type: Option<usize>,
}

/// `[tools]`: typed tools compiled from root fields (see `gqlnav tools`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolsSection {
    /// `"auto"`, or a list of root field names; absent = none.
    pub compiled: Option<toml::Value>,
    /// Most compiled tools served with `auto` (default 16).
    pub max_compiled: Option<usize>,
}

/// Which compiled tools the MCP server registers beside the four navigation tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CompiledTools {
    /// None (the default).
    #[default]
    None,
    /// The query root fields that reach the most of the schema, up to the cap.
    Auto,
    /// These root fields (mutations among them need the mutation policy to allow them).
    Names(Vec<String>),
}

impl CompiledTools {
    /// `auto`, `none`, or a comma-separated list of root field names.
    pub fn parse(s: &str) -> CompiledTools {
        match s.trim() {
            "" | "none" => CompiledTools::None,
            "auto" => CompiledTools::Auto,
            list => CompiledTools::Names(
                list.split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        }
    }
}

/// Default cap on `auto` compiled tools: a tool list an agent reads in one go.
pub const DEFAULT_MAX_COMPILED: usize = 16;

/// Everything the server needs, after file, env and flags are merged. `Debug` never
/// prints header values.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// MCP streamable HTTP address; `None` = stdio.
    pub http: Option<String>,
    /// GraphQL endpoint address.
    pub graphql: Option<String>,
    /// Extra accepted `Host` values.
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin`s.
    pub allowed_origins: Vec<String>,
    /// Log file; `None` = stderr.
    pub log_file: Option<PathBuf>,
    /// Log filter.
    pub log_level: String,
    /// Schema-file poll interval; `None` = no reload.
    pub reload_poll: Option<Duration>,
    /// Saved index directory (`gqlnav index`).
    pub index_dir: Option<PathBuf>,
    /// What the tools read: upstream, trusted headers, policy, page sizes.
    pub tools: ToolsConfig,
    /// Compiled tools to register (`--tools`).
    pub compiled: CompiledTools,
    /// Most compiled tools with `auto`.
    pub max_compiled: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            http: None,
            graphql: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            log_file: None,
            log_level: "info".into(),
            reload_poll: Some(Duration::from_secs(3)),
            index_dir: None,
            tools: ToolsConfig::default(),
            compiled: CompiledTools::None,
            max_compiled: DEFAULT_MAX_COMPILED,
        }
    }
}

/// A configuration problem; the message names the key or variable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {detail}")]
    Read {
        /// File path.
        path: String,
        /// Reason.
        detail: String,
    },
    /// The file is not valid TOML or has unknown keys.
    #[error("config file {path}: {detail}")]
    Parse {
        /// File path.
        path: String,
        /// Parser message.
        detail: String,
    },
    /// A value is malformed.
    #[error("{key}: {detail}")]
    Value {
        /// Key or env var.
        key: String,
        /// What is wrong.
        detail: String,
    },
}

pub(crate) fn mutation_policy_from_toml(v: &toml::Value) -> Result<MutationPolicy, ConfigError> {
    match v {
        toml::Value::String(s) => Ok(MutationPolicy::parse(s)),
        toml::Value::Array(a) => {
            let mut names = Vec::new();
            for x in a {
                match x.as_str() {
                    Some(s) => names.push(s.to_string()),
                    None => {
                        return Err(ConfigError::Value {
                            key: "policy.allow_mutations".into(),
                            detail: "expected \"none\", \"all\" or a list of operation names"
                                .into(),
                        })
                    }
                }
            }
            Ok(if names.is_empty() {
                MutationPolicy::None
            } else {
                MutationPolicy::Named(names)
            })
        }
        _ => Err(ConfigError::Value {
            key: "policy.allow_mutations".into(),
            detail: "expected \"none\", \"all\" or a list of operation names".into(),
        }),
    }
}

impl ServeConfig {
    /// Parse a TOML document (no env, no flags).
    pub fn from_toml_str(text: &str, path: &str) -> Result<ServeConfig, ConfigError> {
        let f: FileConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        Self::from_parsed(f)
    }

    /// The configuration a parsed file gives (no env, no flags).
    pub(crate) fn from_parsed(f: FileConfig) -> Result<ServeConfig, ConfigError> {
        let mut c = ServeConfig::default();
        let s = f.server;
        c.http = s.http;
        c.graphql = s.graphql;
        c.allowed_hosts = s.allowed_hosts;
        c.allowed_origins = s.allowed_origins;
        c.log_file = s.log_file;
        if let Some(l) = s.log_level {
            c.log_level = l;
        }
        if let Some(p) = s.reload_poll_seconds {
            c.reload_poll = (p > 0).then(|| Duration::from_secs(p));
        }
        let u = f.upstream;
        c.tools.endpoint = u.endpoint;
        for (k, v) in u.headers {
            let (k, v) = gqlnav_schema::parse_header(&format!("{k}: {v}")).map_err(|e| {
                ConfigError::Value {
                    key: "upstream.headers".into(),
                    detail: e.to_string(),
                }
            })?;
            c.tools.headers.push((k, v));
        }
        if let Some(t) = u.timeout_seconds {
            c.tools.policy.timeout = Duration::from_secs(t.max(1));
        }
        if let Some(t) = u.connect_timeout_seconds {
            c.tools.policy.connect_timeout = Duration::from_secs(t.max(1));
        }
        if let Some(b) = u.max_response_bytes {
            c.tools.policy.max_response_bytes = b;
        }
        let p = f.policy;
        if let Some(v) = &p.allow_mutations {
            c.tools.policy.mutations = mutation_policy_from_toml(v)?;
        }
        if let Some(d) = p.max_depth {
            c.tools.policy.cost.max_depth = d;
        }
        if let Some(b) = p.max_result_bytes {
            c.tools.policy.max_result_bytes = b;
        }
        if let Some(t) = p.max_result_tokens {
            c.tools.policy.max_result_tokens = t;
        }
        if let Some(b) = p.max_request_bytes {
            c.tools.policy.max_request_bytes = b;
        }
        if let Some(n) = p.max_local_results {
            c.tools.policy.max_local_results = n;
        }
        if let Some(b) = p.max_local_response_bytes {
            c.tools.policy.max_local_response_bytes = b;
        }
        match &f.tools.compiled {
            None => {}
            Some(toml::Value::String(v)) => c.compiled = CompiledTools::parse(v),
            Some(toml::Value::Array(a)) => {
                let names: Option<Vec<String>> =
                    a.iter().map(|x| x.as_str().map(str::to_string)).collect();
                c.compiled = CompiledTools::Names(names.ok_or_else(|| ConfigError::Value {
                    key: "tools.compiled".into(),
                    detail: "expected \"auto\" or a list of root field names".into(),
                })?);
            }
            Some(_) => {
                return Err(ConfigError::Value {
                    key: "tools.compiled".into(),
                    detail: "expected \"auto\" or a list of root field names".into(),
                })
            }
        }
        if let Some(n) = f.tools.max_compiled {
            c.max_compiled = n.max(1);
        }
        if let Some(l) = f.limits {
            let depth = p.max_depth.unwrap_or(l.max_depth);
            c.tools.policy.cost = gqlnav_tools::CostLimits {
                max_depth: depth,
                ..l
            };
        }
        let q = f.search;
        c.index_dir = q.index_dir;
        if let Some(n) = q.paths_per_hit {
            c.tools.paths_per_hit = n;
        }
        if let Some(n) = q.max_limit {
            c.tools.max_limit = n.max(1);
        }
        if let Some(n) = q.per_type {
            c.tools.per_type = n;
        }
        Ok(c)
    }

    /// Read a TOML file.
    pub fn from_file(path: &Path) -> Result<ServeConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// Apply `GQLNAV_*` environment variables (see `docs/serve.md` for the list).
    pub fn apply_env(&mut self) -> Result<(), ConfigError> {
        self.apply_env_from(|k| std::env::var(k).ok())
    }

    /// [`ServeConfig::apply_env`] with an explicit lookup (for tests).
    pub fn apply_env_from(
        &mut self,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        fn num<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, ConfigError> {
            v.trim().parse().map_err(|_| ConfigError::Value {
                key: key.into(),
                detail: format!("`{v}` is not a number"),
            })
        }
        if let Some(v) = get("GQLNAV_HTTP") {
            self.http = Some(v);
        }
        if let Some(v) = get("GQLNAV_GRAPHQL") {
            self.graphql = Some(v);
        }
        if let Some(v) = get("GQLNAV_ENDPOINT") {
            self.tools.endpoint = Some(v);
        }
        if let Some(v) = get("GQLNAV_HEADERS") {
            let hs = gqlnav_schema::parse_headers_env(&v).map_err(|e| ConfigError::Value {
                key: "GQLNAV_HEADERS".into(),
                detail: e.to_string(),
            })?;
            self.tools.headers.extend(hs);
        }
        if let Some(v) = get("GQLNAV_ALLOW_MUTATIONS") {
            self.tools.policy.mutations = MutationPolicy::parse(&v);
        }
        if let Some(v) = get("GQLNAV_LOG_FILE") {
            self.log_file = Some(PathBuf::from(v));
        }
        if let Some(v) = get("GQLNAV_LOG") {
            self.log_level = v;
        }
        if let Some(v) = get("GQLNAV_INDEX_DIR") {
            self.index_dir = Some(PathBuf::from(v));
        }
        if let Some(v) = get("GQLNAV_MAX_DEPTH") {
            self.tools.policy.cost.max_depth = num("GQLNAV_MAX_DEPTH", &v)?;
        }
        if let Some(v) = get("GQLNAV_TIMEOUT") {
            self.tools.policy.timeout =
                Duration::from_secs(num::<u64>("GQLNAV_TIMEOUT", &v)?.max(1));
        }
        if let Some(v) = get("GQLNAV_MAX_RESPONSE_BYTES") {
            self.tools.policy.max_response_bytes = num("GQLNAV_MAX_RESPONSE_BYTES", &v)?;
        }
        if let Some(v) = get("GQLNAV_MAX_RESULT_TOKENS") {
            self.tools.policy.max_result_tokens = num("GQLNAV_MAX_RESULT_TOKENS", &v)?;
        }
        if let Some(v) = get("GQLNAV_RELOAD_SECONDS") {
            let s: u64 = num("GQLNAV_RELOAD_SECONDS", &v)?;
            self.reload_poll = (s > 0).then(|| Duration::from_secs(s));
        }
        Ok(())
    }

    /// Check the endpoint URL (http/https only) and the listen addresses.
    pub fn check(&self) -> Result<(), ConfigError> {
        if let Some(e) = &self.tools.endpoint {
            gqlnav_schema::check_http_url(e).map_err(|e| ConfigError::Value {
                key: "endpoint".into(),
                detail: e.to_string(),
            })?;
        }
        for (key, a) in [("http", &self.http), ("graphql", &self.graphql)] {
            if let Some(a) = a {
                a.parse::<std::net::SocketAddr>()
                    .map_err(|_| ConfigError::Value {
                        key: key.into(),
                        detail: format!("`{a}` is not an address like 127.0.0.1:8808"),
                    })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_section_sets_the_cost_limits_and_unknown_keys_are_named() {
        let c = ServeConfig::from_toml_str(
            "[limits]\nmax_breadth = 50\nmax_spreads = 10\n[policy]\nmax_local_results = 7\n",
            "t.toml",
        )
        .expect("parses");
        let l = c.tools.policy.cost;
        assert_eq!((l.max_breadth, l.max_spreads), (50, 10));
        assert_eq!(l.max_depth, gqlnav_tools::CostLimits::default().max_depth);
        assert_eq!(c.tools.policy.max_local_results, 7);
        let e = ServeConfig::from_toml_str("[limits]\nmax_bredth = 5\n", "t.toml").unwrap_err();
        assert!(e.to_string().contains("max_bredth"), "{e}");
    }

    #[test]
    fn file_env_and_policy_merge() {
        let c = ServeConfig::from_toml_str(
            r#"
[server]
http = "127.0.0.1:9000"
[upstream]
endpoint = "http://127.0.0.1:4000/graphql"
headers = { Authorization = "Bearer s3cret" }
[policy]
allow_mutations = ["CreateIssue"]
max_depth = 7
"#,
            "t.toml",
        )
        .unwrap();
        assert_eq!(c.http.as_deref(), Some("127.0.0.1:9000"));
        assert_eq!(c.tools.policy.cost.max_depth, 7);
        assert!(c.tools.policy.mutations.allows(Some("CreateIssue")));
        assert!(!c.tools.policy.mutations.allows(Some("DeleteIssue")));
        assert!(!c.tools.policy.mutations.allows(None));
        assert_eq!(c.tools.headers.len(), 1);
        let mut c = c;
        c.apply_env_from(|k| match k {
            "GQLNAV_ALLOW_MUTATIONS" => Some("all".into()),
            "GQLNAV_HEADERS" => Some("X-Extra: 1\n".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.tools.policy.mutations, MutationPolicy::All);
        assert_eq!(c.tools.headers.len(), 2);
        assert!(c.check().is_ok());
        c.tools.endpoint = Some("file:///etc/passwd".into());
        assert!(c.check().is_err());
        assert!(ServeConfig::from_toml_str("[server]\nbogus = 1", "x").is_err());
        assert_eq!(MutationPolicy::parse(""), MutationPolicy::None);
    }
}
