//! The ranker's stages, in the order the pipeline runs them ([`STAGES`]); one file each,
//! with its rule and the measurement behind it. docs/ranking.md has the ablation table
//! (each stage off, every API).

use super::pipeline::Stage;

mod balance;
mod bridge;
mod count;
mod deprecated;
pub(super) mod depth;
mod label;
pub(super) mod lexical;
mod named;
pub(super) mod path;
mod root;
mod selection;
mod types;

/// Every stage, in pipeline order. Within a phase the order matters where stages read
/// what an earlier one wrote: `named` adjusts type relevance before `type` lifts by it;
/// `depth` divides what `lexical` and `type` built before the reader lifts; `deprecated`
/// and `bridge` run before `selection` and `count` complete the top hits.
pub(super) static STAGES: &[&dyn Stage] = &[
    &lexical::Lexical,
    &types::Types,
    &named::Named,
    &depth::Depth,
    &balance::Balance,
    &label::Label,
    &root::Root,
    &path::Path,
    &deprecated::Deprecated,
    &bridge::Bridge,
    &selection::Selection,
    &count::Count,
];
