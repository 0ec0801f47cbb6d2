//! Shared helpers of the search tests: the bundled WG schemas (GitHub, Linear, Singapore),
//! the bundled held-out Nautical schema, a schema from SDL text, and ranks in them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlnav_corpus::{Rendering, TokenMeter};
use gqlnav_search::{Purpose, Query, SearchBackend, SearchContext, StructureBackend};

/// A path relative to the repository root.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The 0-based rank of `coord` in the top 100 for `q`, if there.
pub fn rank_of(b: &StructureBackend, ctx: &SearchContext, q: &str, coord: &str) -> Option<usize> {
    b.search(&Query::new(q), 100)
        .unwrap()
        .iter()
        .position(|h| ctx.corpus.entries[h.doc].coordinate == coord)
}

/// Asserts the direction a stage moves `coord` for `q`: it is in the top 100 with ranker
/// `on`, and ranks strictly better than with `off` (where past the top 100 counts as
/// last). A direction, not a tuned rank: a stage that stops lifting its target fails.
pub fn assert_lifted(
    on: &StructureBackend,
    off: &StructureBackend,
    ctx: &SearchContext,
    q: &str,
    coord: &str,
) {
    let with = rank_of(on, ctx, q, coord);
    let without = rank_of(off, ctx, q, coord);
    assert!(
        with.is_some_and(|w| without.is_none_or(|o| w < o)),
        "{coord} for {q:?}: {with:?} with the stage, {without:?} without"
    );
}

/// The coordinates of the top 100 hits for `q`, in rank order.
pub fn coords(b: &StructureBackend, ctx: &SearchContext, q: &Query) -> Vec<String> {
    b.search(q, 100)
        .unwrap()
        .into_iter()
        .map(|h| ctx.corpus.entries[h.doc].coordinate.clone())
        .collect()
}

/// The search context (dot-plus-gloss rendering, fields only) of the schema at `rel`.
pub fn context(rel: &str) -> SearchContext {
    let g = Arc::new(
        gqlnav_schema::load_file(&repo(rel)).unwrap_or_else(|e| panic!("bundled {rel}: {e}")),
    );
    SearchContext::fields(g, Rendering::DotPlusGloss, &TokenMeter::default())
}

/// The bundled WG GitHub schema's search context.
pub fn github() -> SearchContext {
    context("benchmarks/wg/schemas/github/schema.graphql")
}

/// The bundled WG Linear schema's search context.
pub fn linear() -> SearchContext {
    context("benchmarks/wg/schemas/linear/schema.graphql")
}

/// The bundled WG Singapore schema's search context.
pub fn singapore() -> SearchContext {
    context("benchmarks/wg/schemas/singapore/schema.graphql")
}

/// The search context of an SDL text (dot-plus-gloss rendering, fields only).
pub fn sdl(text: &str) -> SearchContext {
    let g = Arc::new(gqlnav_schema::load_sdl_str(text, "test.graphql").expect("test SDL"));
    SearchContext::fields(g, Rendering::DotPlusGloss, &TokenMeter::default())
}

/// The held-out Nautical schema bundled in benchmarks/heldout (BSD-3-Clause).
pub fn nautical() -> SearchContext {
    context("benchmarks/heldout/schemas/nautical/schema.graphql")
}

/// A structure ranker with the default weights, `overrides` applied (`key=value,…`, as
/// `--weights` takes them; "" for none), indexed over `ctx`.
pub fn structure(ctx: &SearchContext, overrides: &str) -> StructureBackend {
    let mut w = gqlnav_search::StructureWeights::default();
    w.apply_overrides(overrides)
        .unwrap_or_else(|e| panic!("weights `{overrides}`: {e}"));
    let mut b = StructureBackend::new(w);
    b.index(ctx).unwrap();
    b
}

/// The default structure ranker over `ctx`, and the same with `channel` switched off by
/// name: what a channel moves, seen from both sides.
pub fn on_and_off(ctx: &SearchContext, channel: &str) -> (StructureBackend, StructureBackend) {
    (
        structure(ctx, ""),
        (structure(ctx, "").without(&[channel])).unwrap_or_else(|e| panic!("{e}")),
    )
}

/// Asserts that a slicer's ranking of `q` is the same with the default weights and with
/// `off` applied: a reader-only channel must not move a slice.
pub fn assert_slicer_unchanged(ctx: &SearchContext, off: &str, q: &str) {
    let on = structure(ctx, "");
    let off = structure(ctx, off);
    let q = Query {
        purpose: Purpose::Slice,
        ..Query::new(q)
    };
    assert_eq!(coords(&on, ctx, &q), coords(&off, ctx, &q));
}

/// Asserts that switching `channel` off by name (on top of `base` overrides) ranks `q`
/// exactly as the ranker `off` does (the channel's weights at 0).
pub fn assert_off_by_name(
    ctx: &SearchContext,
    base: &str,
    channel: &str,
    off: &StructureBackend,
    q: &str,
) {
    let named_off = (structure(ctx, base).without(&[channel])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        coords(&named_off, ctx, &Query::new(q)),
        coords(off, ctx, &Query::new(q))
    );
}
