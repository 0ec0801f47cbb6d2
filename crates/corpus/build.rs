//! Writes the count-only rank tables of the bundled encodings (o200k_base, cl100k_base)
//! from tiktoken-rs's bundled ranks into OUT_DIR, for `include_bytes!` in `src/bpe.rs`:
//! the counter then needs no heap and no start-up work (docs/serve.md, "Scale").

#[path = "src/bpe_table.rs"]
mod bpe_table;

use tiktoken_rs::CoreBPE;

/// Ranks 0, 1, … until one does not decode: tiktoken's ordinary ranks are contiguous and
/// the special tokens come after a gap.
fn ordinary_tokens(core: &CoreBPE) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Ok(bytes) = core.decode_bytes(&[out.len() as u32]) {
        out.push(bytes);
    }
    out
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/bpe_table.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let encodings = [
        ("o200k_base", tiktoken_rs::o200k_base()),
        ("cl100k_base", tiktoken_rs::cl100k_base()),
    ];
    for (name, core) in encodings {
        let core = core.expect("tiktoken-rs bundles its ranks");
        let [blob, starts, table] = bpe_table::layout(&ordinary_tokens(&core));
        for (part, bytes) in [("blob", blob), ("starts", starts), ("table", table)] {
            std::fs::write(out.join(format!("{name}.{part}")), bytes).expect("write to OUT_DIR");
        }
    }
}
