//! On-disk cache of document vectors.
//!
//! One file per (embedder id, corpus texts): the file name is the hex SHA-256 of the
//! embedder id (which includes the model fingerprint and the prompts) followed by every
//! text (each length-prefixed), so any change to model, prompts or any text gives a new
//! file.
//!
//! File format (all little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `GQLNVEC\0` |
//! | 4 | version (u32, currently 1) |
//! | 4 | dims (u32) |
//! | 8 | count (u64) |
//! | 32 | the SHA-256 key (must equal the file name's key) |
//! | count × dims × 4 | the vectors, f32, row-major |
//!
//! Files are written to a temporary file in the same directory and renamed into place,
//! so a reader never sees a half-written file. [`VectorCache::load`] rejects a file whose
//! magic, version, key, count, dims or length is wrong with [`EmbedError::Cache`] or
//! [`EmbedError::DimsMismatch`]; [`crate::VectorBackend`] treats such a file as a miss,
//! warns (stderr and [`crate::IndexReport::warning`]) and overwrites it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{EmbedError, Result};

/// File magic.
pub const MAGIC: [u8; 8] = *b"GQLNVEC\0";
/// Current format version.
pub const VERSION: u32 = 1;
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 32;

/// Where (and whether) to cache document vectors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheOptions {
    /// Cache directory. `None` uses [`default_cache_dir`] (and no cache when that
    /// cannot be determined).
    pub dir: Option<PathBuf>,
    /// Never read or write the cache.
    pub no_cache: bool,
}

impl CacheOptions {
    /// The directory to use, or `None` when caching is off.
    pub fn resolve(&self) -> Option<PathBuf> {
        if self.no_cache {
            return None;
        }
        self.dir.clone().or_else(default_cache_dir)
    }
}

/// `$GQLNAV_CACHE_DIR/vectors`, else `$XDG_CACHE_HOME/gqlnav/vectors`, else
/// `$HOME/.cache/gqlnav/vectors`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("GQLNAV_CACHE_DIR") {
        return Some(d.join("vectors"));
    }
    if let Some(d) = env("XDG_CACHE_HOME") {
        return Some(d.join("gqlnav").join("vectors"));
    }
    env("HOME").map(|h| h.join(".cache").join("gqlnav").join("vectors"))
}

/// The cache key: SHA-256 over the embedder id and every text.
pub fn cache_key(embedder_id: &str, texts: &[String]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"gqlnav-vectors\0");
    h.update((embedder_id.len() as u64).to_le_bytes());
    h.update(embedder_id.as_bytes());
    h.update((texts.len() as u64).to_le_bytes());
    for t in texts {
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A row-major matrix of `count` vectors of `dims` floats.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// Vector length.
    pub dims: usize,
    /// `count × dims` values.
    pub data: Vec<f32>,
}

impl Matrix {
    /// Number of rows.
    pub fn count(&self) -> usize {
        self.data.len().checked_div(self.dims).unwrap_or(0)
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dims..(i + 1) * self.dims]
    }

    /// Build from rows, checking that all have `dims` values.
    pub fn from_rows(rows: Vec<Vec<f32>>, dims: usize, context: &str) -> Result<Matrix> {
        let mut data = Vec::with_capacity(rows.len() * dims);
        for r in rows {
            if r.len() != dims {
                return Err(EmbedError::DimsMismatch {
                    context: context.to_string(),
                    expected: dims,
                    found: r.len(),
                });
            }
            data.extend(r);
        }
        Ok(Matrix { dims, data })
    }
}

/// One cache file location.
#[derive(Debug, Clone)]
pub struct VectorCache {
    path: PathBuf,
    key: [u8; 32],
}

impl VectorCache {
    /// The cache entry for an embedder id and corpus texts inside `dir`.
    pub fn new(dir: &Path, embedder_id: &str, texts: &[String]) -> VectorCache {
        let key = cache_key(embedder_id, texts);
        VectorCache {
            path: dir.join(format!("{}.gqlvec", hex(&key))),
            key,
        }
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Read the vectors. `Ok(None)` when there is no file; an error when the file exists
    /// but does not hold `count` vectors of `dims` (when given) under this key.
    pub fn load(&self, count: usize, dims: Option<usize>) -> Result<Option<Matrix>> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(EmbedError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        };
        let bad = |reason: String| EmbedError::Cache {
            path: self.path.clone(),
            reason,
        };
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "file is {} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        }
        if bytes[0..8] != MAGIC {
            return Err(bad("wrong magic (not a gqlnav vector cache file)".into()));
        }
        let u32_at =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let version = u32_at(8);
        if version != VERSION {
            return Err(bad(format!("format version {version}, expected {VERSION}")));
        }
        let file_dims = u32_at(12) as usize;
        let mut c = [0u8; 8];
        c.copy_from_slice(&bytes[16..24]);
        let file_count = u64::from_le_bytes(c);
        if bytes[24..56] != self.key {
            return Err(bad("key in the header does not match the file name".into()));
        }
        if file_count != count as u64 {
            return Err(bad(format!(
                "holds {file_count} vectors, the corpus has {count}"
            )));
        }
        if let Some(d) = dims {
            if d != file_dims {
                return Err(EmbedError::DimsMismatch {
                    context: format!("vector cache file `{}`", self.path.display()),
                    expected: d,
                    found: file_dims,
                });
            }
        }
        if file_dims == 0 && count > 0 {
            return Err(bad("dims is 0".into()));
        }
        let want = (count as u128) * (file_dims as u128) * 4 + HEADER_LEN as u128;
        if bytes.len() as u128 != want {
            return Err(bad(format!(
                "file is {} bytes, expected {want} for {count} × {file_dims} floats",
                bytes.len()
            )));
        }
        let data: Vec<f32> = bytes[HEADER_LEN..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Some(Matrix {
            dims: file_dims,
            data,
        }))
    }

    /// Write the vectors atomically (temp file in the same directory, then rename).
    pub fn store(&self, m: &Matrix) -> Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EmbedError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(io(dir))?;
        let dims = u32::try_from(m.dims).map_err(|_| EmbedError::Cache {
            path: self.path.clone(),
            reason: format!("dims {} does not fit the format", m.dims),
        })?;
        let mut buf = Vec::with_capacity(HEADER_LEN + m.data.len() * 4);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.extend_from_slice(&dims.to_le_bytes());
        buf.extend_from_slice(&(m.count() as u64).to_le_bytes());
        buf.extend_from_slice(&self.key);
        for x in &m.data {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        let mut tmp = tempfile::Builder::new()
            .prefix(".gqlvec-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(io(dir))?;
        tmp.write_all(&buf).map_err(io(tmp.path()))?;
        tmp.as_file().sync_all().map_err(io(tmp.path()))?;
        tmp.persist(&self.path).map_err(|e| EmbedError::Io {
            path: self.path.clone(),
            source: e.error,
        })?;
        Ok(())
    }
}
