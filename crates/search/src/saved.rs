//! Saved indexes: an indexed backend written to a directory once (`gqlnav index`) and
//! loaded at start-up without re-indexing.
//!
//! Every saved index directory holds:
//!
//! | file | what |
//! |---|---|
//! | `manifest.json` | [`Manifest`]: format, backend kind, name and config, the schema and corpus fingerprints, rendering, encoding, the files with their sizes and hashes |
//! | `tokens.bin` | token count of every corpus entry's rendered text (u32 little-endian, corpus order), so start-up need not load a BPE |
//! | backend files | `bm25`: tantivy's files + `bm25.json`; `structure`: `structure.bin`, `fields/`, `types/`; `vector`: `vectors.f32`; `hybrid`: `a/` and `b/`, each a saved index of its own |
//!
//! A directory is written into a temporary sibling and renamed into place, so a crash
//! never leaves a half index. Loading checks the format, the backend kind, the schema
//! fingerprint ([`schema_fingerprint`]) against the schema being served, the corpus
//! fingerprint ([`crate::bm25::fingerprint`]) and every listed file's length and hash;
//! any mismatch is a [`SearchError`] that says what to do, never a panic.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, Encoding, RenderedCorpus, Rendering};
use gqlnav_schema::SchemaGraph;

use crate::{SearchBackend, SearchContext, SearchError};

/// Version of the saved layout; a loader refuses any other.
pub const FORMAT: u32 = 1;
/// The manifest's file name.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The token counts' file name.
pub const TOKENS_FILE: &str = "tokens.bin";

/// What a saved index directory says about itself.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// [`FORMAT`] of the writer.
    pub format: u32,
    /// The crate and version that wrote it, e.g. `gqlnav-search 0.1.0`.
    pub created_by: String,
    /// Backend kind: `structure`, `bm25`, `vector` or `hybrid`.
    pub backend: String,
    /// The backend's [`SearchBackend::name`].
    pub name: String,
    /// Backend settings (weights, BM25 config, fusion rule, ...).
    pub config: serde_json::Value,
    /// The [`crate::SearchBackend`] needs this embedder to embed questions (its `id`);
    /// `None` for lexical backends.
    pub embedder: Option<String>,
    /// [`schema_fingerprint`] of the schema the index was built from.
    pub schema: String,
    pub corpus: CorpusStamp,
    /// Every file under the directory except the manifest and nested saved indexes.
    pub files: Vec<FileStamp>,
}

/// The corpus and rendering an index covers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CorpusStamp {
    pub entries: usize,
    pub options: CorpusOptions,
    pub rendering: Rendering,
    /// The encoding of `tokens.bin`.
    pub encoding: Encoding,
    /// [`crate::bm25::fingerprint`] of the context.
    pub fingerprint: String,
}

/// One file of a saved index.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    /// Path relative to the index directory, `/`-separated.
    pub path: String,
    pub bytes: u64,
    /// [`hash_bytes`] of the content, hex.
    pub hash: String,
}

impl FileStamp {
    /// The file's bytes, when it is there, whole and unchanged.
    pub fn read_verified(&self, dir: &Path) -> Result<Vec<u8>, SearchError> {
        if self.path.split('/').any(|c| c == ".." || c.is_empty()) {
            return Err(err(
                dir,
                format!("{MANIFEST_FILE} lists a bad path `{}`", self.path),
            ));
        }
        let bytes = std::fs::read(dir.join(&self.path)).map_err(|e| {
            err(
                dir,
                format!(
                    "cannot read `{}` ({e}); the index is incomplete: rebuild it with `gqlnav index`",
                    self.path
                ),
            )
        })?;
        if bytes.len() as u64 != self.bytes || format!("{:016x}", hash_bytes(&bytes)) != self.hash {
            return Err(err(
                dir,
                format!(
                    "`{}` is corrupted or truncated ({} bytes, {} expected); rebuild the index with `gqlnav index`",
                    self.path,
                    bytes.len(),
                    self.bytes
                ),
            ));
        }
        Ok(bytes)
    }
}

/// What a backend says about itself when it saves (the rest of the manifest comes from
/// the context and the files).
#[derive(Debug, Clone)]
pub struct ManifestHeader {
    pub backend: String,
    pub name: String,
    pub config: serde_json::Value,
    pub embedder: Option<String>,
}

/// A fast 64-bit content hash (FNV-style over 8-byte words, then the tail bytes and the
/// length), to detect corrupted or truncated files. Not cryptographic.
pub fn hash_bytes(b: &[u8]) -> u64 {
    const P: u64 = 0x100000001b3;
    let mut h: u64 = 0xcbf29ce484222325;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(P);
        h ^= h >> 29;
    }
    for &x in words.remainder() {
        h = (h ^ x as u64).wrapping_mul(P);
    }
    h ^= b.len() as u64;
    h = h.wrapping_mul(P);
    h ^ (h >> 32)
}

/// A fingerprint of everything in a schema that any ranker reads
/// ([`SchemaGraph::fingerprint`], computed once per graph).
pub fn schema_fingerprint(graph: &SchemaGraph) -> String {
    graph.fingerprint().to_string()
}

fn err(dir: &Path, reason: impl Into<String>) -> SearchError {
    SearchError::saved_index(dir, reason)
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> SearchError {
    SearchError::saved_index(path, format!("cannot {what}: {e}"))
}

/// tantivy's empty lock files (`.tantivy-meta.lock`, `.tantivy-writer.lock`) hold no
/// data and may be re-created by any reader, so they are not part of the index.
fn is_lock_file(name: &str) -> bool {
    name.starts_with(".tantivy-") && name.ends_with(".lock")
}

/// The files under `dir` (relative, `/`-separated, sorted), skipping the manifest and any
/// subdirectory that is a saved index of its own.
fn list_files(dir: &Path) -> Result<Vec<String>, SearchError> {
    fn walk(root: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), SearchError> {
        let here = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(rel)
        };
        let rd = std::fs::read_dir(&here).map_err(|e| io_err(&here, "list the directory", e))?;
        for e in rd {
            let e = e.map_err(|e| io_err(&here, "list the directory", e))?;
            let name = e.file_name().to_string_lossy().to_string();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let ft = e
                .file_type()
                .map_err(|e| io_err(&e_path(&here, &name), "stat", e))?;
            if ft.is_dir() {
                if !root.join(&path).join(MANIFEST_FILE).exists() {
                    walk(root, &path, out)?;
                }
            } else if path != MANIFEST_FILE && !is_lock_file(&name) {
                out.push(path);
            }
        }
        Ok(())
    }
    fn e_path(d: &Path, n: &str) -> PathBuf {
        d.join(n)
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    out.sort();
    Ok(out)
}

/// The stamp of a context's corpus.
pub fn corpus_stamp(ctx: &SearchContext) -> CorpusStamp {
    CorpusStamp {
        entries: ctx.corpus.len(),
        options: CorpusOptions::of(&ctx.corpus),
        rendering: ctx.rendered.rendering,
        encoding: ctx.rendered.encoding,
        fingerprint: crate::bm25::fingerprint(ctx),
    }
}

/// Write a saved index atomically: `fill` writes the backend's files into a fresh
/// temporary directory next to `dir` (and may complete the header, e.g. with the
/// embedder a nested index needs); then `tokens.bin` and the manifest are added and
/// the directory is renamed to `dir`. `dir` must not exist, be empty, or be a saved
/// index (which is replaced); any other directory is refused, so nothing of the user's
/// is ever deleted.
pub fn save_dir(
    dir: &Path,
    mut header: ManifestHeader,
    ctx: &SearchContext,
    fill: impl FnOnce(&Path, &mut ManifestHeader) -> Result<(), SearchError>,
) -> Result<(), SearchError> {
    let replace = match std::fs::read_dir(dir) {
        Ok(mut rd) => {
            if rd.next().is_none() {
                false
            } else if dir.join(MANIFEST_FILE).is_file() {
                true
            } else {
                return Err(err(
                    dir,
                    "the directory exists and is not a saved gqlnav index; give a new or empty directory",
                ));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(err(dir, "it is a file; give a new or empty directory"))
        }
        Err(e) => return Err(io_err(dir, "read the directory", e)),
    };
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| io_err(&parent, "create the directory", e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".gqlnav-index-")
        .tempdir_in(&parent)
        .map_err(|e| io_err(&parent, "create a temporary directory", e))?;
    fill(tmp.path(), &mut header)?;
    let tokens: Vec<u8> = ctx
        .rendered
        .tokens
        .iter()
        .flat_map(|&t| (t.min(u32::MAX as usize) as u32).to_le_bytes())
        .collect();
    write_file(&tmp.path().join(TOKENS_FILE), &tokens)?;
    let mut files = Vec::new();
    for rel in list_files(tmp.path())? {
        let p = tmp.path().join(&rel);
        let bytes = std::fs::read(&p).map_err(|e| io_err(&p, "read", e))?;
        files.push(FileStamp {
            path: rel,
            bytes: bytes.len() as u64,
            hash: format!("{:016x}", hash_bytes(&bytes)),
        });
    }
    let manifest = Manifest {
        format: FORMAT,
        created_by: concat!("gqlnav-search ", env!("CARGO_PKG_VERSION")).to_string(),
        backend: header.backend,
        name: header.name,
        config: header.config,
        embedder: header.embedder,
        schema: schema_fingerprint(&ctx.graph),
        corpus: corpus_stamp(ctx),
        files,
    };
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| err(dir, format!("cannot write the manifest: {e}")))?;
    write_file(&tmp.path().join(MANIFEST_FILE), text.as_bytes())?;
    let tmp = tmp.keep();
    let fail = |e: SearchError| {
        let _ = std::fs::remove_dir_all(&tmp);
        e
    };
    if replace {
        // Move the old index aside, move the new one in, then delete the old one: `dir`
        // holds a whole index at every moment but the instant between the two renames.
        let old = parent.join(format!(
            ".gqlnav-index-old-{}-{}",
            std::process::id(),
            dir.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old).map_err(|e| fail(io_err(dir, "move the old index aside", e)))?;
        if let Err(e) = std::fs::rename(&tmp, dir) {
            let _ = std::fs::rename(&old, dir);
            return Err(fail(io_err(dir, "move the new index into place", e)));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else {
        if dir.exists() {
            std::fs::remove_dir(dir)
                .map_err(|e| fail(io_err(dir, "replace the empty directory", e)))?;
        }
        std::fs::rename(&tmp, dir)
            .map_err(|e| fail(io_err(dir, "move the new index into place", e)))?;
    }
    Ok(())
}

/// Write a file and flush it to disk.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SearchError> {
    use std::io::Write;
    let mut f = std::fs::File::create(path).map_err(|e| io_err(path, "create", e))?;
    f.write_all(bytes).map_err(|e| io_err(path, "write", e))?;
    f.sync_all().map_err(|e| io_err(path, "write", e))
}

impl Manifest {
    /// Read `dir/manifest.json` and check its format version.
    pub fn read(dir: &Path) -> Result<Manifest, SearchError> {
        let p = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(err(
                    dir,
                    format!("there is no {MANIFEST_FILE}: not a saved gqlnav index (or one written by an older gqlnav); build one with `gqlnav index --schema <schema> --out {}`", dir.display()),
                ))
            }
            Err(e) => return Err(io_err(&p, "read", e)),
        };
        let m: Manifest = serde_json::from_str(&text).map_err(|e| {
            err(
                dir,
                format!(
                    "{MANIFEST_FILE} is malformed ({e}); rebuild the index with `gqlnav index`"
                ),
            )
        })?;
        if m.format != FORMAT {
            return Err(err(
                dir,
                format!(
                    "it has format {} and this gqlnav reads format {FORMAT}; rebuild it with `gqlnav index`",
                    m.format
                ),
            ));
        }
        Ok(m)
    }

    /// Check that every listed file is there, whole and unchanged.
    pub fn verify_files(&self, dir: &Path) -> Result<(), SearchError> {
        for f in &self.files {
            f.read_verified(dir)?;
        }
        Ok(())
    }

    /// Read one listed file, checked against its stamp.
    pub fn read_verified(&self, dir: &Path, path: &str) -> Result<Vec<u8>, SearchError> {
        let f = self.files.iter().find(|f| f.path == path).ok_or_else(|| {
            err(
                dir,
                format!(
                    "{MANIFEST_FILE} does not list `{path}`; rebuild the index with `gqlnav index`"
                ),
            )
        })?;
        f.read_verified(dir)
    }
    /// Check that the index was built for this schema (the schema fingerprint only).
    pub fn check_schema(&self, dir: &Path, graph: &SchemaGraph) -> Result<(), SearchError> {
        let now = schema_fingerprint(graph);
        if self.schema != now {
            return Err(SearchError::WrongSchema {
                path: dir.display().to_string(),
                saved: self.schema.clone(),
                current: now,
                source_label: graph.source.clone(),
                backend: self.backend.clone(),
            });
        }
        Ok(())
    }

    /// Check the whole context: schema, corpus, rendering and encoding.
    pub fn check_context(&self, dir: &Path, ctx: &SearchContext) -> Result<(), SearchError> {
        self.check_schema(dir, &ctx.graph)?;
        let now = corpus_stamp(ctx);
        if now.fingerprint != self.corpus.fingerprint || now.entries != self.corpus.entries {
            return Err(err(
                dir,
                format!(
                    "it indexes another corpus or rendering ({} entries in {}, the context has {} in {}); load the context with `saved::load_context` or rebuild the index with `gqlnav index`",
                    self.corpus.entries, self.corpus.rendering, now.entries, now.rendering
                ),
            ));
        }
        Ok(())
    }
}

/// Open a saved index of kind `backend` for a context: read the manifest, check the
/// kind, the context and the files. Backends call this first in their `load`.
pub fn open(dir: &Path, ctx: &SearchContext, backend: &str) -> Result<Manifest, SearchError> {
    let m = Manifest::read(dir)?;
    if m.backend != backend {
        return Err(err(
            dir,
            format!(
                "it holds a `{}` index, not `{backend}`; load it with `saved::load_backend` or rebuild it with `--backend {backend}`",
                m.backend
            ),
        ));
    }
    m.check_context(dir, ctx)?;
    m.verify_files(dir)?;
    Ok(m)
}

/// `n` little-endian u32 values of a file's bytes.
fn u32s(dir: &Path, bytes: &[u8], n: usize) -> Result<Vec<u32>, SearchError> {
    if bytes.len() != n * 4 {
        return Err(err(
            dir,
            format!(
                "{TOKENS_FILE} holds {} bytes, expected {} for {n} entries; rebuild the index with `gqlnav index`",
                bytes.len(),
                n * 4
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// The search context of a saved index over `graph`: the corpus is rebuilt from the
/// schema (fast), texts rendered, token counts read from `tokens.bin` (no BPE needed),
/// and the schema and corpus fingerprints checked.
pub fn load_context(dir: &Path, graph: Arc<SchemaGraph>) -> Result<SearchContext, SearchError> {
    let m = Manifest::read(dir)?;
    m.check_schema(dir, &graph)?;
    let corpus = Arc::new(Corpus::build(&graph, m.corpus.options));
    if corpus.len() != m.corpus.entries {
        return Err(err(
            dir,
            format!(
                "the corpus rebuilt from the schema has {} entries, the index {}; rebuild the index with `gqlnav index`",
                corpus.len(),
                m.corpus.entries
            ),
        ));
    }
    let tokens = u32s(dir, &m.read_verified(dir, TOKENS_FILE)?, corpus.len())?;
    let rendered = RenderedCorpus::from_counts(
        &corpus,
        m.corpus.rendering,
        m.corpus.encoding,
        tokens.into_iter().map(|t| t as usize).collect(),
    )
    .ok_or_else(|| {
        err(
            dir,
            "the token counts do not match the corpus; rebuild the index with `gqlnav index`",
        )
    })?;
    let rendered = Arc::new(rendered);
    let ctx = SearchContext::new(graph, corpus, rendered);
    if crate::bm25::fingerprint(&ctx) != m.corpus.fingerprint {
        return Err(err(
            dir,
            "the corpus rebuilt from the schema differs from the indexed one; rebuild the index with `gqlnav index`",
        ));
    }
    Ok(ctx)
}

/// Load a saved lexical index (`structure` or `bm25`) for a context. Vector and hybrid
/// indexes need an embedder: load those with `gqlnav_embed::load_backend`.
pub fn load_backend(
    dir: &Path,
    ctx: &SearchContext,
) -> Result<Box<dyn SearchBackend>, SearchError> {
    let m = Manifest::read(dir)?;
    match m.backend.as_str() {
        "structure" => Ok(Box::new(crate::StructureBackend::load(dir, ctx)?)),
        "bm25" => Ok(Box::new(crate::Bm25Backend::load(dir, ctx)?)),
        other => Err(err(
            dir,
            format!("it holds a `{other}` index, which needs an embedder: load it with `gqlnav_embed::load_backend`"),
        )),
    }
}

/// Little-endian writer for the binary parts of a saved index.
#[derive(Default)]
pub struct BinWriter {
    pub buf: Vec<u8>,
}

impl BinWriter {
    pub fn u32(&mut self, x: u32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    pub fn f32(&mut self, x: f32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }
    /// A count then the values (each must fit in u32).
    pub fn usizes(&mut self, v: &[usize]) {
        self.u32(v.len() as u32);
        for &x in v {
            self.u32(x as u32);
        }
    }
    /// Lists of lists as offsets (count + 1) then values.
    pub fn lists(&mut self, v: &[Vec<usize>]) {
        self.u32(v.len() as u32);
        let mut off = 0u32;
        self.u32(off);
        for l in v {
            off += l.len() as u32;
            self.u32(off);
        }
        for l in v {
            for &x in l {
                self.u32(x as u32);
            }
        }
    }
}

/// Bounds-checked little-endian reader: every read past the end is an error.
pub struct BinReader<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'a str,
}

impl<'a> BinReader<'a> {
    pub fn new(bytes: &'a [u8], what: &'a str) -> Self {
        BinReader { bytes, at: 0, what }
    }
    fn bad(&self, why: &str) -> String {
        format!("{} is malformed at byte {}: {why}", self.what, self.at)
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(e) => {
                let s = &self.bytes[self.at..e];
                self.at = e;
                Ok(s)
            }
            None => Err(self.bad("it ends early (truncated)")),
        }
    }
    pub fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
    /// `n` values, each below `bound`.
    pub fn usizes(&mut self, bound: usize) -> Result<Vec<usize>, String> {
        let n = self.u32()? as usize;
        if n > self.bytes.len() / 4 {
            return Err(self.bad("a count is larger than the file"));
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let x = self.u32()? as usize;
            if x >= bound {
                return Err(self.bad(&format!("value {x} is out of range (< {bound})")));
            }
            v.push(x);
        }
        Ok(v)
    }
    /// Lists written by [`BinWriter::lists`], values below `bound`.
    pub fn lists(&mut self, bound: usize) -> Result<Vec<Vec<usize>>, String> {
        let n = self.u32()? as usize;
        if n > self.bytes.len() / 4 {
            return Err(self.bad("a count is larger than the file"));
        }
        let mut offs = Vec::with_capacity(n + 1);
        for _ in 0..=n {
            offs.push(self.u32()? as usize);
        }
        if offs[0] != 0 || offs.windows(2).any(|w| w[0] > w[1]) {
            return Err(self.bad("list offsets are not increasing"));
        }
        let total = offs[n];
        if total > self.bytes.len() / 4 {
            return Err(self.bad("a list is larger than the file"));
        }
        let mut out = Vec::with_capacity(n);
        for w in offs.windows(2) {
            let mut l = Vec::with_capacity(w[1] - w[0]);
            for _ in w[0]..w[1] {
                let x = self.u32()? as usize;
                if x >= bound {
                    return Err(self.bad(&format!("value {x} is out of range (< {bound})")));
                }
                l.push(x);
            }
            out.push(l);
        }
        Ok(out)
    }
    pub fn finish(&self) -> Result<(), String> {
        if self.at != self.bytes.len() {
            return Err(self.bad("trailing bytes"));
        }
        Ok(())
    }
}
