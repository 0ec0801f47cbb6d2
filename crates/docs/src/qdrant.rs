//! The Qdrant store: the chunks and vectors of a docs index in a Qdrant collection, for a
//! fleet of servers that share one index. Spoken over Qdrant's documented REST API
//! (<https://api.qdrant.tech>): one collection per source, points upserted by a stable
//! UUID derived from the chunk id (a hash of url, anchor and chunk number), chunks gone
//! from the site deleted, and the payload a hit needs (url, title, heading path, text).
//!
//! Only changed chunks are sent: each point's payload carries the hash of its text and
//! vector model, and a sync compares the collection (read by scrolling) with the index.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use gqlnav_embed::Embedder;
use gqlnav_search::{page, PageRequest, Scored};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::error::DocsError;
use crate::index::{Chunk, DocsIndex};
use crate::search::{DocHit, DocResults, Mode};

/// Points per upsert request.
const UPSERT_BATCH: usize = 128;
/// Points per scroll page.
const SCROLL_PAGE: usize = 1000;

/// A Qdrant collection holding one source's chunks.
pub struct QdrantStore {
    base: String,
    collection: String,
    api_key: Option<String>,
    client: reqwest::blocking::Client,
}

impl std::fmt::Debug for QdrantStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QdrantStore")
            .field("base", &self.base)
            .field("collection", &self.collection)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// What a sync did.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncStats {
    pub collection: String,
    /// Points written (new or changed chunks).
    pub upserted: usize,
    /// Points already there with the same text and model.
    pub unchanged: usize,
    /// Points of chunks gone from the index.
    pub deleted: usize,
}

/// The collection name of a source: `gqlnav_docs_` and 16 hex digits of its hash.
pub fn collection_for(source: &str) -> String {
    format!(
        "gqlnav_docs_{}",
        &hex(&Sha256::digest(source.as_bytes()))[..16]
    )
}

/// The point id of a chunk: a UUID (version 8, RFC 9562 "custom") from the hash of the
/// chunk id, so the same chunk always lands on the same point.
pub fn point_id(chunk_id: &str) -> String {
    let h = Sha256::digest(chunk_id.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let x = hex(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &x[..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..]
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// What decides whether a stored point is current: its text and the vector model.
fn version(c: &Chunk, model: &str) -> String {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update([0]);
    h.update(c.url.as_bytes());
    h.update([0]);
    h.update(c.text.as_bytes());
    hex(&h.finalize()[..12])
}

impl QdrantStore {
    /// A store at `url` (e.g. `http://127.0.0.1:6333`); `collection` defaults to
    /// [`collection_for`] of the source. The API key, when given, is sent as `api-key`.
    pub fn new(
        url: &str,
        collection: String,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<Self, DocsError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(DocsError::Options(format!(
                "--qdrant-url `{url}` must be an http(s) URL such as http://127.0.0.1:6333"
            )));
        }
        let client = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| DocsError::Options(format!("HTTP client: {e}")))?;
        Ok(QdrantStore {
            base: url.trim_end_matches('/').to_string(),
            collection,
            api_key,
            client,
        })
    }

    pub fn collection(&self) -> &str {
        &self.collection
    }

    fn fail(&self, what: &str, reason: String) -> DocsError {
        DocsError::Store {
            what: format!("{what} ({}, collection {})", self.base, self.collection),
            reason,
        }
    }

    /// One REST call; `Ok(None)` on 404.
    fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<Option<Value>, DocsError> {
        let url = format!("{}/collections/{}{path}", self.base, self.collection);
        let mut req = self.client.request(method, &url);
        if let Some(k) = &self.api_key {
            req = req.header("api-key", k);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().map_err(|e| self.fail(what, e.to_string()))?;
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let text = resp.text().map_err(|e| self.fail(what, e.to_string()))?;
        if !status.is_success() {
            let detail: String = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["status"]["error"].as_str().map(String::from))
                .unwrap_or_else(|| text.chars().take(300).collect());
            let hint = if status == reqwest::StatusCode::UNAUTHORIZED
                || status == reqwest::StatusCode::FORBIDDEN
            {
                "; set QDRANT_API_KEY to the server's key"
            } else {
                ""
            };
            return Err(self.fail(what, format!("HTTP {status}: {detail}{hint}")));
        }
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| self.fail(what, format!("the answer is not JSON: {e}")))
    }

    /// Create the collection for `dims`-dimensional cosine vectors, or check that the one
    /// there has that size.
    pub fn ensure_collection(&self, dims: usize) -> Result<(), DocsError> {
        match self.call(reqwest::Method::GET, "", None, "reading the collection")? {
            Some(v) => {
                let size = v["result"]["config"]["params"]["vectors"]["size"].as_u64();
                match size {
                    Some(s) if s as usize != dims => Err(self.fail(
                        "checking the collection",
                        format!(
                            "it holds {s}-dimensional vectors and this index {dims}: index with the same model, or pass another --qdrant-collection"
                        ),
                    )),
                    _ => Ok(()),
                }
            }
            None => {
                let body = json!({"vectors": {"size": dims, "distance": "Cosine"}});
                self.call(
                    reqwest::Method::PUT,
                    "",
                    Some(&body),
                    "creating the collection",
                )?;
                Ok(())
            }
        }
    }

    /// Every point's id and stored version.
    fn stored(&self) -> Result<HashMap<String, String>, DocsError> {
        let mut out = HashMap::new();
        let mut offset = Value::Null;
        loop {
            let mut body =
                json!({"limit": SCROLL_PAGE, "with_payload": ["version"], "with_vector": false});
            if !offset.is_null() {
                body["offset"] = offset.clone();
            }
            let v = self
                .call(
                    reqwest::Method::POST,
                    "/points/scroll",
                    Some(&body),
                    "listing points",
                )?
                .unwrap_or(Value::Null);
            let points = v["result"]["points"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for p in &points {
                let id = match &p["id"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let ver = p["payload"]["version"].as_str().unwrap_or("").to_string();
                out.insert(id, ver);
            }
            offset = v["result"]["next_page_offset"].clone();
            if offset.is_null() || points.is_empty() {
                return Ok(out);
            }
        }
    }

    /// Make the collection hold exactly the index's chunks: upsert new and changed ones,
    /// delete the rest. The index needs vectors.
    pub fn sync(&self, index: &DocsIndex) -> Result<SyncStats, DocsError> {
        let (Some(vectors), Some(dims)) = (&index.vectors, index.manifest.dims) else {
            return Err(DocsError::Options(
                "the Qdrant store holds vectors: index with --model DIR".into(),
            ));
        };
        let model = index.manifest.embedder.clone().unwrap_or_default();
        self.ensure_collection(dims)?;
        let stored = self.stored()?;
        let mut stats = SyncStats {
            collection: self.collection.clone(),
            ..SyncStats::default()
        };
        let mut keep = HashSet::new();
        let mut batch = Vec::new();
        for (c, v) in index.chunks.iter().zip(vectors) {
            let id = point_id(&c.id);
            let ver = version(c, &model);
            keep.insert(id.clone());
            if stored.get(&id) == Some(&ver) {
                stats.unchanged += 1;
                continue;
            }
            batch.push(json!({"id": id, "vector": v, "payload": {
                "chunkId": c.id, "url": c.url, "title": c.title, "headingPath": c.heading_path,
                "text": c.text, "tokens": c.tokens, "version": ver, "source": index.manifest.source,
            }}));
            if batch.len() == UPSERT_BATCH {
                self.upsert(std::mem::take(&mut batch))?;
            }
            stats.upserted += 1;
        }
        if !batch.is_empty() {
            self.upsert(batch)?;
        }
        let gone: Vec<&String> = stored.keys().filter(|k| !keep.contains(*k)).collect();
        for ids in gone.chunks(SCROLL_PAGE) {
            self.call(
                reqwest::Method::POST,
                "/points/delete?wait=true",
                Some(&json!({ "points": ids })),
                "deleting stale points",
            )?;
        }
        stats.deleted = gone.len();
        Ok(stats)
    }

    fn upsert(&self, points: Vec<Value>) -> Result<(), DocsError> {
        self.call(
            reqwest::Method::PUT,
            "/points?wait=true",
            Some(&json!({ "points": points })),
            "upserting points",
        )?;
        Ok(())
    }

    /// The `k` nearest chunks to a (normalised) query vector, with cosine scores.
    pub fn nearest(&self, vector: &[f32], k: usize) -> Result<Vec<(Chunk, f32)>, DocsError> {
        let body = json!({"vector": vector, "limit": k, "with_payload": true});
        let v = self
            .call(
                reqwest::Method::POST,
                "/points/search",
                Some(&body),
                "searching",
            )?
            .ok_or_else(|| {
                self.fail(
                    "searching",
                    "no such collection: index into it first with `gqlnav docs index SOURCE --store qdrant …`".into(),
                )
            })?;
        let mut out = Vec::new();
        for p in v["result"].as_array().cloned().unwrap_or_default() {
            let pl = &p["payload"];
            let s = |k: &str| pl[k].as_str().unwrap_or("").to_string();
            out.push((
                Chunk {
                    id: s("chunkId"),
                    url: s("url"),
                    title: s("title"),
                    heading_path: pl["headingPath"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default(),
                    text: s("text"),
                    tokens: pl["tokens"].as_u64().unwrap_or(0) as usize,
                },
                p["score"].as_f64().unwrap_or(0.0) as f32,
            ));
        }
        Ok(out)
    }

    /// Vector search straight from the collection (no local index): one hit per section,
    /// at most `limit`, within `budget` tokens.
    pub fn search(
        &self,
        q: &str,
        embedder: &dyn Embedder,
        limit: usize,
        budget: Option<usize>,
    ) -> Result<DocResults, DocsError> {
        let mut qv = embedder
            .embed_query(q)
            .map_err(|e| DocsError::Embed(e.to_string()))?;
        let n = qv.iter().map(|x| x * x).sum::<f32>().sqrt();
        if n > 0.0 {
            qv.iter_mut().for_each(|x| *x /= n);
        }
        let got = self.nearest(&qv, (limit.max(1) * 4).min(200))?;
        let mut seen = HashSet::new();
        let chunks: Vec<(Chunk, f32)> = got
            .into_iter()
            .filter(|(c, _)| seen.insert(c.url.clone()))
            .collect();
        let scored: Vec<Scored> = chunks
            .iter()
            .enumerate()
            .map(|(i, (_, s))| Scored::new(i, *s))
            .collect();
        let req = PageRequest {
            budget,
            ..PageRequest::first(limit.max(1))
        };
        let p = page(&scored, &req, |slot| {
            let c = &chunks[slot.scored.doc].0;
            (DocHit::of(c, slot.rank, slot.score), c.tokens)
        });
        Ok(DocResults {
            mode: Mode::Vector,
            tokens: p.tokens,
            more: p.more,
            hits: p.items,
        })
    }
}
