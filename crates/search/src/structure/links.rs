//! The saved form of the structure index: its settings in the manifest, and the per-doc
//! and per-type links in [`LINKS_FILE`].

use std::path::Path;

use super::{StructureBackend, StructureWeights};
use crate::bm25::Bm25Backend;
use crate::{saved, SearchContext, SearchError};

/// The settings a saved structure index records.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct SavedConfig {
    pub(super) weights: StructureWeights,
    pub(super) disabled: Vec<String>,
}

/// The per-doc and per-type links of a saved structure index.
pub(super) const LINKS_FILE: &str = "structure.bin";
const LINKS_MAGIC: &[u8; 8] = b"GQLNSTR\0";
const LINKS_VERSION: u32 = 5;

impl StructureBackend {
    /// The per-doc and per-type links as [`LINKS_FILE`] holds them (little-endian u32
    /// lists; see [`saved::BinWriter`]).
    pub(super) fn encode_links(&self) -> Vec<u8> {
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
        let mut reader_ids: Vec<Vec<usize>> = Vec::with_capacity(n_types);
        for tp in &self.type_paths {
            path_ids.push((paths.len()..paths.len() + tp.len()).collect());
            paths.extend(tp.iter().cloned());
        }
        for rp in &self.reader_paths {
            reader_ids.push((paths.len()..paths.len() + rp.len()).collect());
            paths.extend(rp.iter().cloned());
        }
        w.lists(&paths);
        w.lists(&path_ids);
        w.lists(&reader_ids);
        w.lists(&self.conn_of);
        w.lists(&self.coll_paths);
        w.lists(&self.value_of);
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
        let reader_ids = r.lists(paths.len())?;
        let conn_of = r.lists(n)?;
        let coll_paths = r.lists(n)?;
        let value_of = r.lists(n)?;
        r.finish()?;
        if owner_of.len() != n
            || ret_of.len() != n
            || conn_of.len() != n
            || path_ids.len() != n_types
            || reader_ids.len() != n_types
            || coll_paths.len() != n_types
            || value_of.len() != n
        {
            return Err(format!("{LINKS_FILE} lists do not match the corpus"));
        }
        let resolve = |ids: &[Vec<usize>]| -> Vec<Vec<Vec<usize>>> {
            ids.iter()
                .map(|ids| ids.iter().map(|&i| paths[i].clone()).collect())
                .collect()
        };
        self.type_paths = resolve(&path_ids);
        self.reader_paths = resolve(&reader_ids);
        self.owner_of = owner_of;
        self.ret_of = ret_of;
        self.depth_of = depth_of;
        self.conn_of = conn_of;
        self.coll_paths = coll_paths;
        self.value_of = value_of;
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
        b.enums = Some(super::docs::enum_index(ctx)?);
        b.rendering = ctx.rendered.rendering.name().to_string();
        b.read_facts(ctx);
        b.ctx = Some(ctx.clone());
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};

    use crate::SearchBackend;

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
        assert_eq!(c.reader_paths, b.reader_paths);
        assert_eq!(c.conn_of, b.conn_of);
        assert_eq!(c.value_of, b.value_of);
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
