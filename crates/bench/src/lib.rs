//! gqlnav bench stage: labelled question sets, retrieval metrics and reports.
//!
//! - [`dataset`]: the instrument's TSV form and the WG suite's YAML query directory,
//!   with file:line problems and target validation against a schema.
//! - [`metrics`]: run a [`gqlnav_search::SearchBackend`] over a dataset and compute
//!   recall@k, MRR, rank percentiles, tokens@k, the context-budget sweep and latency,
//!   following the instrument's bench command (macro means over all questions).
//! - `tools_bench`: what the navigation tools show an agent, replayed with a scripted
//!   policy (`bench --mode tools`).
//! - [`report`]: a Markdown table with metric definitions, JSON, per-question results
//!   and SVG plots.

mod agent_bench;
mod agent_report;
mod answer;
pub mod dataset;
pub mod error;
mod gold;
pub mod metrics;
pub mod report;
pub mod slice_bench;
mod tools_bench;
mod typed_reach;

pub use agent_bench::{
    grade_outcome, load_agent_questions, operation_members, run_agent_bench, AgentQuestion,
    AgentRow, Grading, Strategy, SLICE_BUDGETS,
};
pub use agent_report::{
    agent_json, agent_markdown, agent_svg, wilson, write_agent_report, AGENT_SVG,
};
pub use answer::{answer_matches, is_empty_expected};
pub use dataset::{
    is_plain_field, load_tsv, load_wg_dir, parse_tsv, parse_wg_file, validate_targets, Dataset,
    Problem, Question, TargetMode, Variant, WgOptions,
};
pub use error::BenchError;
pub use gold::{expected_answer, expected_from_data, mock_data, without_filters, GoldError};
pub use metrics::{
    floor_percentile, run_retrieval, BudgetPoint, QuestionResult, RunOptions, RunResult,
};
pub use report::{json, markdown, write_report_dir};
pub use slice_bench::{
    grade, load_wg_sets, load_wg_sets_with, run_slice_bench, slice_json, slice_markdown,
    slice_members, write_slice_report, MakeBackend, SliceConfig, SliceRunResult, SliceSet,
    SliceStats, SlicerKind,
};
pub use tools_bench::{
    never_shown_by_kind, replay, shown_coordinates, tools_json, tools_markdown, tools_rows,
    write_tools_report, Policy, ToolsResult, ToolsRow, OWNER_TYPES, PATH_FIELDS,
};
pub use typed_reach::{gold_call, typed_reach, typed_reach_markdown, ReachMiss, ReachRow};
