//! Expected answers from gold operations on the mock, on the bundled WG questions: every
//! gold operation runs and grades itself true; an agent that forgot the filters is
//! caught where the data differ; the count of each is printed.

use std::path::Path;

use gqlnav_bench::{
    answer_matches, expected_answer, expected_from_data, load_agent_questions, mock_data,
    without_filters, Grading,
};
use gqlnav_mock::{Mock, MockOptions};
use serde_json::json;

fn wg() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg")
}

fn mock(id: &str) -> Mock {
    let g = gqlnav_schema::load_file(&wg().join(format!("schemas/{id}/schema.graphql")))
        .expect("schema");
    Mock::of_graph(&g, MockOptions::default())
}

#[test]
fn every_bundled_gold_operation_grades_itself_true() {
    let mut total = 0;
    let mut with_filters = 0;
    let mut caught = 0;
    let mut empty = Vec::new();
    for id in ["github", "linear", "singapore"] {
        let m = mock(id);
        let qs = load_agent_questions(&wg().join("queries"), &[id], 1, Grading::Mock)
            .expect("questions");
        assert!(!qs.is_empty(), "{id}: no gradable questions");
        for q in &qs {
            let op = q.operation.as_deref().expect("gold operation");
            let data = mock_data(&m, op)
                .unwrap_or_else(|e| panic!("{}: the gold operation fails on the mock: {e}", q.id));
            let expected = match expected_from_data(
                m.schema(),
                op,
                &data,
                &q.target_fields,
                q.answer_schema.as_ref(),
            ) {
                Ok(e) => e,
                Err(e) => {
                    empty.push(format!("{}: {e}", q.id));
                    continue;
                }
            };
            total += 1;
            assert!(
                answer_matches(&expected, &expected),
                "{}: {expected} does not match itself",
                q.id
            );
            // The same through the one-call form.
            assert_eq!(
                expected_answer(&m, op, &q.target_fields, q.answer_schema.as_ref()).ok(),
                Some(expected.clone())
            );
            if let Some(bare) = without_filters(m.schema(), op) {
                with_filters += 1;
                let got = mock_data(&m, &bare)
                    .ok()
                    .and_then(|d| {
                        expected_from_data(
                            m.schema(),
                            &bare,
                            &d,
                            &q.target_fields,
                            q.answer_schema.as_ref(),
                        )
                        .ok()
                    })
                    .unwrap_or(json!(null));
                if !answer_matches(&expected, &got) {
                    caught += 1;
                }
            }
        }
    }
    eprintln!(
        "gold operations: {total} graded themselves true; {} gave no expected answer; of {with_filters} with filter arguments, {caught} grade false without them",
        empty.len()
    );
    for e in &empty {
        eprintln!("  no expected answer: {e}");
    }
    assert!(total >= 150, "{total}");
    assert!(
        empty.len() * 20 <= total,
        "too many without an answer: {empty:?}"
    );
    assert!(
        caught * 10 >= with_filters * 8,
        "forgotten filters caught in only {caught} of {with_filters}"
    );
}

#[test]
fn an_answer_in_the_schemas_shape_matches_and_a_wrong_one_does_not() {
    let m = mock("github");
    let op = r#"{ repository(owner: "octocat", name: "example") { defaultBranchRef { target { ... on Commit { history(first: 3) { nodes { author { name email } message } } } } } } }"#;
    let schema = json!({"type": "object", "properties": {"commits": {"type": "array", "items": {"type": "object",
        "properties": {"authorName": {"type": "string"}, "authorEmail": {"type": "string"}, "message": {"type": "string"}}}}}});
    let targets: Vec<String> = ["Commit.message", "GitActor.name", "GitActor.email"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let expected = expected_answer(&m, op, &targets, Some(&schema)).expect("expected");
    let commits = expected["commits"].as_array().expect("a list");
    assert_eq!(commits.len(), 3);
    assert!(commits[0]["authorName"].is_string() && commits[0]["message"].is_string());
    // An agent's answer: two of the three commits, its own key names.
    let data = mock_data(&m, op).expect("data");
    let nodes = data["repository"]["defaultBranchRef"]["target"]["history"]["nodes"]
        .as_array()
        .expect("nodes");
    let agent: Vec<_> = nodes[..2]
        .iter()
        .map(|n| json!({"by": n["author"]["name"], "mail": n["author"]["email"], "msg": n["message"]}))
        .collect();
    assert!(answer_matches(&expected, &json!({ "commits": agent })));
    let wrong = json!({"commits": [{"by": "nobody", "mail": "x", "msg": "y"}]});
    assert!(!answer_matches(&expected, &wrong));
}
