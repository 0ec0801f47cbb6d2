//! One index per schema: a slicer over a ranker that search already indexed
//! (`Slicer::from_index`), and root paths saved and restored instead of warming
//! (`Slicer::export_paths`, `Slicer::import_paths`), on the real WG schemas.

use std::path::Path;
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, Encoding, Rendering};
use gqlnav_schema::SchemaGraph;
use gqlnav_search::{Query, SearchBackend, SearchContext, StructureBackend, StructureWeights};
use gqlnav_slice::{Knobs, SliceOptions, Slicer, Style};

fn graph(id: &str) -> Arc<SchemaGraph> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benchmarks/wg/schemas")
        .join(id)
        .join("schema.graphql");
    Arc::new(gqlnav_schema::load_file(&p).unwrap())
}

/// Linear dev questions (`benchmarks/wg/queries/lin-*.yaml`).
const LINEAR: [&str; 5] = [
    "List every admin in the workspace.",
    "What OAuth applications have been created in our workspace?",
    "What are all the issue attachments in the workspace? List their title, URL, and source type.",
    "What is the total story point estimate for each assigned engineer across all issues (first 50)?",
    "For each team, how many people are members, and how many issues does the team have in total?",
];

fn option_sets() -> [SliceOptions; 3] {
    [
        SliceOptions {
            style: Style::Dense,
            ..SliceOptions::default()
        },
        SliceOptions {
            budget: Some(2000),
            encoding: Encoding::Cl100kBase,
            style: Style::Sdl,
            closed: true,
            ..SliceOptions::default()
        },
        SliceOptions {
            budget: Some(300),
            encoding: Encoding::Cl100kBase,
            style: Style::Bare,
            ..SliceOptions::default()
        },
    ]
}

/// `(sdl, tokens, left out)` of every question in every option set.
fn slices(s: &Slicer) -> Vec<(String, usize, Vec<String>)> {
    let mut out = Vec::new();
    for o in option_sets() {
        for q in LINEAR {
            let sl = s.slice(q, &[], &o).unwrap();
            out.push((sl.sdl, sl.tokens, sl.left_out));
        }
    }
    out
}

fn indexed_structure_ranker(ctx: &SearchContext) -> Arc<dyn SearchBackend> {
    let mut b: Box<dyn SearchBackend> =
        Box::new(StructureBackend::new(StructureWeights::default()));
    b.index(ctx).unwrap();
    Arc::from(b)
}

#[test]
fn a_slicer_over_a_shared_index_slices_as_a_new_one() {
    let g = graph("linear");
    let ctx = Slicer::index_context(g.clone(), Rendering::DotPlusGloss);
    let backend = indexed_structure_ranker(&ctx);
    let shared = Slicer::from_index(ctx.clone(), backend.clone()).unwrap();
    // The slicer holds the very ranker and corpus it was given: search can use them.
    assert!(Arc::ptr_eq(shared.backend(), &backend));
    assert!(Arc::ptr_eq(&shared.search_context().corpus, &ctx.corpus));
    let q = Query::new(LINEAR[0]);
    let via_search = backend.search(&q, 10).unwrap();
    let via_slicer = shared.backend().search(&q, 10).unwrap();
    assert_eq!(via_search, via_slicer);
    assert!(!via_search.is_empty());
    let own = Slicer::new(g).unwrap();
    assert_eq!(slices(&shared), slices(&own));
}

#[test]
fn a_corpus_with_other_entry_kinds_is_refused() {
    let g = graph("singapore");
    let corpus = Arc::new(Corpus::build(&g, CorpusOptions::all()));
    let rendered = Arc::new(corpus.render(
        Rendering::DotPlusGloss,
        &gqlnav_corpus::TokenMeter::new(Encoding::O200kBase),
    ));
    let ctx = SearchContext::new(g, corpus, rendered);
    let backend = indexed_structure_ranker(&ctx);
    let e = Slicer::from_index(ctx, backend).err().unwrap().to_string();
    assert!(e.contains("CorpusOptions::default()"), "{e}");
}

#[test]
fn imported_root_paths_give_the_slices_of_a_warmed_slicer() {
    let g = graph("linear");
    let warmed = Slicer::new(g.clone()).unwrap();
    warmed.warm(&Knobs::default(), 2);
    let saved = warmed.export_paths();
    let restored = Slicer::new(g).unwrap();
    restored.import_paths(&saved).unwrap();
    assert_eq!(restored.export_paths(), saved, "the import is exact");
    assert_eq!(slices(&restored), slices(&warmed));
    // Every path the slices needed was restored: slicing computed none.
    assert_eq!(restored.export_paths(), saved);
    assert!(saved.len() > 1000, "{} bytes", saved.len());
}

#[test]
fn saved_paths_of_another_schema_or_damaged_ones_are_refused() {
    let linear = Slicer::new(graph("linear")).unwrap();
    linear.warm(&Knobs::default(), 2);
    let saved = linear.export_paths();
    let other = Slicer::new(graph("singapore")).unwrap();
    let empty = other.export_paths();
    let err = |data: &[u8]| other.import_paths(data).unwrap_err().to_string();
    let e = err(&saved);
    assert!(e.contains("another schema"), "{e}");
    let e = linear
        .import_paths(&saved[..saved.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("cut short"), "{e}");
    assert_eq!(
        linear.export_paths(),
        saved,
        "a refused import changes nothing"
    );
    let mut cut = empty.clone();
    cut.pop();
    assert!(err(&cut).contains("cut short"), "{}", err(&cut));
    assert!(err(b"type Query { a: Int }").contains("gqlnav-paths"));
    let mut newer = empty.clone();
    newer[b"gqlnav-paths".len()] = 99;
    assert!(err(&newer).contains("format version 99"), "{}", err(&newer));
    let mut trailing = empty.clone();
    trailing.push(0);
    assert!(err(&trailing).contains("trailing"), "{}", err(&trailing));
    // Refused imports leave the memo as it was; an empty export imports.
    assert_eq!(other.export_paths(), empty);
    other.import_paths(&empty).unwrap();
}
