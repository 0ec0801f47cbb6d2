//! The one-hop linker, a slicer baseline: the types a question names (a type name, a
//! field name or an enum value whose terms all occur in the question, matched through the
//! identifier analyzer) plus one hop (the types their fields return, union members, and
//! the query-root fields that return them), each defined with all its fields.
//!
//! Choices the description leaves open, made here: a field or enum-value match names its
//! owner type only when that name is specific, i.e. at most [`SPECIFIC_MAX`] types carry a
//! member with the same terms (`id`, `name`, `createdAt` name nothing); at most
//! [`MAX_NAMED`] named types, the ones matching the most question terms first; a budget is
//! met by adding whole types in that order (named, then hop types) while the rendering fits.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_search::Analyzer;

use crate::closure::{fields_of, Pruner};
use crate::fit::Slice;
use crate::index::Slicer;
use crate::options::SliceOptions;
use crate::relevance::{name_terms, Relevance};
use crate::render::{render, RenderOptions};
use crate::selection::Selection;
use crate::SliceError;

/// A final rendering: what a baseline slice shows.
struct Shown {
    sdl: String,
    tokens: usize,
    coordinates: Vec<String>,
    types: usize,
    not_shown: Vec<String>,
}

/// Most owner types that may share a member's terms for that member to name its owner.
pub const SPECIFIC_MAX: usize = 3;
/// Most types the question may name.
pub const MAX_NAMED: usize = 12;
/// Types in a row that may fail to fit before the rest are left out untried.
const MAX_MISSES: usize = 8;

/// Why a type is in a linked slice.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkedType {
    /// The type.
    pub name: String,
    /// 0: the question names it; 1: one hop from a named type.
    pub hop: u8,
    /// What matched (`type name`, `field Repository.stargazerCount`, `enum value
    /// IssueState.OPEN`) or how it was reached (`Repository.owner`).
    pub because: String,
}

/// A linker answer: the types and the slice that defines them.
#[derive(Debug, Clone)]
pub struct Linked {
    /// Named types first (most matched terms first), then hop types.
    pub types: Vec<LinkedType>,
    /// The slice (all fields of the types that fit).
    pub slice: Slice,
}

/// The terms of a schema name, without the whole-word term of a split identifier.
fn parts(name: &str) -> Vec<String> {
    let t = name_terms(name);
    let whole = name.to_lowercase();
    if t.len() > 1 {
        t.into_iter().filter(|x| *x != whole).collect()
    } else {
        t
    }
}

impl Slicer {
    /// The types `question` names plus one hop, as a slice under `opts.budget`.
    pub fn link(&self, question: &str, opts: &SliceOptions) -> Result<Linked, SliceError> {
        let schema = &self.graph.schema;
        let q: HashSet<String> = Analyzer::Identifier
            .query_terms(question)
            .into_iter()
            .collect();
        let within = |p: &[String]| !p.is_empty() && p.iter().all(|t| q.contains(t));
        // name -> (terms matched, because)
        let mut named: HashMap<String, (usize, String)> = HashMap::default();
        let mut offer = |ty: &str, n: usize, why: String| {
            let e = named.entry(ty.to_string()).or_insert((0, String::new()));
            if n > e.0 {
                *e = (n, why);
            }
        };
        // members by term set -> owners (for specificity)
        let mut members: HashMap<Vec<String>, Vec<(String, String)>> = HashMap::default();
        for (tname, t) in &schema.types {
            let tn = tname.as_str();
            if tn.starts_with("__") || t.is_built_in() || self.graph.root_kind(tn).is_some() {
                continue;
            }
            let p = parts(tn);
            if within(&p) {
                offer(tn, p.len(), "type name".into());
            }
            let names: Vec<(String, &str)> = match t {
                ExtendedType::Object(o) => o
                    .fields
                    .keys()
                    .map(|f| (format!("field {tn}.{f}"), f.as_str()))
                    .collect(),
                ExtendedType::Interface(o) => o
                    .fields
                    .keys()
                    .map(|f| (format!("field {tn}.{f}"), f.as_str()))
                    .collect(),
                ExtendedType::Enum(e) => e
                    .values
                    .keys()
                    .map(|v| (format!("enum value {tn}.{v}"), v.as_str()))
                    .collect(),
                _ => Vec::new(),
            };
            for (why, m) in names {
                let mut p = parts(m);
                if within(&p) {
                    p.sort();
                    members.entry(p).or_default().push((tn.to_string(), why));
                }
            }
        }
        for (p, owners) in members {
            let distinct: HashSet<&str> = owners.iter().map(|o| o.0.as_str()).collect();
            if distinct.len() <= SPECIFIC_MAX {
                for (ty, why) in owners {
                    offer(&ty, p.len(), why);
                }
            }
        }
        let mut ranked: Vec<(String, usize, String)> =
            named.into_iter().map(|(k, (n, w))| (k, n, w)).collect();
        // Most terms first; then schema order (the index of the type), deterministic.
        let order: HashMap<&str, usize> = schema
            .types
            .keys()
            .enumerate()
            .map(|(i, k)| (k.as_str(), i))
            .collect();
        ranked.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then(order[a.0.as_str()].cmp(&order[b.0.as_str()]))
        });
        ranked.truncate(MAX_NAMED);
        let mut types: Vec<LinkedType> = ranked
            .into_iter()
            .map(|(name, _, because)| LinkedType {
                name,
                hop: 0,
                because,
            })
            .collect();
        self.add_hops(&mut types);
        let slice = self.fit_types(question, &types, opts)?;
        Ok(Linked { types, slice })
    }

    /// One hop from the named types: return types of their fields, union members, and
    /// the query root (with the entry fields that return a named type).
    fn add_hops(&self, types: &mut Vec<LinkedType>) {
        let schema = &self.graph.schema;
        let mut seen: HashSet<String> = types.iter().map(|t| t.name.clone()).collect();
        let mut hops = Vec::new();
        for t in types.iter() {
            let next: Vec<(String, String)> = match schema.types.get(t.name.as_str()) {
                Some(ExtendedType::Union(u)) => u
                    .members
                    .iter()
                    .map(|m| (m.to_string(), format!("member of {}", t.name)))
                    .collect(),
                Some(ty) => fields_of(ty)
                    .map(|fs| {
                        fs.iter()
                            .map(|(f, d)| {
                                (
                                    d.ty.inner_named_type().to_string(),
                                    format!("{}.{f}", t.name),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            for (ty, why) in next {
                let composite = matches!(
                    schema.types.get(ty.as_str()),
                    Some(
                        ExtendedType::Object(_)
                            | ExtendedType::Interface(_)
                            | ExtendedType::Union(_)
                    )
                );
                if composite && self.graph.root_kind(&ty).is_none() && seen.insert(ty.clone()) {
                    hops.push(LinkedType {
                        name: ty,
                        hop: 1,
                        because: why,
                    });
                }
            }
        }
        types.extend(hops);
    }

    /// The slice of `types` (all fields; the query root's entry fields for them) that
    /// fits the budget, adding whole types in order.
    fn fit_types(
        &self,
        question: &str,
        types: &[LinkedType],
        opts: &SliceOptions,
    ) -> Result<Slice, SliceError> {
        let rel = Relevance::new(question, &[]);
        let pr = Pruner::with_names(&self.graph, &rel, &self.names);
        let ropts = RenderOptions {
            style: opts.style,
            closed: opts.closed,
            enum_small: opts.knobs.enum_small,
        };
        let meter = self.meter(opts.encoding);
        let mut sel = Selection::default();
        let mut kept = Vec::new();
        let mut left = Vec::new();
        let mut misses = 0;
        for t in types {
            if opts.budget.is_none() {
                self.select_type(&mut sel, &t.name);
                kept.push(t.name.clone());
                continue;
            }
            // After this many types in a row that do not fit, the rest are left out
            // unrendered (each try renders the whole slice again).
            if misses >= MAX_MISSES {
                left.push(t.name.clone());
                continue;
            }
            let mut next = sel.clone();
            self.select_type(&mut next, &t.name);
            let r = render(&self.graph, &next, &pr, ropts);
            if opts.budget.is_none_or(|b| meter.count(&r.body) <= b) {
                sel = next;
                kept.push(t.name.clone());
                misses = 0;
            } else {
                left.push(t.name.clone());
                misses += 1;
            }
        }
        let partial = kept.is_empty() && !types.is_empty();
        let shown = self.final_render(&sel, &pr, opts);
        drop(pr);
        Ok(self.slice_of(sel, rel, shown, left, partial, opts))
    }

    /// The slice that renders `sel` (a `# not shown` line when it still fits): the last
    /// step of the baselines that choose their members themselves (linker, swan).
    pub(crate) fn selection_slice(
        &self,
        sel: Selection,
        rel: Relevance,
        left_out: Vec<String>,
        partial: bool,
        opts: &SliceOptions,
    ) -> Slice {
        let shown = {
            let pr = Pruner::with_names(&self.graph, &rel, &self.names);
            self.final_render(&sel, &pr, opts)
        };
        self.slice_of(sel, rel, shown, left_out, partial, opts)
    }

    /// Render `sel` with `pr`, adding the `# not shown` line when it still fits.
    fn final_render(&self, sel: &Selection, pr: &Pruner<'_>, opts: &SliceOptions) -> Shown {
        let ropts = RenderOptions {
            style: opts.style,
            closed: opts.closed,
            enum_small: opts.knobs.enum_small,
        };
        let meter = self.meter(opts.encoding);
        let r = render(&self.graph, sel, pr, ropts);
        let mut sdl = r.body;
        if !opts.closed && !r.not_shown.is_empty() {
            let line = format!("\n# not shown: {}\n", r.not_shown.join(", "));
            let mut with = sdl.clone();
            with.push_str(&line);
            if opts.budget.is_none_or(|b| meter.count(&with) <= b) {
                sdl = with;
            }
        }
        Shown {
            tokens: meter.count(&sdl),
            sdl,
            coordinates: r.coordinates,
            types: r.types,
            not_shown: r.not_shown,
        }
    }

    fn slice_of(
        &self,
        sel: Selection,
        rel: Relevance,
        shown: Shown,
        left_out: Vec<String>,
        partial: bool,
        opts: &SliceOptions,
    ) -> Slice {
        Slice {
            sdl: shown.sdl,
            tokens: shown.tokens,
            encoding: opts.encoding,
            style: opts.style,
            closed: opts.closed,
            budget: opts.budget,
            auto_size: None,
            coordinates: shown.coordinates,
            types: shown.types,
            not_shown: shown.not_shown,
            left_out,
            partial,
            selection: sel,
            relevance: rel,
        }
    }

    /// Every field of `ty` with every argument, and the query-root fields returning it
    /// (or a connection of it).
    fn select_type(&self, sel: &mut Selection, ty: &str) {
        let fields: Vec<(String, Vec<String>)> = self
            .graph
            .schema
            .types
            .get(ty)
            .and_then(fields_of)
            .map(|fs| {
                fs.iter()
                    .map(|(f, d)| {
                        (
                            f.to_string(),
                            d.arguments.iter().map(|a| a.name.to_string()).collect(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        for (f, args) in fields {
            sel.insert(ty, &f);
            for a in args {
                sel.forced_args.insert((ty.to_string(), f.clone(), a));
            }
        }
        if let Some(entries) = self.root_entries_of.get(ty) {
            for d in entries {
                let e = &self.corpus.entries[*d];
                sel.insert(&e.owner, &e.name);
                for a in &e.args {
                    sel.forced_args
                        .insert((e.owner.clone(), e.name.clone(), a.name.clone()));
                }
            }
        }
    }
}
