//! The same slices in other styles: slice every WG question once (dense, auto size or a
//! budget), re-render that same selection in each style, and grade every rendering the way
//! the slice bench does. Prints, per style, perfect% and mean cl100k tokens (the members
//! are the same by construction; comments are not members).
//! `cargo run --release -p gqlnav-bench --example restyle -- benchmarks/wg github,linear,singapore [BUDGET]`
use gqlnav_corpus::Encoding;
use gqlnav_slice::{SliceOptions, Style};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 3 {
        eprintln!("usage: restyle WG_DIR IDS [BUDGET]");
        std::process::exit(2);
    }
    let ids: Vec<&str> = a[2].split(',').collect();
    let budget = a.get(3).and_then(|b| b.parse().ok());
    let sets = gqlnav_bench::load_wg_sets(std::path::Path::new(&a[1]), &ids).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let styles = [
        Style::Dense,
        Style::Once,
        Style::Bare,
        Style::Compact,
        Style::Sdl,
    ];
    println!("| schema | style | rows | perfect | members equal to dense | cl100k mean |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    let mut all = vec![(0usize, 0usize, 0usize, 0usize); styles.len()];
    for set in &sets {
        let mut per = vec![(0usize, 0usize, 0usize, 0usize); styles.len()];
        for q in &set.questions {
            let opts = SliceOptions {
                budget,
                encoding: Encoding::Cl100kBase,
                style: Style::Dense,
                ..Default::default()
            };
            let s = set
                .slicer
                .slice(&q.text, &q.sub_queries, &opts)
                .expect("slice");
            let base = gqlnav_bench::slice_members(&s.sdl).unwrap_or_default();
            for (i, st) in styles.iter().enumerate() {
                let (text, tokens) = set.slicer.rerender(&s, *st, false, Encoding::Cl100kBase);
                let m = gqlnav_bench::slice_members(&text).unwrap_or_default();
                let g = gqlnav_bench::grade(&m, &q.must_include, &q.must_exclude);
                let p = &mut per[i];
                p.0 += 1;
                p.1 += usize::from(g.missing.is_empty());
                p.2 += usize::from(m == base);
                p.3 += tokens;
            }
        }
        for (i, st) in styles.iter().enumerate() {
            let p = per[i];
            println!(
                "| {} | {} | {} | {:.1}% | {} | {:.0} |",
                set.schema_id,
                st.name(),
                p.0,
                100.0 * p.1 as f64 / p.0 as f64,
                p.2,
                p.3 as f64 / p.0 as f64
            );
            let t = &mut all[i];
            t.0 += p.0;
            t.1 += p.1;
            t.2 += p.2;
            t.3 += p.3;
        }
    }
    for (i, st) in styles.iter().enumerate() {
        let p = all[i];
        println!(
            "| all | {} | {} | {:.1}% | {} | {:.0} |",
            st.name(),
            p.0,
            100.0 * p.1 as f64 / p.0 as f64,
            p.2,
            p.3 as f64 / p.0 as f64
        );
    }
}
