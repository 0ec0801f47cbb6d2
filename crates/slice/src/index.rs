//! The slicer's index of one schema: the corpus, the ranker, and everything about the
//! schema that does not depend on the question (built once, in [`Slicer::from_index`]).

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use gqlnav_corpus::{
    CachedMeter, Corpus, Encoding, EntryKind, RenderedCorpus, Rendering, TokenMeter,
};
use gqlnav_schema::apollo_compiler::ast::FieldDefinition;
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::apollo_compiler::Node;
use gqlnav_schema::{LabelRule, RootKind, SchemaGraph, Wrapper};
use gqlnav_search::{SearchBackend, SearchContext, StructureBackend, StructureWeights};

use crate::options::Knobs;
use crate::package::est;
use crate::paths::PathDocsMemo;
use crate::relevance::NameTerms;
use crate::SliceError;

/// Interfaces and unions with at most this many possible types count as leading to each
/// of them (`GitObject` → Commit, Tree, Blob, Tag); larger ones are the schema graph's
/// generic lookups (`Node`), which lead nowhere in particular.
const SMALL_ABSTRACT: usize = gqlnav_schema::GENERIC_ABSTRACT;

/// A field's definition and the estimated tokens of each of its arguments.
pub(crate) type FieldDef = (Node<FieldDefinition>, Box<[f32]>);

/// A slicer over one schema: the corpus and the ranker, indexed once.
pub struct Slicer {
    pub(crate) graph: Arc<SchemaGraph>,
    pub(crate) corpus: Arc<Corpus>,
    /// The rendering the backend indexed (kept to hand the context out again).
    rendered: Arc<RenderedCorpus>,
    pub(crate) backend: Arc<dyn SearchBackend>,
    /// per corpus doc: estimated bare line cost without arguments.
    pub(crate) base_cost: Vec<f32>,
    /// coordinate -> doc
    pub(crate) doc_of: HashMap<String, usize>,
    /// type -> docs of its fields
    pub(crate) fields_of_type: HashMap<String, Vec<usize>>,
    /// connection or edge type -> the wrapper docs a field returning it brings along
    pub(crate) conn_memo: HashMap<String, Vec<usize>>,
    /// small object/interface type -> its leaf (scalar/enum) field docs
    pub(crate) leaf_memo: HashMap<String, Vec<usize>>,
    /// type -> query-root fields returning it or a connection of it
    pub(crate) root_entries_of: HashMap<String, Vec<usize>>,
    /// per doc: the composite types its field leads to (the return type, a connection's
    /// node type, the members of a small interface or union)
    pub(crate) family: Vec<Vec<String>>,
    /// per doc: the field returns an interface or union standing for many types
    pub(crate) generic_hop: Vec<bool>,
    /// per doc: a *label* field ([`LabelRule::Record`]), which `label_blend` values
    pub(crate) label: Vec<bool>,
    /// o200k_base and cl100k_base meters that remember line counts across slices
    meters: [CachedMeter; 2],
    /// (type, choices, depth) -> candidate root paths as docs
    pub(crate) path_docs_memo: PathDocsMemo,
    /// per doc: its field definition and the estimated tokens of each argument (name and
    /// type), looked up once rather than on every cost estimate
    pub(crate) field_def: Vec<Option<FieldDef>>,
    /// per doc: the index of its owner type
    pub(crate) owner_id: Vec<usize>,
    /// number of owner types
    pub(crate) n_types: usize,
    /// Every schema name split into its matching terms, once.
    pub(crate) names: NameTerms,
    /// The Swan baseline's index, built on its first use ([`Slicer::swan`]).
    pub(crate) swan: std::sync::OnceLock<gqlnav_search::SwanBackend>,
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
        let ctx = Self::index_context(graph, rendering);
        backend.index(&ctx)?;
        Self::from_index(ctx, Arc::from(backend))
    }

    /// The search context [`Slicer::new`] and [`Slicer::with_backend`] index: the field
    /// corpus ([`gqlnav_corpus::CorpusOptions::default`]) in `rendering`, its tokens counted in
    /// o200k_base. [`Slicer::new`] uses [`Rendering::DotPlusGloss`].
    pub fn index_context(graph: Arc<SchemaGraph>, rendering: Rendering) -> SearchContext {
        SearchContext::fields(graph, rendering, &TokenMeter::new(Encoding::O200kBase))
    }

    /// A slicer over a ranker that is already indexed over `ctx`, so that a server can
    /// build the corpus and the ranker once and give the same ranker to search and to
    /// the slicer. The corpus must hold fields only (as [`Slicer::index_context`] builds
    /// it); with the structure ranker over [`Slicer::index_context`]`(graph,
    /// Rendering::DotPlusGloss)` the slices are those of [`Slicer::new`].
    pub fn from_index(
        ctx: SearchContext,
        backend: Arc<dyn SearchBackend>,
    ) -> Result<Self, SliceError> {
        if let Some(e) = ctx
            .corpus
            .entries
            .iter()
            .find(|e| e.kind != EntryKind::Field)
        {
            return Err(SliceError::Corpus(format!(
                "entry {} is a {:?}, but the slicer ranks fields only: build the corpus \
                 with CorpusOptions::default() (or Slicer::index_context)",
                e.coordinate, e.kind
            )));
        }
        let SearchContext {
            graph,
            corpus,
            rendered,
        } = ctx;
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
            rendered,
            backend,
            base_cost,
            doc_of,
            fields_of_type,
            conn_memo: HashMap::default(),
            leaf_memo: HashMap::default(),
            root_entries_of: HashMap::default(),
            family: Vec::new(),
            generic_hop: Vec::new(),
            label: Vec::new(),
            meters: [
                CachedMeter::new(Encoding::O200kBase),
                CachedMeter::new(Encoding::Cl100kBase),
            ],
            path_docs_memo: Default::default(),
            owner_id: Vec::new(),
            field_def: Vec::new(),
            n_types: 0,
            names,
            swan: Default::default(),
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
        slicer.field_def = slicer
            .corpus
            .entries
            .iter()
            .map(|e| {
                let f = match slicer.graph.schema.types.get(e.owner.as_str())? {
                    ExtendedType::Object(o) => o.fields.get(e.name.as_str())?,
                    ExtendedType::Interface(o) => o.fields.get(e.name.as_str())?,
                    _ => return None,
                };
                let arg_est = f
                    .arguments
                    .iter()
                    .map(|a| est(a.name.len() + a.ty.to_string().len() + 2))
                    .collect();
                Some((f.node.clone(), arg_est))
            })
            .collect();
        slicer.owner_id = owner_id;
        slicer.conn_memo = slicer.build_conn_memo();
        slicer.leaf_memo = slicer.build_leaf_memo();
        slicer.root_entries_of = slicer.build_root_entries();
        slicer.family = slicer.build_family();
        slicer.generic_hop = slicer
            .corpus
            .entries
            .iter()
            .map(|e| slicer.graph.possible_types(&e.named_type).len() > SMALL_ABSTRACT)
            .collect();
        slicer.label = (0..slicer.corpus.len())
            .map(|d| slicer.is_label(d))
            .collect();
        Ok(slicer)
    }

    /// A *label* ([`LabelRule::Record`]): a field that names or states one record of its
    /// type, as `name`, `title`, `number` or `state` do.
    fn is_label(&self, d: usize) -> bool {
        let e = &self.corpus.entries[d];
        self.graph.is_label(&e.owner, &e.name, LabelRule::Record)
    }

    fn build_conn_memo(&self) -> HashMap<String, Vec<usize>> {
        let mut memo = HashMap::default();
        for t in self.fields_of_type.keys() {
            let c = self.compute_conn_docs(t);
            if !c.is_empty() {
                memo.insert(t.clone(), c);
            }
        }
        memo
    }

    /// Needs the connection memo: connections and edges have no leaves of their own.
    fn build_leaf_memo(&self) -> HashMap<String, Vec<usize>> {
        let mut leaves = HashMap::default();
        for (t, docs) in &self.fields_of_type {
            if self.conn_memo.contains_key(t) {
                continue;
            }
            let l: Vec<usize> = docs
                .iter()
                .copied()
                .filter(|&d| {
                    let nt = self.corpus.entries[d].named_type.as_str();
                    !self.fields_of_type.contains_key(nt)
                        && !matches!(
                            self.graph.schema.types.get(nt),
                            Some(ExtendedType::Union(_))
                        )
                })
                .collect();
            leaves.insert(t.clone(), l);
        }
        leaves
    }

    fn build_root_entries(&self) -> HashMap<String, Vec<usize>> {
        let mut roots: HashMap<String, Vec<usize>> = HashMap::default();
        if let Some(q) = self.graph.root(RootKind::Query) {
            for &d in self.fields_of_type.get(q).map(Vec::as_slice).unwrap_or(&[]) {
                let nt = &self.corpus.entries[d].named_type;
                let fam = self.graph.wrapped_type(nt).unwrap_or_else(|| nt.clone());
                if fam != q {
                    roots.entry(fam).or_default().push(d);
                }
            }
        }
        roots
    }

    fn build_family(&self) -> Vec<Vec<String>> {
        self.corpus
            .entries
            .iter()
            .map(|e| {
                let mut f = Vec::new();
                let nt = e.named_type.clone();
                let node = self.graph.wrapped_type(&nt).unwrap_or_else(|| nt.clone());
                for t in [nt, node] {
                    let possible = self.graph.possible_types(&t);
                    if possible.len() <= SMALL_ABSTRACT {
                        f.extend(possible);
                    }
                    if !f.contains(&t) {
                        f.push(t);
                    }
                }
                f
            })
            .collect()
    }

    /// Connection wrapper docs for a field returning a connection or edge type
    /// ([`SchemaGraph::wrapper`]): `nodes` (an edge type's `node`) and the count of all
    /// items (`totalCount`, [`gqlnav_schema::Connection::total_count`]); `edges` and `Edge.node` only
    /// when there is no `nodes` field or the edge carries data of its own
    /// (`StarredRepositoryEdge.starredAt`), and then those fields too (not `cursor`:
    /// `pageInfo` pages as well).
    fn compute_conn_docs(&self, named: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let doc = |owner: &str, field: &str| self.doc_of.get(&format!("{owner}.{field}")).copied();
        let c = match self.graph.wrapper(named) {
            Some(Wrapper::Connection(c)) => c,
            Some(Wrapper::Edge { node, .. }) => {
                out.extend(doc(named, &node));
                return out;
            }
            None => return out,
        };
        let nodes = c.nodes.as_deref().and_then(|n| doc(named, n));
        out.extend(nodes);
        out.extend(c.total_count.as_deref().and_then(|n| doc(named, n)));
        if let Some((edges, edge)) = &c.edges {
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
                out.extend(doc(named, edges));
                out.extend(doc(edge, "node"));
                out.extend(extra);
            }
        }
        out
    }

    /// Compute and remember the candidate root paths of every type (what the first
    /// questions would otherwise pay for), using `threads` threads, and load the o200k
    /// BPE ranks. Slices do not change; only their latency does.
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
        // Only the default encoding's BPE ranks: cl100k's cost ~25 MB resident and load
        // on the first slice that asks for them (a server measures in o200k only).
        self.meter(Encoding::O200kBase).count("type Query {\n");
    }

    /// The (line-caching) token meter of an encoding.
    pub(crate) fn meter(&self, e: Encoding) -> &CachedMeter {
        match e {
            Encoding::Cl100kBase => &self.meters[1],
            // A tokenizer file's meter is shared by the process (one per tokenizer).
            e @ Encoding::Tokenizer(_) => e.shared_cached_meter().unwrap_or(&self.meters[0]),
            Encoding::O200kBase => &self.meters[0],
        }
    }

    /// The schema graph.
    pub fn graph(&self) -> &Arc<SchemaGraph> {
        &self.graph
    }

    /// The indexed ranker (to answer searches with the same index the slicer uses).
    pub fn backend(&self) -> &Arc<dyn SearchBackend> {
        &self.backend
    }

    /// The search context the ranker indexed (graph, field corpus, rendering).
    pub fn search_context(&self) -> SearchContext {
        SearchContext::new(
            self.graph.clone(),
            self.corpus.clone(),
            self.rendered.clone(),
        )
    }

    pub(crate) fn is_excluded_root(&self, ty: &str) -> bool {
        // Types reachable only through Mutation (payloads) are as good as Mutation.
        if self.graph.root_kind(ty).is_none() && self.graph.depth(ty).is_none() {
            return true;
        }
        matches!(
            self.graph.root_kind(ty),
            Some(RootKind::Mutation) | Some(RootKind::Subscription)
        )
    }
}
