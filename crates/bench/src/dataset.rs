//! Labelled question sets: the instrument's TSV form and the WG suite's YAML directory.
//!
//! Both loaders are lenient by default: a malformed line or file becomes a [`Problem`]
//! (file and 1-based line) and is skipped. With `strict = true` the first malformed
//! line or file is an error ([`BenchError::Malformed`]) naming `file:line`.

use std::path::Path;

use gqlnav_schema::SchemaGraph;
use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// One labelled question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// Stable id: the WG `id` (e.g. `gh-ext-001-kw`), or `<file stem>:<line>` for a TSV
    /// line.
    pub id: String,
    /// The WG `schemaId` (`None` for a TSV line).
    pub schema_id: Option<String>,
    /// The text that is searched.
    pub text: String,
    /// Optional sub-asks (the WG `queries` key).
    pub sub_queries: Vec<String>,
    /// The coordinates the question is graded against, per the dataset's
    /// [`TargetMode`] (TSV: the line's targets). Stripped, empties dropped, duplicates
    /// collapsed, first-seen order kept.
    pub targets: Vec<String>,
    /// 1-based line of each entry of `targets` in its source file (same order).
    pub target_lines: Vec<usize>,
    /// The WG `mustInclude` list, verbatim (all three forms; empty for TSV).
    pub must_include: Vec<String>,
    /// The WG `mustExclude` list, verbatim.
    pub must_exclude: Vec<String>,
    /// The WG `shouldInclude` list, verbatim (singapore only).
    pub should_include: Vec<String>,
    /// The WG `targetFields` list, verbatim.
    pub target_fields: Vec<String>,
    /// The id ends in `-kw` (a terse keyword twin of a natural-language question).
    pub is_keyword_variant: bool,
    /// `file:line` the question came from.
    pub source: String,
}

/// A malformed line or file that lenient loading skipped, or a target that
/// [`validate_targets`] could not find.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file.
    pub file: String,
    /// 1-based line number (0 when unknown).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// A loaded question set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dataset {
    /// A label for reports (the TSV file stem, or e.g. `wg github must all`).
    pub name: String,
    /// Questions: TSV in file order, WG sorted by id (byte order).
    pub questions: Vec<Question>,
    /// Malformed lines or files that were skipped.
    pub problems: Vec<Problem>,
    /// Questions skipped because their target list was empty in the chosen mode
    /// (WG loader only; a TSV line with no target is kept, see [`parse_tsv`]).
    pub skipped_empty: usize,
}

impl Dataset {
    /// Σ over questions of the number of (deduplicated) targets.
    pub fn targets_total(&self) -> usize {
        self.questions.iter().map(|q| q.targets.len()).sum()
    }
}

/// Which WG questions to keep, by the `-kw` suffix of their id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Variant {
    /// Natural-language and keyword questions.
    #[default]
    All,
    /// Only ids without the `-kw` suffix.
    NaturalLanguage,
    /// Only ids with the `-kw` suffix.
    Keyword,
}

impl Variant {
    /// Does a question with this keyword flag pass the filter?
    pub fn accepts(self, is_keyword: bool) -> bool {
        match self {
            Variant::All => true,
            Variant::NaturalLanguage => !is_keyword,
            Variant::Keyword => is_keyword,
        }
    }

    /// `all`, `nl` or `kw`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::All => "all",
            Variant::NaturalLanguage => "nl",
            Variant::Keyword => "kw",
        }
    }
}

/// Which WG list becomes [`Question::targets`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum TargetMode {
    /// The `mustInclude` entries that fully match `^\w+\.\w+$` (plain `Type.field`),
    /// exactly as `github-wg.tsv` was derived. Argument coordinates and bare type names
    /// are dropped. Questions left with none are skipped and counted in
    /// [`Dataset::skipped_empty`].
    #[default]
    Must,
    /// The `targetFields` list (the WG field-space retrieval ground truth). Questions
    /// with an empty list are skipped and counted in [`Dataset::skipped_empty`], as the
    /// WG aggregate excludes them.
    Target,
}

impl TargetMode {
    /// `must` or `target`.
    pub fn name(self) -> &'static str {
        match self {
            TargetMode::Must => "must",
            TargetMode::Target => "target",
        }
    }
}

/// Options of [`load_wg_dir`].
#[derive(Debug, Clone, Default)]
pub struct WgOptions {
    /// Keep only questions with this `schemaId` (e.g. `github`); `None` keeps all.
    pub schema_id: Option<String>,
    /// Natural-language / keyword filter.
    pub variant: Variant,
    /// Which list becomes the targets.
    pub mode: TargetMode,
    /// Fail on the first malformed file instead of recording a [`Problem`].
    pub strict: bool,
}

/// `s` fully matches `\w+\.\w+` (ASCII word characters), i.e. a plain `Type.field`.
pub fn is_plain_field(s: &str) -> bool {
    let word = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    match s.split_once('.') {
        Some((a, b)) => word(a) && word(b),
        None => false,
    }
}

/// Push `(t, line)` unless `t` was seen already.
fn push_unique(targets: &mut Vec<String>, lines: &mut Vec<usize>, t: &str, line: usize) {
    if !targets.iter().any(|x| x == t) {
        targets.push(t.to_string());
        lines.push(line);
    }
}

fn record(problems: &mut Vec<Problem>, strict: bool, p: Problem) -> Result<(), BenchError> {
    if strict {
        return Err(BenchError::Malformed {
            file: p.file,
            line: p.line,
            message: p.message,
        });
    }
    problems.push(p);
    Ok(())
}

fn file_stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// Load an instrument TSV file (`question<TAB>Type.field,Type.field,…`); see
/// [`parse_tsv`].
pub fn load_tsv(path: &Path, strict: bool) -> Result<Dataset, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| BenchError::io(path, e))?;
    parse_tsv(&path.display().to_string(), &text, strict)
}

/// Parse instrument TSV text, exactly as the instrument's `BenchmarkRunner` does:
///
/// - every line is stripped; empty lines and lines starting with `#` are skipped;
/// - a line must split on `\t` into exactly 2 parts, else it is malformed;
/// - the targets are `parts[1]` split on `,`, each stripped, empties dropped and
///   duplicates collapsed (first-seen order kept);
/// - a line whose target list ends up empty is **kept**: it scores 0 and still counts
///   in the number of questions (the instrument's rule).
///
/// `file` names the source in ids, `source` and problems. Questions keep file order;
/// their id is `<file stem>:<line>`.
pub fn parse_tsv(file: &str, text: &str, strict: bool) -> Result<Dataset, BenchError> {
    let stem = file_stem(file);
    let mut questions = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split('\t').collect();
        if parts.len() != 2 {
            record(
                &mut problems,
                strict,
                Problem {
                    file: file.to_string(),
                    line: line_no,
                    message: format!(
                        "expected `question<TAB>targets` (2 tab-separated parts), found {} part(s)",
                        parts.len()
                    ),
                },
            )?;
            continue;
        }
        let mut targets = Vec::new();
        let mut target_lines = Vec::new();
        for t in parts[1].split(',').map(str::trim).filter(|t| !t.is_empty()) {
            push_unique(&mut targets, &mut target_lines, t, line_no);
        }
        questions.push(Question {
            id: format!("{stem}:{line_no}"),
            schema_id: None,
            text: parts[0].to_string(),
            sub_queries: Vec::new(),
            targets,
            target_lines,
            must_include: Vec::new(),
            must_exclude: Vec::new(),
            should_include: Vec::new(),
            target_fields: Vec::new(),
            is_keyword_variant: false,
            source: format!("{file}:{line_no}"),
        });
    }
    Ok(Dataset {
        name: stem,
        questions,
        problems,
        skipped_empty: 0,
    })
}

/// The keys of one WG query file that the bench reads (other keys are ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WgFile {
    id: String,
    schema_id: String,
    query: serde_saphyr::Spanned<String>,
    #[serde(default)]
    queries: Option<Vec<String>>,
    #[serde(default)]
    target_fields: Option<Vec<serde_saphyr::Spanned<String>>>,
    #[serde(default)]
    must_include: Option<Vec<serde_saphyr::Spanned<String>>>,
    #[serde(default)]
    must_exclude: Option<Vec<String>>,
    #[serde(default)]
    should_include: Option<Vec<String>>,
}

fn yaml_problem(file: &str, e: &serde_saphyr::Error) -> Problem {
    let line = e.location().map(|l| l.line() as usize).unwrap_or(0);
    let message = e.without_snippet().to_string();
    let message = message.lines().next().unwrap_or("").trim().to_string();
    Problem {
        file: file.to_string(),
        line,
        message: format!("invalid WG query file: {message}"),
    }
}

fn spanned_line<T>(s: &serde_saphyr::Spanned<T>) -> usize {
    s.referenced.line() as usize
}

/// One parsed WG file: its filter keys, and the question unless it has no target in the
/// chosen mode.
struct Parsed {
    schema_id: String,
    is_keyword: bool,
    question: Option<Question>,
}

/// Parse one WG query file's text: its question, or the problem (with its line). For
/// tools and fuzzing; directories load with [`load_wg_dir`].
pub fn parse_wg_file(
    file: &str,
    text: &str,
    mode: TargetMode,
) -> Result<Option<Question>, Problem> {
    parse_wg(file, text, mode).map(|p| p.question)
}

/// Parse one WG query file.
fn parse_wg(file: &str, text: &str, mode: TargetMode) -> Result<Parsed, Problem> {
    let w: WgFile = serde_saphyr::from_str(text).map_err(|e| yaml_problem(file, &e))?;
    let query_line = spanned_line(&w.query);
    if w.id.trim().is_empty() {
        return Err(Problem {
            file: file.to_string(),
            line: 1,
            message: "empty `id`".to_string(),
        });
    }
    if w.query.value.trim().is_empty() {
        return Err(Problem {
            file: file.to_string(),
            line: query_line,
            message: format!("question `{}` has an empty `query`", w.id),
        });
    }
    let target_fields = w.target_fields.unwrap_or_default();
    let must_include = w.must_include.unwrap_or_default();
    let mut targets = Vec::new();
    let mut target_lines = Vec::new();
    match mode {
        TargetMode::Must => {
            for m in &must_include {
                let t = m.value.trim();
                if is_plain_field(t) {
                    push_unique(&mut targets, &mut target_lines, t, spanned_line(m));
                }
            }
        }
        TargetMode::Target => {
            for m in &target_fields {
                let t = m.value.trim();
                if !t.is_empty() {
                    push_unique(&mut targets, &mut target_lines, t, spanned_line(m));
                }
            }
        }
    }
    let is_keyword = w.id.ends_with("-kw");
    if targets.is_empty() {
        return Ok(Parsed {
            schema_id: w.schema_id,
            is_keyword,
            question: None,
        });
    }
    let question = Question {
        is_keyword_variant: is_keyword,
        id: w.id,
        schema_id: Some(w.schema_id.clone()),
        text: w.query.value,
        sub_queries: w.queries.unwrap_or_default(),
        targets,
        target_lines,
        must_include: must_include.into_iter().map(|s| s.value).collect(),
        must_exclude: w.must_exclude.unwrap_or_default(),
        should_include: w.should_include.unwrap_or_default(),
        target_fields: target_fields.into_iter().map(|s| s.value).collect(),
        source: format!("{file}:{query_line}"),
    };
    Ok(Parsed {
        schema_id: w.schema_id,
        is_keyword,
        question: Some(question),
    })
}

/// Load a WG query directory (`benchmark/evaluation/src/queries/all-schemas/`): every
/// `*.yaml` file is parsed (`_meta.json` and other files are ignored), filtered by
/// `schemaId` and variant, and turned into a question per [`TargetMode`]. Questions
/// whose target list is empty are skipped and counted in [`Dataset::skipped_empty`].
/// Questions are sorted by id (byte order). A malformed file becomes a [`Problem`]
/// with the parser's line (or, with `strict`, an error).
pub fn load_wg_dir(dir: &Path, opts: &WgOptions) -> Result<Dataset, BenchError> {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| BenchError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let mut questions = Vec::new();
    let mut problems = Vec::new();
    let mut skipped_empty = 0;
    for path in paths {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                record(
                    &mut problems,
                    opts.strict,
                    Problem {
                        file,
                        line: 0,
                        message: format!("cannot read: {e}"),
                    },
                )?;
                continue;
            }
        };
        match parse_wg(&file, &text, opts.mode) {
            Err(p) => record(&mut problems, opts.strict, p)?,
            // Filtered out: other schemas and variants never count as skipped.
            Ok(p) if !keep(&p.schema_id, p.is_keyword, opts) => {}
            Ok(Parsed { question: None, .. }) => skipped_empty += 1,
            Ok(Parsed {
                question: Some(q), ..
            }) => questions.push(q),
        }
    }
    questions.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    let name = format!(
        "wg {} {} {}",
        opts.schema_id.as_deref().unwrap_or("all-schemas"),
        opts.mode.name(),
        opts.variant.name()
    );
    Ok(Dataset {
        name,
        questions,
        problems,
        skipped_empty,
    })
}

fn keep(schema_id: &str, is_kw: bool, opts: &WgOptions) -> bool {
    opts.schema_id.as_deref().is_none_or(|s| s == schema_id) && opts.variant.accepts(is_kw)
}

/// Targets that do not exist in `graph`, one [`Problem`] each (with up to 3
/// suggestions). Many of them usually mean the dataset is being run against the wrong
/// schema. Nothing is dropped: the caller decides.
pub fn validate_targets(ds: &Dataset, graph: &SchemaGraph) -> Vec<Problem> {
    let mut out = Vec::new();
    for q in &ds.questions {
        let file = q
            .source
            .rsplit_once(':')
            .map(|(f, _)| f.to_string())
            .unwrap_or_else(|| q.source.clone());
        for (i, t) in q.targets.iter().enumerate() {
            if graph.resolve_str(t).is_ok() {
                continue;
            }
            let sugg = graph.suggest(t, 3);
            let hint = if sugg.is_empty() {
                "no similar coordinate; is this the right schema?".to_string()
            } else {
                format!(
                    "did you mean {}? (or is this the wrong schema?)",
                    sugg.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            out.push(Problem {
                file: file.clone(),
                line: q.target_lines.get(i).copied().unwrap_or(0),
                message: format!(
                    "question `{}`: target `{t}` is not in schema `{}`; {hint}",
                    q.id, graph.source
                ),
            });
        }
    }
    out
}
