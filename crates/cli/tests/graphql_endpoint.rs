//! End-to-end tests of the GraphQL endpoint (`gqlnav serve --graphql`) with real
//! components: the `gqlnav` binary, `__search` / `__definitions` semantic introspection,
//! and the proxy to a graphql-yoga + @graphql-tools/mock upstream on 127.0.0.1 (Node 20
//! + npm; `npm ci` runs in tests/support when node_modules is missing).

use std::process::Command;

use serde_json::{json, Value};

mod common;
use common::{bin, items, named, schema, server, upstream, Proc};

const SECRET: &str = "Bearer sekret-token-4821";

fn gql_error_contains(url: &str, body: Value, needle: &str) {
    let r = gql(url, body);
    let msg = r["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains(needle), "no error containing {needle:?}: {r}");
}

fn gql(url: &str, body: Value) -> Value {
    reqwest::blocking::Client::new()
        .post(url)
        .json(&body)
        .send()
        .unwrap()
        .json()
        .unwrap()
}

/// The GitHub schema served with `--graphql`, proxying to a mock upstream that holds the
/// trusted `Authorization` header. Fields drop in reverse order of creation: server,
/// upstream, then the temporary directory.
struct GithubEndpoint {
    _srv: Proc,
    _up: Proc,
    _dir: tempfile::TempDir,
    url: String,
    port: u16,
}

fn github_endpoint_with_upstream() -> GithubEndpoint {
    // An introspection JSON of the GitHub schema (its SDL does not validate in graphql-js).
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("github.json");
    let out = Command::new(bin())
        .args([
            "export",
            "--schema",
            &schema("github"),
            "--format",
            "introspection",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&json_path, &out.stdout).unwrap();
    let (up, port) = upstream(json_path.to_str().unwrap());
    let (srv, line) = server(
        &[
            "--schema",
            &schema("github"),
            "--graphql",
            "127.0.0.1:0",
            "--no-stdio",
            "--endpoint",
            &format!("http://127.0.0.1:{port}/graphql"),
            "--header",
            &format!("Authorization: {SECRET}"),
        ],
        "GraphQL endpoint on ",
    );
    GithubEndpoint {
        _srv: srv,
        _up: up,
        _dir: dir,
        url: line,
        port,
    }
}

/// `__search`, with the RFC's fields and a union definition; paging with `after`,
/// `minScore`, and the `sameFieldOn` and `moreOnType` extensions.
fn check_search(url: &str) {
    let r = gql(
        url,
        json!({"query": "query S($q: String!) { __search(query: $q, first: 3) { coordinate score cursor pathsToRoot moreOnType definition { __typename ... on __Field { name args { name } type { kind name ofType { name } } } } } }", "variables": {"q": "open pull requests of a repository"}}),
    );
    assert!(r.get("errors").is_none(), "{r}");
    let res = r["data"]["__search"].as_array().unwrap();
    assert_eq!(res.len(), 3);
    assert_eq!(res[0]["definition"]["__typename"], "__Field");
    // The list is a result, or folded into the first result of its type.
    assert!(
        res.iter()
            .any(|x| x["coordinate"] == "Repository.pullRequests"
                || x["moreOnType"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|c| c == "Repository.pullRequests"))),
        "{r}"
    );
    assert!(res[0]["pathsToRoot"][0][0]
        .as_str()
        .unwrap()
        .starts_with("Query."));
    // after + minScore
    let cursor = res[2]["cursor"].as_str().unwrap();
    let r2 = gql(
        url,
        json!({"query": format!("{{ __search(query: \"open pull requests of a repository\", first: 3, after: \"{cursor}\", minScore: 0.0) {{ coordinate score }} }}")}),
    );
    let res2 = r2["data"]["__search"].as_array().unwrap();
    assert_eq!(res2.len(), 3, "{r2}");
    assert!(res2
        .iter()
        .all(|x| !res.iter().any(|y| y["coordinate"] == x["coordinate"])));
    let r3 = gql(
        url,
        json!({"query": "{ __search(query: \"pull requests\", first: 50, minScore: 0.9) { score } }"}),
    );
    assert!(items(&r3["data"]["__search"])
        .iter()
        .all(|x| x["score"].as_f64().unwrap() >= 0.9));
    // sameFieldOn (a gqlnav extension): the same field on sibling types of one interface
    // is folded into one result.
    let r4 = gql(
        url,
        json!({"query": "{ __search(query: \"avatar url of the author\", first: 6) { coordinate sameFieldOn } }"}),
    );
    assert!(r4.get("errors").is_none(), "{r4}");
    assert!(
        items(&r4["data"]["__search"]).iter().any(|x| {
            x["coordinate"]
                .as_str()
                .is_some_and(|c| c.ends_with(".avatarUrl"))
                && x["sameFieldOn"].as_array().is_some_and(|a| {
                    a.iter()
                        .any(|c| c.as_str().is_some_and(|c| c.ends_with(".avatarUrl")))
                })
        }),
        "{r4}"
    );
    // moreOnType (a gqlnav extension): lower-ranked fields of a result's own type fold
    // into it, so each result names another type.
    let r5 = gql(
        url,
        json!({"query": "{ __search(query: \"open pull requests of a repository\", first: 8) { coordinate moreOnType } }"}),
    );
    assert!(r5.get("errors").is_none(), "{r5}");
    let res5 = items(&r5["data"]["__search"]);
    let owner = |x: &serde_json::Value| {
        let c = x["coordinate"].as_str().unwrap_or_default();
        c.split_once('.').map_or(c, |p| p.0).to_string()
    };
    let mut owners: Vec<String> = res5.iter().map(owner).collect();
    let n = owners.len();
    owners.sort();
    owners.dedup();
    assert_eq!(owners.len(), n, "{r5}");
    let folded = res5
        .iter()
        .find(|x| x["moreOnType"].as_array().is_some_and(|a| !a.is_empty()))
        .unwrap_or_else(|| panic!("nothing folded by type: {r5}"));
    let prefix = format!("{}.", owner(folded));
    assert!(
        folded["moreOnType"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.as_str().unwrap().starts_with(&prefix)),
        "{r5}"
    );
}

/// `__definitions`: same order as asked, each the right meta type; unknown coordinates
/// are an error.
fn check_definitions(url: &str) {
    let r = gql(
        url,
        json!({"query": "{ __definitions(coordinates: [\"Repository\", \"Repository.name\", \"Query.repository(owner:)\", \"IssueState.OPEN\", \"@deprecated\"]) { __typename ... on __Type { typeName: name kind } ... on __Field { name } ... on __InputValue { name type { kind } } ... on __EnumValue { name } ... on __Directive { name } } }"}),
    );
    let defs = r["data"]["__definitions"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"));
    let kinds: Vec<&str> = defs
        .iter()
        .map(|d| d["__typename"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "__Type",
            "__Field",
            "__InputValue",
            "__EnumValue",
            "__Directive"
        ]
    );
    assert_eq!(defs[0]["kind"], "OBJECT");
    assert_eq!(defs[0]["typeName"], "Repository");
    assert_eq!(defs[2]["name"], "owner");
    gql_error_contains(
        url,
        json!({"query": "{ __definitions(coordinates: [\"Repo.nam\"]) { __typename } }"}),
        "unknown coordinate",
    );
}

/// Introspecting the RFC types themselves: `__SearchResult`, the `__SchemaDefinition`
/// union and the `Query.__search` / `Query.__definitions` fields.
fn check_rfc_type_introspection(url: &str) {
    let r = gql(
        url,
        json!({"query": "{ sr: __type(name: \"__SearchResult\") { kind fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } sd: __type(name: \"__SchemaDefinition\") { kind possibleTypes { name } } q: __type(name: \"Query\") { fields { name args { name defaultValue type { kind name ofType { kind name } } } } } }"}),
    );
    assert!(r.get("errors").is_none(), "{r}");
    let f = |n: &str| -> Value {
        r["data"]["sr"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == n)
            .unwrap_or_else(|| panic!("no __SearchResult.{n}"))["type"]
            .clone()
    };
    assert_eq!(
        f("coordinate"),
        json!({"kind": "NON_NULL", "name": null, "ofType": {"kind": "SCALAR", "name": "String", "ofType": null}})
    );
    assert_eq!(f("definition")["ofType"]["name"], "__SchemaDefinition");
    assert_eq!(
        f("score"),
        json!({"kind": "SCALAR", "name": "Float", "ofType": null})
    );
    assert_eq!(f("cursor")["ofType"]["name"], "String");
    let p = f("pathsToRoot");
    assert_eq!(p["kind"], "NON_NULL");
    assert_eq!(p["ofType"]["kind"], "LIST");
    assert_eq!(p["ofType"]["ofType"]["kind"], "NON_NULL");
    assert_eq!(p["ofType"]["ofType"]["ofType"]["kind"], "LIST");
    assert_eq!(r["data"]["sd"]["kind"], "UNION");
    let members: Vec<&str> = items(&r["data"]["sd"]["possibleTypes"])
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        members,
        [
            "__Type",
            "__Field",
            "__InputValue",
            "__EnumValue",
            "__Directive"
        ]
    );
    let qf = items(&r["data"]["q"]["fields"]);
    let search = named(&r["data"]["q"]["fields"], "__search");
    let first = named(&search["args"], "first");
    assert_eq!(first["defaultValue"], "10");
    assert_eq!(first["type"]["kind"], "NON_NULL");
    assert!(qf.iter().any(|x| x["name"] == "__definitions"));
}

/// Standard introspection and __typename, locally.
fn check_standard_introspection(url: &str) {
    let r = gql(
        url,
        json!({"query": "{ __typename __schema { queryType { name } } }"}),
    );
    assert_eq!(r["data"]["__schema"]["queryType"]["name"], "Query");
}

/// Proxy: a normal query (POST and GET) goes upstream with the trusted header; nothing
/// secret returns. Returns what the upstream saw.
fn check_proxy(url: &str, port: u16) -> Value {
    let r = gql(url, json!({"query": "{ viewer { login } }"}));
    assert!(r["data"]["viewer"]["login"].is_string(), "{r}");
    let seen: Value = reqwest::blocking::get(format!("http://127.0.0.1:{port}/seen"))
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(seen["authorization"], SECRET);
    let get: Value = reqwest::blocking::get(format!(
        "{url}?query=%7B%20viewer%20%7B%20login%20%7D%20%7D"
    ))
    .unwrap()
    .json()
    .unwrap();
    assert!(get["data"]["viewer"]["login"].is_string(), "{get}");
    seen
}

/// Mixed operations, mutations, invalid queries and over-deep queries are refused with
/// a clear error.
fn check_refused_queries(url: &str) {
    // Mixed operations are refused with a clear error.
    gql_error_contains(
        url,
        json!({"query": "{ viewer { login } __search(query: \"x\") { coordinate } }"}),
        "two separate operations",
    );
    // Mutations refused by default; invalid queries answered with suggestions.
    gql_error_contains(
        url,
        json!({"query": "mutation M { addStar(input: {starrableId: \"x\"}) { clientMutationId } }"}),
        "refused",
    );
    gql_error_contains(
        url,
        json!({"query": "{ viewer { logn } }"}),
        "did you mean User.login",
    );
    // Depth bound.
    let deep = format!(
        "{{ viewer {{ {} login {} }} }}",
        "repositories(first: 1) { nodes { owner { ... on User { ".repeat(5),
        "} } } } ".repeat(5)
    );
    gql_error_contains(
        url,
        json!({"query": deep}),
        "the nesting depth is 17, the limit is 15",
    );
}

/// Host guard (foreign Host / Origin get 403) and body limit (413).
fn check_host_guard_and_body_limit(url: &str) {
    let c = reqwest::blocking::Client::new();
    for (header, value) in [
        ("host", "evil.example.com"),
        ("origin", "http://evil.example.com"),
    ] {
        let r = c
            .post(url)
            .header(header, value)
            .json(&json!({"query": "{ __typename }"}))
            .send()
            .unwrap();
        assert_eq!(r.status(), 403, "{header}: {value}");
    }
    let big = "x".repeat(2 * 1024 * 1024);
    let r = c.post(url).json(&json!({"query": big})).send().unwrap();
    assert_eq!(r.status(), 413);
}

#[test]
fn graphql_endpoint_semantic_introspection_and_proxy_on_github() {
    let gh = github_endpoint_with_upstream();
    let url = gh.url.as_str();
    check_search(url);
    check_definitions(url);
    check_rfc_type_introspection(url);
    check_standard_introspection(url);
    let seen = check_proxy(url, gh.port);
    check_refused_queries(url);
    check_host_guard_and_body_limit(url);
    assert!(!format!("{seen}").is_empty());
}

#[test]
fn upstream_safety_redirects_size_and_time() {
    let (_up, port) = upstream(&schema("singapore"));
    let q = json!({"query": "{ allClinics { name } }"});
    for (path, extra, want) in [
        ("/redirect", vec![], "redirect"),
        ("/big", vec![], "exceeded"),
        (
            "/slow",
            vec!["--upstream-timeout", "1"],
            "did not answer within 1 s",
        ),
    ] {
        let endpoint = format!("http://127.0.0.1:{port}{path}");
        let mut args = vec![
            "--schema".to_string(),
            schema("singapore"),
            "--graphql".into(),
            "127.0.0.1:0".into(),
            "--no-stdio".into(),
            "--endpoint".into(),
            endpoint,
            "--header".into(),
            format!("Authorization: {SECRET}"),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_srv, url) = server(&refs, "GraphQL endpoint on ");
        let r = gql(&url, q.clone());
        let msg = r["errors"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(msg.contains(want), "{path}: {r}");
        assert!(!r.to_string().contains("sekret"), "secret in {r}");
    }
    // Non-http(s) upstreams are refused at start.
    let out = Command::new(bin())
        .args([
            "serve",
            "--schema",
            &schema("singapore"),
            "--graphql",
            "127.0.0.1:0",
            "--endpoint",
            "file:///etc/passwd",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only http:// and https://"));
}

#[test]
fn graphql_definitions_follow_type_references_and_hide_deprecated_by_default() {
    let (_srv, url) = server(
        &[
            "--schema",
            &schema("github"),
            "--graphql",
            "127.0.0.1:0",
            "--no-stdio",
        ],
        "GraphQL endpoint on ",
    );
    // A field's return type, two wrappers down, resolves to the full named type.
    let r = gql(
        &url,
        json!({"query": "{ __definitions(coordinates: [\"Query.repository\"]) { ... on __Field { name type { kind name fields { name } } } } }"}),
    );
    let f = &r["data"]["__definitions"][0];
    assert_eq!(f["name"], "repository", "{r}");
    assert_eq!(f["type"]["kind"], "OBJECT", "{r}");
    assert_eq!(f["type"]["name"], "Repository", "{r}");
    let names: Vec<&str> = items(&f["type"]["fields"])
        .iter()
        .filter_map(|x| x["name"].as_str())
        .collect();
    assert!(names.contains(&"pullRequests"), "{names:?}");
    // Deprecated fields only with includeDeprecated: true.
    let q = |incl: bool| {
        gql(
            &url,
            json!({"query": format!("{{ __definitions(coordinates: [\"TeamChangeParentTeamAuditEntry\"]) {{ ... on __Type {{ fields(includeDeprecated: {incl}) {{ name isDeprecated }} }} }} }}")}),
        )
    };
    let count = |v: &Value, deprecated: bool| {
        v["data"]["__definitions"][0]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["isDeprecated"] == deprecated)
            .count()
    };
    let (all, current) = (q(true), q(false));
    assert!(count(&all, true) > 0, "{all}");
    assert_eq!(count(&current, true), 0, "{current}");
    assert_eq!(count(&all, false), count(&current, false));
    // A list wrapper: kind LIST, no name, ofType the element.
    let r = gql(
        &url,
        json!({"query": "{ __definitions(coordinates: [\"Repository.languages(orderBy:)\", \"@deprecated(reason:)\"]) { __typename ... on __InputValue { name type { kind name } defaultValue } } }"}),
    );
    let defs = r["data"]["__definitions"].as_array().unwrap();
    assert_eq!(defs[0]["name"], "orderBy", "{r}");
    assert_eq!(defs[1]["__typename"], "__InputValue", "{r}");
    assert_eq!(defs[1]["name"], "reason", "{r}");
    assert!(defs[1]["defaultValue"].as_str().is_some(), "{r}");
}
