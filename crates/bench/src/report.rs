//! Reports of one or more runs: a Markdown table with metric definitions, JSON,
//! per-question results and two SVG plots.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde_json::{json as j, Map, Value};

use crate::error::BenchError;
use crate::metrics::RunResult;

/// File names written by [`write_report_dir`].
pub const REPORT_MD: &str = "report.md";
/// See [`REPORT_MD`].
pub const REPORT_JSON: &str = "report.json";
/// One JSON object per (run, question) line.
pub const QUESTIONS_JSONL: &str = "questions.jsonl";
/// Recall against k.
pub const RECALL_AT_K_SVG: &str = "recall_at_k.svg";
/// Recall against the context budget.
pub const RECALL_AT_BUDGET_SVG: &str = "recall_at_budget.svg";

fn union_keys<'a, F>(runs: &'a [RunResult], f: F) -> Vec<usize>
where
    F: Fn(&'a RunResult) -> Vec<usize>,
{
    runs.iter()
        .flat_map(f)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn recall_ks(runs: &[RunResult]) -> Vec<usize> {
    union_keys(runs, |r| r.recall.keys().copied().collect())
}
fn token_ks(runs: &[RunResult]) -> Vec<usize> {
    union_keys(runs, |r| r.tokens_at.keys().copied().collect())
}
fn budgets(runs: &[RunResult]) -> Vec<usize> {
    union_keys(runs, |r| r.budget.keys().copied().collect())
}

fn fmt_pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{:.1}%", v * 100.0),
        _ => "–".to_string(),
    }
}

fn fmt_num(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "–".to_string(),
    }
}

/// Escape a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown table's header row and its alignment row: the first column left-aligned,
/// the others (numbers) right-aligned.
fn table_head(s: &mut String, head: &[String]) {
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let align: String = (0..head.len())
        .map(|i| if i == 0 { " --- |" } else { " ---: |" })
        .collect();
    let _ = writeln!(s, "|{align}");
}

/// The varying columns of the report: the union over the runs of their k's and budgets,
/// and the encoding when every run shares one.
struct Columns<'a> {
    rks: Vec<usize>,
    tks: Vec<usize>,
    bs: Vec<usize>,
    one_encoding: Option<&'a str>,
}

impl<'a> Columns<'a> {
    fn of(runs: &'a [RunResult]) -> Columns<'a> {
        let encodings: BTreeSet<&str> = runs.iter().map(|r| r.encoding.as_str()).collect();
        let one_encoding = (encodings.len() == 1).then(|| *encodings.iter().next().unwrap_or(&""));
        Columns {
            rks: recall_ks(runs),
            tks: token_ks(runs),
            bs: budgets(runs),
            one_encoding,
        }
    }
}

/// A Markdown report: one table with a row per run (labelled by its name), then a
/// budget-sweep detail table, then a definition of every metric with its units and
/// rulers.
pub fn markdown(runs: &[RunResult]) -> String {
    let cols = Columns::of(runs);
    let mut s = String::new();
    let _ = writeln!(s, "# Retrieval benchmark\n");
    write_datasets(&mut s, runs);
    let _ = writeln!(s);
    write_summary_table(&mut s, runs, &cols);
    // Budget detail.
    if !cols.bs.is_empty() {
        write_budget_detail(&mut s, runs, &cols.bs);
    }
    // Definitions.
    write_definitions(&mut s, runs, cols.one_encoding);
    s
}

/// One line per distinct dataset: its questions, pairs and skipped questions.
fn write_datasets(s: &mut String, runs: &[RunResult]) {
    let mut seen = BTreeSet::new();
    for r in runs {
        if seen.insert((&r.dataset, r.questions, r.targets_total, r.skipped_empty)) {
            let _ = write!(
                s,
                "- dataset `{}`: {} questions, {} (question, target) pairs",
                r.dataset, r.questions, r.targets_total
            );
            if r.skipped_empty > 0 {
                let _ = write!(
                    s,
                    "; {} questions with an empty target list skipped",
                    r.skipped_empty
                );
            }
            let _ = writeln!(s);
        }
    }
}

/// The main table: a row per run.
fn write_summary_table(s: &mut String, runs: &[RunResult], cols: &Columns) {
    let Columns {
        rks,
        tks,
        bs,
        one_encoding,
    } = cols;
    // Header.
    let mut head: Vec<String> = vec!["run".into(), "n".into()];
    head.extend(rks.iter().map(|k| format!("recall@{k}")));
    head.push("MRR".into());
    head.push("rank p50".into());
    head.push("rank p95".into());
    for k in tks {
        head.push(match one_encoding {
            Some(e) => format!("tokens@{k} ({e})"),
            None => format!("tokens@{k}"),
        });
    }
    if one_encoding.is_none() {
        head.push("encoding".into());
    }
    head.extend(bs.iter().map(|b| format!("recall@{b} tok")));
    head.push("latency p50 (ms)".into());
    head.push("latency p95 (ms)".into());
    table_head(s, &head);
    for r in runs {
        let mut row: Vec<String> = vec![cell(&r.name), r.questions.to_string()];
        row.extend(rks.iter().map(|k| fmt_pct(r.recall.get(k).copied())));
        row.push(fmt_num(Some(r.mrr), 3));
        row.push(fmt_num(Some(r.rank_p50), 0));
        row.push(fmt_num(Some(r.rank_p95), 0));
        row.extend(tks.iter().map(|k| fmt_num(r.tokens_at.get(k).copied(), 1)));
        if one_encoding.is_none() {
            row.push(cell(&r.encoding));
        }
        row.extend(
            bs.iter()
                .map(|b| fmt_pct(r.budget.get(b).map(|p| p.recall))),
        );
        row.push(fmt_num(Some(r.latency_ms_p50), 3));
        row.push(fmt_num(Some(r.latency_ms_p95), 3));
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
}

/// The budget sweep per run: recall, mean tokens and mean hits read at each budget.
fn write_budget_detail(s: &mut String, runs: &[RunResult], bs: &[usize]) {
    let _ = writeln!(
        s,
        "\nBudget sweep detail (recall / mean tokens read / mean hits read):\n"
    );
    let mut head = vec!["run".to_string()];
    head.extend(bs.iter().map(|b| format!("{b} tok")));
    table_head(s, &head);
    for r in runs {
        let mut row = vec![cell(&r.name)];
        for b in bs {
            row.push(match r.budget.get(b) {
                Some(p) => format!(
                    "{} / {} / {}",
                    fmt_pct(Some(p.recall)),
                    fmt_num(Some(p.avg_tokens), 1),
                    fmt_num(Some(p.avg_hits), 1)
                ),
                None => "–".to_string(),
            });
        }
        let _ = writeln!(s, "| {} |", row.join(" | "));
    }
}

/// Definitions: every metric with its units and rulers, worded for these runs.
fn write_definitions(s: &mut String, runs: &[RunResult], one_encoding: Option<&str>) {
    let depths: BTreeSet<usize> = runs.iter().map(|r| r.depth).collect();
    let n_desc = {
        let ns: BTreeSet<usize> = runs.iter().map(|r| r.questions).collect();
        match ns.len() {
            1 => format!("N = {}", ns.iter().next().copied().unwrap_or(0)),
            _ => "N (column n)".to_string(),
        }
    };
    let d_desc = match depths.len() {
        1 => {
            let d = depths.iter().next().copied().unwrap_or(0);
            format!("D = {d}, so a missing target counts as rank {}", d + 1)
        }
        _ => "D per run; a missing target counts as rank D + 1".to_string(),
    };
    let enc_desc = match one_encoding {
        Some(e) => format!("`{e}`"),
        None => "the run's encoding (column encoding)".to_string(),
    };
    let rendering: BTreeSet<&str> = runs.iter().map(|r| r.rendering.as_str()).collect();
    let rendering = rendering.into_iter().collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        s,
        "\nDefinitions (each question is searched once with k = D; {d_desc}):\n"
    );
    let _ = writeln!(
        s,
        "- **n**: number of questions; every question counts, including one with no target (it scores 0)."
    );
    let _ = writeln!(
        s,
        "- **recall@k**: macro mean over {n_desc} questions of the fraction of each question's target \
         coordinates (plain `Type.field` for TSV and must mode, `targetFields` for target mode) found \
         among the top min(k, hits) hits; shown in %."
    );
    let _ = writeln!(
        s,
        "- **MRR**: mean over {n_desc} questions of 1/rank of the best-ranked target within the top D \
         (0 when none is there)."
    );
    let _ = writeln!(
        s,
        "- **rank p50 / p95**: floor percentile `sorted[floor((m-1)·p)]` over all m (question, target) \
         pairs, ranks 1-based; a target not in the top D is counted as past the end ({d_desc})."
    );
    let _ = writeln!(
        s,
        "- **tokens@k**: mean over {n_desc} questions of the summed tokens of the top min(k, hits) hits, \
         each hit's text in the {rendering} rendering, counted in {enc_desc}."
    );
    let _ = writeln!(
        s,
        "- **recall@B tok** (budget sweep): walk the hits from rank 1, adding each hit's tokens \
         ({enc_desc}); stop at the first hit that would push the total past B (no skipping to smaller \
         later hits), at most D hits; macro recall over the hits read, in %. The detail table adds the \
         mean tokens and hits read."
    );
    let _ = writeln!(
        s,
        "- **latency p50 / p95**: wall-clock time of each `search` call in milliseconds, one question \
         at a time, floor percentile over the questions."
    );
}

fn keyed<T: Copy>(m: &std::collections::BTreeMap<usize, T>, f: impl Fn(T) -> Value) -> Value {
    Value::Object(
        m.iter()
            .map(|(k, v)| (k.to_string(), f(*v)))
            .collect::<Map<_, _>>(),
    )
}

fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// The runs as JSON: `{"runs": [{"name", "dataset", "rendering", "encoding", "depth",
/// "questions", "targets_total", "skipped_empty", "recall": {"1": x, …}, "mrr",
/// "rank_p50", "rank_p95", "tokens_at": {"10": x, …}, "tokens_at_10", "tokens_at_50",
/// "budget": {"125": recall, …}, "budget_detail": {"125": {"recall", "avg_tokens",
/// "avg_hits"}, …}, "latency_ms_p50", "latency_ms_p95"}]}`. Map keys are strings;
/// undefined values are `null`. Per-question results are not included (see
/// [`write_report_dir`]).
pub fn json(runs: &[RunResult]) -> Value {
    let rows: Vec<Value> = runs
        .iter()
        .map(|r| {
            let mut o = Map::new();
            o.insert("name".into(), j!(r.name));
            o.insert("dataset".into(), j!(r.dataset));
            o.insert("rendering".into(), j!(r.rendering));
            o.insert("encoding".into(), j!(r.encoding));
            o.insert("depth".into(), j!(r.depth));
            o.insert("questions".into(), j!(r.questions));
            o.insert("targets_total".into(), j!(r.targets_total));
            o.insert("skipped_empty".into(), j!(r.skipped_empty));
            o.insert("recall".into(), keyed(&r.recall, num));
            o.insert("mrr".into(), num(r.mrr));
            o.insert("rank_p50".into(), num(r.rank_p50));
            o.insert("rank_p95".into(), num(r.rank_p95));
            o.insert("tokens_at".into(), keyed(&r.tokens_at, num));
            for (k, v) in &r.tokens_at {
                o.insert(format!("tokens_at_{k}"), num(*v));
            }
            o.insert("budget".into(), keyed(&r.budget, |p| num(p.recall)));
            o.insert(
                "budget_detail".into(),
                keyed(&r.budget, |p| {
                    j!({"recall": num(p.recall), "avg_tokens": num(p.avg_tokens), "avg_hits": num(p.avg_hits)})
                }),
            );
            o.insert("latency_ms_p50".into(), num(r.latency_ms_p50));
            o.insert("latency_ms_p95".into(), num(r.latency_ms_p95));
            Value::Object(o)
        })
        .collect();
    j!({ "runs": rows })
}

fn write(path: &Path, text: &str) -> Result<(), BenchError> {
    std::fs::write(path, text).map_err(|e| BenchError::io(path, e))
}

/// Write `report.md`, `report.json`, `questions.jsonl` (one object per run and question:
/// run, id, text, expected, found `[[coord, rank]…]`, missed, first_rank, hits,
/// latency_ms), `recall_at_k.svg` and `recall_at_budget.svg` into `dir` (created if
/// needed). Returns the paths written.
pub fn write_report_dir(dir: &Path, runs: &[RunResult]) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::io(dir, e))?;
    let mut written = Vec::new();

    let p = dir.join(REPORT_MD);
    write(&p, &markdown(runs))?;
    written.push(p);

    let p = dir.join(REPORT_JSON);
    let mut text = serde_json::to_string_pretty(&json(runs))?;
    text.push('\n');
    write(&p, &text)?;
    written.push(p);

    let p = dir.join(QUESTIONS_JSONL);
    let mut text = String::new();
    for r in runs {
        push_tagged_json_lines(&mut text, &r.per_question, "run", &r.name)?;
    }
    write(&p, &text)?;
    written.push(p);

    let p = dir.join(RECALL_AT_K_SVG);
    let ks = recall_ks(runs);
    line_plot(
        &p,
        "Recall against k",
        "k (top-k hits)",
        "recall@k (macro)",
        &ks.iter().map(|k| k.to_string()).collect::<Vec<_>>(),
        &per_run_series(runs, &ks, |r, k| r.recall.get(&k).copied()),
    )?;
    written.push(p);

    let p = dir.join(RECALL_AT_BUDGET_SVG);
    let bs = budgets(runs);
    let series = per_run_series(runs, &bs, |r, b| r.budget.get(&b).map(|x| x.recall));
    let enc: BTreeSet<&str> = runs.iter().map(|r| r.encoding.as_str()).collect();
    let enc = enc.into_iter().collect::<Vec<_>>().join(", ");
    line_plot(
        &p,
        "Recall against context budget",
        &format!("token budget B ({enc})"),
        "recall within budget (macro)",
        &bs.iter().map(|b| b.to_string()).collect::<Vec<_>>(),
        &series,
    )?;
    written.push(p);
    Ok(written)
}

/// One plot series per run (named after it): `value(run, x)` for each x.
fn per_run_series(
    runs: &[RunResult],
    xs: &[usize],
    value: impl Fn(&RunResult, usize) -> Option<f64>,
) -> Vec<(String, Vec<Option<f64>>)> {
    runs.iter()
        .map(|r| (r.name.clone(), xs.iter().map(|&x| value(r, x)).collect()))
        .collect()
}

/// Append one JSON line per item to `text`, each object tagged with `key: tag` (the run
/// or configuration it belongs to).
pub(crate) fn push_tagged_json_lines<T: serde::Serialize>(
    text: &mut String,
    items: &[T],
    key: &str,
    tag: &str,
) -> Result<(), BenchError> {
    for item in items {
        let mut v = serde_json::to_value(item)?;
        if let Value::Object(o) = &mut v {
            o.insert(key.into(), j!(tag));
        }
        text.push_str(&serde_json::to_string(&v)?);
        text.push('\n');
    }
    Ok(())
}

/// A categorical-x line plot (x labels equally spaced), y in [0, 1], one line per
/// series with a legend. `None` values break nothing: they are left out.
fn line_plot(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    x_labels: &[String],
    series: &[(String, Vec<Option<f64>>)],
) -> Result<(), BenchError> {
    let err = |e: String| BenchError::Plot {
        path: path.display().to_string(),
        message: e,
    };
    let n = x_labels.len().max(1);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        // Integer ranges are inclusive in plotters: 0..=n-1 gives one segment per label.
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..1.0f64)
        .map_err(|e| err(e.to_string()))?;
    let labels = x_labels.to_vec();
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(n)
        .y_labels(11)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                labels.get(*i).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        })
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (i, (name, values)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(SegmentValue<usize>, f64)> = values
            .iter()
            .enumerate()
            .filter_map(|(x, v)| {
                v.filter(|v| v.is_finite())
                    .map(|v| (SegmentValue::CenterOf(x), v))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(PointSeries::of_element(
                pts,
                4,
                color.filled(),
                &|c, s, st| Circle::new(c, s, st),
            ))
            .map_err(|e| err(e.to_string()))?;
    }
    if !series.is_empty() {
        draw_legend(&mut chart, &err)?;
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// The series legend of a plot: lower right, on a translucent white box.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    err: &impl Fn(String) -> BenchError,
) -> Result<(), BenchError> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))
}
