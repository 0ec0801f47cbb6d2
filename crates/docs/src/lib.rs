//! gqlnav docs stage: documentation next to the schema. Pages (a sitemap, a site root or a
//! local directory of HTML/Markdown) are read into sections by heading, split into
//! token-sized chunks with overlap, embedded with the existing [`gqlnav_embed::Embedder`]
//! when a model is given, and searched by BM25, vectors or both.
//!
//! - [`html`]: HTML / Markdown → main content → sections (anchor, heading path, text).
//! - [`source`]: where pages come from, with the fetch safety rules, and the index build.
//! - [`index`]: chunks, ids, the saved form (generations behind an atomic `CURRENT`).
//! - [`live`]: a served index that reindexes on a schedule and swaps atomically.
//! - [`qdrant`]: the shared store for a fleet: chunks and vectors in a Qdrant collection.
//! - [`search`]: BM25 / vector / hybrid search, one hit per section, under a budget.

mod error;
mod html;
mod index;
mod live;
mod qdrant;
mod search;
mod source;

pub use error::DocsError;
pub use html::{html_page, markdown_page, slug, Page, Section};
pub use index::{
    chunk_id, chunk_page, content_hash, Chunk, DocsIndex, Manifest, PageRecord, CHUNK_OVERLAP,
    CHUNK_TOKENS,
};
pub use live::{DocsOrigin, LiveDocs, Reindexed};
pub use qdrant::{collection_for, point_id, QdrantStore, SyncStats};
pub use search::{DocHit, DocResults, DocsSearcher, Mode};
pub use source::{build_index, BuildOptions, BuildStats, FetchPolicy, Source};
