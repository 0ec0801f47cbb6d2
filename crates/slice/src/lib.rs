//! gqlnav slice: a small, self-contained SDL excerpt of a huge schema that answers one
//! question, cut to a token budget.
//!
//! Pipeline ([`Slicer::slice`]), one module per stage:
//!
//! 0. **Index** (`index`): the corpus of fields and the ranker, indexed once
//!    ([`Slicer::new`], [`Slicer::with_backend`], or [`Slicer::from_index`] to share a
//!    ranker that search already indexed), plus what does not depend on the question:
//!    connection wrappers, leaves, query-root entries, root paths ([`Slicer::warm`],
//!    [`Slicer::export_paths`], [`Slicer::import_paths`]).
//! 1. **Rank** (`value`) the field coordinates with the structure-aware ranker
//!    ([`gqlnav_search::StructureBackend`], or any backend via [`Slicer::with_backend`]);
//!    scores are scaled to [0, 1] by the best hit. A type's relevance is the best score
//!    among its fields (and, discounted, among the fields returning it).
//! 2. **Value** (`value`) candidates by channels: the ranker's score; the fields of the
//!    top types (`type_blend × relevance`, "breadth is the insurance", as the WG
//!    strategies found); *links*, fields of a relevant type leading to another relevant
//!    type directly, through a connection or through a small interface/union
//!    (`Organization.repositories`, `Ref.target` → Commit); the fields of what a picked
//!    field returns (`child_blend`). The top ranked fields keep every argument
//!    (`full_signature_k`).
//! 3. **Close** (`package`) each candidate into a package: the field; its most valuable
//!    path from the query root (never through Mutation; generic lookups such as
//!    `Query.node` last; the question's main types get two paths); the query-root entries
//!    of each type the package touches; the `nodes`/`totalCount` fields of every
//!    connection on the way (`edges` and the edge type only when the edge carries data);
//!    and, for a small return type, its scalar and enum leaves.
//! 4. **Pick** (`pick`) packages greedily by value per estimated token until the budget
//!    (without one, the auto size [`Knobs::default_tokens`], fitted the same way) is reached; then add the remaining
//!    query-root entries whose return-type family meets the selection, while they fit.
//! 5. **Render** ([`render()`]): the structural closure (`closure`: selected fields with
//!    the arguments that survive (required; `first`; lexically relevant to the question;
//!    a single-object field's selectors), the input types and enums they need (input
//!    fields and enum values pruned the same way), unions (large ones cut to the members
//!    the slice defines or the question names), custom scalars), written by one writer
//!    per [`Style`]. Types named but not defined are listed in one closing
//!    `# not shown: …` line, or, with `closed`, defined as one-field stubs so the slice
//!    validates as a schema.
//! 6. **Measure** (`fit`) the text in the named encoding
//!    ([`gqlnav_corpus::CachedMeter`]); while it is over the budget, shrink the estimate
//!    and pick again. A slice never exceeds its budget.
//!
//! Everything is deterministic and lexical: no hosted model is involved.

mod closure;
mod fit;
mod index;
mod linker;
mod options;
mod package;
mod paths;
mod pick;
mod relevance;
mod render;
mod selection;
mod swan;
mod value;

pub use closure::{Pruner, MAX_LOOKUP_ARGS};
pub use fit::{not_shown_line, Slice, NOT_SHOWN_NAMED};
pub use index::Slicer;
pub use linker::{Linked, LinkedType, MAX_NAMED, SPECIFIC_MAX};
pub use options::{Knobs, SliceOptions};
pub use relevance::{name_terms, NameTerms, Relevance, FORWARD_PAGINATION_ARGS, PAGINATION_ARGS};
pub use render::{render, RenderOptions, Rendered, Style};
pub use selection::Selection;

/// Errors building a slicer, slicing, or restoring saved root paths.
#[derive(Debug, thiserror::Error)]
pub enum SliceError {
    /// The ranker could not be built or queried.
    #[error("search: {0}")]
    Search(#[from] gqlnav_search::SearchError),
    /// A seed coordinate is malformed or not in the schema.
    #[error("seed {0:?}: {1}")]
    Seed(String, String),
    /// A selection knob is out of range.
    #[error("knob {0}: {1}")]
    Knob(&'static str, String),
    /// The corpus handed to [`Slicer::from_index`] is not one the slicer can use.
    #[error("corpus: {0}")]
    Corpus(String),
    /// Saved root paths ([`Slicer::import_paths`]) are unreadable or were saved for
    /// another schema or slicer version.
    #[error("saved root paths: {0}")]
    Paths(String),
}
