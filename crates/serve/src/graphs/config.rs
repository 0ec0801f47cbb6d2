//! The graphs file (`gqlnav serve --graphs graphs.toml`): one `[[graph]]` table per
//! graph, `[[credential]]` tables for scopes, and the `[server]` and `[policy]` sections
//! of the single-graph config file.
//!
//! ```toml
//! index_root = "indexes"            # optional: a graph's saved index is index_root/NAME
//!
//! [server]
//! http = "127.0.0.1:8808"
//!
//! [[graph]]
//! name = "github"
//! schema = "schemas/github.graphql" # PATH, http(s) URL or builtin:github
//! endpoint = "https://api.github.com/graphql"
//! headers = { Authorization = "Bearer …" }  # secret: never printed
//! allow_mutations = "none"
//! docs = "docs/github"              # optional: search_docs for this graph
//!
//! [[credential]]
//! name = "team-a"                   # shown in logs only
//! token = "…"                       # HTTP `Authorization: Bearer …` (or `header`)
//! graphs = ["github"]               # or ["*"]
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::{ConfigError, FileConfig, ServeConfig};

/// The most graphs one file may name: the scale the server is measured at
/// (docs/serve.md, 1,000 graphs).
pub const MAX_GRAPHS: usize = 10_000;

/// One `[[graph]]` table as written.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphTable {
    name: String,
    schema: String,
    #[serde(default)]
    endpoint: Option<String>,
    #[serde(default)]
    headers: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    allow_mutations: Option<toml::Value>,
    #[serde(default)]
    index: Option<PathBuf>,
    #[serde(default)]
    docs: Option<String>,
    #[serde(default)]
    docs_index: Option<PathBuf>,
    #[serde(default)]
    timeout_seconds: Option<u64>,
}

/// One `[[credential]]` table as written.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialTable {
    #[serde(default)]
    name: Option<String>,
    token: String,
    #[serde(default)]
    header: Option<String>,
    graphs: Vec<String>,
}

/// The whole file as written: the single-graph sections plus the graph and credential
/// tables.
#[derive(Default, Deserialize)]
struct GraphsFileToml {
    #[serde(default)]
    index_root: Option<PathBuf>,
    #[serde(default)]
    graph: Vec<GraphTable>,
    #[serde(default)]
    credential: Vec<CredentialTable>,
    #[serde(flatten)]
    rest: toml::Table,
}

/// One graph a server serves.
#[derive(Clone)]
pub struct GraphSpec {
    /// The name tools take as `graph` and the GraphQL endpoint's path (`/graphql/NAME`).
    pub name: String,
    /// Schema source: a file path or an http(s) URL.
    pub schema: String,
    /// The graph's saved index (`gqlnav index --graphs`), when there is one.
    pub index: Option<PathBuf>,
    /// Documentation served by `search_docs` for this graph: a saved docs index, a folder
    /// of HTML/Markdown, a site root or a sitemap URL.
    pub docs: Option<String>,
    /// Where a docs source is indexed (default: the user's cache, by source).
    pub docs_index: Option<PathBuf>,
    /// The server settings with this graph's upstream, headers and policy.
    pub config: ServeConfig,
}

impl std::fmt::Debug for GraphSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphSpec")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .field("index", &self.index)
            .field("endpoint", &self.config.tools.endpoint)
            .field(
                "headers",
                &format!("{} hidden", self.config.tools.headers.len()),
            )
            .finish()
    }
}

/// Who may see which graphs: a token sent as `Authorization: Bearer TOKEN`, or as the
/// value of the named header.
#[derive(Clone)]
pub struct Credential {
    /// A label for logs.
    pub name: String,
    /// The secret (never printed).
    pub token: String,
    /// The header it comes in; `None` = `Authorization: Bearer`.
    pub header: Option<String>,
    /// The graphs it may see; `None` = all.
    pub graphs: Option<BTreeSet<String>>,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("name", &self.name)
            .field("token", &"<hidden>")
            .field("header", &self.header)
            .field("graphs", &self.graphs)
            .finish()
    }
}

/// A graphs file, read and checked.
#[derive(Debug, Clone)]
pub struct GraphsFile {
    /// Listeners, logging and the shared policy (from `[server]`, `[policy]`, …).
    pub server: ServeConfig,
    /// The graphs, in file order.
    pub graphs: Vec<GraphSpec>,
    /// The credentials; empty = every caller sees every graph.
    pub credentials: Vec<Credential>,
}

fn value(key: impl Into<String>, detail: impl Into<String>) -> ConfigError {
    ConfigError::Value {
        key: key.into(),
        detail: detail.into(),
    }
}

/// A graph name: letters, digits, `_` and `-`, at most 64 characters (it is a URL path
/// segment and an enum value in tool schemas).
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err("a graph name has 1 to 64 characters".into());
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "`{name}`: a graph name has only letters, digits, `_` and `-`"
        ));
    }
    Ok(())
}

impl GraphsFile {
    /// Whether a config file holds `[[graph]]` tables (then it is a graphs file).
    pub fn holds_graphs(path: &Path) -> Result<bool, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        Ok(text
            .parse::<toml::Table>()
            .is_ok_and(|t| t.contains_key("graph")))
    }

    /// Read a graphs file; relative paths in it are read from the file's folder.
    pub fn from_file(path: &Path) -> Result<GraphsFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_toml_str(&text, &path.display().to_string(), base)
    }

    /// Parse a graphs file; `base` resolves relative schema and index paths.
    pub fn from_toml_str(text: &str, path: &str, base: &Path) -> Result<GraphsFile, ConfigError> {
        let f: GraphsFileToml = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        // The shared sections are the single-graph file's, minus what is per graph.
        let shared: FileConfig =
            toml::Value::Table(f.rest)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    path: path.to_string(),
                    detail: e.to_string(),
                })?;
        if shared.upstream.endpoint.is_some() || !shared.upstream.headers.is_empty() {
            return Err(value(
                "upstream",
                "with [[graph]] tables, each graph names its own `endpoint` and `headers`",
            ));
        }
        if shared.search.index_dir.is_some() {
            return Err(value(
                "search.index_dir",
                "with [[graph]] tables, use `index` per graph or `index_root`",
            ));
        }
        let server = ServeConfig::from_parsed(shared)?;
        if f.graph.is_empty() {
            return Err(value(
                "graph",
                "the file names no graph: add a [[graph]] table with `name` and `schema`",
            ));
        }
        if f.graph.len() > MAX_GRAPHS {
            return Err(value(
                "graph",
                format!("{} graphs; at most {MAX_GRAPHS}", f.graph.len()),
            ));
        }
        let resolve = |p: &Path| -> PathBuf {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        let mut seen = BTreeSet::new();
        let mut graphs = Vec::new();
        for (i, g) in f.graph.into_iter().enumerate() {
            let key = format!("graph[{i}]");
            check_name(&g.name).map_err(|d| value(format!("{key}.name"), d))?;
            if !seen.insert(g.name.clone()) {
                return Err(value(
                    format!("{key}.name"),
                    format!("`{}` is named twice; graph names are unique", g.name),
                ));
            }
            graphs.push(graph_spec(
                g,
                &server,
                &key,
                &resolve,
                f.index_root.as_deref(),
            )?);
        }
        let credentials = f
            .credential
            .into_iter()
            .enumerate()
            .map(|(i, c)| credential(c, i, &seen))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GraphsFile {
            server,
            graphs,
            credentials,
        })
    }
}

fn graph_spec(
    g: GraphTable,
    server: &ServeConfig,
    key: &str,
    resolve: &dyn Fn(&Path) -> PathBuf,
    index_root: Option<&Path>,
) -> Result<GraphSpec, ConfigError> {
    let mut config = server.clone();
    // Most graphs of a multi-graph server never slice: build a graph's slicer on its
    // first budgeted search (docs/serve.md, "Many graphs": the memory it saves).
    config.tools.slicer_in_background = false;
    config.tools.endpoint = g.endpoint;
    for (k, v) in g.headers {
        let (k, v) = gqlnav_schema::parse_header(&format!("{k}: {v}"))
            .map_err(|e| value(format!("{key}.headers"), e.to_string()))?;
        config.tools.headers.push((k, v));
    }
    if let Some(v) = &g.allow_mutations {
        config.tools.policy.mutations = crate::config::mutation_policy_from_toml(v)?;
    }
    if let Some(t) = g.timeout_seconds {
        config.tools.policy.timeout = std::time::Duration::from_secs(t.max(1));
    }
    config.check().map_err(|e| value(key, e.to_string()))?;
    let schema = if g.schema.starts_with("http://")
        || g.schema.starts_with("https://")
        || g.schema.starts_with("builtin:")
    {
        g.schema
    } else if g.schema.trim().is_empty() {
        return Err(value(
            format!("{key}.schema"),
            "empty: a file path or an http(s) URL",
        ));
    } else {
        resolve(Path::new(&g.schema)).display().to_string()
    };
    let index = match (g.index, index_root) {
        (Some(p), _) => Some(resolve(&p)),
        (None, Some(root)) => Some(resolve(&root.join(&g.name))),
        (None, None) => None,
    };
    let docs = g.docs.map(|d| {
        if d.starts_with("http://") || d.starts_with("https://") {
            d
        } else {
            resolve(Path::new(&d)).display().to_string()
        }
    });
    Ok(GraphSpec {
        name: g.name,
        schema,
        index,
        docs,
        docs_index: g.docs_index.map(|p| resolve(&p)),
        config,
    })
}

fn credential(
    c: CredentialTable,
    i: usize,
    names: &BTreeSet<String>,
) -> Result<Credential, ConfigError> {
    let key = format!("credential[{i}]");
    if c.token.trim().len() < 8 {
        return Err(value(
            format!("{key}.token"),
            "a token has at least 8 characters",
        ));
    }
    let graphs = if c.graphs.iter().any(|g| g == "*") {
        None
    } else {
        for g in &c.graphs {
            if !names.contains(g) {
                return Err(value(
                    format!("{key}.graphs"),
                    format!("no graph is named `{g}`"),
                ));
            }
        }
        Some(c.graphs.into_iter().collect())
    };
    Ok(Credential {
        name: c.name.unwrap_or_else(|| format!("credential {i}")),
        token: c.token.trim().to_string(),
        header: c.header.map(|h| h.to_ascii_lowercase()),
        graphs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GraphsFile, ConfigError> {
        GraphsFile::from_toml_str(text, "graphs.toml", Path::new("/srv"))
    }

    #[test]
    fn graphs_credentials_and_shared_sections_are_read() {
        let f = parse(
            r#"
index_root = "idx"
[server]
http = "127.0.0.1:0"
[policy]
max_depth = 9
[[graph]]
name = "gh"
schema = "gh.graphql"
endpoint = "http://127.0.0.1:4000/graphql"
headers = { Authorization = "Bearer s3cret-gh" }
[[graph]]
name = "lin"
schema = "https://example.com/schema.graphql"
index = "/abs/lin"
allow_mutations = "all"
[[credential]]
token = "token-aaaa"
graphs = ["gh"]
[[credential]]
token = "token-bbbb"
header = "X-Api-Key"
graphs = ["*"]
"#,
        )
        .expect("parses");
        assert_eq!(f.graphs.len(), 2);
        assert_eq!(f.graphs[0].schema, "/srv/gh.graphql");
        assert_eq!(f.graphs[0].index.as_deref(), Some(Path::new("/srv/idx/gh")));
        assert_eq!(f.graphs[1].index.as_deref(), Some(Path::new("/abs/lin")));
        assert_eq!(f.graphs[0].config.tools.policy.cost.max_depth, 9);
        assert_eq!(f.graphs[0].config.tools.headers.len(), 1);
        assert!(f.graphs[1].config.tools.headers.is_empty());
        assert!(f.graphs[1].config.tools.policy.mutations.allows(Some("X")));
        assert!(!f.graphs[0].config.tools.policy.mutations.allows(Some("X")));
        assert_eq!(f.credentials[1].header.as_deref(), Some("x-api-key"));
        assert!(f.credentials[1].graphs.is_none());
        let shown = format!("{:?} {:?}", f.graphs, f.credentials);
        assert!(
            !shown.contains("s3cret") && !shown.contains("token-aaaa"),
            "{shown}"
        );
    }

    #[test]
    fn bad_files_say_what_to_fix() {
        let two = "[[graph]]\nname = \"a\"\nschema = \"a.graphql\"\n[[graph]]\nname = \"a\"\nschema = \"b.graphql\"\n";
        let e = parse(two).unwrap_err().to_string();
        assert!(e.contains("`a` is named twice"), "{e}");
        let e = parse("[server]\nhttp = \"127.0.0.1:0\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("names no graph"), "{e}");
        let e = parse("[[graph]]\nname = \"a b\"\nschema = \"a.graphql\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("only letters"), "{e}");
        let e = parse("[[graph]]\nname = \"a\"\nschema = \"a.graphql\"\n[[credential]]\ntoken = \"12345678\"\ngraphs = [\"b\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no graph is named `b`"), "{e}");
        let e =
            parse("[[graph]]\nname = \"a\"\nschema = \"a.graphql\"\nendpoint = \"file:///x\"\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("graph[0]"), "{e}");
        let e =
            parse("[upstream]\nendpoint = \"http://x\"\n[[graph]]\nname = \"a\"\nschema = \"a\"\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("each graph names its own"), "{e}");
        let e = parse("[[graph]]\nname = \"a\"\nschema = \"a\"\nbogus = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus"), "{e}");
    }
}
