//! Shared test helpers: where the benchmark data lives.

#![allow(dead_code)]

pub mod fake;

use std::path::PathBuf;

/// `shared/data` of the project: `$GQLNAV_DATA_DIR`, or the first ancestor of this
/// crate that has `shared/data/wg`. Panics when absent: the data tests must not pass
/// without their data.
pub fn data_dir() -> Option<PathBuf> {
    if let Ok(d) = std::env::var("GQLNAV_DATA_DIR") {
        return Some(PathBuf::from(d));
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for a in here.ancestors() {
        let d = a.join("shared").join("data");
        if d.join("wg").is_dir() {
            return Some(d);
        }
    }
    // A missing data folder is a setup error, not a pass: fail loudly.
    panic!("shared/data not found: set GQLNAV_DATA_DIR or put shared/ beside the checkout");
}
