//! Token counting with a named encoding (bundled ranks; nothing is downloaded).

use std::fmt;
use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

/// A tokenizer encoding.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, Default,
)]
pub enum Encoding {
    /// OpenAI o200k_base (GPT-4o and later); the default ruler.
    #[default]
    #[serde(rename = "o200k_base")]
    O200kBase,
    /// OpenAI cl100k_base: the WG suite's slice-token ruler (gpt-tokenizer 2.9.0 default).
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    pub fn parse(s: &str) -> Option<Encoding> {
        match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "o200k_base" | "o200k" => Some(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

static O200K: OnceLock<CoreBPE> = OnceLock::new();
static CL100K: OnceLock<CoreBPE> = OnceLock::new();

fn bpe(e: Encoding) -> &'static CoreBPE {
    match e {
        // The ranks are bundled inside tiktoken-rs; construction cannot fail at run time
        // unless the crate itself is broken, which tests catch.
        Encoding::O200kBase => {
            O200K.get_or_init(|| tiktoken_rs::o200k_base().expect("bundled o200k_base ranks"))
        }
        Encoding::Cl100kBase => {
            CL100K.get_or_init(|| tiktoken_rs::cl100k_base().expect("bundled cl100k_base ranks"))
        }
    }
}

/// Counts tokens in one named encoding.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokenMeter {
    encoding: Encoding,
}

impl TokenMeter {
    pub fn new(encoding: Encoding) -> Self {
        TokenMeter { encoding }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens of `text` (special-token strings are counted as ordinary text).
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        bpe(self.encoding).encode_ordinary(text).len()
    }

    /// Warm the encoder (its first use builds tables: ~330 ms for o200k_base, ~150 ms for
    /// cl100k_base on GitHub-sized work, release build, shared machine).
    pub fn warm(&self) {
        let _ = bpe(self.encoding);
    }

    /// Warm the encoder on a background thread, so start-up need not wait for it; a
    /// [`TokenMeter::count`] that comes first waits for that one build (never a second).
    /// Serving from a saved index needs no count for a plain search (the hits' token
    /// counts are saved), so this takes the BPE load off the path to the first answer.
    pub fn warm_in_background(&self) -> std::thread::JoinHandle<()> {
        let encoding = self.encoding;
        std::thread::spawn(move || {
            let _ = bpe(encoding);
        })
    }
}

/// Line segments of a text: each line with the run of newlines that follows it. Both
/// encodings' pre-tokenizers end every piece that touches a newline at the end of the
/// newline run (`\s*[\r\n]+`, punctuation followed by `[\r\n]*`) and start the next
/// piece after it, so the token count of a text is the sum of its segments' counts.
pub fn line_segments(text: &str) -> impl Iterator<Item = &str> {
    let nl = |c: u8| c == b'\n' || c == b'\r';
    pieces(text, move |b, i| nl(b[i - 1]) && !nl(b[i]))
}

/// The pieces of `text` between the positions `i` (0 < i < len) where `cut(bytes, i)`
/// holds; `cut` must only hold before or after an ASCII byte (a char boundary).
fn pieces<'a>(
    text: &'a str,
    cut: impl Fn(&[u8], usize) -> bool + 'a,
) -> impl Iterator<Item = &'a str> + 'a {
    let b = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= b.len() {
            return None;
        }
        let mut i = start + 1;
        while i < b.len() && !cut(b, i) {
            i += 1;
        }
        let seg = &text[start..i];
        start = i;
        Some(seg)
    })
}

/// Pieces of a text whose token counts add up to the text's count: its line segments
/// ([`line_segments`]), each further cut before every space that follows a non-space
/// and precedes an ASCII lowercase letter (` after`, ` name: String!`). Neither
/// encoding's pre-tokenizer lets a piece end in a space that precedes a letter (the
/// space always opens the letter's word piece, `[^\r\n\p{L}\p{N}]?\p{L}+`), so each
/// cut is a piece boundary. One-line definitions (`type A { a: X b: Y }`) thus split
/// into fields that recur across slices.
pub fn count_segments(text: &str) -> impl Iterator<Item = &str> {
    line_segments(text).flat_map(|line| {
        pieces(line, |b, i| {
            b[i] == b' '
                && !b[i - 1].is_ascii_whitespace()
                && b.get(i + 1).is_some_and(|c| c.is_ascii_lowercase())
        })
    })
}

/// A [`TokenMeter`] that remembers the count of every line segment it has seen, so
/// texts assembled from recurring lines (schema slices) are counted exactly and fast.
#[derive(Debug)]
pub struct CachedMeter {
    meter: TokenMeter,
    cache: std::sync::Mutex<std::collections::HashMap<String, u32>>,
}

impl CachedMeter {
    /// Most line segments remembered before the cache is cleared.
    pub const CAPACITY: usize = 200_000;

    pub fn new(encoding: Encoding) -> Self {
        CachedMeter {
            meter: TokenMeter::new(encoding),
            cache: Default::default(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.meter.encoding()
    }

    /// Tokens of `base + suffix`, given `base_tokens` = tokens of `base`: appending only
    /// ever changes the last line segment of `base`, so only that one is recounted.
    pub fn count_appended(&self, base: &str, base_tokens: usize, suffix: &str) -> usize {
        let last = line_segments(base).last().unwrap_or("");
        base_tokens - self.count(last) + self.count(&format!("{last}{suffix}"))
    }

    /// Tokens of `text`, exactly [`TokenMeter::count`].
    pub fn count(&self, text: &str) -> usize {
        let Ok(mut cache) = self.cache.lock() else {
            return self.meter.count(text);
        };
        if cache.len() > Self::CAPACITY {
            cache.clear();
        }
        let mut n = 0usize;
        for seg in count_segments(text) {
            if let Some(&c) = cache.get(seg) {
                n += c as usize;
            } else {
                let c = self.meter.count(seg);
                cache.insert(seg.to_string(), c as u32);
                n += c;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn counts_differ_by_encoding_and_are_named() {
        let o = TokenMeter::new(Encoding::O200kBase);
        let c = TokenMeter::new(Encoding::Cl100kBase);
        assert_eq!(o.count(""), 0);
        assert_eq!(o.count("hello world"), 2);
        assert_eq!(c.count("hello world"), 2);
        assert_eq!(o.encoding().to_string(), "o200k_base");
        assert_eq!(Encoding::parse("cl100k"), Some(Encoding::Cl100kBase));
        assert!(Encoding::parse("p50k").is_none());
    }

    #[test]
    fn background_warm_then_count_gives_the_same_counts() {
        let c = TokenMeter::new(Encoding::Cl100kBase);
        let h = c.warm_in_background();
        // Counting right away waits for the one build in progress.
        assert_eq!(c.count("hello world"), 2);
        assert!(h.join().is_ok());
        assert_eq!(c.count("type Query { viewer: User! }"), 8);
    }
}

#[cfg(test)]
mod cached_tests {
    use super::*;

    #[test]
    fn line_segments_cover_the_text() {
        let t = "type A {\n  f: Int\n}\n\nscalar X\r\nlast";
        let segs: Vec<&str> = line_segments(t).collect();
        assert_eq!(
            segs,
            vec!["type A {\n", "  f: Int\n", "}\n\n", "scalar X\r\n", "last"]
        );
        assert_eq!(segs.concat(), t);
        assert_eq!(line_segments("").count(), 0);
    }

    #[test]
    fn cached_counts_equal_whole_text_counts_on_real_sdl() {
        let sdl = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benchmarks/wg/schemas/linear/schema.graphql"
        ))
        .expect("bundled linear schema");
        for enc in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let m = TokenMeter::new(enc);
            let c = CachedMeter::new(enc);
            // Whole chunks of real SDL with descriptions, indentation and blank lines.
            for chunk in sdl.as_bytes().chunks(20_000).take(6) {
                let text = String::from_utf8_lossy(chunk);
                assert_eq!(c.count(&text), m.count(&text), "{enc}");
                // Twice: the second time from the cache.
                assert_eq!(c.count(&text), m.count(&text), "{enc}");
                // The same chunk with every definition on one line (the dense style)
                // and prose descriptions cut before lowercase words.
                let dense = text.replace("\n  ", " ").replace("\n}", " }");
                assert_eq!(c.count(&dense), m.count(&dense), "{enc} dense");
            }
            assert_eq!(
                count_segments("type A { a: X b(first: Int, after: String): Y }")
                    .collect::<Vec<_>>(),
                vec![
                    "type A {",
                    " a: X",
                    " b(first: Int,",
                    " after: String): Y }"
                ]
            );
            let odd = "a\n\n\n  b  \n\tc!\n\n}\n   \n";
            assert_eq!(c.count(odd), m.count(odd), "{enc}");
            for (base, suffix) in [
                ("type A {\n  f: Int\n}", "\n# not shown: B, C\n"),
                ("type A {\n  f: Int\n}\n", "\n# not shown: B\n"),
                ("", "# x\n"),
                ("abc", "def ghi"),
            ] {
                let bt = m.count(base);
                assert_eq!(
                    c.count_appended(base, bt, suffix),
                    m.count(&format!("{base}{suffix}")),
                    "{enc} {base:?} + {suffix:?}"
                );
            }
        }
    }
}
