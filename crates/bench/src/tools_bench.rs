//! `gqlnav bench --mode tools`: what the navigation tools *show* an agent, independent of
//! any model. Each WG question is replayed with a scripted policy, one tool call per step.
//!
//! [`Policy::Page`] (a ranked page first):
//! 1. `search_schema {query: the question, limit: 10}`;
//! 2. `introspect` the owner types of the hits, best first (at most [`OWNER_TYPES`]);
//! 3. `introspect` the fields on the top hits' paths from the root (their arguments),
//!    at most [`PATH_FIELDS`].
//!
//! [`Policy::Slice`] (a budgeted answer first, as the tool's `budgetTokens` offers):
//! 1. `search_schema {query: the question, budgetTokens: B}`: a slice of the schema;
//! 2. `search_schema {query: the question, limit: 10}`: the ranked page;
//! 3. `introspect` the fields on the top hits' paths (as step 3 above).
//!
//! A slice's members are read as the slice bench reads them ([`slice_members`]: every
//! definition, field and argument of the parsed SDL), so "shown in a slice" and "a
//! perfect slice" are the same test.
//!
//! A coordinate is *shown* once it appears in a tool's text: `Type.field` as written,
//! `Type.field(arg:)` when the field is written with that argument (an SDL definition or
//! a one-line signature), a type when its name is written. A question passes at call N
//! when every `mustInclude` entry has been shown by call N. Tokens are those of the
//! texts read (the toolbox's meter, o200k_base), up to the passing call or all calls.

use std::collections::HashSet;

use gqlnav_tools::{IntrospectRequest, SearchRequest, Toolbox};

use crate::dataset::Question;
use crate::slice_bench::slice_members;

/// The scripted policy a replay follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Policy {
    /// Ranked page, then the hits' owner types, then the fields on their paths.
    Page,
    /// A budgeted search (a slice of `budget` tokens, the toolbox's encoding), then the
    /// ranked page, then the fields on the hits' paths.
    Slice { budget: u32 },
}

impl Policy {
    /// One line for reports.
    pub fn describe(&self) -> String {
        match self {
            Policy::Page => format!(
                "page: search_schema(question, limit 10); introspect the hits' owner types (≤ {OWNER_TYPES}); introspect the fields on the top {PATH_HITS} hits' root paths (≤ {PATH_FIELDS})"
            ),
            Policy::Slice { budget } => format!(
                "slice: search_schema(question, budgetTokens {budget}); search_schema(question, limit 10); introspect the fields on the top {PATH_HITS} hits' root paths (≤ {PATH_FIELDS})"
            ),
        }
    }
}

/// Owner types introspected in step 2.
pub const OWNER_TYPES: usize = 5;
/// Path fields introspected in step 3.
pub const PATH_FIELDS: usize = 12;
/// Hits whose first path feeds step 3.
const PATH_HITS: usize = 3;

/// One question's replay.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsResult {
    pub id: String,
    pub schema_id: String,
    /// The call after which every mustInclude entry had been shown (1-based), if any.
    pub passed_at: Option<usize>,
    /// Tokens read up to `passed_at` (or over all calls).
    pub tokens: usize,
    /// Tokens of the first call (the search answer) alone.
    pub search_tokens: usize,
    /// mustInclude entries never shown.
    pub missing: Vec<String>,
}

/// Scan `text` for coordinates: `Type.field`, `Type.field(arg:)` (the arguments written
/// inside the parentheses that follow), and, inside SDL `type T { … }` blocks, `T.f` for
/// each field line `f(…): …` / `f: …`. Every identifier is also kept as a bare name.
pub fn shown_coordinates(text: &str, out: &mut HashSet<String>) {
    let b = text.as_bytes();
    let ident = |i: usize| -> usize {
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        j
    };
    let mut i = 0;
    while i < b.len() {
        if (b[i].is_ascii_alphabetic() || b[i] == b'_')
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let e = ident(i);
            let name = &text[i..e];
            out.insert(name.to_string());
            if e + 1 < b.len()
                && b[e] == b'.'
                && (b[e + 1].is_ascii_alphabetic() || b[e + 1] == b'_')
            {
                let e2 = ident(e + 1);
                let coord = &text[i..e2];
                out.insert(coord.to_string());
                if e2 < b.len() && b[e2] == b'(' {
                    args_of(coord, &text[e2 + 1..], out);
                }
                i = e2;
                continue;
            }
            i = e;
        } else {
            i += 1;
        }
    }
    sdl_fields(text, out);
}

/// `coord(name:)` for each `name:` at depth 0 of the parenthesised list starting at `rest`
/// (which may span lines; quoted descriptions are skipped).
fn args_of(coord: &str, rest: &str, out: &mut HashSet<String>) {
    let mut depth = 0i32;
    let mut word = String::new();
    let mut quoted = false;
    for ch in rest.chars() {
        if ch == '"' {
            quoted = !quoted;
            word.clear();
            continue;
        }
        if quoted {
            continue;
        }
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0 && !word.is_empty() => {
                out.insert(format!("{coord}({word}:)"));
                word.clear();
            }
            c if c.is_ascii_alphanumeric() || c == '_' => word.push(c),
            _ => word.clear(),
        }
    }
}

/// Fields of SDL blocks: `type|interface|input T … {` opens a block whose lines
/// `name(…)` / `name:` are `T.name` (with their arguments, which may span lines).
fn sdl_fields(text: &str, out: &mut HashSet<String>) {
    let mut owner: Option<String> = None;
    let mut depth = 0i32;
    let mut quoted = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim();
        if t.starts_with("\"\"\"") {
            // A block-string line toggles unless it opens and closes on the same line.
            if !(t.len() >= 6 && t.ends_with("\"\"\"")) {
                quoted = !quoted;
            }
            continue;
        }
        if quoted || t.starts_with('"') || t.starts_with('#') {
            continue;
        }
        if let Some(o) = owner.clone() {
            if depth == 0 && t.starts_with('}') {
                owner = None;
                continue;
            }
            if depth == 0 {
                let end = t
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(t.len());
                let rest = &t[end..];
                if end > 0 && (rest.starts_with(':') || rest.starts_with('(')) {
                    let coord = format!("{o}.{}", &t[..end]);
                    if rest.starts_with('(') {
                        let lead = line.len() - line.trim_start().len();
                        args_of(&coord, &text[start + lead + end + 1..], out);
                    }
                    out.insert(coord);
                }
            }
            for ch in t.chars() {
                match ch {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            continue;
        }
        for kw in ["type ", "interface ", "input ", "extend type "] {
            if let Some(r) = t.strip_prefix(kw) {
                if t.ends_with('{') {
                    let name: String = r
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        owner = Some(name);
                        depth = 0;
                    }
                }
            }
        }
    }
}

/// What a replay has seen so far.
struct Seen<'q> {
    must: &'q [String],
    shown: HashSet<String>,
    tokens: usize,
    calls: usize,
    passed_at: Option<usize>,
}

impl Seen<'_> {
    /// Count one call's text (its coordinates written, plus `extra` members).
    fn read(&mut self, text: &str, tokens: usize, extra: Option<HashSet<String>>) {
        self.calls += 1;
        if self.passed_at.is_some() {
            return;
        }
        self.tokens += tokens;
        shown_coordinates(text, &mut self.shown);
        if let Some(m) = extra {
            self.shown.extend(m);
        }
        if self.must.iter().all(|m| self.shown.contains(m.as_str())) {
            self.passed_at = Some(self.calls);
        }
    }

    fn done(&self) -> bool {
        self.passed_at.is_some()
    }
}

/// The ranked page's field coordinates, best first.
fn page_coordinates(page: &gqlnav_tools::ToolOutput) -> Vec<serde_json::Value> {
    page.structured
        .as_ref()
        .and_then(|v| v["results"].as_array().cloned())
        .unwrap_or_default()
}

/// `introspect` the fields on the first root path of the top hits.
fn introspect_paths(tools: &Toolbox, results: &[serde_json::Value], seen: &mut Seen) {
    let mut fields: Vec<String> = Vec::new();
    for r in results.iter().take(PATH_HITS) {
        if let Some(p) = r["pathsToRoot"].get(0).and_then(|p| p.as_array()) {
            for f in p.iter().filter_map(|x| x.as_str()) {
                if !fields.iter().any(|g| g == f) {
                    fields.push(f.to_string());
                }
            }
        }
    }
    fields.truncate(PATH_FIELDS);
    if !fields.is_empty() {
        let r = tools.introspect(&IntrospectRequest::new(fields));
        seen.read(&r.text, r.tokens, None);
    }
}

/// Replay one question with `policy`.
pub fn replay(tools: &Toolbox, schema_id: &str, q: &Question, policy: Policy) -> ToolsResult {
    let mut seen = Seen {
        must: &q.must_include,
        shown: HashSet::new(),
        tokens: 0,
        calls: 0,
        passed_at: None,
    };
    let search_tokens;
    match policy {
        Policy::Page => {
            let s = tools.search_schema(&SearchRequest::new(q.text.clone()));
            search_tokens = s.tokens;
            seen.read(&s.text, s.tokens, None);
            let results = page_coordinates(&s);
            // 2. owner types of the hits.
            if !seen.done() {
                let mut owners: Vec<String> = Vec::new();
                for r in &results {
                    let Some(c) = r["coordinate"].as_str() else {
                        continue;
                    };
                    let o = c.split(['.', '(']).next().unwrap_or(c).to_string();
                    if !owners.contains(&o) {
                        owners.push(o);
                    }
                }
                owners.truncate(OWNER_TYPES);
                if !owners.is_empty() {
                    let r = tools.introspect(&IntrospectRequest::new(owners));
                    seen.read(&r.text, r.tokens, None);
                }
            }
            // 3. the fields on the top hits' paths.
            if !seen.done() {
                introspect_paths(tools, &results, &mut seen);
            }
        }
        Policy::Slice { budget } => {
            let mut req = SearchRequest::new(q.text.clone());
            req.budget_tokens = Some(budget);
            let s = tools.search_schema(&req);
            search_tokens = s.tokens;
            let members = s
                .structured
                .as_ref()
                .and_then(|v| v["slice"]["sdl"].as_str())
                .and_then(|sdl| slice_members(sdl).ok());
            seen.read(&s.text, s.tokens, members);
            if !seen.done() {
                let p = tools.search_schema(&SearchRequest::new(q.text.clone()));
                seen.read(&p.text, p.tokens, None);
                if !seen.done() {
                    introspect_paths(tools, &page_coordinates(&p), &mut seen);
                }
            }
        }
    }
    ToolsResult {
        id: q.id.clone(),
        schema_id: schema_id.to_string(),
        passed_at: seen.passed_at,
        tokens: seen.tokens,
        search_tokens,
        missing: q
            .must_include
            .iter()
            .filter(|m| !seen.shown.contains(m.as_str()))
            .cloned()
            .collect(),
    }
}

/// A schema's summary row.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsRow {
    pub schema_id: String,
    pub questions: usize,
    /// Share passing within 1, 2 and 3 calls.
    pub within: [f64; 3],
    pub mean_tokens: f64,
    /// Mean tokens of the search answer (call 1).
    pub mean_search_tokens: f64,
}

/// Summarise results per schema (and `all` last).
pub fn tools_rows(results: &[ToolsResult]) -> Vec<ToolsRow> {
    let mut ids: Vec<String> = Vec::new();
    for r in results {
        if !ids.contains(&r.schema_id) {
            ids.push(r.schema_id.clone());
        }
    }
    ids.push("all".into());
    ids.iter()
        .map(|id| {
            let rs: Vec<&ToolsResult> = results
                .iter()
                .filter(|r| id == "all" || &r.schema_id == id)
                .collect();
            let n = rs.len().max(1) as f64;
            let within = |k: usize| {
                rs.iter()
                    .filter(|r| r.passed_at.is_some_and(|p| p <= k))
                    .count() as f64
                    / n
            };
            ToolsRow {
                schema_id: id.clone(),
                questions: rs.len(),
                within: [within(1), within(2), within(3)],
                mean_tokens: rs.iter().map(|r| r.tokens as f64).sum::<f64>() / n,
                mean_search_tokens: rs.iter().map(|r| r.search_tokens as f64).sum::<f64>() / n,
            }
        })
        .collect()
}

/// The summary table (Markdown), headed by the policy.
pub fn tools_markdown(policy: Policy, rows: &[ToolsRow]) -> String {
    let mut t = format!("policy: {}\n\n", policy.describe());
    t.push_str("| schema | questions | all mustInclude shown in 1 call | in 2 | in 3 | mean tokens read | mean first answer |\n");
    t.push_str("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for r in rows {
        t.push_str(&format!(
            "| {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.0} | {:.0} |\n",
            r.schema_id,
            r.questions,
            100.0 * r.within[0],
            100.0 * r.within[1],
            100.0 * r.within[2],
            r.mean_tokens,
            r.mean_search_tokens
        ));
    }
    t
}

/// The run as one JSON object: the policy, the rows, every question's result.
pub fn tools_json(policy: Policy, rows: &[ToolsRow], results: &[ToolsResult]) -> serde_json::Value {
    serde_json::json!({
        "policy": policy, "policyText": policy.describe(),
        "rows": rows, "questions": results,
    })
}

/// mustInclude entries never shown, counted by kind (`argument`, `field`, `type`).
pub fn never_shown_by_kind(results: &[ToolsResult]) -> std::collections::BTreeMap<String, usize> {
    let mut missed = std::collections::BTreeMap::new();
    for m in results.iter().flat_map(|r| &r.missing) {
        let kind = if m.contains('(') {
            "argument"
        } else if m.contains('.') {
            "field"
        } else {
            "type"
        };
        *missed.entry(kind.to_string()).or_default() += 1;
    }
    missed
}

/// Write `tools.md` (the table), `tools.json` ([`tools_json`]) and
/// `tools_questions.jsonl` (one result per line) into `dir` (created if needed). Returns
/// the paths written.
pub fn write_tools_report(
    dir: &std::path::Path,
    policy: Policy,
    rows: &[ToolsRow],
    results: &[ToolsResult],
) -> Result<Vec<std::path::PathBuf>, crate::BenchError> {
    use crate::BenchError;
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    let write = |name: &str, text: String| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
        Ok::<_, BenchError>(p)
    };
    let mut lines = String::new();
    for r in results {
        lines.push_str(&serde_json::to_string(r)?);
        lines.push('\n');
    }
    let mut json = serde_json::to_string_pretty(&tools_json(policy, rows, results))?;
    json.push('\n');
    Ok(vec![
        write("tools.md", tools_markdown(policy, rows))?,
        write("tools.json", json)?,
        write("tools_questions.jsonl", lines)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_read_from_signatures_paths_and_sdl() {
        let mut s = HashSet::new();
        shown_coordinates(
            "1. Repository.issues (field, score 1.00)\n   Repository.issues(first: Int, states: [IssueState!]): IssueConnection!\n   path: Query.repository > Repository.issues\n",
            &mut s,
        );
        for c in [
            "Repository.issues",
            "Repository.issues(first:)",
            "Repository.issues(states:)",
            "Query.repository",
            "IssueConnection",
        ] {
            assert!(s.contains(c), "{c} in {s:?}");
        }
        assert!(!s.contains("Query.repository(owner:)"));
        let mut s = HashSet::new();
        shown_coordinates(
            "type Query {\n  repository(owner: String!, name: String!): Repository\n  viewer: User!\n}\n",
            &mut s,
        );
        for c in [
            "Query.repository",
            "Query.repository(owner:)",
            "Query.repository(name:)",
            "Query.viewer",
        ] {
            assert!(s.contains(c), "{c} in {s:?}");
        }
        // Arguments on their own lines, with descriptions that hold colons.
        let mut s = HashSet::new();
        shown_coordinates(
            "type Repository {\n  \"\"\"\n  The issues. Note: paged.\n  \"\"\"\n  issues(\n    \"\"\"Returns the first n. Hint: small\"\"\"\n    first: Int\n    \"Filter: states\"\n    states: [IssueState!]\n  ): IssueConnection!\n  name: String!\n}\n",
            &mut s,
        );
        for c in [
            "Repository.issues",
            "Repository.issues(first:)",
            "Repository.issues(states:)",
            "Repository.name",
        ] {
            assert!(s.contains(c), "{c} in {s:?}");
        }
        assert!(
            !s.iter()
                .any(|c| c.contains("(Note:)") || c.contains("(Hint:)") || c.contains("(Filter:)")),
            "{s:?}"
        );
        assert!(!s.contains("Repository.Returns"), "{s:?}");
    }
}
