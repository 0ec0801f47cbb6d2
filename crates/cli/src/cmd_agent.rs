//! `gqlnav agent`: a chat model drives the tools, one visible step at a time, and a
//! context receipt closes the run.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use gqlnav_agent::{AgentOptions, ChatClient, Guard, Provider, Session, Stop, ToolProtocol};
use gqlnav_corpus::Encoding;
use gqlnav_tools::{Toolbox, ToolsConfig};
use serde_json::Value;

use crate::common::SchemaArgs;

fn parse_provider(s: &str) -> Result<Provider, String> {
    Provider::parse(s)
        .ok_or_else(|| format!("unknown provider `{s}`; expected openai, ollama or anthropic"))
}

fn parse_protocol(s: &str) -> Result<ToolProtocol, String> {
    match s {
        "auto" => Ok(ToolProtocol::Auto),
        "json" => Ok(ToolProtocol::Json),
        _ => Err(format!(
            "unknown tool protocol `{s}`; expected auto or json"
        )),
    }
}

/// How `gqlnav agent` works the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentStrategy {
    /// Search, introspect, validate, execute: the model writes GraphQL.
    Navigate,
    /// Typed tools under a grammar: the model picks a tool, fills its arguments and
    /// chooses field paths; gqlnav writes the operation (for small local models; needs a
    /// back end that honours `response_format` json_schema, like llama-server).
    Typed,
    /// The whole schema in the system prompt, execute only.
    Inline,
}

/// Bounds of the typed tool set (`--strategy typed`).
#[derive(Args, Debug, Clone)]
pub struct TypedArgs {
    /// Most root fields offered as typed tools.
    #[arg(long, default_value_t = gqlnav_tools::TypedOptions::default().tools, value_name = "N")]
    pub typed_tools: usize,
    /// Most field paths offered per typed tool.
    #[arg(long, default_value_t = gqlnav_tools::TypedOptions::default().paths, value_name = "N")]
    pub typed_paths: usize,
    /// Most leaf fields an object path selects.
    #[arg(long, default_value_t = gqlnav_tools::TypedOptions::default().leaves, value_name = "N")]
    pub typed_leaves: usize,
    /// Offer optional input-object arguments (filters, orderings) the question says a
    /// field of. Off by default: the 1.5B model filled every filter it was offered with
    /// values the question never gave (docs/agent.md).
    #[arg(long)]
    pub typed_filters: bool,
}

impl TypedArgs {
    /// The typed tools' bounds.
    pub fn options(&self) -> gqlnav_tools::TypedOptions {
        gqlnav_tools::TypedOptions {
            tools: self.typed_tools.max(1),
            paths: self.typed_paths.max(1),
            leaves: self.typed_leaves.max(1),
            filters: self.typed_filters,
            ..gqlnav_tools::TypedOptions::default()
        }
    }
}

/// Flags of `gqlnav agent`.
#[derive(Args, Debug, Clone)]
pub struct AgentArgs {
    /// The task, in plain words.
    #[arg(value_name = "TASK")]
    pub task: String,
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// The GraphQL API that `execute` runs operations against (the --header values are
    /// sent to it as trusted headers).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// The chat model's base URL (llama-server, vLLM, Ollama, a hosted API).
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
    pub model_url: String,
    /// The model name sent with each request.
    #[arg(long, default_value = "local", value_name = "NAME")]
    pub model: String,
    /// openai (`/v1/chat/completions`: OpenAI, llama-server, vLLM), ollama (`/api/chat`) or
    /// anthropic (`/v1/messages`). Keys come from OPENAI_API_KEY / OLLAMA_API_KEY /
    /// ANTHROPIC_API_KEY and are never printed.
    #[arg(long, default_value = "openai", value_parser = parse_provider)]
    pub provider: Provider,
    /// auto: native tools, or one JSON call found in the reply. json: each turn constrained
    /// to a JSON action object (`response_format` json_schema; for small local models).
    #[arg(long, default_value = "auto", value_parser = parse_protocol, value_name = "auto|json")]
    pub tool_protocol: ToolProtocol,
    /// Most model turns.
    #[arg(long, default_value_t = 12)]
    pub max_turns: usize,
    /// Most tool calls.
    #[arg(long, default_value_t = 20)]
    pub max_tool_calls: usize,
    /// Cap on each tool result, in o200k_base tokens.
    #[arg(long, default_value_t = 2000, value_name = "TOKENS")]
    pub result_tokens: usize,
    /// Most tokens per model reply (also reserved by the truncation guard).
    #[arg(long, default_value_t = 1024, value_name = "TOKENS")]
    pub max_reply_tokens: u32,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    /// Seed, where the back end takes one.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Whole-request timeout of each model call, seconds.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub model_timeout: u64,
    /// Whole-request timeout of each upstream call made by `execute`, seconds (a timeout
    /// comes back to the model as a tool error; the run goes on).
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub upstream_timeout: u64,
    /// navigate: the model finds names with search/introspect and writes GraphQL. typed:
    /// it fills typed tools under a grammar and gqlnav writes the operation (small local
    /// models; at most 4 turns). inline: the whole schema in the system prompt, execute
    /// only (the truncation guard refuses it when it does not fit).
    #[arg(long, value_enum, default_value_t = AgentStrategy::Navigate)]
    pub strategy: AgentStrategy,
    /// Same as --strategy inline.
    #[arg(long, conflicts_with = "strategy")]
    pub inline: bool,
    #[command(flatten)]
    pub typed: TypedArgs,
    /// The model's tokenizer.json, for exact prompt counts (default: llama-server's
    /// /tokenize when available, else an o200k_base estimate with a margin).
    #[arg(long, value_name = "PATH")]
    pub tokenizer: Option<PathBuf>,
    /// The model's context window in tokens (default: llama-server /props, Ollama
    /// /api/show, else 128000 assumed).
    #[arg(long, value_name = "TOKENS")]
    pub context: Option<usize>,
    /// JSON Schema of the answer (a file, or inline JSON): adds the `answer` tool. With
    /// `--strategy typed` it also orders the tools (those holding its keys first) and
    /// completes each call with the fields its keys name.
    #[arg(long, value_name = "FILE|JSON")]
    pub answer_schema: Option<String>,
    /// Write every request and response as JSONL.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// USD per million prompt tokens (for the receipt's cost).
    #[arg(long, value_name = "USD")]
    pub price_in: Option<f64>,
    /// USD per million completion tokens.
    #[arg(long, value_name = "USD")]
    pub price_out: Option<f64>,
    /// Print the outcome (answer, stop reason, steps, receipt) as one JSON object.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn answer_schema(s: &str) -> Result<Value> {
    let text = if std::path::Path::new(s).is_file() {
        std::fs::read_to_string(s).with_context(|| format!("reading {s}"))?
    } else {
        s.to_string()
    };
    serde_json::from_str(&text)
        .with_context(|| format!("--answer-schema is neither a JSON file nor JSON: {s}"))
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

pub fn run(a: AgentArgs) -> Result<()> {
    let graph = Arc::new(a.schema.load(a.json)?);
    let headers = a.schema.endpoint_options()?.headers;
    let mut config = ToolsConfig {
        endpoint: a.endpoint.clone(),
        headers,
        ..ToolsConfig::default()
    };
    config.policy.timeout = Duration::from_secs(a.upstream_timeout.max(1));
    if a.endpoint.is_none() && !a.json {
        eprintln!("gqlnav: no --endpoint: execute will say that no upstream is configured");
    }
    let tools = Arc::new(Toolbox::build(graph, None, config)?);
    let mut client = ChatClient::new(
        a.provider,
        &a.model_url,
        &a.model,
        Duration::from_secs(a.model_timeout.max(1)),
    )?;
    client.temperature = a.temperature;
    client.seed = Some(a.seed);
    client.max_tokens = a.max_reply_tokens.max(16);
    let tokenizer = match &a.tokenizer {
        Some(p) => Some(Encoding::load_tokenizer(p).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let opts = AgentOptions {
        max_turns: a.max_turns.max(1),
        max_tool_calls: a.max_tool_calls.max(1),
        result_tokens: a.result_tokens.max(100),
        protocol: a.tool_protocol,
        inline: a.inline || a.strategy == AgentStrategy::Inline,
        slice_budgets: None,
        typed: (a.strategy == AgentStrategy::Typed).then(|| a.typed.options()),
        answer_schema: a.answer_schema.as_deref().map(answer_schema).transpose()?,
        transcript: a.transcript.clone(),
        price_in: a.price_in,
        price_out: a.price_out,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let json = a.json;
    let outcome = rt.block_on(async {
        let guard = Guard::detect(&client, tokenizer, a.context).await;
        if !json {
            eprintln!(
                "gqlnav agent: {} via {} at {}; context {} ({}); prompts counted with {}",
                client.model,
                client.provider.name(),
                client.url,
                guard.window,
                guard.window_source,
                guard.meter_name()
            );
        }
        let session = Session {
            tools: tools.clone(),
            client: &client,
            guard: &guard,
            opts: &opts,
            on_step: Box::new(move |s| {
                if json {
                    return;
                }
                match (&s.tool, &s.arguments) {
                    (Some(t), Some(args)) => eprintln!(
                        "step {} · {t} {}\n   ← {}{} tokens",
                        s.turn,
                        short(args),
                        if s.is_error { "error, " } else { "" },
                        s.tokens
                    ),
                    _ => eprintln!(
                        "step {} · {}{}",
                        s.turn,
                        if s.is_error {
                            "not a tool call: "
                        } else {
                            "text: "
                        },
                        short(&Value::String(s.result.clone()))
                    ),
                }
            }),
        };
        session.run(&a.task).await
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        match &outcome.answer {
            Some(Value::String(s)) => println!("{s}"),
            Some(v) => println!("{}", serde_json::to_string_pretty(v)?),
            None => println!("(no answer)"),
        }
        eprintln!(
            "stopped: {}",
            serde_json::to_value(&outcome.stop)
                .map(|v| v.to_string())
                .unwrap_or_default()
        );
        eprint!("{}", outcome.receipt.text());
    }
    if let Stop::ApiError(e) = &outcome.stop {
        bail!("{e}");
    }
    Ok(())
}

/// Flags of `gqlnav bench --mode agent` (the WG directory and schema ids are the slice
/// bench's `--wg` / `--schema-ids`).
#[derive(Args, Debug, Clone)]
pub struct AgentBenchArgs {
    /// Strategies: typed (typed tools under a grammar; the model never writes GraphQL),
    /// navigate (the four tools), slice (search answers with a growing budgeted slice,
    /// and execute), inline (the whole schema, execute only).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "typed,navigate",
        value_name = "LIST"
    )]
    pub strategies: Vec<String>,
    /// Expected answers: mock (each gold operation's result on gqlnav's deterministic
    /// mock, which is also the upstream) or written (the YAML answers, against the
    /// --agent-endpoints upstream).
    #[arg(long, value_enum, default_value_t = Answers::Mock)]
    pub answers: Answers,
    /// With --answers written: the upstream per schema, `id=URL` (comma-separated), or
    /// one URL for all.
    #[arg(
        long = "agent-endpoints",
        value_delimiter = ',',
        value_name = "ID=URL,…"
    )]
    pub endpoints: Vec<String>,
    /// Every N-th question, in id order (1 = all).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub every: usize,
    /// At most N questions (after --every).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// The chat model's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
    pub chat_url: String,
    /// The chat model name.
    #[arg(long, default_value = "local", value_name = "NAME")]
    pub chat_model: String,
    /// openai, ollama or anthropic.
    #[arg(long, default_value = "openai", value_parser = parse_provider)]
    pub chat_provider: Provider,
    /// auto or json (see `gqlnav agent --help`).
    #[arg(long = "chat-tool-protocol", default_value = "auto", value_parser = parse_protocol)]
    pub tool_protocol: ToolProtocol,
    /// Most turns per session (WG: 12).
    #[arg(long = "agent-max-turns", default_value_t = 12)]
    pub max_turns: usize,
    /// Most tool calls per session (WG: 20).
    #[arg(long = "agent-max-tool-calls", default_value_t = 20)]
    pub max_tool_calls: usize,
    /// Most tokens per reply.
    #[arg(long = "agent-max-reply-tokens", default_value_t = 512)]
    pub max_reply_tokens: u32,
    /// The model's context window (default: detected, else 128000).
    #[arg(long = "agent-context", value_name = "TOKENS")]
    pub context: Option<usize>,
    /// Write each session's transcript into DIR.
    #[arg(long = "agent-transcripts", value_name = "DIR")]
    pub transcripts: Option<PathBuf>,
    #[command(flatten)]
    pub typed: TypedArgs,
}

impl AgentBenchArgs {
    /// The typed tools' bounds.
    pub fn typed_options(&self) -> gqlnav_tools::TypedOptions {
        self.typed.options()
    }
}

/// `gqlnav bench --mode typed`.
pub fn run_typed_bench(
    a: &AgentBenchArgs,
    wg: &std::path::Path,
    ids: &[String],
    json_out: bool,
    report: Option<&std::path::Path>,
) -> Result<()> {
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut questions = gqlnav_bench::load_agent_questions(
        &wg.join("queries"),
        &id_refs,
        a.every,
        gqlnav_bench::Grading::Mock,
    )?;
    if let Some(n) = a.limit {
        questions.truncate(n);
    }
    if questions.is_empty() {
        bail!(
            "no questions with an operation, targetFields and an answerSchema for {ids:?} in {}",
            wg.join("queries").display()
        );
    }
    let opts = a.typed_options();
    let meter = gqlnav_corpus::TokenMeter::default();
    let bar = crate::common::progress(questions.len() as u64, "questions");
    let mut rows = Vec::new();
    for id in ids {
        let qs: Vec<&gqlnav_bench::AgentQuestion> =
            questions.iter().filter(|q| &q.schema_id == id).collect();
        if qs.is_empty() {
            continue;
        }
        let path = wg.join("schemas").join(id).join("schema.graphql");
        let graph = Arc::new(
            gqlnav_schema::load_file(&path)
                .with_context(|| format!("loading {}", path.display()))?,
        );
        let mock = gqlnav_mock::Mock::of_graph(&graph, gqlnav_mock::MockOptions::default());
        let tools = Toolbox::build(graph, None, ToolsConfig::default())?;
        for q in qs {
            rows.push(gqlnav_bench::typed_reach(q, &tools, &mock, &opts, &meter));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let md = gqlnav_bench::typed_reach_markdown(&rows);
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"options": format!("{opts:?}"), "rows": rows})
            )?
        );
    } else {
        print!("{md}");
    }
    if let Some(dir) = report {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(dir.join("typed.md"), &md)?;
        let lines: Vec<String> = rows
            .iter()
            .filter_map(|r| serde_json::to_string(r).ok())
            .collect();
        std::fs::write(dir.join("typed_rows.jsonl"), lines.join("\n") + "\n")?;
        eprintln!("wrote {}", dir.join("typed.md").display());
    }
    Ok(())
}

/// Where the agent bench's expected answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Answers {
    /// Each question's gold operation run on gqlnav's deterministic mock (started
    /// in-process on 127.0.0.1 per schema; it is also what `execute` runs against).
    Mock,
    /// The YAML `answer` values: only meaningful against an upstream serving the data
    /// they were written from (--agent-endpoints).
    Written,
}

/// The toolboxes of the bench, one per schema, with their upstream: a mock started here,
/// or the --agent-endpoints. The mock servers live as long as the returned handles.
async fn bench_toolboxes(
    a: &AgentBenchArgs,
    wg: &std::path::Path,
    ids: &[String],
    questions: &mut Vec<gqlnav_bench::AgentQuestion>,
) -> Result<(
    std::collections::BTreeMap<String, Arc<Toolbox>>,
    Vec<gqlnav_mock::MockServer>,
)> {
    let endpoint_for = |id: &str| -> Option<String> {
        a.endpoints.iter().find_map(|e| match e.split_once('=') {
            Some((k, v)) if k == id => Some(v.to_string()),
            None => Some(e.clone()),
            _ => None,
        })
    };
    let mut tools = std::collections::BTreeMap::new();
    let mut servers = Vec::new();
    let mut ungradable = Vec::new();
    for id in ids {
        if !questions.iter().any(|q| &q.schema_id == id) {
            continue;
        }
        let path = wg.join("schemas").join(id).join("schema.graphql");
        let graph = Arc::new(
            gqlnav_schema::load_file(&path)
                .with_context(|| format!("loading {}", path.display()))?,
        );
        let endpoint = match a.answers {
            Answers::Written => endpoint_for(id),
            Answers::Mock => {
                let mock = gqlnav_mock::Mock::of_graph(&graph, gqlnav_mock::MockOptions::default());
                for q in questions.iter_mut().filter(|q| &q.schema_id == id) {
                    let op = q.operation.clone().unwrap_or_default();
                    match gqlnav_bench::expected_answer(
                        &mock,
                        &op,
                        &q.target_fields,
                        q.answer_schema.as_ref(),
                    ) {
                        Ok(v) => q.answers = vec![v],
                        Err(e) => ungradable.push(format!("{}: {e}", q.id)),
                    }
                }
                let server = gqlnav_mock::serve(Arc::new(mock), ([127, 0, 0, 1], 0).into())
                    .await
                    .context("starting the mock upstream")?;
                let url = server.url();
                servers.push(server);
                Some(url)
            }
        };
        let config = ToolsConfig {
            endpoint,
            ..ToolsConfig::default()
        };
        tools.insert(id.clone(), Arc::new(Toolbox::build(graph, None, config)?));
    }
    if !ungradable.is_empty() {
        eprintln!(
            "left out {} question(s) whose gold operation gives no expected answer on the mock: {}",
            ungradable.len(),
            ungradable.join("; ")
        );
        questions.retain(|q| !q.answers.is_empty());
    }
    Ok((tools, servers))
}

/// `gqlnav bench --mode agent`.
pub fn run_bench(
    a: &AgentBenchArgs,
    wg: &std::path::Path,
    ids: &[String],
    json_out: bool,
    report: Option<&std::path::Path>,
) -> Result<()> {
    use gqlnav_bench::Strategy;
    let strategies: Vec<Strategy> = a
        .strategies
        .iter()
        .map(|s| {
            Strategy::parse(s).ok_or_else(|| {
                anyhow::anyhow!("unknown strategy `{s}`; expected typed, navigate, slice or inline")
            })
        })
        .collect::<Result<_>>()?;
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let grading_of = match a.answers {
        Answers::Mock => gqlnav_bench::Grading::Mock,
        Answers::Written => gqlnav_bench::Grading::Written,
    };
    let mut questions =
        gqlnav_bench::load_agent_questions(&wg.join("queries"), &id_refs, a.every, grading_of)?;
    if let Some(n) = a.limit {
        questions.truncate(n);
    }
    if questions.is_empty() {
        bail!(
            "no questions for {ids:?} in {} that can be graded with --answers {}",
            wg.join("queries").display(),
            match a.answers {
                Answers::Mock => "mock (they need an operation, targetFields and an answerSchema)",
                Answers::Written => "written (they need an answer)",
            }
        );
    }
    let mut client = ChatClient::new(
        a.chat_provider,
        &a.chat_url,
        &a.chat_model,
        Duration::from_secs(600),
    )?;
    client.max_tokens = a.max_reply_tokens.max(16);
    if let Some(d) = &a.transcripts {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let base = AgentOptions {
        max_turns: a.max_turns.max(1),
        max_tool_calls: a.max_tool_calls.max(1),
        protocol: a.tool_protocol,
        transcript: a.transcripts.clone(),
        typed: Some(a.typed_options()),
        ..AgentOptions::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let rows = rt.block_on(async {
        let (tools, servers) = bench_toolboxes(a, wg, ids, &mut questions).await?;
        let total = questions.len() * strategies.len();
        let bar = crate::common::progress(total as u64, "sessions");
        let guard = Guard::detect(&client, None, a.context).await;
        let rows = gqlnav_bench::run_agent_bench(
            &questions,
            &strategies,
            &tools,
            &client,
            &guard,
            &base,
            |r| {
                bar.inc(1);
                bar.set_message(format!("{} {} {}", r.id, r.strategy.name(), r.outcome));
            },
        )
        .await;
        bar.finish_and_clear();
        drop(servers);
        anyhow::Ok(rows?)
    })?;
    let grading = match a.answers {
        Answers::Mock => "answer: tolerant match against the gold operation's result on gqlnav's deterministic mock (restricted to targetFields, shaped by the answerSchema), the mock being the upstream; operation: the last executed operation parses, validates and covers mustInclude",
        Answers::Written => "answer: tolerant match against the YAML answers (meaningful only when the upstream serves the data they were written from); operation: the last executed operation parses, validates and covers mustInclude",
    };
    let md = gqlnav_bench::agent_markdown(&rows, grading);
    let js = gqlnav_bench::agent_json(&rows, grading);
    if json_out {
        println!("{}", serde_json::to_string_pretty(&js)?);
    } else {
        print!("{md}");
    }
    if let Some(dir) = report {
        let written = gqlnav_bench::write_agent_report(dir, &rows, grading)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        eprintln!("wrote {}", names.join(", "));
    }
    Ok(())
}
