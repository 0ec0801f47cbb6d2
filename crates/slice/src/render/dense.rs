//! The `dense` style: bare SDL with one definition per line
//! (`type Ref { name: String! target: GitObject }`): the same members as `bare` for
//! about 15% fewer tokens. Objects and interfaces are written on one line directly;
//! other definitions are joined by [`one_line`].

use super::bare::signature;
use super::{FieldLine, StyleWriter};

pub(crate) struct DenseWriter;

impl StyleWriter for DenseWriter {
    fn owner_open(&self) -> &'static str {
        " {"
    }

    fn owner_close(&self) -> &'static str {
        " }"
    }

    /// The fields go on the header's line (` {`, ` f: T`, ` }`).
    fn field(&mut self, out: &mut String, line: &FieldLine<'_>) {
        signature(out, " ", line);
    }

    fn definition(&self, block: String) -> String {
        one_line(&block)
    }

    fn separator(&self) -> &'static str {
        "\n"
    }
}

/// One definition on one line (`type T {\n  a: X\n  b: Y\n}` → `type T { a: X b: Y }`);
/// a comment line inside (`# +3 more`) moves after the closing brace, where it cannot
/// swallow the rest of the definition.
pub(crate) fn one_line(block: &str) -> String {
    let mut out = String::with_capacity(block.len());
    let mut comments = Vec::new();
    for line in block.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with('#') {
            comments.push(t);
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    for c in comments {
        out.push(' ');
        out.push_str(c);
    }
    out
}
