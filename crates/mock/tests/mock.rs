//! The mock on real schemas: determinism, argument sensitivity, real paging, echoes and
//! ids, abstract types, refusal of bad operations, and the HTTP server on 127.0.0.1.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use gqlnav_mock::{Mock, MockOptions, Request};
use serde_json::{json, Value};

fn bundled(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn mock_of(path: &Path) -> Mock {
    let graph = gqlnav_schema::load_file(path).expect("schema loads");
    Mock::of_graph(&graph, MockOptions::default())
}

fn github() -> &'static Mock {
    static M: OnceLock<Mock> = OnceLock::new();
    M.get_or_init(|| mock_of(&bundled("benchmarks/wg/schemas/github/schema.graphql")))
}

fn data(m: &Mock, q: &str) -> Value {
    m.data(q).unwrap_or_else(|e| panic!("{q}\n-> {e}"))
}

const ISSUES: &str = r#"{ repository(owner: "octocat", name: "hello") {
  name
  issues(states: [OPEN], first: 5) { totalCount nodes { id title number } pageInfo { hasNextPage endCursor } } } }"#;

#[test]
fn same_request_same_data() {
    let a = data(github(), ISSUES);
    let b = data(github(), ISSUES);
    assert_eq!(a, b);
    // A second mock of the same schema agrees too: nothing depends on the process.
    let again = mock_of(&bundled("benchmarks/wg/schemas/github/schema.graphql"));
    assert_eq!(a, data(&again, ISSUES));
    let nodes = a["repository"]["issues"]["nodes"]
        .as_array()
        .expect("nodes");
    assert!(!nodes.is_empty() && nodes.len() <= 5);
    assert!(nodes[0]["title"].is_string() && nodes[0]["number"].is_i64());
}

#[test]
fn a_different_filter_gives_different_data() {
    let open = data(github(), ISSUES);
    let closed = data(github(), &ISSUES.replace("[OPEN]", "[CLOSED]"));
    let none = data(github(), &ISSUES.replace("states: [OPEN], ", ""));
    let titles = |v: &Value| v["repository"]["issues"]["nodes"].clone();
    assert_ne!(titles(&open), titles(&closed));
    assert_ne!(titles(&open), titles(&none));
    // Another repository is another object.
    let other = data(github(), &ISSUES.replace("\"hello\"", "\"world\""));
    assert_ne!(titles(&open), titles(&other));
    // A default written out is the same request as none: `orderBy` has a default on
    // `Repository.issues`? Not necessarily, so compare coercion on an argument with one:
    // `Query.repository(followRenames: Boolean = true)`.
    let explicit = data(
        github(),
        &ISSUES.replace("name: \"hello\")", "name: \"hello\", followRenames: true)"),
    );
    assert_eq!(open, explicit);
}

#[test]
fn paging_is_real() {
    let q = |args: &str| {
        format!(
            r#"{{ repository(owner: "o", name: "r") {{ pullRequests({args}) {{ totalCount nodes {{ number }} edges {{ cursor node {{ number }} }} pageInfo {{ hasNextPage hasPreviousPage startCursor endCursor }} }} }} }}"#
        )
    };
    let all = data(github(), &q("states: [MERGED]"));
    let conn = &all["repository"]["pullRequests"];
    let total = conn["totalCount"].as_u64().expect("count") as usize;
    let numbers: Vec<Value> = conn["nodes"].as_array().expect("nodes").clone();
    assert_eq!(numbers.len(), total, "no page size: every item, as counted");
    assert_eq!(conn["pageInfo"]["hasNextPage"], json!(false));

    // Pages of 2, followed by cursor, give the same items in the same order.
    let mut seen: Vec<Value> = Vec::new();
    let mut after = String::new();
    for _ in 0..40 {
        let page = data(github(), &q(&format!("states: [MERGED], first: 2{after}")));
        let c = &page["repository"]["pullRequests"];
        assert_eq!(c["totalCount"].as_u64(), Some(total as u64), "count agrees");
        let nodes = c["nodes"].as_array().expect("nodes");
        for (n, e) in nodes.iter().zip(c["edges"].as_array().expect("edges")) {
            assert_eq!(n, &e["node"], "edges and nodes agree");
        }
        seen.extend(nodes.iter().cloned());
        if c["pageInfo"]["hasNextPage"] != json!(true) {
            break;
        }
        let end = c["pageInfo"]["endCursor"].as_str().expect("cursor");
        after = format!(", after: \"{end}\"");
    }
    assert_eq!(seen, numbers, "paging walks the whole list once");

    let last = data(github(), &q("states: [MERGED], last: 2"));
    let tail = last["repository"]["pullRequests"]["nodes"]
        .as_array()
        .expect("nodes")
        .clone();
    assert_eq!(tail, numbers[numbers.len().saturating_sub(2)..].to_vec());
    if total > 2 {
        assert_eq!(
            last["repository"]["pullRequests"]["pageInfo"]["hasPreviousPage"],
            json!(true)
        );
    }
    let bad = github().data(&q("states: [MERGED], after: \"nope\""));
    assert!(
        bad.as_ref().is_err_and(|e| e.contains("not a cursor")),
        "{bad:?}"
    );
}

#[test]
fn lookups_echo_their_key_and_ids_name_their_object() {
    let v = data(github(), ISSUES);
    assert_eq!(v["repository"]["name"], json!("hello"));
    let first = &v["repository"]["issues"]["nodes"][0];
    let id = first["id"].as_str().expect("id");
    let again = data(
        github(),
        &format!(r#"{{ node(id: "{id}") {{ __typename ... on Issue {{ title number }} }} }}"#),
    );
    assert_eq!(again["node"]["__typename"], json!("Issue"));
    assert_eq!(again["node"]["title"], first["title"]);
    assert_eq!(again["node"]["number"], first["number"]);
}

#[test]
fn abstract_types_resolve_to_a_member_the_selection_asks_for() {
    let q = r#"{ repository(owner: "o", name: "r") { defaultBranchRef { target { __typename ... on Commit { history(first: 3) { nodes { message author { name email } } } } } } } }"#;
    let v = data(github(), q);
    let target = &v["repository"]["defaultBranchRef"]["target"];
    assert_eq!(target["__typename"], json!("Commit"));
    assert_eq!(target["history"]["nodes"].as_array().map(Vec::len), Some(3));
    // Without a type condition, some member (a GitObject) answers.
    let plain = data(
        github(),
        r#"{ repository(owner: "o", name: "r") { defaultBranchRef { target { __typename oid } } } }"#,
    );
    let t = plain["repository"]["defaultBranchRef"]["target"]["__typename"]
        .as_str()
        .expect("typename")
        .to_string();
    assert!(
        ["Blob", "Commit", "Tag", "Tree"].contains(&t.as_str()),
        "{t}"
    );
}

#[test]
fn bad_operations_are_refused_like_a_server_does() {
    let out = github().execute(&Request::new(
        r#"{ repository(owner: "o", name: "r") { nam } }"#,
    ));
    assert!(out.get("data").is_none(), "{out}");
    assert!(
        out["errors"]
            .to_string()
            .contains("does not have a field `nam`"),
        "{out}"
    );
    assert!(out["errors"][0]["locations"].is_array(), "{out}");

    let parse = github().execute(&Request::new("{ repository("));
    assert!(parse["errors"].as_array().is_some_and(|e| !e.is_empty()));

    let missing_var = github().execute(&Request {
        query: "query Q($o: String!) { repository(owner: $o, name: \"r\") { name } }".into(),
        ..Request::default()
    });
    assert!(
        missing_var["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("o")),
        "{missing_var}"
    );
    let with_var = github().execute(&Request {
        query: "query Q($o: String!) { repository(owner: $o, name: \"r\") { name } }".into(),
        variables: Some(json!({"o": "me"}).as_object().cloned().unwrap_or_default()),
        operation_name: Some("Q".into()),
    });
    assert_eq!(with_var["data"]["repository"]["name"], json!("r"));
}

#[test]
fn huge_responses_are_cut_with_a_message() {
    let m = mock_of(&bundled("benchmarks/wg/schemas/github/schema.graphql"));
    let small = Mock::new(
        m.schema().clone(),
        MockOptions {
            max_values: 200,
            ..MockOptions::default()
        },
    );
    let out = small.execute(&Request::new(
        r#"{ repository(owner: "o", name: "r") { issues { nodes { title comments { nodes { body reactions { nodes { content } } } } } } } }"#,
    ));
    let msg = out["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("cap of 200 values"), "{out}");
}

/// Every bundled schema (and the extra WG schemas when GQLNAV_DATA_DIR has them) is
/// served: each query root field without required arguments answers without errors.
#[test]
fn every_bundled_schema_is_served() {
    let mut schemas: Vec<PathBuf> = ["github", "linear", "singapore"]
        .iter()
        .map(|id| bundled(&format!("benchmarks/wg/schemas/{id}/schema.graphql")))
        .collect();
    schemas.push(bundled(
        "benchmarks/heldout/schemas/nautical/schema.graphql",
    ));
    schemas.push(bundled("crates/cli/tests/fixtures/films.graphqls"));
    match std::env::var("GQLNAV_DATA_DIR") {
        Ok(d) => {
            for id in ["gitlab", "shopify"] {
                let p = Path::new(&d).join(format!("wg/schemas/{id}/schema.graphql"));
                if p.exists() {
                    schemas.push(p);
                } else {
                    eprintln!("skipped: {} (not in GQLNAV_DATA_DIR)", p.display());
                }
            }
        }
        Err(_) => eprintln!("skipped: gitlab and shopify (GQLNAV_DATA_DIR is not set)"),
    }
    for path in schemas {
        let graph = gqlnav_schema::load_file(&path).expect("loads");
        let m = Mock::of_graph(&graph, MockOptions::default());
        let root = m
            .schema()
            .schema_definition
            .query
            .as_ref()
            .map(|q| q.name.to_string())
            .expect("a query root");
        let Some(q) = m.schema().get_object(&root) else {
            panic!("{}: no query object", path.display());
        };
        let mut served = 0;
        for (name, f) in &q.fields {
            if f.arguments
                .iter()
                .any(|a| a.ty.is_non_null() && a.default_value.is_none())
            {
                continue;
            }
            let inner = f.ty.inner_named_type();
            let leaf = matches!(
                m.schema().types.get(inner),
                Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::Scalar(_))
                    | Some(gqlnav_schema::apollo_compiler::schema::ExtendedType::Enum(
                        _
                    ))
            );
            let query = if leaf {
                format!("{{ {name} }}")
            } else {
                format!("{{ {name} {{ __typename }} }}")
            };
            let out = m.execute(&Request::new(&query));
            assert!(
                out.get("errors").is_none() && out["data"][name.as_str()] != Value::Null,
                "{}: {query} -> {out}",
                path.display()
            );
            served += 1;
        }
        assert!(served > 0, "{}: no root field served", path.display());
    }
}

#[tokio::test]
async fn the_http_server_answers_like_the_library() {
    let m = Arc::new(mock_of(&bundled(
        "benchmarks/wg/schemas/singapore/schema.graphql",
    )));
    let server = gqlnav_mock::serve(m.clone(), "127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serves");
    let q = "{ allClinics { name telephone } }";
    let http = reqwest::Client::new();
    let body: Value = http
        .post(server.url())
        .json(&json!({"query": q}))
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("json");
    assert_eq!(body, m.execute(&Request::new(q)));
    let got: Value = http
        .get(reqwest::Url::parse_with_params(&server.url(), [("query", q)]).expect("url"))
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("json");
    assert_eq!(got, body);
    let bad = http
        .post(server.url())
        .body("not json")
        .header("content-type", "application/json")
        .send()
        .await
        .expect("answers");
    assert_eq!(bad.status(), 400);
    let text = bad.text().await.unwrap_or_default();
    assert!(text.contains("must be JSON"), "{text}");
}
