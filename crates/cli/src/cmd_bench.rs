//! `gqlnav bench`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use gqlnav_bench::{Dataset, RunOptions, TargetMode, Variant, WgOptions};
use gqlnav_corpus::{Encoding, Rendering, TokenMeter};
use gqlnav_search::SearchContext;

use crate::backends::BackendArgs;
use crate::common::{
    field_corpus, parse_encoding, parse_renderings, print_json, progress, SchemaArgs,
};

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum VariantArg {
    All,
    Nl,
    Kw,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum TargetsArg {
    /// Plain `Type.field` entries of `mustInclude` (what the seed instrument's TSV holds).
    Must,
    /// `targetFields` (the WG models/templates benchmarks); empty lists are skipped.
    Target,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ModeArg {
    /// Rank coordinates and grade the ranked list (recall@k, MRR, budgets).
    Retrieval,
    /// Build a slice per WG question and grade it as the WG strategies benchmark does.
    Slice,
    /// Run a chat model through the tools on WG questions with answers (strategies
    /// navigate, slice, inline) and grade answers and operations.
    Agent,
    /// Replay each WG question as an agent would, one tool call per step (the policy is
    /// --tools-policy), and report whether every mustInclude coordinate was shown within
    /// 1, 2 and 3 calls, and the tokens read. No chat model; the tools rank with the
    /// ranker flags, as `gqlnav serve` does (`--backend hybrid --model DIR` for the
    /// local embedding model).
    Tools,
    /// What the typed tools (the agent's `typed` strategy) can express, without a model:
    /// each WG question's gold operation rewritten as a call of the tool set chosen for
    /// it, run on gqlnav's mock and graded against the gold operation's own answer.
    Typed,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ToolsPolicyArg {
    /// search_schema (ranked page); introspect the hits' owner types; introspect the
    /// fields on the top hits' root paths.
    Page,
    /// search_schema with budgetTokens (a slice, --tools-budget); search_schema (ranked
    /// page); introspect the fields on the top hits' root paths.
    Slice,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(long, value_enum, default_value = "retrieval")]
    pub mode: ModeArg,
    #[command(flatten)]
    pub slice: crate::cmd_slice::SliceBenchArgs,
    #[command(flatten)]
    pub agent: crate::cmd_agent::AgentBenchArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Question set: a TSV file (`question<TAB>Type.field,Type.field`) or a directory of
    /// WG YAML files. Default: the embedded 200 GitHub questions (github-wg.tsv).
    #[arg(long, short = 'q', value_name = "FILE|DIR")]
    pub questions: Option<PathBuf>,
    /// With a YAML directory: keep questions of this `schemaId` (github, linear,
    /// singapore, …). Without --schema, `<DIR>/../schemas/<ID>/schema.graphql` is used.
    #[arg(long, value_name = "ID")]
    pub schema_id: Option<String>,
    /// With a YAML directory: natural-language questions, `-kw` keyword twins, or both.
    #[arg(long, value_enum, default_value = "all")]
    pub variant: VariantArg,
    /// With a YAML directory: which labels are the targets.
    #[arg(long, value_enum, default_value = "must")]
    pub targets: TargetsArg,
    /// Refuse a malformed question line instead of reporting and skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Renderings to index (comma-separated; `all` for every one).
    #[arg(
        long = "format",
        short = 'f',
        default_value = "dot-plus-gloss",
        value_name = "NAME"
    )]
    pub formats: Vec<String>,
    /// Retrieval depth per question.
    #[arg(long, default_value_t = 100)]
    pub depth: usize,
    /// Token budgets for the budget sweep (comma-separated).
    #[arg(long, default_value = "125,250,500,1000,2000", value_delimiter = ',')]
    pub budgets: Vec<usize>,
    /// Token encoding: o200k_base, cl100k_base, or tokenizer:PATH (a Hugging Face
    /// tokenizer.json, or its directory: the model's own counts).
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// --mode tools: the scripted policy an agent follows.
    #[arg(long, value_enum, default_value = "slice")]
    pub tools_policy: ToolsPolicyArg,
    /// --mode tools with --tools-policy slice: the first call's budgetTokens (o200k_base).
    #[arg(long, default_value_t = 4000, value_name = "TOKENS")]
    pub tools_budget: u32,
    /// Write the report into DIR: report.md, report.json, per-question results and SVG
    /// plots (retrieval); slice.md, slice.json, slice_rows.jsonl and a Pareto plot
    /// (slice); tools.md, tools.json and tools_questions.jsonl (tools).
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    /// Print one JSON object instead of the Markdown table.
    #[arg(long)]
    pub json: bool,
}

fn load_questions(a: &BenchArgs) -> Result<(Dataset, Option<PathBuf>)> {
    let Some(q) = &a.questions else {
        let ds = gqlnav_bench::parse_tsv(
            "builtin:github-wg.tsv",
            crate::common::EMBEDDED_GITHUB_TSV,
            a.strict,
        )?;
        return Ok((ds, None));
    };
    if q.is_dir() {
        let opts = WgOptions {
            schema_id: a.schema_id.clone(),
            variant: match a.variant {
                VariantArg::All => Variant::All,
                VariantArg::Nl => Variant::NaturalLanguage,
                VariantArg::Kw => Variant::Keyword,
            },
            mode: match a.targets {
                TargetsArg::Must => TargetMode::Must,
                TargetsArg::Target => TargetMode::Target,
            },
            strict: a.strict,
        };
        let ds = gqlnav_bench::load_wg_dir(q, &opts)?;
        let guess = a
            .schema_id
            .as_ref()
            .map(|id| q.join("..").join("schemas").join(id).join("schema.graphql"));
        Ok((ds, guess.filter(|p| p.exists())))
    } else if q.exists() {
        Ok((gqlnav_bench::load_tsv(q, a.strict)?, None))
    } else {
        bail!(
            "question set `{}` not found: give a TSV file or a directory of WG YAML files",
            q.display()
        )
    }
}

pub fn run(mut a: BenchArgs) -> Result<()> {
    if a.mode == ModeArg::Agent {
        return crate::cmd_agent::run_bench(
            &a.agent,
            &a.slice.wg,
            &a.slice.schema_ids,
            a.json,
            a.report.as_deref(),
        );
    }
    if a.mode == ModeArg::Tools {
        return run_tools(&a);
    }
    if a.mode == ModeArg::Typed {
        return crate::cmd_agent::run_typed_bench(
            &a.agent,
            &a.slice.wg,
            &a.slice.schema_ids,
            a.json,
            a.report.as_deref(),
        );
    }
    if a.mode == ModeArg::Slice {
        a.slice.report = a.report.clone();
        a.slice.json = a.json;
        return crate::cmd_slice::run_bench(&a.slice, &a.backend, &a.formats.join(","));
    }
    let (ds, schema_guess) = load_questions(&a)?;
    if a.schema.schema.is_none() {
        if let Some(p) = schema_guess {
            a.schema.schema = Some(p.display().to_string());
        } else if a.questions.is_some() && a.schema_id.as_deref().is_some_and(|s| s != "github") {
            bail!(
                "give --schema for the `{}` questions",
                a.schema_id.as_deref().unwrap_or("")
            );
        }
    }
    for p in &ds.problems {
        eprintln!("warning: {p}");
    }
    if ds.questions.is_empty() {
        bail!("no questions loaded from {}", ds.name);
    }
    let graph = Arc::new(a.schema.load(a.json)?);
    let bad = gqlnav_bench::validate_targets(&ds, &graph);
    if !bad.is_empty() {
        eprintln!(
            "warning: {} target(s) are not in {} (is it the right schema?); first: {}",
            bad.len(),
            graph.source,
            bad[0]
        );
    }
    let corpus = Arc::new(field_corpus(&graph));
    let meter = TokenMeter::new(a.encoding);
    let renderings: Vec<Rendering> = parse_renderings(&a.formats)?;
    let specs = a.backend.specs(&renderings)?;
    let opts = RunOptions {
        depth: a.depth,
        budgets: a.budgets.clone(),
        ..RunOptions::default()
    };
    let mut runs = Vec::new();
    for spec in &specs {
        let ctx = SearchContext::rendered(graph.clone(), corpus.clone(), spec.rendering, &meter);
        let mut backend = a.backend.build(spec)?;
        let t0 = std::time::Instant::now();
        backend
            .index(&ctx)
            .with_context(|| format!("indexing {}", spec.backend))?;
        let index_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let pb = progress(ds.questions.len() as u64, &backend.name());
        let run = gqlnav_bench::run_retrieval(backend.as_ref(), &ctx, &ds, &opts, &|done, _| {
            pb.set_position(done as u64)
        })?;
        pb.finish_and_clear();
        if !a.json {
            eprintln!("{}: indexed in {index_ms:.0} ms", run.name);
        }
        runs.push(run);
    }
    if let Some(dir) = &a.report {
        let files = gqlnav_bench::write_report_dir(dir, &runs)?;
        if !a.json {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
        }
    }
    if a.json {
        return print_json(&gqlnav_bench::json(&runs));
    }
    println!("{}", gqlnav_bench::markdown(&runs));
    Ok(())
}

/// Smallest `--tools-budget`: below it a slice holds little more than one root path.
const MIN_TOOLS_BUDGET: u32 = 500;

/// `bench --mode tools`.
fn run_tools(a: &BenchArgs) -> Result<()> {
    if a.tools_policy == ToolsPolicyArg::Slice && a.tools_budget < MIN_TOOLS_BUDGET {
        bail!(
            "--tools-budget {} is too small for a slice; use {MIN_TOOLS_BUDGET} or more (4000 is the default)",
            a.tools_budget
        );
    }
    let ids: Vec<&str> = a.slice.schema_ids.iter().map(String::as_str).collect();
    let sets = gqlnav_bench::load_wg_sets(&a.slice.wg, &ids)
        .with_context(|| format!("loading {}", a.slice.wg.display()))?;
    let policy = match a.tools_policy {
        ToolsPolicyArg::Page => gqlnav_bench::Policy::Page,
        ToolsPolicyArg::Slice => gqlnav_bench::Policy::Slice {
            budget: a.tools_budget,
        },
    };
    // The ranker flags build each toolbox's ranker as `gqlnav serve` builds it.
    let factory = crate::cmd_serve::backend_factory(&a.backend, None)?;
    let mut results = Vec::new();
    for set in &sets {
        let tools = gqlnav_tools::Toolbox::build(
            set.slicer.graph().clone(),
            Some(factory.clone()),
            gqlnav_tools::ToolsConfig::default(),
        )?;
        let pb = progress(
            set.questions.len() as u64,
            &format!("tools {}", set.schema_id),
        );
        for (i, q) in set.questions.iter().enumerate() {
            results.push(gqlnav_bench::replay(&tools, &set.schema_id, q, policy));
            pb.set_position(i as u64 + 1);
        }
        pb.finish_and_clear();
    }
    let rows = gqlnav_bench::tools_rows(&results);
    if let Some(dir) = &a.report {
        for p in gqlnav_bench::write_tools_report(dir, policy, &rows, &results)? {
            eprintln!("wrote {}", p.display());
        }
    }
    if a.json {
        return crate::common::print_json(&gqlnav_bench::tools_json(policy, &rows, &results));
    }
    print!("{}", gqlnav_bench::tools_markdown(policy, &rows));
    eprintln!(
        "never shown, by kind: {:?}",
        gqlnav_bench::never_shown_by_kind(&results)
    );
    Ok(())
}
