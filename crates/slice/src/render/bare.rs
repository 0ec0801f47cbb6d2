//! The `bare` style: SDL without descriptions, one field per line (what the WG suite
//! renders; the cheapest multi-line form).

use std::fmt::Write as _;

use gqlnav_schema::apollo_compiler::ast::InputValueDefinition;

use super::{FieldLine, StyleWriter};

pub(crate) struct BareWriter;

impl StyleWriter for BareWriter {
    fn field(&mut self, out: &mut String, line: &FieldLine<'_>) {
        signature(out, "  ", line);
        out.push('\n');
    }
}

/// `{indent}name(a: A, b: B): T` (no line break), shared by the one-line field styles.
pub(crate) fn signature(out: &mut String, indent: &str, line: &FieldLine<'_>) {
    out.push_str(indent);
    out.push_str(line.name);
    if !line.args.is_empty() {
        out.push('(');
        for (i, a) in line.args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&a.name);
            out.push_str(": ");
            let _ = write!(out, "{}", a.ty);
        }
        out.push(')');
    }
    out.push_str(": ");
    let _ = write!(out, "{}", line.f.ty);
}

/// `  name: T` and a line break.
pub(crate) fn input_field(out: &mut String, name: &str, f: &InputValueDefinition) {
    out.push_str("  ");
    out.push_str(name);
    out.push_str(": ");
    let _ = writeln!(out, "{}", f.ty);
}
