//! Where the test schemas live: the WG schemas bundled in `benchmarks/wg/` (github,
//! linear, singapore), and the extra ones (gitlab, shopify) that only the project's
//! `shared/data` holds.

#![allow(dead_code)]

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A WG schema bundled in the repository (`benchmarks/wg/schemas/<name>/schema.graphql`).
pub fn wg_schema(name: &str) -> PathBuf {
    repo()
        .join("benchmarks/wg/schemas")
        .join(name)
        .join("schema.graphql")
}

/// The five WG schemas and their published field counts (github, linear and singapore
/// are bundled; gitlab and shopify are not).
pub const PUBLISHED_FIELD_COUNTS: [(&str, usize); 5] = [
    ("github", 6640),
    ("gitlab", 13235),
    ("linear", 4596),
    ("shopify", 8171),
    ("singapore", 162),
];

/// Any WG schema: the bundled file, or else [`extra_wg_schema`].
pub fn find_wg_schema(name: &str) -> Option<PathBuf> {
    let bundled = wg_schema(name);
    if bundled.is_file() {
        return Some(bundled);
    }
    extra_wg_schema(name)
}

/// A WG schema that is not bundled (gitlab, shopify): from `$GQLNAV_DATA_DIR`, else from
/// `shared/data` beside the checkout. `None`, with the reason printed, when it is absent:
/// the caller skips what needs it.
pub fn extra_wg_schema(name: &str) -> Option<PathBuf> {
    let data = match std::env::var_os("GQLNAV_DATA_DIR") {
        Some(d) => PathBuf::from(d),
        None => repo().join("../shared/data"),
    };
    let p = data.join("wg/schemas").join(name).join("schema.graphql");
    if p.is_file() {
        return Some(p);
    }
    skip(&format!(
        "{} not found (the {name} schema is not bundled); set GQLNAV_DATA_DIR to the folder holding wg/schemas/{name}",
        p.display()
    ));
    None
}

/// Say why a test (or part of one) is skipped. Written to stderr directly, not through
/// `eprintln!`, so that libtest's output capture does not hide it on a passing test.
pub fn skip(reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {reason}");
}

/// `n` characters of garbage text: printable ASCII and newlines, uniformly (xorshift64;
/// without newlines the first `#` would make the rest one comment).
pub fn garbage_text(n: usize) -> String {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 96 {
                95 => '\n',
                c => char::from(b' ' + c as u8),
            }
        })
        .collect()
}
