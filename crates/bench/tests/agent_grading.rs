//! Agent-bench grading on real WG data: a question's own reference operation covers its
//! `mustInclude`; a broken one fails at the right step; outcomes map to the taxonomy.

use std::path::Path;

use gqlnav_bench::{grade_outcome, load_agent_questions, operation_members, Strategy};

fn wg() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg")
}

#[test]
fn reference_operations_cover_their_musts_and_broken_ones_fail_at_the_right_step() {
    let g = gqlnav_schema::load_file(&wg().join("schemas/github/schema.graphql")).unwrap();
    let schema = gqlnav_tools::OperationSchema::new(g.schema.clone()).schema;
    let text = std::fs::read_to_string(wg().join("queries/gh-ext-001.yaml")).unwrap();
    let v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let op = v["operation"].as_str().unwrap();
    let members = operation_members(&schema, op).unwrap();
    for m in v["mustInclude"].as_array().unwrap() {
        let m = m.as_str().unwrap();
        if m != "Mutation" {
            assert!(members.contains(&m.to_string()), "{m} not in {members:?}");
        }
    }
    assert_eq!(
        operation_members(&schema, "queryRepositoryOwner"),
        Err("parse")
    );
    assert_eq!(
        operation_members(
            &schema,
            "{ repository(owner: \"a\", name: \"b\") { stars } }"
        ),
        Err("validate")
    );
}

#[test]
fn questions_load_with_answers_and_outcomes_are_graded() {
    let qs =
        load_agent_questions(&wg().join("queries"), &["github", "linear", "singapore"], 1).unwrap();
    assert!(qs.len() > 150, "{}", qs.len());
    assert!(qs
        .iter()
        .all(|q| !q.id.ends_with("-kw") && !q.answers.is_empty()));
    let every = load_agent_questions(&wg().join("queries"), &["github"], 12).unwrap();
    assert_eq!(every.len(), 9);
    let q = &qs[0];
    let g = gqlnav_schema::load_file(&wg().join(format!("schemas/{}/schema.graphql", q.schema_id)))
        .unwrap();
    let schema = gqlnav_tools::OperationSchema::new(g.schema.clone()).schema;
    let mut o = gqlnav_agent::Outcome::empty(gqlnav_agent::Stop::Answered);
    o.answer = Some(q.answers[0].clone());
    o.executes_ok = 1;
    o.turns = 3;
    o.tool_calls = 3;
    let r = grade_outcome(q, Strategy::Navigate, &o, &schema);
    assert!(r.success && r.one_shot, "{r:?}");
    assert_eq!(r.operation, "never_executed");
    o.answer = Some(serde_json::json!({"x": "certainly not the answer 1234"}));
    assert_eq!(
        grade_outcome(q, Strategy::Navigate, &o, &schema).outcome,
        "wrong_answer"
    );
    o.stop = gqlnav_agent::Stop::MaxTurns;
    o.answer = None;
    o.executes_ok = 0;
    assert_eq!(
        grade_outcome(q, Strategy::Navigate, &o, &schema).outcome,
        "never_executed"
    );
}
