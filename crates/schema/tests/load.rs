//! Loading real schemas (the WG schemas bundled in benchmarks/wg; gitlab and shopify from
//! the extra data when it is there), paths to root, and every bad input.
//! The endpoint tests run a real HTTP server on 127.0.0.1 (a small std::net server
//! started by the test) serving the introspection result of a WG schema.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::{extra_wg_schema, find_wg_schema, wg_schema, PUBLISHED_FIELD_COUNTS};
use gqlnav_schema::{
    load_file, load_sdl_str, EndpointOptions, PathOptions, SchemaError, SchemaGraph,
};

/// The bundled GitHub schema, loaded once for the tests that read it.
fn github() -> &'static SchemaGraph {
    static G: OnceLock<SchemaGraph> = OnceLock::new();
    G.get_or_init(|| load_file(&wg_schema("github")).unwrap())
}

/// Paths to root in the GitHub schema, default options.
fn github_paths(coordinate: &str) -> Result<Vec<Vec<String>>, SchemaError> {
    github().paths_to_root(coordinate, PathOptions::default())
}

#[test]
fn all_five_wg_schemas_load_with_published_field_counts() {
    for (name, fields) in PUBLISHED_FIELD_COUNTS {
        let Some(path) = find_wg_schema(name) else {
            continue;
        };
        let g = load_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(g.field_count(), fields, "{name}");
    }
}

#[test]
fn github_paths_to_root_start_at_query() {
    let paths = github_paths("Commit.message").unwrap();
    assert!(!paths.is_empty());
    for p in &paths {
        assert!(p[0].starts_with("Query."), "{p:?}");
        assert_eq!(p.last().unwrap(), "Commit.message");
        assert!(p.len() <= 6);
    }
    // shortest first
    for w in paths.windows(2) {
        assert!(w[0].len() <= w[1].len());
    }
    // deterministic
    assert_eq!(paths, github_paths("Commit.message").unwrap());
    // generic lookups (`Query.resource`, `Query.node`: interfaces standing for dozens of
    // types) cost two extra hops, so the repository path comes first and they do not
    // crowd the five cheapest out
    assert_eq!(paths[0][0], "Query.repository", "{paths:?}");
    assert!(
        !paths
            .iter()
            .any(|p| p[0] == "Query.resource" || p[0] == "Query.node"),
        "{paths:?}"
    );
    // a root field is its own path
    assert_eq!(
        github_paths("Query.viewer").unwrap(),
        vec![vec!["Query.viewer".to_string()]]
    );
}

#[test]
fn shopify_paths_start_at_query_root() {
    let Some(path) = extra_wg_schema("shopify") else {
        return;
    };
    let g = load_file(&path).unwrap();
    assert_eq!(g.root(gqlnav_schema::RootKind::Query), Some("QueryRoot"));
    let paths = g
        .paths_to_root("Product.title", PathOptions::default())
        .unwrap();
    assert!(!paths.is_empty());
    assert!(
        paths.iter().all(|p| p[0].starts_with("QueryRoot.")),
        "{paths:?}"
    );
}

#[test]
fn mutation_paths_only_on_request() {
    let g = load_sdl_str(
        "type Query { a: Int } type Mutation { make: Thing } type Thing { name: String }",
        "t.graphql",
    )
    .unwrap();
    assert!(g
        .paths_to_root("Thing.name", PathOptions::default())
        .unwrap()
        .is_empty());
    let p = g
        .paths_to_root(
            "Thing.name",
            PathOptions {
                include_mutation: true,
                ..PathOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        p,
        vec![vec!["Mutation.make".to_string(), "Thing.name".to_string()]]
    );
}

#[test]
fn paths_go_through_interfaces_and_unions() {
    let g = load_sdl_str(
        "type Query { node: Node, search: [Result!]! }
         interface Node { id: ID! }
         type User implements Node { id: ID!, login: String }
         type Org { name: String }
         union Result = User | Org",
        "t.graphql",
    )
    .unwrap();
    let p = g
        .paths_to_root("User.login", PathOptions::default())
        .unwrap();
    assert_eq!(p[0], vec!["Query.node", "User.login"]);
    assert_eq!(p[1], vec!["Query.search", "User.login"]);
    let p = g.paths_to_root("Org.name", PathOptions::default()).unwrap();
    assert_eq!(
        p,
        vec![vec!["Query.search".to_string(), "Org.name".to_string()]]
    );
}

#[test]
fn unknown_coordinate_is_a_clear_error_with_suggestions() {
    let msg = github_paths("Repository.nam").unwrap_err().to_string();
    assert!(msg.contains("unknown coordinate `Repository.nam`"), "{msg}");
    assert!(msg.contains("Repository.name"), "{msg}");
    let e = github().resolve_str("Repositry").unwrap_err().to_string();
    assert!(
        e.contains("did you mean") && e.contains("Repository"),
        "{e}"
    );
    let e = github().resolve_str("Nope.(x").unwrap_err().to_string();
    assert!(e.contains("invalid schema coordinate"), "{e}");
}

#[test]
fn github_sdl_duplicates_are_warnings_not_failures() {
    let g = github();
    // The WG snapshot may or may not carry the duplicate-field problem of the public
    // SDL; whatever problems exist carry a location.
    for w in &g.warnings {
        assert!(w.location.contains("schema.graphql"), "{w}");
    }
}

#[test]
fn bad_files_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.graphql");
    let e = load_file(&missing).unwrap_err();
    assert!(matches!(e, SchemaError::Io { .. }), "{e}");
    assert!(e.to_string().contains("cannot read schema file"));

    let bad = dir.path().join("bad.graphql");
    std::fs::write(&bad, "this is { not graphql").unwrap();
    let e = load_file(&bad).unwrap_err().to_string();
    assert!(e.contains("holds no usable GraphQL schema"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");

    let badjson = dir.path().join("bad.json");
    std::fs::write(&badjson, "{\"data\": {\"nothing\": 1}}").unwrap();
    let e = load_file(&badjson).unwrap_err().to_string();
    assert!(
        e.contains("not an introspection result") && e.contains("__schema"),
        "{e}"
    );

    let trunc = dir.path().join("trunc.json");
    std::fs::write(&trunc, "{\"data\": {\"__schema\": ").unwrap();
    let e = load_file(&trunc).unwrap_err().to_string();
    assert!(e.contains("not an introspection result"), "{e}");
}

#[test]
fn introspection_json_round_trips_github() {
    let g = github();
    let v = gqlnav_schema::introspection_result(g.schema.for_operations()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("github.json");
    std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
    let g2 = load_file(&p).unwrap();
    assert_eq!(g2.field_count(), 6640);
    // also the bare {"__schema": …} form
    let bare = serde_json::json!({"__schema": v["data"]["__schema"]});
    let g3 = gqlnav_schema::load_introspection_str(&bare.to_string(), "bare.json", 16).unwrap();
    assert_eq!(g3.field_count(), 6640);
    assert_eq!(
        g3.schema.types["Repository"].name().as_str(),
        "Repository",
        "types survive the conversion"
    );
}

#[test]
fn too_deep_type_references_are_refused() {
    let mut t = serde_json::json!({"kind": "NAMED", "name": "String"});
    t = serde_json::json!({"kind": "SCALAR", "name": "String"});
    for _ in 0..40 {
        t = serde_json::json!({"kind": "LIST", "name": null, "ofType": t});
    }
    let v = serde_json::json!({"__schema": {
        "queryType": {"name": "Query"},
        "types": [{"kind": "OBJECT", "name": "Query", "fields": [{"name": "x", "args": [], "type": t}], "interfaces": []}]
    }});
    let e = gqlnav_schema::load_introspection_str(&v.to_string(), "deep.json", 16).unwrap_err();
    assert!(e.to_string().contains("deeper than 16"), "{e}");
}

// ---------- a real HTTP server on 127.0.0.1 ----------

struct Server {
    addr: String,
    seen_headers: Arc<Mutex<Vec<String>>>,
}

fn read_request(stream: &mut TcpStream) -> (String, Vec<String>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap_or(0);
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        headers.push(h.trim().to_string());
    }
    let mut body = vec![0u8; len];
    let _ = reader.read_exact(&mut body);
    (path, headers)
}

fn start_server(introspection: String) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let seen2 = seen2.clone();
            let introspection = introspection.clone();
            std::thread::spawn(move || {
                let (path, headers) = read_request(&mut s);
                seen2.lock().unwrap().extend(headers);
                let respond = |s: &mut TcpStream, status: &str, extra: &str, body: &str| {
                    let _ = write!(
                    s,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
                    body.len()
                );
                };
                match path.as_str() {
                    "/graphql" => respond(&mut s, "200 OK", "", &introspection),
                    "/redirect" => respond(
                        &mut s,
                        "302 Found",
                        "Location: http://127.0.0.1:1/elsewhere\r\n",
                        "",
                    ),
                    "/notjson" => {
                        let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 26\r\nConnection: close\r\n\r\n<html>Login required</html>"
                    );
                    }
                    "/errors" => respond(
                        &mut s,
                        "200 OK",
                        "",
                        r#"{"errors":[{"message":"GraphQL introspection is not allowed"}]}"#,
                    ),
                    "/status500" => respond(
                        &mut s,
                        "500 Internal Server Error",
                        "",
                        r#"{"message":"boom"}"#,
                    ),
                    "/big" => {
                        // No Content-Length: the body streams until the connection closes.
                        let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n");
                        let chunk = vec![b' '; 64 * 1024];
                        for _ in 0..64 {
                            if s.write_all(&chunk).is_err() {
                                break;
                            }
                        }
                    }
                    "/slow" => {
                        std::thread::sleep(Duration::from_secs(3));
                        respond(&mut s, "200 OK", "", &introspection);
                    }
                    _ => respond(&mut s, "404 Not Found", "", "{}"),
                }
            });
        }
    });
    Server {
        addr,
        seen_headers: seen,
    }
}

fn singapore_introspection() -> String {
    let g = load_file(&wg_schema("singapore")).unwrap();
    serde_json::to_string(&gqlnav_schema::introspection_result(g.schema.for_operations()).unwrap())
        .unwrap()
}

const SECRET: &str = "Bearer sk-very-secret-token-123";

fn opts() -> EndpointOptions {
    EndpointOptions {
        headers: vec![("Authorization".into(), SECRET.into())],
        timeout: Duration::from_secs(1),
        connect_timeout: Duration::from_secs(1),
        ..EndpointOptions::default()
    }
}

#[test]
fn endpoint_introspection_and_every_failure() {
    let srv = start_server(singapore_introspection());
    let g = gqlnav_schema::load(&format!("{}/graphql", srv.addr), &opts()).unwrap();
    assert_eq!(g.field_count(), 162);
    assert!(
        srv.seen_headers
            .lock()
            .unwrap()
            .iter()
            .any(|h| h == &format!("authorization: {SECRET}")
                || h == &format!("Authorization: {SECRET}")),
        "the header reached the server"
    );

    let check = |path: &str, o: &EndpointOptions, want: &str| {
        let e = gqlnav_schema::load(&format!("{}{path}", srv.addr), o).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(want), "{path}: {msg}");
        assert!(
            !msg.contains("sk-very-secret"),
            "secret leaked in {path}: {msg}"
        );
        assert!(
            !format!("{e:?}").contains("sk-very-secret"),
            "secret leaked in Debug of {path}"
        );
    };
    check(
        "/redirect",
        &opts(),
        "redirecting to `http://127.0.0.1:1/elsewhere`",
    );
    check("/notjson", &opts(), "did not answer with JSON");
    check("/errors", &opts(), "GraphQL introspection is not allowed");
    check("/status500", &opts(), "answered HTTP 500");
    check("/slow", &opts(), "did not answer within 1 s");
    let small = EndpointOptions {
        max_response_bytes: 1024 * 1024,
        ..opts()
    };
    check("/big", &small, "more than 1048576 bytes");
    // the real schema does not fit a tiny cap either
    let tiny = EndpointOptions {
        max_response_bytes: 1000,
        ..opts()
    };
    check("/graphql", &tiny, "more than 1000 bytes");
}

#[test]
fn non_http_urls_are_refused() {
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/schema",
        "gopher://x",
    ] {
        let e = gqlnav_schema::load(url, &EndpointOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("only http:// and https://"),
            "{url}: {e}"
        );
    }
}

#[test]
fn headers_parse_and_errors_hide_values() {
    assert_eq!(
        gqlnav_schema::parse_header("X-Api-Key: abc def").unwrap(),
        ("X-Api-Key".to_string(), "abc def".to_string())
    );
    let e = gqlnav_schema::parse_header("NoColonSecretValue")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 'Name: value'"));
    let e = gqlnav_schema::parse_header("Bad Name: secretvalue")
        .unwrap_err()
        .to_string();
    assert!(!e.contains("secretvalue"), "{e}");
}

#[test]
fn introspection_problems_are_located_in_the_json() {
    let json = r#"{"__schema":{"queryType":{"name":"Query"},"types":[
        {"kind":"OBJECT","name":"Query","interfaces":[],"fields":[
            {"name":"a","args":[],"type":{"kind":"SCALAR","name":"Int"}},
            {"name":"b","args":[],"type":{"kind":"OBJECT","name":"Missing"}}]}],
        "directives":[]}}"#;
    let g = gqlnav_schema::load_introspection_str(json, "api.json", 32).expect("loads");
    let w = g
        .warnings
        .iter()
        .find(|w| w.message.contains("Missing"))
        .unwrap_or_else(|| panic!("{:?}", g.warnings));
    assert_eq!(w.location, "api.json: __schema.types[0].fields[1]", "{w}");
}

#[test]
fn garbage_text_is_refused_by_the_lexer_pass() {
    let text = common::garbage_text(200_000);
    let e = gqlnav_schema::load_sdl_str(&text, "junk.graphql").unwrap_err();
    assert!(
        e.to_string()
            .contains("characters that GraphQL does not allow"),
        "{e}"
    );
}

/// A path rule from schema facts: a deprecated field is passed through only when no other
/// route exists. Without it the order is alphabetical here (`Query.oldRepo`,
/// `Query.repo`, `Query.repos`).
#[test]
fn paths_avoid_deprecated_fields_while_another_route_exists() {
    let g = gqlnav_schema::load_sdl_str(
        r#"
        type Query {
          oldRepo(id: ID!): Repo @deprecated(reason: "use repo")
          repo(owner: String!, name: String!): Repo
          repos: [Repo!]!
          legacy: Thing @deprecated(reason: "no replacement")
        }
        type Repo { name: String }
        type Thing { id: ID }
        "#,
        "rules",
    )
    .unwrap();
    let p = g
        .paths_to_root("Repo.name", gqlnav_schema::PathOptions::default())
        .unwrap();
    let heads: Vec<&str> = p.iter().map(|p| p[0].as_str()).collect();
    assert_eq!(
        heads,
        ["Query.repo", "Query.repos", "Query.oldRepo"],
        "{p:?}"
    );
    // The only route is deprecated: it is still shown.
    let p = g
        .paths_to_root("Thing.id", gqlnav_schema::PathOptions::default())
        .unwrap();
    assert_eq!(
        p,
        [vec!["Query.legacy".to_string(), "Thing.id".to_string()]]
    );
    // Ranking depth is unchanged by the path rules.
    assert_eq!(g.depth("Repo"), Some(1.0));
}

/// A reader's paths (`selectable_first`) put a route through a fixed root list (a root
/// field returning a list and taking no arguments) after an equally cheap lookup by key;
/// a list as the *last* field (the collection itself) is not demoted, and the plain order
/// (by text on a tie) is unchanged.
#[test]
fn selectable_paths_go_through_a_lookup_before_a_fixed_root_list() {
    let g = load_sdl_str(
        "type Query { frequent: [Project!], project(path: ID!): Project, issues: [Issue!] }
         type Project { name: String, issue(number: Int!): Issue }
         type Issue { title: String }",
        "paths.graphql",
    )
    .expect("schema");
    let first = |ty: &str, selectable_first: bool| {
        g.paths_to_type(
            ty,
            None,
            PathOptions {
                max_paths: 1,
                selectable_first,
                ..PathOptions::default()
            },
        )
        .remove(0)
        .join(" ")
    };
    assert_eq!(first("Issue", false), "Query.issues");
    assert_eq!(
        first("Issue", true),
        "Query.issues",
        "a list as the last field stays"
    );
    let two = |selectable_first: bool| {
        g.paths_to_type(
            "Issue",
            None,
            PathOptions {
                max_paths: 3,
                selectable_first,
                ..PathOptions::default()
            },
        )
        .into_iter()
        .map(|p| p.join(" "))
        .collect::<Vec<_>>()
    };
    assert_eq!(
        two(false),
        [
            "Query.issues",
            "Query.frequent Project.issue",
            "Query.project Project.issue"
        ]
    );
    assert_eq!(
        two(true),
        [
            "Query.issues",
            "Query.project Project.issue",
            "Query.frequent Project.issue"
        ]
    );
    assert_eq!(
        first("Project", true),
        "Query.frequent",
        "one-field paths keep their order"
    );
    let path = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert!(g.passes_fixed_root_list(&path("Query.frequent Project.issue")));
    assert!(!g.passes_fixed_root_list(&path("Query.project Project.issue")));
    assert!(
        !g.passes_fixed_root_list(&path("Query.issues")),
        "the collection itself"
    );
    assert!(!g.passes_fixed_root_list(&[]));
}
