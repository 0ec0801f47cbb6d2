//! The `gqlnav` binary: a thin layer over the pipeline crates.

mod alloc;
mod backends;
mod cmd_agent;
mod cmd_bench;
mod cmd_corpus;
mod cmd_docs;
mod cmd_index;
mod cmd_mock;
mod cmd_search;
mod cmd_serve;
mod cmd_slice;
mod cmd_tools;
mod common;

use clap::{Parser, Subcommand};

const ABOUT: &str = "Search, slice and measure GraphQL schemas too large to paste into a prompt.";

const LONG_ABOUT: &str =
    "gqlnav finds the few schema coordinates (Type.field) a task needs, shows how to reach \
them from the root, and measures every answer in recall and tokens.

Every command takes --schema PATH|URL (an SDL file, an introspection JSON file, or an http(s) \
endpoint to introspect); without it the embedded GitHub schema is used.";

const EXAMPLES: &str = "Examples:
  gqlnav cost                                   what the GitHub schema costs, in tokens
  gqlnav corpus --schema my.graphql --show 3    corpus sizes per rendering, with samples
  gqlnav search \"open pull requests of a repo\"  ranked coordinates with paths to root
  gqlnav bench                                  recall/tokens on the bundled GitHub questions";

#[derive(Parser, Debug)]
#[command(name = "gqlnav", version, about = ABOUT, long_about = LONG_ABOUT, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build the coordinate corpus and count its tokens per rendering.
    #[command(
        long_about = "Build the coordinate corpus (one entry per field of every object and interface type) \
and count its tokens per rendering.\n\nRenderings:\n  raw                Movie.releaseYear\n  dot-plus-gloss     Movie.releaseYear - the release year of a movie\n  gloss              GraphQL field Movie.releaseYear. Owner type: Movie. Returns: Int!. Release year, four digits.\n  sdl                \"\"\"Release year, four digits.\"\"\"\\nreleaseYear: Int!  # on type Movie\n  coord              Movie.releaseYear\n  coord-desc         Movie.releaseYear — Release year, four digits.\n  coord-return       Movie.releaseYear -> Int\n  coord-return-desc  Movie.releaseYear -> Int — Release year, four digits.\n  name-only          releaseYear\n  sig                Movie.releaseYear: Int!\n  sig-desc           Movie.releaseYear: Int! — Release year, four digits.",
        after_help = "Examples:\n  gqlnav corpus --json\n  gqlnav corpus --schema schema.graphql --format gloss,sdl --show 5\n  gqlnav corpus --out corpus.jsonl --encoding cl100k_base"
    )]
    Corpus(cmd_corpus::CorpusArgs),
    /// What the whole schema costs to show a model, in tokens.
    #[command(
        after_help = "Examples:\n  gqlnav cost\n  gqlnav cost --schema https://api.example.com/graphql -H 'Authorization: Bearer …' --json"
    )]
    Cost(cmd_corpus::CostArgs),
    /// Rank schema coordinates for a question.
    #[command(
        after_help = "Examples:\n  gqlnav search \"who reviewed a pull request\"\n  gqlnav search \"who reviewed a pull request\" --page    what an agent's search_schema call shows\n  gqlnav search \"release year\" --schema movies.graphql -k 5 --json\n  gqlnav search \"repository stars\" --analyzer standard --format gloss --budget 500"
    )]
    Search(cmd_search::SearchArgs),
    /// Measure rankers on labelled questions: recall@k, MRR, ranks, tokens, budgets.
    #[command(
        after_help = "Examples:\n  gqlnav bench                                   the embedded 200 GitHub questions, default ranker\n  gqlnav bench --backend bm25 --analyzer standard,identifier --format raw,dot-plus-gloss,gloss,sdl\n  gqlnav bench -q benchmarks/wg/queries --schema-id linear --targets target --report out/\n  gqlnav bench -q my-questions.tsv --schema my.graphql --json"
    )]
    Bench(Box<cmd_bench::BenchArgs>),
    /// Cut the smallest valid SDL slice that reaches what a question needs, under a
    /// token budget.
    #[command(
        after_help = "Examples:\n  gqlnav slice \"merged pull requests with their authors\" --budget 2000\n  gqlnav slice \"schools by zone\" --schema schema.graphql --style compact --json\n  gqlnav slice \"issue labels\" --closed     (defines every named type; validates as a schema)"
    )]
    Slice {
        #[command(flatten)]
        args: cmd_slice::SliceArgs,
        #[command(flatten)]
        schema: common::SchemaArgs,
    },
    /// The one-hop linker: the types a question names (type names, field names, enum
    /// values) plus one hop, as a slice of whole types. A baseline for `gqlnav slice`.
    #[command(
        after_help = "Examples:\n  gqlnav link \"stargazer count of a repository\"\n  gqlnav link \"issues with the OPEN state\" --schema schema.graphql --types-only\n  gqlnav link \"pull request reviews\" --budget 4000 --json\n  gqlnav bench --mode slice --slicer linker     (graded beside gqlnav's slicer)"
    )]
    Link {
        #[command(flatten)]
        args: cmd_slice::LinkArgs,
        #[command(flatten)]
        schema: common::SchemaArgs,
    },
    /// Serve the schema to agents: an MCP server (stdio or streamable HTTP) with
    /// search / introspect / validate / execute tools, and a GraphQL endpoint with
    /// `__search` / `__definitions`.
    #[command(
        after_help = "Examples:\n  gqlnav serve --schema schema.graphql                      MCP over stdio\n  gqlnav serve --schema schema.graphql --http 127.0.0.1:8808  MCP over streamable HTTP\n  gqlnav serve --schema schema.graphql --graphql 127.0.0.1:4000 --endpoint https://api.example.com/graphql -H 'Authorization: Bearer …'\n  gqlnav serve --graphs graphs.toml --http 127.0.0.1:8808     many graphs, scoped per credential\n\nSee docs/serve.md for the config file, the tools and the safety defaults."
    )]
    Serve {
        #[command(flatten)]
        schema: common::SchemaArgs,
        #[command(flatten)]
        serve: Box<cmd_serve::ServeArgs>,
    },
    /// Build a ranker's index once and save it, for a fast `gqlnav serve --index-dir`.
    #[command(
        after_help = "Examples:\n  gqlnav index --schema schema.graphql --out idx/\n  gqlnav serve --schema schema.graphql --index-dir idx/\n  gqlnav index --schema schema.graphql --out idx-hybrid/ --backend hybrid --model DIR\n  gqlnav index --graphs graphs.toml --out indexes/          one index per graph: indexes/NAME"
    )]
    Index(Box<cmd_index::IndexArgs>),
    /// Let a chat model do a task with the tools (search_schema, introspect, validate,
    /// execute), one visible step at a time; a context receipt closes the run.
    #[command(
        after_help = "Examples:\n  gqlnav agent \"How many stars does rust-lang/rust have?\" --endpoint https://api.github.com/graphql -H 'Authorization: Bearer …' --model-url https://api.openai.com --model gpt-4.1-mini\n  gqlnav agent \"list my teams\" --schema linear.graphql --endpoint http://127.0.0.1:4000/graphql --model-url http://127.0.0.1:8080 --tool-protocol json\n  gqlnav agent \"…\" --inline --context 131072      (the whole schema in the prompt; refused when it does not fit)\n  gqlnav agent \"…\" --provider ollama --model-url http://127.0.0.1:11434 --model qwen2.5-coder:1.5b --transcript run.jsonl --json"
    )]
    Agent(Box<cmd_agent::AgentArgs>),
    /// A deterministic GraphQL upstream for any schema: same operation, same data;
    /// arguments change the data; real paging; operations validated like a server.
    #[command(
        after_help = "Examples:\n  gqlnav mock --schema schema.graphql --http 127.0.0.1:4000\n  gqlnav mock --schema schema.graphql -q '{ viewer { login } }'\n  gqlnav agent \"…\" --schema schema.graphql --endpoint http://127.0.0.1:4000/graphql --strategy typed"
    )]
    Mock(Box<cmd_mock::MockArgs>),
    /// Compile the schema's root fields into typed tools: JSON-Schema inputs (shared
    /// `$defs` or inline), bounded default operations that validate, for MCP, OpenAI,
    /// Anthropic or as one JSON-Schema document.
    #[command(
        long_about = "Compile the schema's root fields into typed tools: one per Query field (or those named with --select, or the root fields search ranks for --for \"question\"). Each tool has an input JSON Schema (draft 2020-12: scalars mapped, custom scalars as strings with their description, non-null as required, lists as arrays, defaults carried, enums and input objects in $defs shared across the set) and a default operation: the return type's leaf fields, connections as nodes { leaves } with first: 10, at most 3 levels and 24 fields per set, never re-entering a type on the path. A call may pass `fields` (paths like \"nodes[].title\") instead. Mutations are compiled only when named with --allow-mutations and are marked destructive; subscriptions are detected, not imported.",
        after_help = "Examples:\n  gqlnav tools --select repository,search                 MCP tool specs for two root fields\n  gqlnav tools --for \"open issues of a repository\" --format openai\n  gqlnav tools --schema schema.graphql --refs inline --nullable anyof --format openai\n  gqlnav tools --schema schema.graphql --json             report: validation, skipped, tokens with/without $defs\n  gqlnav tools --select repository --operations          the compiled GraphQL operations\n  gqlnav serve --schema schema.graphql --tools auto       serve them beside the navigation tools"
    )]
    Tools(Box<cmd_tools::ToolsArgs>),
    /// Documentation search next to the schema: index a docs site (sitemap, site root or
    /// local HTML/Markdown) into sections and chunks, search it, grade it.
    Docs(Box<cmd_docs::DocsArgs>),
    /// Print the loaded schema as SDL or as an introspection result (JSON), e.g. to
    /// convert an endpoint's introspection into a schema file.
    #[command(
        after_help = "Examples:\n  gqlnav export --schema https://api.example.com/graphql -H 'Authorization: Bearer …' > schema.graphql\n  gqlnav export --schema schema.graphql --format introspection > schema.json"
    )]
    Export {
        #[command(flatten)]
        schema: common::SchemaArgs,
        /// `sdl` (the schema as loaded, valid parts only) or `introspection` (the
        /// standard introspection result, `{"data":{"__schema":…}}`).
        #[arg(long, default_value = "sdl", value_parser = ["sdl", "introspection"])]
        format: String,
    },
}

fn run_export(schema: common::SchemaArgs, format: &str) -> anyhow::Result<()> {
    let graph = schema.load(false)?;
    if format == "introspection" {
        let v = gqlnav_schema::introspection_result(graph.schema.for_operations())
            .map_err(anyhow::Error::msg)?;
        println!("{v}");
    } else {
        print!("{}", *graph.schema);
    }
    Ok(())
}

fn run_serve(schema: common::SchemaArgs, serve: Box<cmd_serve::ServeArgs>) -> anyhow::Result<()> {
    if let Some(file) = cmd_serve::graphs_file(&serve)? {
        std::thread::spawn(|| gqlnav_corpus::TokenMeter::default().warm());
        return cmd_serve::run_graphs(*serve, &file, schema);
    }
    // The tools count every result in o200k_base: load its ranks on the other core while
    // the schema parses, so the first answer does not wait for them.
    std::thread::spawn(|| gqlnav_corpus::TokenMeter::default().warm());
    // Quiet load: stdout must stay clean for MCP over stdio.
    let graph = std::sync::Arc::new(schema.load(true)?);
    let headers = schema.endpoint_options()?.headers;
    let source = schema
        .schema
        .clone()
        .unwrap_or_else(|| "builtin:github".into());
    cmd_serve::run(*serve, graph, source, headers)
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Corpus(a) => cmd_corpus::run_corpus(a),
        Command::Cost(a) => cmd_corpus::run_cost(a),
        Command::Search(a) => cmd_search::run(a),
        Command::Bench(a) => cmd_bench::run(*a),
        Command::Serve { schema, serve } => {
            alloc::tune_for_server();
            run_serve(schema, serve)
        }
        Command::Export { schema, format } => run_export(schema, &format),
        Command::Index(a) => cmd_index::run(*a),
        Command::Tools(a) => cmd_tools::run(*a),
        Command::Docs(a) => cmd_docs::run(*a),
        Command::Agent(a) => cmd_agent::run(*a),
        Command::Mock(a) => cmd_mock::run(*a),
        Command::Link { args, schema } => schema
            .load(args.json)
            .and_then(|g| cmd_slice::run_link(&args, std::sync::Arc::new(g))),
        Command::Slice { args, schema } => cmd_slice::check_question(&args)
            .and_then(|()| schema.load(args.json))
            .and_then(|g| cmd_slice::run(&args, std::sync::Arc::new(g))),
    };
    if let Err(e) = r {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
