//! The strategies benchmark for slices, graded exactly as the WG suite grades a slice
//! (`docs/benchmark-semantics.md` §2.5):
//!
//! * the rendered slice is parsed (syntax only); its **members** are every definition
//!   name, `T.f` and `T.f(a:)` (each rendered argument) on object and interface
//!   definitions, `I.f` on inputs, `E.V` on enums;
//! * `mustHits` = `mustInclude` entries found among the members (exact string match);
//!   **perfect** = no miss and `|mustInclude| > 0`; `mustRecall` = hits / |must| (1 when
//!   empty); `excludeViolations` = members equal to `p` or starting with `p.` for each
//!   `p` in `mustExclude`;
//! * perfect% and the miss buckets (0/1/2/≥3) are over rows with musts; tokens (floor
//!   percentiles), violations and latency are over all rows.
//!
//! Tokens are counted in cl100k_base (the WG ruler) and o200k_base.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use gqlnav_corpus::{Encoding, TokenMeter};
use gqlnav_schema::apollo_compiler::ast::{Definition, Document};
use gqlnav_slice::{Knobs, SliceOptions, Slicer, Style};
use plotters::prelude::*;
use serde_json::{json as j, Value};

use crate::dataset::Question;
use crate::error::BenchError;
use crate::metrics::floor_percentile;

/// One slicing configuration (a row of the board).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SliceConfig {
    /// Row label.
    pub name: String,
    /// Budget in cl100k_base tokens (`None`: the slicer picks the size).
    pub budget: Option<usize>,
    /// Writing style.
    pub style: Style,
    /// Closed (validating) slices.
    pub closed: bool,
    /// Selection knobs.
    pub knobs: Knobs,
    /// Which slicer builds the slices.
    pub slicer: SlicerKind,
}

/// The slicer a configuration grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SlicerKind {
    /// gqlnav's slicer ([`gqlnav_slice::Slicer::slice`]).
    #[default]
    Gqlnav,
    /// The one-hop linker baseline ([`gqlnav_slice::Slicer::link`]).
    Linker,
    /// The Swan MCP's answer, cut at this many characters ([`gqlnav_slice::Slicer::swan`]).
    Swan(usize),
}

impl SliceConfig {
    /// A configuration with default knobs, bare style, open form.
    pub fn new(name: impl Into<String>, budget: Option<usize>) -> Self {
        SliceConfig {
            name: name.into(),
            budget,
            style: Style::Bare,
            closed: false,
            knobs: Knobs::default(),
            slicer: SlicerKind::Gqlnav,
        }
    }

    /// The default board: budgets 2k/4k/6k/8k and no budget, bare style.
    pub fn default_sweep() -> Vec<SliceConfig> {
        let mut v: Vec<SliceConfig> = [2000usize, 4000, 6000, 8000]
            .iter()
            .map(|b| SliceConfig::new(format!("slice-b{}k", b / 1000), Some(*b)))
            .collect();
        v.push(SliceConfig::new("slice-auto", None));
        v
    }
}

/// The members of a slice as the WG `sliceMembers` computes them, or the parse error.
pub fn slice_members(sdl: &str) -> Result<HashSet<String>, String> {
    // An empty slice (or one holding only comments) has no members.
    if sdl
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(HashSet::new());
    }
    let doc = Document::parse(sdl, "slice.graphql").map_err(|e| e.errors.to_string())?;
    let mut m = HashSet::new();
    for d in &doc.definitions {
        let fields_of = |name: &str,
                         fields: &[gqlnav_schema::apollo_compiler::Node<
            gqlnav_schema::apollo_compiler::ast::FieldDefinition,
        >],
                         m: &mut HashSet<String>| {
            for f in fields {
                m.insert(format!("{name}.{}", f.name));
                for a in &f.arguments {
                    m.insert(format!("{name}.{}({}:)", f.name, a.name));
                }
            }
        };
        match d {
            Definition::ObjectTypeDefinition(o) => {
                m.insert(o.name.to_string());
                fields_of(&o.name, &o.fields, &mut m);
            }
            Definition::InterfaceTypeDefinition(o) => {
                m.insert(o.name.to_string());
                fields_of(&o.name, &o.fields, &mut m);
            }
            Definition::InputObjectTypeDefinition(o) => {
                m.insert(o.name.to_string());
                for f in &o.fields {
                    m.insert(format!("{}.{}", o.name, f.name));
                }
            }
            Definition::EnumTypeDefinition(o) => {
                m.insert(o.name.to_string());
                for v in &o.values {
                    m.insert(format!("{}.{}", o.name, v.value));
                }
            }
            Definition::UnionTypeDefinition(o) => {
                m.insert(o.name.to_string());
            }
            Definition::ScalarTypeDefinition(o) => {
                m.insert(o.name.to_string());
            }
            _ => {}
        }
    }
    Ok(m)
}

/// The grade of one slice against one question's labels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Grade {
    /// `mustInclude` entries not among the members.
    pub missing: Vec<String>,
    /// hits / |must| (1 when there are no musts).
    pub must_recall: f64,
    /// No miss and at least one must.
    pub perfect: bool,
    /// Members equal to `p` or starting with `p.` for `p` in `mustExclude`.
    pub exclude_violations: usize,
}

/// Grade a member set.
pub fn grade(members: &HashSet<String>, must: &[String], must_exclude: &[String]) -> Grade {
    let missing: Vec<String> = must
        .iter()
        .filter(|m| !members.contains(*m))
        .cloned()
        .collect();
    let hits = must.len() - missing.len();
    let exclude_violations = members
        .iter()
        .filter(|c| {
            must_exclude
                .iter()
                .any(|p| *c == p || c.starts_with(&format!("{p}.")))
        })
        .count();
    Grade {
        must_recall: if must.is_empty() {
            1.0
        } else {
            hits as f64 / must.len() as f64
        },
        perfect: missing.is_empty() && !must.is_empty(),
        missing,
        exclude_violations,
    }
}

/// One (configuration, question) row.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SliceRow {
    /// Question id.
    pub id: String,
    /// Schema id.
    pub schema_id: String,
    /// The grade.
    #[serde(flatten)]
    pub grade: Grade,
    /// Number of musts.
    pub musts: usize,
    /// Tokens in cl100k_base.
    pub tokens_cl100k: usize,
    /// Tokens in o200k_base.
    pub tokens_o200k: usize,
    /// Number of definitions.
    pub types: usize,
    /// Rendered coordinates.
    pub coordinates: usize,
    /// Slicing time in milliseconds.
    pub latency_ms: f64,
    /// The slice parsed (always expected).
    pub parsed: bool,
    /// Over its budget (never expected).
    pub over_budget: bool,
}

/// Aggregates over a set of rows.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SliceStats {
    /// Rows.
    pub rows: usize,
    /// Rows with musts.
    pub rows_with_musts: usize,
    /// Perfect rows / rows with musts.
    pub perfect: f64,
    /// Mean mustRecall over rows with musts.
    pub must_recall: f64,
    /// Share of rows with musts missing 0, 1, 2, ≥3.
    pub miss_buckets: [f64; 4],
    /// cl100k tokens: mean, p50, p95.
    pub cl100k: [f64; 3],
    /// o200k tokens: mean, p50, p95.
    pub o200k: [f64; 3],
    /// Mean exclude violations per row.
    pub exclude_violations: f64,
    /// Latency p50, p95 (ms).
    pub latency_ms: [f64; 2],
    /// Mean definitions per row.
    pub types: f64,
    /// Mean coordinates per row.
    pub coordinates: f64,
    /// Rows that failed to parse.
    pub parse_failures: usize,
    /// Rows over their budget.
    pub over_budget: usize,
}

fn stats(rows: &[&SliceRow]) -> SliceStats {
    let n = rows.len();
    let with: Vec<&&SliceRow> = rows.iter().filter(|r| r.musts > 0).collect();
    let nw = with.len().max(1) as f64;
    let mut b = [0.0; 4];
    for r in &with {
        b[r.grade.missing.len().min(3)] += 1.0 / nw;
    }
    let dist = |f: &dyn Fn(&SliceRow) -> f64| {
        let mut v: Vec<f64> = rows.iter().map(|r| f(r)).collect();
        v.sort_by(f64::total_cmp);
        let mean = v.iter().sum::<f64>() / n.max(1) as f64;
        [
            mean,
            floor_percentile(&v, 0.5).unwrap_or(0.0),
            floor_percentile(&v, 0.95).unwrap_or(0.0),
        ]
    };
    let lat = dist(&|r| r.latency_ms);
    SliceStats {
        rows: n,
        rows_with_musts: with.len(),
        perfect: with.iter().filter(|r| r.grade.perfect).count() as f64 / nw,
        must_recall: with.iter().map(|r| r.grade.must_recall).sum::<f64>() / nw,
        miss_buckets: b,
        cl100k: dist(&|r| r.tokens_cl100k as f64),
        o200k: dist(&|r| r.tokens_o200k as f64),
        exclude_violations: rows
            .iter()
            .map(|r| r.grade.exclude_violations as f64)
            .sum::<f64>()
            / n.max(1) as f64,
        latency_ms: [lat[1], lat[2]],
        types: rows.iter().map(|r| r.types as f64).sum::<f64>() / n.max(1) as f64,
        coordinates: rows.iter().map(|r| r.coordinates as f64).sum::<f64>() / n.max(1) as f64,
        parse_failures: rows.iter().filter(|r| !r.parsed).count(),
        over_budget: rows.iter().filter(|r| r.over_budget).count(),
    }
}

/// The result of one configuration.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SliceRunResult {
    /// The configuration.
    pub config: SliceConfig,
    /// Per-schema aggregates, by schema id.
    pub per_schema: BTreeMap<String, SliceStats>,
    /// Aggregates over all rows.
    pub overall: SliceStats,
    /// Every row.
    pub rows: Vec<SliceRow>,
}

/// One schema's questions and its slicer.
pub struct SliceSet {
    /// Schema id (`github`, …).
    pub schema_id: String,
    /// The slicer over that schema.
    pub slicer: Arc<Slicer>,
    /// Its questions.
    pub questions: Vec<Question>,
}

/// Run every configuration over every set. The slices are built with their budget in
/// cl100k_base, graded on the rendered text, and measured in both encodings.
pub fn run_slice_bench(
    sets: &[SliceSet],
    configs: &[SliceConfig],
) -> Result<Vec<SliceRunResult>, BenchError> {
    let cl = TokenMeter::new(Encoding::Cl100kBase);
    let o2 = TokenMeter::new(Encoding::O200kBase);
    cl.warm();
    o2.warm();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = Vec::new();
    for cfg in configs {
        // Latency is that of a warm slicer (a server's steady state): root paths of
        // every type are computed before the clock starts.
        for set in sets {
            set.slicer.warm(&cfg.knobs, threads);
        }
        let mut rows = Vec::new();
        for set in sets {
            for q in &set.questions {
                let opts = SliceOptions {
                    budget: cfg.budget,
                    encoding: Encoding::Cl100kBase,
                    style: cfg.style,
                    closed: cfg.closed,
                    seeds: Vec::new(),
                    knobs: cfg.knobs.clone(),
                };
                let t0 = Instant::now();
                let s = match cfg.slicer {
                    SlicerKind::Gqlnav => set.slicer.slice(&q.text, &q.sub_queries, &opts),
                    SlicerKind::Linker => set.slicer.link(&q.text, &opts).map(|l| l.slice),
                    SlicerKind::Swan(max_chars) => set.slicer.swan(&q.text, max_chars, &opts),
                }
                .map_err(|e| BenchError::Options(format!("{}: {e}", q.id)))?;
                let latency_ms = t0.elapsed().as_secs_f64() * 1000.0;
                let (members, parsed) = match slice_members(&s.sdl) {
                    Ok(m) => (m, true),
                    Err(_) => (HashSet::new(), false),
                };
                let tokens_cl100k = cl.count(&s.sdl);
                rows.push(SliceRow {
                    id: q.id.clone(),
                    schema_id: set.schema_id.clone(),
                    grade: grade(&members, &q.must_include, &q.must_exclude),
                    musts: q.must_include.len(),
                    tokens_cl100k,
                    tokens_o200k: o2.count(&s.sdl),
                    types: s.types,
                    coordinates: s.coordinates.len(),
                    latency_ms,
                    parsed,
                    // Without a budget, the slicer's own bound (the auto size).
                    over_budget: cfg
                        .budget
                        .or(s.auto_size)
                        .is_some_and(|b| tokens_cl100k > b),
                });
            }
        }
        let mut per_schema = BTreeMap::new();
        for set in sets {
            let rs: Vec<&SliceRow> = rows
                .iter()
                .filter(|r| r.schema_id == set.schema_id)
                .collect();
            per_schema.insert(set.schema_id.clone(), stats(&rs));
        }
        let all: Vec<&SliceRow> = rows.iter().collect();
        out.push(SliceRunResult {
            config: cfg.clone(),
            per_schema,
            overall: stats(&all),
            rows,
        });
    }
    Ok(out)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The board as Markdown: one row per (configuration, schema) and overall.
pub fn slice_markdown(runs: &[SliceRunResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Slice benchmark (WG strategies grading)\n");
    let _ = writeln!(
        s,
        "| config | schema | rows | perfect | mustRecall | miss 0/1/2/≥3 | cl100k mean / p50 / p95 | o200k mean / p50 / p95 | excludeViol | types | coords | latency p50 / p95 ms | parse fail | over budget |"
    );
    let _ = writeln!(s, "| --- | --- | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |");
    for r in runs {
        let mut rows: Vec<(&str, &SliceStats)> =
            r.per_schema.iter().map(|(k, v)| (k.as_str(), v)).collect();
        rows.push(("all", &r.overall));
        for (schema, st) in rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.3} | {} / {} / {} / {} | {:.0} / {:.0} / {:.0} | {:.0} / {:.0} / {:.0} | {:.2} | {:.0} | {:.0} | {:.2} / {:.2} | {} | {} |",
                r.config.name,
                schema,
                st.rows,
                pct(st.perfect),
                st.must_recall,
                pct(st.miss_buckets[0]),
                pct(st.miss_buckets[1]),
                pct(st.miss_buckets[2]),
                pct(st.miss_buckets[3]),
                st.cl100k[0],
                st.cl100k[1],
                st.cl100k[2],
                st.o200k[0],
                st.o200k[1],
                st.o200k[2],
                st.exclude_violations,
                st.types,
                st.coordinates,
                st.latency_ms[0],
                st.latency_ms[1],
                st.parse_failures,
                st.over_budget,
            );
        }
    }
    let _ = writeln!(
        s,
        "\nperfect = every `mustInclude` entry is a member of the parsed slice (exact match), over rows with musts. \
Members: definition names, `T.f`, `T.f(a:)` per rendered argument, `I.f`, `E.V`. Tokens: cl100k_base is the WG ruler; \
p50/p95 are floor percentiles. excludeViol: mean members per row equal to or under a `mustExclude` prefix. \
Budgets are in cl100k_base tokens; over budget: slices over their budget, or without one over the auto size. Latency: one `slice` call on a warm slicer (root paths of every type computed \
before the clock starts, as in a running server)."
    );
    s
}

/// The board as JSON (configurations with per-schema and overall aggregates; no rows).
pub fn slice_json(runs: &[SliceRunResult]) -> Value {
    Value::Array(
        runs.iter()
            .map(|r| {
                j!({
                    "config": r.config,
                    "overall": r.overall,
                    "perSchema": r.per_schema,
                })
            })
            .collect(),
    )
}

/// File names written by [`write_slice_report`].
pub const SLICE_MD: &str = "slice.md";
/// See [`SLICE_MD`].
pub const SLICE_JSON: &str = "slice.json";
/// Per-row results.
pub const SLICE_ROWS_JSONL: &str = "slice_rows.jsonl";
/// Perfect% against mean cl100k tokens.
pub const SLICE_SVG: &str = "slice_pareto.svg";

/// Write slice.md, slice.json, slice_rows.jsonl and slice_pareto.svg into `dir`.
pub fn write_slice_report(dir: &Path, runs: &[SliceRunResult]) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    let mut written = Vec::new();
    let p = dir.join(SLICE_MD);
    std::fs::write(&p, slice_markdown(runs)).map_err(|e| BenchError::io(&p, e))?;
    written.push(p);
    let p = dir.join(SLICE_JSON);
    let text = serde_json::to_string_pretty(&slice_json(runs))? + "\n";
    std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
    written.push(p);
    let p = dir.join(SLICE_ROWS_JSONL);
    let mut text = String::new();
    for r in runs {
        crate::report::push_tagged_json_lines(&mut text, &r.rows, "config", &r.config.name)?;
    }
    std::fs::write(&p, text).map_err(|e| BenchError::io(&p, e))?;
    written.push(p);
    let p = dir.join(SLICE_SVG);
    pareto_svg(&p, runs)?;
    written.push(p);
    Ok(written)
}

fn pareto_svg(path: &Path, runs: &[SliceRunResult]) -> Result<(), BenchError> {
    let err = |e: String| BenchError::Plot {
        path: path.display().to_string(),
        message: e,
    };
    let xmax = runs
        .iter()
        .map(|r| r.overall.cl100k[0])
        .fold(1000.0f64, f64::max)
        * 1.15;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Slices: perfect % against mean cl100k tokens",
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..xmax, 0f64..1.0f64)
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("mean slice tokens (cl100k_base)")
        .y_desc("perfect %")
        .y_labels(11)
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let mut pts: Vec<(f64, f64)> = runs
        .iter()
        .map(|r| (r.overall.cl100k[0], r.overall.perfect))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Pareto front: points not dominated (fewer tokens and higher perfect%).
    let mut front = Vec::new();
    let mut best = -1.0;
    for p in &pts {
        if p.1 > best {
            front.push(*p);
            best = p.1;
        }
    }
    chart
        .draw_series(LineSeries::new(front, BLUE.stroke_width(2)))
        .map_err(|e| err(e.to_string()))?;
    for (i, r) in runs.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        let p = (r.overall.cl100k[0], r.overall.perfect);
        let name = r.config.name.clone();
        chart
            .draw_series(std::iter::once(Circle::new(p, 5, c.filled())))
            .map_err(|e| err(e.to_string()))?
            .label(name.clone())
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, c.filled()));
        chart
            .draw_series(std::iter::once(Text::new(
                name,
                (p.0, p.1 - 0.03),
                ("sans-serif", 13),
            )))
            .map_err(|e| err(e.to_string()))?;
    }
    crate::report::draw_legend(&mut chart, &err)?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// Load the WG directory (`queries/` and `schemas/<id>/schema.graphql`) for the given
/// schema ids, building one slicer per schema.
pub fn load_wg_sets(wg_dir: &Path, schema_ids: &[&str]) -> Result<Vec<SliceSet>, BenchError> {
    load_wg_sets_with(wg_dir, schema_ids, None)
}

/// Builds a slicer's ranker and names the corpus rendering it indexes.
pub type MakeBackend<'a> = &'a dyn Fn() -> Result<
    (
        Box<dyn gqlnav_search::SearchBackend>,
        gqlnav_corpus::Rendering,
    ),
    BenchError,
>;

/// [`load_wg_sets`] with another ranker than the default structure ranker.
pub fn load_wg_sets_with(
    wg_dir: &Path,
    schema_ids: &[&str],
    make: Option<MakeBackend<'_>>,
) -> Result<Vec<SliceSet>, BenchError> {
    let mut sets = Vec::new();
    for id in schema_ids {
        let ds = crate::dataset::load_wg_dir(
            &wg_dir.join("queries"),
            &crate::dataset::WgOptions {
                schema_id: Some(id.to_string()),
                variant: crate::dataset::Variant::All,
                mode: crate::dataset::TargetMode::Must,
                strict: false,
            },
        )?;
        let sp = wg_dir.join("schemas").join(id).join("schema.graphql");
        let graph = gqlnav_schema::load_file(&sp)
            .map_err(|e| BenchError::Options(format!("{}: {e}", sp.display())))?;
        let slicer = match make {
            Some(f) => {
                let (b, r) = f()?;
                Slicer::with_backend(Arc::new(graph), b, r)
            }
            None => Slicer::new(Arc::new(graph)),
        }
        .map_err(|e| BenchError::Options(e.to_string()))?;
        sets.push(SliceSet {
            schema_id: id.to_string(),
            slicer: Arc::new(slicer),
            questions: ds.questions,
        });
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_grade_follow_the_wg_rules() {
        let sdl = "type Query {\n  repository(owner: String!, name: String!): Repository\n}\n\ntype Repository implements Node {\n  issues(first: Int): IssueConnection!\n}\n\nenum IssueState {\n  OPEN\n}\n\ninput IssueFilters {\n  states: [IssueState!]\n}\n\nunion PinnableItem = Gist | Repository\n\ntype Mutation {\n  addStar(input: AddStarInput!): AddStarPayload\n}\n# not shown: Node\n";
        let m = slice_members(sdl).unwrap();
        for x in [
            "Query",
            "Query.repository",
            "Query.repository(owner:)",
            "Query.repository(name:)",
            "Repository.issues(first:)",
            "IssueState.OPEN",
            "IssueFilters.states",
            "PinnableItem",
            "Mutation.addStar(input:)",
        ] {
            assert!(m.contains(x), "{x}");
        }
        assert!(!m.contains("Node"), "a comment is not a definition");
        let g = grade(
            &m,
            &[
                "Query.repository".into(),
                "Repository.issues(after:)".into(),
                "PinnableItem".into(),
            ],
            &["Mutation".into()],
        );
        assert_eq!(g.missing, vec!["Repository.issues(after:)".to_string()]);
        assert!(!g.perfect);
        assert!((g.must_recall - 2.0 / 3.0).abs() < 1e-9);
        // Mutation, Mutation.addStar, Mutation.addStar(input:)
        assert_eq!(g.exclude_violations, 3);
        assert!(grade(&m, &[], &[]).must_recall == 1.0 && !grade(&m, &[], &[]).perfect);
        assert!(slice_members("type {").is_err());
    }
}

#[cfg(test)]
mod wg_runs {
    use super::*;

    fn wg_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg")
    }

    /// Without a budget the row's "over budget" counts slices over the auto size: the
    /// slicer holds that bound (`Knobs::default_tokens`), so a small auto size gives
    /// small slices and no row over it, and the mean sits under it.
    #[test]
    fn auto_rows_are_held_to_the_auto_size() {
        let sets = load_wg_sets(&wg_dir(), &["singapore"]).unwrap();
        let mut cfg = SliceConfig::new("slice-auto", None);
        cfg.knobs.default_tokens = 400;
        let runs = run_slice_bench(&sets, &[cfg]).unwrap();
        let all = &runs[0].overall;
        assert_eq!(all.over_budget, 0);
        let rows = &runs[0].rows;
        assert!(rows.iter().all(|r| r.tokens_cl100k <= 400), "{rows:?}");
        // The default auto size leaves singapore's slices larger than 400 tokens: the
        // small size is what bounds them.
        let free = run_slice_bench(&sets, &[SliceConfig::new("slice-auto", None)]).unwrap();
        assert!(free[0].rows.iter().any(|r| r.tokens_cl100k > 400));
    }

    /// The board (slow in debug): `cargo test -p gqlnav-bench --release slice_board -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn slice_board() {
        let sets = load_wg_sets(&wg_dir(), &["github", "linear", "singapore"]).unwrap();
        let mut configs = SliceConfig::default_sweep();
        if let Ok(only) = std::env::var("SLICE_BUDGETS") {
            configs = only
                .split(',')
                .map(|b| match b.parse::<usize>() {
                    Ok(n) => SliceConfig::new(format!("slice-b{n}"), Some(n)),
                    Err(_) => SliceConfig::new("slice-auto", None),
                })
                .collect();
        }
        let runs = run_slice_bench(&sets, &configs).unwrap();
        println!("{}", slice_markdown(&runs));
        if let Ok(dir) = std::env::var("SLICE_REPORT") {
            write_slice_report(Path::new(&dir), &runs).unwrap();
        }
        for r in &runs {
            assert_eq!(r.overall.parse_failures, 0);
            assert_eq!(r.overall.over_budget, 0);
        }
    }

    /// Misses per row, for inspection: `SLICE_SCHEMA=github SLICE_BUDGET=6000`.
    #[test]
    #[ignore]
    fn slice_misses() {
        let id = std::env::var("SLICE_SCHEMA").unwrap_or_else(|_| "github".into());
        let b = std::env::var("SLICE_BUDGET")
            .ok()
            .and_then(|b| b.parse().ok());
        let ids: Vec<&str> = id.split(',').collect();
        let sets = load_wg_sets(&wg_dir(), &ids).unwrap();
        let mut cfgs = Vec::new();
        for k in std::env::var("SLICE_KNOBS")
            .unwrap_or_else(|_| "{}".into())
            .split(';')
        {
            let mut c = SliceConfig::new(k, b);
            c.knobs = serde_json::from_str(k).unwrap();
            if let Ok(st) = std::env::var("SLICE_STYLE") {
                c.style = Style::parse(&st).unwrap();
            }
            cfgs.push(c);
        }
        let runs = run_slice_bench(&sets, &cfgs).unwrap();
        for r in &runs[0].rows {
            if std::env::var("SLICE_QUIET").is_err() && !r.grade.missing.is_empty() {
                println!("{} {:?}", r.id, r.grade.missing);
            }
        }
        println!("{}", slice_markdown(&runs));
    }

    fn check_parse_and_closed(step: usize) {
        let sets = load_wg_sets(&wg_dir(), &["github", "linear", "singapore"]).unwrap();
        let mut n = 0;
        for set in &sets {
            for q in set.questions.iter().step_by(step) {
                for closed in [false, true] {
                    let o = SliceOptions {
                        budget: Some(4000),
                        encoding: Encoding::Cl100kBase,
                        style: if closed { Style::Sdl } else { Style::Dense },
                        closed,
                        ..SliceOptions::default()
                    };
                    let s = set.slicer.slice(&q.text, &q.sub_queries, &o).unwrap();
                    assert!(s.tokens <= 4000, "{}", q.id);
                    if closed {
                        gqlnav_schema::apollo_compiler::Schema::parse_and_validate(
                            &s.sdl,
                            "closed.graphql",
                        )
                        .unwrap_or_else(|e| panic!("{} closed: {e}", q.id));
                    } else {
                        slice_members(&s.sdl).unwrap_or_else(|e| panic!("{} open: {e}", q.id));
                    }
                }
                n += 1;
            }
        }
        assert!(n >= 416 / step);
    }

    /// Every tenth WG question (42 of 416), both ways: the open slice parses, the closed
    /// one validates as a schema.
    #[test]
    fn wg_subset_parses_open_and_validates_closed() {
        check_parse_and_closed(10);
    }

    /// All 416 questions both ways (slow in debug).
    #[test]
    #[ignore]
    fn wg_all_parse_open_and_validate_closed() {
        check_parse_and_closed(1);
    }
}
