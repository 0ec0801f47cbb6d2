//! The agent benchmark (`gqlnav bench --mode agent`): WG questions with answers, run by a
//! chat model through [`gqlnav_agent::Session`] with one of three strategies, graded as
//! the WG defines it (`benchmark-semantics.md` §2.7) and by the last executed operation.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use apollo_compiler::executable::{ExecutableDocument, Selection, SelectionSet};
use serde_json::{json, Value};

use gqlnav_agent::{AgentOptions, ChatClient, Guard, Outcome, Session, Stop};
use gqlnav_tools::Toolbox;

use crate::answer::{answer_matches, is_empty_expected};
use crate::error::BenchError;

/// How the agent sees the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The four navigation tools.
    Navigate,
    /// search answers with a growing budgeted slice (the WG "slicer"), and execute.
    Slice,
    /// The whole schema in the system prompt, execute only.
    Inline,
    /// Typed tools under a grammar: the model fills arguments and picks field paths,
    /// gqlnav writes the operation ([`gqlnav_agent::AgentOptions::typed`]).
    Typed,
}

impl Strategy {
    pub fn parse(s: &str) -> Option<Strategy> {
        match s {
            "navigate" => Some(Strategy::Navigate),
            "slice" => Some(Strategy::Slice),
            "inline" => Some(Strategy::Inline),
            "typed" => Some(Strategy::Typed),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Navigate => "navigate",
            Strategy::Slice => "slice",
            Strategy::Inline => "inline",
            Strategy::Typed => "typed",
        }
    }
}

/// Budgets of the slice strategy's successive searches (tokens, o200k_base).
pub const SLICE_BUDGETS: [u32; 3] = [2000, 4000, 6000];

/// One WG question with an answer.
#[derive(Debug, Clone)]
pub struct AgentQuestion {
    pub id: String,
    pub schema_id: String,
    /// The prompt: `query`, plus the numbered `queries` when present.
    pub prompt: String,
    pub answer_schema: Option<Value>,
    /// `answer` and every entry of `answers` (hand-written; graded only with
    /// [`Grading::Written`]).
    pub answers: Vec<Value>,
    pub must_include: Vec<String>,
    /// The gold `operation` (its result on the mock is the expected answer with
    /// [`Grading::Mock`]).
    pub operation: Option<String>,
    /// The WG `targetFields`.
    pub target_fields: Vec<String>,
}

/// Where expected answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grading {
    /// The gold operation's result on gqlnav's deterministic mock
    /// ([`crate::expected_answer`]); questions need an `operation`, `targetFields` and an
    /// `answerSchema`.
    Mock,
    /// The YAML `answer`/`answers` values (only meaningful against an upstream serving
    /// the data they were written from).
    Written,
}

/// Load the non-keyword WG questions of `schema_ids` that can be graded with `grading`
/// (a written answer; or a gold operation, targets and an answer schema), every
/// `every`-th (1 = all), in id order.
pub fn load_agent_questions(
    dir: &Path,
    schema_ids: &[&str],
    every: usize,
    grading: Grading,
) -> Result<Vec<AgentQuestion>, BenchError> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| BenchError::Options(format!("{}: {e}", dir.display())))?;
    let mut files: Vec<_> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| BenchError::Options(format!("{}: {e}", f.display())))?;
        let v: Value = serde_saphyr::from_str(&text)
            .map_err(|e| BenchError::Options(format!("{}: {e}", f.display())))?;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let schema_id = v["schemaId"].as_str().unwrap_or_default().to_string();
        if id.ends_with("-kw") || !schema_ids.contains(&schema_id.as_str()) {
            continue;
        }
        let mut answers: Vec<Value> = v.get("answer").cloned().into_iter().collect();
        if let Some(Value::Array(a)) = v.get("answers") {
            answers.extend(a.iter().cloned());
        }
        answers.retain(|a| !is_empty_expected(a));
        let operation = v["operation"]
            .as_str()
            .map(str::to_string)
            .filter(|o| !o.trim().is_empty());
        let strings = |key: &str| -> Vec<String> {
            v[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let target_fields = strings("targetFields");
        let gradable = match grading {
            Grading::Written => !answers.is_empty(),
            Grading::Mock => {
                operation.is_some() && !target_fields.is_empty() && v.get("answerSchema").is_some()
            }
        };
        if !gradable {
            continue;
        }
        let mut prompt = v["query"].as_str().unwrap_or_default().trim().to_string();
        if let Some(Value::Array(q)) = v.get("queries") {
            let list: Vec<String> = q
                .iter()
                .enumerate()
                .map(|(i, x)| format!("{}. {}", i + 1, x.as_str().unwrap_or_default()))
                .collect();
            if !list.is_empty() {
                prompt = format!("{prompt}\n\n{}", list.join("\n"));
            }
        }
        out.push(AgentQuestion {
            id,
            schema_id,
            prompt,
            answer_schema: v.get("answerSchema").cloned(),
            answers,
            must_include: strings("mustInclude"),
            operation,
            target_fields,
        });
    }
    Ok(out
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every.max(1) == 0)
        .map(|(_, q)| q)
        .collect())
}

/// The coordinates an operation uses: `Type.field`, `Type.field(arg:)` and the type of
/// every selection set; `Err` = the step that failed (`parse` or `validate`).
pub fn operation_members(
    schema: &apollo_compiler::validation::Valid<apollo_compiler::Schema>,
    op: &str,
) -> Result<Vec<String>, &'static str> {
    if apollo_compiler::ast::Document::parse(op, "op.graphql").is_err() {
        return Err("parse");
    }
    let doc =
        ExecutableDocument::parse_and_validate(schema, op, "op.graphql").map_err(|_| "validate")?;
    let mut out = Vec::new();
    fn walk(doc: &ExecutableDocument, set: &SelectionSet, out: &mut Vec<String>, depth: usize) {
        if depth > 64 {
            return;
        }
        out.push(set.ty.to_string());
        for s in &set.selections {
            match s {
                Selection::Field(f) => {
                    out.push(format!("{}.{}", set.ty, f.name));
                    for a in &f.arguments {
                        out.push(format!("{}.{}({}:)", set.ty, f.name, a.name));
                    }
                    walk(doc, &f.selection_set, out, depth + 1);
                }
                Selection::InlineFragment(i) => walk(doc, &i.selection_set, out, depth + 1),
                Selection::FragmentSpread(fs) => {
                    if let Some(fr) = doc.fragments.get(&fs.fragment_name) {
                        walk(doc, &fr.selection_set, out, depth + 1);
                    }
                }
            }
        }
    }
    for o in doc.operations.iter() {
        walk(&doc, &o.selection_set, &mut out, 0);
    }
    Ok(out)
}

/// One graded session.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRow {
    pub id: String,
    pub schema_id: String,
    pub strategy: Strategy,
    /// What ran, from the receipt (a typed run that fell back to navigate says so).
    pub ran: String,
    pub success: bool,
    /// `ok`, or the failure class: wrong_answer, no_answer, budget_turns,
    /// budget_tool_calls, no_tool_call_loop, api_error, too_long, never_executed.
    pub outcome: String,
    /// Operation grading of the last executed operation: `covered`, `coverage`,
    /// `validate`, `parse` or `never_executed`.
    pub operation: String,
    pub turns: usize,
    pub tool_calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub tool_payload_tokens: usize,
    pub one_shot: bool,
    pub wall_ms: u128,
    pub answer: Option<Value>,
}

/// Grade one outcome.
pub fn grade_outcome(
    q: &AgentQuestion,
    strategy: Strategy,
    o: &Outcome,
    schema: &apollo_compiler::validation::Valid<apollo_compiler::Schema>,
) -> AgentRow {
    let matched = o
        .answer
        .as_ref()
        .is_some_and(|a| q.answers.iter().any(|e| answer_matches(e, a)));
    let api = matches!(o.stop, Stop::ApiError(_));
    let success = matches!(o.stop, Stop::Answered | Stop::Final) && matched && !api;
    let never = o.executes_ok + o.executes_failed == 0;
    let outcome = if success {
        "ok"
    } else {
        match &o.stop {
            Stop::ApiError(_) => "api_error",
            Stop::TooLong(_) => "too_long",
            Stop::NoToolCallLoop => "no_tool_call_loop",
            Stop::MaxTurns | Stop::MaxToolCalls if never => "never_executed",
            Stop::MaxTurns => "budget_turns",
            Stop::MaxToolCalls => "budget_tool_calls",
            _ if o.answer.is_some() => "wrong_answer",
            _ => "no_answer",
        }
    }
    .to_string();
    let operation = match &o.last_operation {
        None => "never_executed".to_string(),
        Some(op) => match operation_members(schema, op) {
            Err(step) => step.to_string(),
            Ok(m) => if q.must_include.iter().all(|c| m.contains(c)) {
                "covered"
            } else {
                "coverage"
            }
            .to_string(),
        },
    };
    AgentRow {
        id: q.id.clone(),
        schema_id: q.schema_id.clone(),
        strategy,
        ran: o.receipt.strategy.clone(),
        success,
        outcome,
        operation,
        turns: o.turns,
        tool_calls: o.tool_calls,
        prompt_tokens: o.receipt.prompt_tokens,
        completion_tokens: o.receipt.completion_tokens,
        tool_payload_tokens: o.receipt.tool_payload_tokens,
        one_shot: success && o.executes_ok == 1 && o.executes_failed == 0,
        wall_ms: o.receipt.wall_ms,
        answer: o.answer.clone(),
    }
}

/// Run every question with every strategy. `tools` holds one toolbox per schema id (its
/// upstream is what `execute` runs against); `base.typed` bounds the typed strategy's
/// tools (default when unset). `progress` is told after each session.
pub async fn run_agent_bench(
    questions: &[AgentQuestion],
    strategies: &[Strategy],
    tools: &BTreeMap<String, Arc<Toolbox>>,
    client: &ChatClient,
    guard: &Guard,
    base: &AgentOptions,
    mut progress: impl FnMut(&AgentRow),
) -> Result<Vec<AgentRow>, BenchError> {
    let mut rows = Vec::new();
    for st in strategies {
        for q in questions {
            let tb = tools.get(&q.schema_id).ok_or_else(|| {
                BenchError::Options(format!("no schema `{}` loaded", q.schema_id))
            })?;
            let mut opts = base.clone();
            opts.inline = *st == Strategy::Inline;
            opts.slice_budgets = (*st == Strategy::Slice).then(|| SLICE_BUDGETS.to_vec());
            opts.typed = (*st == Strategy::Typed).then(|| base.typed.unwrap_or_default());
            opts.answer_schema = q.answer_schema.clone().or(Some(json!({})));
            opts.transcript = base
                .transcript
                .as_ref()
                .map(|d| d.join(format!("{}-{}.jsonl", q.id, st.name())));
            let session = Session {
                tools: tb.clone(),
                client,
                guard,
                opts: &opts,
                on_step: Box::new(|_| {}),
            };
            let outcome = match session.run(&q.prompt).await {
                Ok(o) => o,
                Err(e) => Outcome::empty(Stop::TooLong(e.to_string())),
            };
            let g = tb.generation();
            let row = grade_outcome(q, *st, &outcome, &g.operations().schema);
            progress(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}
