//! Saved indexes: a loaded backend answers exactly as a freshly indexed one, on real
//! schemas; a mismatched or damaged index is refused with an error, never a panic.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_search::saved::{self, Manifest};
use gqlnav_search::{
    Analyzer, Bm25Backend, Bm25Config, Query, Scored, SearchBackend, SearchContext, SearchError,
    StructureBackend, StructureWeights,
};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn linear() -> PathBuf {
    repo("benchmarks/wg/schemas/linear/schema.graphql")
}

fn demo() -> PathBuf {
    repo("crates/cli/assets/demo.graphql")
}

fn context(schema: &Path, rendering: Rendering) -> SearchContext {
    let g = Arc::new(gqlnav_schema::load_file(schema).expect("bundled schema loads"));
    let c = Arc::new(Corpus::build(&g, CorpusOptions::default()));
    let r = Arc::new(c.render(rendering, &TokenMeter::default()));
    SearchContext::new(g, c, r)
}

/// The WG Linear questions (the `query:` line of every `lin-*.yaml`), plus a few of our
/// own that hit no or odd terms.
fn questions() -> Vec<Query> {
    let mut out = Vec::new();
    let dir = repo("benchmarks/wg/queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("WG queries")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("lin-"))
        })
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read question");
        for l in text.lines() {
            if let Some(q) = l.strip_prefix("query: ") {
                out.push(Query::new(q.trim().trim_matches('"').trim_matches('\'')));
            }
        }
    }
    assert!(
        out.len() >= 150,
        "only {} Linear questions found",
        out.len()
    );
    // The demo schema is a library: books, authors, copies, branches, members, loans.
    for q in [
        "books written by an author",
        "Which loans of a member are overdue?",
        "copies of a book at a branch",
        "book title and isbn",
        "members of a branch",
        "return a loaned copy",
        "",
        "zzzzqqq",
        "the of a",
        "Issue.title",
        "pull requests of a user",
    ] {
        out.push(Query::new(q));
    }
    let mut sub = Query::new("issues of a team");
    sub.sub_queries = vec!["issue labels".into(), "team members".into()];
    out.push(sub);
    out
}

/// Same docs, same order, bit-identical scores and explanations.
fn assert_same(fresh: &dyn SearchBackend, loaded: &dyn SearchBackend, qs: &[Query]) {
    assert_eq!(fresh.name(), loaded.name());
    let mut nonempty = 0;
    for q in qs {
        let a = fresh.search(q, 50).expect("fresh search");
        let b = loaded.search(q, 50).expect("loaded search");
        // Same docs, same order, equal scores and explanations.
        assert_eq!(a, b, "query {:?}", q.text);
        nonempty += usize::from(!a.is_empty());
    }
    assert!(nonempty >= 5, "only {nonempty} questions found anything");
}

/// The default structure ranker, indexed over `ctx`.
fn structure(ctx: &SearchContext) -> StructureBackend {
    let mut b = StructureBackend::new(StructureWeights::default());
    b.index(ctx).expect("index");
    b
}

/// A structure index of `sdl` saved into a fresh temporary directory, with its manifest.
fn saved_structure(sdl: &Path) -> (SearchContext, tempfile::TempDir, PathBuf, Manifest) {
    let ctx = context(sdl, Rendering::DotPlusGloss);
    let (tmp, dir) = save(&structure(&ctx));
    let m = Manifest::read(&dir).expect("manifest");
    (ctx, tmp, dir, m)
}

/// Save an indexed backend into a fresh temporary directory.
fn save(b: &dyn SearchBackend) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("index");
    b.save(&dir).expect("save");
    // No temporary directory is left next to the index.
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names, ["index"]);
    (tmp, dir)
}

#[test]
fn structure_loaded_ranks_exactly_as_fresh_on_linear_and_demo() {
    let qs = questions();
    for schema in [linear(), demo()] {
        let ctx = context(&schema, Rendering::DotPlusGloss);
        let fresh = structure(&ctx);
        let (_tmp, dir) = save(&fresh);
        // Over the same context, and over a context rebuilt from the saved index.
        let loaded = StructureBackend::load(&dir, &ctx).expect("load");
        assert_same(&fresh, &loaded, &qs);
        let graph = Arc::new(gqlnav_schema::load_file(&schema).expect("schema"));
        let ctx2 = saved::load_context(&dir, graph).expect("load context");
        assert_eq!(ctx2.rendered.texts, ctx.rendered.texts);
        assert_eq!(ctx2.rendered.tokens, ctx.rendered.tokens);
        assert_eq!(ctx2.rendered.encoding, ctx.rendered.encoding);
        let loaded2 = saved::load_backend(&dir, &ctx2).expect("load backend");
        assert_same(&fresh, loaded2.as_ref(), &qs);
        // Hits (texts, token counts, paths) are the same too.
        let q = Query::new("issue title and its assignee");
        let h1 = ctx.hits(&fresh.search(&q, 10).expect("search"), 2);
        let h2 = ctx2.hits(&loaded2.search(&q, 10).expect("search"), 2);
        assert_eq!(
            serde_json::to_string(&h1).expect("json"),
            serde_json::to_string(&h2).expect("json")
        );
    }
}

#[test]
fn structure_with_other_weights_and_channels_off_round_trips() {
    let ctx = context(&linear(), Rendering::CoordReturnDesc);
    let mut w = StructureWeights::default();
    w.apply_overrides("path=0.55,value_hits=7,bridge=0.4,depth=0.2")
        .expect("weights");
    let mut fresh = StructureBackend::new(w)
        .without(&["bridge", "depth"])
        .expect("stage names");
    fresh.index(&ctx).expect("index");
    let (_tmp, dir) = save(&fresh);
    let loaded = StructureBackend::load(&dir, &ctx).expect("load");
    assert_eq!(loaded.disabled, ["bridge", "depth"]);
    assert_eq!(loaded.weights.value_hits, 7);
    assert_eq!(loaded.weights.path.to_bits(), 0.55f32.to_bits());
    assert_same(&fresh, &loaded, &questions());
}

#[test]
fn bm25_loaded_ranks_exactly_as_fresh_for_both_analyzers() {
    let qs = questions();
    for (schema, rendering) in [(linear(), Rendering::Gloss), (demo(), Rendering::Sdl)] {
        let ctx = context(&schema, rendering);
        for analyzer in [Analyzer::Standard, Analyzer::Identifier] {
            let mut fresh = Bm25Backend::new(Bm25Config::new(analyzer));
            fresh.index(&ctx).expect("index");
            let (_tmp, dir) = save(&fresh);
            let loaded = Bm25Backend::load(&dir, &ctx).expect("load");
            assert_same(&fresh, &loaded, &qs);
            let any = saved::load_backend(&dir, &ctx).expect("load backend");
            assert_same(&fresh, any.as_ref(), &qs);
        }
    }
}

#[test]
fn index_to_dir_still_refuses_a_non_empty_directory_and_loads() {
    let ctx = context(&demo(), Rendering::DotPlusGloss);
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("notes.txt"), "mine").expect("write");
    let mut b = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
    let e = b.index_to_dir(&ctx, tmp.path()).expect_err("non-empty");
    assert!(e.to_string().contains("not empty"), "{e}");
    let dir = tmp.path().join("bm25");
    b.index_to_dir(&ctx, &dir).expect("index to dir");
    let loaded = Bm25Backend::load(&dir, &ctx).expect("load");
    assert_same(&b, &loaded, &questions());
}

#[test]
fn manifest_names_backend_schema_corpus_and_files() {
    let (ctx, _tmp, _dir, m) = saved_structure(&linear());
    assert_eq!(m.format, saved::FORMAT);
    assert_eq!(m.backend, "structure");
    assert_eq!(m.name, "structure(dot-plus-gloss)");
    assert!(
        m.created_by.starts_with("gqlnav-search "),
        "{}",
        m.created_by
    );
    assert_eq!(m.embedder, None);
    assert_eq!(m.schema, saved::schema_fingerprint(&ctx.graph));
    assert_eq!(m.corpus.entries, ctx.corpus.len());
    assert_eq!(m.corpus.rendering, Rendering::DotPlusGloss);
    assert_eq!(m.corpus.encoding.name(), "o200k_base");
    assert_eq!(m.corpus.options, CorpusOptions::default());
    let paths: Vec<&str> = m.files.iter().map(|f| f.path.as_str()).collect();
    for want in [
        "structure.bin",
        "tokens.bin",
        "fields/bm25.json",
        "fields/meta.json",
        "types/bm25.json",
    ] {
        assert!(paths.contains(&want), "{want} missing from {paths:?}");
    }
    let tokens = m
        .files
        .iter()
        .find(|f| f.path == "tokens.bin")
        .expect("tokens");
    assert_eq!(tokens.bytes as usize, 4 * ctx.corpus.len());
}

#[test]
fn an_index_for_another_schema_is_refused_with_the_rebuild_command() {
    let lin = context(&linear(), Rendering::DotPlusGloss);
    let b = structure(&lin);
    let (_tmp, dir) = save(&b);
    let demo_ctx = context(&demo(), Rendering::DotPlusGloss);
    let e = StructureBackend::load(&dir, &demo_ctx)
        .err()
        .expect("another schema");
    assert!(matches!(e, SearchError::WrongSchema { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("built for another schema"), "{msg}");
    assert!(
        msg.contains("rebuild it with `gqlnav index --schema"),
        "{msg}"
    );
    assert!(msg.contains("--backend structure"), "{msg}");
    let g = demo_ctx.graph.clone();
    let e = saved::load_context(&dir, g).err().expect("another schema");
    assert!(matches!(e, SearchError::WrongSchema { .. }), "{e:?}");

    // One changed description is another schema too.
    let sdl = std::fs::read_to_string(linear()).expect("sdl");
    let changed = sdl.replacen("\"\"\"", "\"\"\"Changed. ", 1);
    assert_ne!(sdl, changed);
    let g2 = Arc::new(gqlnav_schema::load_sdl_str(&changed, "changed.graphql").expect("load"));
    assert_ne!(
        saved::schema_fingerprint(&g2),
        saved::schema_fingerprint(&lin.graph)
    );
    let e = saved::load_context(&dir, g2).err().expect("changed schema");
    assert!(matches!(e, SearchError::WrongSchema { .. }), "{e:?}");

    // Same schema, another rendering: refused as another corpus.
    let gloss = context(&linear(), Rendering::Gloss);
    let e = StructureBackend::load(&dir, &gloss)
        .err()
        .expect("another rendering");
    assert!(e.to_string().contains("another corpus or rendering"), "{e}");
    // A bm25 index is not a structure index.
    let mut bm = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
    bm.index(&lin).expect("index");
    let (_t2, bdir) = save(&bm);
    let e = StructureBackend::load(&bdir, &lin)
        .err()
        .expect("wrong kind");
    assert!(e.to_string().contains("holds a `bm25` index"), "{e}");
}

/// Copy a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("list").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

#[test]
fn damaged_files_give_errors_not_panics() {
    let (ctx, tmp, dir, m) = saved_structure(&demo());
    let mut n = 0;
    for f in &m.files {
        for damage in ["truncate", "flip", "delete"] {
            let copy = tmp.path().join(format!("copy-{n}"));
            n += 1;
            copy_tree(&dir, &copy);
            let p = copy.join(&f.path);
            let mut bytes = std::fs::read(&p).expect("read");
            match damage {
                "truncate" => {
                    if bytes.is_empty() {
                        continue;
                    }
                    bytes.truncate(bytes.len() / 2);
                    std::fs::write(&p, &bytes).expect("write");
                }
                "flip" => {
                    if bytes.is_empty() {
                        continue;
                    }
                    let i = bytes.len() / 3;
                    bytes[i] ^= 0x5a;
                    std::fs::write(&p, &bytes).expect("write");
                }
                _ => std::fs::remove_file(&p).expect("delete"),
            }
            let e = StructureBackend::load(&copy, &ctx)
                .err()
                .unwrap_or_else(|| panic!("{damage} {} was not noticed", f.path));
            let msg = e.to_string();
            assert!(
                msg.contains(&f.path) && msg.contains("rebuild"),
                "{damage} {}: {msg}",
                f.path
            );
            if f.path == "tokens.bin" {
                let graph = ctx.graph.clone();
                assert!(saved::load_context(&copy, graph).is_err());
            }
        }
    }
    // A malformed or missing manifest.
    std::fs::write(dir.join("manifest.json"), "{\"format\": 1").expect("write");
    let e = StructureBackend::load(&dir, &ctx).err().expect("malformed");
    assert!(e.to_string().contains("malformed"), "{e}");
    std::fs::remove_file(dir.join("manifest.json")).expect("rm");
    let e = saved::load_backend(&dir, &ctx).err().expect("missing");
    assert!(e.to_string().contains("not a saved gqlnav index"), "{e}");
}

#[test]
fn saving_replaces_an_index_but_never_a_users_directory() {
    let ctx = context(&demo(), Rendering::DotPlusGloss);
    let tmp = tempfile::tempdir().expect("tempdir");
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    std::fs::write(mine.join("keep.txt"), "mine").expect("write");
    let b = structure(&ctx);
    let e = b.save(&mine).expect_err("user directory");
    assert!(e.to_string().contains("not a saved gqlnav index"), "{e}");
    assert!(mine.join("keep.txt").is_file());

    // An existing index is replaced; an empty directory is used.
    let dir = tmp.path().join("idx");
    let mut bm = Bm25Backend::new(Bm25Config::new(Analyzer::Identifier));
    bm.index(&ctx).expect("index");
    bm.save(&dir).expect("save bm25");
    b.save(&dir).expect("replace with structure");
    assert_eq!(Manifest::read(&dir).expect("manifest").backend, "structure");
    assert!(!dir.join("bm25.json").exists(), "old files are gone");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).expect("mkdir");
    b.save(&empty).expect("empty dir");
    StructureBackend::load(&empty, &ctx).expect("load");
    let mut names: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["empty", "idx", "mine"],
        "no temporary directories left"
    );
}

#[test]
fn unindexed_backends_and_backends_without_a_saved_form_say_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let b = StructureBackend::new(StructureWeights::default());
    assert!(matches!(
        b.save(&tmp.path().join("x")),
        Err(SearchError::NotIndexed)
    ));
    struct Plain;
    impl SearchBackend for Plain {
        fn name(&self) -> String {
            "plain".into()
        }
        fn index(&mut self, _: &SearchContext) -> Result<(), SearchError> {
            Ok(())
        }
        fn search(&self, _: &Query, _: usize) -> Result<Vec<Scored>, SearchError> {
            Ok(Vec::new())
        }
    }
    let e = Plain
        .save(&tmp.path().join("y"))
        .expect_err("no saved form");
    assert!(matches!(e, SearchError::NoSavedForm(_)));
    assert!(
        e.to_string().contains("backend `plain` has no saved form"),
        "{e}"
    );
    assert!(!tmp.path().join("y").exists());
}
