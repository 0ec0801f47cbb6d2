//! Identifier splitting: camelCase, acronyms, digits and `_`.

/// Split an identifier into lower-cased words: `defaultBranchRef` → `default branch ref`,
/// `URLPath` → `url path`, `created_at` → `created at`. Digits stay attached to the
/// letters before them (`sha256`).
pub fn split_identifier(s: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for part in s.split(|c: char| c == '_' || c == '.' || c == '-' || c.is_whitespace()) {
        let chars: Vec<char> = part.chars().collect();
        let mut cur = String::new();
        for i in 0..chars.len() {
            let c = chars[i];
            if i > 0 && !cur.is_empty() {
                let prev = chars[i - 1];
                let next = chars.get(i + 1).copied();
                let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
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

/// Words of an identifier joined by spaces.
pub fn humanize(s: &str) -> String {
    split_identifier(s).join(" ")
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
}
