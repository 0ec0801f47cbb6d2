//! The docs index: chunks of sections with their payload, optional vectors, BM25 over
//! the chunk text; saved as a generation directory that a `CURRENT` file points to, so a
//! reindex replaces the whole index with one atomic rename.

use std::path::{Path, PathBuf};

use gqlnav_corpus::TokenMeter;
use sha2::{Digest, Sha256};
use text_splitter::{ChunkConfig, ChunkSizer, TextSplitter};

use crate::error::DocsError;
use crate::html::Section;

/// Default chunk size, o200k_base tokens (all-MiniLM-L6-v2 reads 256 word pieces; 200
/// o200k tokens of English prose stay under that).
pub const CHUNK_TOKENS: usize = 200;
/// Default overlap between consecutive chunks of one section, tokens.
pub const CHUNK_OVERLAP: usize = 30;

/// One searchable chunk and its payload.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    /// Stable id: hash of url, anchor and chunk number (16 hex digits).
    pub id: String,
    /// The page URL (or path relative to a local source) and `#anchor`.
    pub url: String,
    pub title: String,
    pub heading_path: Vec<String>,
    pub text: String,
    /// Tokens of `text`, o200k_base.
    pub tokens: usize,
}

/// One indexed page: what a reindex compares.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRecord {
    pub url: String,
    /// sha256 of the page body.
    pub hash: String,
    #[serde(default)]
    pub etag: Option<String>,
    #[serde(default)]
    pub last_modified: Option<String>,
    /// Ids of its chunks.
    pub chunks: Vec<String>,
}

/// What a saved index says about itself.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub source: String,
    pub pages: Vec<PageRecord>,
    /// The embedder's id when vectors were written.
    pub embedder: Option<String>,
    pub dims: Option<usize>,
    pub chunk_tokens: usize,
    pub chunk_overlap: usize,
}

struct MeterSizer<'a>(&'a TokenMeter);

impl ChunkSizer for MeterSizer<'_> {
    fn size(&self, chunk: &str) -> usize {
        self.0.count(chunk)
    }
}

/// Stable chunk id.
pub fn chunk_id(url: &str, n: usize) -> String {
    let mut h = Sha256::new();
    h.update(url.as_bytes());
    h.update([0]);
    h.update(n.to_le_bytes());
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// sha256 of a body, hex.
pub fn content_hash(body: &[u8]) -> String {
    Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Split a page's sections into chunks of at most `size` tokens with `overlap`.
pub fn chunk_page(
    page_url: &str,
    title: &str,
    sections: &[Section],
    meter: &TokenMeter,
    size: usize,
    overlap: usize,
) -> Result<Vec<Chunk>, DocsError> {
    let config = ChunkConfig::new(size.max(16))
        .with_sizer(MeterSizer(meter))
        .with_overlap(overlap.min(size.max(16) / 2))
        .map_err(|e| DocsError::Options(format!("chunk overlap: {e}")))?;
    let splitter = TextSplitter::new(config);
    let mut out = Vec::new();
    for s in sections {
        if s.text.trim().is_empty() {
            continue;
        }
        let url = if s.anchor.is_empty() {
            page_url.to_string()
        } else {
            format!("{page_url}#{}", s.anchor)
        };
        for (n, text) in splitter.chunks(&s.text).enumerate() {
            out.push(Chunk {
                id: chunk_id(&url, n),
                url: url.clone(),
                title: title.to_string(),
                heading_path: s.heading_path.clone(),
                tokens: meter.count(text),
                text: text.to_string(),
            });
        }
    }
    Ok(out)
}

/// An index in memory.
#[derive(Debug, Clone)]
pub struct DocsIndex {
    pub manifest: Manifest,
    pub chunks: Vec<Chunk>,
    /// One per chunk, L2-normalised, when an embedder was used.
    pub vectors: Option<Vec<Vec<f32>>>,
}

const CURRENT: &str = "CURRENT";

fn io(p: &Path, e: std::io::Error) -> DocsError {
    DocsError::Io {
        path: p.display().to_string(),
        source: e,
    }
}

impl DocsIndex {
    /// Write into `dir` as a new generation, then point `CURRENT` at it (an atomic rename)
    /// and remove older generations. A reader that opened the old generation keeps it.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, DocsError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let name = format!("gen-{stamp}");
        let gen = dir.join(&name);
        std::fs::create_dir_all(&gen).map_err(|e| io(&gen, e))?;
        let write = |f: &str, bytes: &[u8]| {
            let p = gen.join(f);
            std::fs::write(&p, bytes).map_err(|e| io(&p, e))
        };
        write(
            "manifest.json",
            serde_json::to_string_pretty(&self.manifest)
                .unwrap_or_default()
                .as_bytes(),
        )?;
        let mut lines = String::new();
        for c in &self.chunks {
            lines.push_str(&serde_json::to_string(c).unwrap_or_default());
            lines.push('\n');
        }
        write("chunks.jsonl", lines.as_bytes())?;
        if let Some(v) = &self.vectors {
            let mut bytes = Vec::with_capacity(v.len() * v.first().map_or(0, Vec::len) * 4);
            for row in v {
                for x in row {
                    bytes.extend_from_slice(&x.to_le_bytes());
                }
            }
            write("vectors.f32", &bytes)?;
        }
        let tmp = dir.join(format!("{CURRENT}.tmp"));
        std::fs::write(&tmp, &name).map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, dir.join(CURRENT)).map_err(|e| io(dir, e))?;
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if n.starts_with("gen-") && n != name {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        Ok(gen)
    }

    /// The generation `CURRENT` in `dir` names, if `dir` holds an index.
    pub fn current_generation(dir: &Path) -> Option<String> {
        std::fs::read_to_string(dir.join(CURRENT))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// Open the generation `CURRENT` points to.
    pub fn load(dir: &Path) -> Result<DocsIndex, DocsError> {
        let cur = dir.join(CURRENT);
        let name = std::fs::read_to_string(&cur).map_err(|_| {
            DocsError::NotAnIndex(format!(
                "{} has no {CURRENT} file; build one with `gqlnav docs index SOURCE --out {}`",
                dir.display(),
                dir.display()
            ))
        })?;
        let gen = dir.join(name.trim());
        let bad = |what: String| DocsError::NotAnIndex(format!("{}: {what}", gen.display()));
        let read = |f: &str| std::fs::read(gen.join(f));
        let manifest: Manifest = serde_json::from_slice(
            &read("manifest.json").map_err(|e| bad(format!("manifest.json: {e}")))?,
        )
        .map_err(|e| bad(format!("manifest.json is malformed: {e}")))?;
        let text = read("chunks.jsonl").map_err(|e| bad(format!("chunks.jsonl: {e}")))?;
        let mut chunks = Vec::new();
        for (i, line) in String::from_utf8_lossy(&text).lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            chunks.push(
                serde_json::from_str::<Chunk>(line)
                    .map_err(|e| bad(format!("chunks.jsonl line {}: {e}", i + 1)))?,
            );
        }
        let vectors = match (manifest.dims, read("vectors.f32")) {
            (Some(d), Ok(bytes)) if d > 0 => {
                if bytes.len() != d * 4 * chunks.len() {
                    return Err(bad(format!(
                        "vectors.f32 holds {} bytes, expected {} ({} chunks × {d} dims × 4)",
                        bytes.len(),
                        d * 4 * chunks.len(),
                        chunks.len()
                    )));
                }
                Some(
                    bytes
                        .chunks_exact(d * 4)
                        .map(|row| {
                            row.chunks_exact(4)
                                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                                .collect()
                        })
                        .collect(),
                )
            }
            _ => None,
        };
        Ok(DocsIndex {
            manifest,
            chunks,
            vectors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fit_their_size_and_ids_are_stable() {
        let meter = TokenMeter::default();
        let text = "word ".repeat(1000);
        let s = Section {
            anchor: "a".into(),
            heading_path: vec!["T".into()],
            text,
        };
        let c = chunk_page("p.html", "T", std::slice::from_ref(&s), &meter, 100, 10).unwrap();
        assert!(c.len() >= 10, "{}", c.len());
        assert!(c.iter().all(|c| c.tokens <= 100));
        assert!(c.iter().all(|c| c.url == "p.html#a"));
        let again = chunk_page("p.html", "T", &[s], &meter, 100, 10).unwrap();
        assert_eq!(c, again);
        assert_ne!(c[0].id, c[1].id);
    }
}
