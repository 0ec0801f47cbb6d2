//! Greedy picking under the budget: packages by value per estimated token (lazily
//! re-costed as the selection grows), the fields of what a picked field returns added
//! to the pool on the way (`child_blend`), then the query-root entries that meet the
//! selection, while they fit.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gqlnav_schema::RootKind;

use crate::index::Slicer;
use crate::options::Knobs;
use crate::selection::Selection;
use crate::value::Ctx;

/// A candidate in the pool: (value per estimated token, doc); the best first, ties by
/// corpus position.
#[derive(PartialEq)]
struct Cand(f32, usize);
impl Eq for Cand {}
impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cand {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(o.1.cmp(&self.1))
    }
}

/// A selection being picked, with per-doc and per-type flags for fast cost checks.
pub(crate) struct Picked {
    pub(crate) sel: Selection,
    pub(crate) chosen: Vec<bool>,
    pub(crate) type_on: Vec<bool>,
}

/// The selection, the candidates that did not fit (best first) and the best package if
/// none fitted.
pub(crate) type PickResult = (Selection, Vec<usize>, Option<Vec<usize>>);

/// The greedy pool: candidates by value per token, their values, the types expanded.
struct Pool {
    heap: BinaryHeap<Cand>,
    val: HashMap<usize, f32>,
    expanded: HashSet<String>,
}

/// What one pick spends and leaves out.
struct Budget {
    target: f32,
    spent: f32,
    left: Vec<usize>,
    first_unfit: Option<Vec<usize>>,
}

impl Budget {
    /// Take `pkg` if its cost fits; otherwise remember `d` as left out (and the package,
    /// if nothing was picked yet). True when taken.
    fn take(&mut self, sel: &mut Picked, d: usize, pkg: &[usize], c: f32, s: &Slicer) -> bool {
        if self.spent + c <= self.target {
            self.spent += c;
            s.add(sel, pkg);
            true
        } else {
            self.left.push(d);
            if sel.sel.len == 0 && self.first_unfit.is_none() {
                self.first_unfit = Some(pkg.to_vec());
            }
            false
        }
    }
}

impl Slicer {
    /// A package's estimated tokens (what the budget spends) and the cost that orders
    /// the pool: the same with the arguments kept for the question's words counted at
    /// `matched_arg_cost` (they are what the question asked for, not the overhead of
    /// reaching it).
    fn costs(&self, cx: &mut Ctx<'_>, pkg: &[usize], sel: &Picked, knobs: &Knobs) -> (f32, f32) {
        let (c, matched) = self.package_costs(cx, pkg, sel);
        (c, c - (1.0 - knobs.matched_arg_cost) * matched)
    }

    pub(crate) fn add(&self, sel: &mut Picked, pkg: &[usize]) {
        for &d in pkg {
            if !sel.chosen[d] {
                sel.chosen[d] = true;
                sel.type_on[self.owner_id[d]] = true;
                let e = &self.corpus.entries[d];
                sel.sel.insert(&e.owner, &e.name);
            }
        }
    }

    pub(crate) fn add_sel(&self, sel: &mut Selection, pkg: &[usize]) {
        for &d in pkg {
            let e = &self.corpus.entries[d];
            sel.insert(&e.owner, &e.name);
        }
    }

    /// Greedy pick within `target` estimated tokens. Returns the selection, the
    /// candidates that did not fit (best first) and the best package if none fitted.
    pub(crate) fn pick(
        &self,
        cx: &mut Ctx<'_>,
        cands: &[(usize, f32)],
        forced: &[usize],
        target: f32,
        knobs: &Knobs,
    ) -> PickResult {
        let mut sel = Picked {
            sel: Selection::default(),
            chosen: vec![false; self.corpus.len()],
            type_on: vec![false; self.n_types],
        };
        let mut b = Budget {
            target,
            spent: 0.0,
            left: Vec::new(),
            first_unfit: None,
        };
        for &d in forced {
            let pkg = self.package(cx, d, knobs);
            let c = self.package_cost(cx, &pkg, &sel);
            b.take(&mut sel, d, &pkg, c, self);
        }
        let mut pool = Pool {
            heap: BinaryHeap::new(),
            val: HashMap::default(),
            expanded: HashSet::default(),
        };
        for &(d, v) in cands {
            pool.val.insert(d, v);
            let pkg = self.package(cx, d, knobs);
            let (_, rc) = self.costs(cx, &pkg, &sel, knobs);
            pool.heap.push(Cand(v / rc.max(0.5), d));
        }
        while let Some(Cand(r, d)) = pool.heap.pop() {
            if sel.chosen[d] {
                continue;
            }
            let pkg = self.package(cx, d, knobs);
            let (c, rc) = self.costs(cx, &pkg, &sel, knobs);
            let v = pool.val[&d];
            let nr = v / rc.max(0.5);
            if nr < r * 0.999 {
                if let Some(top) = pool.heap.peek() {
                    if nr < top.0 {
                        pool.heap.push(Cand(nr, d));
                        continue;
                    }
                }
            }
            if b.take(&mut sel, d, &pkg, c, self)
                && knobs.child_blend > 0.0
                && pool.expanded.len() < knobs.max_child_types
            {
                self.expand_child(cx, &mut pool, &sel, d, v, knobs);
            }
        }
        if knobs.root_entries {
            self.add_root_entries(cx, &mut sel, &mut b);
        }
        (sel.sel, b.left, b.first_unfit)
    }

    /// Expand the pool into the type the picked field `d` returns (and its connection
    /// and edge types), at `child_blend` of the field's value `v`.
    fn expand_child(
        &self,
        cx: &mut Ctx<'_>,
        pool: &mut Pool,
        sel: &Picked,
        d: usize,
        v: f32,
        knobs: &Knobs,
    ) {
        let nt = self.corpus.entries[d].named_type.clone();
        let mut tys = vec![nt.clone()];
        if let Some(n) = self.graph.wrapped_type(&nt) {
            tys.push(n);
            if let Some(&ed) = self.doc_of.get(&format!("{nt}.edges")) {
                tys.push(self.corpus.entries[ed].named_type.clone());
            }
        }
        let cv = knobs.child_blend * v;
        for t in tys {
            if self.is_excluded_root(&t) || !pool.expanded.insert(t.clone()) {
                continue;
            }
            for &f in self
                .fields_of_type
                .get(&t)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let cv = if self.label[f] {
                    cv.max(knobs.label_blend * v)
                } else {
                    cv
                };
                if cv >= knobs.value_floor && pool.val.get(&f).is_none_or(|x| *x < cv) {
                    pool.val.insert(f, cv);
                    let fp = self.package(cx, f, knobs);
                    let (_, fc) = self.costs(cx, &fp, sel, knobs);
                    pool.heap.push(Cand(cv / fc.max(0.5), f));
                }
            }
        }
    }

    /// Root entries whose return-type family meets the selected types, most valuable
    /// first, while they fit.
    fn add_root_entries(&self, cx: &mut Ctx<'_>, sel: &mut Picked, b: &mut Budget) {
        let Some(q) = self.graph.root(RootKind::Query) else {
            return;
        };
        let owners: HashSet<String> = sel
            .sel
            .fields
            .iter()
            .filter(|(_, f)| !f.is_empty())
            .map(|(t, _)| t.clone())
            .collect();
        let mut entries: Vec<(f32, usize)> = Vec::new();
        for &d in self.fields_of_type.get(q).map(Vec::as_slice).unwrap_or(&[]) {
            let e = &self.corpus.entries[d];
            if sel.chosen[d] {
                continue;
            }
            let nt = &e.named_type;
            let node = self.graph.wrapped_type(nt);
            let hit = owners.contains(nt) || node.as_ref().is_some_and(|n| owners.contains(n));
            if hit {
                entries.push((cx.value.get(&d).copied().unwrap_or(0.0), d));
            }
        }
        entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, d) in entries {
            let mut pkg = vec![d];
            pkg.extend_from_slice(self.conn_docs(&self.corpus.entries[d].named_type));
            let c = self.package_cost(cx, &pkg, sel);
            if b.spent + c <= b.target {
                b.spent += c;
                self.add(sel, &pkg);
            }
        }
    }
}
