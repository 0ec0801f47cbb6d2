//! Shared CLI plumbing: schema sources, corpus contexts, output helpers.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use gqlnav_corpus::{Corpus, CorpusOptions, Encoding, RenderedCorpus, Rendering};
use gqlnav_schema::{EndpointOptions, SchemaGraph};

/// The embedded default schema: GitHub's public schema as the WG suite snapshots it.
pub const EMBEDDED_GITHUB_SDL: &str =
    include_str!("../../../benchmarks/wg/schemas/github/schema.graphql");
/// The embedded default question set: the instrument's TSV of the 200 GitHub questions.
pub const EMBEDDED_GITHUB_TSV: &str = include_str!("../../../benchmarks/wg/github-wg.tsv");
/// The embedded demo schema.
pub const EMBEDDED_DEMO_SDL: &str = include_str!("../assets/demo.graphql");

/// Where the schema comes from.
#[derive(Args, Debug, Clone)]
pub struct SchemaArgs {
    /// Schema source: an SDL file (.graphql/.graphqls), an introspection JSON file
    /// (.json), an http(s):// endpoint to introspect, or `builtin:github` /
    /// `builtin:demo`. Default: the embedded GitHub schema.
    #[arg(long, short = 's', value_name = "PATH|URL", env = "GQLNAV_SCHEMA")]
    pub schema: Option<String>,
    /// Request header for an endpoint, `Name: value` (repeatable). Never printed.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Largest accepted introspection response, in bytes.
    #[arg(long, default_value_t = 32 * 1024 * 1024, value_name = "BYTES")]
    pub max_response_bytes: u64,
    /// Largest schema file read, in bytes (a bigger file is refused before it is read).
    #[arg(long, default_value_t = gqlnav_schema::DEFAULT_MAX_SCHEMA_BYTES, value_name = "BYTES")]
    pub max_schema_bytes: u64,
    /// Timeout of the introspection request when --schema is a URL, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub schema_timeout: u64,
    /// Print every schema warning (default: a count and the first three).
    #[arg(long)]
    pub all_warnings: bool,
}

impl SchemaArgs {
    pub fn endpoint_options(&self) -> Result<EndpointOptions> {
        let mut headers = Vec::new();
        if let Ok(env) = std::env::var("GQLNAV_HEADERS") {
            headers.extend(gqlnav_schema::parse_headers_env(&env)?);
        }
        for h in &self.headers {
            headers.push(gqlnav_schema::parse_header(h)?);
        }
        Ok(EndpointOptions {
            headers,
            max_response_bytes: self.max_response_bytes,
            timeout: Duration::from_secs(self.schema_timeout),
            connect_timeout: Duration::from_secs(self.schema_timeout.min(10)),
            max_file_bytes: self.max_schema_bytes,
            ..EndpointOptions::default()
        })
    }

    /// Load the schema; warnings go to stderr.
    /// These flags (caps, timeouts) for one graph of a graphs file: its schema source and
    /// its upstream headers (an endpoint to introspect takes the same credentials).
    pub fn for_graph(&self, spec: &gqlnav_serve::GraphSpec) -> SchemaArgs {
        let mut a = self.clone();
        a.schema = Some(spec.schema.clone());
        a.headers = spec
            .config
            .tools
            .headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        a
    }

    pub fn load(&self, quiet: bool) -> Result<SchemaGraph> {
        let src = self.schema.as_deref().unwrap_or("builtin:github");
        let g = match src {
            "builtin:github" => gqlnav_schema::load_sdl_str(EMBEDDED_GITHUB_SDL, "builtin:github")?,
            "builtin:demo" => gqlnav_schema::load_sdl_str(EMBEDDED_DEMO_SDL, "builtin:demo")?,
            _ => {
                if !src.contains("://") && !Path::new(src).exists() {
                    bail!("schema `{src}` not found: give an SDL file, an introspection JSON file, an http(s):// URL, or builtin:github");
                }
                gqlnav_schema::load(src, &self.endpoint_options()?)?
            }
        };
        if !quiet && !g.warnings.is_empty() {
            let n = g.warnings.len();
            let show = if self.all_warnings { n } else { n.min(3) };
            eprintln!(
                "warning: {n} problem(s) in {}; loaded what could be loaded",
                g.source
            );
            for w in g.warnings.iter().take(show) {
                eprintln!("  {w}");
            }
            if show < n {
                eprintln!("  … {} more (use --all-warnings)", n - show);
            }
        }
        Ok(g)
    }
}

/// `o200k_base`, `cl100k_base` or `tokenizer:PATH` (a Hugging Face tokenizer.json).
pub fn parse_encoding(s: &str) -> Result<Encoding, String> {
    Encoding::from_spec(s)
}

pub fn parse_renderings(list: &[String]) -> Result<Vec<Rendering>> {
    let mut out = Vec::new();
    for item in list {
        for part in item.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part == "all" {
                out.extend(Rendering::ALL);
                continue;
            }
            out.push(part.parse::<Rendering>().map_err(anyhow::Error::msg)?);
        }
    }
    Ok(out)
}

/// What a rendered corpus costs to show a model: the sum over its entries, each counted
/// alone (how the published figures count it; GitHub's raw corpus is 38,705 tokens in
/// o200k_base). `gqlnav corpus` and `gqlnav cost` both print this, so a rendering has one
/// number in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusCost {
    pub tokens: usize,
    pub bytes: usize,
}

pub fn corpus_cost(rendered: &RenderedCorpus) -> CorpusCost {
    CorpusCost {
        tokens: rendered.total_tokens(),
        bytes: rendered.texts.iter().map(String::len).sum(),
    }
}

pub fn field_corpus(graph: &SchemaGraph) -> Corpus {
    Corpus::build(graph, CorpusOptions::default())
}

pub fn print_json(v: &serde_json::Value) -> Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(v).context("serialising JSON")?
    );
    Ok(())
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress(len: u64, msg: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(msg.to_string());
    pb
}
