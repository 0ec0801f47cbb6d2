//! The selection model: which fields a slice shows, per owner type, and which arguments
//! it keeps whatever the pruning rule says.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The selected fields of a slice, per owner type, plus arguments kept on request.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// owner type -> selected field names.
    pub fields: HashMap<String, BTreeSet<String>>,
    /// `(type, field, argument)` kept whatever the pruning rule says.
    pub forced_args: HashSet<(String, String, String)>,
    /// Number of selected fields.
    pub len: usize,
}

impl Selection {
    /// Add `Type.field`; true when it was new.
    pub fn insert(&mut self, ty: &str, field: &str) -> bool {
        // Look up before allocating: most inserts land on a type already selected, and
        // many on a field already there.
        let new = match self.fields.get_mut(ty) {
            Some(s) if s.contains(field) => false,
            Some(s) => s.insert(field.to_string()),
            None => self
                .fields
                .entry(ty.to_string())
                .or_default()
                .insert(field.to_string()),
        };
        if new {
            self.len += 1;
        }
        new
    }

    /// Is `Type.field` selected?
    pub fn contains(&self, ty: &str, field: &str) -> bool {
        self.fields.get(ty).is_some_and(|s| s.contains(field))
    }

    /// Is any field of `ty` selected?
    pub fn has_type(&self, ty: &str) -> bool {
        self.fields.get(ty).is_some_and(|s| !s.is_empty())
    }
}
