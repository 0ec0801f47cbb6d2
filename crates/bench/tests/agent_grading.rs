//! Agent-bench grading on real WG data: a question's own reference operation covers its
//! `mustInclude`; a broken one fails at the right step; outcomes map to the taxonomy.

use std::path::Path;

use gqlnav_bench::{
    grade_outcome, load_agent_questions, operation_members, write_agent_report, AgentRow, Grading,
    Strategy, AGENT_SVG,
};

fn wg() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg")
}

#[test]
fn reference_operations_cover_their_musts_and_broken_ones_fail_at_the_right_step() {
    let g = gqlnav_schema::load_file(&wg().join("schemas/github/schema.graphql")).unwrap();
    let schema = gqlnav_tools::OperationSchema::from_graph(&g).schema;
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
    let qs = load_agent_questions(
        &wg().join("queries"),
        &["github", "linear", "singapore"],
        1,
        Grading::Written,
    )
    .unwrap();
    assert!(qs.len() > 150, "{}", qs.len());
    assert!(qs
        .iter()
        .all(|q| !q.id.ends_with("-kw") && !q.answers.is_empty()));
    let every =
        load_agent_questions(&wg().join("queries"), &["github"], 12, Grading::Written).unwrap();
    assert_eq!(every.len(), 9);
    let q = &qs[0];
    let g = gqlnav_schema::load_file(&wg().join(format!("schemas/{}/schema.graphql", q.schema_id)))
        .unwrap();
    let schema = gqlnav_tools::OperationSchema::from_graph(&g).schema;
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

fn row(id: &str, api: &str, strategy: Strategy, success: bool, operation: &str) -> AgentRow {
    AgentRow {
        id: id.into(),
        schema_id: api.into(),
        strategy,
        ran: strategy.name().into(),
        success,
        outcome: if success { "ok" } else { "no_answer" }.into(),
        operation: operation.into(),
        turns: 3,
        tool_calls: 2,
        prompt_tokens: 1000,
        completion_tokens: 50,
        tool_payload_tokens: 400,
        one_shot: false,
        wall_ms: 1200,
        answer: None,
    }
}

#[test]
fn the_report_writes_markdown_json_and_an_svg_with_one_bar_per_group() {
    let rows = vec![
        row("a", "github", Strategy::Navigate, true, "covered"),
        row("b", "github", Strategy::Navigate, false, "validate"),
        row("c", "linear", Strategy::Slice, false, "covered"),
        row("d", "linear", Strategy::Navigate, true, "covered"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let written = write_agent_report(dir.path(), &rows, "operation only").unwrap();
    assert_eq!(written.len(), 3);
    let md = std::fs::read_to_string(dir.path().join("agent.md")).unwrap();
    // navigate on github: 1 of 2, with its Wilson interval.
    assert!(
        md.contains("| navigate | github | 2 | 50.0% (9.5–90.5%)"),
        "{md}"
    );
    let js: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("agent.json")).unwrap())
            .unwrap();
    assert_eq!(js["grading"], "operation only");
    let svg = std::fs::read_to_string(dir.path().join(AGENT_SVG)).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
    // Bars: navigate on github, linear, all; slice on linear, all; in two panels, plus
    // the two legend swatches of each panel.
    let bars = svg.matches("<rect").count();
    assert!(bars >= 2 * (5 + 2), "{bars} rects");
    for label in [
        "github",
        "linear",
        "all",
        "navigate",
        "slice",
        "task success",
    ] {
        assert!(svg.contains(label), "{label} missing from the SVG");
    }
}
