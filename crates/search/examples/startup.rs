//! Start-up time of a search server, step by step, on a real schema: from process start
//! (well, `main`) to the first answered search, indexing in memory or loading a saved
//! index.
//!
//! ```text
//! cargo run --release -p gqlnav-search --example startup -- \
//!     [--schema benchmarks/wg/schemas/github/schema.graphql] [--runs 5] [--dir DIR]
//! ```
//!
//! Each run is a fresh child process (the BPE ranks and the path memo are per process);
//! the table shows the median of the runs, in milliseconds. `--dir` keeps the saved index
//! there (default: a temporary directory).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use gqlnav_corpus::{Corpus, CorpusOptions, Rendering, TokenMeter};
use gqlnav_search::{
    saved, Query, SearchBackend, SearchContext, StructureBackend, StructureWeights,
};

const QUESTION: &str = "List merged pull requests with each author's login and merge timestamp";
const RENDERING: Rendering = Rendering::DotPlusGloss;

struct Clock {
    t0: Instant,
    last: Instant,
    steps: Vec<(String, f64)>,
}

impl Clock {
    fn new(t0: Instant) -> Self {
        Clock {
            t0,
            last: Instant::now(),
            steps: vec![("process start → main".into(), 0.0)],
        }
    }
    fn lap(&mut self, name: &str) {
        let now = Instant::now();
        self.steps
            .push((name.into(), (now - self.last).as_secs_f64() * 1000.0));
        self.last = now;
    }
    fn print(&self) {
        for (n, ms) in &self.steps {
            println!("STEP\t{n}\t{ms:.3}");
        }
        println!(
            "STEP\ttotal (main → first hits)\t{:.3}",
            (self.last - self.t0).as_secs_f64() * 1000.0
        );
    }
}

/// Milliseconds since the process started, from /proc (10 ms resolution), or 0.
fn since_process_start() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let uptime = std::fs::read_to_string("/proc/uptime").unwrap_or_default();
    let start_ticks: Option<f64> = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(19))
        .and_then(|s| s.parse().ok());
    let up: Option<f64> = uptime
        .split_whitespace()
        .next()
        .and_then(|s| s.parse().ok());
    match (start_ticks, up) {
        (Some(st), Some(up)) => ((up - st / 100.0) * 1000.0).max(0.0),
        _ => 0.0,
    }
}

fn first_search(clock: &mut Clock, ctx: &SearchContext, backend: &dyn SearchBackend) {
    let scored = backend
        .search(&Query::new(QUESTION), 10)
        .expect("first search");
    let hits = ctx.hits(&scored, 1);
    clock.lap("first search + 10 hits with a path each");
    assert!(!hits.is_empty(), "no hits");
}

fn child(mode: &str, schema: &Path, dir: &Path) {
    let t0 = Instant::now();
    let mut clock = Clock::new(t0);
    clock.steps[0].1 = since_process_start();
    let text = std::fs::read_to_string(schema).expect("read the schema");
    clock.lap("read file");
    match mode {
        "parts" => {
            let label = schema.display().to_string();
            let doc = gqlnav_schema::apollo_compiler::Schema::parse(&text, &label);
            clock.lap("  parse only (apollo)");
            let valid = gqlnav_schema::apollo_compiler::Schema::parse_and_validate(&text, &label)
                .expect("valid schema");
            clock.lap("  parse + validate (apollo)");
            let g = gqlnav_schema::SchemaGraph::new(
                gqlnav_schema::CheckedSchema::Valid(valid),
                label,
                Vec::new(),
            );
            clock.lap("  SchemaGraph::new");
            let fp = saved::schema_fingerprint(&g);
            clock.lap("  saved::schema_fingerprint");
            let corpus = Arc::new(Corpus::build(&g, CorpusOptions::default()));
            clock.lap("  Corpus::build");
            let texts = corpus.render_texts(RENDERING);
            clock.lap("  render texts (no counts)");
            let meter = TokenMeter::default();
            meter.warm();
            clock.lap("  TokenMeter warm (o200k_base BPE load)");
            let n: usize = texts.iter().map(|t| meter.count(t)).sum();
            clock.lap("  count tokens of every text");
            gqlnav_corpus::TokenMeter::new(gqlnav_corpus::Encoding::Cl100kBase).warm();
            clock.lap("  TokenMeter warm (cl100k_base BPE load)");
            let rendered = gqlnav_corpus::RenderedCorpus::from_counts(
                &corpus,
                RENDERING,
                meter.encoding(),
                vec![0; corpus.len()],
            )
            .expect("counts");
            let ctx = SearchContext::new(Arc::new(g), corpus, Arc::new(rendered));
            clock.lap("  (context)");
            let cfp = gqlnav_search::bm25::fingerprint(&ctx);
            clock.lap("  bm25::fingerprint (corpus)");
            drop((doc, fp, n, cfp));
        }
        "index" | "save" => {
            let graph = Arc::new(
                gqlnav_schema::load_sdl_str(&text, &schema.display().to_string()).expect("load"),
            );
            clock.lap("load_sdl_str (parse + validate + graph)");
            let corpus = Arc::new(Corpus::build(&graph, CorpusOptions::default()));
            clock.lap("Corpus::build");
            let meter = TokenMeter::default();
            meter.warm();
            clock.lap("TokenMeter warm (BPE load)");
            let rendered = Arc::new(corpus.render(RENDERING, &meter));
            clock.lap("render + count tokens");
            let ctx = SearchContext::new(graph, corpus, rendered);
            let mut b = StructureBackend::new(StructureWeights::default());
            b.index(&ctx).expect("index");
            clock.lap("structure index");
            if mode == "save" {
                b.save(dir).expect("save");
                clock.lap("save");
                let mut bm = gqlnav_search::Bm25Backend::new(gqlnav_search::Bm25Config::new(
                    gqlnav_search::Analyzer::Identifier,
                ));
                bm.index(&ctx).expect("bm25 index");
                bm.save(&bm25_dir(dir)).expect("bm25 save");
            }
            first_search(&mut clock, &ctx, &b);
        }
        "load" => {
            let graph = Arc::new(
                gqlnav_schema::load_sdl_str(&text, &schema.display().to_string()).expect("load"),
            );
            clock.lap("load_sdl_str (parse + validate + graph)");
            let ctx = saved::load_context(dir, graph).expect("load context");
            clock.lap("saved::load_context (corpus + texts + saved counts)");
            let b = saved::load_backend(dir, &ctx).expect("load backend");
            clock.lap("saved::load_backend (structure)");
            first_search(&mut clock, &ctx, b.as_ref());
        }
        other => panic!("unknown mode {other}"),
    }
    clock.print();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let schema = PathBuf::from(get("--schema").unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benchmarks/wg/schemas/github/schema.graphql"
        )
        .to_string()
    }));
    if let Some(mode) = get("--child") {
        let dir = PathBuf::from(get("--dir").expect("--dir"));
        child(&mode, &schema, &dir);
        return;
    }
    let runs: usize = get("--runs").and_then(|r| r.parse().ok()).unwrap_or(5);
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = get("--dir")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("index"));
    let exe = std::env::current_exe().expect("current exe");
    let run = |mode: &str| -> Vec<(String, f64)> {
        let out = Command::new(&exe)
            .args(["--child", mode, "--schema"])
            .arg(&schema)
            .arg("--dir")
            .arg(&dir)
            .output()
            .expect("run child");
        assert!(
            out.status.success(),
            "child {mode} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                (f.next() == Some("STEP")).then(|| {
                    let n = f.next().unwrap_or("").to_string();
                    let ms = f.next().and_then(|x| x.parse().ok()).unwrap_or(f64::NAN);
                    (n, ms)
                })
            })
            .collect()
    };
    run("save");
    println!(
        "schema {}; median of {runs} runs, ms (the machine is shared: expect noise)",
        schema.display()
    );
    for mode in ["parts", "index", "load"] {
        let all: Vec<Vec<(String, f64)>> = (0..runs).map(|_| run(mode)).collect();
        println!("\n{mode}:");
        for (i, (name, _)) in all[0].iter().enumerate() {
            let mut v: Vec<f64> = all.iter().filter_map(|r| r.get(i).map(|x| x.1)).collect();
            v.sort_by(f64::total_cmp);
            let med = v[v.len() / 2];
            println!("  {med:>9.1}  {name}");
        }
    }
    for d in [dir.clone(), bm25_dir(&dir)] {
        println!("\nsaved index: {} ({} KiB)", d.display(), walk(&d) / 1024);
        let mut files = Vec::new();
        list(&d, &d, &mut files);
        files.sort();
        for (rel, bytes) in files {
            println!("  {:>9} B  {rel}", bytes);
        }
    }
}

/// Where the example keeps a saved BM25 index next to the structure one.
fn bm25_dir(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push("-bm25");
    dir.with_file_name(name)
}

fn walk(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|rd| rd.flatten().map(|e| walk(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

fn list(root: &Path, p: &Path, out: &mut Vec<(String, u64)>) {
    for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
        let path = e.path();
        if path.is_dir() {
            list(root, &path, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((rel, e.metadata().map(|m| m.len()).unwrap_or(0)));
        }
    }
}
