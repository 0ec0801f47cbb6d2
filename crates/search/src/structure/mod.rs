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
//! * `root`: when the query is for a reader ([`crate::Purpose::Search`]), a root field is
//!   lifted by the type it names or returns, the way other fields are by their owner
//!   type, under a ceiling (`root_cap`): the entry points join the list.
//! * `value`: a top hit returning a *value object* (a few leaf fields, such as an amount
//!   and its currency) lifts those fields, which any operation selecting it needs.
//! * `enum`: a question word that names an enum value and no type (`admins` ~ `ADMIN`,
//!   `closed` ~ `CLOSED`) lifts the fields returning that enum, by the enum's BM25 match
//!   over its value names, times the field's owner-type relevance; for a reader
//!   ([`crate::Purpose::Search`]) only: in slices it displaced the leaves of budgeted
//!   slices (docs/ranking.md, "Enum values").
//! * `alias`: for a reader, a field's name is another name for the type it returns
//!   (`Query.viewer` returns `User`): the question's match on the name counts as a match
//!   on that type, at the `root_alias` share for a root field and `field_alias` for
//!   others ([`StructureBackend::lend_aliases`]).
//! * `balance`: for a reader, term balance: among a type's fields that match no question
//!   word of their own, only the first `balance_keep` keep the owner lift's second half,
//!   the rest `balance_share` of it ([`StructureBackend::balance`]).
//! * `label`: for a reader, a type's *label* fields (a non-null `String` with a one-word
//!   name: `name`, `title`) are lifted by the type's relevance, under the type's best
//!   field with a question word of its own ([`StructureBackend::lift_labels`]); the
//!   labels of the type a completed top hit returns are completions (`label_hits`).
//! * `person`: in a first-person question asked by a reader ("my assigned issues"), a
//!   hit's type is also reached through the current caller (`Query.viewer` →
//!   `User.assignedIssues`), at the path share: [`caller`].
//!
//! Final score = max(base, propagated) with base = Σ weight·channel, then divided by a
//! mild depth factor; mapped to [0, 1] by the best hit. Deterministic: ties by corpus order.

use std::path::Path;

use gqlnav_corpus::Corpus;
use gqlnav_schema::{PathOptions, SchemaGraph};

mod caller;
mod docs;
mod facts;
mod graph;
mod links;
mod reader;
mod weights;

pub use graph::{lookup_collection_path, selectable_collection_path, unwrap_connection};
pub use weights::StructureWeights;

use caller::Callers;
use docs::{enum_index, type_context, EnumIndex};
use links::{SavedConfig, LINKS_FILE};

use crate::analyzer::Analyzer;
use crate::bm25::{Bm25Backend, Bm25Config, FieldSource};
use crate::{
    saved, top_k_positive, Purpose, Query, Scored, SearchBackend, SearchContext, SearchError,
};

/// The structure-aware backend.
pub struct StructureBackend {
    pub weights: StructureWeights,
    /// Channels switched off (for ablations), by name.
    pub disabled: Vec<String>,
    fields_bm25: Option<Bm25Backend>,
    types_bm25: Option<Bm25Backend>,
    /// the `enum` channel's index ([`EnumIndex`])
    enums: Option<EnumIndex>,
    /// per doc: owner type index (into the type documents)
    owner_of: Vec<usize>,
    /// per doc: named return type index (connections/edges unwrapped to the node type)
    ret_of: Vec<Option<usize>>,
    /// per doc: owner depth from the root
    depth_of: Vec<f32>,
    /// per doc: the owner is a root type (the field is an entry point)
    root_field: Vec<bool>,
    /// per doc: the field is deprecated
    deprecated: Vec<bool>,
    /// per doc: the field is a label of its type ([`facts::label_fields`])
    label: Vec<bool>,
    /// per doc: a root field returning many ([`facts::root_lists`])
    root_list: Vec<bool>,
    /// per type: its label fields (completions of a top hit returning the type)
    labels_of: Vec<Vec<usize>>,
    /// per type: the words of its name ([`facts::type_name_words`]; the `named` channel)
    name_words: Vec<Vec<String>>,
    /// per doc: the count fields of the connection it returns ([`facts::count_fields`])
    count_of: Vec<Vec<usize>>,
    /// per doc: the words of its name when it returns a connection with count fields
    /// ([`facts::counted_list_words`])
    list_words: Vec<Vec<String>>,
    /// per type: its field docs
    fields_of: Vec<Vec<usize>>,
    /// per type: itself and, for an abstract type, its possible types (objects,
    /// interfaces and unions only; empty for the others)
    shapes_of: Vec<Vec<usize>>,
    /// per type: docs on its cheapest root paths (excluding the type's own fields)
    type_paths: Vec<Vec<Vec<usize>>>,
    /// per type: its cheapest paths with selectable routes first
    /// ([`PathOptions::selectable_first`]), where they differ from `type_paths` (empty
    /// otherwise); the path channel follows them for a reader ([`Purpose::Search`])
    reader_paths: Vec<Vec<Vec<usize>>>,
    /// per type: its cheapest collection path when its cheapest paths are lookups by
    /// key (empty otherwise); see [`lookup_collection_path`]
    coll_paths: Vec<Vec<usize>>,
    /// per doc: wrapper docs lifted when the doc returns a connection
    conn_of: Vec<Vec<usize>>,
    /// per doc: interface/implementation twins
    iface_of: Vec<Vec<usize>>,
    /// per doc: the fields of the value object it returns (see
    /// [`graph::value_object_fields`])
    value_of: Vec<Vec<usize>>,
    /// the current-caller root fields and their types' fields (the `person` channel)
    callers: Callers,
    n: usize,
    rendering: String,
    /// The indexed context, kept so that [`SearchBackend::save`] can write the index.
    ctx: Option<SearchContext>,
}

impl StructureBackend {
    pub fn new(weights: StructureWeights) -> Self {
        StructureBackend {
            weights,
            disabled: Vec::new(),
            fields_bm25: None,
            types_bm25: None,
            enums: None,
            owner_of: Vec::new(),
            ret_of: Vec::new(),
            depth_of: Vec::new(),
            root_field: Vec::new(),
            deprecated: Vec::new(),
            label: Vec::new(),
            root_list: Vec::new(),
            labels_of: Vec::new(),
            name_words: Vec::new(),
            count_of: Vec::new(),
            list_words: Vec::new(),
            fields_of: Vec::new(),
            shapes_of: Vec::new(),
            type_paths: Vec::new(),
            reader_paths: Vec::new(),
            coll_paths: Vec::new(),
            conn_of: Vec::new(),
            iface_of: Vec::new(),
            value_of: Vec::new(),
            callers: Callers::default(),
            n: 0,
            rendering: String::new(),
            ctx: None,
        }
    }

    /// The channels [`StructureBackend::without`] can switch off.
    pub const CHANNELS: [&'static str; 21] = [
        "name",
        "desc",
        "owner",
        "ret",
        "args",
        "type",
        "path",
        "conn",
        "iface",
        "value",
        "root",
        "person",
        "depth",
        "enum",
        "deprecated",
        "alias",
        "balance",
        "label",
        "named",
        "count",
        "bridge",
    ];

    /// Switch channels off by name (one of [`StructureBackend::CHANNELS`]).
    pub fn without(mut self, channels: &[&str]) -> Self {
        self.disabled.extend(channels.iter().map(|s| s.to_string()));
        self
    }

    fn on(&self, ch: &str) -> bool {
        !self.disabled.iter().any(|d| d == ch)
    }

    /// The `depth` channel's divisor for doc `i`: 1 + `depth` × (its owner's depth − 1),
    /// or 1 when the channel is off.
    fn depth_factor(&self, i: usize) -> f32 {
        if self.on("depth") {
            1.0 + self.weights.depth * (self.depth_of[i] - 1.0).max(0.0)
        } else {
            1.0
        }
    }

    /// Doc `i`'s owner-type relevance: its owner's (`trel`), or for a *link* (a field
    /// returning another type) from a type the question names (`link_rel`, the `named`
    /// channel), that type's named relevance times the relevance of the type it returns,
    /// when higher: "the pull requests of the acme/web repository" reads
    /// `Repository.pullRequests`, not the repository's other fields.
    fn owner_rel(&self, i: usize, trel: &[f32], link_rel: &[f32]) -> f32 {
        let o = self.owner_of[i];
        let own = trel[o];
        match (link_rel.get(o), self.ret_of[i]) {
            (Some(&l), Some(r)) => own.max(l * trel[r]),
            _ => own,
        }
    }

    /// The per-doc facts read from the schema, not saved: the same when an index is built
    /// and when a saved one is loaded ([`facts`]).
    fn read_facts(&mut self, ctx: &SearchContext) {
        self.root_field = facts::root_fields(ctx);
        self.deprecated = facts::deprecated_fields(ctx);
        self.label = facts::label_fields(ctx);
        self.root_list = facts::root_lists(ctx);
        let n_types = (self.owner_of.iter().copied())
            .chain(self.ret_of.iter().flatten().copied())
            .max()
            .map_or(0, |m| m + 1);
        self.labels_of = vec![Vec::new(); n_types];
        for (i, &o) in self.owner_of.iter().enumerate() {
            if self.label[i] {
                self.labels_of[o].push(i);
            }
        }
        self.count_of = facts::count_fields(ctx);
        self.list_words = facts::counted_list_words(ctx, &self.count_of);
        self.name_words = facts::type_name_words(ctx);
        self.fields_of = vec![Vec::new(); n_types];
        for (i, &o) in self.owner_of.iter().enumerate() {
            self.fields_of[o].push(i);
        }
        self.shapes_of = facts::shapes(ctx);
        self.callers = Callers::new(ctx);
    }

    /// The `value` channel, after the other propagation: each of the top `seeds` hits
    /// returning a value object lends `value` × its final score to that object's fields,
    /// and each of those that returns a value object in turn lends `value` × its own
    /// score (its final score, or the lent one when higher) to that one's fields: an
    /// order's total → the taxed amount's `gross` (which the question's words may favour
    /// over `net`) → the amount and currency. It runs on final scores so that a hit lifted
    /// by a path still brings its value fields.
    ///
    /// For a reader, the top `value_hits` hits also lend their *full* score, kept under
    /// the `seeds`-th final score: their value objects' fields are completions, which
    /// follow the question's own hits (a variant's `price` → the amount and currency)
    /// instead of sitting at a share far down the list, and do not push the seeds down.
    /// The fields on such a hit's root paths are completions too (the `path` channel's
    /// paths: an operation selecting the hit names each of them), and in a counting
    /// question ([`crate::analyzer::asks_how_many`]: `counting` is `Some`) the count
    /// fields of the connection it returns (`totalCount`), as are those of each list the
    /// question counts (the `count` channel: `counting`'s `true` docs), wherever that
    /// list ranks, just under it; and at the `label_hits` share, the labels of the type it
    /// returns (`Issue.assignee` → `User.name`). Labels the `label` channel lifted
    /// (`labelled`) are not hits to complete.
    fn lift_value_fields(
        &self,
        base: &[f32],
        prop: &mut [f32],
        final_s: &mut [f32],
        reader: bool,
        counting: Option<&[bool]>,
        labelled: &[f32],
    ) {
        let w = &self.weights;
        let mut lift = vec![0f32; final_s.len()];
        let lend = |hit: &Scored, share: f32, cap: f32, lift: &mut [f32]| {
            for &p in &self.value_of[hit.doc] {
                let lent = (share * hit.score).min(cap);
                lift[p] = lift[p].max(lent);
                let own = final_s[p].max(lent);
                for &q in &self.value_of[p] {
                    lift[q] = lift[q].max((share * own).min(cap));
                }
            }
        };
        let top = top_k_positive(final_s.iter().copied(), w.seeds);
        for hit in &top {
            lend(hit, w.value, f32::INFINITY, &mut lift);
        }
        if reader && w.value_hits > 0 {
            let cap = top.last().map_or(0.0, |h| h.score) * 0.999;
            let own_hits = top
                .iter()
                .filter(|h| !labelled.get(h.doc).is_some_and(|&l| l > 0.0));
            for hit in own_hits.take(w.value_hits) {
                lend(hit, 1.0, cap, &mut lift);
                if counting.is_some() {
                    for &c in &self.count_of[hit.doc] {
                        lift[c] = lift[c].max(hit.score.min(cap));
                    }
                }
                // The labels of the type it returns (`Issue.assignee` → `User.name`): a
                // selection of an object names at least one of them.
                if self.on("label") && w.label_hits > 0.0 {
                    if let Some(t) = self.ret_of[hit.doc] {
                        for &p in &self.labels_of[t] {
                            lift[p] = lift[p].max((w.label_hits * hit.score).min(cap));
                        }
                    }
                }
                // The fields on its paths from the root (the ones the `path` channel
                // lends to): an operation selecting the hit names every one of them.
                for &p in self.paths_of(self.owner_of[hit.doc], true).iter().flatten() {
                    lift[p] = lift[p].max(hit.score.min(cap));
                }
            }
            // The lists a counting question names ("how many customers" and
            // `Query.customers`): their count fields follow them, just under them,
            // wherever they rank.
            let counted = counting.unwrap_or_default();
            for (i, _) in counted.iter().enumerate().filter(|(_, &c)| c) {
                for &c in &self.count_of[i] {
                    lift[c] = lift[c].max((0.99 * final_s[i]).min(cap));
                }
            }
        }
        for (i, &l) in lift.iter().enumerate() {
            if l > final_s[i] {
                prop[i] = prop[i].max(l);
                final_s[i] = l + 0.01 * base[i].min(l);
            }
        }
    }

    /// The cheapest root paths to type `t` (as docs) the `path` channel follows: for a
    /// reader, selectable routes first where they differ.
    fn paths_of(&self, t: usize, reader: bool) -> &[Vec<usize>] {
        match self.reader_paths.get(t) {
            Some(r) if reader && !r.is_empty() => r,
            _ => &self.type_paths[t],
        }
    }

    /// The graph channels: each seed lends shares of its score along its owner type's
    /// paths to the root (and its collection path, and through the current caller in a
    /// question addressed to the caller), to its connection's wrappers and to its
    /// interface twins. Returns each doc's propagated score.
    fn propagate(&self, seeds: &[Scored], reader: bool, person: bool) -> Vec<f32> {
        let w = &self.weights;
        let mut prop = vec![0f32; self.n];
        for sd in seeds {
            let s = sd.score;
            if self.on("path") {
                let t = self.owner_of[sd.doc];
                for path in self.paths_of(t, reader) {
                    for &p in path {
                        prop[p] = prop[p].max(w.path * s);
                    }
                }
                for &p in &self.coll_paths[t] {
                    prop[p] = prop[p].max(w.collection * s);
                }
                if person {
                    self.callers
                        .lend(t, s, w.path, &self.owner_of, &self.ret_of, &mut prop);
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
        prop
    }

    /// Each channel's contribution to doc `d`'s score, for `--explain`.
    fn explain(&self, d: usize, why: &Why) -> Vec<(String, f32)> {
        let mut ex = Vec::new();
        for (name, wt, v) in why.channels {
            if v[d] > 0.0 && self.on(name) {
                ex.push((name.to_string(), wt * v[d] / why.wsum));
            }
        }
        let owner = why.trel[self.owner_of[d]];
        if owner > 0.0 {
            ex.push(("type(owner)".into(), owner));
        }
        let link = self.owner_rel(d, why.trel, why.link_rel);
        if link > owner {
            ex.push(("named(link)".into(), link));
        }
        if let Some(e) = self.enums.as_ref().and_then(|x| x.returns[d]) {
            if why.erel.get(e).is_some_and(|&v| v > 0.0) {
                ex.push(("enum".into(), why.erel[e]));
            }
        }
        if let Some(r) = self.ret_of[d] {
            if why.trel[r] > 0.0 {
                ex.push(("type(return)".into(), why.trel[r]));
            }
        }
        if why.root_lift.get(d).is_some_and(|&l| l > 0.0) {
            ex.push(("root".into(), why.root_lift[d]));
        }
        if why.label_lift.get(d).is_some_and(|&l| l > 0.0) {
            ex.push(("label".into(), why.label_lift[d]));
        }
        if why.bridge_lift.get(d).is_some_and(|&l| l > 0.0) {
            ex.push(("bridge".into(), why.bridge_lift[d]));
        }
        if why.prop[d] > 0.0 {
            ex.push(("graph".into(), why.prop[d]));
        }
        ex.push(("base".into(), why.base[d]));
        ex
    }
}

/// What a search computed, kept for [`StructureBackend::explain`].
struct Why<'a> {
    channels: &'a [(&'a str, f32, Vec<f32>)],
    wsum: f32,
    trel: &'a [f32],
    link_rel: &'a [f32],
    erel: &'a [f32],
    root_lift: &'a [f32],
    label_lift: &'a [f32],
    bridge_lift: &'a [f32],
    prop: &'a [f32],
    base: &'a [f32],
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
        self.enums = Some(enum_index(ctx)?);

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
        self.read_facts(ctx);
        // Paths per owner type, as doc lists.
        let mut type_paths = vec![Vec::new(); types.len()];
        let mut reader_paths = vec![Vec::new(); types.len()];
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
            let docs = |paths: &[Vec<String>]| -> Vec<Vec<usize>> {
                paths
                    .iter()
                    .map(|p| p.iter().filter_map(|c| corpus.position(c)).collect())
                    .collect()
            };
            // The selectable order can differ only where a plain path passes through a
            // fixed root list (`SchemaGraph::passes_fixed_root_list`); elsewhere the
            // second path search is skipped (it doubled the index time on GitHub).
            if paths.iter().any(|p| graph.passes_fixed_root_list(p)) {
                let reader = graph.paths_to_type(
                    name,
                    None,
                    PathOptions {
                        max_paths: self.weights.paths_per_seed,
                        selectable_first: true,
                        ..PathOptions::default()
                    },
                );
                if reader != paths {
                    reader_paths[t] = docs(&reader);
                }
            }
            type_paths[t] = docs(&paths);
        }
        self.type_paths = type_paths;
        self.reader_paths = reader_paths;
        self.coll_paths = coll_paths;
        self.conn_of = facts::connection_wrappers(ctx);
        self.iface_of = facts::interface_twins(ctx);
        self.value_of = facts::value_fields(ctx);
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
        let reader = query.purpose == Purpose::Search;
        let person = reader
            && self.on("person")
            && self
                .ctx
                .as_ref()
                .is_some_and(|c| crate::addresses_caller(&c.graph, &query.text));
        if person && w.caller > 0.0 {
            // The caller's type is one the question names ("my email" is the caller's).
            for t in self.callers.types(&self.owner_of) {
                trel[t] = trel[t].max(w.caller);
            }
        }
        if reader && self.on("alias") {
            self.lend_aliases(&channels[1].2, &mut trel);
        }
        // Per type, for a reader: its relevance as the owner of a link field (the types
        // the question names, at least `named_type`, next to a value or not).
        let mut link_rel = Vec::new();
        if reader && self.on("named") && w.named_type > 0.0 {
            link_rel = self.lift_named_types(fb, &query.text, &mut trel)?;
        }
        let mut erel = Vec::new();
        if query.purpose == Purpose::Search && self.on("enum") && w.enum_value > 0.0 {
            if let Some(ei) = &self.enums {
                erel = ei.score(&text)?;
            }
        }
        let n = self.n;
        let mut base = vec![0f32; n];
        let mut wordless = vec![0f32; n];
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
        // Per doc, for a reader: it matches a question word of its own (the balance and
        // the labels read it).
        let own: Vec<bool> = if reader {
            (0..n).map(|i| own_words(&channels, i)).collect()
        } else {
            Vec::new()
        };
        for i in 0..n {
            let mut s = lexical[i] / wsum;
            let orel = self.owner_rel(i, &trel, &link_rel);
            if self.on("type") {
                s += w.owner_type * orel * (0.5 + 0.5 * (lexical[i] > 0.0) as u8 as f32) * 0.5;
                if let Some(r) = self.ret_of[i] {
                    s += w.return_type * trel[r] * 0.5;
                }
            }
            if !erel.is_empty() {
                if let Some(e) = self.enums.as_ref().and_then(|x| x.returns[i]) {
                    s += w.enum_value * erel[e] * trel[self.owner_of[i]] * 0.5;
                }
            }
            if reader && self.on("type") && lexical[i] > 0.0 && !own[i] {
                // The owner lift's second half, which the balance may take back.
                wordless[i] = w.owner_type * trel[self.owner_of[i]] * 0.25;
            }
            let f = self.depth_factor(i);
            s /= f;
            wordless[i] /= f;
            base[i] = s;
        }
        if reader && self.on("balance") && w.balance_share < 1.0 {
            self.balance(&wordless, &mut base);
        }
        let mut label_lift = Vec::new();
        if reader && self.on("label") && w.label > 0.0 {
            label_lift = self.lift_labels(&own, &trel, &mut base);
        }
        let mut root_lift = Vec::new();
        if query.purpose == Purpose::Search && self.on("root") && w.root > 0.0 {
            let named = self.plural_lists(&query.text);
            let rel = if link_rel.is_empty() {
                &trel
            } else {
                &link_rel
            };
            root_lift = self.lift_root_fields(&channels[1].2, rel, &mut base, &named);
        }
        // Propagation from the top seeds.
        let mut final_s = base.clone();
        let seeds = top_k_positive(base.iter().copied(), w.seeds);
        let mut prop = self.propagate(&seeds, reader, person);
        for i in 0..n {
            final_s[i] = base[i].max(prop[i]) + 0.01 * prop[i].min(base[i]);
        }
        if reader && self.on("deprecated") && w.deprecated > 0.0 {
            let keep = (1.0 - w.deprecated).max(0.0);
            for (s, _) in final_s.iter_mut().zip(&self.deprecated).filter(|(_, &d)| d) {
                *s *= keep;
            }
        }
        let mut bridge_lift = Vec::new();
        if reader && self.on("bridge") && w.bridge > 0.0 {
            bridge_lift = self.lift_bridges(&trel, &mut final_s);
        }
        if self.on("value") && w.value > 0.0 {
            let counting = crate::analyzer::asks_how_many(&query.text);
            let counted = if reader && counting && self.on("count") {
                self.counted_lists(&query.text)
            } else {
                Vec::new()
            };
            self.lift_value_fields(
                &base,
                &mut prop,
                &mut final_s,
                reader,
                counting.then_some(&counted[..]),
                &label_lift,
            );
        }
        let mut out = top_k_positive(final_s.iter().copied(), k);
        let why = Why {
            channels: &channels,
            wsum,
            trel: &trel,
            link_rel: &link_rel,
            erel: &erel,
            root_lift: &root_lift,
            label_lift: &label_lift,
            bridge_lift: &bridge_lift,
            prop: &prop,
            base: &base,
        };
        for sc in &mut out {
            sc.explain = self.explain(sc.doc, &why);
        }
        Ok(out)
    }
}

/// Whether doc `i` matches a question word by its own name, description or arguments (not
/// only through its owner's name, which its rendered text also carries).
fn own_words(channels: &[(&str, f32, Vec<f32>)], i: usize) -> bool {
    channels
        .iter()
        .filter(|(name, _, _)| matches!(*name, "name" | "desc" | "args"))
        .any(|(_, _, v)| v[i] > 0.0)
}
