//! Root-path search over the schema graph: [`SchemaGraph::paths_to_root`] and
//! [`SchemaGraph::paths_to_type`], their options, memo and path costs.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use apollo_compiler::schema::ExtendedType;

use crate::coordinate::Coordinate;
use crate::error::SchemaError;
use crate::graph::{FieldRef, RootKind, SchemaGraph, HOP};

/// Options for [`SchemaGraph::paths_to_root`].
#[derive(Debug, Clone, Copy)]
pub struct PathOptions {
    /// At most this many paths.
    pub max_paths: usize,
    /// At most this many fields per path, the target included.
    pub max_depth: usize,
    /// Also return paths that start at the mutation root (after query and subscription paths).
    pub include_mutation: bool,
    /// Among paths of equal cost and length, put last those that pass through a root
    /// list without arguments before their last field: an agent cannot pick one element
    /// of a fixed list (`Query.frecentProjects → Project.issue`), while a lookup by key
    /// (`Query.project(fullPath:) → Project.issue`) names it. For paths shown to a reader
    /// (search hits, the ranker's `Purpose::Search` path channel); slicers keep the plain
    /// order (docs/ranking.md, "Selectable paths").
    pub selectable_first: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            max_paths: 5,
            max_depth: 6,
            include_mutation: false,
            selectable_first: false,
        }
    }
}

/// Memo key of paths to a type: (type, max paths, max depth, include mutation).
pub(crate) type PathKey = (String, usize, usize, bool, bool);

/// Extra path cost of a deprecated field, in milli-units: more than any detour within
/// the default depth of 6, so a deprecated route is shown only when it is the only one.
pub const DEPRECATED_HOP_EXTRA: u64 = 8 * HOP;

impl SchemaGraph {
    /// Root-first paths of field coordinates that reach `coordinate` (a field `Type.field`,
    /// or a type name, whose paths then end at a field returning it).
    ///
    /// Order: query-root paths, then subscription-root paths, then (on request) mutation
    /// paths; within a root cheapest first (see
    /// [`abstract_hop_cost`](crate::graph::abstract_hop_cost)), then fewest fields, then
    /// the joined path text. Bounded by `opts.max_paths` and `opts.max_depth`.
    pub fn paths_to_root(
        &self,
        coordinate: &str,
        opts: PathOptions,
    ) -> Result<Vec<Vec<String>>, SchemaError> {
        let coord = Coordinate::parse(coordinate)?;
        let (ty, tail): (String, Option<String>) = match &coord {
            Coordinate::Member { ty, member } => {
                self.resolve(&coord)?;
                (ty.clone(), Some(format!("{ty}.{member}")))
            }
            Coordinate::Argument { ty, field, .. } => {
                self.resolve(&coord)?;
                (ty.clone(), Some(format!("{ty}.{field}")))
            }
            Coordinate::Type(t) => {
                self.resolve(&coord)?;
                (t.clone(), None)
            }
            _ => return Ok(Vec::new()),
        };
        Ok(self.paths_to_type(&ty, tail.as_deref(), opts))
    }

    /// Paths from the roots to type `ty`, each extended by `tail` if given. Results are
    /// memoised per (type, options), so repeated look-ups (search hits, slices) are cheap.
    pub fn paths_to_type(
        &self,
        ty: &str,
        tail: Option<&str>,
        opts: PathOptions,
    ) -> Vec<Vec<String>> {
        // The tail takes one field of the depth budget.
        let depth = opts.max_depth.saturating_sub(usize::from(tail.is_some()));
        let key: PathKey = (
            ty.to_string(),
            opts.max_paths,
            depth,
            opts.include_mutation,
            opts.selectable_first,
        );
        let cached = self
            .path_memo
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned());
        let base = match cached {
            Some(b) => b,
            None => {
                let b = self.compute_paths_to_type(
                    ty,
                    PathOptions {
                        max_depth: depth,
                        ..opts
                    },
                );
                if let Ok(mut m) = self.path_memo.lock() {
                    m.insert(key, b.clone());
                }
                b
            }
        };
        let Some(t) = tail else { return base };
        let mut out = Vec::with_capacity(base.len() + 1);
        // A field of a root type is its own path, and comes first.
        if let Some(k) = self.root_kind(ty) {
            if k != RootKind::Mutation || opts.include_mutation {
                out.push(vec![t.to_string()]);
            }
        }
        for mut p in base {
            p.push(t.to_string());
            out.push(p);
        }
        out.truncate(opts.max_paths);
        out
    }

    fn compute_paths_to_type(&self, ty: &str, opts: PathOptions) -> Vec<Vec<String>> {
        let tail: Option<&str> = None;

        let mut out = Vec::new();
        let mut kinds = vec![RootKind::Query, RootKind::Subscription];
        if opts.include_mutation {
            kinds.push(RootKind::Mutation);
        }
        let tail_len = usize::from(tail.is_some());
        for kind in kinds {
            if out.len() >= opts.max_paths {
                break;
            }
            let Some(root) = self.root(kind) else {
                continue;
            };
            let Some(dist) = self.dist.get(&kind) else {
                continue;
            };
            if ty == root {
                if let Some(t) = tail {
                    out.push(vec![t.to_string()]);
                }
                continue;
            }
            let Some(&d0) = dist.get(ty) else { continue };
            // Best-first backward enumeration with the exact forward cost as heuristic, so
            // paths complete cheapest first. Collect a few more than asked, then order by
            // (cost, fields, text) for a deterministic, cheapest-first answer.
            let want = opts.max_paths.saturating_sub(out.len());
            let collect = (want * 3).max(want + 8);
            // heap item: (estimated total cost, joined text, current type, cost so far, path reversed)
            type Item = (u64, String, String, u64, Vec<FieldRef>);
            let mut heap: BinaryHeap<Reverse<Item>> = BinaryHeap::new();
            heap.push(Reverse((d0, String::new(), ty.to_string(), 0, Vec::new())));
            let mut pops = 0usize;
            let mut done: Vec<(u64, usize, String, Vec<String>)> = Vec::new();
            while let Some(Reverse((_, text, cur, cost, rev))) = heap.pop() {
                pops += 1;
                if pops > 20_000 {
                    break;
                }
                if cur == root {
                    let mut p: Vec<String> = rev.iter().rev().map(FieldRef::coordinate).collect();
                    if let Some(t) = tail {
                        p.push(t.to_string());
                    }
                    done.push((cost, p.len(), text, p));
                    if done.len() >= collect {
                        break;
                    }
                    continue;
                }
                let visited: HashSet<&str> = rev.iter().map(|f| f.owner.as_str()).collect();
                let Some(prods) = self.weighted_producers.get(&cur) else {
                    continue;
                };
                for (fr, c) in prods {
                    if fr.owner == cur || visited.contains(fr.owner.as_str()) {
                        continue;
                    }
                    let Some(&dp) = dist.get(&fr.owner) else {
                        continue;
                    };
                    let len = rev.len() + 1;
                    if len + tail_len > opts.max_depth {
                        continue;
                    }
                    // Paths must not pass through another root type.
                    if fr.owner != root && self.root_kind(&fr.owner).is_some() {
                        continue;
                    }
                    let c = c + self.path_penalty(fr);
                    let mut next = rev.clone();
                    next.push(fr.clone());
                    let text: Vec<String> = next.iter().rev().map(FieldRef::coordinate).collect();
                    heap.push(Reverse((
                        cost + c + dp,
                        text.join(" "),
                        fr.owner.clone(),
                        cost + c,
                        next,
                    )));
                }
            }
            if opts.selectable_first {
                done.sort_by_cached_key(|d| {
                    (d.0, d.1, self.unselectable_lists(root, &d.3), d.2.clone())
                });
            } else {
                done.sort();
            }
            out.extend(done.into_iter().take(want).map(|d| d.3));
        }
        out
    }

    /// Whether `path` (root first) passes through a root list without arguments before its
    /// last field: the paths [`PathOptions::selectable_first`] puts last on a tie. When no
    /// path of a plain answer does, the selectable order gives the same answer.
    pub fn passes_fixed_root_list(&self, path: &[String]) -> bool {
        match path.first().and_then(|c| c.split_once('.')) {
            Some((root, _)) if self.root_kind(root).is_some() => {
                self.unselectable_lists(root, path) > 0
            }
            _ => false,
        }
    }

    /// How many fields of `path` before its last are root fields returning a list and
    /// taking no arguments (see [`PathOptions::selectable_first`]).
    fn unselectable_lists(&self, root: &str, path: &[String]) -> usize {
        let Some((_, inner)) = path.split_last() else {
            return 0;
        };
        let Some(ExtendedType::Object(o)) = self.schema.types.get(root) else {
            return 0;
        };
        inner
            .iter()
            .filter_map(|c| c.split_once('.'))
            .filter(|(owner, _)| *owner == root)
            .filter_map(|(_, field)| o.fields.get(field))
            .filter(|f| f.arguments.is_empty() && f.ty.is_list())
            .count()
    }

    /// What a path pays for passing through field `fr` beyond its hop, from schema facts
    /// only: a deprecated field costs [`DEPRECATED_HOP_EXTRA`] (a path through one is shown
    /// only when no other route fits the depth). The ranker's depths
    /// (`distance_from_root`) do not include it: it is a path choice, and the distances
    /// stay a lower bound for the path search.
    ///
    /// Measured (WG slice bench, auto size, no model; tools bench, 3 calls):
    /// slices github 90.5% → 91.0%, linear 97.0% → 97.0%, singapore 100% → 100%; tools
    /// github 16.0% → 16.0%, linear 22.0% → 23.0%, singapore 100% → 100%. A quarter-hop
    /// extra for fields returning lists (single-object lookups first) was also tried and
    /// left out: it lowered slices on github (90.5% → 89.5%) and linear (97.0% → 96.5%).
    fn path_penalty(&self, fr: &FieldRef) -> u64 {
        let field = match self.schema.types.get(fr.owner.as_str()) {
            Some(ExtendedType::Object(o)) => o.fields.get(fr.field.as_str()),
            Some(ExtendedType::Interface(i)) => i.fields.get(fr.field.as_str()),
            _ => None,
        };
        let Some(f) = field else { return 0 };
        if f.directives.get("deprecated").is_some() {
            DEPRECATED_HOP_EXTRA
        } else {
            0
        }
    }
}
