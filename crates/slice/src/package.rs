//! Closing a candidate field into a package, what it costs to show it: the field; its
//! most valuable path from the query root; the query-root entries of each type the
//! package touches; the connection wrappers on the way; and, for a small return type,
//! its leaves.

use std::rc::Rc;
use std::sync::Arc;

use crate::index::Slicer;
use crate::options::Knobs;
use crate::pick::Picked;
use crate::render::Style;
use crate::value::Ctx;

/// Estimated tokens a field saves in the dense style (no line break, no two-space indent:
/// about 1.4 tokens per field on the WG schemas' slices; the first pick's fill depends on it).
const DENSE_FIELD_SAVING: f32 = 1.4;

/// Estimated tokens of a text of `chars` characters.
pub(crate) fn est(chars: usize) -> f32 {
    chars as f32 / 3.6
}

impl Slicer {
    /// Estimated cost of one field line (with its kept arguments) in a style.
    pub(crate) fn cost(&self, cx: &mut Ctx<'_>, doc: usize) -> f32 {
        if let Some(c) = cx.arg_cost.get(&doc) {
            return *c;
        }
        let mut c = self.base_cost[doc];
        if matches!(cx.style, Style::Dense | Style::Once) {
            c -= DENSE_FIELD_SAVING;
        }
        if let Some((f, arg_est)) = &self.field_def[doc] {
            for (a, &ac) in f.arguments.iter().zip(arg_est.iter()) {
                if cx.pr.keep_arg_of(f, a) {
                    if cx.pr.matched_arg(a) {
                        *cx.arg_match.entry(doc).or_insert(0.0) += ac;
                    }
                    c += ac;
                    if !matches!(cx.style, Style::Bare | Style::Dense) {
                        let d = a.description.as_deref().map(str::len).unwrap_or(0);
                        c += if cx.style == Style::Sdl {
                            est(d + 8)
                        } else {
                            1.0
                        };
                    }
                }
            }
            if !matches!(cx.style, Style::Bare | Style::Dense) {
                let d = f.description.as_deref().map(str::len).unwrap_or(0);
                c += if cx.style == Style::Sdl {
                    est(d + 8)
                } else {
                    est(d.min(120))
                };
            }
        }
        cx.arg_cost.insert(doc, c);
        c
    }

    /// Connection wrapper docs a field returning `named` brings along (see
    /// `compute_conn_docs` in the index).
    pub(crate) fn conn_docs(&self, named: &str) -> &[usize] {
        self.conn_memo.get(named).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The most relevant query path to type `ty` (docs, root first), cached.
    pub(crate) fn path(&self, cx: &mut Ctx<'_>, ty: &str, knobs: &Knobs) -> Rc<[usize]> {
        if let Some(p) = cx.path_cache.get(ty) {
            return p.clone();
        }
        // The question's main types are reached in more than one way (an agent may
        // know either entry), chosen from a wider set of candidate paths.
        let main = cx.main_types.iter().any(|t| t == ty);
        let (choices, take) = if main {
            (knobs.main_path_choices, knobs.main_paths)
        } else {
            (knobs.path_choices, knobs.paths_per_type)
        };
        let paths = if self.graph.root_kind(ty).is_none() {
            self.path_docs(ty, knobs.path_width(), knobs.max_depth)
        } else {
            Arc::default()
        };
        let mut scored: Vec<(bool, f32, usize, &[usize])> = Vec::new();
        for (from_query, docs) in paths.iter().take(choices.max(1)) {
            // A hop through a generic lookup (`Query.node`, `Query.resource`: an
            // interface standing for many types) says nothing about how the type is
            // reached in practice; such paths come last.
            let generic = docs.iter().filter(|&&d| self.generic_hop[d]).count();
            let v: f32 = docs
                .iter()
                .map(|d| cx.value.get(d).copied().unwrap_or(0.0))
                .sum::<f32>()
                - 0.01 * docs.len() as f32
                - knobs.generic_hop_penalty * generic as f32;
            let i = scored.len();
            scored.push((*from_query, v, i, docs));
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut out = Vec::new();
        for (_, _, _, docs) in scored.into_iter().take(take.max(1)) {
            for &d in docs {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        let out: Rc<[usize]> = out.into();
        cx.path_cache.insert(ty.to_string(), out.clone());
        out
    }

    /// The package of a candidate: itself, its path, connection wrappers on the way.
    pub(crate) fn package(&self, cx: &mut Ctx<'_>, doc: usize, knobs: &Knobs) -> Rc<Vec<usize>> {
        if let Some(p) = cx.pkg_cache.get(&doc) {
            return p.clone();
        }
        let e = &self.corpus.entries[doc];
        let mut out = vec![doc];
        out.extend_from_slice(&self.path(cx, &e.owner, knobs));
        if knobs.root_entries_per_type > 0 {
            let add = self.root_entries_for(cx, &out, knobs);
            out.extend(add);
        }
        let mut extra = Vec::new();
        for &d in &out {
            extra.extend_from_slice(self.conn_docs(&self.corpus.entries[d].named_type));
        }
        if let Some(l) = self.leaf_memo.get(&e.named_type) {
            if self.fields_of_type[&e.named_type].len() <= knobs.small_type_fields {
                extra.extend(l.iter().copied());
            }
        }
        out.extend(extra);
        // Packages are small (tens of docs): a linear scan beats hashing.
        let mut uniq = Vec::with_capacity(out.len());
        for d in out {
            if !uniq.contains(&d) {
                uniq.push(d);
            }
        }
        let out = Rc::new(uniq);
        cx.pkg_cache.insert(doc, out.clone());
        out
    }

    /// Query-root entry fields of each type the package touches (the type itself, or a
    /// connection of it), the most relevant first.
    fn root_entries_for(&self, cx: &Ctx<'_>, pkg: &[usize], knobs: &Knobs) -> Vec<usize> {
        let mut owners: Vec<&str> = Vec::new();
        for &d in pkg {
            let o = self.corpus.entries[d].owner.as_str();
            if !owners.contains(&o) {
                owners.push(o);
            }
        }
        let mut add = Vec::new();
        for o in owners {
            if let Some(r) = self.root_entries_of.get(o) {
                let mut r: Vec<(f32, usize)> = r
                    .iter()
                    .map(|&d| (cx.value.get(&d).copied().unwrap_or(0.0), d))
                    .collect();
                r.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                add.extend(r.into_iter().take(knobs.root_entries_per_type).map(|x| x.1));
            }
        }
        add
    }

    /// Estimated tokens a package adds to a selection: its new field lines and the
    /// headers of its new types.
    pub(crate) fn package_cost(&self, cx: &mut Ctx<'_>, pkg: &[usize], sel: &Picked) -> f32 {
        self.package_costs(cx, pkg, sel).0
    }

    /// [`Slicer::package_cost`], and the part of it that is arguments kept for the
    /// question's words ([`crate::closure::Pruner::matched_arg`]), in one pass.
    pub(crate) fn package_costs(
        &self,
        cx: &mut Ctx<'_>,
        pkg: &[usize],
        sel: &Picked,
    ) -> (f32, f32) {
        let (mut c, mut matched) = (0.0, 0.0);
        let mut new_types: Vec<usize> = Vec::new();
        for &d in pkg {
            if sel.chosen[d] {
                continue;
            }
            c += self.cost(cx, d);
            matched += cx.arg_match.get(&d).copied().unwrap_or(0.0);
            let o = self.owner_id[d];
            if !sel.type_on[o] && !new_types.contains(&o) {
                new_types.push(o);
                c += est(self.corpus.entries[d].owner.len() + 12);
            }
        }
        (c, matched)
    }
}
