//! The loop: one model call per turn, at most one tool call executed per turn, limits
//! checked before each call, the guard before each send, a receipt at the end.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use gqlnav_corpus::{Rendering, TokenMeter};
use gqlnav_tools::{
    cap_text, IntrospectRequest, OperationRequest, SearchRequest, ToolOutput, Toolbox,
};

use crate::chat::{action_schema, ChatClient, Message, Role, ToolCall, ToolProtocol, ToolSpec};
use crate::error::AgentError;
use crate::guard::Guard;
use crate::parse::{find_call, TextCall};
use crate::prompt;
use crate::receipt::Receipt;

/// Limits and modes of one run.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    pub max_turns: usize,
    pub max_tool_calls: usize,
    /// Cap on each tool result, tokens (o200k_base, the tools' meter).
    pub result_tokens: usize,
    pub protocol: ToolProtocol,
    /// The whole schema in the system prompt, execute only.
    pub inline: bool,
    /// The WG "slicer" strategy: search_schema answers with a budgeted slice that grows
    /// with each call (these budgets, the last repeated); tools: search_schema, execute.
    pub slice_budgets: Option<Vec<u32>>,
    /// JSON Schema of the answer; adds the `answer` tool.
    pub answer_schema: Option<Value>,
    /// Write every request and response as JSONL here.
    pub transcript: Option<PathBuf>,
    pub price_in: Option<f64>,
    pub price_out: Option<f64>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            max_turns: 12,
            max_tool_calls: 20,
            result_tokens: 2000,
            protocol: ToolProtocol::Auto,
            inline: false,
            slice_budgets: None,
            answer_schema: None,
            transcript: None,
            price_in: None,
            price_out: None,
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum Stop {
    /// The `answer` tool was called.
    Answered,
    /// A plain-text answer (no answer schema).
    Final,
    MaxTurns,
    MaxToolCalls,
    /// Two text-only turns in a row while an `answer` tool was offered.
    NoToolCallLoop,
    /// The model back end failed.
    ApiError(String),
    /// The guard refused the prompt.
    TooLong(String),
}

/// One visible step.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub turn: usize,
    /// The tool called (`None`: a text reply).
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    /// The result (or the text reply), as the model saw it.
    pub result: String,
    pub is_error: bool,
    pub tokens: usize,
}

/// What a run produced.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub stop: Stop,
    /// The `answer` tool's value, or the final text.
    pub answer: Option<Value>,
    /// The last operation sent to execute.
    pub last_operation: Option<String>,
    pub executes_ok: usize,
    pub executes_failed: usize,
    pub turns: usize,
    pub tool_calls: usize,
    pub steps: Vec<Step>,
    pub receipt: Receipt,
}

impl Outcome {
    /// A run that has done nothing yet (or was stopped before its first call).
    pub fn empty(stop: Stop) -> Self {
        Outcome {
            stop,
            answer: None,
            last_operation: None,
            executes_ok: 0,
            executes_failed: 0,
            turns: 0,
            tool_calls: 0,
            steps: Vec::new(),
            receipt: Receipt::default(),
        }
    }
}

/// A run in progress.
pub struct Session<'a> {
    pub tools: Arc<Toolbox>,
    pub client: &'a ChatClient,
    pub guard: &'a Guard,
    pub opts: &'a AgentOptions,
    /// Called with each step as it happens (the CLI prints it).
    pub on_step: Box<dyn FnMut(&Step) + 'a>,
}

fn canonical(name: &str, args: &Value) -> String {
    format!("{name}:{args}")
}

impl Session<'_> {
    fn transcript(&self, file: &mut Option<std::fs::File>, line: Value) -> Result<(), AgentError> {
        if let Some(f) = file {
            let mut text = line.to_string();
            if let Some(k) = self.client.secret() {
                text = text.replace(k, "<key>");
            }
            writeln!(f, "{text}").map_err(|e| {
                AgentError::Transcript(
                    self.opts
                        .transcript
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    e,
                )
            })?;
        }
        Ok(())
    }

    /// Run one tool call (`searches` = search calls before this one).
    async fn run_tool(&self, name: &str, args: &Value, searches: usize) -> ToolOutput {
        let slicing = self.opts.slice_budgets.as_ref();
        fn parse<T: serde::de::DeserializeOwned>(
            name: &str,
            args: &Value,
        ) -> Result<T, ToolOutput> {
            serde_json::from_value(args.clone()).map_err(|e| {
                ToolOutput::err(
                    format!(
                        "bad arguments for {name}: {e}. Send a JSON object with the tool's fields."
                    ),
                    None,
                )
            })
        }
        let out = match name {
            "search_schema" if !self.opts.inline => {
                parse::<SearchRequest>(name, args).map(|mut r| {
                    if let Some(b) = slicing {
                        r.budget_tokens = b.get(searches).or(b.last()).copied();
                    }
                    self.tools.search_schema(&r)
                })
            }
            "introspect" if !self.opts.inline && slicing.is_none() => {
                parse::<IntrospectRequest>(name, args).map(|r| self.tools.introspect(&r))
            }
            "validate" if !self.opts.inline && slicing.is_none() => {
                parse::<OperationRequest>(name, args).map(|r| self.tools.validate(&r))
            }
            "execute" => match parse::<OperationRequest>(name, args) {
                Ok(r) => Ok(self.tools.execute(&r).await),
                Err(e) => Err(e),
            },
            other => Err(ToolOutput::err(
                format!(
                    "there is no tool `{other}`; the tools are: {}",
                    prompt::tools(
                        self.opts.inline,
                        slicing.is_some(),
                        self.opts.answer_schema.as_ref()
                    )
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
                ),
                None,
            )),
        };
        out.unwrap_or_else(|e| e)
    }

    /// Run the task to the end.
    pub async fn run(mut self, task: &str) -> Result<Outcome, AgentError> {
        let t0 = Instant::now();
        let opts = self.opts;
        let generation = self.tools.generation();
        let meter = TokenMeter::default();
        let sdl = if opts.inline {
            Some(generation.graph.schema.to_string())
        } else {
            None
        };
        let specs: Vec<ToolSpec> = prompt::tools(
            opts.inline,
            opts.slice_budgets.is_some(),
            opts.answer_schema.as_ref(),
        );
        let mut searches = 0usize;
        let json_protocol = opts.protocol == ToolProtocol::Json;
        let system = prompt::system(
            sdl.as_deref(),
            &specs,
            opts.answer_schema.is_some(),
            json_protocol,
        );
        // The tool whose last call repeated an earlier one: under the JSON action protocol
        // the next turn may not choose it (a small model at temperature 0 otherwise sends
        // the same call until the turns run out).
        let mut repeated: Option<String> = None;
        let specs_text = serde_json::to_string(&specs).unwrap_or_default();
        let mut messages = vec![
            Message::new(Role::System, system),
            Message::new(Role::User, task),
        ];
        let mut file = match &opts.transcript {
            Some(p) => Some(
                std::fs::File::create(p)
                    .map_err(|e| AgentError::Transcript(p.display().to_string(), e))?,
            ),
            None => None,
        };
        let mut receipt = Receipt {
            model: self.client.model.clone(),
            provider: self.client.provider.name().into(),
            tool_encoding: meter.encoding().name().into(),
            corpus_tokens: generation
                .ctx
                .corpus
                .render(Rendering::DotPlusGloss, &meter)
                .total_tokens(),
            sdl_tokens: meter.count(&generation.graph.schema.to_string()),
            guard_meter: self.guard.meter_name(),
            context_window: self.guard.window,
            ..Receipt::default()
        };
        let mut out = Outcome::empty(Stop::MaxTurns);
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut text_only = 0;
        let stop = loop {
            if out.turns >= opts.max_turns {
                break Stop::MaxTurns;
            }
            if out.tool_calls >= opts.max_tool_calls {
                break Stop::MaxToolCalls;
            }
            out.turns += 1;
            let turn = out.turns;
            let mut texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
            if !json_protocol {
                texts.push(&specs_text);
            }
            let prompt_tokens = self.guard.count(&texts).await;
            receipt.largest_prompt = receipt.largest_prompt.max(prompt_tokens);
            if let Err(e) = self
                .guard
                .check(prompt_tokens, self.client.max_tokens as usize)
            {
                self.transcript(&mut file, json!({"turn": turn, "refused": e.to_string()}))?;
                out.receipt = receipt;
                out.receipt.wall_ms = t0.elapsed().as_millis();
                out.stop = Stop::TooLong(e.to_string());
                return Err(e);
            }
            let tools_offered: &[ToolSpec] = if json_protocol { &[] } else { &specs };
            let body = self.client.body(
                &messages,
                tools_offered,
                opts.protocol,
                {
                    let allowed: Vec<ToolSpec> = specs
                        .iter()
                        .filter(|t| Some(&t.name) != repeated.as_ref())
                        .cloned()
                        .collect();
                    json_protocol
                        .then(|| action_schema(if allowed.is_empty() { &specs } else { &allowed }))
                }
                .as_ref(),
            );
            let reply = match self.client.complete(&body).await {
                Ok(r) => r,
                Err(e) => {
                    self.transcript(
                        &mut file,
                        json!({"turn": turn, "request": body, "error": e.to_string()}),
                    )?;
                    break Stop::ApiError(e.to_string());
                }
            };
            self.transcript(
                &mut file,
                json!({"turn": turn, "request": body, "response": reply.raw}),
            )?;
            receipt.model_calls += 1;
            receipt.prompt_tokens += reply.usage.prompt;
            receipt.completion_tokens += reply.usage.completion;
            receipt.cache_read_tokens += reply.usage.cache_read;

            let structured = !reply.tool_calls.is_empty();
            let found = match reply.tool_calls.first() {
                Some(c) => TextCall::Call(c.clone()),
                None => find_call(&reply.content, turn),
            };
            let extra = reply.tool_calls.len().saturating_sub(1);
            let call: ToolCall = match found {
                TextCall::None => {
                    text_only += 1;
                    let step = Step {
                        turn,
                        tool: None,
                        arguments: None,
                        result: reply.content.clone(),
                        is_error: false,
                        tokens: meter.count(&reply.content),
                    };
                    (self.on_step)(&step);
                    out.steps.push(step);
                    messages.push(Message::new(Role::Assistant, reply.content.clone()));
                    if opts.answer_schema.is_none() && (out.tool_calls > 0 || text_only >= 2) {
                        out.answer = Some(Value::String(reply.content.clone()));
                        break Stop::Final;
                    }
                    if text_only >= 2 {
                        break Stop::NoToolCallLoop;
                    }
                    messages.push(Message::new(Role::User, "No tool was called. Reply with only a JSON object {\"name\": \"<tool>\", \"arguments\": {...}} to call one."));
                    continue;
                }
                TextCall::Malformed(e) => {
                    let text = format!("Your tool call could not be used: {e}. Reply with only {{\"name\": \"<tool>\", \"arguments\": {{...}}}}.");
                    let step = Step {
                        turn,
                        tool: None,
                        arguments: None,
                        result: text.clone(),
                        is_error: true,
                        tokens: meter.count(&text),
                    };
                    (self.on_step)(&step);
                    out.steps.push(step);
                    messages.push(Message::new(Role::Assistant, reply.content.clone()));
                    messages.push(Message::new(Role::User, text));
                    continue;
                }
                TextCall::Call(c) => c,
            };
            text_only = 0;
            out.tool_calls += 1;
            if call.name == "answer" && opts.answer_schema.is_some() {
                let v = call
                    .arguments
                    .get("answer")
                    .cloned()
                    .unwrap_or(call.arguments.clone());
                let step = Step {
                    turn,
                    tool: Some("answer".into()),
                    arguments: Some(call.arguments.clone()),
                    result: String::new(),
                    is_error: false,
                    tokens: 0,
                };
                (self.on_step)(&step);
                out.steps.push(step);
                out.answer = Some(v);
                break Stop::Answered;
            }
            let key = canonical(&call.name, &call.arguments);
            repeated = seen.contains_key(&key).then(|| call.name.clone());
            let (text, is_error, tokens) = match seen.get(&key) {
                Some(prev) => {
                    let t = format!("You already called {} with these arguments at turn {prev}; the result has not changed. Change the arguments or use another tool.", call.name);
                    let n = meter.count(&t);
                    (t, true, n)
                }
                None => {
                    seen.insert(key, turn);
                    let o = self.run_tool(&call.name, &call.arguments, searches).await;
                    if call.name == "search_schema" {
                        searches += 1;
                    }
                    if call.name == "execute" {
                        out.last_operation = call
                            .arguments
                            .get("operation")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        if o.is_error {
                            out.executes_failed += 1
                        } else {
                            out.executes_ok += 1
                        }
                    }
                    let (text, _) = cap_text(
                        &o.text,
                        usize::MAX,
                        opts.result_tokens,
                        &meter,
                        "ask for less (a smaller limit or fewer fields)",
                    );
                    let n = meter.count(&text);
                    (text, o.is_error, n)
                }
            };
            let mut text = text;
            if extra > 0 {
                text.push_str(&format!(
                    "\n(Only the first of your {} tool calls was run: one tool per turn.)",
                    extra + 1
                ));
            }
            let share = receipt.tools.entry(call.name.clone()).or_default();
            share.calls += 1;
            share.tokens += tokens;
            let step = Step {
                turn,
                tool: Some(call.name.clone()),
                arguments: Some(call.arguments.clone()),
                result: text.clone(),
                is_error,
                tokens,
            };
            (self.on_step)(&step);
            out.steps.push(step);
            self.transcript(&mut file, json!({"turn": turn, "tool": call.name, "arguments": call.arguments, "result": text, "isError": is_error}))?;
            if structured {
                let mut a = Message::new(Role::Assistant, reply.content.clone());
                a.tool_calls = vec![call.clone()];
                messages.push(a);
                let mut t = Message::new(Role::Tool, text);
                t.tool_call_id = Some(call.id.clone());
                t.name = Some(call.name.clone());
                messages.push(t);
            } else {
                messages.push(Message::new(Role::Assistant, reply.content.clone()));
                messages.push(Message::new(
                    Role::User,
                    format!("Result of {}:\n{text}", call.name),
                ));
            }
        };
        receipt.tool_payload_tokens = receipt.tools.values().map(|t| t.tokens).sum();
        receipt.schema_knowledge_tokens = ["search_schema", "introspect"]
            .iter()
            .filter_map(|n| receipt.tools.get(*n))
            .map(|t| t.tokens)
            .sum();
        receipt.corpus_every_call = receipt.corpus_tokens * receipt.model_calls;
        receipt.wall_ms = t0.elapsed().as_millis();
        receipt.price(opts.price_in, opts.price_out);
        out.stop = stop;
        out.receipt = receipt;
        Ok(out)
    }
}
