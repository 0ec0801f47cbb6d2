//! The structure-aware ranker: lexical evidence per entry part, type relevance, and the
//! schema graph (paths to root, connection wrappers, interfaces), fused into one score.
//!
//! Channels (each normalised to [0, 1] per query by its maximum):
//! * `name`, `desc`, `owner`, `ret`, `args`: BM25 (identifier analyzer) over the field
//!   name, its description, its owner type name, its named return type, and its
//!   argument names and descriptions — separate fields, separately weighted.
//! * `type`: BM25 over *type documents* (type name + type description); a question names
//!   types ("pull requests", "repository") before fields. A field is lifted by the
//!   relevance of its owner type, and a field returning a relevant type (through
//!   `XConnection`/`XEdge` wrappers) by that type's relevance.
//! * `path`: fields on the cheapest paths from the root to a strong hit's owner type get
//!   a share of that hit's score (a task needing `PullRequest.title` needs
//!   `Query.repository` and `Repository.pullRequests` too).
//!   Besides the cheapest paths, a type reached only through lookups by key
//!   (`Repository.pullRequest(number:)`) also lends that share to its cheapest
//!   *collection* path (`Repository.pullRequests`), the way a question about many of
//!   them goes (weight `collection`).
//! * `conn`: a strong hit returning a connection lifts the connection's `nodes`/`edges`
//!   fields and the edge's `node` field.
//! * `iface`: an interface field shares its score with the same field on implementations
//!   (and the other way round), at a discount.
//!
//! Final score = max(base, propagated) with base = Σ weight·channel, then divided by a
//! mild depth factor; mapped to [0, 1] by the best hit. Deterministic: ties by corpus order.

use std::path::Path;
use std::sync::Arc;

use gqlnav_corpus::{Corpus, EntryKind, OwnerKind};
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{PathOptions, SchemaGraph};

use crate::analyzer::Analyzer;
use crate::bm25::{Bm25Backend, Bm25Config, FieldSource};
use crate::{saved, top_k_positive, Query, Scored, SearchBackend, SearchContext, SearchError};

/// Weights of the structure-aware ranker. See `docs/ranking.md` for why each has its value.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StructureWeights {
    /// BM25 over the rendered text of the chosen rendering.
    pub text: f32,
    pub name: f32,
    pub desc: f32,
    pub owner: f32,
    pub ret: f32,
    pub args: f32,
    /// Owner-type relevance (type documents).
    pub owner_type: f32,
    /// Return-type relevance (type documents, connections unwrapped).
    pub return_type: f32,
    /// Share of a hit's score given to fields on its paths to the root.
    pub path: f32,
    /// Share given to connection/edge wrapper fields of a hit returning a connection.
    pub conn: f32,
    /// Share between interface fields and the same field on implementations.
    pub iface: f32,
    /// Depth penalty: score / (1 + depth·(owner depth − 1)).
    pub depth: f32,
    /// Share given to the fields on a hit's owner type's cheapest *collection* path, when
    /// its cheapest paths are lookups by key (0 switches it off).
    #[serde(default)]
    pub collection: f32,
    /// How many top base hits propagate along the graph.
    pub seeds: usize,
    /// Paths per seed.
    pub paths_per_seed: usize,
}

impl Default for StructureWeights {
    fn default() -> Self {
        StructureWeights {
            text: 3.0,
            name: 3.0,
            desc: 2.0,
            owner: 1.0,
            ret: 0.0,
            args: 0.3,
            owner_type: 1.5,
            return_type: 0.0,
            path: 0.8,
            conn: 0.5,
            iface: 0.7,
            depth: 0.3,
            collection: 0.8,
            seeds: 20,
            paths_per_seed: 2,
        }
    }
}

impl StructureWeights {
    /// The names of the real-valued weights, as [`StructureWeights::apply_overrides`]
    /// takes them.
    pub const WEIGHT_KEYS: [&'static str; 13] = [
        "text",
        "name",
        "desc",
        "owner",
        "ret",
        "args",
        "owner_type",
        "return_type",
        "path",
        "conn",
        "iface",
        "depth",
        "collection",
    ];

    /// The real-valued weight called `key` (one of [`StructureWeights::WEIGHT_KEYS`]).
    pub fn weight_mut(&mut self, key: &str) -> Option<&mut f32> {
        Some(match key {
            "text" => &mut self.text,
            "name" => &mut self.name,
            "desc" => &mut self.desc,
            "owner" => &mut self.owner,
            "ret" => &mut self.ret,
            "args" => &mut self.args,
            "owner_type" => &mut self.owner_type,
            "return_type" => &mut self.return_type,
            "path" => &mut self.path,
            "conn" => &mut self.conn,
            "iface" => &mut self.iface,
            "depth" => &mut self.depth,
            "collection" => &mut self.collection,
            _ => return None,
        })
    }

    /// Apply `key=value,key=value` overrides (keys are the field names).
    pub fn apply_overrides(&mut self, spec: &str) -> Result<(), SearchError> {
        for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| SearchError::Other(format!("weight `{kv}`: expected key=value")))?;
            let x: f32 = v
                .trim()
                .parse()
                .map_err(|_| SearchError::Other(format!("weight `{kv}`: `{v}` is not a number")))?;
            let k = k.trim();
            match k {
                "seeds" => self.seeds = x.max(0.0) as usize,
                "paths_per_seed" => self.paths_per_seed = x.max(0.0) as usize,
                _ => {
                    *self.weight_mut(k).ok_or_else(|| {
                        SearchError::Other(format!(
                            "unknown weight `{k}`; expected one of {}, seeds, paths_per_seed",
                            Self::WEIGHT_KEYS.join(", ")
                        ))
                    })? = x
                }
            }
        }
        Ok(())
    }
}

/// The structure-aware backend.
pub struct StructureBackend {
    pub weights: StructureWeights,
    /// Channels switched off (for ablations), by name.
    pub disabled: Vec<String>,
    fields_bm25: Option<Bm25Backend>,
    types_bm25: Option<Bm25Backend>,
    /// per doc: owner type index (into the type documents)
    owner_of: Vec<usize>,
    /// per doc: named return type index (connections/edges unwrapped to the node type)
    ret_of: Vec<Option<usize>>,
    /// per doc: owner depth from the root
    depth_of: Vec<f32>,
    /// per type: docs on its cheapest root paths (excluding the type's own fields)
    type_paths: Vec<Vec<Vec<usize>>>,
    /// per type: its cheapest collection path when its cheapest paths are lookups by
    /// key (empty otherwise); see [`collection_path`]
    coll_paths: Vec<Vec<usize>>,
    /// per doc: wrapper docs lifted when the doc returns a connection
    conn_of: Vec<Vec<usize>>,
    /// per doc: interface/implementation twins
    iface_of: Vec<Vec<usize>>,
    n: usize,
    rendering: String,
    /// The indexed context, kept so that [`SearchBackend::save`] can write the index.
    ctx: Option<SearchContext>,
}

/// The settings a saved structure index records.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedConfig {
    weights: StructureWeights,
    disabled: Vec<String>,
}

/// The per-doc and per-type links of a saved structure index.
const LINKS_FILE: &str = "structure.bin";
const LINKS_MAGIC: &[u8; 8] = b"GQLNSTR\0";
const LINKS_VERSION: u32 = 2;

impl StructureBackend {
    pub fn new(weights: StructureWeights) -> Self {
        StructureBackend {
            weights,
            disabled: Vec::new(),
            fields_bm25: None,
            types_bm25: None,
            owner_of: Vec::new(),
            ret_of: Vec::new(),
            depth_of: Vec::new(),
            type_paths: Vec::new(),
            coll_paths: Vec::new(),
            conn_of: Vec::new(),
            iface_of: Vec::new(),
            n: 0,
            rendering: String::new(),
            ctx: None,
        }
    }

    /// Switch channels off by name (`name`, `desc`, `owner`, `ret`, `args`, `type`, `path`,
    /// `conn`, `iface`, `depth`).
    pub fn without(mut self, channels: &[&str]) -> Self {
        self.disabled.extend(channels.iter().map(|s| s.to_string()));
        self
    }

    fn on(&self, ch: &str) -> bool {
        !self.disabled.iter().any(|d| d == ch)
    }
}

/// The node type behind a connection or edge type, through its real `nodes`/`node`/
/// `edges` fields.
pub fn unwrap_connection(graph: &SchemaGraph, ty: &str) -> Option<String> {
    let fields = match graph.schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => &o.fields,
        Some(ExtendedType::Interface(o)) => &o.fields,
        _ => return None,
    };
    let looks =
        ty.ends_with("Connection") || ty.ends_with("Edge") || fields.contains_key("pageInfo");
    if !looks {
        return None;
    }
    if let Some(f) = fields.get("nodes").or_else(|| fields.get("node")) {
        return Some(f.ty.inner_named_type().to_string());
    }
    if let Some(f) = fields.get("edges") {
        let edge = f.ty.inner_named_type().as_str();
        if let Some(ExtendedType::Object(e)) = graph.schema.types.get(edge) {
            if let Some(n) = e.fields.get("node") {
                return Some(n.ty.inner_named_type().to_string());
            }
        }
    }
    None
}

/// BM25 over the entry parts, one field per lexical channel.
fn fields_config(w: &StructureWeights) -> Bm25Config {
    Bm25Config {
        analyzer: Analyzer::Identifier,
        k1: 1.2,
        b: 0.75,
        fields: vec![
            (FieldSource::Text, w.text),
            (FieldSource::Name, w.name),
            (FieldSource::Description, w.desc),
            (FieldSource::Owner, w.owner),
            (FieldSource::ReturnType, w.ret),
            (FieldSource::Args, w.args),
        ],
    }
}

/// BM25 over the type documents.
fn types_config() -> Bm25Config {
    Bm25Config {
        analyzer: Analyzer::Identifier,
        k1: 1.2,
        b: 0.75,
        fields: vec![(FieldSource::Name, 2.0), (FieldSource::Description, 1.0)],
    }
}

/// Type documents: a corpus of type entries (sorted by name; coordinate = name),
/// indexed by name + description.
fn type_context(ctx: &SearchContext) -> SearchContext {
    let graph: &SchemaGraph = &ctx.graph;
    let mut type_names: Vec<&str> = graph
        .schema
        .types
        .iter()
        .filter(|(n, t)| !n.starts_with("__") && !t.is_built_in())
        .map(|(n, _)| n.as_str())
        .collect();
    type_names.sort_unstable();
    let type_entries: Vec<gqlnav_corpus::Entry> = type_names
        .iter()
        .map(|&n| {
            let desc = graph
                .schema
                .types
                .get(n)
                .and_then(|t| t.description())
                .map(|d| d.trim().to_string())
                .unwrap_or_default();
            gqlnav_corpus::Entry {
                coordinate: n.to_string(),
                kind: EntryKind::Type,
                owner: n.to_string(),
                owner_kind: OwnerKind::Object,
                name: n.to_string(),
                return_type: String::new(),
                named_type: String::new(),
                description: desc,
                args: Vec::new(),
                deprecated: None,
            }
        })
        .collect();
    let tcorpus = Arc::new(Corpus::from_entries(type_entries));
    let trendered = Arc::new(gqlnav_corpus::RenderedCorpus {
        rendering: ctx.rendered.rendering,
        encoding: ctx.rendered.encoding,
        texts: tcorpus.entries.iter().map(|e| e.name.clone()).collect(),
        tokens: vec![0; tcorpus.len()],
    });
    SearchContext::new(ctx.graph.clone(), tcorpus, trendered)
}

impl StructureBackend {
    /// The per-doc and per-type links as [`LINKS_FILE`] holds them (little-endian u32
    /// lists; see [`saved::BinWriter`]).
    fn encode_links(&self) -> Vec<u8> {
        let n_types = self.type_paths.len();
        let mut w = saved::BinWriter::default();
        w.buf.extend_from_slice(LINKS_MAGIC);
        w.u32(LINKS_VERSION);
        w.u32(self.n as u32);
        w.u32(n_types as u32);
        w.usizes(&self.owner_of);
        // `None` is written as `n_types`.
        let ret: Vec<usize> = self.ret_of.iter().map(|r| r.unwrap_or(n_types)).collect();
        w.usizes(&ret);
        w.u32(self.depth_of.len() as u32);
        for &d in &self.depth_of {
            w.f32(d);
        }
        let mut paths: Vec<Vec<usize>> = Vec::new();
        let mut path_ids: Vec<Vec<usize>> = Vec::with_capacity(n_types);
        for tp in &self.type_paths {
            path_ids.push((paths.len()..paths.len() + tp.len()).collect());
            paths.extend(tp.iter().cloned());
        }
        w.lists(&paths);
        w.lists(&path_ids);
        w.lists(&self.conn_of);
        w.lists(&self.iface_of);
        w.lists(&self.coll_paths);
        w.buf
    }

    /// Read [`LINKS_FILE`] for a corpus of `n` docs; returns the number of types.
    fn decode_links(&mut self, bytes: &[u8], n: usize) -> Result<usize, String> {
        let mut r = saved::BinReader::new(bytes, LINKS_FILE);
        if r.take(8)? != LINKS_MAGIC {
            return Err(format!("{LINKS_FILE} is not a gqlnav structure file"));
        }
        let v = r.u32()?;
        if v != LINKS_VERSION {
            return Err(format!(
                "{LINKS_FILE} has version {v}, expected {LINKS_VERSION}"
            ));
        }
        let file_n = r.u32()? as usize;
        if file_n != n {
            return Err(format!(
                "{LINKS_FILE} covers {file_n} entries, the corpus has {n}"
            ));
        }
        let n_types = r.u32()? as usize;
        let owner_of = r.usizes(n_types)?;
        let ret_of: Vec<Option<usize>> = r
            .usizes(n_types + 1)?
            .into_iter()
            .map(|t| (t < n_types).then_some(t))
            .collect();
        let n_depth = r.u32()? as usize;
        if n_depth != n {
            return Err(format!("{LINKS_FILE} has {n_depth} depths for {n} entries"));
        }
        let depth_of = (0..n)
            .map(|_| r.f32())
            .collect::<Result<Vec<f32>, String>>()?;
        let paths = r.lists(n)?;
        let path_ids = r.lists(paths.len())?;
        let conn_of = r.lists(n)?;
        let iface_of = r.lists(n)?;
        let coll_paths = r.lists(n)?;
        r.finish()?;
        if owner_of.len() != n
            || ret_of.len() != n
            || conn_of.len() != n
            || iface_of.len() != n
            || path_ids.len() != n_types
            || coll_paths.len() != n_types
        {
            return Err(format!("{LINKS_FILE} lists do not match the corpus"));
        }
        self.type_paths = path_ids
            .iter()
            .map(|ids| ids.iter().map(|&i| paths[i].clone()).collect())
            .collect();
        self.owner_of = owner_of;
        self.ret_of = ret_of;
        self.depth_of = depth_of;
        self.conn_of = conn_of;
        self.iface_of = iface_of;
        self.coll_paths = coll_paths;
        self.n = n;
        Ok(n_types)
    }

    /// Load an index saved by [`SearchBackend::save`] for the same schema, corpus and
    /// rendering (checked by fingerprint). Weights and switched-off channels are the
    /// saved ones.
    pub fn load(dir: &Path, ctx: &SearchContext) -> Result<Self, SearchError> {
        let m = saved::open(dir, ctx, "structure")?;
        let bad = |reason: String| SearchError::saved_index(dir, reason);
        let config: SavedConfig = serde_json::from_value(m.config)
            .map_err(|e| bad(format!("the manifest's structure config is malformed: {e}")))?;
        let mut b = StructureBackend::new(config.weights);
        b.disabled = config.disabled;
        let n = ctx.corpus.len();
        let links = std::fs::read(dir.join(LINKS_FILE))
            .map_err(|e| bad(format!("cannot read {LINKS_FILE}: {e}")))?;
        let n_types = b.decode_links(&links, n).map_err(bad)?;
        b.fields_bm25 = Some(Bm25Backend::load_files(&dir.join("fields"), n)?);
        b.types_bm25 = Some(Bm25Backend::load_files(&dir.join("types"), n_types)?);
        b.rendering = ctx.rendered.rendering.name().to_string();
        b.ctx = Some(ctx.clone());
        Ok(b)
    }
}

/// The collection path to `ty` ([`collection_path`]) when none of its `cheapest` root
/// paths is one (they are all lookups by key); `None` otherwise. The ranker lends it the
/// path share, and the search page lists it among the ways in.
pub fn lookup_collection_path(
    graph: &SchemaGraph,
    ty: &str,
    cheapest: &[Vec<String>],
) -> Option<Vec<String>> {
    if cheapest.iter().any(|p| is_collection_path(graph, p, ty)) {
        return None;
    }
    collection_path(graph, ty)
}

/// The cheapest root path that reaches `ty` through a collection of it (a field
/// returning a list of `ty`, or the `nodes`/`node` field of its connection or edge),
/// in the schema graph's path order; `None` when there is none.
fn collection_path(graph: &SchemaGraph, ty: &str) -> Option<Vec<String>> {
    let query = graph.root(gqlnav_schema::RootKind::Query)?.to_string();
    let mut best: Option<(f64, Vec<String>)> = None;
    for fr in graph.producers(ty) {
        let coord = format!("{}.{}", fr.owner, fr.field);
        if !is_collection_path(graph, std::slice::from_ref(&coord), ty) {
            continue;
        }
        let d = if fr.owner == query {
            0.0
        } else {
            match graph.distance_from_root(gqlnav_schema::RootKind::Query, &fr.owner) {
                Some(d) => d,
                None => continue,
            }
        };
        if best.as_ref().is_some_and(|(bd, _)| *bd <= d) {
            continue;
        }
        let one = PathOptions {
            max_paths: 1,
            ..PathOptions::default()
        };
        if let Some(p) = graph
            .paths_to_type(&fr.owner, Some(&coord), one)
            .into_iter()
            .next()
        {
            best = Some((d, p));
        }
    }
    best.map(|b| b.1)
}

/// Whether a root path reaches type `ty` through a collection of `ty` itself: its last
/// field returns a list of `ty`, or sits on a connection or edge type of `ty`
/// (`…Connection.nodes`, `…Edge.node`). A list of an abstract type that merely contains
/// `ty` (a generic search) does not count.
fn is_collection_path(graph: &SchemaGraph, path: &[String], ty: &str) -> bool {
    let Some((owner, name)) = path.last().and_then(|c| c.split_once('.')) else {
        return false;
    };
    let field = match graph.schema.types.get(owner) {
        Some(ExtendedType::Object(o)) => o.fields.get(name),
        Some(ExtendedType::Interface(i)) => i.fields.get(name),
        _ => None,
    };
    let Some(f) = field else { return false };
    let direct = f.ty.inner_named_type().as_str() == ty;
    direct && (f.ty.is_list() || unwrap_connection(graph, owner).is_some_and(|n| n == ty))
}

fn normalise(v: &mut [f32]) {
    let m = v.iter().cloned().fold(0.0f32, f32::max);
    if m > 0.0 {
        for x in v.iter_mut() {
            *x /= m;
        }
    }
}

impl SearchBackend for StructureBackend {
    fn name(&self) -> String {
        if self.disabled.is_empty() {
            format!("structure({})", self.rendering)
        } else {
            format!(
                "structure({}, without {})",
                self.rendering,
                self.disabled.join("+")
            )
        }
    }

    fn index(&mut self, ctx: &SearchContext) -> Result<(), SearchError> {
        let corpus: &Corpus = &ctx.corpus;
        let graph: &SchemaGraph = &ctx.graph;
        self.rendering = ctx.rendered.rendering.name().to_string();
        self.n = corpus.len();
        let mut fb = Bm25Backend::new(fields_config(&self.weights));
        fb.index(ctx)?;
        self.fields_bm25 = Some(fb);

        let tctx = type_context(ctx);
        let mut tb = Bm25Backend::new(types_config());
        tb.index(&tctx)?;
        let types = &tctx.corpus;
        self.types_bm25 = Some(tb);

        // Per-doc structure.
        self.owner_of = corpus
            .entries
            .iter()
            .map(|e| types.position(&e.owner).unwrap_or(0))
            .collect();
        self.ret_of = corpus
            .entries
            .iter()
            .map(|e| {
                let nt =
                    unwrap_connection(graph, &e.named_type).unwrap_or_else(|| e.named_type.clone());
                types.position(&nt)
            })
            .collect();
        self.depth_of = corpus
            .entries
            .iter()
            .map(|e| graph.depth(&e.owner).unwrap_or(6.0) as f32)
            .collect();
        // Paths per owner type, as doc lists.
        let mut type_paths = vec![Vec::new(); types.len()];
        let mut coll_paths = vec![Vec::new(); types.len()];
        let mut owners: Vec<usize> = self.owner_of.clone();
        owners.sort_unstable();
        owners.dedup();
        for t in owners {
            let name = &types.entries[t].name;
            let paths = graph.paths_to_type(
                name,
                None,
                PathOptions {
                    max_paths: self.weights.paths_per_seed,
                    ..PathOptions::default()
                },
            );
            if let Some(c) = lookup_collection_path(graph, name, &paths) {
                coll_paths[t] = c.iter().filter_map(|c| corpus.position(c)).collect();
            }
            type_paths[t] = paths
                .iter()
                .map(|p| p.iter().filter_map(|c| corpus.position(c)).collect())
                .collect();
        }
        self.type_paths = type_paths;
        self.coll_paths = coll_paths;
        // Connection wrappers per doc.
        self.conn_of = corpus
            .entries
            .iter()
            .map(|e| {
                let mut v = Vec::new();
                if unwrap_connection(graph, &e.named_type).is_some() {
                    for f in ["nodes", "edges", "node"] {
                        if let Some(p) = corpus.position(&format!("{}.{f}", e.named_type)) {
                            v.push(p);
                        }
                    }
                    if let Some(ExtendedType::Object(o)) =
                        graph.schema.types.get(e.named_type.as_str())
                    {
                        if let Some(ed) = o.fields.get("edges") {
                            if let Some(p) =
                                corpus.position(&format!("{}.node", ed.ty.inner_named_type()))
                            {
                                v.push(p);
                            }
                        }
                    }
                }
                v
            })
            .collect();
        // Interface twins.
        self.iface_of = corpus
            .entries
            .iter()
            .map(|e| {
                let mut v = Vec::new();
                if e.owner_kind == OwnerKind::Interface {
                    for imp in graph.implementers(&e.owner) {
                        if let Some(p) = corpus.position(&format!("{imp}.{}", e.name)) {
                            v.push(p);
                        }
                    }
                } else if let Some(ExtendedType::Object(o)) =
                    graph.schema.types.get(e.owner.as_str())
                {
                    for i in &o.implements_interfaces {
                        if let Some(p) = corpus.position(&format!("{i}.{}", e.name)) {
                            v.push(p);
                        }
                    }
                }
                v
            })
            .collect();
        self.ctx = Some(ctx.clone());
        Ok(())
    }

    fn save(&self, dir: &Path) -> Result<(), SearchError> {
        let ctx = self.ctx.as_ref().ok_or(SearchError::NotIndexed)?;
        let fb = self.fields_bm25.as_ref().ok_or(SearchError::NotIndexed)?;
        let tb = self.types_bm25.as_ref().ok_or(SearchError::NotIndexed)?;
        let config = SavedConfig {
            weights: self.weights.clone(),
            disabled: self.disabled.clone(),
        };
        let header = saved::ManifestHeader {
            backend: "structure".into(),
            name: self.name(),
            config: serde_json::to_value(&config).map_err(|e| SearchError::Other(e.to_string()))?,
            embedder: None,
        };
        saved::save_dir(dir, header, ctx, |tmp, _| {
            fb.write_files(ctx, &tmp.join("fields"))?;
            tb.write_files(&type_context(ctx), &tmp.join("types"))?;
            saved::write_file(&tmp.join(LINKS_FILE), &self.encode_links())
        })
    }

    fn search(&self, query: &Query, k: usize) -> Result<Vec<Scored>, SearchError> {
        let fb = self.fields_bm25.as_ref().ok_or(SearchError::NotIndexed)?;
        let tb = self.types_bm25.as_ref().ok_or(SearchError::NotIndexed)?;
        let w = &self.weights;
        let mut text = query.text.clone();
        for s in &query.sub_queries {
            text.push(' ');
            text.push_str(s);
        }
        let per_field = fb.score_fields(&text)?;
        let names = ["text", "name", "desc", "owner", "ret", "args"];
        let weights = [w.text, w.name, w.desc, w.owner, w.ret, w.args];
        let mut channels: Vec<(&str, f32, Vec<f32>)> = Vec::new();
        for ((mut v, n), wt) in per_field.into_iter().zip(names).zip(weights) {
            normalise(&mut v);
            channels.push((n, wt, v));
        }
        let mut trel = tb.score_all(&text)?;
        normalise(&mut trel);
        let n = self.n;
        let mut base = vec![0f32; n];
        let mut lexical = vec![0f32; n];
        for (name, wt, v) in &channels {
            if !self.on(name) || *wt == 0.0 {
                continue;
            }
            for i in 0..n {
                lexical[i] += wt * v[i];
            }
        }
        let wsum: f32 = channels
            .iter()
            .filter(|c| self.on(c.0))
            .map(|c| c.1)
            .sum::<f32>()
            .max(1e-6);
        for i in 0..n {
            let mut s = lexical[i] / wsum;
            if self.on("type") {
                s += w.owner_type
                    * trel[self.owner_of[i]]
                    * (0.5 + 0.5 * (lexical[i] > 0.0) as u8 as f32)
                    * 0.5;
                if let Some(r) = self.ret_of[i] {
                    s += w.return_type * trel[r] * 0.5;
                }
            }
            if self.on("depth") {
                s /= 1.0 + w.depth * (self.depth_of[i] - 1.0).max(0.0);
            }
            base[i] = s;
        }
        // Propagation from the top seeds.
        let mut final_s = base.clone();
        let mut prop = vec![0f32; n];
        let seeds = top_k_positive(base.iter().copied(), w.seeds);
        for sd in &seeds {
            let s = sd.score;
            if self.on("path") {
                for path in &self.type_paths[self.owner_of[sd.doc]] {
                    for &p in path {
                        prop[p] = prop[p].max(w.path * s);
                    }
                }
                for &p in &self.coll_paths[self.owner_of[sd.doc]] {
                    prop[p] = prop[p].max(w.collection * s);
                }
            }
            if self.on("conn") {
                for &p in &self.conn_of[sd.doc] {
                    prop[p] = prop[p].max(w.conn * s);
                }
            }
            if self.on("iface") {
                for &p in &self.iface_of[sd.doc] {
                    prop[p] = prop[p].max(w.iface * s);
                }
            }
        }
        for i in 0..n {
            final_s[i] = base[i].max(prop[i]) + 0.01 * prop[i].min(base[i]);
        }
        let mut out = top_k_positive(final_s.iter().copied(), k);
        for sc in &mut out {
            let d = sc.doc;
            let mut ex = Vec::new();
            for (name, wt, v) in &channels {
                if v[d] > 0.0 && self.on(name) {
                    ex.push((name.to_string(), wt * v[d] / wsum));
                }
            }
            if trel[self.owner_of[d]] > 0.0 {
                ex.push(("type(owner)".into(), trel[self.owner_of[d]]));
            }
            if let Some(r) = self.ret_of[d] {
                if trel[r] > 0.0 {
                    ex.push(("type(return)".into(), trel[r]));
                }
            }
            if prop[d] > 0.0 {
                ex.push(("graph".into(), prop[d]));
            }
            ex.push(("base".into(), base[d]));
            sc.explain = ex;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gqlnav_corpus::{CorpusOptions, Rendering, TokenMeter};

    fn demo() -> SearchContext {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../cli/assets/demo.graphql");
        let g = Arc::new(gqlnav_schema::load_file(Path::new(p)).expect("demo schema"));
        let c = Arc::new(Corpus::build(&g, CorpusOptions::default()));
        let r = Arc::new(c.render(Rendering::DotPlusGloss, &TokenMeter::default()));
        SearchContext::new(g, c, r)
    }

    #[test]
    fn links_round_trip_and_reject_bad_values_even_with_a_matching_hash() {
        let ctx = demo();
        let mut b = StructureBackend::new(StructureWeights::default());
        b.index(&ctx).expect("index");
        let bytes = b.encode_links();
        let n = ctx.corpus.len();
        let mut c = StructureBackend::new(StructureWeights::default());
        let n_types = c.decode_links(&bytes, n).expect("decode");
        assert_eq!(n_types, b.type_paths.len());
        assert_eq!(c.owner_of, b.owner_of);
        assert_eq!(c.ret_of, b.ret_of);
        assert_eq!(c.type_paths, b.type_paths);
        assert_eq!(c.conn_of, b.conn_of);
        assert_eq!(c.iface_of, b.iface_of);
        assert!(
            b.type_paths.iter().any(|p| !p.is_empty()),
            "the demo has paths"
        );
        // Every prefix is refused (truncation), and so is every 4-byte word set to a
        // huge value (a doc or type index out of range, an offset past the end), except
        // the depth floats, which any value fits.
        for cut in (0..bytes.len()).step_by(7) {
            let mut c = StructureBackend::new(StructureWeights::default());
            assert!(c.decode_links(&bytes[..cut], n).is_err(), "cut at {cut}");
        }
        let depths = 8 + 4 * 3 + 4 * (1 + n) * 2 + 4;
        let mut refused = 0;
        for w in (8..bytes.len()).step_by(4) {
            if (depths..depths + 4 * n).contains(&w) {
                continue;
            }
            let mut bad = bytes.clone();
            bad[w..w + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            let mut c = StructureBackend::new(StructureWeights::default());
            refused += usize::from(c.decode_links(&bad, n).is_err());
        }
        let words = (bytes.len() - 8) / 4 - n;
        assert_eq!(refused, words, "every non-float word is checked");
        let mut c = StructureBackend::new(StructureWeights::default());
        assert!(
            c.decode_links(&bytes, n + 1).is_err(),
            "another corpus size"
        );
    }
}
