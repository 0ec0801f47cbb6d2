//! Candidate root paths per type, remembered across questions ([`Slicer::warm`] fills
//! the memo up front), and saving and restoring that memo so that a saved index can
//! skip `warm` ([`Slicer::export_paths`], [`Slicer::import_paths`]).
//!
//! Saved form (binary; integers are LEB128 varints unless said otherwise):
//! `gqlnav-paths` magic, format version, the schema fingerprint (8 bytes, little
//! endian), the number of entries, then per entry the type name (length, UTF-8 bytes),
//! the path choices, the maximum depth and the number of paths, and per path a
//! from-the-query-root flag byte, the number of docs and the docs.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap as HashMap;

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{PathOptions, RootKind};

use crate::index::Slicer;
use crate::SliceError;

/// Candidate root paths of one type: (starts at the query root, docs root first).
pub(crate) type Paths = Arc<Vec<(bool, Vec<usize>)>>;

/// (type, choices, depth) -> candidate root paths as docs.
pub(crate) type PathDocsMemo = Mutex<HashMap<(String, usize, usize), Paths>>;

const MAGIC: &[u8] = b"gqlnav-paths";

/// Bump when the saved form or the path rules (`SchemaGraph::paths_to_type`, the corpus
/// order) change: saved paths of another version are refused.
const VERSION: u64 = 1;

impl Slicer {
    /// Candidate paths from the query root (or else subscription root) to `ty`, as docs,
    /// remembered across questions (they do not depend on the question).
    pub(crate) fn path_docs(&self, ty: &str, choices: usize, depth: usize) -> Paths {
        let key = (ty.to_string(), choices, depth);
        if let Some(p) = self
            .path_docs_memo
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return p;
        }
        let q_root = self.graph.root(RootKind::Query).unwrap_or("Query");
        let paths = self.graph.paths_to_type(
            ty,
            None,
            PathOptions {
                max_paths: choices,
                max_depth: depth,
                include_mutation: false,
                selectable_first: false,
            },
        );
        let mut out = Vec::with_capacity(paths.len());
        for p in paths {
            let docs: Vec<usize> = p
                .iter()
                .filter_map(|c| self.doc_of.get(c).copied())
                .collect();
            if docs.len() != p.len() {
                continue;
            }
            let from_query = p
                .first()
                .is_some_and(|c| c.split('.').next() == Some(q_root));
            out.push((from_query, docs));
        }
        let out = Arc::new(out);
        if let Ok(mut m) = self.path_docs_memo.lock() {
            m.insert(key, out.clone());
        }
        out
    }

    /// The remembered root paths (after [`Slicer::warm`], or what slicing has filled in),
    /// in the binary form [`Slicer::import_paths`] reads, entries sorted by key. The
    /// bytes name the format version and this schema's fingerprint.
    pub fn export_paths(&self) -> Vec<u8> {
        let memo = self
            .path_docs_memo
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut entries: Vec<(&(String, usize, usize), &Paths)> = memo.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put(&mut out, VERSION);
        out.extend_from_slice(&self.fingerprint().to_le_bytes());
        put(&mut out, entries.len() as u64);
        for ((ty, choices, depth), paths) in entries {
            put(&mut out, ty.len() as u64);
            out.extend_from_slice(ty.as_bytes());
            put(&mut out, *choices as u64);
            put(&mut out, *depth as u64);
            put(&mut out, paths.len() as u64);
            for (from_query, docs) in paths.iter() {
                out.push(u8::from(*from_query));
                put(&mut out, docs.len() as u64);
                for &d in docs {
                    put(&mut out, d as u64);
                }
            }
        }
        out
    }

    /// Restore root paths saved by [`Slicer::export_paths`] from a slicer over the same
    /// schema (slices are then those of a warmed slicer, without the warming). Entries
    /// already remembered are replaced by the saved ones (they are equal). Nothing is
    /// imported when the data is malformed, of another format version, or of another
    /// schema.
    pub fn import_paths(&self, data: &[u8]) -> Result<(), SliceError> {
        let entries = self.read_paths(data)?;
        let mut memo = self
            .path_docs_memo
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (key, paths) in entries {
            memo.insert(key, Arc::new(paths));
        }
        Ok(())
    }

    #[allow(clippy::type_complexity)]
    fn read_paths(
        &self,
        data: &[u8],
    ) -> Result<Vec<((String, usize, usize), Vec<(bool, Vec<usize>)>)>, SliceError> {
        let mut r = Reader { data, pos: 0 };
        if r.bytes(MAGIC.len())? != MAGIC {
            return Err(SliceError::Paths(
                "not saved root paths (no gqlnav-paths header): pass the bytes of \
                 Slicer::export_paths"
                    .into(),
            ));
        }
        let version = r.varint()?;
        if version != VERSION {
            return Err(SliceError::Paths(format!(
                "format version {version}, this slicer reads version {VERSION}: export \
                 the paths again with this version (or warm the slicer)"
            )));
        }
        let mut fp = [0u8; 8];
        fp.copy_from_slice(r.bytes(8)?);
        let (saved, here) = (u64::from_le_bytes(fp), self.fingerprint());
        if saved != here {
            return Err(SliceError::Paths(format!(
                "saved for another schema (fingerprint {saved:016x}, this schema \
                 {here:016x}): export the paths from a slicer over this schema (or warm it)"
            )));
        }
        let n_docs = self.corpus.len();
        let mut entries = Vec::new();
        for _ in 0..r.varint()? {
            let len = r.usize()?;
            let ty = match std::str::from_utf8(r.bytes(len)?) {
                Ok(t) => t.to_string(),
                Err(_) => return Err(r.error("a type name is not UTF-8")),
            };
            let key = (ty, r.usize()?, r.usize()?);
            let mut paths = Vec::new();
            for _ in 0..r.varint()? {
                let from_query = match r.bytes(1)?[0] {
                    0 => false,
                    1 => true,
                    _ => return Err(r.error("a path flag is neither 0 nor 1")),
                };
                let mut docs = Vec::new();
                for _ in 0..r.varint()? {
                    let d = r.usize()?;
                    if d >= n_docs {
                        return Err(r.error("a doc is out of the corpus"));
                    }
                    docs.push(d);
                }
                paths.push((from_query, docs));
            }
            entries.push((key, paths));
        }
        if r.pos != data.len() {
            return Err(r.error("trailing bytes after the last entry"));
        }
        Ok(entries)
    }

    /// FNV-1a 64 of what root paths depend on: the corpus (coordinates and return types,
    /// in order: docs are corpus positions), the possible types of every interface and
    /// union, and the root types.
    fn fingerprint(&self) -> u64 {
        let mut h = gqlnav_schema::Fnv64::new();
        for e in &self.corpus.entries {
            h.write(e.coordinate.as_bytes());
            h.write(b"\0");
            h.write(e.return_type.as_bytes());
            h.write(b"\n");
        }
        for (name, t) in &self.graph.schema.types {
            if matches!(t, ExtendedType::Interface(_) | ExtendedType::Union(_)) {
                h.write(name.as_bytes());
                h.write(b"=");
                for p in self.graph.possible_types(name) {
                    h.write(p.as_bytes());
                    h.write(b",");
                }
                h.write(b"\n");
            }
        }
        for kind in [RootKind::Query, RootKind::Mutation, RootKind::Subscription] {
            h.write(self.graph.root(kind).unwrap_or("").as_bytes());
            h.write(b"\n");
        }
        h.finish()
    }
}

/// Append a LEB128 varint.
fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A bounds-checked cursor over saved bytes.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> SliceError {
        SliceError::Paths(format!(
            "malformed at byte {}: {what} (export the paths again)",
            self.pos
        ))
    }

    fn bytes(&mut self, n: usize) -> Result<&[u8], SliceError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.error("cut short"))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, SliceError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.bytes(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.error("a number is too long"))
    }

    fn usize(&mut self) -> Result<usize, SliceError> {
        let v = self.varint()?;
        usize::try_from(v).map_err(|_| self.error("a number is too large"))
    }
}
