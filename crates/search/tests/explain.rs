//! `--explain`: each hit's parts are what each stage added to its score, so they sum to
//! it. Checked on 50 bundled dev questions (25 GitHub, 25 Linear), for a reader and for a
//! slicer.

mod common;

use common::{github, linear, repo, structure};
use gqlnav_search::{Purpose, Query, SearchBackend, SearchContext, StructureBackend};

/// The first `n` questions (`query:`) of the bundled WG files starting with `prefix`.
fn questions(prefix: &str, n: usize) -> Vec<String> {
    let dir = repo("benchmarks/wg/queries");
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
        .take(n)
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

fn assert_parts_sum(b: &StructureBackend, ctx: &SearchContext, q: &Query) {
    for h in b.search(q, 20).expect("search") {
        let sum: f32 = h.explain.iter().map(|(_, v)| v).sum();
        assert!(
            (sum - h.score).abs() <= 1e-4 * h.score.abs().max(1.0),
            "{:?} for {:?}: parts {:?} sum to {sum}, score {}",
            ctx.corpus.entries[h.doc].coordinate,
            q.text,
            h.explain,
            h.score
        );
        let known = StructureBackend::stage_names();
        assert!(h.explain.iter().all(|(s, _)| known.contains(&s.as_str())));
    }
}

#[test]
fn explain_parts_sum_to_the_score_on_50_questions() {
    for (ctx, prefix) in [(github(), "gh-"), (linear(), "lin-")] {
        let b = structure(&ctx, "");
        let qs = questions(prefix, 25);
        assert_eq!(qs.len(), 25);
        for q in &qs {
            assert_parts_sum(&b, &ctx, &Query::new(q.as_str()));
            let slice = Query {
                purpose: Purpose::Slice,
                ..Query::new(q.as_str())
            };
            assert_parts_sum(&b, &ctx, &slice);
        }
    }
}

/// A stage switched off has no part in any hit.
#[test]
fn a_stage_switched_off_has_no_part() {
    let ctx = github();
    let b = structure(&ctx, "")
        .without(&["path", "type"])
        .expect("stage names");
    for q in questions("gh-", 10) {
        for h in b.search(&Query::new(q.as_str()), 20).expect("search") {
            assert!(h.explain.iter().all(|(s, _)| s != "path" && s != "type"));
        }
    }
}

/// Any one stage switched off, for a reader and for a slicer, still ranks (no stage
/// depends on another having run).
#[test]
fn any_stage_off_alone_still_ranks() {
    let ctx = github();
    let qs = questions("gh-", 3);
    for stage in StructureBackend::stage_names() {
        let b = structure(&ctx, "").without(&[stage]).expect("stage names");
        for q in &qs {
            for purpose in [Purpose::Search, Purpose::Slice] {
                let q = Query {
                    purpose,
                    ..Query::new(q.as_str())
                };
                b.search(&q, 20).expect("search");
            }
        }
    }
}

/// An unknown stage name is refused, and the message lists the stages.
#[test]
fn an_unknown_stage_is_refused_with_the_list() {
    let e = match structure(&github(), "").without(&["nonsense"]) {
        Ok(_) => panic!("`nonsense` was taken as a stage"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("nonsense"), "{e}");
    for s in StructureBackend::stage_names() {
        assert!(e.contains(s), "{s} missing from: {e}");
    }
}
