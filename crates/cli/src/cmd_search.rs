//! `gqlnav search`.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use gqlnav_corpus::{Encoding, Rendering, TokenMeter};
use gqlnav_search::{PageRequest, Query, SearchContext};
use serde_json::json;

use crate::backends::BackendArgs;
use crate::common::{field_corpus, parse_encoding, print_json, SchemaArgs};

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The question, in plain words or keywords.
    pub query: String,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Rendering indexed and shown (see `gqlnav corpus --help` for the list).
    #[arg(long = "format", short = 'f', default_value = "dot-plus-gloss")]
    pub format: Rendering,
    /// Number of hits.
    #[arg(short = 'k', long, default_value_t = 10)]
    pub k: usize,
    /// Take hits in rank order until the next would exceed this many tokens.
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,
    /// Take hits in rank order until the next would take the answer (each hit's text and
    /// its path to the root) over this many characters. Default with `--backend swan`:
    /// 10,000, the Swan MCP's own cap; otherwise no cap.
    #[arg(long, value_name = "CHARS", conflicts_with = "budget")]
    pub max_chars: Option<usize>,
    /// Token encoding: o200k_base, cl100k_base, or tokenizer:PATH (a Hugging Face
    /// tokenizer.json, or its directory: the model's own counts).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// Show each ranking channel's contribution.
    #[arg(long)]
    pub explain: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print the page an agent's `search_schema` call returns (what `gqlnav serve` answers):
    /// results folded by type and across sibling types, each with a path from the root,
    /// then what the top hits return, the links between their types and the ways in
    /// from the root. `-k` is the page's limit; with --json, its structured content.
    #[arg(long, conflicts_with_all = ["budget", "max_chars", "explain"])]
    pub page: bool,
}

pub fn run(a: SearchArgs) -> Result<()> {
    if a.query.trim().is_empty() {
        anyhow::bail!(
            "the query is empty: describe what you need (\"open pull requests of a repository\") \
             or name a coordinate (\"Repository.issues\")"
        );
    }
    let graph = Arc::new(a.schema.load(a.json)?);
    if a.page {
        return agent_page(&a, graph);
    }
    let corpus = Arc::new(field_corpus(&graph));
    let meter = TokenMeter::new(a.encoding);
    let ctx = SearchContext::rendered(graph.clone(), corpus, a.format, &meter);
    let specs = a.backend.specs(&[a.format])?;
    let spec = specs
        .first()
        .ok_or_else(|| anyhow::anyhow!("no backend selected"))?;
    let mut backend = a.backend.build(spec)?;
    let t0 = Instant::now();
    backend.index(&ctx)?;
    let index_ms = t0.elapsed().as_secs_f64() * 1000.0;
    // With a budget (tokens, or characters), hits are taken in rank order until the next
    // would exceed it (at most 100); without one, the first k. One rule for every
    // surface: search::page, with the hit's cost in the budget's unit.
    let max_chars = a.max_chars.or_else(|| {
        (spec.backend == "swan" && a.budget.is_none()).then_some(gqlnav_search::SWAN_MAX_CHARS)
    });
    let cap = a.budget.or(max_chars);
    let req = PageRequest {
        budget: cap,
        ..PageRequest::first(if cap.is_some() { a.k.max(100) } else { a.k })
    };
    let t1 = Instant::now();
    let scored = backend.search(&Query::new(a.query.clone()), req.depth())?;
    let search_ms = t1.elapsed().as_secs_f64() * 1000.0;
    let page = gqlnav_search::page(&scored, &req, |slot| {
        let h = ctx.hit(slot.rank, slot.scored, slot.score, 1);
        let cost = match max_chars {
            Some(_) => {
                h.text.chars().count()
                    + h.paths_to_root
                        .first()
                        .map(|p| p.iter().map(|c| c.chars().count() + 3).sum())
                        .unwrap_or(0)
            }
            None => h.tokens,
        };
        (h, cost)
    });
    let chars = max_chars.map(|_| page.tokens);
    let hits = page.items;
    let total: usize = hits.iter().map(|h| h.tokens).sum();
    if a.json {
        return print_json(&json!({
            "query": a.query, "backend": backend.name(), "encoding": a.encoding.name(),
            "hits": hits, "totalTokens": total, "budget": a.budget,
            "maxChars": max_chars, "chars": chars,
            "indexMs": index_ms, "searchMs": search_ms,
        }));
    }
    println!("{} — {}", backend.name(), graph.source);
    println!(
        "{:>4}  {:<60} {:>6} {:>5}  path to root",
        "rank", "coordinate", "score", "tok"
    );
    for h in &hits {
        let path = h
            .paths_to_root
            .first()
            .map(|p| p.join(" → "))
            .unwrap_or_else(|| "(no query path)".into());
        println!(
            "{:>4}  {:<60} {:>6.3} {:>5}  {}",
            h.rank, h.coordinate, h.score, h.tokens, path
        );
        if a.explain {
            if h.explain.is_empty() {
                println!("        raw score {:.4} (single channel)", h.raw_score);
            } else {
                // Each stage's part of the raw score (they sum to it); the score column
                // is relative to the best hit.
                let parts: Vec<String> = h
                    .explain
                    .iter()
                    .map(|(k, v)| format!("{k} {v:+.3}"))
                    .collect();
                println!("        raw {:.3} = {}", h.raw_score, parts.join("  "));
            }
        }
    }
    println!(
        "{} hits, {} tokens ({}){}; indexed in {:.0} ms, searched in {:.2} ms",
        hits.len(),
        total,
        a.encoding,
        match (a.budget, max_chars) {
            (Some(b), _) => format!(" within a budget of {b}"),
            (None, Some(m)) => format!(", {} of at most {m} characters", chars.unwrap_or(0)),
            _ => String::new(),
        },
        index_ms,
        search_ms
    );
    Ok(())
}

/// `search --page`: the `search_schema` answer of a toolbox over the chosen ranker.
fn agent_page(a: &SearchArgs, graph: Arc<gqlnav_schema::SchemaGraph>) -> Result<()> {
    if a.k == 0 || a.k > gqlnav_tools::ToolsConfig::default().max_limit {
        anyhow::bail!(
            "-k {} is not a page size: use 1 to {} (10 is the default)",
            a.k,
            gqlnav_tools::ToolsConfig::default().max_limit
        );
    }
    let factory = crate::cmd_serve::backend_factory(&a.backend, None)?;
    let tools =
        gqlnav_tools::Toolbox::build(graph, Some(factory), gqlnav_tools::ToolsConfig::default())?;
    let mut req = gqlnav_tools::SearchRequest::new(&a.query);
    req.limit = a.k as u32;
    let out = tools.search_schema(&req);
    if out.is_error {
        anyhow::bail!("{}", out.text);
    }
    if a.json {
        return print_json(&out.structured.unwrap_or_default());
    }
    println!("{}", out.text);
    eprintln!("{} tokens ({})", out.tokens, tools.meter.encoding());
    Ok(())
}
