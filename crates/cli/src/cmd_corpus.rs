//! `gqlnav corpus` and `gqlnav cost`.

use std::io::Write;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use gqlnav_corpus::{Corpus, CorpusOptions, Encoding, Rendering, TokenMeter};
use serde_json::json;

use crate::common::{corpus_cost, parse_encoding, parse_renderings, print_json, SchemaArgs};

#[derive(Args, Debug)]
pub struct CorpusArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Renderings to count (comma-separated or repeated; `all` for every one).
    #[arg(
        long = "format",
        short = 'f',
        value_name = "NAME",
        default_value = "all"
    )]
    pub formats: Vec<String>,
    /// Token encoding: o200k_base, cl100k_base, or tokenizer:PATH (a Hugging Face
    /// tokenizer.json, or its directory: the model's own counts).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// Print N sample entries of each rendering.
    #[arg(long, value_name = "N")]
    pub show: Option<usize>,
    /// Write the corpus (every entry, every chosen rendering, token counts) as JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Include argument, input-field, enum-value and type entries (default: fields only,
    /// the field space the published figures count).
    #[arg(long)]
    pub all_kinds: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run_corpus(a: CorpusArgs) -> Result<()> {
    let t0 = std::time::Instant::now();
    let graph = a.schema.load(a.json)?;
    let opts = if a.all_kinds {
        CorpusOptions::all()
    } else {
        CorpusOptions::default()
    };
    let corpus = Corpus::build(&graph, opts);
    let load_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let meter = TokenMeter::new(a.encoding);
    let renderings = parse_renderings(&a.formats)?;
    let rendered: Vec<_> = renderings
        .iter()
        .map(|r| corpus.render(*r, &meter))
        .collect();
    if let Some(path) = &a.out {
        let f =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut w = std::io::BufWriter::new(f);
        for (i, e) in corpus.entries.iter().enumerate() {
            let mut texts = serde_json::Map::new();
            for r in &rendered {
                texts.insert(
                    r.rendering.name().into(),
                    json!({"text": r.texts[i], "tokens": r.tokens[i]}),
                );
            }
            let line = json!({
                "coordinate": e.coordinate, "kind": e.kind, "owner": e.owner, "ownerKind": e.owner_kind,
                "name": e.name, "returnType": e.return_type, "description": e.description,
                "arguments": e.args, "deprecated": e.deprecated, "encoding": a.encoding.name(), "renderings": texts,
            });
            writeln!(w, "{line}")?;
        }
        w.flush()?;
        if !a.json {
            eprintln!("wrote {} entries to {}", corpus.len(), path.display());
        }
    }
    if a.json {
        let mut formats = serde_json::Map::new();
        for r in &rendered {
            let total = corpus_cost(r).tokens;
            formats.insert(
                r.rendering.name().into(),
                json!({"tokens": total, "mean_tokens": total as f64 / corpus.len().max(1) as f64}),
            );
        }
        return print_json(&json!({
            "schema": graph.source, "coordinates": corpus.len(), "encoding": a.encoding.name(),
            "warnings": graph.warnings.len(), "formats": formats, "load_and_build_ms": load_ms,
        }));
    }
    println!(
        "schema: {}  ({} coordinates, tokens in {})",
        graph.source,
        corpus.len(),
        a.encoding
    );
    println!();
    println!(
        "| rendering | coordinates | total tokens ({}) | mean tokens / entry |",
        a.encoding
    );
    println!("| --- | ---: | ---: | ---: |");
    for r in &rendered {
        let total = corpus_cost(r).tokens;
        println!(
            "| {} | {} | {} | {:.2} |",
            r.rendering,
            corpus.len(),
            total,
            total as f64 / corpus.len().max(1) as f64
        );
    }
    if let Some(n) = a.show {
        for r in &rendered {
            println!("\n{} (first {n}):", r.rendering);
            for i in 0..n.min(corpus.len()) {
                println!(
                    "  [{} tok] {}",
                    r.tokens[i],
                    r.texts[i].replace('\n', "\\n")
                );
            }
        }
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct CostArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Token encoding: o200k_base, cl100k_base, or tokenizer:PATH (a Hugging Face
    /// tokenizer.json, or its directory: the model's own counts).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run_cost(a: CostArgs) -> Result<()> {
    let graph = Arc::new(a.schema.load(a.json)?);
    let meter = TokenMeter::new(a.encoding);
    let corpus = Corpus::build(&graph, CorpusOptions::default());
    // (what, tokens, bytes)
    let mut counted: Vec<(String, usize, usize)> = Vec::new();
    for r in Rendering::ALL {
        let cost = corpus_cost(&corpus.render(r, &meter));
        counted.push((format!("corpus:{}", r.name()), cost.tokens, cost.bytes));
    }
    let mut rows: Vec<(String, String)> = Vec::new();
    // SDL as loaded: the file text for files; the converted SDL otherwise.
    let src = a.schema.schema.as_deref().unwrap_or("builtin:github");
    let as_loaded = if src == "builtin:github" {
        Some(crate::common::EMBEDDED_GITHUB_SDL.to_string())
    } else if src == "builtin:demo" {
        Some(crate::common::EMBEDDED_DEMO_SDL.to_string())
    } else if !src.contains("://") && !src.ends_with(".json") {
        std::fs::read_to_string(src).ok()
    } else {
        None
    };
    if let Some(t) = as_loaded {
        rows.push(("sdl:as-loaded".into(), t));
    }
    rows.push(("sdl:printed".into(), graph.schema.to_string()));
    match gqlnav_schema::introspection_result(graph.schema.for_operations()) {
        Ok(v) => {
            rows.push(("introspection:compact".into(), serde_json::to_string(&v)?));
            rows.push((
                "introspection:pretty".into(),
                serde_json::to_string_pretty(&v)?,
            ));
        }
        Err(e) => eprintln!("warning: could not build the introspection result: {e}"),
    }
    counted.extend(
        rows.iter()
            .map(|(k, t)| (k.clone(), meter.count(t), t.len())),
    );
    if a.json {
        let mut costs = serde_json::Map::new();
        for (k, tok, bytes) in &counted {
            costs.insert(k.clone(), json!({"tokens": tok, "bytes": bytes}));
        }
        return print_json(
            &json!({"schema": graph.source, "coordinates": corpus.len(), "encoding": a.encoding.name(), "costs": costs}),
        );
    }
    println!(
        "what it costs to show {} to a model (tokens in {}):",
        graph.source, a.encoding
    );
    println!();
    println!("| what | tokens ({}) | bytes |", a.encoding);
    println!("| --- | ---: | ---: |");
    for (k, tok, bytes) in &counted {
        println!("| {k} | {tok} | {bytes} |");
    }
    println!();
    println!("corpus:* = the {} field-coordinate entries in that rendering, each counted alone and summed (as `gqlnav corpus` counts them; the published figures); sdl:printed = the schema as apollo-compiler prints it back; introspection:* = the standard introspection query's result as JSON.", corpus.len());
    Ok(())
}
