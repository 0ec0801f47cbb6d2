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
    /// The whole schema in the system prompt and execute as the only tool (the seed's
    /// comparison). The truncation guard refuses it when it does not fit.
    #[arg(long)]
    pub inline: bool,
    /// The model's tokenizer.json, for exact prompt counts (default: llama-server's
    /// /tokenize when available, else an o200k_base estimate with a margin).
    #[arg(long, value_name = "PATH")]
    pub tokenizer: Option<PathBuf>,
    /// The model's context window in tokens (default: llama-server /props, Ollama
    /// /api/show, else 128000 assumed).
    #[arg(long, value_name = "TOKENS")]
    pub context: Option<usize>,
    /// JSON Schema of the answer (a file, or inline JSON): adds the `answer` tool.
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

fn answer_schema(s: &str) -> Result<Value> {
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
    let config = ToolsConfig {
        endpoint: a.endpoint.clone(),
        headers,
        ..ToolsConfig::default()
    };
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
        inline: a.inline,
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
