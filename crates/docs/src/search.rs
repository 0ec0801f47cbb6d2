//! Search over a docs index: BM25 (tantivy, English stemming) over title, heading path
//! and text; cosine over the chunk vectors; hybrid by reciprocal-rank fusion ([`gqlnav_search::rrf`], k = 60).
//! One hit per section (its best chunk), cut by the shared page rule under a token budget.

use std::collections::HashMap;

use gqlnav_embed::Embedder;
use gqlnav_search::{page, PageRequest, Scored};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    Language, LowerCaser, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{doc, Index, IndexReader, TantivyDocument};

use crate::error::DocsError;
use crate::index::{Chunk, DocsIndex};

/// How to rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Bm25,
    Vector,
    Hybrid,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "bm25" => Some(Mode::Bm25),
            "vector" => Some(Mode::Vector),
            "hybrid" => Some(Mode::Hybrid),
            _ => None,
        }
    }
}

/// Ranked chunks read per side before sections are deduplicated.
const DEPTH: usize = 200;

/// One search result.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocHit {
    pub rank: usize,
    /// `url#anchor`.
    pub url: String,
    pub title: String,
    pub heading_path: Vec<String>,
    /// The start of the chunk's text.
    pub snippet: String,
    /// The whole chunk text.
    pub text: String,
    /// Tokens of `text` (o200k_base).
    pub tokens: usize,
    /// Score relative to the best hit.
    pub score: f32,
}

impl DocHit {
    /// The hit for chunk `c` at 0-based `rank`.
    pub(crate) fn of(c: &Chunk, rank: usize, score: f32) -> DocHit {
        DocHit {
            rank: rank + 1,
            url: c.url.clone(),
            title: c.title.clone(),
            heading_path: c.heading_path.clone(),
            snippet: c.text.chars().take(240).collect(),
            text: c.text.clone(),
            tokens: c.tokens,
            score,
        }
    }
}

/// What a search returned.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocResults {
    pub mode: Mode,
    pub hits: Vec<DocHit>,
    pub tokens: usize,
    /// More sections matched than were shown (limit or budget).
    pub more: bool,
}

/// A searchable index: the chunks, their BM25 index and vectors.
pub struct DocsSearcher {
    pub index: DocsIndex,
    reader: IndexReader,
    parser: QueryParser,
    pos: tantivy::schema::Field,
}

impl std::fmt::Debug for DocsSearcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsSearcher")
            .field("chunks", &self.index.chunks.len())
            .field("vectors", &self.index.vectors.is_some())
            .finish()
    }
}

fn normalise(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

impl DocsSearcher {
    /// Build the BM25 index of `index` in memory (the Python library docs, 12k chunks:
    /// about a second on 2 cores).
    pub fn new(index: DocsIndex) -> Result<Self, DocsError> {
        // English prose: lower-cased words, English stop words dropped ("how do I …" is
        // in every FAQ heading), Snowball stemming.
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("docs_en")
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let mut sb = Schema::builder();
        let body = sb.add_text_field("body", opts.clone());
        let head = sb.add_text_field("head", opts);
        let pos = sb.add_u64_field("pos", NumericOptions::default().set_stored());
        let t = Index::create_in_ram(sb.build());
        let mut analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .dynamic();
        if let Some(stop) = StopWordFilter::new(Language::English) {
            analyzer = analyzer.filter_dynamic(stop);
        }
        t.tokenizers().register(
            "docs_en",
            analyzer
                .filter_dynamic(Stemmer::new(Language::English))
                .build(),
        );
        let mut w: tantivy::IndexWriter = t.writer_with_num_threads(1, 50_000_000)?;
        for (i, c) in index.chunks.iter().enumerate() {
            w.add_document(doc!(
                pos => i as u64,
                head => format!("{} {}", c.title, c.heading_path.join(" ")),
                body => c.text.clone(),
            ))?;
        }
        w.commit()?;
        let reader = t
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()?;
        // Any word may match (a question has words no section uses); a match in the
        // title or headings counts twice.
        let mut parser = QueryParser::for_index(&t, vec![body, head]);
        parser.set_field_boost(head, 2.0);
        Ok(DocsSearcher {
            index,
            reader,
            parser,
            pos,
        })
    }

    fn bm25(&self, q: &str, k: usize) -> Result<Vec<Scored>, DocsError> {
        // Query syntax characters in a question are words, not operators.
        let clean: String = q
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect();
        let (query, _) = self.parser.parse_query_lenient(&clean);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score())?;
        let mut out = Vec::new();
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr)?;
            if let Some(p) = d.get_first(self.pos).and_then(|v| v.as_u64()) {
                out.push(Scored::new(p as usize, score));
            }
        }
        Ok(out)
    }

    fn vector(&self, q: &str, k: usize, embedder: &dyn Embedder) -> Result<Vec<Scored>, DocsError> {
        let Some(vs) = &self.index.vectors else {
            return Err(DocsError::Options(
                "this index has no vectors: rebuild it with --model DIR (or use --mode bm25)"
                    .into(),
            ));
        };
        let mut qv = embedder
            .embed_query(q)
            .map_err(|e| DocsError::Embed(e.to_string()))?;
        normalise(&mut qv);
        if vs.first().is_some_and(|v| v.len() != qv.len()) {
            return Err(DocsError::Options(format!(
                "the query vector has {} dims, the index {}: use the model the index was built with ({})",
                qv.len(),
                vs[0].len(),
                self.index.manifest.embedder.as_deref().unwrap_or("unknown")
            )));
        }
        let mut s: Vec<Scored> = vs
            .iter()
            .enumerate()
            .map(|(i, v)| Scored::new(i, v.iter().zip(&qv).map(|(a, b)| a * b).sum()))
            .collect();
        s.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        s.truncate(k);
        Ok(s)
    }

    /// Ranked chunks for `q`.
    fn ranked(
        &self,
        q: &str,
        mode: Mode,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Vec<Scored>, DocsError> {
        let need = || {
            embedder.ok_or_else(|| {
                DocsError::Options(
                    "vector and hybrid search need the embedding model: pass --model DIR".into(),
                )
            })
        };
        Ok(match mode {
            Mode::Bm25 => self.bm25(q, DEPTH)?,
            Mode::Vector => self.vector(q, DEPTH, need()?)?,
            Mode::Hybrid => {
                let a = self.bm25(q, DEPTH)?;
                let b = self.vector(q, DEPTH, need()?)?;
                let mut fused: HashMap<usize, f32> = HashMap::new();
                for list in [&a, &b] {
                    for (r, s) in list.iter().enumerate() {
                        *fused.entry(s.doc).or_default() += gqlnav_search::rrf(r);
                    }
                }
                let mut v: Vec<Scored> =
                    fused.into_iter().map(|(d, s)| Scored::new(d, s)).collect();
                v.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.doc.cmp(&y.doc)));
                v
            }
        })
    }

    /// Ranked sections for `q`: the best chunk of each section, at most `limit`, within
    /// `budget` tokens when given.
    pub fn search(
        &self,
        q: &str,
        mode: Mode,
        limit: usize,
        budget: Option<usize>,
        embedder: Option<&dyn Embedder>,
    ) -> Result<DocResults, DocsError> {
        let ranked = self.ranked(q, mode, embedder)?;
        let mut seen = std::collections::HashSet::new();
        let sections: Vec<Scored> = ranked
            .into_iter()
            .filter(|s| seen.insert(self.index.chunks[s.doc].url.clone()))
            .collect();
        let req = PageRequest {
            budget,
            ..PageRequest::first(limit.max(1))
        };
        let p = page(&sections, &req, |slot| {
            let c = &self.index.chunks[slot.scored.doc];
            (DocHit::of(c, slot.rank, slot.score), c.tokens)
        });
        Ok(DocResults {
            mode,
            tokens: p.tokens,
            more: p.more,
            hits: p.items,
        })
    }
}
