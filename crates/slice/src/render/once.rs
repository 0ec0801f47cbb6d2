//! The `once` style: say each thing once. Every definition on one line as in `dense`
//! (each type once with its fields; a relation is the one field line that names its
//! target type; an enum used by many fields is defined once), plus the descriptions an
//! agent needs, each distinct one said once in the slice: a type's first sentence as a
//! comment before it, its fields' first sentences as one comment line after it
//! (`# name: … ; owner: …`). A description already said (pagination arguments, a relation
//! that repeats its target's description) is not said again.

use rustc_hash::FxHashSet as HashSet;

use gqlnav_schema::apollo_compiler::ast::InputValueDefinition;

use super::bare::signature;
use super::compact::first_sentence;
use super::{desc_str, FieldLine, StyleWriter};

/// Longest description kept, in characters (first sentence, then cut).
const MAX_DESCRIPTION_CHARS: usize = 100;

#[derive(Default)]
pub(crate) struct OnceWriter {
    said: HashSet<String>,
    /// Field notes of the owner being written.
    notes: Vec<String>,
}

impl OnceWriter {
    /// The first sentence of `desc` unless it was said before.
    fn fresh(&mut self, desc: &str) -> Option<String> {
        let s = first_sentence(desc, MAX_DESCRIPTION_CHARS);
        if s.is_empty() || !self.said.insert(s.clone()) {
            return None;
        }
        Some(s)
    }
}

impl StyleWriter for OnceWriter {
    fn type_description(&mut self, out: &mut String, desc: &str) {
        if let Some(s) = self.fresh(desc) {
            out.push_str("# ");
            out.push_str(&s);
            out.push('\n');
        }
    }

    fn owner_open(&self) -> &'static str {
        " {"
    }

    fn owner_close(&self) -> &'static str {
        " }"
    }

    fn owner_end(&mut self, out: &mut String) {
        out.push_str(" }");
        if !self.notes.is_empty() {
            out.push_str("\n# ");
            out.push_str(&self.notes.join(" ; "));
            self.notes.clear();
        }
    }

    fn field(&mut self, out: &mut String, line: &FieldLine<'_>) {
        signature(out, " ", line);
        if let Some(d) = desc_str(line.f.description.as_ref()) {
            if let Some(s) = self.fresh(d) {
                self.notes.push(format!("{}: {s}", line.name));
            }
        }
        for a in &line.args {
            if let Some(d) = desc_str(a.description.as_ref()) {
                if let Some(s) = self.fresh(d) {
                    self.notes.push(format!("{}({}:): {s}", line.name, a.name));
                }
            }
        }
    }

    fn input_field(&mut self, out: &mut String, name: &str, f: &InputValueDefinition) {
        super::bare::input_field(out, name, f);
        // A comment line inside the block; `one_line` moves it after the closing brace.
        if let Some(d) = desc_str(f.description.as_ref()) {
            if let Some(s) = self.fresh(d) {
                out.push_str(&format!("  # {name}: {s}\n"));
            }
        }
    }

    /// One line, the type's comment first and the field notes after it.
    fn definition(&self, block: String) -> String {
        super::dense::one_line(&block)
    }

    fn separator(&self) -> &'static str {
        "\n"
    }
}
