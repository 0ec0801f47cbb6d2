//! gqlnav slice: a small, self-contained SDL excerpt of a huge schema that answers one
//! question, cut to a token budget.
//!
//! Pipeline ([`Slicer::slice`]):
//!
//! 1. **Rank** the field coordinates with the structure-aware ranker
//!    ([`gqlnav_search::StructureBackend`], or any backend via [`Slicer::with_backend`]);
//!    scores are scaled to [0, 1] by the best hit. A type's relevance is the best score
//!    among its fields (and, discounted, among the fields returning it).
//! 2. **Value** candidates by channels: the ranker's score; the fields of the top types
//!    (`type_blend × relevance`, "breadth is the insurance", as the WG strategies found);
//!    *links*, fields of a relevant type leading to another relevant type directly,
//!    through a connection or through a small interface/union (`Organization.repositories`,
//!    `Ref.target` → Commit); the fields of what a picked field returns (`child_blend`).
//!    The top ranked fields keep every argument (`full_signature_k`).
//! 3. **Close** each candidate into a package: the field; its most valuable path from the
//!    query root (never through Mutation; generic lookups such as `Query.node` last; the
//!    question's main types get two paths); the query-root entries of each type the
//!    package touches; the `nodes`/`totalCount` fields of every connection on the way
//!    (`edges` and the edge type only when the edge carries data); and, for a small return
//!    type, its scalar and enum leaves.
//! 4. **Pick** packages greedily by value per estimated token until the budget (or, without
//!    one, [`Knobs::default_tokens`]) is reached; then add the remaining query-root entries
//!    whose return-type family meets the selection, while they fit.
//! 5. **Render** ([`render::render`]): selected fields with the arguments that survive
//!    (required; `first`; lexically relevant to the question; a single-object field's
//!    selectors), the input types and enums they need (input fields and enum values pruned
//!    the same way), unions (large ones cut to the members the slice defines or the
//!    question names), custom scalars. Types named but not defined are listed in one
//!    closing `# not shown: …` line, or, with `closed`, defined as one-field stubs so the
//!    slice validates as a schema.
//! 6. **Measure** the text in the named encoding ([`gqlnav_corpus::CachedMeter`]); while it
//!    is over the budget, shrink the estimate and pick again. A slice never exceeds its
//!    budget.
//!
//! Everything is deterministic and lexical: no hosted model is involved.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use gqlnav_corpus::{CachedMeter, Corpus, CorpusOptions, Encoding, Rendering, TokenMeter};
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{PathOptions, RootKind, SchemaGraph};
use gqlnav_search::structure::unwrap_connection;
use gqlnav_search::{Query, SearchBackend, SearchContext, StructureBackend, StructureWeights};

pub mod relevance;
pub mod render;

pub use relevance::{NameTerms, Relevance, FORWARD_PAGINATION_ARGS, PAGINATION_ARGS};
pub use render::{render, Pruner, RenderOptions, Rendered, Selection, Style};

/// Errors building a slicer.
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
}

/// Aggregate knobs of the selection stage (no per-question rules).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Knobs {
    /// Ranked hits considered.
    pub pool_k: usize,
    /// Most relevant types whose every field becomes a candidate.
    pub type_k: usize,
    /// Value of a field of an expanded type, as a share of the type's relevance.
    pub type_blend: f32,
    /// Candidates below this value are never picked.
    pub value_floor: f32,
    /// Paths from the root compared per owner type (the most relevant one is taken).
    pub path_choices: usize,
    /// Longest path, in fields.
    pub max_depth: usize,
    /// Add query-root entries whose return-type family meets the selection.
    pub root_entries: bool,
    /// Size without a budget, in estimated tokens.
    pub default_tokens: usize,
    /// Enums with no relevant value show all their values up to this many.
    pub enum_small: usize,
    /// Paths from the root added per owner type.
    pub paths_per_type: usize,
    /// Value of a field of the type a picked field returns (through connections and
    /// edges), as a share of the picked field's value.
    pub child_blend: f32,
    /// Most types expanded that way per question.
    pub max_child_types: usize,
    /// A field returning an object or interface type with at most this many fields brings
    /// that type's scalar and enum fields along (a composite field cannot be selected
    /// without a sub-selection, and a small type's leaves are cheap); 0 turns it off.
    pub small_type_fields: usize,
    /// Query-root entry fields (returning the type or a connection of it) packed with
    /// the first field of each type, most relevant first; 0 turns it off.
    pub root_entries_per_type: usize,
    /// Value of a field linking two relevant types, as a share of the lesser relevance;
    /// 0 turns links off.
    pub link_blend: f32,
    /// Most relevant types whose fields are tested as links.
    pub link_types: usize,
    /// Path preference lost per hop through a generic lookup (an interface or union
    /// standing for more than 16 types).
    pub generic_hop_penalty: f32,
    /// The question's most relevant types, which get `main_paths` paths from the root
    /// chosen among `main_path_choices`.
    pub main_types: usize,
    /// Paths from the root added for each main type.
    pub main_paths: usize,
    /// Paths compared for each main type.
    pub main_path_choices: usize,
    /// The top ranked fields that keep every argument.
    pub full_signature_k: usize,
    /// The first pick aims at this share of the budget in estimated tokens (estimates
    /// run a little low; a pick that renders over the budget is redone smaller).
    pub first_fill: f32,
}

impl Knobs {
    /// Candidate root paths enumerated per type: one enumeration serves both widths
    /// (paths come cheapest first, so the narrower set is a prefix of the wider one).
    fn path_width(&self) -> usize {
        self.path_choices.max(self.main_path_choices).max(1)
    }

    /// Check the ranges that would make slices meaningless.
    pub fn validate(&self) -> Result<(), SliceError> {
        let share = |name: &'static str, v: f32| {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(SliceError::Knob(name, format!("{v} is not in [0, 1]")))
            }
        };
        share("typeBlend", self.type_blend)?;
        share("childBlend", self.child_blend)?;
        share("linkBlend", self.link_blend)?;
        share("valueFloor", self.value_floor)?;
        if !(self.first_fill.is_finite() && self.first_fill > 0.0 && self.first_fill <= 1.0) {
            return Err(SliceError::Knob(
                "firstFill",
                format!("{} is not in (0, 1]", self.first_fill),
            ));
        }
        if !self.generic_hop_penalty.is_finite() || self.generic_hop_penalty < 0.0 {
            return Err(SliceError::Knob(
                "genericHopPenalty",
                format!("{} is not a number ≥ 0", self.generic_hop_penalty),
            ));
        }
        Ok(())
    }
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            pool_k: 300,
            type_k: 8,
            type_blend: 0.35,
            value_floor: 0.05,
            path_choices: 5,
            max_depth: 6,
            root_entries: true,
            default_tokens: 8500,
            enum_small: 8,
            paths_per_type: 1,
            child_blend: 0.2,
            max_child_types: 10,
            small_type_fields: 5,
            root_entries_per_type: 5,
            link_blend: 0.6,
            link_types: 20,
            generic_hop_penalty: 1.0,
            main_types: 3,
            main_paths: 2,
            main_path_choices: 12,
            full_signature_k: 5,
            first_fill: 0.97,
        }
    }
}

/// What to slice and how.
#[derive(Debug, Clone, Default)]
pub struct SliceOptions {
    /// Token budget in `encoding`; `None` lets the slicer pick a size.
    pub budget: Option<usize>,
    /// Encoding of the budget and of the reported token count.
    pub encoding: Encoding,
    /// Writing style.
    pub style: Style,
    /// Define every named type (stubs where needed) so the slice validates as a schema.
    pub closed: bool,
    /// Coordinates that must be in the slice (`Type.field`, `Type.field(arg:)`, `Type`);
    /// these may name Mutation fields.
    pub seeds: Vec<String>,
    /// Selection knobs.
    pub knobs: Knobs,
}

/// A slice.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Slice {
    /// The SDL text.
    pub sdl: String,
    /// Tokens of `sdl` in `encoding`.
    pub tokens: usize,
    /// The encoding of `tokens` (and of the budget).
    pub encoding: Encoding,
    /// Writing style.
    pub style: Style,
    /// Whether every named type is defined.
    pub closed: bool,
    /// The budget asked for, if any.
    pub budget: Option<usize>,
    /// The size the slicer aimed at without a budget (estimated tokens), if no budget.
    pub auto_size: Option<usize>,
    /// Rendered field, argument and input-field coordinates.
    pub coordinates: Vec<String>,
    /// Number of type definitions.
    pub types: usize,
    /// Types named but not defined (default mode; also in the last `# not shown` line
    /// when it fits the budget).
    pub not_shown: Vec<String>,
    /// Wanted coordinates that the budget left out, best first.
    pub left_out: Vec<String>,
    /// The budget did not admit even one complete root path.
    pub partial: bool,
    /// The selected fields (for re-rendering in another style).
    #[serde(skip)]
    pub selection: Selection,
    /// The question's terms (for re-rendering).
    #[serde(skip)]
    pub relevance: Relevance,
}

/// A slicer over one schema: the corpus and the ranker, indexed once.
pub struct Slicer {
    graph: Arc<SchemaGraph>,
    corpus: Arc<Corpus>,
    backend: Arc<dyn SearchBackend>,
    /// per corpus doc: estimated bare line cost without arguments.
    base_cost: Vec<f32>,
    /// coordinate -> doc
    doc_of: HashMap<String, usize>,
    /// type -> docs of its fields
    fields_of_type: HashMap<String, Vec<usize>>,
    /// connection or edge type -> the wrapper docs a field returning it brings along
    conn_memo: HashMap<String, Vec<usize>>,
    /// small object/interface type -> its leaf (scalar/enum) field docs
    leaf_memo: HashMap<String, Vec<usize>>,
    /// type -> query-root fields returning it or a connection of it
    root_entries_of: HashMap<String, Vec<usize>>,
    /// per doc: the composite types its field leads to (the return type, a connection's
    /// node type, the members of a small interface or union)
    family: Vec<Vec<String>>,
    /// per doc: the field returns an interface or union standing for many types
    generic_hop: Vec<bool>,
    /// o200k_base and cl100k_base meters that remember line counts across slices
    meters: [CachedMeter; 2],
    /// (type, choices, depth) -> candidate root paths as docs
    path_docs_memo: PathDocsMemo,
    /// per doc: the index of its owner type
    owner_id: Vec<usize>,
    /// number of owner types
    n_types: usize,
    /// Every schema name split into its matching terms, once.
    names: NameTerms,
}

type PathDocsMemo = std::sync::Mutex<HashMap<(String, usize, usize), Arc<Vec<(bool, Vec<usize>)>>>>;

/// Interfaces and unions with at most this many possible types count as leading to each
/// of them (`GitObject` → Commit, Tree, Blob, Tag); larger ones are the schema graph's
/// generic lookups (`Node`), which lead nowhere in particular.
const SMALL_ABSTRACT: usize = gqlnav_schema::graph::GENERIC_ABSTRACT;

/// Estimated tokens a field saves in the dense style (no line break, no two-space indent:
/// about 1.4 tokens per field on the WG schemas' slices; the first pick's fill depends on it).
const DENSE_FIELD_SAVING: f32 = 1.4;

fn est(chars: usize) -> f32 {
    chars as f32 / 3.6
}

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
struct Picked {
    sel: Selection,
    chosen: Vec<bool>,
    type_on: Vec<bool>,
}

/// Seed fields (docs), seed types, forced arguments.
type ParsedSeeds = (Vec<usize>, Vec<String>, Vec<(String, String, String)>);

/// Per-question selection state.
struct Ctx<'a> {
    pr: Pruner<'a>,
    value: HashMap<usize, f32>,
    path_cache: HashMap<String, std::rc::Rc<[usize]>>,
    pkg_cache: HashMap<usize, std::rc::Rc<Vec<usize>>>,
    /// The most relevant types (more paths from the root).
    main_types: Vec<String>,
    arg_cost: HashMap<usize, f32>,
    style: Style,
}

impl Slicer {
    /// Index a schema (corpus of fields, structure ranker).
    pub fn new(graph: Arc<SchemaGraph>) -> Result<Self, SliceError> {
        Self::with_backend(
            graph,
            Box::new(StructureBackend::new(StructureWeights::default())),
            Rendering::DotPlusGloss,
        )
    }

    /// Index a schema with another ranker (for instance a hybrid of the structure ranker
    /// and a local embedding model) over the corpus in `rendering`.
    pub fn with_backend(
        graph: Arc<SchemaGraph>,
        mut backend: Box<dyn SearchBackend>,
        rendering: Rendering,
    ) -> Result<Self, SliceError> {
        let corpus = Arc::new(Corpus::build(&graph, CorpusOptions::default()));
        let meter = TokenMeter::new(Encoding::O200kBase);
        let rendered = Arc::new(corpus.render(rendering, &meter));
        let ctx = SearchContext::new(graph.clone(), corpus.clone(), rendered);
        backend.index(&ctx)?;
        Self::from_index(ctx, Arc::from(backend))
    }

    /// A slicer over an already indexed ranker and its context (shared with search, so a
    /// server builds the corpus and the index once).
    pub fn from_index(
        ctx: SearchContext,
        backend: Arc<dyn SearchBackend>,
    ) -> Result<Self, SliceError> {
        let graph = ctx.graph.clone();
        let corpus = ctx.corpus.clone();
        let names = NameTerms::new(&graph);
        let mut doc_of = HashMap::default();
        let mut fields_of_type: HashMap<String, Vec<usize>> = HashMap::default();
        let mut base_cost = Vec::with_capacity(corpus.len());
        for (i, e) in corpus.entries.iter().enumerate() {
            doc_of.insert(e.coordinate.clone(), i);
            fields_of_type.entry(e.owner.clone()).or_default().push(i);
            base_cost.push(est(e.name.len() + e.return_type.len() + 5));
        }
        let mut slicer = Slicer {
            graph,
            corpus,
            backend,
            base_cost,
            doc_of,
            fields_of_type,
            conn_memo: HashMap::default(),
            leaf_memo: HashMap::default(),
            root_entries_of: HashMap::default(),
            family: Vec::new(),
            generic_hop: Vec::new(),
            meters: [
                CachedMeter::new(Encoding::O200kBase),
                CachedMeter::new(Encoding::Cl100kBase),
            ],
            path_docs_memo: Default::default(),
            owner_id: Vec::new(),
            n_types: 0,
            names,
        };
        let mut ids: HashMap<&str, usize> = HashMap::default();
        let owner_id: Vec<usize> = slicer
            .corpus
            .entries
            .iter()
            .map(|e| {
                let n = ids.len();
                *ids.entry(e.owner.as_str()).or_insert(n)
            })
            .collect();
        slicer.n_types = ids.len();
        slicer.owner_id = owner_id;
        let mut memo = HashMap::default();
        for t in slicer.fields_of_type.keys() {
            let c = slicer.compute_conn_docs(t);
            if !c.is_empty() {
                memo.insert(t.clone(), c);
            }
        }
        slicer.conn_memo = memo;
        let mut leaves = HashMap::default();
        for (t, docs) in &slicer.fields_of_type {
            if slicer.conn_memo.contains_key(t) {
                continue;
            }
            let l: Vec<usize> = docs
                .iter()
                .copied()
                .filter(|&d| {
                    let nt = slicer.corpus.entries[d].named_type.as_str();
                    !slicer.fields_of_type.contains_key(nt)
                        && !matches!(
                            slicer.graph.schema.types.get(nt),
                            Some(ExtendedType::Union(_))
                        )
                })
                .collect();
            leaves.insert(t.clone(), l);
        }
        slicer.leaf_memo = leaves;
        let mut roots: HashMap<String, Vec<usize>> = HashMap::default();
        if let Some(q) = slicer.graph.root(RootKind::Query) {
            for &d in slicer
                .fields_of_type
                .get(q)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let nt = &slicer.corpus.entries[d].named_type;
                let fam = unwrap_connection(&slicer.graph, nt).unwrap_or_else(|| nt.clone());
                if fam != q {
                    roots.entry(fam).or_default().push(d);
                }
            }
        }
        slicer.root_entries_of = roots;
        let family: Vec<Vec<String>> = slicer
            .corpus
            .entries
            .iter()
            .map(|e| {
                let mut f = Vec::new();
                let nt = e.named_type.clone();
                let node = unwrap_connection(&slicer.graph, &nt).unwrap_or_else(|| nt.clone());
                for t in [nt, node] {
                    let possible = slicer.graph.possible_types(&t);
                    if possible.len() <= SMALL_ABSTRACT {
                        f.extend(possible);
                    }
                    if !f.contains(&t) {
                        f.push(t);
                    }
                }
                f
            })
            .collect();
        slicer.generic_hop = slicer
            .corpus
            .entries
            .iter()
            .map(|e| slicer.graph.possible_types(&e.named_type).len() > SMALL_ABSTRACT)
            .collect();
        slicer.family = family;
        Ok(slicer)
    }

    /// Compute and remember the candidate root paths of every type (what the first
    /// questions would otherwise pay for), using `threads` threads. Slices do not
    /// change; only their latency does.
    pub fn warm(&self, knobs: &Knobs, threads: usize) {
        let types: Vec<&String> = self.fields_of_type.keys().collect();
        let threads = threads.max(1);
        let chunk = types.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for part in types.chunks(chunk) {
                s.spawn(move || {
                    for t in part {
                        if self.graph.root_kind(t).is_none() {
                            self.path_docs(t, knobs.path_width(), knobs.max_depth);
                        }
                    }
                });
            }
        });
        for m in &self.meters {
            m.count("type Query {\n");
        }
    }

    /// The (line-caching) token meter of an encoding.
    fn meter(&self, e: Encoding) -> &CachedMeter {
        match e {
            Encoding::O200kBase => &self.meters[0],
            Encoding::Cl100kBase => &self.meters[1],
        }
    }

    /// The schema graph.
    pub fn graph(&self) -> &Arc<SchemaGraph> {
        &self.graph
    }

    fn is_excluded_root(&self, ty: &str) -> bool {
        // Types reachable only through Mutation (payloads) are as good as Mutation.
        if self.graph.root_kind(ty).is_none() && self.graph.depth(ty).is_none() {
            return true;
        }
        matches!(
            self.graph.root_kind(ty),
            Some(RootKind::Mutation) | Some(RootKind::Subscription)
        )
    }

    /// Estimated cost of one field line (with its kept arguments) in a style.
    fn cost(&self, cx: &mut Ctx<'_>, doc: usize) -> f32 {
        if let Some(c) = cx.arg_cost.get(&doc) {
            return *c;
        }
        let e = &self.corpus.entries[doc];
        let mut c = self.base_cost[doc];
        if cx.style == Style::Dense {
            c -= DENSE_FIELD_SAVING;
        }
        let field = self
            .graph
            .schema
            .types
            .get(e.owner.as_str())
            .and_then(|t| match t {
                ExtendedType::Object(o) => o.fields.get(e.name.as_str()).map(|f| &f.node),
                ExtendedType::Interface(o) => o.fields.get(e.name.as_str()).map(|f| &f.node),
                _ => None,
            });
        if let Some(f) = field {
            for a in &f.arguments {
                if cx.pr.keep_arg_of(f, a) {
                    c += est(a.name.len() + a.ty.to_string().len() + 2);
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

    /// Connection wrapper docs for a field returning a connection or edge: `nodes` and
    /// `totalCount`; `edges` and `Edge.node` only when there is no `nodes` field or the
    /// edge carries data of its own (`StarredRepositoryEdge.starredAt`), and then those
    /// fields too (not `cursor`: `pageInfo` pages as well).
    fn conn_docs(&self, named: &str) -> &[usize] {
        self.conn_memo.get(named).map(Vec::as_slice).unwrap_or(&[])
    }

    fn compute_conn_docs(&self, named: &str) -> Vec<usize> {
        let mut out = Vec::new();
        if unwrap_connection(&self.graph, named).is_none() {
            return out;
        }
        let nodes = self.doc_of.get(&format!("{named}.nodes")).copied();
        out.extend(nodes);
        out.extend(self.doc_of.get(&format!("{named}.node")).copied());
        out.extend(self.doc_of.get(&format!("{named}.totalCount")).copied());
        if let Some(&ed) = self.doc_of.get(&format!("{named}.edges")) {
            let edge = &self.corpus.entries[ed].named_type;
            let extra: Vec<usize> = self
                .fields_of_type
                .get(edge)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .copied()
                .filter(|&d| !matches!(self.corpus.entries[d].name.as_str(), "node" | "cursor"))
                .collect();
            if nodes.is_none() || !extra.is_empty() {
                out.push(ed);
                out.extend(self.doc_of.get(&format!("{edge}.node")).copied());
                out.extend(extra);
            }
        }
        out
    }

    /// Candidate paths from the query root (or else subscription root) to `ty`, as docs,
    /// remembered across questions (they do not depend on the question).
    fn path_docs(&self, ty: &str, choices: usize, depth: usize) -> Arc<Vec<(bool, Vec<usize>)>> {
        let key = (ty.to_string(), choices, depth);
        if let Some(p) = self
            .path_docs_memo
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return p;
        }
        let q_root = self.graph.root(RootKind::Query).unwrap_or("Query");
        let paths = self.graph.paths_to_type(
            ty,
            None,
            PathOptions {
                max_paths: choices,
                max_depth: depth,
                include_mutation: false,
            },
        );
        let mut out = Vec::with_capacity(paths.len());
        for p in paths {
            let docs: Vec<usize> = p
                .iter()
                .filter_map(|c| self.doc_of.get(c).copied())
                .collect();
            if docs.len() != p.len() {
                continue;
            }
            let from_query = p
                .first()
                .is_some_and(|c| c.split('.').next() == Some(q_root));
            out.push((from_query, docs));
        }
        let out = Arc::new(out);
        if let Ok(mut m) = self.path_docs_memo.lock() {
            m.insert(key, out.clone());
        }
        out
    }

    /// The most relevant query path to type `ty` (docs, root first), cached.
    fn path(&self, cx: &mut Ctx<'_>, ty: &str, knobs: &Knobs) -> std::rc::Rc<[usize]> {
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
        let out: std::rc::Rc<[usize]> = out.into();
        cx.path_cache.insert(ty.to_string(), out.clone());
        out
    }

    /// The package of a candidate: itself, its path, connection wrappers on the way.
    fn package(&self, cx: &mut Ctx<'_>, doc: usize, knobs: &Knobs) -> std::rc::Rc<Vec<usize>> {
        if let Some(p) = cx.pkg_cache.get(&doc) {
            return p.clone();
        }
        let e = &self.corpus.entries[doc];
        let mut out = vec![doc];
        out.extend_from_slice(&self.path(cx, &e.owner, knobs));
        // Query-root entry fields of each type the package touches (the type itself, or
        // a connection of it), the most relevant first.
        if knobs.root_entries_per_type > 0 {
            let mut owners: Vec<&str> = Vec::new();
            for &d in &out {
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
        let out = uniq;
        let out = std::rc::Rc::new(out);
        cx.pkg_cache.insert(doc, out.clone());
        out
    }

    fn package_cost(&self, cx: &mut Ctx<'_>, pkg: &[usize], sel: &Picked) -> f32 {
        let mut c = 0.0;
        let mut new_types: Vec<usize> = Vec::new();
        for &d in pkg {
            if sel.chosen[d] {
                continue;
            }
            c += self.cost(cx, d);
            let o = self.owner_id[d];
            if !sel.type_on[o] && !new_types.contains(&o) {
                new_types.push(o);
                c += est(self.corpus.entries[d].owner.len() + 12);
            }
        }
        c
    }

    fn add(&self, sel: &mut Picked, pkg: &[usize]) {
        for &d in pkg {
            if !sel.chosen[d] {
                sel.chosen[d] = true;
                sel.type_on[self.owner_id[d]] = true;
                let e = &self.corpus.entries[d];
                sel.sel.insert(&e.owner, &e.name);
            }
        }
    }

    fn add_sel(&self, sel: &mut Selection, pkg: &[usize]) {
        for &d in pkg {
            let e = &self.corpus.entries[d];
            sel.insert(&e.owner, &e.name);
        }
    }

    /// Greedy pick within `target` estimated tokens. Returns the selection, the
    /// candidates that did not fit (best first) and the best package if none fitted.
    fn pick(
        &self,
        cx: &mut Ctx<'_>,
        cands: &[(usize, f32)],
        forced: &[usize],
        target: f32,
        knobs: &Knobs,
    ) -> (Selection, Vec<usize>, Option<Vec<usize>>) {
        let mut sel = Picked {
            sel: Selection::default(),
            chosen: vec![false; self.corpus.len()],
            type_on: vec![false; self.n_types],
        };
        let mut spent = 0.0f32;
        let mut left = Vec::new();
        let mut first_unfit = None;
        for &d in forced {
            let pkg = self.package(cx, d, knobs);
            let c = self.package_cost(cx, &pkg, &sel);
            if spent + c <= target {
                spent += c;
                self.add(&mut sel, &pkg);
            } else {
                left.push(d);
                if sel.sel.len == 0 && first_unfit.is_none() {
                    first_unfit = Some(pkg.to_vec());
                }
            }
        }
        let mut heap: BinaryHeap<Cand> = BinaryHeap::new();
        let mut val: HashMap<usize, f32> = HashMap::default();
        let mut expanded: HashSet<String> = HashSet::default();
        for &(d, v) in cands {
            val.insert(d, v);
            let pkg = self.package(cx, d, knobs);
            let c = self.package_cost(cx, &pkg, &sel).max(0.5);
            heap.push(Cand(v / c, d));
        }
        while let Some(Cand(r, d)) = heap.pop() {
            if sel.chosen[d] {
                continue;
            }
            let pkg = self.package(cx, d, knobs);
            let c = self.package_cost(cx, &pkg, &sel);
            let v = val[&d];
            let nr = v / c.max(0.5);
            if nr < r * 0.999 {
                if let Some(top) = heap.peek() {
                    if nr < top.0 {
                        heap.push(Cand(nr, d));
                        continue;
                    }
                }
            }
            if spent + c <= target {
                spent += c;
                self.add(&mut sel, &pkg);
                // Expand the pool into the type the field returns (and its connection
                // and edge types).
                if knobs.child_blend > 0.0 && expanded.len() < knobs.max_child_types {
                    let nt = self.corpus.entries[d].named_type.clone();
                    let mut tys = vec![nt.clone()];
                    if let Some(n) = unwrap_connection(&self.graph, &nt) {
                        tys.push(n);
                        if let Some(&ed) = self.doc_of.get(&format!("{nt}.edges")) {
                            tys.push(self.corpus.entries[ed].named_type.clone());
                        }
                    }
                    let cv = knobs.child_blend * v;
                    for t in tys {
                        if self.is_excluded_root(&t) || !expanded.insert(t.clone()) {
                            continue;
                        }
                        for &f in self
                            .fields_of_type
                            .get(&t)
                            .map(Vec::as_slice)
                            .unwrap_or(&[])
                        {
                            if cv >= knobs.value_floor && val.get(&f).is_none_or(|x| *x < cv) {
                                val.insert(f, cv);
                                let fp = self.package(cx, f, knobs);
                                let fc = self.package_cost(cx, &fp, &sel).max(0.5);
                                heap.push(Cand(cv / fc, f));
                            }
                        }
                    }
                }
            } else {
                left.push(d);
                if sel.sel.len == 0 && first_unfit.is_none() {
                    first_unfit = Some(pkg.to_vec());
                }
            }
        }
        // Root entries whose return-type family meets the selected types.
        if knobs.root_entries {
            if let Some(q) = self.graph.root(RootKind::Query) {
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
                    let node = unwrap_connection(&self.graph, nt);
                    let hit =
                        owners.contains(nt) || node.as_ref().is_some_and(|n| owners.contains(n));
                    if hit {
                        entries.push((cx.value.get(&d).copied().unwrap_or(0.0), d));
                    }
                }
                entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                for (_, d) in entries {
                    let mut pkg = vec![d];
                    pkg.extend_from_slice(self.conn_docs(&self.corpus.entries[d].named_type));
                    let c = self.package_cost(cx, &pkg, &sel);
                    if spent + c <= target {
                        spent += c;
                        self.add(&mut sel, &pkg);
                    }
                }
            }
        }
        let _ = spent;
        (sel.sel, left, first_unfit)
    }

    fn parse_seeds(&self, seeds: &[String]) -> Result<ParsedSeeds, SliceError> {
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
                    let hint = self.graph.suggest(s, 3).join(", ");
                    return Err(SliceError::Seed(
                        s.to_string(),
                        format!("no such field (did you mean: {hint})"),
                    ));
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

    /// Build the slice of a question.
    pub fn slice(
        &self,
        question: &str,
        sub_queries: &[String],
        opts: &SliceOptions,
    ) -> Result<Slice, SliceError> {
        let knobs = &opts.knobs;
        knobs.validate()?;
        let (seed_fields, seed_types, seed_args) = self.parse_seeds(&opts.seeds)?;
        let rel = Relevance::new(question, sub_queries);
        let pr = Pruner::with_names(&self.graph, &rel, &self.names);
        let mut cx = Ctx {
            pr,
            value: HashMap::default(),
            path_cache: HashMap::default(),
            pkg_cache: HashMap::default(),
            main_types: Vec::new(),
            arg_cost: HashMap::default(),
            style: opts.style,
        };
        // 1. rank
        let q = Query {
            text: question.to_string(),
            sub_queries: sub_queries.to_vec(),
        };
        let hits = if question.trim().is_empty() && sub_queries.is_empty() {
            Vec::new()
        } else {
            self.backend.search(&q, knobs.pool_k)?
        };
        let top = hits.first().map(|h| h.score).unwrap_or(0.0);
        let mut type_rel: HashMap<String, f32> = HashMap::default();
        for h in &hits {
            let e = &self.corpus.entries[h.doc];
            if self.is_excluded_root(&e.owner) {
                continue;
            }
            let s = if top > 0.0 { h.score / top } else { 0.0 };
            cx.value.insert(h.doc, s);
            let t = type_rel.entry(e.owner.clone()).or_insert(0.0);
            *t = t.max(s);
            let node = unwrap_connection(&self.graph, &e.named_type)
                .unwrap_or_else(|| e.named_type.clone());
            if self.fields_of_type.contains_key(&node) {
                let t = type_rel.entry(node).or_insert(0.0);
                *t = t.max(0.8 * s);
            }
        }
        for t in &seed_types {
            type_rel.insert(t.clone(), 1.0);
        }
        // 2. expand the top types
        let q_root = self.graph.root(RootKind::Query).unwrap_or("Query");
        let mut tr: Vec<(&String, f32)> = type_rel
            .iter()
            .filter(|(t, _)| {
                t.as_str() != q_root
                    && !self.is_excluded_root(t)
                    && unwrap_connection(&self.graph, t).is_none()
            })
            .map(|(t, v)| (t, *v))
            .collect();
        tr.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
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
                let e = cx.value.entry(d).or_insert(0.0);
                *e = e.max(knobs.type_blend * v);
            }
        }
        // Links: a field of a relevant type that leads to another relevant type (directly,
        // through a connection, or through a small interface or union) is how the two are
        // read together (`Organization.repositories`, `Ref.target` → Commit).
        if knobs.link_blend > 0.0 {
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
        let mut cands: Vec<(usize, f32)> = cx
            .value
            .iter()
            .filter(|(_, v)| **v >= knobs.value_floor)
            .map(|(d, v)| (*d, *v))
            .collect();
        cands.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let ropts = RenderOptions {
            style: opts.style,
            closed: opts.closed,
            enum_small: knobs.enum_small,
        };
        let meter = self.meter(opts.encoding);
        let mut target = opts
            .budget
            .map(|b| b as f32 * knobs.first_fill)
            .unwrap_or(knobs.default_tokens as f32);
        // The fields the question is most about keep their whole signature: an optional
        // argument (`since`, `query`, `isFork`) is how such a field is narrowed.
        let mut top_args = Vec::new();
        for h in hits.iter().take(knobs.full_signature_k) {
            let e = &self.corpus.entries[h.doc];
            for a in &e.args {
                top_args.push((e.owner.clone(), e.name.clone(), a.name.clone()));
            }
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let (mut sel, left, unfit) = self.pick(&mut cx, &cands, &seed_fields, target, knobs);
            for a in seed_args.iter().chain(&top_args) {
                sel.forced_args.insert(a.clone());
            }
            let r = render(&self.graph, &sel, &cx.pr, ropts);
            let body_tokens = meter.count(&r.body);
            let fits = opts.budget.is_none_or(|b| body_tokens <= b);
            if fits || tries >= 8 {
                let (mut sel, mut r, mut left, mut partial) = (sel, r, left, false);
                let mut known = Some(body_tokens);
                if !fits {
                    known = None;
                    sel = Selection::default();
                    r = render(&self.graph, &sel, &cx.pr, ropts);
                }
                if sel.len == 0 {
                    if let (Some(b), Some(pkg)) = (
                        opts.budget,
                        unfit.or_else(|| {
                            cands
                                .first()
                                .map(|(d, _)| self.package(&mut cx, *d, knobs).to_vec())
                        }),
                    ) {
                        // Best partial: the package's coordinates, leaf first, while they fit.
                        partial = true;
                        known = None;
                        let mut order = vec![pkg[0]];
                        order.extend(pkg[1..].iter().rev());
                        let mut missing = Vec::new();
                        for d in order {
                            let mut s2 = sel.clone();
                            self.add_sel(&mut s2, &[d]);
                            let r2 = render(&self.graph, &s2, &cx.pr, ropts);
                            if meter.count(&r2.body) <= b {
                                sel = s2;
                                r = r2;
                            } else {
                                missing.push(d);
                            }
                        }
                        left = missing.into_iter().chain(left).collect();
                    }
                }
                return Ok(self.finish(r, sel, left, partial, rel.clone(), opts, meter, known));
            }
            target *= (opts.budget.unwrap_or(1) as f32 / body_tokens as f32).min(0.97) * 0.97;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        r: Rendered,
        sel: Selection,
        left: Vec<usize>,
        partial: bool,
        rel: Relevance,
        opts: &SliceOptions,
        meter: &CachedMeter,
        body_tokens: Option<usize>,
    ) -> Slice {
        let mut sdl = r.body.clone();
        let mut tokens = body_tokens.unwrap_or_else(|| meter.count(&sdl));
        if !opts.closed && !r.not_shown.is_empty() {
            let line = format!(
                "{}# not shown: {}\n",
                if sdl.is_empty() { "" } else { "\n" },
                r.not_shown.join(", ")
            );
            let with_tokens = meter.count_appended(&sdl, tokens, &line);
            if opts.budget.is_none_or(|b| with_tokens <= b) {
                sdl.push_str(&line);
                tokens = with_tokens;
            }
        }
        let mut partial = partial;
        let mut sel = sel;
        let mut r = r;
        if opts.budget.is_some_and(|b| tokens > b) {
            // Even the smallest well-formed slice (closed form: a query-root stub) is over
            // the budget: return nothing rather than exceed it.
            sdl.clear();
            tokens = 0;
            partial = true;
            sel = Selection::default();
            r.coordinates.clear();
            r.types = 0;
        }
        let mut seen = HashSet::default();
        let left_out: Vec<String> = left
            .iter()
            .map(|d| self.corpus.entries[*d].coordinate.clone())
            .filter(|c| seen.insert(c.clone()))
            .take(25)
            .collect();
        Slice {
            sdl,
            tokens,
            encoding: opts.encoding,
            style: opts.style,
            closed: opts.closed,
            budget: opts.budget,
            auto_size: if opts.budget.is_none() {
                Some(opts.knobs.default_tokens)
            } else {
                None
            },
            coordinates: r.coordinates,
            types: r.types,
            not_shown: r.not_shown,
            left_out,
            partial,
            selection: sel,
            relevance: rel,
        }
    }

    /// Render a slice's selection in another style (or open/closed form) and count its
    /// tokens in `encoding`. The budget applies to the style the slice was built in only.
    pub fn rerender(
        &self,
        slice: &Slice,
        style: Style,
        closed: bool,
        encoding: Encoding,
    ) -> (String, usize) {
        let pr = Pruner::with_names(&self.graph, &slice.relevance, &self.names);
        let r = render(
            &self.graph,
            &slice.selection,
            &pr,
            RenderOptions {
                style,
                closed,
                enum_small: Knobs::default().enum_small,
            },
        );
        let mut sdl = r.body;
        if !closed && !r.not_shown.is_empty() {
            if !sdl.is_empty() {
                sdl.push('\n');
            }
            sdl.push_str(&format!("# not shown: {}\n", r.not_shown.join(", ")));
        }
        let t = self.meter(encoding).count(&sdl);
        (sdl, t)
    }
}
