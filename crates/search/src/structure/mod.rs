//! The structure-aware ranker: lexical evidence per entry part, type relevance, and the
//! schema graph (paths to root, connection wrappers, value objects), fused into one score by
//! a pipeline of named stages ([`pipeline`], the stages in [`stages::STAGES`]; each
//! stage's file states its rule and the measurement behind it). The tunables are one
//! table ([`StructureWeights`]); `--without` takes the stage names and `--explain` prints
//! each stage's part of a hit's score (the parts sum to it).
//!
//! Deterministic: ties by corpus order.

use std::path::Path;

use gqlnav_corpus::Corpus;
use gqlnav_schema::{PathOptions, SchemaGraph};

mod caller;
mod docs;
mod facts;
mod graph;
mod links;
mod pipeline;
mod stages;
mod weights;

pub use graph::{lookup_collection_path, selectable_collection_path, unwrap_connection};
pub use weights::StructureWeights;

use caller::Callers;
use docs::{enum_index, type_context, EnumIndex};
use links::{SavedConfig, LINKS_FILE};

use crate::analyzer::Analyzer;
use crate::bm25::{Bm25Backend, Bm25Config, FieldSource};
use crate::{saved, Purpose, Query, Scored, SearchBackend, SearchContext, SearchError};
use pipeline::Question;

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
    /// per doc: the fields of the value object it returns (see
    /// [`graph::value_object_fields`])
    value_of: Vec<Vec<usize>>,
    /// the current-caller root fields and their types' fields (the `named` stage's pronoun reading and the `path` stage's ways through the caller)
    callers: Callers,
    /// the caller root fields' description phrases ([`crate::caller_phrases`])
    caller_phrases: Vec<[String; 2]>,
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
            value_of: Vec::new(),
            callers: Callers::default(),
            caller_phrases: Vec::new(),
            n: 0,
            rendering: String::new(),
            ctx: None,
        }
    }

    /// The stage names [`StructureBackend::without`] takes, in pipeline order.
    pub fn stage_names() -> Vec<&'static str> {
        stages::STAGES.iter().map(|s| s.name()).collect()
    }

    /// Switch stages off by name (one of [`StructureBackend::stage_names`]); an unknown
    /// name is refused with the list.
    pub fn without(mut self, names: &[&str]) -> Result<Self, SearchError> {
        let known = Self::stage_names();
        if let Some(bad) = names.iter().find(|n| !known.contains(n)) {
            return Err(SearchError::Other(format!(
                "--without: no stage `{bad}`; the stages are {}",
                known.join(", ")
            )));
        }
        self.disabled.extend(names.iter().map(|s| s.to_string()));
        Ok(self)
    }

    fn on(&self, stage: &str) -> bool {
        !self.disabled.iter().any(|d| d == stage)
    }

    /// The `depth` stage's divisor for doc `i`: 1 + `depth` × (its owner's depth − 1), or
    /// 1 when the stage is off.
    fn depth_factor(&self, i: usize) -> f32 {
        if self.on("depth") {
            1.0 + self.weights.depth * (self.depth_of[i] - 1.0).max(0.0)
        } else {
            1.0
        }
    }

    /// The per-doc facts read from the schema, not saved: the same when an index is built
    /// and when a saved one is loaded ([`facts`]).
    fn read_facts(&mut self, ctx: &SearchContext) {
        self.caller_phrases = crate::caller_phrases(&ctx.graph);
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

    /// The cheapest root paths to type `t` (as docs) the `path` channel follows: for a
    /// reader, selectable routes first where they differ.
    fn paths_of(&self, t: usize, reader: bool) -> &[Vec<usize>] {
        match self.reader_paths.get(t) {
            Some(r) if reader && !r.is_empty() => r,
            _ => &self.type_paths[t],
        }
    }
}

/// BM25 over the entry parts, one field per lexical part ([`stages::lexical::FIELDS`]).
fn fields_config() -> Bm25Config {
    Bm25Config {
        analyzer: Analyzer::Identifier,
        k1: 1.2,
        b: 0.75,
        fields: stages::lexical::FIELDS.to_vec(),
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
        let mut fb = Bm25Backend::new(fields_config());
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
            .map(|e| {
                graph
                    .depth(&e.owner)
                    .map_or(stages::depth::UNREACHED_DEPTH, |d| d as f32)
            })
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
                    max_paths: stages::path::PATHS_PER_SEED,
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
                        max_paths: stages::path::PATHS_PER_SEED,
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
        let mut terms = query.text.clone();
        for s in &query.sub_queries {
            terms.push(' ');
            terms.push_str(s);
        }
        let mut fields = fb.score_fields(&terms)?;
        fields.iter_mut().for_each(|v| normalise(v));
        let mut trel = tb.score_all(&terms)?;
        normalise(&mut trel);
        let reader = query.purpose == Purpose::Search;
        let person = reader
            && self.on("named")
            && self.weights.caller > 0.0
            && self.ctx.is_some()
            && crate::addresses_caller_in(&self.caller_phrases, &query.text);
        let q = Question {
            text: &query.text,
            terms,
            reader,
            person,
        };
        pipeline::run(self, &q, fields, trel, k)
    }
}
