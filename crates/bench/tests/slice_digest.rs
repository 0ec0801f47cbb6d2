//! Slices are a pure function of (schema, question, options): this test slices every WG
//! dev question (the 416 bundled in `benchmarks/wg`) in two configurations and compares
//! a digest of the outputs with one recorded from the code before a refactor. A change
//! of ranking, selection or rendering changes the digest; a refactor must not.
//!
//! Configurations, each hashed separately, questions in `load_wg_sets` order (schemas
//! github, linear, singapore; questions by id):
//!
//! * `dense-auto`: default options in the dense style, no budget (the slicer's auto
//!   size), o200k_base (the default encoding);
//! * `sdl-b2000-closed`: budget 2000 cl100k_base tokens (the WG ruler), sdl style,
//!   closed slices.
//!
//! The digest is FNV-1a 64 over `id \0 sdl \0 tokens \n` per question. To see what
//! changed, set `SLICE_DIGEST_DUMP=DIR`: every slice is written to `DIR/<config>/<id>.graphql`
//! (diff two such folders).

use std::path::Path;

use gqlnav_bench::{load_wg_sets, SliceSet};
use gqlnav_corpus::Encoding;
use gqlnav_slice::{SliceOptions, Style};

/// Digests recorded from the slicer before it was split into modules: all 416
/// questions, and every fifth one (positions 0, 5, 10, … of the ordered list: 84).
const DENSE_AUTO_ALL: &str = "c32cd033d4b60ab0";
const SDL_B2000_CLOSED_ALL: &str = "fdfb6644cfa255c4";
const DENSE_AUTO_FIFTHS: &str = "0c352d07fd89859d";
const SDL_B2000_CLOSED_FIFTHS: &str = "71e7c13ca2a15f16";

/// FNV-1a, 64 bits: stable across platforms and Rust versions.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

fn configs() -> Vec<(&'static str, SliceOptions)> {
    vec![
        (
            "dense-auto",
            SliceOptions {
                style: Style::Dense,
                ..SliceOptions::default()
            },
        ),
        (
            "sdl-b2000-closed",
            SliceOptions {
                budget: Some(2000),
                encoding: Encoding::Cl100kBase,
                style: Style::Sdl,
                closed: true,
                ..SliceOptions::default()
            },
        ),
    ]
}

/// The digest of each configuration over the questions `keep` selects (by position in
/// the whole ordered list), and the number of questions sliced.
fn digests(sets: &[SliceSet], keep: impl Fn(usize) -> bool) -> (Vec<String>, usize) {
    let dump = std::env::var_os("SLICE_DIGEST_DUMP").map(std::path::PathBuf::from);
    let mut out = Vec::new();
    let mut n = 0;
    for (name, opts) in configs() {
        let mut h = Fnv::new();
        let mut i = 0;
        n = 0;
        for set in sets {
            for q in &set.questions {
                let pos = i;
                i += 1;
                if !keep(pos) {
                    continue;
                }
                n += 1;
                let s = set
                    .slicer
                    .slice(&q.text, &q.sub_queries, &opts)
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", q.id));
                h.write(q.id.as_bytes());
                h.write(&[0]);
                h.write(s.sdl.as_bytes());
                h.write(&[0]);
                h.write(s.tokens.to_string().as_bytes());
                h.write(b"\n");
                if let Some(d) = &dump {
                    let dir = d.join(name);
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join(format!("{}.graphql", q.id)), &s.sdl).unwrap();
                }
            }
        }
        out.push(h.hex());
    }
    (out, n)
}

fn sets() -> Vec<SliceSet> {
    let wg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg");
    let sets = load_wg_sets(&wg, &["github", "linear", "singapore"]).unwrap();
    let n: usize = sets.iter().map(|s| s.questions.len()).sum();
    assert_eq!(n, 416, "the bundled WG dev set has 416 questions");
    sets
}

/// Every fifth question in both configurations (the whole set is too slow for a debug
/// build: about two minutes on two busy cores).
#[test]
fn slices_of_every_fifth_dev_question_are_unchanged() {
    let t = std::time::Instant::now();
    let (d, n) = digests(&sets(), |i| i % 5 == 0);
    println!(
        "{n} questions × 2 configurations: {d:?} in {:?}",
        t.elapsed()
    );
    assert_eq!(n, 84);
    assert_eq!(d, [DENSE_AUTO_FIFTHS, SDL_B2000_CLOSED_FIFTHS]);
}

/// All 416 questions in both configurations:
/// `cargo test --release -p gqlnav-bench --test slice_digest -- --ignored`.
#[test]
#[ignore]
fn slices_of_all_dev_questions_are_unchanged() {
    let t = std::time::Instant::now();
    let (d, n) = digests(&sets(), |_| true);
    println!(
        "{n} questions × 2 configurations: {d:?} in {:?}",
        t.elapsed()
    );
    assert_eq!(d, [DENSE_AUTO_ALL, SDL_B2000_CLOSED_ALL]);
}
