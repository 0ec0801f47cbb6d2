//! The words of a schema name: camelCase, acronyms, digits and `_`. A fact of the name
//! alone, read by the corpus (to index names as words) and by the schema facts that
//! depend on a name's form (a *label* is one word, [`crate::LabelRule`]).

/// Call `f` with every word of an identifier (a non-empty slice of `s`, case kept), in
/// order. Parts are separated by `_`, `.`, `-` and whitespace; inside a part a word ends
/// before an upper-case letter that follows a lower-case letter or a digit, and before
/// the last upper-case letter of a run that a lower-case letter follows (`URLPath` →
/// `URL`, `Path`). Digits stay with the letters before them (`sha256`).
pub fn for_each_identifier_word<'a>(s: &'a str, mut f: impl FnMut(&'a str)) {
    for part in s.split(|c: char| c == '_' || c == '.' || c == '-' || c.is_whitespace()) {
        let mut start = 0;
        let mut prev: Option<char> = None;
        let mut it = part.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if let Some(p) = prev {
                let next = it.peek().map(|&(_, n)| n);
                let boundary = (c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()))
                    || (c.is_uppercase()
                        && p.is_uppercase()
                        && next.is_some_and(|n| n.is_lowercase()));
                if boundary {
                    f(&part[start..i]);
                    start = i;
                }
            }
            prev = Some(c);
        }
        if start < part.len() {
            f(&part[start..]);
        }
    }
}

/// How many words an identifier has ([`for_each_identifier_word`]): `name` and `URL`
/// 1, `licenceType` and `created_at` 2, `_` 0.
pub fn identifier_word_count(s: &str) -> usize {
    let mut n = 0;
    for_each_identifier_word(s, |_| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_of_a_name() {
        for (id, n) in [
            ("name", 1),
            ("URL", 1),
            ("sha256", 1),
            ("_id", 1),
            ("licenceType", 2),
            ("created_at", 2),
            ("URLPath", 2),
            ("isPRDraft", 3),
            ("_", 0),
        ] {
            assert_eq!(identifier_word_count(id), n, "{id}");
        }
    }
}
