//! A count-only byte-pair encoder: the ordinary ranks of one tiktoken encoding, laid out
//! by `build.rs` (`bpe_table.rs`) and embedded in the binary, and the encoding's
//! pre-tokenizer.
//!
//! tiktoken-rs's `CoreBPE` keeps every token's bytes three times (encoder, decoder and a
//! sorted list, each a heap allocation per token): 34 MB resident for o200k_base in a
//! warm `gqlnav serve`, and about 330 ms to build (docs/serve.md, "Scale"). Counting needs
//! only the encoder; embedded, its tables cost no heap and no start-up, and only the
//! pages a count touches are resident. The counts are tiktoken's (tests: every bundled
//! schema's SDL, line by line, and edge cases, both encodings). The merge is tiktoken's
//! (MIT): the lowest-ranked adjacent pair merges first, the leftmost on ties; pieces of
//! 100 bytes or more use the heap form, as tiktoken does.

use std::collections::BinaryHeap;

use fancy_regex::Regex;

use crate::bpe_table::{hash, EMPTY};

/// A token's rank.
type Rank = u32;

/// Pieces this long or longer merge with a heap (tiktoken's threshold).
const LARGE_PIECE: usize = 100;
/// Copies of the pre-tokenizer, picked by thread: `regex` keeps scratch space per
/// `Regex`, and tiktoken measured contention when threads share one.
const REGEX_COPIES: usize = 8;

/// One encoding's tables as `build.rs` wrote them.
pub(crate) struct Tables {
    pub(crate) blob: &'static [u8],
    pub(crate) starts: &'static [u8],
    pub(crate) table: &'static [u8],
}

macro_rules! tables {
    ($name:literal) => {
        Tables {
            blob: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".blob")),
            starts: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".starts")),
            table: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".table")),
        }
    };
}

pub(crate) const O200K_BASE: Tables = tables!("o200k_base");
pub(crate) const CL100K_BASE: Tables = tables!("cl100k_base");

pub(crate) struct CountingBpe {
    tables: Tables,
    regex: Vec<Regex>,
}

/// The `i`-th little-endian `u32` of `bytes`.
fn word(bytes: &[u8], i: usize) -> u32 {
    let b = &bytes[4 * i..4 * i + 4];
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl CountingBpe {
    pub(crate) fn new(tables: Tables, pattern: &str) -> Result<Self, fancy_regex::Error> {
        let one = Regex::new(pattern)?;
        Ok(CountingBpe {
            tables,
            regex: vec![one; REGEX_COPIES],
        })
    }

    /// Ordinary ranks held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.tables.starts.len() / 4 - 1
    }

    fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        let t = &self.tables;
        let mask = t.table.len() / 4 - 1;
        let mut at = hash(bytes) as usize & mask;
        loop {
            let r = word(t.table, at);
            if r == EMPTY {
                return None;
            }
            let (s, e) = (word(t.starts, r as usize), word(t.starts, r as usize + 1));
            if &t.blob[s as usize..e as usize] == bytes {
                return Some(r);
            }
            at = (at + 1) & mask;
        }
    }

    fn rank_or_max(&self, bytes: &[u8]) -> Rank {
        self.rank(bytes).unwrap_or(Rank::MAX)
    }

    /// Tokens of `text` as `CoreBPE::encode_ordinary(text).len()` counts them.
    pub(crate) fn count(&self, text: &str) -> usize {
        let regex = &self.regex[thread_slot() % self.regex.len()];
        let mut n = 0;
        let mut done = 0;
        for m in regex.find_iter(text) {
            let Ok(m) = m else {
                // The pattern's one look-around cannot exhaust the backtrack limit on
                // real text; if it ever does, the rest counts a token per byte.
                return n + text.len() - done;
            };
            done = m.end();
            let piece = m.as_str().as_bytes();
            n += if piece.len() == 1 || self.rank(piece).is_some() {
                1
            } else if piece.len() < LARGE_PIECE {
                self.merge_small(piece)
            } else {
                self.merge_large(piece)
            };
        }
        n
    }

    /// Tokens of a piece: tiktoken's `_byte_pair_merge` (a vector of part starts, the
    /// lowest rank merged first).
    fn merge_small(&self, piece: &[u8]) -> usize {
        let mut parts: Vec<(usize, Rank)> = Vec::with_capacity(piece.len() + 1);
        let mut min = (Rank::MAX, usize::MAX);
        for i in 0..piece.len() - 1 {
            let r = self.rank_or_max(&piece[i..i + 2]);
            if r < min.0 {
                min = (r, i);
            }
            parts.push((i, r));
        }
        parts.push((piece.len() - 1, Rank::MAX));
        parts.push((piece.len(), Rank::MAX));
        let rank_at = |parts: &Vec<(usize, Rank)>, i: usize| {
            if i + 3 < parts.len() {
                self.rank_or_max(&piece[parts[i].0..parts[i + 3].0])
            } else {
                Rank::MAX
            }
        };
        while min.0 != Rank::MAX {
            let i = min.1;
            if i > 0 {
                parts[i - 1].1 = rank_at(&parts, i - 1);
            }
            parts[i].1 = rank_at(&parts, i);
            parts.remove(i + 1);
            min = (Rank::MAX, usize::MAX);
            for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
                if r < min.0 {
                    min = (r, i);
                }
            }
        }
        parts.len() - 1
    }

    /// Tokens of a long piece: tiktoken's `_byte_pair_merge_large` (a linked list of
    /// parts and a heap of candidate merges, stale entries skipped).
    fn merge_large(&self, piece: &[u8]) -> usize {
        struct Part {
            prev: usize,
            end: usize,
            next_end: usize,
            next_rank: Rank,
        }
        let mut state: Vec<Part> = Vec::with_capacity(piece.len());
        state.push(Part {
            prev: usize::MAX,
            end: 1,
            next_end: 2,
            next_rank: Rank::MAX,
        });
        let mut heap = BinaryHeap::with_capacity(piece.len());
        for i in 0..piece.len() - 1 {
            if let Some(r) = self.rank(&piece[i..i + 2]) {
                heap.push(Merge { start: i, rank: r });
                state[i].next_rank = r;
            }
            state.push(Part {
                prev: i,
                end: i + 2,
                next_end: i + 3,
                next_rank: Rank::MAX,
            });
        }
        let propose =
            |state: &mut Vec<Part>, heap: &mut BinaryHeap<Merge>, start: usize, end: usize| {
                state[start].next_end = end;
                state[start].next_rank = Rank::MAX;
                if end <= piece.len() {
                    if let Some(r) = self.rank(&piece[start..end]) {
                        heap.push(Merge { start, rank: r });
                        state[start].next_rank = r;
                    }
                }
            };
        while let Some(left) = heap.pop() {
            if left.rank != state[left.start].next_rank {
                continue;
            }
            let right = state[left.start].end;
            let right_end = state[left.start].next_end;
            let right_next_end = state[right].next_end;
            state[left.start].end = right_end;
            propose(&mut state, &mut heap, left.start, right_next_end);
            if right_end < state.len() {
                state[right_end].prev = left.start;
            }
            if left.start > 0 {
                let prev = state[left.start].prev;
                propose(&mut state, &mut heap, prev, right_end);
            }
            state[right].next_rank = Rank::MAX;
        }
        let (mut n, mut i) = (0, 0);
        while i < state.len() {
            n += 1;
            i = state[i].end;
        }
        n
    }
}

/// A candidate merge: lowest rank first, then leftmost.
#[derive(PartialEq, Eq)]
struct Merge {
    start: usize,
    rank: Rank,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A small number that differs between threads (which copy of the regex to use).
fn thread_slot() -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::thread::current().id().hash(&mut h);
    h.finish() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    use tiktoken_rs::CoreBPE;

    fn both() -> Vec<(CoreBPE, CountingBpe, usize)> {
        let o = tiktoken_rs::o200k_base().unwrap();
        let oc = CountingBpe::new(O200K_BASE, crate::tokens::O200K_PATTERN).unwrap();
        let c = tiktoken_rs::cl100k_base().unwrap();
        let cc = CountingBpe::new(CL100K_BASE, crate::tokens::CL100K_PATTERN).unwrap();
        vec![(o, oc, 199_998), (c, cc, 100_256)]
    }

    /// Texts with every kind of piece: the bundled schemas' SDL (whole, and line by
    /// line), long runs that take the heap merge, non-ASCII, and special-token strings.
    fn texts() -> Vec<String> {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/wg/schemas");
        let mut out = Vec::new();
        for api in ["github", "linear", "singapore"] {
            let sdl = std::fs::read_to_string(root.join(api).join("schema.graphql")).unwrap();
            out.extend(sdl.lines().take(3000).map(str::to_string));
            out.push(sdl);
        }
        out.extend(
            [
                "",
                "a",
                " ",
                "<|endoftext|> and <|endofprompt|>",
                "naïve café — 東京 🚀🚀🚀 Ünïcödé",
                "don't WE'LL it's THEY'RE",
                "12345678901234567890",
                "\r\n\r\n\t  \n",
            ]
            .map(str::to_string),
        );
        out.push(" ".repeat(5000));
        out.push("=".repeat(777));
        out.push("ab".repeat(400));
        out.push("x".repeat(1000) + "y");
        out.push("🚀".repeat(60));
        out.push("aGVsbG8gd29ybGQ".repeat(50));
        out
    }

    #[test]
    fn counts_equal_tiktoken_on_schemas_and_edge_cases() {
        let texts = texts();
        for (core, counting, ordinary) in both() {
            assert_eq!(
                counting.len(),
                ordinary,
                "ordinary ranks only, no special token"
            );
            for t in &texts {
                let want = core.encode_ordinary(t).len();
                assert_eq!(counting.count(t), want, "{:?}", &t[..t.len().min(80)]);
            }
        }
    }

    /// Random texts over an alphabet that mixes every class the pre-tokenizers split on
    /// (cases, digits, punctuation, whitespace and newlines, apostrophes, accents, CJK,
    /// emoji), from a fixed seed.
    #[test]
    fn counts_equal_tiktoken_on_random_texts() {
        const ALPHABET: &[&str] = &[
            "a", "Z", "q", "é", "ß", "東", "🚀", "0", "7", " ", "  ", "\n", "\r\n", "\t", "'",
            "'s", "’", ".", "{", "}", "_", "-", "/", "=", "(", "!", "\u{301}", "Ω", "ﬁ",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let cases = both();
        for _ in 0..2000 {
            let len = (next() % 160) as usize;
            let text: String = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            for (core, counting, _) in &cases {
                assert_eq!(
                    counting.count(&text),
                    core.encode_ordinary(&text).len(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn the_patterns_are_tiktokens() {
        assert_eq!(
            crate::tokens::O200K_PATTERN,
            tiktoken_rs::O200K_BASE_PAT_STR
        );
        // cl100k_base's pattern is not exported; its counts are checked above.
        assert!(Regex::new(crate::tokens::CL100K_PATTERN).is_ok());
    }

    #[test]
    fn counts_equal_tiktoken_across_threads() {
        let (core, counting, _) = both().remove(0);
        let text = texts().swap_remove(3000);
        let want = core.encode_ordinary(&text).len();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(counting.count(&text), want));
            }
        });
    }
}
