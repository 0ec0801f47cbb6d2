//! The agent benchmark's report: per strategy and API (and overall) success with a Wilson
//! 95% interval, turns, tool calls, tokens, one-shot%, wall time, the failure taxonomy;
//! as Markdown, JSON and an SVG of success and operation coverage.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde_json::{json, Value};

use crate::agent_bench::AgentRow;
use crate::error::BenchError;
use crate::metrics::floor_percentile;

/// Wilson 95% interval of `k` successes in `n`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let (z, n_f) = (1.96f64, n as f64);
    let p = k as f64 / n_f;
    let center = (p + z * z / (2.0 * n_f)) / (1.0 + z * z / n_f);
    let margin = z * ((p * (1.0 - p) + z * z / (4.0 * n_f)) / n_f).sqrt() / (1.0 + z * z / n_f);
    (center - margin, center + margin)
}

fn summary(rows: &[&AgentRow]) -> Value {
    let n = rows.len();
    let k = rows.iter().filter(|r| r.success).count();
    let (lo, hi) = wilson(k, n);
    let mean = |f: &dyn Fn(&AgentRow) -> f64| {
        if n == 0 {
            0.0
        } else {
            rows.iter().map(|r| f(r)).sum::<f64>() / n as f64
        }
    };
    let p50 = |f: &dyn Fn(&AgentRow) -> f64| {
        let mut v: Vec<f64> = rows.iter().map(|r| f(r)).collect();
        v.sort_by(f64::total_cmp);
        floor_percentile(&v, 0.5).unwrap_or(0.0)
    };
    let mut fails: BTreeMap<String, usize> = BTreeMap::new();
    let mut ops: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        *fails.entry(r.outcome.clone()).or_default() += 1;
        *ops.entry(r.operation.clone()).or_default() += 1;
    }
    json!({
        "rows": n, "successes": k,
        "success": if n == 0 { 0.0 } else { k as f64 / n as f64 }, "wilson95": [lo, hi],
        "turnsP50": p50(&|r| r.turns as f64), "turnsMean": mean(&|r| r.turns as f64),
        "toolCallsP50": p50(&|r| r.tool_calls as f64), "toolCallsMean": mean(&|r| r.tool_calls as f64),
        "inputTokensMean": mean(&|r| r.prompt_tokens as f64), "outputTokensMean": mean(&|r| r.completion_tokens as f64),
        "toolPayloadMean": mean(&|r| r.tool_payload_tokens as f64),
        "oneShot": if n == 0 { 0.0 } else { rows.iter().filter(|r| r.one_shot).count() as f64 / n as f64 },
        "wallSecondsMean": mean(&|r| r.wall_ms as f64 / 1000.0),
        "outcomes": fails, "operations": ops,
    })
}

/// Per strategy and API, and per strategy overall.
pub fn agent_json(rows: &[AgentRow], grading: &str) -> Value {
    let mut by: BTreeMap<(String, String), Vec<&AgentRow>> = BTreeMap::new();
    for r in rows {
        by.entry((r.strategy.name().to_string(), r.schema_id.clone()))
            .or_default()
            .push(r);
        by.entry((r.strategy.name().to_string(), "all".into()))
            .or_default()
            .push(r);
    }
    let groups: Vec<Value> = by
        .iter()
        .map(|((st, api), rs)| json!({"strategy": st, "api": api, "summary": summary(rs)}))
        .collect();
    json!({"grading": grading, "groups": groups, "rows": rows})
}

/// The board as Markdown.
pub fn agent_markdown(rows: &[AgentRow], grading: &str) -> String {
    let j = agent_json(rows, grading);
    let mut s = String::from("# Agent benchmark\n\n");
    s.push_str(&format!("Grading: {grading}\n\n"));
    s.push_str("| strategy | api | rows | success (95% CI) | turns p50 / mean | tool calls p50 / mean | input tok / session | output tok / session | tool payload | one-shot | wall s | operation covered | outcomes |\n");
    s.push_str(
        "| --- | --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
    );
    for g in j["groups"].as_array().into_iter().flatten() {
        let m = &g["summary"];
        let f = |k: &str| m[k].as_f64().unwrap_or(0.0);
        let outcomes: Vec<String> = m["outcomes"]
            .as_object()
            .map(|o| o.iter().map(|(k, v)| format!("{k} {v}")).collect())
            .unwrap_or_default();
        s.push_str(&format!(
            "| {} | {} | {} | {:.1}% ({:.1}–{:.1}%) | {:.0} / {:.1} | {:.0} / {:.1} | {:.0} | {:.0} | {:.0} | {:.1}% | {:.1} | {} | {} |\n",
            g["strategy"].as_str().unwrap_or(""), g["api"].as_str().unwrap_or(""), m["rows"], 100.0 * f("success"),
            100.0 * m["wilson95"][0].as_f64().unwrap_or(0.0), 100.0 * m["wilson95"][1].as_f64().unwrap_or(0.0),
            f("turnsP50"), f("turnsMean"), f("toolCallsP50"), f("toolCallsMean"), f("inputTokensMean"), f("outputTokensMean"),
            f("toolPayloadMean"), 100.0 * f("oneShot"), f("wallSecondsMean"), m["operations"]["covered"].as_u64().unwrap_or(0), outcomes.join(", ")
        ));
    }
    s
}

/// The SVG written beside agent.md and agent.json.
pub const AGENT_SVG: &str = "agent.svg";

/// Write agent.md, agent.json and agent.svg into `dir` (created if missing).
pub fn write_agent_report(
    dir: &Path,
    rows: &[AgentRow],
    grading: &str,
) -> Result<Vec<PathBuf>, BenchError> {
    let io = |p: &Path, e: std::io::Error| BenchError::Io {
        path: p.display().to_string(),
        source: e,
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut written = Vec::new();
    let md = dir.join("agent.md");
    std::fs::write(&md, agent_markdown(rows, grading)).map_err(|e| io(&md, e))?;
    written.push(md);
    let js = dir.join("agent.json");
    let text = serde_json::to_string_pretty(&agent_json(rows, grading)).unwrap_or_default();
    std::fs::write(&js, text).map_err(|e| io(&js, e))?;
    written.push(js);
    let svg = dir.join(AGENT_SVG);
    agent_svg(&svg, rows)?;
    written.push(svg);
    Ok(written)
}

/// Grouped bars: for each API (and all), one bar per strategy with its Wilson 95%
/// interval as a whisker; task success on the left, the last operation covering
/// mustInclude on the right (the only grading that means something against an upstream
/// that does not serve the answers' data).
pub fn agent_svg(path: &Path, rows: &[AgentRow]) -> Result<(), BenchError> {
    let err = |e: String| BenchError::Plot {
        path: path.display().to_string(),
        message: e,
    };
    let mut strategies: Vec<&'static str> = rows.iter().map(|r| r.strategy.name()).collect();
    strategies.sort();
    strategies.dedup();
    let mut apis: Vec<String> = rows.iter().map(|r| r.schema_id.clone()).collect();
    apis.sort();
    apis.dedup();
    apis.push("all".into());
    let root = SVGBackend::new(path, (1100, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let panels = root.split_evenly((1, 2));
    type Metric = fn(&AgentRow) -> bool;
    let metrics: [(&str, Metric); 2] = [
        ("task success (95% CI)", |r| r.success),
        ("last operation covers mustInclude (95% CI)", |r| {
            r.operation == "covered"
        }),
    ];
    let slots = strategies.len() + 1;
    for (panel, (title, hit)) in panels.iter().zip(metrics) {
        let n = (apis.len() * slots).max(1);
        let mut chart = ChartBuilder::on(panel)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..1.0f64)
            .map_err(|e| err(e.to_string()))?;
        let labels = apis.clone();
        let mid = strategies.len().saturating_sub(1) / 2;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .y_labels(11)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) if i % slots == mid => {
                    labels.get(i / slots).cloned().unwrap_or_default()
                }
                _ => String::new(),
            })
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (si, st) in strategies.iter().enumerate() {
            let color = Palette99::pick(si).to_rgba();
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for (ai, api) in apis.iter().enumerate() {
                let group: Vec<&AgentRow> = rows
                    .iter()
                    .filter(|r| r.strategy.name() == *st && (api == "all" || r.schema_id == *api))
                    .collect();
                if group.is_empty() {
                    continue;
                }
                let k = group.iter().filter(|r| hit(r)).count();
                let p = k as f64 / group.len() as f64;
                let (lo, hi) = wilson(k, group.len());
                let x = ai * slots + si;
                bars.push(Rectangle::new(
                    [
                        (SegmentValue::Exact(x), 0.0),
                        (SegmentValue::Exact(x + 1), p.max(0.004)),
                    ],
                    color.filled(),
                ));
                whiskers.push(PathElement::new(
                    vec![
                        (SegmentValue::CenterOf(x), lo),
                        (SegmentValue::CenterOf(x), hi),
                    ],
                    BLACK.stroke_width(1),
                ));
            }
            chart
                .draw_series(bars)
                .map_err(|e| err(e.to_string()))?
                .label(*st)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
                });
            chart
                .draw_series(whiskers)
                .map_err(|e| err(e.to_string()))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
