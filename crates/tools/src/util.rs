//! Small helpers: opaque cursors, secret scrubbing, output caps.

use gqlnav_corpus::TokenMeter;

use crate::error::ToolError;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// URL-safe base64 without padding.
pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Inverse of [`b64_encode`]; `None` on any malformed input.
pub fn b64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let vals: Option<Vec<u32>> = s
        .bytes()
        .map(|c| B64.iter().position(|&x| x == c).map(|p| p as u32))
        .collect();
    let vals = vals?;
    for chunk in vals.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let mut n = 0u32;
        for (i, v) in chunk.iter().enumerate() {
            n |= v << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        for i in 0..bytes {
            out.push(((n >> (16 - 8 * i)) & 0xff) as u8);
        }
    }
    Some(out)
}

/// An opaque cursor: the offset of the next result plus a digest of the query (and of
/// the index generation), so a cursor from another query or schema is refused.
pub fn make_cursor(offset: usize, query: &str, generation: u64) -> String {
    b64_encode(
        format!(
            "{offset}:{:016x}",
            gqlnav_schema::Fnv64::of(query.as_bytes()) ^ generation
        )
        .as_bytes(),
    )
}

/// Read a cursor made by [`make_cursor`] for the same query; the offset it points at.
pub fn read_cursor(cursor: &str, query: &str, generation: u64) -> Result<usize, ToolError> {
    let bad = || ToolError::BadCursor;
    let raw = b64_decode(cursor.trim()).ok_or_else(bad)?;
    let text = String::from_utf8(raw).map_err(|_| bad())?;
    let (off, digest) = text.split_once(':').ok_or_else(bad)?;
    if digest
        != format!(
            "{:016x}",
            gqlnav_schema::Fnv64::of(query.as_bytes()) ^ generation
        )
    {
        return Err(bad());
    }
    off.parse().map_err(|_| bad())
}

/// Replaces every trusted header value (and its `Bearer`-less token part) in text, so
/// an upstream that echoes a credential cannot leak it into a tool result or a log.
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    secrets: Vec<String>,
}

impl Scrubber {
    /// Build from header pairs; values shorter than 4 bytes are not worth matching.
    pub fn new(headers: &[(String, String)]) -> Self {
        let mut secrets = Vec::new();
        for (_, v) in headers {
            let v = v.trim();
            if v.len() >= 4 {
                secrets.push(v.to_string());
            }
            if let Some((_, tok)) = v.split_once(' ') {
                let tok = tok.trim();
                if tok.len() >= 4 {
                    secrets.push(tok.to_string());
                }
            }
        }
        // Longest first, so a full value is replaced before its token part.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Scrubber { secrets }
    }

    /// Text with every secret replaced by `[redacted]`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "[redacted]");
            }
        }
        out
    }

    /// Scrub every string inside a JSON value.
    pub fn scrub_json(&self, v: &mut serde_json::Value) {
        if self.secrets.is_empty() {
            return;
        }
        match v {
            serde_json::Value::String(s) if self.secrets.iter().any(|x| s.contains(x.as_str())) => {
                *s = self.scrub(s);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| self.scrub_json(x)),
            serde_json::Value::Object(m) => m.values_mut().for_each(|x| self.scrub_json(x)),
            _ => {}
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Cut `text` to at most `max_bytes` bytes and `max_tokens` tokens. Returns the text and
/// whether it was cut; a cut text ends in a visible marker that says how much was
/// dropped and how to ask for less.
pub fn cap_text(
    text: &str,
    max_bytes: usize,
    max_tokens: usize,
    meter: &TokenMeter,
    advice: &str,
) -> (String, bool) {
    let bytes = text.len();
    let tokens = meter.count(text);
    if bytes <= max_bytes && tokens <= max_tokens {
        return (text.to_string(), false);
    }
    // Shrink by the worse of the two ratios, then re-check a few times.
    let mut keep = bytes.min(max_bytes);
    for _ in 0..6 {
        keep = floor_char_boundary(text, keep);
        let t = meter.count(&text[..keep]);
        if t <= max_tokens {
            break;
        }
        keep = (keep as f64 * (max_tokens as f64 / t as f64) * 0.97) as usize;
    }
    let keep = floor_char_boundary(text, keep);
    let marker = format!(
        "\n…[truncated: showing {keep} of {bytes} bytes (~{tokens} tokens {}); limits {max_bytes} bytes / {max_tokens} tokens. {advice}]",
        meter.encoding()
    );
    (format!("{}{marker}", &text[..keep]), true)
}

pub(crate) use gqlnav_schema::has_required_args;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip_and_cursor() {
        for s in ["", "a", "ab", "abc", "abcd", "10:ffee"] {
            assert_eq!(b64_decode(&b64_encode(s.as_bytes())).unwrap(), s.as_bytes());
        }
        let c = make_cursor(20, "pull requests", 1);
        assert_eq!(read_cursor(&c, "pull requests", 1).unwrap(), 20);
        assert!(read_cursor(&c, "issues", 1).is_err());
        assert!(read_cursor(&c, "pull requests", 2).is_err());
        assert!(read_cursor("!!", "x", 0).is_err());
    }

    #[test]
    fn scrubs_values_and_tokens() {
        let s = Scrubber::new(&[("Authorization".into(), "Bearer tok-12345".into())]);
        assert_eq!(
            s.scrub("a Bearer tok-12345 b tok-12345"),
            "a [redacted] b [redacted]"
        );
        let mut v = serde_json::json!({"x": ["tok-12345"]});
        s.scrub_json(&mut v);
        assert_eq!(v["x"][0], "[redacted]");
    }

    #[test]
    fn caps_with_marker() {
        let m = TokenMeter::default();
        let text = "word ".repeat(1000);
        let (out, cut) = cap_text(&text, 100_000, 50, &m, "Ask for less.");
        assert!(cut);
        assert!(out.contains("…[truncated"));
        assert!(m.count(&out) < 120);
        let (out, cut) = cap_text("short", 10, 10, &m, "");
        assert!(!cut);
        assert_eq!(out, "short");
    }
}
