//! Fuzz and property targets on stable Rust (proptest): every parser that reads outside
//! input gets mutated real inputs and must answer with a value or an error, never a
//! panic or a hang.
//!
//! Targets: SDL loading, introspection JSON, coordinate parsing, operations through the
//! cost pass and validation, WG YAML and TSV question files, the cursor decoder.
//!
//! A CI run tries 500 cases per target (a few seconds). A long run: `scripts/fuzz.sh MINUTES` (sets
//! `GQLNAV_FUZZ_SECONDS`; each target then runs batches of fresh random cases until the
//! time is up and prints how many it tried). A failure prints the shrunk input; make it a
//! regression test in the crate that owns the parser.

use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

mod common;
use common::schema;

/// Pieces of GraphQL and JSON syntax the mutator inserts.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ":",
    "!",
    "=",
    "@",
    "$",
    "...",
    "|",
    "&",
    "\"",
    "\"\"\"",
    "#",
    "\\u",
    "\\",
    ",",
    "\n",
    "fragment",
    "on",
    "query",
    "type",
    "input",
    "enum",
    "union",
    "interface",
    "extend",
    "schema",
    "implements",
    "directive",
    "scalar",
    "null",
    "true",
    "-1",
    "1e309",
    "0",
    "99999999999999999999",
    "\u{0}",
    "\u{fffd}",
    "\u{1b}[2J",
    "é",
    "__",
    "__schema",
    "__type",
    "ofType",
    "\"kind\":",
    "\"name\":",
    "\"fields\":",
    "\"types\":",
];

/// Apply `edits` (kind, position, argument) to `seed`.
fn mutate(seed: &str, edits: &[(u8, u32, u32)]) -> String {
    let mut s: Vec<char> = seed.chars().collect();
    for &(kind, pos, arg) in edits {
        let n = s.len();
        let at = if n == 0 { 0 } else { pos as usize % (n + 1) };
        match kind % 5 {
            0 => {
                let t = TOKENS[arg as usize % TOKENS.len()];
                s.splice(at..at, t.chars());
            }
            1 => {
                let end = (at + 1 + arg as usize % 64).min(n);
                s.drain(at..end);
            }
            2 => {
                let end = (at + 1 + arg as usize % 200).min(n);
                let copy: Vec<char> = s[at..end].to_vec();
                s.splice(at..at, copy);
            }
            3 => s.truncate(at),
            _ => {
                if at < n {
                    s[at] = char::from_u32(arg % 0x3000).unwrap_or('?');
                }
            }
        }
        if s.len() > 200_000 {
            s.truncate(200_000);
        }
    }
    s.into_iter().collect()
}

fn edits() -> impl Strategy<Value = Vec<(u8, u32, u32)>> {
    prop::collection::vec((any::<u8>(), any::<u32>(), any::<u32>()), 0..12)
}

/// Run `test` on `strategy`: a few cases (CI), or batches until `GQLNAV_FUZZ_SECONDS`.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let long = std::env::var("GQLNAV_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let cases = 500;
    let deadline = Instant::now() + Duration::from_secs(long.unwrap_or(0));
    let mut tried = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz target {name} failed after {tried} cases: {e}");
        }
        tried += u64::from(cases);
        if Instant::now() >= deadline {
            break;
        }
    }
    eprintln!("fuzz target {name}: {tried} cases");
}

fn read(id: &str) -> String {
    std::fs::read_to_string(schema(id)).expect("bundled schema")
}

/// Parse a case within a time bound (a hang is a finding too).
fn timed<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let t0 = Instant::now();
    let v = f();
    let took = t0.elapsed();
    if took > Duration::from_secs(5) {
        return Err(TestCaseError::fail(format!("{what} took {took:?}")));
    }
    Ok(v)
}

#[test]
fn fuzz_sdl_loading() {
    let seeds = [read("singapore"), read("linear")[..40_000].to_string()];
    fuzz("sdl", (0..seeds.len(), edits()), |(i, e)| {
        let text = mutate(&seeds[i], &e);
        if let Ok(g) = timed("load_sdl_str", || {
            gqlnav_schema::load_sdl_str(&text, "f.graphql")
        })? {
            let c = gqlnav_corpus::Corpus::build(&g, gqlnav_corpus::CorpusOptions::default());
            prop_assert!(c.len() <= g.field_count() + 1);
        }
        Ok(())
    });
}

#[test]
fn fuzz_introspection_json() {
    let g = gqlnav_schema::load_sdl_str(&read("singapore"), "s").expect("schema");
    let seed = serde_json::to_string(
        &gqlnav_schema::introspection_result(g.schema.for_operations()).expect("introspect"),
    )
    .expect("json");
    fuzz("introspection", edits(), |e| {
        let text = mutate(&seed, &e);
        let _ = timed("load_introspection_str", || {
            gqlnav_schema::load_introspection_str(&text, "f.json", 32)
        })?;
        Ok(())
    });
}

#[test]
fn fuzz_coordinates() {
    fuzz(
        "coordinate",
        ("[A-Za-z_.():@$ ]{0,40}", edits()),
        |(s, e)| {
            let text = mutate(&s, &e);
            if let Ok(c) = gqlnav_schema::Coordinate::parse(&text) {
                let again = gqlnav_schema::Coordinate::parse(&c.to_string());
                prop_assert_eq!(again.ok(), Some(c));
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_operations_through_cost_and_validation() {
    let g = Arc::new(gqlnav_schema::load_sdl_str(&read("github"), "github").expect("schema"));
    let valid = gqlnav_tools::OperationSchema::from_graph(&g);
    let seeds: Vec<String> = std::fs::read_dir(common::repo().join("benchmarks/wg/queries"))
        .expect("queries")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("gh-"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| {
            let v: serde_json::Value = serde_saphyr::from_str(&t).ok()?;
            v["operation"].as_str().map(str::to_string)
        })
        .take(40)
        .collect();
    assert!(seeds.len() >= 10, "{} seed operations", seeds.len());
    let limits = gqlnav_tools::CostLimits::default();
    fuzz("operation", (0..seeds.len(), edits()), |(i, e)| {
        let text = mutate(&seeds[i], &e);
        let op = gqlnav_tools::OperationText {
            text: &text,
            name: None,
            variables: None,
        };
        let r = timed("check_operation", || {
            gqlnav_tools::check_operation(&g, &valid.schema, op, &limits)
        })?;
        if let Ok((_, info)) = r {
            prop_assert!(info.cost.depth <= limits.max_depth);
        }
        Ok(())
    });
}

#[test]
fn fuzz_wg_yaml_and_tsv() {
    let dir = common::repo().join("benchmarks/wg/queries");
    let yaml = std::fs::read_to_string(dir.join("gh-ext-001.yaml")).expect("yaml");
    let tsv =
        std::fs::read_to_string(common::repo().join("benchmarks/wg/github-wg.tsv")).expect("tsv");
    let tsv: String = tsv.lines().take(30).collect::<Vec<_>>().join("\n");
    fuzz("wg-yaml-tsv", (any::<bool>(), edits()), |(is_yaml, e)| {
        if is_yaml {
            let text = mutate(&yaml, &e);
            let _ = timed("parse_wg_file", || {
                gqlnav_bench::parse_wg_file("f.yaml", &text, gqlnav_bench::TargetMode::Must)
            })?;
        } else {
            let text = mutate(&tsv, &e);
            let _ = timed("parse_tsv", || {
                gqlnav_bench::parse_tsv("f.tsv", &text, false)
            })?;
        }
        Ok(())
    });
}

#[test]
fn fuzz_cursor_decoder() {
    fuzz(
        "cursor",
        (".{0,60}", any::<usize>(), any::<u64>()),
        |(s, offset, generation)| {
            let _ = gqlnav_tools::read_cursor(&s, "q", generation);
            let c = gqlnav_tools::make_cursor(offset % 100_000, "q", generation);
            prop_assert_eq!(
                gqlnav_tools::read_cursor(&c, "q", generation),
                Ok(offset % 100_000)
            );
            prop_assert!(gqlnav_tools::read_cursor(&c, "other", generation).is_err());
            Ok(())
        },
    );
}
