//! The `person` channel: in a first-person question ("my assigned issues", "which teams
//! am I in"), the way to what the question asks about goes through the current caller
//! (`Query.viewer` → `User.assignedIssues`), not through a lookup by key. The caller's
//! root fields come from schema facts ([`crate::caller_roots`]); first person is read
//! from the question's grammar ([`crate::first_person`]). No names of any API.

use gqlnav_corpus::EntryKind;

use crate::SearchContext;

/// One current-caller root field and the fields of the type it returns.
#[derive(Debug, Clone, Default)]
pub(super) struct Caller {
    /// The root field (`Query.viewer`).
    root: usize,
    /// The fields of the caller's type.
    fields: Vec<usize>,
}

/// The schema's current-caller root fields.
#[derive(Debug, Clone, Default)]
pub(super) struct Callers(Vec<Caller>);

impl Callers {
    /// The caller roots of `ctx`'s schema, with their types' fields gathered in one pass
    /// over the corpus (a schema may have several such roots).
    pub(super) fn new(ctx: &SearchContext) -> Self {
        let corpus = &ctx.corpus;
        let roots = crate::caller_roots(&ctx.graph);
        let mut callers: Vec<Caller> = Vec::with_capacity(roots.len());
        let mut types: Vec<&str> = Vec::with_capacity(roots.len());
        for (root, ty) in &roots {
            if let Some(root) = corpus.position(root) {
                callers.push(Caller {
                    root,
                    fields: Vec::new(),
                });
                types.push(ty);
            }
        }
        if !callers.is_empty() {
            for (i, e) in corpus.entries.iter().enumerate() {
                if e.kind != EntryKind::Field {
                    continue;
                }
                for (c, ty) in callers.iter_mut().zip(&types) {
                    if e.owner == *ty {
                        c.fields.push(i);
                    }
                }
            }
        }
        Callers(callers)
    }

    /// The callers' types (type indices, as `owner_of` holds them).
    pub(super) fn types(&self, owner_of: &[usize]) -> Vec<usize> {
        self.0
            .iter()
            .filter_map(|c| c.fields.first().map(|&f| owner_of[f]))
            .collect()
    }

    /// A seed hit on type `owner` (a type index, as `owner_of` holds them) reaches the
    /// ways in through each caller: the caller's root field, and the caller's fields
    /// returning `owner` (connections unwrapped, `ret_of`); a hit on the caller's own type
    /// reaches the root field alone. `reach` is called with each doc reached.
    pub(super) fn lend(
        &self,
        owner: usize,
        owner_of: &[usize],
        ret_of: &[Option<usize>],
        mut reach: impl FnMut(usize),
    ) {
        for c in &self.0 {
            let own_type = c.fields.first().is_some_and(|&f| owner_of[f] == owner);
            let mut reached = own_type;
            for &f in &c.fields {
                if ret_of[f] == Some(owner) {
                    reach(f);
                    reached = true;
                }
            }
            if reached {
                reach(c.root);
            }
        }
    }
}
