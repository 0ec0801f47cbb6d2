//! Quality on the 200 GitHub WG questions, graded like Apollo's search: one
//! `search_schema` call (default limit 10), a target counts as found when its plain
//! `Type.field` coordinate appears in the text the model reads. Reports recall (macro
//! mean), perfect% and mean tokens (o200k_base). Not asserted; run with
//! `cargo test --release -p gqlnav-tools --test quality -- --ignored --nocapture`.

mod common;

use gqlnav_tools::{SearchRequest, Toolbox, ToolsConfig};

#[test]
#[ignore]
fn github_wg_one_call_recall_and_tokens() {
    let graph = common::bundled("github");
    let t0 = std::time::Instant::now();
    let tools = Toolbox::build(graph, None, ToolsConfig::default()).unwrap();
    let index_s = t0.elapsed().as_secs_f64();
    let tsv = common::repo_file("benchmarks/wg/github-wg.tsv");
    let (mut n, mut recall_sum, mut perfect, mut tokens) = (0usize, 0f64, 0usize, 0usize);
    let t1 = std::time::Instant::now();
    for line in tsv.lines().filter(|l| !l.trim().is_empty()) {
        let Some((q, targets)) = line.split_once('\t') else {
            continue;
        };
        let targets: Vec<&str> = targets
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if targets.is_empty() {
            continue;
        }
        let out = tools.search_schema(&SearchRequest::new(q));
        let found = targets.iter().filter(|t| out.text.contains(*t)).count();
        n += 1;
        recall_sum += found as f64 / targets.len() as f64;
        perfect += usize::from(found == targets.len());
        tokens += out.tokens;
    }
    let search_s = t1.elapsed().as_secs_f64();
    println!(
        "questions {n}; recall {:.1}% (plain Type.field targets in the text of one search_schema call, limit 10, macro mean); perfect {:.1}%; mean {:.0} tokens (o200k_base) per call; index {:.1} s; {:.1} ms/call (in-process)",
        100.0 * recall_sum / n as f64,
        100.0 * perfect as f64 / n as f64,
        tokens as f64 / n as f64,
        index_s,
        1000.0 * search_s / n as f64
    );
}
