//! The Swan MCP's answer as a slice, for the slice bench: its ranked fields, each with
//! its walk to the root, taken in rank order until the answer text would pass
//! `max_chars` ([`gqlnav_search::SWAN_MAX_CHARS`] by default, the original's cap). The members are the hit fields,
//! the fields of each walk (so the intermediary types come along), and all their
//! arguments; they are rendered in the bench's style so that the grading and the token
//! counts are those of every other slice row.
//!
//! Choices the description leaves open, made here: a walk is the graph's first path to
//! the root (query root first, then the mutation root); the answer text counted against
//! the cap is one line per hit, `walk -> Type.field(args): Return — description`; a hit
//! with no walk (a root field) is its own walk.

use gqlnav_schema::PathOptions;
use gqlnav_search::{Query, SearchBackend, SwanBackend};

use crate::fit::Slice;
use crate::index::Slicer;
use crate::options::SliceOptions;
use crate::relevance::Relevance;
use crate::selection::Selection;
use crate::SliceError;

/// Ranked positions read before the cap is applied (the cap ends every answer on the
/// dev APIs long before: a GitHub hit line is ~150 characters).
const SWAN_DEPTH: usize = 500;

impl Slicer {
    /// Swan's answer to `question`, cut at `max_chars`, as a slice (`opts.budget` is not
    /// used: the cap is the original's own, in characters).
    pub fn swan(
        &self,
        question: &str,
        max_chars: usize,
        opts: &SliceOptions,
    ) -> Result<Slice, SliceError> {
        let swan = self.swan.get_or_init(|| {
            let mut s = SwanBackend::new();
            // Indexing reads the corpus and the graph only; it cannot fail.
            let _ = s.index(&self.search_context());
            s
        });
        let hits = swan.search(&Query::new(question), SWAN_DEPTH)?;
        let mut sel = Selection::default();
        let mut chars = 0usize;
        let mut left = Vec::new();
        let path_opts = PathOptions {
            max_paths: 1,
            include_mutation: true,
            ..PathOptions::default()
        };
        for h in hits {
            let e = &self.corpus.entries[h.doc];
            let walk = self
                .graph
                .paths_to_root(&e.coordinate, path_opts)
                .ok()
                .and_then(|p| p.into_iter().next())
                .unwrap_or_else(|| vec![e.coordinate.clone()]);
            let args: Vec<&str> = e.args.iter().map(|a| a.name.as_str()).collect();
            let line = format!(
                "{} -> {}({}): {} — {}\n",
                walk.join("."),
                e.coordinate,
                args.join(", "),
                e.return_type,
                e.description
            );
            let n = line.chars().count();
            if chars + n > max_chars {
                left.push(e.coordinate.clone());
                break;
            }
            chars += n;
            for coord in walk.iter().chain(std::iter::once(&e.coordinate)) {
                let Some((ty, field)) = coord.split_once('.') else {
                    continue;
                };
                sel.insert(ty, field);
                if let Some(d) = self.doc_of.get(coord.as_str()) {
                    for a in &self.corpus.entries[*d].args {
                        sel.forced_args
                            .insert((ty.to_string(), field.to_string(), a.name.clone()));
                    }
                }
            }
        }
        let rel = Relevance::new(question, &[]);
        let partial = sel.len == 0;
        Ok(self.selection_slice(sel, rel, left, partial, opts))
    }
}
