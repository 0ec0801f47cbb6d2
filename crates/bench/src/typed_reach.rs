//! What the typed tools can express, without a model: a question's gold operation
//! rewritten as a call of its typed tool set (the root field a tool, its arguments
//! argument keys, its target leaves field paths). When every part is offered, the call is
//! written, run on the mock and graded like an agent's answer would be: the upper bound
//! of the typed strategy on that question.

use apollo_compiler::ast::Value as AstValue;
use apollo_compiler::executable::{ExecutableDocument, Selection, SelectionSet};
use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;
use serde_json::{Map, Value};

use gqlnav_tools::{FieldPath, Step, TypedCall, TypedToolSet};

/// Why a gold operation is not a call of the typed tools.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "miss", content = "detail")]
pub enum ReachMiss {
    /// The gold operation does not parse or validate.
    Gold(String),
    /// Its root field is not among the tools.
    Tool(String),
    /// An argument it passes is not offered.
    Argument(String),
    /// A target leaf's path is not offered.
    Path(String),
}

fn json_of(v: &AstValue) -> Value {
    match v {
        AstValue::Null | AstValue::Variable(_) => Value::Null,
        AstValue::Enum(n) => Value::String(n.to_string()),
        AstValue::String(s) => Value::String(s.clone()),
        AstValue::Float(f) => f.try_to_f64().ok().map(Value::from).unwrap_or(Value::Null),
        AstValue::Int(i) => i.try_to_i32().map(Value::from).unwrap_or(Value::Null),
        AstValue::Boolean(b) => Value::Bool(*b),
        AstValue::List(l) => Value::Array(l.iter().map(|x| json_of(x)).collect()),
        AstValue::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.to_string(), json_of(x))).collect())
        }
    }
}

struct Walk<'a> {
    doc: &'a ExecutableDocument,
    schema: &'a Schema,
    tools: &'a TypedToolSet,
    tool: &'a str,
    targets: &'a [String],
    args: Map<String, Value>,
    fields: Vec<String>,
    misses: Vec<ReachMiss>,
}

impl Walk<'_> {
    fn targeted(&self, ty: &str, field: &str) -> bool {
        self.targets.iter().any(|c| {
            c.split_once('.').is_some_and(|(o, f)| {
                f == field
                    && (o == ty || self.schema.is_subtype(o, ty) || self.schema.is_subtype(ty, o))
            })
        })
    }

    fn set(&mut self, set: &SelectionSet, path: &FieldPath, depth: usize) {
        if depth > 24 {
            return;
        }
        for s in &set.selections {
            match s {
                Selection::Field(f) => {
                    if f.name.starts_with("__") {
                        continue;
                    }
                    let mut p = path.clone();
                    p.steps.push(Step {
                        field: f.name.to_string(),
                        list: f.definition.ty.is_list(),
                        on: None,
                    });
                    let at = p.to_string();
                    for a in &f.arguments {
                        if ["after", "before", "last"].contains(&a.name.as_str()) {
                            continue;
                        }
                        let Some(t) = self.tools.get(self.tool) else {
                            return;
                        };
                        // The tool's key may read the field's value as a type
                        // (`object<Commit>`); the argument is the field's all the same.
                        match t
                            .args
                            .iter()
                            .find(|x| bare(&x.at) == at && x.name == a.name.as_str())
                        {
                            Some(x) => {
                                self.args.insert(x.key.clone(), json_of(&a.value));
                            }
                            None if a.name == "first" => {}
                            None => self
                                .misses
                                .push(ReachMiss::Argument(format!("{at}({}:)", a.name))),
                        }
                    }
                    if f.selection_set.selections.is_empty() {
                        if self.targeted(set.ty.as_str(), f.name.as_str()) {
                            self.fields.push(at);
                        }
                    } else {
                        self.set(&f.selection_set, &p, depth + 1);
                    }
                }
                Selection::InlineFragment(i) => {
                    let mut p = path.clone();
                    if let Some(t) = &i.type_condition {
                        if t != &set.ty {
                            match p.steps.last_mut() {
                                Some(last) if last.on.is_none() => last.on = Some(t.to_string()),
                                _ => p.steps.push(Step {
                                    field: String::new(),
                                    list: false,
                                    on: Some(t.to_string()),
                                }),
                            }
                        }
                    }
                    self.set(&i.selection_set, &p, depth + 1);
                }
                Selection::FragmentSpread(fs) => {
                    if let Some(fr) = self.doc.fragments.get(&fs.fragment_name) {
                        self.set(&fr.selection_set, path, depth + 1);
                    }
                }
            }
        }
    }
}

/// A path's text without its type conditions (`object<Commit>.x` → `object.x`).
fn bare(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether a gold argument value is one the tool's grammar lets a model write: its object
/// keys offered, its enum values among those offered (`$ref`s read from `defs`).
fn conforms(
    v: &Value,
    schema: &Value,
    defs: &std::collections::BTreeMap<String, Value>,
    depth: usize,
) -> Result<(), String> {
    if depth > 16 || v.is_null() {
        return Ok(());
    }
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        return match defs.get(name) {
            Some(d) => conforms(v, d, defs, depth + 1),
            None => Ok(()),
        };
    }
    if let Some(vals) = schema.get("enum").and_then(Value::as_array) {
        if !vals.contains(v) {
            return Err(format!("{v} is not offered"));
        }
    }
    match v {
        Value::Array(items) => {
            let item = schema.get("items").unwrap_or(schema);
            items
                .iter()
                .try_for_each(|x| conforms(x, item, defs, depth + 1))
        }
        Value::Object(o) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return Ok(());
            };
            for (k, x) in o {
                match props.get(k) {
                    Some(p) => conforms(x, p, defs, depth + 1)?,
                    None => return Err(format!("`{k}` is not offered")),
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Why a gold operation is not a call of the tools, with the call it comes closest to
/// when only target leaves are missing (the call with the offered ones).
pub type GoldMiss = (Option<TypedCall>, Vec<ReachMiss>);

/// The typed call that a gold operation is, or every reason it is not.
pub fn gold_call(
    schema: &Valid<Schema>,
    tools: &TypedToolSet,
    operation: &str,
    targets: &[String],
) -> Result<TypedCall, GoldMiss> {
    let miss = |m: ReachMiss| (None, vec![m]);
    let doc = crate::gold::parse_gold(schema, operation).map_err(|e| miss(ReachMiss::Gold(e)))?;
    let op = doc
        .operations
        .iter()
        .next()
        .ok_or_else(|| miss(ReachMiss::Gold("no operation".into())))?;
    let Some(Selection::Field(root)) = op.selection_set.selections.first() else {
        return Err(miss(ReachMiss::Gold(
            "the operation does not start with a field".into(),
        )));
    };
    let Some(tool) = tools.get(root.name.as_str()) else {
        return Err(miss(ReachMiss::Tool(root.name.to_string())));
    };
    let mut w = Walk {
        doc: &doc,
        schema,
        tools,
        tool: &tool.name,
        targets,
        args: Map::new(),
        fields: Vec::new(),
        misses: Vec::new(),
    };
    for a in &root.arguments {
        if tool
            .args
            .iter()
            .any(|x| x.at.is_empty() && x.name == a.name.as_str())
        {
            w.args.insert(a.name.to_string(), json_of(&a.value));
        } else if a.name == "first" {
            // The page size: gqlnav writes it when the tool does not offer it.
        } else {
            w.misses
                .push(ReachMiss::Argument(format!("{}({}:)", root.name, a.name)));
        }
    }
    w.set(&root.selection_set, &FieldPath::default(), 0);
    let (args, leaves, mut misses) = (w.args, w.fields, w.misses);
    let mut fields: Vec<String> = Vec::new();
    for f in &leaves {
        let covering = if tool.paths.contains(f) {
            Some(f.clone())
        } else {
            tool.selects
                .iter()
                .find(|(o, ls)| {
                    f.strip_prefix(&format!("{o}."))
                        .is_some_and(|l| ls.iter().any(|x| x == l))
                })
                .map(|(o, _)| o.clone())
        };
        match covering {
            Some(c) if !fields.contains(&c) => fields.push(c),
            Some(_) => {}
            None => misses.push(ReachMiss::Path(f.clone())),
        }
    }
    for (k, v) in &args {
        let schema = tools
            .argument_schema(tool, k)
            .cloned()
            .unwrap_or(Value::Null);
        if let Err(why) = conforms(v, &schema, &tools.defs, 0) {
            misses.push(ReachMiss::Argument(format!("{k}: {why}")));
        }
    }
    let call = TypedCall {
        tool: tool.name.clone(),
        arguments: args,
        fields,
    };
    if misses.is_empty() {
        Ok(call)
    } else if !call.fields.is_empty() && misses.iter().all(|m| matches!(m, ReachMiss::Path(_))) {
        // Only target leaves are missing: the call with the offered ones may still answer
        // (a target the answer schema has no key for is not graded).
        Err((Some(call), misses))
    } else {
        Err((None, misses))
    }
}

/// One question of `bench --mode typed`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReachRow {
    pub id: String,
    pub schema_id: String,
    /// The tools offered, best first.
    pub tools: Vec<String>,
    /// The tools the first menu offers ([`TypedToolSet::menu_tools`]).
    pub menu: Vec<String>,
    /// The gold call's tool, when it is one of the tools.
    pub gold_tool: Option<String>,
    /// Field paths offered in all.
    pub paths: usize,
    /// Tokens of the tools as the model reads them (o200k_base).
    pub prompt_tokens: usize,
    /// Why the gold operation is not a call of the tools (empty: it is).
    pub misses: Vec<ReachMiss>,
    /// The gold call, written and run on the mock, answers the question.
    pub answered: bool,
    /// Why there is no expected answer or the call failed, when so.
    pub error: Option<String>,
}

/// Grade a question's typed reach on `mock`: the tool set, the gold call, its answer.
pub fn typed_reach(
    q: &crate::AgentQuestion,
    tools: &gqlnav_tools::Toolbox,
    mock: &gqlnav_mock::Mock,
    opts: &gqlnav_tools::TypedOptions,
    meter: &gqlnav_corpus::TokenMeter,
) -> ReachRow {
    let mut row = ReachRow {
        id: q.id.clone(),
        schema_id: q.schema_id.clone(),
        tools: Vec::new(),
        menu: Vec::new(),
        gold_tool: None,
        paths: 0,
        prompt_tokens: 0,
        misses: Vec::new(),
        answered: false,
        error: None,
    };
    let set = match tools.typed_tools_for(&q.prompt, opts, q.answer_schema.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            row.error = Some(e.to_string());
            return row;
        }
    };
    row.tools = set.tools.iter().map(|t| t.name.clone()).collect();
    row.menu = set
        .menu_tools(&q.prompt)
        .iter()
        .map(|t| t.name.clone())
        .collect();
    row.paths = set.tools.iter().map(|t| t.paths.len()).sum();
    row.prompt_tokens = meter.count(&set.describe());
    let op = q.operation.clone().unwrap_or_default();
    let expected =
        match crate::expected_answer(mock, &op, &q.target_fields, q.answer_schema.as_ref()) {
            Ok(e) => e,
            Err(e) => {
                row.error = Some(e.to_string());
                return row;
            }
        };
    let call = match gold_call(mock.schema(), &set, &op, &q.target_fields) {
        Ok(c) => c,
        Err((Some(c), m)) => {
            row.misses = m;
            row.gold_tool = Some(c.tool.clone());
            c
        }
        Err((None, m)) => {
            row.misses = m;
            return row;
        }
    };
    row.gold_tool = Some(call.tool.clone());
    let result = set
        .operation(mock.schema(), &call)
        .map_err(|e| e.to_string())
        .and_then(|(text, vars)| {
            let out = mock.execute(&gqlnav_mock::Request {
                query: text.clone(),
                variables: Some(vars),
                operation_name: None,
            });
            match out.get("errors") {
                Some(e) => Err(format!("{e}")),
                None => Ok((text, out["data"].clone())),
            }
        })
        .and_then(|(text, data)| {
            crate::expected_from_data(
                mock.schema(),
                &text,
                &data,
                &q.target_fields,
                q.answer_schema.as_ref(),
            )
            .map_err(|e| e.to_string())
        });
    match result {
        Ok(got) => row.answered = crate::answer_matches(&expected, &got),
        Err(e) => row.error = Some(e),
    }
    row
}

/// The `bench --mode typed` table: per API, questions, reach (the gold operation is a
/// call of the tools), answered (that call answers), answered with the gold tool in the
/// first menu, the menu's mean size, the miss classes, prompt tokens.
pub fn typed_reach_markdown(rows: &[ReachRow]) -> String {
    let mut ids: Vec<&str> = rows.iter().map(|r| r.schema_id.as_str()).collect();
    ids.sort();
    ids.dedup();
    let mut out = String::from("| api | questions | reach | answered | answered, in menu | menu (mean) | miss: tool | miss: argument | miss: path | no expected answer | tools tokens (mean) | paths (mean) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let mut groups: Vec<(String, Vec<&ReachRow>)> = ids
        .iter()
        .map(|id| {
            (
                id.to_string(),
                rows.iter().filter(|r| r.schema_id == *id).collect(),
            )
        })
        .collect();
    groups.push(("all".into(), rows.iter().collect()));
    for (name, g) in groups {
        let n = g.len().max(1) as f64;
        let pct = |k: usize| format!("{:.1}%", 100.0 * k as f64 / n);
        let count =
            |f: &dyn Fn(&ReachMiss) -> bool| g.iter().filter(|r| r.misses.iter().any(f)).count();
        let reach = g
            .iter()
            .filter(|r| r.misses.is_empty() && r.error.is_none())
            .count();
        out.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {:.1} | {} | {} | {} | {} | {:.0} | {:.1} |\n",
            g.len(),
            pct(reach),
            pct(g.iter().filter(|r| r.answered).count()),
            pct(g
                .iter()
                .filter(|r| r.answered && r.gold_tool.as_ref().is_some_and(|t| r.menu.contains(t)))
                .count()),
            g.iter().map(|r| r.menu.len()).sum::<usize>() as f64 / n,
            count(&|m| matches!(m, ReachMiss::Tool(_))),
            count(&|m| matches!(m, ReachMiss::Argument(_))),
            count(&|m| matches!(m, ReachMiss::Path(_))),
            g.iter()
                .filter(|r| r.error.is_some() && r.misses.is_empty())
                .count(),
            g.iter().map(|r| r.prompt_tokens).sum::<usize>() as f64 / n,
            g.iter().map(|r| r.paths).sum::<usize>() as f64 / n,
        ));
    }
    out
}
