//! The `compact` style: one line per field with its description as a trailing comment
//! (first sentence); descriptions repeated in the slice (pagination arguments, …) are
//! written once in a legend at the top and referred to as `[n]`.

use std::cell::RefCell;

use rustc_hash::FxHashMap as HashMap;

use gqlnav_schema::apollo_compiler::ast::InputValueDefinition;
use gqlnav_schema::apollo_compiler::Node;
use gqlnav_schema::SchemaGraph;

use super::bare::signature;
use super::{desc_str, FieldLine, StyleWriter};
use crate::closure::{fields_of, Closure};

pub(crate) struct CompactWriter {
    legend: Legend,
}

impl CompactWriter {
    /// A writer whose legend counts the descriptions of the closure's selected fields
    /// and of their surviving arguments.
    pub(crate) fn new(graph: &SchemaGraph, c: &Closure<'_, '_>) -> Self {
        let mut legend = Legend {
            counts: HashMap::default(),
            ids: Default::default(),
            index: Default::default(),
        };
        let mut bump = |d: Option<&Node<str>>| {
            if let Some(d) = desc_str(d) {
                *legend.counts.entry(first_sentence(d, 160)).or_insert(0) += 1;
            }
        };
        for t in &c.owners {
            let Some(fields) = graph.schema.types.get(*t).and_then(fields_of) else {
                continue;
            };
            for (fname, f) in fields {
                if let Some(ka) = c.kept_args.get(&(*t, fname.as_str())) {
                    bump(f.description.as_ref());
                    for a in f.arguments.iter().filter(|a| ka.contains(&a.name.as_str())) {
                        bump(a.description.as_ref());
                    }
                }
            }
        }
        CompactWriter { legend }
    }
}

impl StyleWriter for CompactWriter {
    fn type_description(&mut self, out: &mut String, desc: &str) {
        out.push_str("# ");
        out.push_str(&self.legend.say(desc));
        out.push('\n');
    }

    fn field(&mut self, out: &mut String, line: &FieldLine<'_>) {
        signature(out, "  ", line);
        let (f, args) = (line.f, &line.args);
        let mut notes = Vec::new();
        if let Some(d) = desc_str(f.description.as_ref()) {
            notes.push(self.legend.say(d));
        }
        for a in args {
            if let Some(d) = desc_str(a.description.as_ref()) {
                notes.push(format!("{}: {}", a.name, self.legend.say(d)));
            }
        }
        if !notes.is_empty() {
            out.push_str("  # ");
            out.push_str(&notes.join(" | "));
        }
        out.push('\n');
    }

    fn input_field(&mut self, out: &mut String, name: &str, f: &InputValueDefinition) {
        out.push_str(&format!("  {name}: {}", f.ty));
        if let Some(d) = desc_str(f.description.as_ref()) {
            out.push_str("  # ");
            out.push_str(&self.legend.say(d));
        }
        out.push('\n');
    }

    /// The legend: `# [n] description` per repeated description, then a blank line.
    fn preamble(&self) -> String {
        let mut body = String::new();
        for (i, d) in self.legend.ids.borrow().iter().enumerate() {
            body.push_str(&format!("# [{}] {}\n", i + 1, d));
        }
        if !self.legend.ids.borrow().is_empty() {
            body.push('\n');
        }
        body
    }
}

/// Descriptions said more than once, numbered in the order first said.
struct Legend {
    counts: HashMap<String, usize>,
    ids: RefCell<Vec<String>>,
    index: RefCell<HashMap<String, usize>>,
}

impl Legend {
    /// A compact description: repeated long ones become `[n]`.
    fn say(&self, desc: &str) -> String {
        let s = first_sentence(desc, 160);
        if s.chars().count() >= 24 && self.counts.get(&s).copied().unwrap_or(0) >= 2 {
            let mut idx = self.index.borrow_mut();
            let n = match idx.get(&s) {
                Some(n) => *n,
                None => {
                    let mut ids = self.ids.borrow_mut();
                    ids.push(s.clone());
                    let n = ids.len();
                    idx.insert(s, n);
                    n
                }
            };
            format!("[{n}]")
        } else {
            s
        }
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first sentence of a description, whitespace squashed, cut at `max` characters.
pub(crate) fn first_sentence(s: &str, max: usize) -> String {
    let s = squash(s);
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        if (c == '.' || c == '!' || c == '?') && (i + 1 == s.len() || s[i + 1..].starts_with(' ')) {
            end = i + 1;
            break;
        }
    }
    let mut out = s[..end].to_string();
    if out.chars().count() > max {
        out = out.chars().take(max).collect::<String>();
        out.push('…');
    }
    out
}
