//! BM25 on tantivy.
//!
//! tantivy holds the inverted index (terms, postings with frequencies) and persists it;
//! the scoring is ours so that it reproduces Lucene 10's `BM25Similarity` exactly:
//! `idf · f / (f + k1·(1 − b + b·dl/avgdl))` with `idf = ln(1 + (N − n + 0.5)/(n + 0.5))`,
//! no `(k1+1)` factor, `dl` decoded from Lucene's lossy one-byte norm
//! (`SmallFloat.intToByte4`), `avgdl` = total terms / documents, repeated query terms
//! counted again, and ties broken by corpus order. k1, b and per-field weights are
//! configurable; the score of a document is the weighted sum over fields.

use std::collections::HashMap;
use std::path::Path;

use tantivy::schema::{IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions};
use tantivy::{doc, Index, IndexReader, Term};

use crate::analyzer::{Analyzer, TantivyAnalyzer};
use crate::{top_k_positive, Query, Scored, SearchBackend, SearchContext, SearchError};

/// Which text of an entry a BM25 field indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldSource {
    /// The rendered text of the chosen rendering.
    Text,
    /// The field (or member) name.
    Name,
    /// The owner type name.
    Owner,
    /// The named return type.
    ReturnType,
    /// The description.
    Description,
    /// Argument names and descriptions.
    Args,
}

impl FieldSource {
    pub fn name(self) -> &'static str {
        match self {
            FieldSource::Text => "text",
            FieldSource::Name => "name",
            FieldSource::Owner => "owner",
            FieldSource::ReturnType => "return_type",
            FieldSource::Description => "description",
            FieldSource::Args => "args",
        }
    }

    /// Extract this source's text from a corpus entry.
    pub fn extract(self, ctx: &SearchContext, doc: usize) -> String {
        let e = &ctx.corpus.entries[doc];
        match self {
            FieldSource::Text => ctx.rendered.texts[doc].clone(),
            FieldSource::Name => e.name.clone(),
            FieldSource::Owner => e.owner.clone(),
            FieldSource::ReturnType => e.named_type.clone(),
            FieldSource::Description => e.description.clone(),
            FieldSource::Args => e
                .args
                .iter()
                .map(|a| format!("{} {}", a.name, a.description))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// BM25 settings.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bm25Config {
    pub analyzer: Analyzer,
    pub k1: f32,
    pub b: f32,
    /// Indexed fields and their weights.
    pub fields: Vec<(FieldSource, f32)>,
}

impl Bm25Config {
    pub fn new(analyzer: Analyzer) -> Self {
        Bm25Config {
            analyzer,
            k1: 1.2,
            b: 0.75,
            fields: vec![(FieldSource::Text, 1.0)],
        }
    }
}

/// Lucene `SmallFloat.intToByte4` then `byte4ToInt`: the length BM25 actually sees.
pub fn lucene_quantized_length(len: u32) -> u32 {
    const NUM_FREE: u32 = 24;
    if len < NUM_FREE {
        return len;
    }
    let i = (len - NUM_FREE) as u64;
    // longToInt4
    let num_bits = 64 - i.leading_zeros();
    let enc = if num_bits < 4 {
        i as u32
    } else {
        let shift = num_bits - 4;
        let mut e = ((i >> shift) as u32) & 0x07;
        e |= (shift + 1) << 3;
        e
    };
    // int4ToLong
    let bits = (enc & 0x07) as u64;
    let shift = (enc >> 3) as i32 - 1;
    let dec = if shift == -1 {
        bits
    } else {
        (bits | 0x08) << shift
    };
    NUM_FREE + dec as u32
}

struct FieldStats {
    field: tantivy::schema::Field,
    weight: f32,
    /// Quantized length per doc.
    dl: Vec<f32>,
    avgdl: f32,
}

/// The BM25 backend.
pub struct Bm25Backend {
    config: Bm25Config,
    rendering: String,
    index: Option<Index>,
    reader: Option<IndexReader>,
    fields: Vec<FieldStats>,
    n_docs: usize,
    /// Per segment (in the searcher's order; the index never changes once built or
    /// loaded), each doc's position in the corpus: read once from the `pos` fast field
    /// rather than opened on every search.
    doc_pos: Vec<Vec<u32>>,
    /// The indexed context, kept so that [`SearchBackend::save`] can write the index.
    ctx: Option<SearchContext>,
}

/// The BM25 part of a saved index: config and per-field document lengths (tantivy's
/// files hold the postings).
const META_FILE: &str = "bm25.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedMeta {
    config: Bm25Config,
    rendering: String,
    docs: usize,
    lengths: Vec<Vec<u32>>,
}

/// A stable fingerprint of a context (FNV-1a over coordinates and rendered texts).
pub fn fingerprint(ctx: &SearchContext) -> String {
    let mut h = gqlnav_schema::Fnv64::new();
    for (e, t) in ctx.corpus.entries.iter().zip(ctx.rendered.texts.iter()) {
        h.str(&e.coordinate);
        h.str(t);
    }
    format!("{}-{}", h.hex(), ctx.corpus.len())
}

impl Bm25Backend {
    pub fn new(config: Bm25Config) -> Self {
        Bm25Backend {
            config,
            rendering: String::new(),
            index: None,
            reader: None,
            fields: Vec::new(),
            n_docs: 0,
            doc_pos: Vec::new(),
            ctx: None,
        }
    }

    pub fn config(&self) -> &Bm25Config {
        &self.config
    }

    fn tokenizer_name(&self) -> &'static str {
        match self.config.analyzer {
            Analyzer::Standard => "gqlnav_standard",
            Analyzer::Identifier => "gqlnav_identifier",
        }
    }

    fn schema(&self) -> (Schema, Vec<tantivy::schema::Field>, tantivy::schema::Field) {
        let mut sb = Schema::builder();
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(self.tokenizer_name())
            .set_index_option(IndexRecordOption::WithFreqs);
        let opts = TextOptions::default().set_indexing_options(indexing);
        let fields = self
            .config
            .fields
            .iter()
            .map(|(src, _)| sb.add_text_field(src.name(), opts.clone()))
            .collect();
        let pos = sb.add_u64_field("pos", NumericOptions::default().set_fast().set_stored());
        (sb.build(), fields, pos)
    }

    fn register(&self, index: &Index) {
        index.tokenizers().register(
            self.tokenizer_name(),
            tantivy::tokenizer::TextAnalyzer::builder(TantivyAnalyzer(self.config.analyzer))
                .build(),
        );
    }

    /// Add every corpus entry to a new index, in corpus order; returns the analysed
    /// length of every field of every document.
    fn fill(
        &self,
        ctx: &SearchContext,
        index: &Index,
        tfields: &[tantivy::schema::Field],
        pos: tantivy::schema::Field,
    ) -> Result<Vec<Vec<u32>>, SearchError> {
        self.register(index);
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 50_000_000)?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let n = ctx.corpus.len();
        let mut lengths: Vec<Vec<u32>> = vec![Vec::with_capacity(n); tfields.len()];
        for docpos in 0..n {
            let mut d = doc!(pos => docpos as u64);
            for (fi, ((src, _), f)) in self.config.fields.iter().zip(tfields.iter()).enumerate() {
                let text = src.extract(ctx, docpos);
                lengths[fi].push(self.config.analyzer.index_terms(&text).len() as u32);
                d.add_text(*f, text);
            }
            writer.add_document(d)?;
        }
        writer.commit()?;
        Ok(lengths)
    }

    fn build(&mut self, ctx: &SearchContext) -> Result<(), SearchError> {
        let (schema, tfields, pos) = self.schema();
        let index = Index::create_in_ram(schema);
        let lengths = self.fill(ctx, &index, &tfields, pos)?;
        self.finish(
            index,
            tfields,
            lengths,
            ctx.rendered.rendering.name().to_string(),
        )?;
        self.ctx = Some(ctx.clone());
        Ok(())
    }

    fn finish(
        &mut self,
        index: Index,
        tfields: Vec<tantivy::schema::Field>,
        lengths: Vec<Vec<u32>>,
        rendering: String,
    ) -> Result<(), SearchError> {
        // The index never changes after it is built or loaded: no reload watcher.
        let reader = index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()?;
        let searcher = reader.searcher();
        let mut n_docs = 0usize;
        let mut doc_pos = Vec::new();
        for seg in searcher.segment_readers() {
            n_docs += seg.num_docs() as usize;
            let col = seg
                .fast_fields()
                .u64("pos")
                .map_err(|e| SearchError::Index(e.to_string()))?;
            doc_pos.push(
                (0..seg.max_doc())
                    .map(|d| col.first(d).unwrap_or(u64::from(d)) as u32)
                    .collect(),
            );
        }
        self.n_docs = n_docs;
        self.doc_pos = doc_pos;
        self.fields = tfields
            .into_iter()
            .zip(self.config.fields.iter())
            .zip(lengths)
            .map(|((field, (_, w)), lens)| {
                let total: u64 = lens.iter().map(|&l| l as u64).sum();
                let avgdl = if lens.is_empty() {
                    1.0
                } else {
                    total as f32 / lens.len() as f32
                };
                FieldStats {
                    field,
                    weight: *w,
                    dl: lens
                        .iter()
                        .map(|&l| lucene_quantized_length(l) as f32)
                        .collect(),
                    avgdl: avgdl.max(f32::MIN_POSITIVE),
                }
            })
            .collect();
        self.rendering = rendering;
        self.index = Some(index);
        self.reader = Some(reader);
        Ok(())
    }

    /// Write this backend's index of `ctx` into the existing directory `dir`: tantivy's
    /// files and [`META_FILE`]. No manifest: callers (`save`, the structure ranker)
    /// write that.
    pub(crate) fn write_files(&self, ctx: &SearchContext, dir: &Path) -> Result<(), SearchError> {
        let at = |e: String| SearchError::saved_index(dir, e);
        std::fs::create_dir_all(dir).map_err(|e| at(format!("cannot create it: {e}")))?;
        let (schema, tfields, pos) = self.schema();
        let mmap = tantivy::directory::MmapDirectory::open(dir).map_err(|e| at(e.to_string()))?;
        let index = Index::create(mmap, schema, tantivy::IndexSettings::default())?;
        let lengths = self.fill(ctx, &index, &tfields, pos)?;
        drop(index);
        let meta = SavedMeta {
            config: self.config.clone(),
            rendering: ctx.rendered.rendering.name().to_string(),
            docs: ctx.corpus.len(),
            lengths,
        };
        let text = serde_json::to_string(&meta).map_err(|e| at(e.to_string()))?;
        crate::saved::write_file(&dir.join(META_FILE), text.as_bytes())
    }

    /// Open what [`Bm25Backend::write_files`] wrote, for a corpus of `docs` documents.
    pub(crate) fn load_files(dir: &Path, docs: usize) -> Result<Self, SearchError> {
        let err = |reason: String| SearchError::saved_index(dir, reason);
        let text = std::fs::read_to_string(dir.join(META_FILE))
            .map_err(|e| err(format!("cannot read {META_FILE}: {e}")))?;
        let meta: SavedMeta = serde_json::from_str(&text)
            .map_err(|e| err(format!("{META_FILE} is malformed: {e}")))?;
        let mut b = Bm25Backend::new(meta.config.clone());
        let index = Index::open_in_dir(dir).map_err(|e| err(e.to_string()))?;
        b.register(&index);
        let schema = index.schema();
        let mut tfields = Vec::new();
        for (src, _) in &b.config.fields {
            tfields.push(
                schema
                    .get_field(src.name())
                    .map_err(|e| err(e.to_string()))?,
            );
        }
        if meta.docs != docs
            || meta.lengths.len() != tfields.len()
            || meta.lengths.iter().any(|l| l.len() != docs)
        {
            return Err(err(format!(
                "field lengths do not match the corpus of {docs} entries"
            )));
        }
        b.finish(index, tfields, meta.lengths, meta.rendering)?;
        if b.n_docs != docs {
            return Err(err(format!(
                "the index holds {} documents, the corpus {docs}",
                b.n_docs
            )));
        }
        Ok(b)
    }

    /// Index a context and save it into a directory that does not exist or is empty, so
    /// that a later [`Bm25Backend::load`] can start without re-indexing.
    pub fn index_to_dir(&mut self, ctx: &SearchContext, dir: &Path) -> Result<(), SearchError> {
        if dir.exists()
            && std::fs::read_dir(dir)
                .map(|mut d| d.next().is_some())
                .unwrap_or(false)
        {
            return Err(SearchError::saved_index(
                dir,
                "the directory is not empty; give a new or empty directory",
            ));
        }
        self.build(ctx)?;
        self.save(dir)
    }

    /// Load an index saved by [`SearchBackend::save`]. The context must be the same
    /// schema, corpus and rendering (checked by fingerprint).
    pub fn load(dir: &Path, ctx: &SearchContext) -> Result<Self, SearchError> {
        crate::saved::open(dir, ctx, "bm25")?;
        let mut b = Bm25Backend::load_files(dir, ctx.corpus.len())?;
        b.ctx = Some(ctx.clone());
        Ok(b)
    }

    /// Raw per-document scores (dense, corpus order), summed over fields with their weights.
    pub fn score_all(&self, query: &str) -> Result<Vec<f32>, SearchError> {
        let per = self.score_fields_weighted(query, true)?;
        let mut it = per.into_iter();
        let mut total = it.next().unwrap_or_else(|| vec![0f32; self.n_docs]);
        for v in it {
            for (t, x) in total.iter_mut().zip(v) {
                *t += x;
            }
        }
        Ok(total)
    }

    /// Whether any indexed field holds `term` (an analyzed term: lowercase, singular).
    pub fn knows(&self, term: &str) -> Result<bool, SearchError> {
        let reader = self.reader.as_ref().ok_or(SearchError::NotIndexed)?;
        let searcher = reader.searcher();
        for seg in searcher.segment_readers() {
            for fs in &self.fields {
                let inv = seg.inverted_index(fs.field)?;
                let term = Term::from_field_text(fs.field, term);
                if inv
                    .doc_freq(&term)
                    .map_err(|e| SearchError::Index(e.to_string()))?
                    > 0
                {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Raw per-field scores without field weights (one dense vector per indexed field).
    pub fn score_fields(&self, query: &str) -> Result<Vec<Vec<f32>>, SearchError> {
        self.score_fields_weighted(query, false)
    }

    fn score_fields_weighted(
        &self,
        query: &str,
        weighted: bool,
    ) -> Result<Vec<Vec<f32>>, SearchError> {
        let reader = self.reader.as_ref().ok_or(SearchError::NotIndexed)?;
        let searcher = reader.searcher();
        let mut all = vec![vec![0f32; self.n_docs]; self.fields.len()];
        let terms = self.config.analyzer.query_terms(query);
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        for t in &terms {
            let c = counts.entry(t.as_str()).or_insert(0);
            if *c == 0 {
                order.push(t.as_str());
            }
            *c += 1;
        }
        let (k1, b) = (self.config.k1, self.config.b);
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            let pos_of = self.doc_pos.get(ord).map(Vec::as_slice).unwrap_or_default();
            for (fi, fs) in self.fields.iter().enumerate() {
                let scores = &mut all[fi];
                let inv = seg.inverted_index(fs.field)?;
                let n = self.n_docs as f32;
                for t in &order {
                    let term = Term::from_field_text(fs.field, t);
                    let df = inv
                        .doc_freq(&term)
                        .map_err(|e| SearchError::Index(e.to_string()))?
                        as f32;
                    if df == 0.0 {
                        continue;
                    }
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let boost = counts[t] as f32 * if weighted { fs.weight } else { 1.0 };
                    let Some(mut postings) = inv
                        .read_postings(&term, IndexRecordOption::WithFreqs)
                        .map_err(|e| SearchError::Index(e.to_string()))?
                    else {
                        continue;
                    };
                    use tantivy::postings::Postings;
                    use tantivy::{DocSet, TERMINATED};
                    let mut d = postings.doc();
                    while d != TERMINATED {
                        let f = postings.term_freq() as f32;
                        let p = pos_of.get(d as usize).map_or(d as usize, |&p| p as usize);
                        if let Some(dl) = fs.dl.get(p) {
                            let norm = k1 * (1.0 - b + b * dl / fs.avgdl);
                            if let Some(s) = scores.get_mut(p) {
                                *s += boost * idf * f / (f + norm);
                            }
                        }
                        d = postings.advance();
                    }
                }
            }
        }
        Ok(all)
    }
}

impl SearchBackend for Bm25Backend {
    fn name(&self) -> String {
        let mut extra = String::new();
        if (self.config.k1 - 1.2).abs() > 1e-6 || (self.config.b - 0.75).abs() > 1e-6 {
            extra.push_str(&format!(", k1={}, b={}", self.config.k1, self.config.b));
        }
        if self.config.fields.len() > 1
            || self.config.fields.first().map(|f| f.0) != Some(FieldSource::Text)
        {
            let f: Vec<String> = self
                .config
                .fields
                .iter()
                .map(|(s, w)| format!("{}^{w}", s.name()))
                .collect();
            extra.push_str(&format!(", fields={}", f.join("+")));
        }
        format!("bm25({}, {}{extra})", self.config.analyzer, self.rendering)
    }

    fn index(&mut self, ctx: &SearchContext) -> Result<(), SearchError> {
        self.build(ctx)
    }

    fn save(&self, dir: &Path) -> Result<(), SearchError> {
        let ctx = self.ctx.as_ref().ok_or(SearchError::NotIndexed)?;
        let header = crate::saved::ManifestHeader {
            backend: "bm25".into(),
            name: self.name(),
            config: serde_json::to_value(&self.config)
                .map_err(|e| SearchError::Other(e.to_string()))?,
            embedder: None,
        };
        crate::saved::save_dir(dir, header, ctx, |tmp, _| self.write_files(ctx, tmp))
    }

    fn search(&self, query: &Query, k: usize) -> Result<Vec<Scored>, SearchError> {
        Ok(top_k_positive(self.score_all(&query.text)?, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_lengths_match_lucene_smallfloat() {
        // exact below 24, then 4-bit mantissa buckets (values checked against Lucene's table)
        for i in 0..24 {
            assert_eq!(lucene_quantized_length(i), i);
        }
        assert_eq!(lucene_quantized_length(24), 24);
        assert_eq!(lucene_quantized_length(31), 31);
        assert_eq!(lucene_quantized_length(32), 32);
        assert_eq!(lucene_quantized_length(33), 33);
        assert_eq!(lucene_quantized_length(39), 39);
        assert_eq!(lucene_quantized_length(40), 40);
        assert_eq!(lucene_quantized_length(41), 40);
        assert_eq!(lucene_quantized_length(42), 42);
        assert_eq!(lucene_quantized_length(100), 96);
    }
}
