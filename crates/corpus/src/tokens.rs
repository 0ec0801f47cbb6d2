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

    /// Warm the encoder (its first use builds tables).
    pub fn warm(&self) {
        let _ = bpe(self.encoding);
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
}
