//! Where pages come from, and the index build.
//!
//! Sources: a `sitemap.xml` URL (sitemap indexes followed, loops and depth bounded), a
//! site root (its `/sitemap.xml`), or a local directory of HTML / Markdown files.
//! Fetching follows the project's safety rules: http(s) only; the sitemap's host only
//! unless `allow_hosts` names another; at most `max_pages` pages (the rest reported);
//! a size cap per response; a whole-request timeout; `concurrency` workers, each waiting
//! `delay` between its requests; redirects followed only on an allowed host (at most 5).
//! Non-HTML responses, oversized pages and failures are skipped with the reason. On a
//! reindex, a page whose ETag / Last-Modified answer is 304 or whose body hash is unchanged
//! keeps its chunks and vectors; a page that now fails to fetch keeps its last good chunks;
//! a page the server says is gone (404, 410) or the sitemap no longer lists is dropped.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gqlnav_corpus::TokenMeter;
use gqlnav_embed::Embedder;

use crate::error::DocsError;
use crate::html::{html_page, markdown_page};
use crate::index::{chunk_page, content_hash, Chunk, DocsIndex, Manifest, PageRecord};

/// A documentation source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Sitemap(String),
    Dir(PathBuf),
}

impl Source {
    /// `http(s)://…/sitemap.xml` (or any `.xml`), `http(s)://host/…` (its `/sitemap.xml`),
    /// or an existing directory.
    pub fn parse(s: &str) -> Result<Source, DocsError> {
        if let Some(rest) = s
            .strip_prefix("http://")
            .or_else(|| s.strip_prefix("https://"))
        {
            if rest.is_empty() {
                return Err(DocsError::Options(format!("`{s}` has no host")));
            }
            return Ok(if s.ends_with(".xml") {
                Source::Sitemap(s.to_string())
            } else {
                Source::Sitemap(format!("{}/sitemap.xml", s.trim_end_matches('/')))
            });
        }
        if s.contains("://") {
            return Err(DocsError::Options(format!(
                "`{s}`: only http(s) URLs and local directories are docs sources"
            )));
        }
        let p = PathBuf::from(s);
        if p.is_dir() {
            Ok(Source::Dir(p))
        } else {
            Err(DocsError::Options(format!(
                "`{s}` is neither an http(s) URL nor a directory"
            )))
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Source::Sitemap(u) => u.clone(),
            Source::Dir(p) => p.display().to_string(),
        }
    }
}

/// Fetch limits.
#[derive(Debug, Clone)]
pub struct FetchPolicy {
    pub max_pages: usize,
    pub max_page_bytes: u64,
    pub timeout: Duration,
    pub concurrency: usize,
    pub delay: Duration,
    /// Hosts allowed besides the sitemap's own.
    pub allow_hosts: Vec<String>,
    /// Largest sitemap body, bytes (the sitemaps.org protocol allows 50 MB and 50,000
    /// URLs per file).
    pub max_sitemap_bytes: u64,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        FetchPolicy {
            max_pages: 5000,
            max_page_bytes: 5 * 1024 * 1024,
            timeout: Duration::from_secs(20),
            concurrency: 4,
            delay: Duration::from_millis(50),
            allow_hosts: Vec::new(),
            max_sitemap_bytes: 50 * 1024 * 1024,
        }
    }
}

/// Build settings.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub policy: FetchPolicy,
    pub chunk_tokens: usize,
    pub chunk_overlap: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            policy: FetchPolicy::default(),
            chunk_tokens: crate::index::CHUNK_TOKENS,
            chunk_overlap: crate::index::CHUNK_OVERLAP,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildStats {
    pub pages: usize,
    /// Pages whose chunks (and vectors) were kept from the previous index.
    pub reused: usize,
    pub sections: usize,
    pub chunks: usize,
    pub tokens: usize,
    /// (url, why) for each page not indexed this time.
    pub skipped: Vec<(String, String)>,
    /// URLs listed beyond `max_pages`.
    pub over_cap: usize,
    pub seconds: f64,
    pub embed_seconds: f64,
}

fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(rest[..end].to_ascii_lowercase())
}

struct Fetcher {
    client: reqwest::blocking::Client,
    policy: FetchPolicy,
    hosts: HashSet<String>,
}

/// A fetched body, or why not.
enum Got {
    Body {
        bytes: Vec<u8>,
        content_type: String,
        etag: Option<String>,
        last_modified: Option<String>,
    },
    NotModified,
    Gone(u16),
    Skip(String),
}

impl Fetcher {
    fn new(policy: FetchPolicy, first: &str) -> Result<Fetcher, DocsError> {
        let mut hosts: HashSet<String> = policy
            .allow_hosts
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        hosts.insert(
            host_of(first)
                .ok_or_else(|| DocsError::Options(format!("`{first}` is not an http(s) URL")))?,
        );
        let allowed = hosts.clone();
        let client = reqwest::blocking::Client::builder()
            .timeout(policy.timeout)
            .user_agent(concat!("gqlnav-docs/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::custom(move |a| {
                let ok = host_of(a.url().as_str()).is_some_and(|h| allowed.contains(&h));
                if !ok || a.previous().len() >= 5 {
                    a.stop()
                } else {
                    a.follow()
                }
            }))
            .build()
            .map_err(|e| DocsError::Options(format!("HTTP client: {e}")))?;
        Ok(Fetcher {
            client,
            policy,
            hosts,
        })
    }

    fn get(&self, url: &str, prev: Option<&PageRecord>) -> Got {
        self.get_capped(url, prev, self.policy.max_page_bytes, "page")
    }

    /// GET with the safety rules and a body cap of `cap` bytes.
    fn get_capped(&self, url: &str, prev: Option<&PageRecord>, cap: u64, what: &str) -> Got {
        match host_of(url) {
            Some(h) if self.hosts.contains(&h) => {}
            Some(h) => return Got::Skip(format!("host {h} is not allowed (--allow-host)")),
            None => return Got::Skip("not an http(s) URL".into()),
        }
        let mut req = self.client.get(url);
        if let Some(p) = prev {
            if let Some(e) = &p.etag {
                req = req.header("if-none-match", e);
            }
            if let Some(l) = &p.last_modified {
                req = req.header("if-modified-since", l);
            }
        }
        let resp = match req.send() {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Got::Skip(format!(
                    "no answer within {} s",
                    self.policy.timeout.as_secs()
                ))
            }
            Err(e) => return Got::Skip(format!("request failed: {e}")),
        };
        let status = resp.status().as_u16();
        if status == 304 {
            return Got::NotModified;
        }
        if status == 404 || status == 410 {
            return Got::Gone(status);
        }
        if (300..400).contains(&status) {
            return Got::Skip(format!("HTTP {status}: a redirect off the allowed hosts"));
        }
        if !(200..300).contains(&status) {
            return Got::Skip(format!("HTTP {status}"));
        }
        let header = |n: &str| {
            resp.headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header("content-type").unwrap_or_default();
        let etag = header("etag");
        let last_modified = header("last-modified");
        if resp.content_length().is_some_and(|n| n > cap) {
            return Got::Skip(format!("larger than the {what} cap of {cap} bytes"));
        }
        let mut bytes = Vec::new();
        if let Err(e) = resp.take(cap + 1).read_to_end(&mut bytes) {
            return Got::Skip(format!("reading the body failed: {e}"));
        }
        if bytes.len() as u64 > cap {
            return Got::Skip(format!("larger than the {what} cap of {cap} bytes"));
        }
        Got::Body {
            bytes,
            content_type,
            etag,
            last_modified,
        }
    }

    /// The page URLs of a sitemap, following sitemap indexes (each sitemap once, 4 levels),
    /// and how many more were listed beyond what is kept (`max_pages` × 4, at least 1,000:
    /// room for duplicates and off-host URLs).
    fn sitemap(&self, url: &str) -> Result<(Vec<String>, usize), DocsError> {
        let mut pages = Vec::new();
        let mut beyond = 0usize;
        let mut seen = HashSet::new();
        let mut todo = vec![(url.to_string(), 0usize)];
        let cap = self.policy.max_pages.saturating_mul(4).max(1000);
        while let Some((u, depth)) = todo.pop() {
            if !seen.insert(u.clone()) || depth > 4 {
                continue;
            }
            let bytes = match self.get_capped(&u, None, self.policy.max_sitemap_bytes, "sitemap") {
                Got::Body { bytes, .. } => bytes,
                Got::Skip(r) => {
                    return Err(DocsError::Sitemap { url: u, reason: r });
                }
                Got::Gone(s) => {
                    return Err(DocsError::Sitemap {
                        url: u,
                        reason: format!("HTTP {s}"),
                    })
                }
                Got::NotModified => continue,
            };
            let text = String::from_utf8_lossy(&bytes);
            let doc = roxmltree::Document::parse(&text).map_err(|e| DocsError::Sitemap {
                url: u.clone(),
                reason: format!("not XML: {e}"),
            })?;
            let root = doc.root_element().tag_name().name().to_string();
            for loc in doc
                .descendants()
                .filter(|n| n.tag_name().name() == "loc")
                .filter_map(|n| n.text())
            {
                let loc = loc.trim().to_string();
                if root == "sitemapindex" {
                    todo.push((loc, depth + 1));
                } else if pages.len() < cap {
                    pages.push(loc);
                } else {
                    beyond += 1;
                }
            }
        }
        let mut dedup = HashSet::new();
        pages.retain(|p| dedup.insert(p.clone()));
        Ok((pages, beyond))
    }
}

/// One page read and chunked.
struct Read1 {
    record: PageRecord,
    chunks: Vec<Chunk>,
    sections: usize,
    reused: bool,
}

/// A page read, or (url, why it was skipped).
type PageResult = Result<Read1, (String, String)>;

fn is_markdown(name: &str) -> bool {
    name.ends_with(".md") || name.ends_with(".markdown")
}

fn read_page(
    url: &str,
    bytes: &[u8],
    markdown: bool,
    meter: &TokenMeter,
    opts: &BuildOptions,
) -> Result<(Vec<Chunk>, usize), DocsError> {
    let text = String::from_utf8_lossy(bytes);
    let page = if markdown {
        markdown_page(&text)
    } else {
        html_page(&text)
    };
    let chunks = chunk_page(
        url,
        &page.title,
        &page.sections,
        meter,
        opts.chunk_tokens,
        opts.chunk_overlap,
    )?;
    Ok((chunks, page.sections.len()))
}

fn local_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            local_files(&p, out);
        } else if let Some(n) = p.file_name().map(|n| n.to_string_lossy().to_lowercase()) {
            if n.ends_with(".html") || n.ends_with(".htm") || is_markdown(&n) {
                out.push(p);
            }
        }
    }
}

/// The last good index of the same source, looked up by page URL and chunk id.
struct Previous<'a> {
    index: Option<&'a DocsIndex>,
    pages: HashMap<&'a str, &'a PageRecord>,
    chunk_pos: HashMap<&'a str, usize>,
}

impl<'a> Previous<'a> {
    fn new(index: Option<&'a DocsIndex>) -> Self {
        Previous {
            index,
            pages: index
                .map(|p| {
                    p.manifest
                        .pages
                        .iter()
                        .map(|r| (r.url.as_str(), r))
                        .collect()
                })
                .unwrap_or_default(),
            chunk_pos: index
                .map(|p| {
                    p.chunks
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (c.id.as_str(), i))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn page(&self, url: &str) -> Option<&'a PageRecord> {
        self.pages.get(url).copied()
    }

    fn chunk(&self, id: &str) -> Option<&'a Chunk> {
        Some(&self.index?.chunks[*self.chunk_pos.get(id)?])
    }

    fn vector(&self, id: &str) -> Option<Vec<f32>> {
        Some(self.index?.vectors.as_ref()?[*self.chunk_pos.get(id)?].clone())
    }

    /// The page as it was: its record and chunks.
    fn keep(&self, rec: &PageRecord) -> Read1 {
        let chunks: Vec<Chunk> = rec
            .chunks
            .iter()
            .filter_map(|id| self.chunk(id).cloned())
            .collect();
        Read1 {
            record: rec.clone(),
            sections: chunks
                .iter()
                .map(|c| c.url.as_str())
                .collect::<HashSet<_>>()
                .len(),
            chunks,
            reused: true,
        }
    }
}

/// A page read fresh from `bytes`.
fn fresh(
    url: &str,
    bytes: &[u8],
    markdown: bool,
    hash: String,
    headers: (Option<String>, Option<String>),
    meter: &TokenMeter,
    opts: &BuildOptions,
) -> PageResult {
    let (chunks, sections) = read_page(url, bytes, markdown, meter, opts)
        .map_err(|e| (url.to_string(), e.to_string()))?;
    Ok(Read1 {
        record: PageRecord {
            url: url.to_string(),
            hash,
            etag: headers.0,
            last_modified: headers.1,
            chunks: chunks.iter().map(|c| c.id.clone()).collect(),
        },
        chunks,
        sections,
        reused: false,
    })
}

type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Step 1, a local directory: every HTML / Markdown file, unchanged ones reused by hash.
fn read_dir(
    dir: &Path,
    opts: &BuildOptions,
    prev: &Previous<'_>,
    meter: &TokenMeter,
    stats: &mut BuildStats,
    progress: Progress<'_>,
) -> Vec<PageResult> {
    let mut files = Vec::new();
    local_files(dir, &mut files);
    if files.len() > opts.policy.max_pages {
        stats.over_cap = files.len() - opts.policy.max_pages;
        files.truncate(opts.policy.max_pages);
    }
    let total = files.len();
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            progress("pages", i + 1, total);
            let rel = f
                .strip_prefix(dir)
                .unwrap_or(f)
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = std::fs::read(f).map_err(|e| (rel.clone(), e.to_string()))?;
            if bytes.len() as u64 > opts.policy.max_page_bytes {
                return Err((
                    rel,
                    format!(
                        "larger than the page cap of {} bytes",
                        opts.policy.max_page_bytes
                    ),
                ));
            }
            let hash = content_hash(&bytes);
            match prev.page(&rel).filter(|p| p.hash == hash) {
                Some(p) => Ok(prev.keep(p)),
                None => fresh(
                    &rel,
                    &bytes,
                    is_markdown(&rel),
                    hash,
                    (None, None),
                    meter,
                    opts,
                ),
            }
        })
        .collect()
}

/// One sitemap URL: fetched (conditionally when it was indexed before) and read, or
/// kept, dropped or skipped with the reason.
fn fetch_page(
    f: &Fetcher,
    u: &str,
    prev: &Previous<'_>,
    meter: &TokenMeter,
    opts: &BuildOptions,
) -> PageResult {
    let old = prev.page(u);
    match f.get(u, old) {
        Got::NotModified => match old {
            Some(p) => Ok(prev.keep(p)),
            None => Err((u.to_string(), "HTTP 304 without a previous copy".into())),
        },
        Got::Gone(st) => Err((
            u.to_string(),
            format!("HTTP {st}: gone from the site, dropped"),
        )),
        Got::Skip(why) => match old {
            // A failure keeps the last good copy.
            Some(p) => Ok(prev.keep(p)),
            None => Err((u.to_string(), why)),
        },
        Got::Body {
            bytes,
            content_type,
            etag,
            last_modified,
        } => {
            let md = is_markdown(u) || content_type.contains("markdown");
            if !md && !content_type.is_empty() && !content_type.contains("html") {
                return Err((u.to_string(), format!("not HTML ({content_type})")));
            }
            let hash = content_hash(&bytes);
            match old.filter(|p| p.hash == hash) {
                Some(p) => Ok(prev.keep(p)),
                None => fresh(u, &bytes, md, hash, (etag, last_modified), meter, opts),
            }
        }
    }
}

/// Step 1, a sitemap: its URLs (capped), fetched by `concurrency` workers, each pausing
/// `delay` between requests; results in sitemap order.
fn read_sitemap(
    url: &str,
    opts: &BuildOptions,
    prev: &Previous<'_>,
    meter: &TokenMeter,
    stats: &mut BuildStats,
    progress: Progress<'_>,
) -> Result<Vec<PageResult>, DocsError> {
    let f = Fetcher::new(opts.policy.clone(), url)?;
    let (mut urls, beyond) = f.sitemap(url)?;
    stats.over_cap = beyond;
    if urls.len() > opts.policy.max_pages {
        stats.over_cap += urls.len() - opts.policy.max_pages;
        urls.truncate(opts.policy.max_pages);
    }
    let total = urls.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let out: Mutex<Vec<(usize, PageResult)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..opts.policy.concurrency.clamp(1, 16) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(u) = urls.get(i) else { break };
                let r = fetch_page(&f, u, prev, meter, opts);
                if let Ok(mut o) = out.lock() {
                    o.push((i, r));
                }
                progress("pages", done.fetch_add(1, Ordering::SeqCst) + 1, total);
                std::thread::sleep(opts.policy.delay);
            });
        }
    });
    let mut v = out.into_inner().unwrap_or_default();
    v.sort_by_key(|x| x.0);
    Ok(v.into_iter().map(|x| x.1).collect())
}

/// Step 2: the pages' records and chunks (ids unique), counted into `stats`; and the ids
/// of chunks kept from the previous index.
fn assemble(
    reads: Vec<PageResult>,
    stats: &mut BuildStats,
) -> (Vec<PageRecord>, Vec<Chunk>, HashSet<String>) {
    let mut pages = Vec::new();
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut reused_ids: HashSet<String> = HashSet::new();
    for r in reads {
        match r {
            Ok(p) => {
                stats.pages += 1;
                stats.sections += p.sections;
                if p.reused {
                    stats.reused += 1;
                    reused_ids.extend(p.chunks.iter().map(|c| c.id.clone()));
                }
                chunks.extend(p.chunks);
                pages.push(p.record);
            }
            Err(s) => stats.skipped.push(s),
        }
    }
    // Two sections can share an anchor on broken pages: keep ids unique.
    let mut ids = HashSet::new();
    chunks.retain(|c| ids.insert(c.id.clone()));
    stats.chunks = chunks.len();
    stats.tokens = chunks.iter().map(|c| c.tokens).sum();
    (pages, chunks, reused_ids)
}

/// Step 3: one L2-normalised vector per chunk; kept chunks reuse their vectors when the
/// previous index was built with the same model.
fn embed(
    chunks: &[Chunk],
    reused: &HashSet<String>,
    prev: &Previous<'_>,
    e: &dyn Embedder,
    progress: Progress<'_>,
) -> Result<Vec<Vec<f32>>, DocsError> {
    let same_model = prev.index.and_then(|p| p.manifest.embedder.clone()) == Some(e.id());
    let mut vs: Vec<Option<Vec<f32>>> = chunks
        .iter()
        .map(|c| {
            (same_model && reused.contains(&c.id))
                .then(|| prev.vector(&c.id))
                .flatten()
        })
        .collect();
    let todo: Vec<usize> = (0..chunks.len()).filter(|i| vs[*i].is_none()).collect();
    let texts: Vec<String> = todo
        .iter()
        .map(|&i| {
            let c = &chunks[i];
            format!("{}: {}\n{}", c.title, c.heading_path.join(" > "), c.text)
        })
        .collect();
    let total = texts.len();
    let got = e
        .embed_documents_with_progress(&texts, &|d, _| progress("chunks", d, total))
        .map_err(|x| DocsError::Embed(x.to_string()))?;
    for (i, mut v) in todo.into_iter().zip(got) {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if n > 0.0 {
            v.iter_mut().for_each(|x| *x /= n);
        }
        vs[i] = Some(v);
    }
    Ok(vs.into_iter().map(Option::unwrap_or_default).collect())
}

/// Build (or rebuild) an index. `previous` is the last good index of the same source:
/// unchanged pages keep their chunks and vectors. `progress(phase, done, total)` is called
/// as pages are read (`"pages"`), then as chunks are embedded (`"chunks"`).
pub fn build_index(
    source: &Source,
    opts: &BuildOptions,
    previous: Option<&DocsIndex>,
    embedder: Option<&dyn Embedder>,
    progress: Progress<'_>,
) -> Result<(DocsIndex, BuildStats), DocsError> {
    let t0 = Instant::now();
    let meter = TokenMeter::default();
    let mut stats = BuildStats::default();
    let prev = Previous::new(previous);
    let reads = match source {
        Source::Dir(dir) => read_dir(dir, opts, &prev, &meter, &mut stats, progress),
        Source::Sitemap(url) => read_sitemap(url, opts, &prev, &meter, &mut stats, progress)?,
    };
    let (pages, chunks, reused) = assemble(reads, &mut stats);
    let t1 = Instant::now();
    let vectors = embedder
        .map(|e| embed(&chunks, &reused, &prev, e, progress))
        .transpose()?;
    stats.embed_seconds = t1.elapsed().as_secs_f64();
    let dims = vectors.as_ref().and_then(|v| v.first().map(Vec::len));
    stats.seconds = t0.elapsed().as_secs_f64();
    Ok((
        DocsIndex {
            manifest: Manifest {
                source: source.describe(),
                pages,
                embedder: embedder.map(|e| e.id()),
                dims,
                chunk_tokens: opts.chunk_tokens,
                chunk_overlap: opts.chunk_overlap,
            },
            chunks,
            vectors,
        },
        stats,
    ))
}
