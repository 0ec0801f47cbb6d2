//! Docs indexing end to end: real Python documentation pages (PSF licence, bundled)
//! served by a loopback HTTP server with a generated sitemap, plus the bad inputs the
//! fetcher must survive: a sitemap index that loops, non-HTML, an oversized page, a
//! page that stalls, a page that vanished since the last index.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path as AxPath, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use gqlnav_docs::{build_index, BuildOptions, DocsIndex, DocsSearcher, FetchPolicy, Mode, Source};

const PAGES: [&str; 3] = ["json", "csv", "textwrap"];

fn fixture(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python/library")
        .join(format!("{name}.html"));
    std::fs::read(p).unwrap()
}

#[derive(Clone)]
struct Site {
    base: String,
    /// textwrap.html answers 404 once this is set.
    vanished: Arc<AtomicBool>,
}

async fn page(State(s): State<Site>, AxPath(p): AxPath<String>) -> Response {
    let ok_html = |b: Vec<u8>| {
        (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::ETAG, "\"v1\""),
            ],
            b,
        )
            .into_response()
    };
    match p.as_str() {
        "sitemap.xml" => {
            // An index that lists itself (a loop) and the page sitemap.
            let body = format!(
                "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{0}/sitemap.xml</loc></sitemap><sitemap><loc>{0}/pages.xml</loc></sitemap></sitemapindex>",
                s.base
            );
            ([(header::CONTENT_TYPE, "application/xml")], body).into_response()
        }
        "pages.xml" => {
            let mut urls: Vec<String> = PAGES
                .iter()
                .map(|p| format!("{}/library/{p}.html", s.base))
                .collect();
            for extra in ["data.bin", "huge.html", "stall.html"] {
                urls.push(format!("{}/{extra}", s.base));
            }
            urls.push("http://elsewhere.invalid/page.html".into());
            let body: String = urls
                .iter()
                .map(|u| format!("<url><loc>{u}</loc></url>"))
                .collect();
            (
                [(header::CONTENT_TYPE, "application/xml")],
                format!("<?xml version=\"1.0\"?><urlset>{body}</urlset>"),
            )
                .into_response()
        }
        "big-sitemap.xml" => {
            // 100,000 URLs (twice the protocol's per-file limit), ~6 MB.
            let mut body = String::from("<?xml version=\"1.0\"?><urlset>");
            for i in 0..100_000 {
                body.push_str(&format!("<url><loc>{}/gen/{i}.html</loc></url>", s.base));
            }
            body.push_str("</urlset>");
            ([(header::CONTENT_TYPE, "application/xml")], body).into_response()
        }
        g if g.starts_with("gen/") => ok_html(
            format!("<html><head><title>{g}</title></head><body><main><h1 id=\"top\">Page {g}</h1><p>Generated page {g} about pagination limits.</p></main></body></html>").into_bytes(),
        ),
        "data.bin" => (
            [(header::CONTENT_TYPE, "application/octet-stream")],
            vec![0u8; 100],
        )
            .into_response(),
        "huge.html" => ok_html(vec![b'a'; 3_000_000]),
        "stall.html" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            ok_html(b"<p>late</p>".to_vec())
        }
        other => {
            let name = other
                .trim_start_matches("library/")
                .trim_end_matches(".html");
            if name == "textwrap" && s.vanished.load(Ordering::SeqCst) {
                return StatusCode::NOT_FOUND.into_response();
            }
            if PAGES.contains(&name) {
                ok_html(fixture(name))
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
    }
}

fn serve() -> Site {
    let (tx, rx) = std::sync::mpsc::channel();
    let vanished = Arc::new(AtomicBool::new(false));
    let v2 = vanished.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", l.local_addr().unwrap());
            let site = Site {
                base: base.clone(),
                vanished: v2,
            };
            tx.send(site.clone()).unwrap();
            let app = Router::new().route("/{*p}", get(page)).with_state(site);
            axum::serve(l, app).await.unwrap();
        });
    });
    let s = rx.recv().unwrap();
    Site { vanished, ..s }
}

fn opts() -> BuildOptions {
    BuildOptions {
        policy: FetchPolicy {
            max_page_bytes: 1_000_000,
            timeout: Duration::from_secs(2),
            delay: Duration::from_millis(0),
            ..FetchPolicy::default()
        },
        ..BuildOptions::default()
    }
}

#[test]
fn a_site_is_indexed_through_its_sitemap_with_bad_pages_skipped_and_searched() {
    let site = serve();
    let source = Source::parse(&site.base).unwrap();
    let (idx, stats) = build_index(&source, &opts(), None, None, &|_, _, _| {}).unwrap();
    assert_eq!(stats.pages, 3, "{:?}", stats.skipped);
    let why = |needle: &str| {
        stats
            .skipped
            .iter()
            .find(|(u, _)| u.contains(needle))
            .map(|x| x.1.clone())
            .unwrap_or_else(|| panic!("{needle} not skipped: {:?}", stats.skipped))
    };
    assert!(why("data.bin").contains("not HTML"));
    assert!(why("huge.html").contains("page cap"));
    assert!(why("stall.html").contains("no answer within 2 s"));
    assert!(why("elsewhere.invalid").contains("not allowed"));
    assert!(stats.chunks > 20 && stats.sections > 10, "{stats:?}");
    let json_sections: Vec<&str> = idx
        .chunks
        .iter()
        .filter(|c| c.url.contains("json.html#"))
        .map(|c| c.url.as_str())
        .collect();
    assert!(json_sections.iter().any(|u| u.ends_with("#basic-usage")));
    assert!(idx.chunks.iter().all(|c| c.tokens <= 200));

    let dir = tempfile::tempdir().unwrap();
    idx.save(dir.path()).unwrap();
    let loaded = DocsIndex::load(dir.path()).unwrap();
    assert_eq!(loaded.chunks, idx.chunks);
    let s = DocsSearcher::new(loaded).unwrap();
    let r = s
        .search(
            "What happens when a JSON object repeats the same key twice",
            Mode::Bm25,
            5,
            None,
            None,
        )
        .unwrap();
    assert!(
        r.hits
            .iter()
            .any(|h| h.url.ends_with("json.html#repeated-names-within-an-object")),
        "{:?}",
        r.hits.iter().map(|h| &h.url).collect::<Vec<_>>()
    );
    // One hit per section; a budget is never exceeded.
    let mut urls: Vec<&String> = r.hits.iter().map(|h| &h.url).collect();
    urls.dedup();
    assert_eq!(urls.len(), r.hits.len());
    let b = s
        .search("csv dialect quoting", Mode::Bm25, 10, Some(300), None)
        .unwrap();
    assert!(b.tokens <= 300 && !b.hits.is_empty());
    assert!(
        s.search("x", Mode::Vector, 5, None, None).is_err(),
        "vectors need a model"
    );
}

#[test]
fn a_reindex_reuses_unchanged_pages_drops_vanished_ones_and_swaps_atomically() {
    let site = serve();
    let source = Source::parse(&format!("{}/sitemap.xml", site.base)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = build_index(&source, &opts(), None, None, &|_, _, _| {}).unwrap();
    first.save(dir.path()).unwrap();
    let old = DocsIndex::load(dir.path()).unwrap();

    site.vanished.store(true, Ordering::SeqCst);
    let (second, stats) = build_index(&source, &opts(), Some(&old), None, &|_, _, _| {}).unwrap();
    assert_eq!(stats.reused, 2, "json and csv are unchanged: {stats:?}");
    assert!(stats
        .skipped
        .iter()
        .any(|(u, why)| u.contains("textwrap") && why.contains("404")));
    assert!(second.chunks.iter().all(|c| !c.url.contains("textwrap")));
    // The searcher built on the old generation keeps answering while the new one is saved.
    let before = DocsSearcher::new(old).unwrap();
    second.save(dir.path()).unwrap();
    assert!(before
        .index
        .chunks
        .iter()
        .any(|c| c.url.contains("textwrap")));
    let after = DocsIndex::load(dir.path()).unwrap();
    assert_eq!(after.chunks, second.chunks);
    let gens = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("gen-"))
        .count();
    assert_eq!(gens, 1, "older generations are removed");
}

#[test]
fn bad_sources_get_clear_errors() {
    assert!(Source::parse("ftp://x/sitemap.xml")
        .unwrap_err()
        .to_string()
        .contains("http(s)"));
    assert!(Source::parse("/no/such/dir")
        .unwrap_err()
        .to_string()
        .contains("neither"));
    let dir = tempfile::tempdir().unwrap();
    assert!(DocsIndex::load(dir.path())
        .unwrap_err()
        .to_string()
        .contains("gqlnav docs index"));
    // A local directory: HTML and Markdown, nothing else.
    std::fs::write(
        dir.path().join("a.md"),
        "# Title\nintro\n## Rate limits\nSlow down.\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b.txt"), "ignored").unwrap();
    let (idx, stats) = build_index(
        &Source::Dir(dir.path().into()),
        &BuildOptions::default(),
        None,
        None,
        &|_, _, _| {},
    )
    .unwrap();
    assert_eq!(stats.pages, 1);
    assert!(idx.chunks.iter().any(|c| c.url == "a.md#rate-limits"));
}

/// A sitemap that lists 100,000 URLs: the page cap holds, the rest is counted and
/// reported, and the listing itself stays bounded.
#[test]
fn a_sitemap_of_100000_urls_is_capped_and_the_rest_reported() {
    let site = serve();
    let o = BuildOptions {
        policy: FetchPolicy {
            max_pages: 25,
            concurrency: 4,
            ..opts().policy
        },
        ..opts()
    };
    let t0 = std::time::Instant::now();
    let (idx, stats) = build_index(
        &Source::Sitemap(format!("{}/big-sitemap.xml", site.base)),
        &o,
        None,
        None,
        &|_, _, _| {},
    )
    .unwrap();
    assert_eq!(stats.pages, 25, "{:?}", stats.skipped);
    assert_eq!(stats.over_cap, 100_000 - 25);
    assert!(idx.chunks.iter().all(|c| c.url.contains("/gen/")));
    // Only the capped pages were fetched: the run takes seconds, not 100,000 requests.
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());

    // A sitemap over its own byte cap is refused with the reason.
    let tight = BuildOptions {
        policy: FetchPolicy {
            max_sitemap_bytes: 100_000,
            ..o.policy.clone()
        },
        ..o
    };
    let e = build_index(
        &Source::Sitemap(format!("{}/big-sitemap.xml", site.base)),
        &tight,
        None,
        None,
        &|_, _, _| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("larger than the sitemap cap of 100000 bytes"),
        "{e}"
    );
}
