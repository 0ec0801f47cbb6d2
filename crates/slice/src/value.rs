//! Value channels: what each field is worth to the question. The ranker's score (scaled
//! to [0, 1] by the best hit); the fields of the most relevant types (`type_blend`);
//! *links* between two relevant types (`link_blend`). Seeds are parsed here too: seed
//! types count as fully relevant. (The child channel, fields of what a picked field
//! returns, is applied while picking: [`crate::pick`].)

use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::RootKind;
use gqlnav_search::{Purpose, Query, Scored};

use crate::closure::Pruner;
use crate::index::Slicer;
use crate::options::Knobs;
use crate::render::Style;
use crate::SliceError;

/// Per-question selection state: the values of the channels, and the paths, packages
/// and line costs worked out so far.
pub(crate) struct Ctx<'a> {
    pub(crate) pr: Pruner<'a>,
    pub(crate) value: HashMap<usize, f32>,
    pub(crate) path_cache: HashMap<String, Rc<[usize]>>,
    pub(crate) pkg_cache: HashMap<usize, Rc<Vec<usize>>>,
    /// The most relevant types (more paths from the root).
    pub(crate) main_types: Vec<String>,
    pub(crate) arg_cost: HashMap<usize, f32>,
    /// Estimated tokens of a field's arguments kept for the question's words.
    pub(crate) arg_match: HashMap<usize, f32>,
    pub(crate) style: Style,
}

impl<'a> Ctx<'a> {
    /// Fresh state for one question in one style.
    pub(crate) fn new(pr: Pruner<'a>, style: Style) -> Self {
        Ctx {
            pr,
            value: HashMap::default(),
            path_cache: HashMap::default(),
            pkg_cache: HashMap::default(),
            main_types: Vec::new(),
            arg_cost: HashMap::default(),
            arg_match: HashMap::default(),
            style,
        }
    }
}

/// Seed fields (docs), seed types, forced arguments.
pub(crate) type ParsedSeeds = (Vec<usize>, Vec<String>, Vec<(String, String, String)>);

/// The ranked hits (best first) and the candidates at or above the value floor (best
/// first, ties by corpus position).
pub(crate) type Valued = (Vec<Scored>, Vec<(usize, f32)>);

impl Slicer {
    pub(crate) fn parse_seeds(&self, seeds: &[String]) -> Result<ParsedSeeds, SliceError> {
        let mut fields = Vec::new();
        let mut types = Vec::new();
        let mut args = Vec::new();
        for s in seeds {
            let s = s.trim();
            if let Some((tf, rest)) = s.split_once('(') {
                let a = rest.trim_end_matches(')').trim_end_matches(':').trim();
                let Some(&d) = self.doc_of.get(tf) else {
                    return Err(SliceError::Seed(s.to_string(), "no such field".into()));
                };
                let e = &self.corpus.entries[d];
                if !e.args.iter().any(|x| x.name == a) {
                    return Err(SliceError::Seed(s.to_string(), "no such argument".into()));
                }
                fields.push(d);
                args.push((e.owner.clone(), e.name.clone(), a.to_string()));
            } else if s.contains('.') {
                let Some(&d) = self.doc_of.get(s) else {
                    let near = self.graph.suggest(s, 3);
                    let hint = if near.is_empty() {
                        "no such field; seeds are written `Type.field` (`gqlnav search` finds them)"
                            .to_string()
                    } else {
                        format!("no such field (did you mean: {})", near.join(", "))
                    };
                    return Err(SliceError::Seed(s.to_string(), hint));
                };
                fields.push(d);
            } else if self.fields_of_type.contains_key(s) {
                types.push(s.to_string());
            } else {
                return Err(SliceError::Seed(
                    s.to_string(),
                    "no such object or interface type".into(),
                ));
            }
        }
        Ok((fields, types, args))
    }

    /// Rank, then value every candidate by the channels (into `cx.value`; the question's
    /// main types into `cx.main_types`).
    pub(crate) fn value(
        &self,
        cx: &mut Ctx<'_>,
        question: &str,
        sub_queries: &[String],
        seed_types: &[String],
        knobs: &Knobs,
    ) -> Result<Valued, SliceError> {
        // 1. rank
        let q = Query {
            text: question.to_string(),
            sub_queries: sub_queries.to_vec(),
            purpose: Purpose::Slice,
        };
        let hits = if question.trim().is_empty() && sub_queries.is_empty() {
            Vec::new()
        } else {
            self.backend.search(&q, knobs.pool_k)?
        };
        let mut type_rel = self.score_hits(cx, &hits);
        for t in seed_types {
            type_rel.insert(t.clone(), 1.0);
        }
        // 2. expand the top types
        let tr = self.top_types(&type_rel);
        let expand: Vec<(String, f32)> = tr
            .iter()
            .take(knobs.type_k)
            .map(|(t, v)| ((*t).clone(), *v))
            .chain(seed_types.iter().map(|t| (t.clone(), 1.0)))
            .collect();
        cx.main_types = tr
            .iter()
            .take(knobs.main_types)
            .map(|(t, _)| (*t).clone())
            .collect();
        for (t, v) in &expand {
            for &d in self.fields_of_type.get(t).map(Vec::as_slice).unwrap_or(&[]) {
                if knobs.type_leaves && !self.is_leaf(d) {
                    continue;
                }
                let e = cx.value.entry(d).or_insert(0.0);
                *e = e.max(knobs.type_blend * v);
            }
        }
        if knobs.link_blend > 0.0 {
            self.value_links(cx, &tr, &type_rel, knobs);
        }
        if gqlnav_search::first_person(question) {
            self.value_caller(cx, &type_rel, knobs);
        }
        let mut cands: Vec<(usize, f32)> = cx
            .value
            .iter()
            .filter(|(_, v)| **v >= knobs.value_floor)
            .map(|(d, v)| (*d, *v))
            .collect();
        cands.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok((hits, cands))
    }

    /// Does field `d` return a scalar or an enum (no sub-selection)?
    pub(crate) fn is_leaf(&self, d: usize) -> bool {
        matches!(
            self.graph
                .schema
                .types
                .get(self.corpus.entries[d].named_type.as_str()),
            Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
        )
    }

    /// The ranker's channel: each hit's scaled score (into `cx.value`), and each type's
    /// relevance (the best score among its fields and, discounted, among the fields
    /// returning it or a connection of it).
    fn score_hits(&self, cx: &mut Ctx<'_>, hits: &[Scored]) -> HashMap<String, f32> {
        let top = hits.first().map(|h| h.score).unwrap_or(0.0);
        let mut type_rel: HashMap<String, f32> = HashMap::default();
        for h in hits {
            let e = &self.corpus.entries[h.doc];
            if self.is_excluded_root(&e.owner) {
                continue;
            }
            let s = if top > 0.0 { h.score / top } else { 0.0 };
            cx.value.insert(h.doc, s);
            let t = type_rel.entry(e.owner.clone()).or_insert(0.0);
            *t = t.max(s);
            let node =
                (self.graph.wrapped_type(&e.named_type)).unwrap_or_else(|| e.named_type.clone());
            if self.fields_of_type.contains_key(&node) {
                let t = type_rel.entry(node).or_insert(0.0);
                *t = t.max(0.8 * s);
            }
        }
        type_rel
    }

    /// Relevant types, most relevant first (ties by name): not the query root, not
    /// reachable only through Mutation, not connections.
    fn top_types<'t>(&self, type_rel: &'t HashMap<String, f32>) -> Vec<(&'t String, f32)> {
        let q_root = self.graph.root(RootKind::Query).unwrap_or("Query");
        let mut tr: Vec<(&String, f32)> = type_rel
            .iter()
            .filter(|(t, _)| {
                t.as_str() != q_root
                    && !self.is_excluded_root(t)
                    && self.graph.wrapped_type(t).is_none()
            })
            .map(|(t, v)| (t, *v))
            .collect();
        tr.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        tr
    }

    /// First-person questions ("which of my issues …"): the current caller's root fields
    /// ([`gqlnav_search::caller_roots`]) are worth as much as the best hit, and each field
    /// of the caller's type that leads to a relevant type is a link to it (valued as the
    /// link channel values links), so "my X" is read through the caller, not through a
    /// lookup by key.
    fn value_caller(&self, cx: &mut Ctx<'_>, type_rel: &HashMap<String, f32>, knobs: &Knobs) {
        for (root_field, caller) in gqlnav_search::caller_roots(&self.graph) {
            let Some(&d) = self.doc_of.get(&root_field) else {
                continue;
            };
            let e = cx.value.entry(d).or_insert(0.0);
            *e = e.max(1.0);
            for &f in self
                .fields_of_type
                .get(&caller)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let rel = self.family[f]
                    .iter()
                    .filter(|t| **t != caller)
                    .filter_map(|t| type_rel.get(t))
                    .fold(0.0f32, |a, b| a.max(*b));
                if rel > 0.0 {
                    let e = cx.value.entry(f).or_insert(0.0);
                    *e = e.max(knobs.link_blend * rel);
                }
            }
        }
    }

    /// Links: a field of a relevant type that leads to another relevant type (directly,
    /// through a connection, or through a small interface or union) is how the two are
    /// read together (`Organization.repositories`, `Ref.target` → Commit).
    fn value_links(
        &self,
        cx: &mut Ctx<'_>,
        tr: &[(&String, f32)],
        type_rel: &HashMap<String, f32>,
        knobs: &Knobs,
    ) {
        for (t, v) in tr.iter().take(knobs.link_types) {
            for &d in self
                .fields_of_type
                .get(*t)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let fam = self.family[d]
                    .iter()
                    .filter(|f| *f != *t)
                    .filter_map(|f| type_rel.get(f))
                    .fold(0.0f32, |a, b| a.max(*b));
                if fam > 0.0 {
                    let e = cx.value.entry(d).or_insert(0.0);
                    *e = e.max(knobs.link_blend * v.min(fam));
                }
            }
        }
    }
}
