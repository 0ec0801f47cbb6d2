//! `gqlnav slice` (one question → one SDL slice) and `gqlnav bench --mode slice` (the WG
//! strategies benchmark over the three bundled schemas).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use gqlnav_corpus::Encoding;
use gqlnav_schema::SchemaGraph;
use gqlnav_slice::{Knobs, SliceOptions, Slicer, Style};

fn parse_encoding_arg(s: &str) -> Result<Encoding, String> {
    Encoding::from_spec(s)
}

fn parse_style_arg(s: &str) -> Result<Style, String> {
    Style::parse(s).ok_or_else(|| format!("unknown style {s:?} (sdl, bare, compact, dense, once)"))
}

/// Flags of `gqlnav slice` (the schema flags are the caller's).
#[derive(Args, Debug, Clone)]
pub struct SliceArgs {
    /// The question (natural language or keywords).
    #[arg(value_name = "QUESTION")]
    pub question: String,
    /// Token budget; the slice never exceeds it. Without it the slicer picks a size, at most
    /// 7,000 tokens (`--knobs {"defaultTokens": N}` moves that bound).
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,
    /// Encoding of the budget and the reported token count: o200k_base, cl100k_base or
    /// tokenizer:PATH (a Hugging Face tokenizer.json).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding_arg)]
    pub encoding: Encoding,
    /// sdl (with descriptions), bare (no descriptions), compact (one line per field,
    /// repeated descriptions said once) or dense (no descriptions, one line per
    /// definition: the fewest tokens) or once (dense lines plus each distinct
    /// description said once).
    #[arg(long, default_value = "sdl", value_parser = parse_style_arg)]
    pub style: Style,
    /// Define every named type (stubs where needed) so the slice validates as a schema.
    #[arg(long)]
    pub closed: bool,
    /// A coordinate that must be in the slice: `Type.field`, `Type.field(arg:)` or
    /// `Type` (repeatable; may name Mutation fields).
    #[arg(long = "seed", value_name = "COORD")]
    pub seeds: Vec<String>,
    /// Print one JSON object: sdl, tokens, encoding, coordinates, types, leftOut.
    #[arg(long)]
    pub json: bool,
    /// Override selection knobs, as JSON (`{"typeK": 12, "pathChoices": 20}`); the keys
    /// are the fields of `gqlnav_slice::Knobs` (crates/slice/src/lib.rs), for experiments.
    #[arg(long, value_name = "JSON", value_parser = parse_knobs_arg)]
    pub knobs: Option<Knobs>,
    /// Rendering the ranker indexes (with `--backend hybrid`: `coord-return-desc` gave the
    /// best slices).
    #[arg(
        long = "format",
        value_name = "RENDERING",
        default_value = "coord-return-desc"
    )]
    pub format: String,
    #[command(flatten)]
    pub backend: crate::backends::BackendArgs,
}

fn parse_knobs_arg(s: &str) -> Result<Knobs, String> {
    if !s.trim_start().starts_with('{') {
        return Err(format!(
            "knobs are a JSON object such as '{{\"typeK\": 12}}', not `{s}`"
        ));
    }
    serde_json::from_str(s).map_err(|e| format!("bad knobs JSON: {e}"))
}

/// A slice needs a question or a seed: refuse an empty one before loading the schema.
pub fn check_question(args: &SliceArgs) -> Result<()> {
    if args.question.trim().is_empty() && args.seeds.is_empty() {
        anyhow::bail!(
            "the question is empty: describe what the operation needs (\"open issues of a \
             repository with their labels\"), or name coordinates with --seed"
        );
    }
    Ok(())
}

/// Build and print one slice.
pub fn run(args: &SliceArgs, graph: Arc<SchemaGraph>) -> Result<()> {
    let slicer = slicer_for(args, graph)?;
    let opts = SliceOptions {
        budget: args.budget,
        encoding: args.encoding,
        style: args.style,
        closed: args.closed,
        seeds: args.seeds.clone(),
        knobs: args.knobs.clone().unwrap_or_default(),
    };
    let s = slicer.slice(&args.question, &[], &opts)?;
    if args.json {
        let v = serde_json::json!({
            "sdl": s.sdl,
            "tokens": s.tokens,
            "encoding": s.encoding.name(),
            "coordinates": s.coordinates,
            "types": s.types,
            "leftOut": s.left_out,
            "notShown": s.not_shown,
            "budget": s.budget,
            "autoSize": s.auto_size,
            "partial": s.partial,
            "style": s.style.name(),
            "closed": s.closed,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print!("{}", s.sdl);
    let size = match (s.budget, s.auto_size) {
        (Some(b), _) => format!("budget {b}"),
        (None, Some(a)) => format!("auto size, at most {a}"),
        _ => String::new(),
    };
    println!(
        "# {} types, {} coordinates, {} tokens ({}; {})",
        s.types,
        s.coordinates.len(),
        s.tokens,
        s.encoding.name(),
        size
    );
    if !s.left_out.is_empty() {
        println!(
            "# left out{}: {}",
            if s.partial {
                " (budget below one root path)"
            } else {
                ""
            },
            s.left_out.join(", ")
        );
    }
    Ok(())
}

/// Flags of `gqlnav bench --mode slice`.
#[derive(Args, Debug, Clone)]
pub struct SliceBenchArgs {
    /// The WG directory (`queries/` and `schemas/<id>/schema.graphql`).
    #[arg(long, default_value = "benchmarks/wg", value_name = "DIR")]
    pub wg: PathBuf,
    /// Schema ids to run.
    #[arg(long, default_value = "github,linear,singapore", value_delimiter = ',')]
    pub schema_ids: Vec<String>,
    /// Budgets in cl100k_base tokens (comma-separated; `auto` for the slicer's own size).
    #[arg(
        long,
        default_value = "2000,4000,6000,8000,auto",
        value_delimiter = ','
    )]
    pub slice_budgets: Vec<String>,
    /// Style of the graded slices: dense (one line per definition, the fewest tokens),
    /// bare (one field per line, as the WG suite prints), sdl or compact.
    #[arg(long, default_value = "dense", value_parser = parse_style_arg)]
    pub slice_style: Style,
    /// Grade closed (validating) slices.
    #[arg(long)]
    pub closed: bool,
    /// `gqlnav` (our slicer), `linker` (the one-hop linker baseline: the types the
    /// question names plus one hop, whole types while they fit; see `gqlnav link`) or
    /// `swan` (the Swan MCP's answer: its depth-scored hits with their walks to the root,
    /// cut at --swan-max-chars; also chosen by `--backend swan`). The baselines take the
    /// budgets as given (linker) or ignore them (swan: one row, its own cap).
    #[arg(long, default_value = "gqlnav", value_parser = ["gqlnav", "linker", "swan"])]
    pub slicer: String,
    /// The Swan answer's cap in characters (the original's default).
    #[arg(long, default_value_t = gqlnav_search::SWAN_MAX_CHARS, value_name = "CHARS")]
    pub swan_max_chars: usize,
    /// Override selection knobs, as JSON (see `gqlnav slice --help`).
    #[arg(long, value_name = "JSON", value_parser = parse_knobs_arg)]
    pub knobs: Option<Knobs>,
    /// Write slice.md, slice.json, slice_rows.jsonl and slice_pareto.svg into DIR
    /// (set from `gqlnav bench --report`).
    #[arg(skip)]
    pub report: Option<PathBuf>,
    /// Print JSON instead of Markdown (set from `gqlnav bench --json`).
    #[arg(skip)]
    pub json: bool,
}

/// The slicer of `gqlnav slice`: the structure ranker, or `--backend hybrid` /
/// `hybrid-rrf` with a local model (`--model DIR`) or an embedding server.
fn slicer_for(args: &SliceArgs, graph: Arc<SchemaGraph>) -> Result<Slicer> {
    match SlicerRanker::from_flags(&args.backend, &args.format)? {
        None => Slicer::new(graph).context("indexing the schema"),
        Some(r) => {
            Slicer::with_backend(graph, r.build()?, r.rendering).context("indexing the schema")
        }
    }
}

/// A slicer ranker other than the default structure ranker: `hybrid` / `hybrid-rrf` over
/// one rendering, with the slicing default for the hybrid weight.
struct SlicerRanker {
    backend: crate::backends::BackendArgs,
    rendering: gqlnav_corpus::Rendering,
}

impl SlicerRanker {
    /// `None` for the structure ranker; an error for a ranker slices cannot use.
    fn from_flags(backend: &crate::backends::BackendArgs, format: &str) -> Result<Option<Self>> {
        let name = backend.backend.trim();
        if name == "structure" {
            // The default slicer, unless --weights / --without change the ranker (they
            // were silently ignored by slices before).
            if backend.weights.is_none() && backend.without.is_none() {
                return Ok(None);
            }
            return Ok(Some(SlicerRanker {
                backend: backend.clone(),
                rendering: gqlnav_corpus::Rendering::DotPlusGloss,
            }));
        }
        if !name.starts_with("hybrid") {
            anyhow::bail!(
                "slices rank with `structure` (default), `hybrid` or `hybrid-rrf`, not `{name}`"
            );
        }
        let rendering: gqlnav_corpus::Rendering = format
            .split(',')
            .next()
            .unwrap_or("coord-return-desc")
            .trim()
            .parse()
            .map_err(|e| anyhow!("{e}"))?;
        let mut backend = backend.clone();
        backend.backend = name.to_string();
        backend
            .hybrid_weight
            .get_or_insert(crate::backends::HYBRID_WEIGHT_SLICING);
        Ok(Some(SlicerRanker { backend, rendering }))
    }

    fn build(&self) -> Result<Box<dyn gqlnav_search::SearchBackend>> {
        self.backend.build(&crate::backends::BackendSpec {
            backend: self.backend.backend.clone(),
            analyzer: gqlnav_search::Analyzer::Identifier,
            rendering: self.rendering,
        })
    }
}

/// Run the slice benchmark and print (and optionally write) the board.
/// The slicer's ranker: `structure` (default) or, with a local model or embedding server,
/// `hybrid` / `hybrid-rrf` (over the first `--format` rendering).
pub fn run_bench(
    args: &SliceBenchArgs,
    backend: &crate::backends::BackendArgs,
    format: &str,
) -> Result<()> {
    let ids: Vec<&str> = args.schema_ids.iter().map(String::as_str).collect();
    let name = backend.backend.trim();
    if args.slicer == "swan" || name == "swan" {
        return run_swan_bench(args, &ids);
    }
    let sets = match SlicerRanker::from_flags(backend, format)? {
        None => gqlnav_bench::load_wg_sets(&args.wg, &ids),
        Some(r) => {
            let make = || {
                r.build()
                    .map(|b| (b, r.rendering))
                    .map_err(|e| gqlnav_bench::BenchError::Options(format!("{e:#}")))
            };
            gqlnav_bench::load_wg_sets_with(&args.wg, &ids, Some(&make))
        }
    }
    .with_context(|| format!("loading {}", args.wg.display()))?;
    let mut configs = Vec::new();
    for b in &args.slice_budgets {
        let budget = if b == "auto" {
            None
        } else {
            Some(
                b.parse::<usize>()
                    .map_err(|_| anyhow!("bad budget {b:?}"))?,
            )
        };
        let linker = args.slicer == "linker";
        let label = if linker { "linker" } else { name };
        let mut c = gqlnav_bench::SliceConfig::new(
            match budget {
                Some(n) => format!("slice-{label}-{}-b{n}", args.slice_style.name()),
                None => format!("slice-{label}-{}-auto", args.slice_style.name()),
            },
            budget,
        );
        if linker {
            c.slicer = gqlnav_bench::SlicerKind::Linker;
        }
        c.style = args.slice_style;
        c.closed = args.closed;
        if let Some(k) = &args.knobs {
            c.knobs = k.clone();
        }
        if c.closed {
            c.name.push_str("-closed");
        }
        configs.push(c);
    }
    let runs = gqlnav_bench::run_slice_bench(&sets, &configs)?;
    print_slice_board(args, &runs)
}

/// The Swan baseline's slice row: one configuration, its own character cap.
fn run_swan_bench(args: &SliceBenchArgs, ids: &[&str]) -> Result<()> {
    let sets = gqlnav_bench::load_wg_sets(&args.wg, ids)
        .with_context(|| format!("loading {}", args.wg.display()))?;
    let mut c = gqlnav_bench::SliceConfig::new(
        format!(
            "slice-swan-{}-c{}",
            args.slice_style.name(),
            args.swan_max_chars
        ),
        None,
    );
    c.slicer = gqlnav_bench::SlicerKind::Swan(args.swan_max_chars);
    c.style = args.slice_style;
    c.closed = args.closed;
    let runs = gqlnav_bench::run_slice_bench(&sets, &[c])?;
    print_slice_board(args, &runs)
}

fn print_slice_board(args: &SliceBenchArgs, runs: &[gqlnav_bench::SliceRunResult]) -> Result<()> {
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&gqlnav_bench::slice_json(runs))?
        );
    } else {
        print!("{}", gqlnav_bench::slice_markdown(runs));
    }
    if let Some(dir) = &args.report {
        for p in gqlnav_bench::write_slice_report(dir, runs)? {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

/// Flags of `gqlnav link` (the schema flags are the caller's).
#[derive(Args, Debug, Clone)]
pub struct LinkArgs {
    /// The question (natural language or keywords).
    #[arg(value_name = "QUESTION")]
    pub question: String,
    /// Token budget for the slice (whole types are added while they fit). Default: all.
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<usize>,
    /// Encoding of the budget and the reported token count: o200k_base, cl100k_base or
    /// tokenizer:PATH (a Hugging Face tokenizer.json).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding_arg)]
    pub encoding: Encoding,
    /// Style of the slice (see `gqlnav slice --help`).
    #[arg(long, default_value = "dense", value_parser = parse_style_arg)]
    pub style: Style,
    /// Print only the linked types, not the slice.
    #[arg(long)]
    pub types_only: bool,
    /// Print one JSON object: types (name, hop, because), sdl, tokens, encoding.
    #[arg(long)]
    pub json: bool,
}

/// `gqlnav link`: the one-hop linker baseline.
pub fn run_link(args: &LinkArgs, graph: Arc<SchemaGraph>) -> Result<()> {
    let slicer = Slicer::new(graph).context("indexing the schema")?;
    let opts = SliceOptions {
        budget: args.budget,
        encoding: args.encoding,
        style: args.style,
        ..Default::default()
    };
    let l = slicer.link(&args.question, &opts)?;
    if args.json {
        let v = serde_json::json!({
            "question": args.question, "types": l.types, "sdl": l.slice.sdl,
            "tokens": l.slice.tokens, "encoding": l.slice.encoding.name(),
            "leftOut": l.slice.left_out,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    if l.types.is_empty() {
        eprintln!("gqlnav: the question names no type, field or enum value of this schema (try `gqlnav search`)");
        return Ok(());
    }
    for t in &l.types {
        let tag = if t.hop == 0 { "named" } else { "hop  " };
        println!("# {tag} {:<32} {}", t.name, t.because);
    }
    if !args.types_only {
        println!();
        print!("{}", l.slice.sdl);
        println!(
            "# {} types, {} tokens ({}{})",
            l.slice.types,
            l.slice.tokens,
            l.slice.encoding.name(),
            args.budget
                .map(|b| format!("; budget {b}"))
                .unwrap_or_default()
        );
        if !l.slice.left_out.is_empty() {
            println!(
                "# left out (over the budget): {}",
                l.slice.left_out.join(", ")
            );
        }
    }
    Ok(())
}
