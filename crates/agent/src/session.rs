//! The loop: one model call per turn, at most one tool call executed per turn, limits
//! checked before each call, the guard before each send, a receipt at the end.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use gqlnav_corpus::{Rendering, TokenMeter};
use gqlnav_tools::{cap_text, NavCall, NavTool, ToolError, ToolOutput, Toolbox};

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
    /// The typed strategy: typed tools under a grammar instead of the navigation tools
    /// (`typed.rs`); these bound the tool set.
    pub typed: Option<gqlnav_tools::TypedOptions>,
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
            typed: None,
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
    /// The guard refused a later turn's prompt (a first prompt that does not fit is an
    /// error: nothing was sent).
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
    /// The transcript file of this run, created (`None` without `transcript`).
    pub(crate) fn open_transcript(&self) -> Result<Option<std::fs::File>, AgentError> {
        match &self.opts.transcript {
            Some(p) => std::fs::File::create(p)
                .map(Some)
                .map_err(|e| AgentError::Transcript(p.display().to_string(), e)),
            None => Ok(None),
        }
    }

    /// One JSONL line of the transcript, the key scrubbed.
    pub(crate) fn transcript(
        &self,
        file: &mut Option<std::fs::File>,
        line: Value,
    ) -> Result<(), AgentError> {
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

    /// Run one tool call of the tools offered (`searches` = search calls before this
    /// one). The tools crate reads the arguments and decides how the tool runs.
    async fn run_tool(
        &self,
        offered: &[ToolSpec],
        name: &str,
        args: &Value,
        searches: usize,
    ) -> ToolOutput {
        let tool = NavTool::from_name(name).filter(|_| offered.iter().any(|s| s.name == name));
        let Some(tool) = tool else {
            let names: Vec<&str> = offered.iter().map(|t| t.name.as_str()).collect();
            let e = ToolError::UnknownTool {
                name: name.to_string(),
                offered: names.join(", "),
            };
            return ToolOutput::err(e, None);
        };
        let call = match NavCall::parse(tool, args.clone()) {
            Ok(NavCall::Search(mut r)) => {
                if let Some(fix) = crate::hints::operation_as_search(&r.query) {
                    // Searched for the operation's names instead, the fix said first: a
                    // small model that writes operations from memory reads what exists.
                    let words = crate::hints::names_of_operation(&r.query);
                    if words.is_empty() {
                        return ToolOutput::err(fix, None);
                    }
                    r.query = words.clone();
                    let mut out = self
                        .tools
                        .run(NavCall::Search(r))
                        .await
                        .unwrap_or_else(|e| ToolOutput::err(e, None));
                    out.text = format!(
                        "{fix} Searched for its names instead: \"{words}\".\n{}",
                        out.text
                    );
                    return out;
                }
                if let Some(b) = &self.opts.slice_budgets {
                    r.budget_tokens = b.get(searches).or(b.last()).copied();
                }
                NavCall::Search(r)
            }
            // `execute(operation: "query …")` written as the operation: the call's own
            // text unwrapped.
            Ok(NavCall::Execute(mut r)) => {
                r.operation = crate::hints::unwrap_call(&r.operation);
                NavCall::Execute(r)
            }
            Ok(NavCall::Validate(mut r)) => {
                r.operation = crate::hints::unwrap_call(&r.operation);
                NavCall::Validate(r)
            }
            Ok(call) => call,
            Err(e) => return ToolOutput::err(e, None),
        };
        self.tools
            .run(call)
            .await
            .unwrap_or_else(|e| ToolOutput::err(e, None))
    }

    /// Run the task to the end.
    pub async fn run(mut self, task: &str) -> Result<Outcome, AgentError> {
        if let Some(t) = self.opts.typed {
            return Box::pin(self.run_typed(task, t)).await;
        }
        let mut st = self.start(task)?;
        let stop = loop {
            if let Some(stop) = self.turn(&mut st).await? {
                break stop;
            }
        };
        Ok(self.finish(st, stop))
    }

    /// The state before the first turn: the prompt, the tools offered, the receipt's
    /// whole-schema contrast.
    fn start(&self, task: &str) -> Result<RunState, AgentError> {
        let opts = self.opts;
        let generation = self.tools.generation();
        let meter = TokenMeter::default();
        let sdl = opts.inline.then(|| generation.graph.schema.to_string());
        let specs: Vec<ToolSpec> = prompt::tools(
            &self.tools.config,
            opts.inline,
            opts.slice_budgets.is_some(),
            opts.answer_schema.as_ref(),
        );
        let json_protocol = opts.protocol == ToolProtocol::Json;
        let system = prompt::system(
            sdl.as_deref(),
            &specs,
            opts.answer_schema.is_some(),
            json_protocol,
            task,
        );
        let file = self.open_transcript()?;
        let task_example = if opts.inline || opts.slice_budgets.is_some() {
            None
        } else {
            task_example(&self.tools, task, opts.answer_schema.as_ref())
        };
        let receipt = Receipt {
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
            strategy: if opts.inline {
                "inline"
            } else if opts.slice_budgets.is_some() {
                "slice"
            } else {
                "navigate"
            }
            .into(),
            ..Receipt::default()
        };
        Ok(RunState {
            t0: Instant::now(),
            specs_text: serde_json::to_string(&specs).unwrap_or_default(),
            specs,
            json_protocol,
            messages: vec![
                Message::new(Role::System, system),
                Message::new(Role::User, task),
            ],
            file,
            receipt,
            out: Outcome::empty(Stop::MaxTurns),
            seen: HashMap::new(),
            text_only: 0,
            repeated: None,
            searches: 0,
            shown: String::new(),
            example: None,
            task_example,
            meter,
        })
    }

    /// One turn: limits, the guard, one model call, then the reply handled. `Some` ends
    /// the run.
    async fn turn(&mut self, st: &mut RunState) -> Result<Option<Stop>, AgentError> {
        let opts = self.opts;
        if st.out.turns >= opts.max_turns {
            return Ok(Some(Stop::MaxTurns));
        }
        if st.out.tool_calls >= opts.max_tool_calls {
            return Ok(Some(Stop::MaxToolCalls));
        }
        st.out.turns += 1;
        let turn = st.out.turns;
        let prompt_tokens = {
            let mut texts: Vec<&str> = st.messages.iter().map(|m| m.content.as_str()).collect();
            if !st.json_protocol {
                texts.push(&st.specs_text);
            }
            self.guard.count(&texts).await
        };
        st.receipt.saw_prompt(prompt_tokens);
        if let Err(e) = self
            .guard
            .check(prompt_tokens, self.client.max_tokens as usize)
        {
            self.transcript(
                &mut st.file,
                json!({"turn": turn, "refused": e.to_string()}),
            )?;
            if turn == 1 {
                return Err(e);
            }
            // Later turns end the run with what it did so far (its steps, tokens and
            // receipt), as a back-end failure does.
            st.out.turns -= 1;
            return Ok(Some(Stop::TooLong(e.to_string())));
        }
        let body = self.request(st);
        let reply = match self.client.complete(&body).await {
            Ok(r) => r,
            Err(e) => {
                self.transcript(
                    &mut st.file,
                    json!({"turn": turn, "request": body, "error": e.to_string()}),
                )?;
                return Ok(Some(Stop::ApiError(e.to_string())));
            }
        };
        self.transcript(
            &mut st.file,
            json!({"turn": turn, "request": body, "response": reply.raw}),
        )?;
        st.receipt.add_call(&reply.usage);

        let found = match reply.tool_calls.first() {
            Some(c) => TextCall::Call(c.clone()),
            None => find_call(&reply.content, turn),
        };
        match found {
            TextCall::None => Ok(self.on_text(st, &reply.content)),
            TextCall::Malformed(e) => {
                let text = format!("Your tool call could not be used: {e}. Reply with only {{\"name\": \"<tool>\", \"arguments\": {{...}}}}.");
                self.record(st, None, None, text.clone(), true);
                st.messages
                    .push(Message::new(Role::Assistant, reply.content.clone()));
                st.messages.push(Message::new(Role::User, text));
                Ok(None)
            }
            TextCall::Call(c) => self.on_call(st, &reply, c).await,
        }
    }

    /// The request body of this turn. Under the JSON action protocol the tool whose last
    /// call repeated an earlier one may not be chosen (a small model at temperature 0
    /// otherwise sends the same call until the turns run out); once an operation has
    /// brought data, a repeat leaves only the answer tool (the 1.5B model, given the
    /// data, went on alternating the same execute and validate until its turns ran out).
    fn request(&self, st: &RunState) -> Value {
        let tools_offered: &[ToolSpec] = if st.json_protocol { &[] } else { &st.specs };
        let action = st.json_protocol.then(|| {
            let answer_now = st.answer_now();
            let allowed: Vec<ToolSpec> = st
                .specs
                .iter()
                .filter(|t| Some(&t.name) != st.repeated.as_ref())
                .filter(|t| !answer_now || t.name == prompt::ANSWER_TOOL)
                .cloned()
                .collect();
            action_schema(if allowed.is_empty() {
                &st.specs
            } else {
                &allowed
            })
        });
        // The answer as the typed strategy's grammar bounds it: a 1.5B model listing ten
        // commits was cut at its reply limit and left no answer (docs/agent.md).
        let action = action.map(|mut a| {
            for b in a["anyOf"].as_array_mut().into_iter().flatten() {
                if b["properties"]["name"]["const"] == prompt::ANSWER_TOOL {
                    crate::typed::bound_answer(&mut b["properties"]["arguments"]);
                }
            }
            a
        });
        self.client.body(
            &st.messages,
            tools_offered,
            self.opts.protocol,
            action.as_ref(),
        )
    }

    /// Show and keep one step.
    fn record(
        &mut self,
        st: &mut RunState,
        tool: Option<String>,
        arguments: Option<Value>,
        result: String,
        is_error: bool,
    ) {
        let tokens = st.meter.count(&result);
        let step = Step {
            turn: st.out.turns,
            tool,
            arguments,
            result,
            is_error,
            tokens,
        };
        (self.on_step)(&step);
        st.out.steps.push(step);
    }

    /// A reply without a tool call: the final answer (no answer tool, after some work),
    /// a nudge, or the end of a no-tool-call loop.
    fn on_text(&mut self, st: &mut RunState, content: &str) -> Option<Stop> {
        st.text_only += 1;
        self.record(st, None, None, content.to_string(), false);
        st.messages
            .push(Message::new(Role::Assistant, content.to_string()));
        if self.opts.answer_schema.is_none() && (st.out.tool_calls > 0 || st.text_only >= 2) {
            st.out.answer = Some(Value::String(content.to_string()));
            return Some(Stop::Final);
        }
        if st.text_only >= 2 {
            return Some(Stop::NoToolCallLoop);
        }
        st.messages.push(Message::new(Role::User, "No tool was called. Reply with only a JSON object {\"name\": \"<tool>\", \"arguments\": {...}} to call one."));
        None
    }

    /// A tool call: the answer, a repeat (refused, and the tool barred next turn), or a
    /// tool run and its capped result handed back.
    async fn on_call(
        &mut self,
        st: &mut RunState,
        reply: &crate::chat::Reply,
        call: ToolCall,
    ) -> Result<Option<Stop>, AgentError> {
        let opts = self.opts;
        let turn = st.out.turns;
        st.text_only = 0;
        st.out.tool_calls += 1;
        if call.name == prompt::ANSWER_TOOL && opts.answer_schema.is_some() {
            let v = call
                .arguments
                .get("answer")
                .cloned()
                .unwrap_or(call.arguments.clone());
            self.record(
                st,
                Some(prompt::ANSWER_TOOL.into()),
                Some(call.arguments.clone()),
                String::new(),
                false,
            );
            st.out.answer = Some(v);
            return Ok(Some(Stop::Answered));
        }
        let key = canonical(&call.name, &call.arguments);
        st.repeated = st.seen.contains_key(&key).then(|| call.name.clone());
        let (mut text, is_error) = match st.seen.get(&key) {
            Some(prev) if st.out.executes_ok > 0 && opts.answer_schema.is_some() => (format!("You already called {} with these arguments at turn {prev}; the result has not changed. You have data from execute: call answer now, copying the values it returned.", call.name), true),
            Some(prev) => (format!("You already called {} with these arguments at turn {prev}; the result has not changed. Change the arguments or use another tool.", call.name), true),
            None => {
                st.seen.insert(key, turn);
                self.run_new_call(st, &call).await
            }
        };
        // A repeat once there is data is told to answer; a call to run would contradict it.
        if is_error && !(st.answer_now() && opts.answer_schema.is_some()) {
            if let Some(line) = example_hint(st, &call) {
                text.push('\n');
                text.push_str(&line);
            }
        }
        let extra = reply.tool_calls.len().saturating_sub(1);
        if extra > 0 {
            text.push_str(&format!(
                "\n(Only the first of your {} tool calls was run: one tool per turn.)",
                extra + 1
            ));
        }
        self.record(
            st,
            Some(call.name.clone()),
            Some(call.arguments.clone()),
            text.clone(),
            is_error,
        );
        let tokens = st.out.steps.last().map(|s| s.tokens).unwrap_or(0);
        st.receipt.add_tool(&call.name, tokens);
        self.transcript(&mut st.file, json!({"turn": turn, "tool": call.name, "arguments": call.arguments, "result": text, "isError": is_error}))?;
        hand_back(st, reply, &call, text);
        Ok(None)
    }

    /// Run a call not made before: its result (with a hint when it names what no tool
    /// has shown), the counts it moves, capped to the result budget.
    async fn run_new_call(&mut self, st: &mut RunState, call: &ToolCall) -> (String, bool) {
        let split = (call.name == NavTool::Execute.name())
            .then(|| crate::hints::split_variables(&call.arguments))
            .flatten();
        let arguments = split.as_ref().map_or(&call.arguments, |(a, _)| a);
        let mut o = self
            .run_tool(&st.specs, &call.name, arguments, st.searches)
            .await;
        for line in split.iter().flat_map(|(_, said)| said) {
            o.text.push('\n');
            o.text.push_str(line);
        }
        if o.is_error {
            if let Some(line) = crate::hints::never_shown(o.structured.as_ref(), &st.shown) {
                o.text = format!("{line}\n{}", o.text);
            }
        } else {
            st.shown.push_str(&o.text);
            st.shown.push('\n');
        }
        if call.name == NavTool::Search.name() {
            st.searches += 1;
            let page = o.structured.as_ref().and_then(|s| s["example"].as_str());
            if let (Some(page), Some(task)) = (page, &st.task_example) {
                o.text = o.text.replacen(
                    &format!("{}{page}", gqlnav_tools::EXAMPLE_LEAD),
                    &format!("Reads what the task asks (execute with its variables): {task}"),
                    1,
                );
                st.shown.push_str(task);
                st.example = Some(task.clone());
            } else if let Some(op) = page {
                st.example = Some(op.to_string());
            }
        }
        if call.name == NavTool::Execute.name() {
            st.out.last_operation = call
                .arguments
                .get("operation")
                .and_then(Value::as_str)
                .map(str::to_string);
            if o.is_error {
                st.out.executes_failed += 1
            } else {
                st.out.executes_ok += 1
            }
        }
        let (text, _) = cap_text(
            &o.text,
            usize::MAX,
            self.opts.result_tokens,
            &st.meter,
            "ask for less (a smaller limit or fewer fields)",
        );
        (text, o.is_error)
    }

    /// Close the receipt: sums, the whole-schema contrast per call, wall time, cost.
    fn finish(&self, st: RunState, stop: Stop) -> Outcome {
        let mut receipt = st.receipt;
        receipt.close(
            st.t0.elapsed().as_millis(),
            self.opts.price_in,
            self.opts.price_out,
        );
        let mut out = st.out;
        out.stop = stop;
        out.receipt = receipt;
        out
    }
}

/// Hand a tool's result back to the model: as a user message after the reply when the
/// call was written in text, or as a tool message answering the structured call.
fn hand_back(st: &mut RunState, reply: &crate::chat::Reply, call: &ToolCall, text: String) {
    if reply.tool_calls.is_empty() {
        st.messages
            .push(Message::new(Role::Assistant, reply.content.clone()));
        st.messages.push(Message::new(
            Role::User,
            format!("Result of {}:\n{text}", call.name),
        ));
    } else {
        let mut a = Message::new(Role::Assistant, reply.content.clone());
        a.tool_calls = vec![call.clone()];
        st.messages.push(a);
        let mut t = Message::new(Role::Tool, text);
        t.tool_call_id = Some(call.id.clone());
        t.name = Some(call.name.clone());
        st.messages.push(t);
    }
}

/// After a failed search, validate or execute that did not run the operation the last
/// search page led with: the call that runs it, ready to copy ([`crate::hints::run_example`]).
/// A 1.5B model left that operation unused and repeated its own failing call until its
/// turns ran out (docs/agent.md, navigate).
fn example_hint(st: &RunState, call: &ToolCall) -> Option<String> {
    let example = st.example.as_deref()?;
    let navigates = [NavTool::Search, NavTool::Validate, NavTool::Execute]
        .iter()
        .any(|t| t.name() == call.name);
    let ran_it = call.arguments.get("operation").and_then(Value::as_str) == Some(example);
    if !navigates || ran_it {
        return None;
    }
    Some(crate::hints::run_example(
        example,
        call.arguments.get("variables"),
    ))
}

/// The operation the task's own typed tools write (the tool its menu leads with, reading
/// the paths that hold the answer's keys, its arguments as variables), on one line. A
/// search page leads with an operation for the searched words alone, fitted to no answer
/// (`organization(login:) { login }` for a question about packages): the 1.5B model
/// copied it and answered from data that did not hold the answer (docs/agent.md).
fn task_example(tools: &Toolbox, task: &str, answer: Option<&Value>) -> Option<String> {
    let set = tools
        .typed_tools_for(task, &gqlnav_tools::TypedOptions::default(), answer)
        .ok()?;
    let generation = tools.generation();
    set.example_for(&generation.graph.schema, Some(task), answer)
        .map(|op| op.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// What a run carries from turn to turn.
struct RunState {
    t0: Instant,
    specs: Vec<ToolSpec>,
    /// The tool specs as sent (counted by the guard when tools go in the request).
    specs_text: String,
    json_protocol: bool,
    messages: Vec<Message>,
    file: Option<std::fs::File>,
    receipt: Receipt,
    out: Outcome,
    /// Each call made (tool and arguments), with its turn.
    seen: HashMap<String, usize>,
    /// Text-only replies in a row.
    text_only: usize,
    /// The tool whose last call repeated an earlier one.
    repeated: Option<String>,
    /// search_schema calls so far (the slice strategy's budget step).
    searches: usize,
    /// Every successful tool result so far (what names the model has been shown).
    shown: String,
    /// The operation the last search_schema page led with (it reads the top hits).
    example: Option<String>,
    /// The operation the task's typed tools write ([`task_example`]): every search page
    /// leads with it instead of the page's own.
    task_example: Option<String>,
    meter: TokenMeter,
}

impl RunState {
    /// The last call repeated an earlier one after an operation brought data: the model
    /// is told to answer, and under the JSON protocol may write only the answer.
    fn answer_now(&self) -> bool {
        self.repeated.is_some() && self.out.executes_ok > 0
    }
}
