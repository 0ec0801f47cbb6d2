//! Where the CLI tests' data lives: the WG data bundled in `benchmarks/wg/`, the film
//! fixture in `tests/fixtures/` (our own), and the extra WG schemas (gitlab, shopify)
//! that only the project's `shared/data` holds.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

// One definition of where the WG schemas are (bundled, or extra and skipped with a
// printed reason when absent): the schema crate's test helper.
#[path = "../../../schema/tests/common/mod.rs"]
mod wg;

pub mod run;
#[allow(unused_imports)]
pub use wg::{find_wg_schema, garbage_text, repo, skip, wg_schema, PUBLISHED_FIELD_COUNTS};

/// The bundled WG question directory (416 YAML files).
pub fn wg_queries() -> PathBuf {
    repo().join("benchmarks/wg/queries")
}

/// A file of the film fixture: `films.graphqls` and `films-sample.tsv`.
pub fn films(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(file)
}

// ---- the real binary and its processes

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
pub fn support() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support")
}
pub fn schema(id: &str) -> String {
    root()
        .join(format!("benchmarks/wg/schemas/{id}/schema.graphql"))
        .display()
        .to_string()
}
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_gqlnav")
}

/// A child process killed on drop.
pub struct Proc(pub Child);
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Wait for a line on a reader matching `prefix`, return the rest of the line.
pub fn wait_line(r: impl Read + Send + 'static, needle: &'static str, secs: u64) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if !sent {
                if let Some(i) = line.find(needle) {
                    let _ = tx.send(line[i + needle.len()..].trim().to_string());
                    sent = true;
                }
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("no `{needle}` line within {secs} s"))
}

/// Start `gqlnav ARGS…`, wait for the `needle` line on its stderr and return the rest of
/// that line.
pub fn spawn_until(args: &[&str], needle: &'static str, secs: u64) -> (Proc, String) {
    let mut c = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = c.stderr.take().unwrap();
    let p = Proc(c);
    let line = wait_line(err, needle, secs);
    (p, line)
}

/// Start gqlnav-serve with extra args; waits for the `needle` line on stderr and returns
/// the address printed there.
pub fn server(args: &[&str], needle: &'static str) -> (Proc, String) {
    let mut all = vec!["serve"];
    all.extend_from_slice(args);
    spawn_until(&all, needle, 180)
}

/// `npm ci` in tests/support when node_modules is missing (one at a time).
#[allow(dead_code)]
pub fn ensure_node_modules() {
    // Tests run in parallel: one `npm ci` at a time.
    static NPM: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = NPM.lock().unwrap_or_else(|e| e.into_inner());
    if support().join("node_modules/graphql-yoga").is_dir() {
        return;
    }
    let st = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(support())
        .status()
        .expect("npm not found: install Node 20 + npm to run the upstream tests");
    assert!(st.success(), "npm ci failed in {}", support().display());
}

/// Start the mock upstream (graphql-yoga + @graphql-tools/mock) over a schema file;
/// returns (process, port).
#[allow(dead_code)]
pub fn upstream(schema_file: &str) -> (Proc, u16) {
    ensure_node_modules();
    let mut c = Command::new("node")
        .arg(support().join("upstream.js"))
        .arg(schema_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node not found");
    let out = c.stdout.take().unwrap();
    let p = Proc(c);
    let port = wait_line(out, "LISTENING ", 60).parse().unwrap();
    (p, port)
}

/// The elements of a JSON array (panics, showing the value, when it is not one).
pub fn items(v: &serde_json::Value) -> &[serde_json::Value] {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

/// The element of a JSON array whose `name` is `name`.
pub fn named<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    items(v)
        .iter()
        .find(|x| x["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` in {v}"))
}

/// Start `gqlnav mock --http 127.0.0.1:0` over a schema file; returns (process, URL).
#[allow(dead_code)]
pub fn mock_upstream(schema_file: &str) -> (Proc, String) {
    let (p, rest) = spawn_until(
        &["mock", "--schema", schema_file, "--http", "127.0.0.1:0"],
        " at http://",
        120,
    );
    let addr = rest.split_whitespace().next().unwrap_or_default();
    (p, format!("http://{addr}"))
}

/// The directory holding the MCP Python SDK (`GQLNAV_PYMCP`); a missing SDK fails the
/// test with the install hint.
#[allow(dead_code)]
pub fn pymcp() -> String {
    let dir = std::env::var("GQLNAV_PYMCP").unwrap_or_else(|_| {
        panic!("GQLNAV_PYMCP is not set: install the MCP Python SDK with `pip install --target .cache/pymcp mcp` and set GQLNAV_PYMCP=.cache/pymcp")
    });
    assert!(
        Path::new(&dir).join("mcp").is_dir(),
        "GQLNAV_PYMCP={dir} holds no `mcp` package; run `pip install --target {dir} mcp`"
    );
    dir
}
