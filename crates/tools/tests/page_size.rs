//! The search page's size rule (ARCHITECTURE.md, crates/tools): a default page (a
//! `search_schema` call with only the question) costs at most 2,200 o200k tokens on mean
//! over the bundled dev questions (github, linear and singapore together, as `gqlnav bench
//! --mode tools` reports the first answer). Every addition to the page measured so
//! far bought a little recall for a few hundred tokens in every answer; this is the cap.

mod common;

use gqlnav_tools::SearchRequest;

/// The cap on a default page's mean size, in o200k tokens (2,198 on 2026-12-07 with the
/// example operation on one line, 2,150 before it; 12 return
/// fields instead of 16 gave 2,013 at 3.6 points less of the tools bench in one call).
const PAGE_CAP: f64 = 2_200.0;

/// Every question (`query:`) of the bundled WG files starting with `prefix`.
fn questions(prefix: &str) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg/queries");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("benchmarks/wg/queries")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            (p.file_name().and_then(|f| f.to_str()))
                .is_some_and(|f| f.starts_with(prefix) && f.ends_with(".yaml"))
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("question file");
            let mut lines = text.lines().skip_while(|l| !l.starts_with("query:"));
            let mut q = lines.next().expect("a query line")["query:".len()..].to_string();
            for l in lines.take_while(|l| l.starts_with("  ")) {
                q.push(' ');
                q.push_str(l.trim());
            }
            q.trim().trim_matches(['"', '\'']).to_string()
        })
        .collect()
}

#[test]
fn a_default_page_stays_under_the_cap_on_the_dev_questions() {
    let (mut total, mut n) = (0usize, 0usize);
    for (id, prefix) in [("github", "gh-"), ("linear", "lin-"), ("singapore", "sg-")] {
        let tools = common::toolbox(id);
        let qs = questions(prefix);
        assert!(!qs.is_empty(), "{id}: no questions");
        let mut api = 0usize;
        for q in &qs {
            let out = tools.search_schema(&SearchRequest::new(q.as_str()));
            assert!(!out.is_error, "{q}: {}", out.text);
            api += out.tokens;
        }
        println!(
            "{id}: {} questions, mean default page {:.0} tokens",
            qs.len(),
            api as f64 / qs.len() as f64
        );
        total += api;
        n += qs.len();
    }
    let mean = total as f64 / n as f64;
    println!("dev: {n} questions, mean default page {mean:.0} tokens");
    assert!(
        mean <= PAGE_CAP,
        "dev: mean default page {mean:.0} > {PAGE_CAP}"
    );
}
