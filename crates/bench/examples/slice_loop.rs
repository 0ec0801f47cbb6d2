//! Slice every WG question of one schema N times on a warm slicer and print the per-call
//! p50 (a profiling harness: `perf record` it):
//! `cargo run --release -p gqlnav-bench --example slice_loop -- WG_DIR github 9000 dense 5` (`auto` for no budget).
use std::time::Instant;

// The CLI's allocator (crates/cli/src/alloc.rs), so that profiles show what `gqlnav bench`
// and the server spend.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 3 {
        eprintln!("usage: slice_loop WG_DIR SCHEMA_ID [BUDGET|auto] [STYLE] [ROUNDS]");
        std::process::exit(2);
    }
    // `auto` slices without a budget (the slicer's own size).
    let budget = match a.get(3).map(String::as_str) {
        Some("auto") => None,
        b => Some(b.and_then(|b| b.parse().ok()).unwrap_or(9000usize)),
    };
    let style = a
        .get(4)
        .and_then(|s| gqlnav_slice::Style::parse(s))
        .unwrap_or(gqlnav_slice::Style::Dense);
    let rounds = a.get(5).and_then(|n| n.parse().ok()).unwrap_or(5usize);
    let sets = match gqlnav_bench::load_wg_sets(std::path::Path::new(&a[1]), &[a[2].as_str()]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let set = &sets[0];
    let knobs = gqlnav_slice::Knobs::default();
    set.slicer.warm(&knobs, 2);
    let opts = gqlnav_slice::SliceOptions {
        budget,
        encoding: gqlnav_corpus::Encoding::Cl100kBase,
        style,
        knobs,
        ..Default::default()
    };
    let mut ms = Vec::new();
    for _ in 0..rounds {
        for q in &set.questions {
            let t = Instant::now();
            if let Err(e) = set.slicer.slice(&q.text, &q.sub_queries, &opts) {
                eprintln!("{}: {e}", q.id);
                std::process::exit(1);
            }
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "{} slices: p50 {:.2} ms, p95 {:.2} ms",
        ms.len(),
        ms[ms.len() / 2],
        ms[ms.len() * 95 / 100]
    );
}
