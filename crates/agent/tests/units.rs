//! The agent crate's own pieces, without a model: tool calls found in reply text, the
//! truncation guard's counting and refusal, the receipt's arithmetic, and the tools each
//! mode offers.

use gqlnav_agent::{
    find_call, system, tools, AgentError, Guard, GuardMeter, Receipt, TextCall, Usage,
    ESTIMATE_MARGIN_PCT,
};
use gqlnav_corpus::{Encoding, TokenMeter};
use gqlnav_tools::ToolsConfig;
use serde_json::json;

fn call_in(text: &str) -> gqlnav_agent::ToolCall {
    match find_call(text, 3) {
        TextCall::Call(c) => c,
        other => panic!("no call in {text:?}: {other:?}"),
    }
}

#[test]
fn a_call_is_found_in_each_way_small_models_write_it() {
    // Tagged, with prose around it; the made-up id carries the turn number.
    let c = call_in("Let me look.\n<tool_call>{\"name\": \"introspect\", \"arguments\": {\"type\": \"User\"}}</tool_call>\nDone.");
    assert_eq!(c.name, "introspect");
    assert_eq!(c.arguments, json!({"type": "User"}));
    assert_eq!(c.id, "text_3");
    // `tool` for the name and `input` for the arguments.
    let c =
        call_in("{\"tool\": \"execute\", \"input\": {\"operation\": \"{ viewer { login } }\"}}");
    assert_eq!(c.name, "execute");
    assert_eq!(c.arguments["operation"], "{ viewer { login } }");
    // No arguments at all: an empty object, not an error.
    let c = call_in("{\"name\": \"search_schema\"}");
    assert_eq!(c.arguments, json!({}));
    // Escaped quotes and braces inside strings do not end the object early.
    let c = call_in(
        r#"Calling {"name": "validate", "arguments": {"operation": "query { a(b: \"}\") { c } }"}}"#,
    );
    assert_eq!(c.arguments["operation"], "query { a(b: \"}\") { c } }");
}

#[test]
fn the_first_usable_call_wins_and_an_unusable_one_is_reported() {
    // A fenced block comes before a bare object later in the text.
    let text = "```json\n{\"name\": \"introspect\", \"arguments\": {\"type\": \"A\"}}\n```\nor {\"name\": \"execute\", \"arguments\": {}}";
    assert_eq!(call_in(text).name, "introspect");
    // A malformed call before a good one: the good one is used.
    let text = "{\"name\": \"execute\", \"arguments\": 7} then {\"name\": \"validate\", \"arguments\": {\"operation\": \"{a}\"}}";
    assert_eq!(call_in(text).name, "validate");
    // Only malformed calls: the reason names the tool and what is wrong.
    match find_call("{\"name\": \"execute\", \"arguments\": [1, 2]}", 0) {
        TextCall::Malformed(e) => {
            assert!(e.contains("`execute`"), "{e}");
            assert!(e.contains("must be a JSON object"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // Unbalanced or nameless JSON is no call.
    assert_eq!(find_call("{\"name\": \"execute\", ", 0), TextCall::None);
    assert_eq!(find_call("[{\"arguments\": {}}]", 0), TextCall::None);
}

fn local_guard(window: usize, exact: bool) -> Guard {
    Guard {
        meter: GuardMeter::Local {
            meter: TokenMeter::new(Encoding::O200kBase),
            exact,
        },
        window,
        window_source: "--context".into(),
    }
}

#[tokio::test]
async fn the_guard_counts_each_message_plus_its_template_overhead() {
    let meter = TokenMeter::new(Encoding::O200kBase);
    let texts = [
        "You answer questions about an API.",
        "How many stars has gqlnav?",
    ];
    let raw: usize = texts.iter().map(|t| meter.count(t)).sum();
    assert!(raw > 0);
    let exact = local_guard(1000, true).count(&texts).await;
    let per_message = (exact - raw) / texts.len();
    assert_eq!(exact, raw + per_message * texts.len());
    assert!(
        per_message > 0,
        "the chat template's role markers are counted"
    );
    // An estimate with another model's tokenizer adds the margin to the text's tokens.
    let estimate = local_guard(1000, false).count(&texts).await;
    assert_eq!(
        estimate,
        raw + raw * ESTIMATE_MARGIN_PCT / 100 + per_message * 2
    );
    assert!(local_guard(1000, false).meter_name().contains("estimate"));
    assert_eq!(
        local_guard(1000, true).meter_name(),
        meter.encoding().name()
    );
}

#[test]
fn the_guard_refuses_a_prompt_that_leaves_no_room_for_the_reply() {
    let g = local_guard(1000, true);
    assert!(g.check(700, 300).is_ok(), "exactly the window fits");
    match g.check(701, 300) {
        Err(e @ AgentError::TooLong { .. }) => {
            let m = e.to_string();
            for part in [
                "701 tokens",
                "300 reserved",
                "1000 tokens of context",
                "--context",
                "Nothing was sent",
            ] {
                assert!(m.contains(part), "`{part}` not in {m}");
            }
        }
        other => panic!("{other:?}"),
    }
    assert!(g.check(1001, 0).is_err());
}

#[test]
fn the_receipt_sums_calls_tools_and_the_whole_schema_contrast() {
    let mut r = Receipt {
        corpus_tokens: 5_000,
        ..Receipt::default()
    };
    r.add_call(&Usage {
        prompt: 1_200,
        completion: 40,
        cache_read: 0,
    });
    r.add_call(&Usage {
        prompt: 1_900,
        completion: 60,
        cache_read: 1_000,
    });
    r.add_call(&Usage {
        prompt: 2_400,
        completion: 25,
        cache_read: 1_800,
    });
    r.add_tool("search_schema", 300);
    r.add_tool("introspect", 120);
    r.add_tool("search_schema", 250);
    r.add_tool("execute", 90);
    r.saw_prompt(2_100);
    r.saw_prompt(1_500);
    r.close(2_500, Some(3.0), Some(15.0));

    assert_eq!(r.model_calls, 3);
    assert_eq!(r.prompt_tokens, 5_500);
    assert_eq!(r.completion_tokens, 125);
    assert_eq!(r.cache_read_tokens, 2_800);
    assert_eq!(r.tools["search_schema"].calls, 2);
    assert_eq!(r.tools["search_schema"].tokens, 550);
    assert_eq!(r.tools["execute"].calls, 1);
    assert_eq!(r.tool_payload_tokens, 300 + 120 + 250 + 90);
    assert_eq!(
        r.schema_knowledge_tokens,
        300 + 120 + 250,
        "search + introspect only"
    );
    assert_eq!(r.corpus_every_call, 15_000);
    assert_eq!(r.largest_prompt, 2_100);
    assert_eq!(r.wall_ms, 2_500);
    let cost = r.cost_usd.expect("priced");
    assert!(
        (cost - (5_500.0 * 3.0 + 125.0 * 15.0) / 1e6).abs() < 1e-12,
        "{cost}"
    );

    let text = r.text();
    assert!(text.contains("model calls            3"), "{text}");
    assert!(
        text.contains("search_schema        2 call(s), 550 tokens"),
        "{text}"
    );
    assert!(
        text.contains("corpus 5000 × 3 calls = 15000 tokens"),
        "{text}"
    );
    assert!(text.contains("wall time              2.5 s"), "{text}");
}

#[test]
fn a_receipt_without_prices_has_no_cost_and_closing_twice_does_not_double_count() {
    let mut r = Receipt::default();
    r.add_call(&Usage {
        prompt: 10,
        completion: 2,
        cache_read: 0,
    });
    r.add_tool("validate", 7);
    r.close(1, None, None);
    r.close(1, None, None);
    assert_eq!(r.cost_usd, None);
    assert_eq!(r.tool_payload_tokens, 7);
    assert_eq!(r.schema_knowledge_tokens, 0);
    assert!(!r.text().contains("cost"));
}

#[test]
fn each_mode_offers_its_tools_and_the_prompt_spells_them_out_for_the_json_protocol() {
    let config = ToolsConfig::default();
    let names = |v: &[gqlnav_agent::ToolSpec]| v.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    let answer = json!({"type": "integer"});
    let navigate = tools(&config, false, false, Some(&answer));
    assert_eq!(
        names(&navigate),
        [
            "search_schema",
            "introspect",
            "validate",
            "execute",
            "answer"
        ]
    );
    assert_eq!(navigate[4].parameters["properties"]["answer"], answer);
    assert_eq!(
        names(&tools(&config, false, true, None)),
        ["search_schema", "execute"]
    );
    assert_eq!(names(&tools(&config, true, false, None)), ["execute"]);
    // Inline wins over slicing: the whole schema is in the prompt.
    assert_eq!(names(&tools(&config, true, true, None)), ["execute"]);

    let prompt = system(
        None,
        &navigate,
        true,
        true,
        "How many stars does \"octocat/example\" have?",
    );
    assert!(
        prompt.contains(r#"{"name": "search_schema", "arguments": {"query": "How many stars does octocat/example have"}}"#),
        "the example call searches for the task's words: {prompt}"
    );
    for t in &navigate {
        assert!(prompt.contains(&t.description), "{} not described", t.name);
    }
    assert!(prompt.contains("call answer"), "{prompt}");
    let quiet = system(Some("type Query { a: Int }"), &navigate, false, false, "");
    assert!(!quiet.contains("Tools:"), "{quiet}");
    assert!(quiet.ends_with("type Query { a: Int }"), "{quiet}");
}
