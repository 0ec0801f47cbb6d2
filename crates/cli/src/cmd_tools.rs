//! `gqlnav tools`: compile the schema's root fields into typed tool specs (MCP, OpenAI,
//! Anthropic or one JSON-Schema document), with token counts and validated operations.

use std::sync::Arc;

use anyhow::{bail, Result};
use clap::Args;
use gqlnav_corpus::{Encoding, TokenMeter};
use gqlnav_tools::{
    compile, CompileOptions, MutationAllow, NullableMode, OperationSchema, RefMode,
    SelectionLimits, ToolFormat, ToolSet, Toolbox, ToolsConfig, DEFAULT_MAX_TOOLS,
};
use serde_json::json;

use crate::common::{parse_encoding, SchemaArgs};

fn parse_format(s: &str) -> Result<ToolFormat, String> {
    ToolFormat::parse(s).ok_or_else(|| {
        format!(
            "unknown format `{s}`; expected one of {}",
            ToolFormat::NAMES.join(", ")
        )
    })
}

fn parse_refs(s: &str) -> Result<RefMode, String> {
    match s {
        "defs" => Ok(RefMode::Defs),
        "inline" => Ok(RefMode::Inline),
        _ => Err(format!("unknown refs mode `{s}`; expected defs or inline")),
    }
}

fn parse_nullable(s: &str) -> Result<NullableMode, String> {
    match s {
        "omit" => Ok(NullableMode::Omit),
        "anyof" => Ok(NullableMode::AnyOf),
        _ => Err(format!(
            "unknown nullable mode `{s}`; expected omit or anyof"
        )),
    }
}

/// Flags of `gqlnav tools`.
#[derive(Args, Debug, Clone)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Only these root fields, in this order (`repository,search` or `Query.repository`;
    /// mutations also need --allow-mutations).
    #[arg(long, value_delimiter = ',', value_name = "FIELD,…")]
    pub select: Vec<String>,
    /// Only the root fields search ranks for this question (the root of each top hit's
    /// path), at most --limit of them.
    #[arg(long = "for", value_name = "QUESTION", conflicts_with = "select")]
    pub for_question: Option<String>,
    /// Most root fields picked by --for.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub limit: usize,
    /// With --for: the typed tools a small model gets for the question (the agent's
    /// `typed` strategy): each root field with its arguments and selectable field paths,
    /// as the model reads them (--json: the set and the JSON Schema each turn is
    /// constrained by).
    #[arg(long, requires = "for_question")]
    pub typed: bool,
    /// With --typed: the answer's JSON Schema (a file, or inline JSON), as `gqlnav agent
    /// --answer-schema` takes it: the tools that hold its keys come first.
    #[arg(long, requires = "typed", value_name = "FILE|JSON")]
    pub answer_schema: Option<String>,
    #[command(flatten)]
    pub typed_bounds: crate::cmd_agent::TypedArgs,
    /// Mutations to compile: `all` or `name,name`. They are marked destructive. Without
    /// this flag no mutation becomes a tool.
    #[arg(long, value_name = "NAME,…|all")]
    pub allow_mutations: Option<String>,
    /// `defs`: enums, input objects and described scalars said once in `$defs` (each tool
    /// carries the ones it uses). `inline`: expanded in place, for clients that cannot
    /// resolve `#/$defs` refs (recursive inputs stop at --inline-depth).
    #[arg(long, default_value = "defs", value_parser = parse_refs, value_name = "defs|inline")]
    pub refs: RefMode,
    /// Input-object levels expanded with --refs inline.
    #[arg(long, default_value_t = 3, value_name = "LEVELS")]
    pub inline_depth: usize,
    /// `omit`: nullable inputs are simply not required. `anyof`: every property is
    /// required and nullable ones are `anyOf [T, null]` (strict tool modes; defaults move
    /// into descriptions).
    #[arg(long, default_value = "omit", value_parser = parse_nullable, value_name = "omit|anyof")]
    pub nullable: NullableMode,
    /// mcp, openai, anthropic or json-schema.
    #[arg(long, default_value = "mcp", value_parser = parse_format)]
    pub format: ToolFormat,
    /// Refuse a schema with more query root fields than this unless --select/--for
    /// chooses (OpenAI accepts at most 128 tools per request).
    #[arg(long, default_value_t = DEFAULT_MAX_TOOLS, value_name = "N")]
    pub max_tools: usize,
    /// Also compile deprecated root fields (left out by default, and listed).
    #[arg(long)]
    pub include_deprecated: bool,
    /// Levels of the default selection below the root field.
    #[arg(long, default_value_t = SelectionLimits::default().max_depth, value_name = "LEVELS")]
    pub selection_depth: usize,
    /// Fields per selection set in the default selection.
    #[arg(long, default_value_t = SelectionLimits::default().max_fields, value_name = "N")]
    pub selection_fields: usize,
    /// Page size given to connections (`first`) in default operations.
    #[arg(long, default_value_t = SelectionLimits::default().default_first, value_name = "N")]
    pub first: u32,
    /// Print the compiled default operations (GraphQL) instead of the tool specs.
    #[arg(long, conflicts_with = "json")]
    pub operations: bool,
    /// Print a report instead of the specs: tools, operations, validation, skipped root
    /// fields, and token counts with and without `$defs`.
    #[arg(long)]
    pub json: bool,
    /// Encoding of the token counts: o200k_base, cl100k_base or tokenizer:PATH.
    #[arg(long, default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
}

impl ToolsArgs {
    fn options(&self, select: Option<Vec<String>>, refs: RefMode) -> CompileOptions {
        CompileOptions {
            select,
            allow_mutations: self
                .allow_mutations
                .as_deref()
                .map(MutationAllow::parse)
                .unwrap_or_default(),
            refs,
            inline_depth: self.inline_depth,
            nullable: self.nullable,
            max_tools: self.max_tools,
            include_deprecated: self.include_deprecated,
            selection: SelectionLimits {
                max_depth: self.selection_depth.max(1),
                max_fields: self.selection_fields.max(1),
                default_first: self.first.max(1),
                ..SelectionLimits::default()
            },
        }
    }
}

/// Tokens of the compact JSON of a rendered tool set.
fn set_tokens(set: &ToolSet, format: ToolFormat, meter: &TokenMeter) -> usize {
    meter.count(&set.render(format).to_string())
}

fn run_typed(a: &ToolsArgs, graph: Arc<gqlnav_schema::SchemaGraph>, q: &str) -> Result<()> {
    let tb = Toolbox::build(graph, None, ToolsConfig::default())?;
    let answer = match a.answer_schema.as_deref() {
        Some(s) => Some(crate::cmd_agent::answer_schema(s)?),
        None => None,
    };
    let set = tb
        .typed_tools_for(q, &a.typed_bounds.options(), answer.as_ref())
        .map_err(anyhow::Error::msg)?;
    if set.tools.is_empty() {
        bail!("no root field reaches what search found for {q:?}");
    }
    let meter = TokenMeter::new(a.encoding);
    let text = set.describe();
    let menu = set.menu_for(answer.as_ref());
    if a.json {
        let action = set.action_schema(None, true);
        let out = json!({
            "menu": menu,
            "tools": set.tools,
            "cut": set.cut,
            "describeTokens": meter.count(&text),
            "actionSchemaTokens": meter.count(&action.to_string()),
            "actionSchema": action,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        if set.tools.len() > 1 {
            println!("# the menu (the first turn chooses one tool)\n{menu}");
            println!("# the tools (the next turns read only the chosen one)");
        }
        print!("{text}");
        eprintln!(
            "{} tools, {} field paths, {} tokens ({}){}",
            set.tools.len(),
            set.tools.iter().map(|t| t.paths.len()).sum::<usize>(),
            meter.count(&text),
            a.encoding.name(),
            if set.cut.is_empty() {
                String::new()
            } else {
                format!("; left out: {}", set.cut.join("; "))
            }
        );
    }
    Ok(())
}

pub fn run(a: ToolsArgs) -> Result<()> {
    let graph = Arc::new(a.schema.load(a.json)?);
    if a.typed {
        let q = a.for_question.clone().unwrap_or_default();
        return run_typed(&a, graph, &q);
    }
    let select = match (&a.for_question, a.select.is_empty()) {
        (Some(q), _) => {
            let tb = Toolbox::build(graph.clone(), None, ToolsConfig::default())?;
            let picked = tb
                .root_fields_for(q, a.limit.max(1))
                .map_err(anyhow::Error::msg)?;
            if picked.is_empty() {
                bail!("no root field reaches what search found for {q:?}; name them with --select");
            }
            Some(picked)
        }
        (None, false) => Some(a.select.clone()),
        (None, true) => None,
    };
    let set = compile(&graph, &a.options(select.clone(), a.refs))?;
    let ops = OperationSchema::from_graph(&graph);
    let invalid = set.validate(&ops.schema);
    if a.operations {
        for t in &set.tools {
            println!("# {} ({})\n{}", t.name, t.coordinate, t.operation);
        }
    } else if a.json {
        let meter = TokenMeter::new(a.encoding);
        let other = if a.refs == RefMode::Defs {
            RefMode::Inline
        } else {
            RefMode::Defs
        };
        let other_set = compile(&graph, &a.options(select, other))?;
        let (defs_set, inline_set) = if a.refs == RefMode::Defs {
            (&set, &other_set)
        } else {
            (&other_set, &set)
        };
        let tools: Vec<_> = set
            .tools
            .iter()
            .map(|t| {
                let bad = invalid
                    .iter()
                    .find(|(n, _)| n == &t.name)
                    .map(|(_, e)| e.clone());
                json!({
                    "name": t.name, "coordinate": t.coordinate, "mutation": t.mutation,
                    "returns": t.returns, "selectedFields": t.selected_fields,
                    "defsUsed": t.defs_used, "operation": t.operation,
                    "valid": bad.is_none(), "validationError": bad,
                    "tokens": meter.count(&set.standalone_schema(t).to_string()),
                })
            })
            .collect();
        let report = json!({
            "schema": graph.source, "format": a.format.name(),
            "refs": if a.refs == RefMode::Defs { "defs" } else { "inline" },
            "queryFields": set.query_fields, "mutationsFound": set.mutations_found,
            "subscriptionsDetected": set.subscriptions_detected,
            "compiled": set.tools.len(), "validOperations": set.tools.len() - invalid.len(),
            "defs": defs_set.defs.len(), "skipped": set.skipped,
            "tokens": {
                "encoding": meter.encoding().name(),
                "format": a.format.name(),
                // each tool carries the $defs it uses (what an MCP/OpenAI/Anthropic client gets)
                "withDefs": set_tokens(defs_set, a.format, &meter),
                // refs expanded in place
                "inline": set_tokens(inline_set, a.format, &meter),
                // one JSON-Schema document, every definition said once for the whole set
                "sharedDefs": set_tokens(defs_set, ToolFormat::JsonSchema, &meter),
            },
            "tools": tools,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", serde_json::to_string_pretty(&set.render(a.format))?);
        let meter = TokenMeter::new(a.encoding);
        eprintln!(
            "gqlnav: {} tools from {} ({} query fields; {} mutations found, {} compiled; {} subscriptions detected, not imported); {}/{} default operations validate; {} tokens ({}, {}, compact JSON)",
            set.tools.len(),
            graph.source,
            set.query_fields,
            set.mutations_found,
            set.tools.iter().filter(|t| t.mutation).count(),
            set.subscriptions_detected.len(),
            set.tools.len() - invalid.len(),
            set.tools.len(),
            set_tokens(&set, a.format, &meter),
            meter.encoding().name(),
            if a.refs == RefMode::Defs { "$defs" } else { "inline" },
        );
        for s in set.skipped.iter().take(5) {
            eprintln!("  skipped {}: {}", s.coordinate, s.reason);
        }
        if set.skipped.len() > 5 {
            eprintln!("  … {} more skipped (see --json)", set.skipped.len() - 5);
        }
    }
    if let Some((name, e)) = invalid.first() {
        bail!(
            "{} compiled operation(s) do not validate; first, {name}: {e}",
            invalid.len()
        );
    }
    Ok(())
}
