//! Identifier splitting: camelCase, acronyms, digits and `_`
//! ([`gqlnav_schema::for_each_identifier_word`] says where a word ends).

use gqlnav_schema::for_each_identifier_word as for_each_word;

/// Split an identifier into lower-cased words: `defaultBranchRef` → `default branch ref`,
/// `URLPath` → `url path`, `created_at` → `created at`. Digits stay attached to the
/// letters before them (`sha256`).
pub fn split_identifier(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(s, |w| words.push(w.to_lowercase()));
    words
}

/// Words of an identifier joined by spaces.
pub fn humanize(s: &str) -> String {
    // One string, no word vector: this runs twice per entry when a corpus is rendered
    // (GitHub dot-plus-gloss: 14 ms for 6,640 entries with the vector and join).
    let mut out = String::with_capacity(s.len() + 4);
    for_each_word(s, |w| {
        if !out.is_empty() {
            out.push(' ');
        }
        if w.is_ascii() {
            out.extend(w.bytes().map(|b| b.to_ascii_lowercase() as char));
        } else {
            out.push_str(&w.to_lowercase());
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn splits_camel_acronyms_and_underscores() {
        for (id, words) in [
            ("defaultBranchRef", "default branch ref"),
            ("URLPath", "url path"),
            ("isPRDraft", "is pr draft"),
            ("created_at", "created at"),
            ("Repository", "repository"),
            ("sha256Sum", "sha256 sum"),
        ] {
            assert_eq!(humanize(id), words, "{id}");
        }
    }

    /// The first implementation (a char vector per part, a String per word), kept as the
    /// reference the faster one must equal.
    fn reference_split(s: &str) -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        for part in s.split(|c: char| c == '_' || c == '.' || c == '-' || c.is_whitespace()) {
            let chars: Vec<char> = part.chars().collect();
            let mut cur = String::new();
            for i in 0..chars.len() {
                let c = chars[i];
                if i > 0 && !cur.is_empty() {
                    let prev = chars[i - 1];
                    let next = chars.get(i + 1).copied();
                    let boundary = (c.is_uppercase()
                        && (prev.is_lowercase() || prev.is_ascii_digit()))
                        || (c.is_uppercase()
                            && prev.is_uppercase()
                            && next.is_some_and(|n| n.is_lowercase()));
                    if boundary {
                        words.push(std::mem::take(&mut cur).to_lowercase());
                    }
                }
                cur.push(c);
            }
            if !cur.is_empty() {
                words.push(cur.to_lowercase());
            }
        }
        words
    }

    #[test]
    fn equals_the_reference_on_every_word_of_a_real_schema_and_odd_text() {
        let sdl = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benchmarks/wg/schemas/linear/schema.graphql"
        ))
        .expect("bundled linear schema");
        let mut n = 0;
        let odd = [
            "",
            "_",
            "__a__b",
            "ΣΑΣ",
            "straßeÄrger",
            "aΣb",
            "İstanbulCity",
            "x1Y2z",
            "a-b.c d",
            "HTTPSConnection2FA",
            "ǅungla",
            "ABC",
            "aB",
            "Ab",
        ];
        let words = sdl
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .chain(sdl.lines())
            .chain(odd);
        for w in words {
            let want = reference_split(w);
            assert_eq!(split_identifier(w), want, "{w:?}");
            assert_eq!(humanize(w), want.join(" "), "{w:?}");
            n += 1;
        }
        assert!(n > 100_000, "{n}");
    }
}
