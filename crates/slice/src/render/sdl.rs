//! The `sdl` style: SDL with descriptions (block strings) on types, fields, arguments,
//! input fields and enum values.

use gqlnav_schema::apollo_compiler::ast::InputValueDefinition;

use super::{desc_str, FieldLine, StyleWriter};

pub(crate) struct SdlWriter;

impl StyleWriter for SdlWriter {
    fn type_description(&mut self, out: &mut String, desc: &str) {
        out.push_str(&block_string(desc, ""));
    }

    /// Arguments go on one line, or one per line when any has a description.
    fn field(&mut self, out: &mut String, line: &FieldLine<'_>) {
        let (name, f, args) = (line.name, line.f, &line.args);
        if let Some(d) = desc_str(f.description.as_ref()) {
            out.push_str(&block_string(d, "  "));
        }
        out.push_str("  ");
        out.push_str(name);
        let any_desc = args
            .iter()
            .any(|a| desc_str(a.description.as_ref()).is_some());
        if !args.is_empty() {
            if any_desc {
                out.push_str("(\n");
                for a in args {
                    if let Some(d) = desc_str(a.description.as_ref()) {
                        out.push_str(&block_string(d, "    "));
                    }
                    out.push_str(&format!("    {}: {}\n", a.name, a.ty));
                }
                out.push_str("  )");
            } else {
                let parts: Vec<String> = args
                    .iter()
                    .map(|a| format!("{}: {}", a.name, a.ty))
                    .collect();
                out.push_str(&format!("({})", parts.join(", ")));
            }
        }
        out.push_str(&format!(": {}\n", f.ty));
    }

    fn input_field(&mut self, out: &mut String, name: &str, f: &InputValueDefinition) {
        if let Some(d) = desc_str(f.description.as_ref()) {
            out.push_str(&block_string(d, "  "));
        }
        out.push_str(&format!("  {name}: {}\n", f.ty));
    }

    fn enum_value(&mut self, out: &mut String, value: &str, desc: Option<&str>) {
        if let Some(d) = desc {
            out.push_str(&block_string(d, "  "));
        }
        out.push_str("  ");
        out.push_str(value);
        out.push('\n');
    }
}

/// A description as a block string at `indent` (one line when it fits on one).
fn block_string(desc: &str, indent: &str) -> String {
    let d = desc.trim().replace("\"\"\"", "\\\"\"\"");
    if !d.contains('\n') && !d.ends_with('"') && !d.ends_with('\\') {
        format!("{indent}\"\"\"{d}\"\"\"\n")
    } else {
        let mut s = format!("{indent}\"\"\"\n");
        for line in d.lines() {
            s.push_str(indent);
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s.push_str(indent);
        s.push_str("\"\"\"\n");
        s
    }
}
