//! The typed strategy: the model never writes GraphQL. Each turn is constrained (JSON
//! Schema → the back end's grammar) to one action: call a typed tool (a root field, its
//! arguments, field paths from an enum) or give the answer in the question's answer
//! schema. gqlnav writes, validates and executes the operation and shows the data
//! compactly. When the question leads to no typed tool, the run falls back to the
//! navigation tools and the receipt says so.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{json, Value};

use gqlnav_corpus::TokenMeter;
use gqlnav_tools::{
    answer_mapping, assemble_answer, cap_text, path_view, render_data, OperationRequest, TypedCall,
    TypedOptions, TypedToolSet,
};

use crate::chat::{Message, Role, ToolProtocol};
use crate::error::AgentError;
use crate::receipt::Receipt;
use crate::session::{AgentOptions, Outcome, Session, Step, Stop};

/// Most turns of a typed run: the tool chosen from the menu, a call that brings data, the
/// answer; up to two more calls may fail first (an unknown path, a missing argument).
pub const TYPED_TURNS: usize = 5;

/// Items shown per list in a result.
const SHOWN_ITEMS: usize = 5;

/// Values shown per path in the answer turn's view of the data ([`path_view`]).
const SHOWN_VALUES: usize = 3;

/// Cap on a typed result, tokens (o200k_base): a session is two prompts of the tool text
/// (about 1.7k tokens each, `bench --mode typed`) and one result, under 6,000.
const TYPED_RESULT_TOKENS: usize = 1500;

const RULES: &str = "You answer a question with data from an API. You cannot write queries: you call one of the tools below and the system fetches the data.
Reply with one JSON object and nothing else:
- to fetch data: {\"action\": \"<tool>\", \"arguments\": {...}, \"fields\": [\"<field path>\", ...]}. Fill the arguments the question gives (names, ids, filters, how many); pick the few field paths that hold what the question asks for.
- after you see the data: {\"action\": \"answer\", \"answer\": ...} with values copied from the data.
A path `a.b[].c` reads `c` of every item of the list `b`; `x<T>` reads x when it is a T; a path shown with {…} selects those fields.";

/// Keywords of JSON Schema a grammar-constrained decoder (llama.cpp's json-schema-to-grammar)
/// does not enforce; an answer schema using one is sent as free JSON with a message.
const UNCONSTRAINABLE: [&str; 8] = [
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "patternProperties",
    "unevaluatedProperties",
];

/// The answer schema a turn is constrained by: the question's, or any JSON (with the
/// reason) when it uses what a grammar cannot express.
pub fn answer_grammar(schema: Option<&Value>) -> (Value, Option<String>) {
    fn find(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if UNCONSTRAINABLE.contains(&k.as_str()) {
                        out.push(k.clone());
                    } else if k == "$ref" && !x.as_str().is_some_and(|r| r.starts_with("#/")) {
                        out.push(format!("$ref {x}"));
                    }
                    if k != "enum" && k != "const" {
                        find(x, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| find(x, out)),
            _ => {}
        }
    }
    let free = json!({"type": ["object", "array", "string", "number", "integer", "boolean"]});
    let Some(s) = schema else {
        return (free, None);
    };
    if !(s.is_object() || s.is_boolean()) || s.as_object().is_some_and(|o| o.is_empty()) {
        return (
            free,
            Some(
                "the answer schema is empty or not a schema object; the answer is free JSON".into(),
            ),
        );
    }
    let mut bad = Vec::new();
    find(s, &mut bad);
    bad.sort();
    bad.dedup();
    if bad.is_empty() {
        let mut lean = crate::chat::lean_schema_described(s);
        cap_lists(&mut lean);
        (lean, None)
    } else {
        (
            free,
            Some(format!(
                "the answer schema uses {}, which the decoding grammar cannot enforce; the answer is free JSON and is checked only when graded",
                bad.join(", ")
            )),
        )
    }
}

/// Most items per list in an answer: the grader accepts a subset of the expected list
/// (`answer.rs`, WG §2.7), and a small model that starts repeating an item otherwise
/// writes until its reply is cut, which leaves no JSON at all.
const ANSWER_ITEMS: u64 = 5;

/// Most items of a list inside a list's items: five customers of five needs each did not
/// fit the 1.5B model's reply (docs/agent.md).
const NESTED_ANSWER_ITEMS: u64 = 3;

fn cap_lists(v: &mut Value) {
    fn walk(v: &mut Value, nested: bool) {
        match v {
            Value::Object(m) => {
                let array = m.get("type").and_then(Value::as_str) == Some("array");
                if array {
                    let most = if nested {
                        NESTED_ANSWER_ITEMS
                    } else {
                        ANSWER_ITEMS
                    };
                    let cap = m
                        .get("maxItems")
                        .and_then(Value::as_u64)
                        .map_or(most, |n| n.min(most));
                    m.insert("maxItems".into(), json!(cap));
                }
                for (k, x) in m.iter_mut() {
                    if k != "enum" && k != "const" {
                        walk(x, nested || (array && k == "items"));
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, nested)),
            _ => {}
        }
    }
    walk(v, false)
}

/// Bound an answer schema as the typed strategy's answer grammar does: lists to
/// [`ANSWER_ITEMS`] (nested ones to [`NESTED_ANSWER_ITEMS`]), free strings to
/// [`MAX_STRING`] characters. For a grammar-constrained navigate turn.
pub(crate) fn bound_answer(v: &mut Value) {
    cap_lists(v);
    cap_strings(v);
}

/// Longest string a turn may write (chars): a small model that starts repeating a
/// character in an id or a hash otherwise writes until its reply is cut (1.5B, an `oid`
/// of 600 characters, docs/agent.md).
const MAX_STRING: u64 = 200;

/// Bound every free string of a schema to [`MAX_STRING`] characters.
fn cap_strings(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let free = m.get("type").and_then(Value::as_str) == Some("string")
                && !m.contains_key("enum")
                && !m.contains_key("const")
                && !m.contains_key("maxLength");
            if free {
                m.insert("maxLength".into(), json!(MAX_STRING));
            }
            for (k, x) in m.iter_mut() {
                if k != "enum" && k != "const" {
                    cap_strings(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(cap_strings),
        _ => {}
    }
}

/// After a call failed, the field paths of it that cannot be written as given leave the
/// tool (and a tool with none left leaves the set while another remains): the next turn's
/// grammar cannot choose them again. Says what was taken away.
fn drop_failing(
    set: &mut TypedToolSet,
    schema: &gqlnav_schema::apollo_compiler::Schema,
    call: &TypedCall,
) -> Vec<String> {
    let failing: Vec<String> = call
        .fields
        .iter()
        .filter(|f| {
            let one = TypedCall {
                tool: call.tool.clone(),
                arguments: call.arguments.clone(),
                fields: vec![(*f).clone()],
            };
            set.write(schema, &one).is_err()
        })
        .cloned()
        .collect();
    let mut gone = Vec::new();
    if let Some(t) = set.tools.iter_mut().find(|t| t.name == call.tool) {
        t.paths.retain(|p| !failing.contains(p));
        gone.extend(failing.iter().map(|p| format!("`{p}`")));
    }
    if set.tools.len() > 1 {
        if let Some(i) = set
            .tools
            .iter()
            .position(|t| t.name == call.tool && t.paths.is_empty())
        {
            set.tools.remove(i);
            gone.push(format!("the tool `{}`", call.tool));
        }
    }
    gone
}

/// A reply's JSON action: the whole content, else the first balanced JSON object in it.
fn action_of(content: &str) -> Result<Value, String> {
    let t = content.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t) {
        return Ok(v);
    }
    if let (Some(a), Some(b)) = (t.find('{'), t.rfind('}')) {
        if a < b {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(&t[a..=b]) {
                return Ok(v);
            }
        }
    }
    Err(format!(
        "your reply was not one JSON action object (it began: {:?})",
        t.chars().take(60).collect::<String>()
    ))
}

/// What a typed run carries from turn to turn.
struct TypedRun {
    t0: Instant,
    set: TypedToolSet,
    answer: Value,
    messages: Vec<Message>,
    file: Option<std::fs::File>,
    receipt: Receipt,
    out: Outcome,
    seen: HashMap<String, usize>,
    data_seen: bool,
    /// The question, and the data of the call that brought it (the answer turn's prompt).
    task: String,
    last_data: Option<String>,
    /// The data of the last call that brought some: the answer is read from it by paths.
    last_json: Option<Value>,
    meter: TokenMeter,
    turns: usize,
    /// The tool is still to be chosen from the menu (more than one is offered).
    choose: bool,
    /// The tools the menu offered and the model did not choose (offered again when the
    /// chosen one needs a value the question does not say).
    others: Vec<gqlnav_tools::TypedTool>,
}

impl Session<'_> {
    /// Run `task` with the typed strategy ([`AgentOptions::typed`]).
    pub(crate) async fn run_typed(
        mut self,
        task: &str,
        typed: TypedOptions,
    ) -> Result<Outcome, AgentError> {
        let set = match self
            .tools
            .typed_tools_for(task, &typed, self.opts.answer_schema.as_ref())
        {
            Ok(s) if !s.tools.is_empty() => s,
            Ok(_) => {
                return self
                    .fallback(task, "no ranked field leads to a query root field")
                    .await
            }
            Err(e) => return self.fallback(task, &e.to_string()).await,
        };
        let mut st = self.typed_start(task, set, typed).await?;
        let stop = loop {
            if let Some(stop) = self.typed_turn(&mut st).await? {
                break stop;
            }
        };
        let mut receipt = st.receipt;
        receipt.close(
            st.t0.elapsed().as_millis(),
            self.opts.price_in,
            self.opts.price_out,
        );
        let mut out = st.out;
        out.stop = stop;
        out.receipt = receipt;
        Ok(out)
    }

    /// The navigation tools under the JSON action protocol, when no typed tool fits.
    async fn fallback(self, task: &str, why: &str) -> Result<Outcome, AgentError> {
        let mut opts: AgentOptions = self.opts.clone();
        opts.typed = None;
        opts.protocol = ToolProtocol::Json;
        let s = Session {
            tools: self.tools.clone(),
            client: self.client,
            guard: self.guard,
            opts: &opts,
            on_step: self.on_step,
        };
        let mut out = s.run(task).await?;
        out.receipt.strategy = format!("navigate (typed fallback: {why})");
        Ok(out)
    }

    /// The prompt, cut to fit the model's context when the tool set is too large.
    async fn typed_start(
        &self,
        task: &str,
        mut set: TypedToolSet,
        mut typed: TypedOptions,
    ) -> Result<TypedRun, AgentError> {
        let opts = self.opts;
        let (answer, answer_note) = answer_grammar(opts.answer_schema.as_ref());
        // The first turn's reply and one capped result must fit beside the prompt.
        let reserve = self.client.max_tokens as usize + opts.result_tokens.min(TYPED_RESULT_TOKENS);
        let mut notes: Vec<String> = answer_note.into_iter().collect();
        let mut system = typed_system(&set, &answer);
        loop {
            let tokens = self.guard.count(&[&system, task]).await;
            if tokens + reserve <= self.guard.window || typed.paths <= 2 {
                break;
            }
            typed.paths /= 2;
            typed.tools = typed.tools.min(2);
            set = match self
                .tools
                .typed_tools_for(task, &typed, opts.answer_schema.as_ref())
            {
                Ok(s) if !s.tools.is_empty() => s,
                _ => break,
            };
            system = typed_system(&set, &answer);
            notes.push(format!(
                "the typed tools did not fit the model's context ({tokens} tokens + {reserve} reserved > {}): cut to {} tools of {} field paths",
                self.guard.window, typed.tools, typed.paths
            ));
        }
        let file = self.open_transcript()?;
        let meter = TokenMeter::default();
        let set_len = set.tools.len();
        let generation = self.tools.generation();
        let receipt = Receipt {
            model: self.client.model.clone(),
            provider: self.client.provider.name().into(),
            strategy: "typed".into(),
            tool_encoding: meter.encoding().name().into(),
            sdl_tokens: meter.count(&generation.graph.schema.to_string()),
            guard_meter: self.guard.meter_name(),
            context_window: self.guard.window,
            typed_tools: set.tools.len(),
            typed_paths: set.tools.iter().map(|t| t.paths.len()).sum(),
            notes,
            ..Receipt::default()
        };
        Ok(TypedRun {
            t0: Instant::now(),
            set,
            answer,
            messages: vec![
                Message::new(Role::System, system),
                Message::new(Role::User, task),
            ],
            file,
            receipt,
            out: Outcome::empty(Stop::MaxTurns),
            seen: HashMap::new(),
            data_seen: false,
            task: task.to_string(),
            last_data: None,
            last_json: None,
            meter,
            turns: TYPED_TURNS.min(opts.max_turns).max(1),
            choose: set_len > 1,
            others: Vec::new(),
        })
    }

    fn typed_log(&self, st: &mut TypedRun, line: Value) -> Result<(), AgentError> {
        self.transcript(&mut st.file, line)
    }

    fn typed_record(
        &mut self,
        st: &mut TypedRun,
        tool: Option<String>,
        args: Option<Value>,
        result: String,
        is_error: bool,
    ) {
        let step = Step {
            turn: st.out.turns,
            tool,
            arguments: args,
            tokens: st.meter.count(&result),
            result,
            is_error,
        };
        (self.on_step)(&step);
        st.out.steps.push(step);
    }

    /// One constrained turn. `Some` ends the run.
    async fn typed_turn(&mut self, st: &mut TypedRun) -> Result<Option<Stop>, AgentError> {
        if st.out.turns >= st.turns {
            return Ok(Some(Stop::MaxTurns));
        }
        st.out.turns += 1;
        let turn = st.out.turns;
        let last = turn == st.turns;
        // Tools until a call brings data, then the answer (a 1.5B model offered both
        // repeated its call until the turns ran out); the last turn answers regardless.
        let may_answer = st.data_seen || last;
        if st.choose && !may_answer {
            return self.typed_choose(st).await;
        }
        // Once data came, the answer is given by paths of it ([`answer_mapping`]).
        let mapping = st
            .last_json
            .as_ref()
            .filter(|_| may_answer)
            .and_then(|d| answer_mapping(&st.answer, d));
        let mut schema = st.set.action_schema(
            may_answer.then(|| mapping.as_ref().unwrap_or(&st.answer)),
            !may_answer,
        );
        cap_strings(&mut schema);
        // The answer turn needs the question, the data and the answer's shape, not the
        // tools: a short prompt of its own.
        let system = if mapping.is_some() {
            mapping_system(&st.answer)
        } else {
            answer_system(&st.answer)
        };
        // With paths to give, the data is shown as its paths, each with its first values:
        // the choices themselves, not JSON to read them from.
        let shown = match (&mapping, &st.last_json) {
            (Some(_), Some(d)) => {
                let view = self.typed_cap(st, &path_view(d, SHOWN_VALUES), "");
                format!("Data from the API, one path a line with its first values:\n{view}")
            }
            _ => format!(
                "Data from the API:\n{}",
                st.last_data.as_deref().unwrap_or("(no call brought data)")
            ),
        };
        let answer_turn = [
            Message::new(Role::System, system),
            Message::new(Role::User, format!("{}\n\n{shown}", st.task)),
        ];
        let sent: Vec<Message> = if may_answer {
            answer_turn.to_vec()
        } else {
            st.messages.clone()
        };
        let reply = match self.typed_ask(st, &sent, &schema).await? {
            Ok(r) => r,
            Err(stop) => return Ok(Some(stop)),
        };
        let content = match reply.tool_calls.first() {
            Some(c) => json!({"action": c.name, "arguments": c.arguments}).to_string(),
            None => reply.content.clone(),
        };
        st.messages
            .push(Message::new(Role::Assistant, content.clone()));
        let action = match action_of(&content) {
            Ok(a) => a,
            Err(e) => {
                // A reply that did not end in one JSON object was most often cut while
                // writing optional arguments (a filter nested until the reply limit); at
                // temperature 0 the same prompt writes it again, so they leave the grammar.
                let optional = st
                    .set
                    .tools
                    .iter()
                    .any(|t| t.args.iter().any(|a| !a.required));
                st.set
                    .tools
                    .iter_mut()
                    .for_each(|t| t.args.retain(|a| a.required));
                let cut = if optional {
                    " The optional arguments are no longer offered."
                } else {
                    ""
                };
                let text = format!("{e}. The back end may not enforce the grammar, or the reply was cut at its token limit; reply with only the JSON object.{cut}");
                self.typed_record(st, None, None, text.clone(), true);
                st.messages.push(Message::new(Role::User, text));
                return Ok(None);
            }
        };
        if action["action"] == "answer" {
            if !may_answer {
                let text =
                    "Fetch the data first: call a tool; answer after you have seen its result."
                        .to_string();
                self.typed_record(st, Some("answer".into()), Some(action), text.clone(), true);
                st.messages.push(Message::new(Role::User, text));
                return Ok(None);
            }
            let given = action.get("answer").cloned().unwrap_or(Value::Null);
            let (v, said) = match (&mapping, &st.last_json) {
                (Some(_), Some(data)) => {
                    let v = assemble_answer(&st.answer, &given, data);
                    let said = format!("the answer, copied from the data by its paths: {v}");
                    (v, said)
                }
                _ => (given, String::new()),
            };
            self.typed_record(st, Some("answer".into()), Some(action), said, false);
            st.out.answer = Some(v);
            st.out.tool_calls += 1;
            return Ok(Some(Stop::Answered));
        }
        self.typed_call(st, action).await?;
        Ok(None)
    }

    /// One constrained model call: the prompt counted and checked against the window, the
    /// request and reply (or error) in the transcript, the usage in the receipt. `Err`:
    /// the back end failed, and the run stops with it.
    async fn typed_ask(
        &mut self,
        st: &mut TypedRun,
        sent: &[Message],
        schema: &Value,
    ) -> Result<Result<crate::chat::Reply, Stop>, AgentError> {
        let turn = st.out.turns;
        let texts: Vec<&str> = sent.iter().map(|m| m.content.as_str()).collect();
        let prompt_tokens = self.guard.count(&texts).await;
        st.receipt.saw_prompt(prompt_tokens);
        self.guard
            .check(prompt_tokens, self.client.max_tokens as usize)?;
        let body = self
            .client
            .body(sent, &[], ToolProtocol::Json, Some(schema));
        match self.client.complete(&body).await {
            Ok(reply) => {
                self.typed_log(
                    st,
                    json!({"turn": turn, "request": body, "response": reply.raw}),
                )?;
                st.receipt.add_call(&reply.usage);
                Ok(Ok(reply))
            }
            Err(e) => {
                self.typed_log(
                    st,
                    json!({"turn": turn, "request": body, "error": e.to_string()}),
                )?;
                Ok(Err(Stop::ApiError(e.to_string())))
            }
        }
    }

    /// The first turn when several tools are offered: the tool, from a one-line-each menu
    /// (the 1.5B model reading every tool's arguments and fields at once took a sibling of
    /// the right one: a comment for a list of initiatives, docs/agent.md). The next turns
    /// read only the chosen tool. A reply that names no tool keeps them all.
    async fn typed_choose(&mut self, st: &mut TypedRun) -> Result<Option<Stop>, AgentError> {
        st.choose = false;
        let names: Vec<String> = st
            .set
            .menu_tools(&st.task)
            .iter()
            .map(|t| t.name.clone())
            .collect();
        if names.len() == 1 && st.set.tools.len() > 1 {
            // The question names one thing and one tool reads one thing: no turn needed.
            let all: Vec<String> = st.set.tools.iter().map(|t| t.name.clone()).collect();
            keep_only(st, &names[0]);
            st.messages[0] = Message::new(Role::System, typed_system(&st.set, &st.answer));
            let text = format!(
                "chose `{}` of {}: the question names one thing by a value, and this is the one tool its menu holds",
                names[0],
                all.join(", ")
            );
            self.typed_record(st, Some("choose".into()), None, text, false);
            return Ok(None);
        }
        let mut menu = st.set.clone();
        menu.tools.retain(|t| names.contains(&t.name));
        let schema = json!({
            "type": "object",
            "properties": {"tool": {"enum": names}},
            "required": ["tool"],
            "additionalProperties": false
        });
        let sent = [
            Message::new(
                Role::System,
                choose_system(&menu, self.opts.answer_schema.as_ref()),
            ),
            Message::new(Role::User, st.task.clone()),
        ];
        let reply = match self.typed_ask(st, &sent, &schema).await? {
            Ok(r) => r,
            Err(stop) => return Ok(Some(stop)),
        };
        let chosen = action_of(&reply.content)
            .ok()
            .and_then(|v| v["tool"].as_str().map(str::to_string))
            .filter(|n| names.contains(n));
        let text = match &chosen {
            Some(n) => {
                keep_only(st, n);
                st.messages[0] = Message::new(Role::System, typed_system(&st.set, &st.answer));
                format!("chose `{n}` of {}", names.join(", "))
            }
            None => format!(
                "the reply named no tool (it began: {:?}); every tool stays offered",
                reply.content.chars().take(60).collect::<String>()
            ),
        };
        self.typed_record(
            st,
            Some("choose".into()),
            chosen.map(|n| json!({"tool": n})),
            text,
            false,
        );
        Ok(None)
    }

    /// A typed tool call: written, executed, its data (or what to fix) handed back.
    async fn typed_call(&mut self, st: &mut TypedRun, action: Value) -> Result<(), AgentError> {
        let turn = st.out.turns;
        st.out.tool_calls += 1;
        let name = action["action"].as_str().unwrap_or_default().to_string();
        let key = action.to_string();
        let (text, is_error) = if let Some(prev) = st.seen.get(&key) {
            (format!("This is the call of turn {prev}; its data has not changed. Answer from it, or choose other arguments or fields."), true)
        } else if let Some(said) = unsaid_value(&st.set, &st.task, &action) {
            (self.offer_others(st, &name, &said), true)
        } else {
            st.seen.insert(key, turn);
            self.typed_execute(st, &action).await
        };
        let text = self.typed_cap(st, &text, "choose fewer fields or a smaller `first`");
        if !is_error {
            st.last_data = Some(text.clone());
        }
        self.typed_record(
            st,
            Some(name.clone()),
            Some(action.clone()),
            text.clone(),
            is_error,
        );
        let tokens = st.out.steps.last().map(|s| s.tokens).unwrap_or(0);
        st.receipt.add_tool(&name, tokens);
        self.typed_log(st, json!({"turn": turn, "tool": name, "arguments": action, "result": text, "isError": is_error}))?;
        let follow = if is_error {
            "Fix the call and try again."
        } else {
            "Now give the answer, with values copied from this data."
        };
        st.messages.push(Message::new(
            Role::User,
            format!("Result of {name}:\n{text}\n{follow}"),
        ));
        Ok(())
    }

    /// The chosen tool needs a value the question does not say ([`unsaid_value`]): the
    /// tools the menu did not choose are offered again, without it. Says what happened.
    fn offer_others(&self, st: &mut TypedRun, tool: &str, said: &str) -> String {
        let head = format!(
            "Not run: `{said}` is not a value the question says, and `{tool}` needs one it names."
        );
        if st.others.is_empty() {
            return format!("{head} Use a value from the question.");
        }
        st.set.tools = std::mem::take(&mut st.others);
        st.choose = st.set.tools.len() > 1;
        st.messages[0] = Message::new(Role::System, typed_system(&st.set, &st.answer));
        let names: Vec<&str> = st.set.tools.iter().map(|t| t.name.as_str()).collect();
        format!("{head} Choose another tool: {}.", names.join(", "))
    }

    /// `text` cut to the typed result cap ([`TYPED_RESULT_TOKENS`], or the run's lower
    /// one), with `advice` in the cut's note.
    fn typed_cap(&self, st: &TypedRun, text: &str, advice: &str) -> String {
        let tokens = self.opts.result_tokens.min(TYPED_RESULT_TOKENS);
        cap_text(text, usize::MAX, tokens, &st.meter, advice).0
    }

    async fn typed_execute(&self, st: &mut TypedRun, action: &Value) -> (String, bool) {
        let mut call: TypedCall = match serde_json::from_value(action.clone()) {
            Ok(c) => c,
            Err(e) => return (format!("the call could not be read: {e}"), true),
        };
        // The paths that hold the answer's keys the chosen fields miss.
        if let Some(a) = self.opts.answer_schema.as_ref() {
            let add = st.set.answer_paths(&call.tool, a, &call.fields);
            call.fields.extend(add);
        }
        let generation = self.tools.generation();
        let written = match st.set.write(&generation.graph.schema, &call) {
            Ok(w) => w,
            Err(e) => {
                let gone = drop_failing(&mut st.set, &generation.graph.schema, &call);
                let text = if gone.is_empty() {
                    e.to_string()
                } else {
                    format!("{e}\n(no longer offered: {})", gone.join(", "))
                };
                return (text, true);
            }
        };
        st.out.last_operation = Some(written.operation.clone());
        // The whole data, not the toolbox's capped text: the model is shown
        // [`render_data`] (a few items per list, capped in `typed_call`), and the answer
        // by paths reads values the cap would cut.
        let (out, data) = self
            .tools
            .execute_data(&OperationRequest {
                operation: written.operation,
                variables: Some(Value::Object(written.variables)),
                operation_name: None,
            })
            .await;
        if out.is_error {
            st.out.executes_failed += 1;
            return (out.text, true);
        }
        st.out.executes_ok += 1;
        st.data_seen = true;
        let mut text = match &data {
            Some(d) => render_data(d, SHOWN_ITEMS),
            None => out.text,
        };
        for why in &written.skipped {
            text.push_str(&format!("\n(left out: {why})"));
        }
        for how in &written.adjusted {
            text.push_str(&format!("\n(argument {how})"));
        }
        st.last_json = data;
        (text, false)
    }
}

/// Narrow the set to the chosen tool, keeping the others for [`Session::offer_others`].
fn keep_only(st: &mut TypedRun, name: &str) {
    let (chosen, others): (Vec<_>, Vec<_>) = std::mem::take(&mut st.set.tools)
        .into_iter()
        .partition(|t| t.name == name);
    st.set.tools = chosen;
    st.others = others;
}

/// The first argument of `action` that names the thing it reads (a root argument that is
/// required or one of a lookup's alternatives, a string, not an enum) with a value the
/// question does not say: a word of the value that is not in the question
/// (`todo(id: "12345")` for "my pending to-do items", `node(id: "your_store_id")` for
/// "my store's name"). The 1.5B model invented such values when it chose a lookup for a
/// question that names none (docs/agent.md); `slug: "example-enterprise"` for "the
/// example enterprise" is said.
fn unsaid_value(set: &TypedToolSet, task: &str, action: &Value) -> Option<String> {
    let tool = set.get(action["action"].as_str()?)?;
    let question = task.to_lowercase();
    let args = action["arguments"].as_object()?;
    tool.args
        .iter()
        .filter(|a| a.at.is_empty() && (a.required || a.alternative))
        .filter(|a| {
            // A custom scalar (`TodoID`) is a `$ref` to a string; an enum or input object
            // is not a value the question says word for word.
            let def = a.schema["$ref"]
                .as_str()
                .and_then(|r| r.rsplit('/').next())
                .and_then(|n| set.defs.get(n));
            let s = def.unwrap_or(&a.schema);
            s.get("enum").is_none() && s["type"] != "object"
        })
        .find_map(|a| {
            let v = args.get(&a.key)?.as_str()?;
            let unsaid = v
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| !w.is_empty() && !question.contains(w));
            unsaid.then(|| format!("{}: {}", a.key, Value::String(v.to_string())))
        })
}

/// The system prompt of the answer turn.
fn answer_system(answer: &Value) -> String {
    format!(
        "You answer a question with data an API returned. Reply with only {{\"action\": \"answer\", \"answer\": ...}}, copying values from the data exactly; do not invent values. Today is 2025-06-01.\nThe answer must match this JSON Schema: {}\n",
        serde_json::to_string(answer).unwrap_or_default()
    )
}

/// The system prompt of the answer turn once data came: the answer's shape, each value
/// the path of the data that holds it. The 1.5B model, told to copy values, wrote values
/// the data did not hold (`"main"` for a default branch it had not fetched) and took a
/// list's items from a single object beside it (docs/agent.md).
fn mapping_system(answer: &Value) -> String {
    format!(
        "You answer a question with data an API returned. You do not copy values: for each value of the answer, give the path of the data that holds it, and the system copies the values. The data is shown one path a line, with its first values. A path `a.b[].c` reads `c` of every item of the list `b`; for a list in the answer, give the path of its items' value (`a.b[].c`). Reply with only {{\"action\": \"answer\", \"answer\": ...}} in the answer's shape, with paths in place of values.\nThe answer's shape (JSON Schema): {}\n",
        serde_json::to_string(answer).unwrap_or_default()
    )
}

/// The system prompt of the turn that chooses the tool.
fn choose_system(set: &TypedToolSet, answer: Option<&Value>) -> String {
    format!(
        "You answer a question with data from an API. First choose the one tool that reads what the question asks about: a tool that reads a list for a question about many things, one that reads one thing when the question names it. Reply with only {{\"tool\": \"<name>\"}}.\n\nTools:\n{}",
        set.menu_for(answer)
    )
}

/// The system prompt of a typed run: the rules, the reference date, the tools.
fn typed_system(set: &TypedToolSet, answer: &Value) -> String {
    let mut s = String::from(RULES);
    s.push_str("\nToday is 2025-06-01.\n\nTools:\n");
    s.push_str(&set.describe());
    let shape = serde_json::to_string(answer).unwrap_or_default();
    s.push_str(&format!(
        "\nThe answer must match this JSON Schema: {shape}\n"
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_grammar_keeps_what_a_value_holds_and_drops_the_rest() {
        let (s, note) = answer_grammar(Some(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Answer",
            "type": "object",
            "properties": {
                "description": {"type": "string", "format": "uri"},
                "name": {"type": "string", "description": "Full name in owner/name form"}
            }
        })));
        assert!(note.is_none());
        assert_eq!(
            s["properties"]["name"]["description"],
            "Full name in owner/name form"
        );
        assert_eq!(s["properties"]["description"], json!({"type": "string"}));
        assert!(s.get("$schema").is_none() && s.get("title").is_none());
    }

    #[test]
    fn unconstrainable_answer_schemas_become_free_json_with_a_reason() {
        let (s, note) = answer_grammar(Some(
            &json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        ));
        assert_eq!(s["properties"]["n"]["type"], "integer");
        assert!(note.is_none());
        let (s, note) =
            answer_grammar(Some(&json!({"type": "object", "not": {"required": ["x"]}})));
        assert!(s["type"].is_array());
        assert!(note.is_some_and(|n| n.contains("not")));
        let (_, note) = answer_grammar(Some(&json!({"$ref": "https://example.com/a.json"})));
        assert!(note.is_some_and(|n| n.contains("$ref")));
        let (_, note) = answer_grammar(Some(&json!([])));
        assert!(note.is_some());
        // An enum value named like a keyword is data, not a keyword.
        let (_, note) = answer_grammar(Some(&json!({"enum": [{"not": 1}]})));
        assert!(note.is_none());
    }

    #[test]
    fn an_action_is_found_in_prose_or_refused_with_its_start() {
        assert_eq!(
            action_of(" {\"action\": \"a\"} ").ok(),
            Some(json!({"action": "a"}))
        );
        assert_eq!(
            action_of("Sure: {\"action\": \"a\", \"fields\": []} done").ok(),
            Some(json!({"action": "a", "fields": []}))
        );
        let e = action_of("I think the answer is 4").expect_err("no JSON");
        assert!(e.contains("I think"), "{e}");
    }
}
