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
    pub(super) fn new(ctx: &SearchContext) -> Self {
        let corpus = &ctx.corpus;
        Callers(
            crate::caller_roots(&ctx.graph)
                .into_iter()
                .filter_map(|(root, ty)| {
                    let root = corpus.position(&root)?;
                    let fields = corpus
                        .entries
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| e.kind == EntryKind::Field && e.owner == ty)
                        .map(|(i, _)| i)
                        .collect();
                    Some(Caller { root, fields })
                })
                .collect(),
        )
    }

    /// A seed hit (`doc`, `score`) on type `owner` lends `share` × its score to the ways
    /// in through each caller: the caller's root field, and the caller's fields returning
    /// `owner` (connections unwrapped, `ret_of`); a hit on the caller's own type lends to
    /// the root field alone. The path channel's share (`path`), as these are paths.
    pub(super) fn lend(
        &self,
        owner: usize,
        score: f32,
        share: f32,
        owner_of: &[usize],
        ret_of: &[Option<usize>],
        prop: &mut [f32],
    ) {
        let lent = share * score;
        for c in &self.0 {
            let own_type = c.fields.first().is_some_and(|&f| owner_of[f] == owner);
            let mut reached = own_type;
            for &f in &c.fields {
                if ret_of[f] == Some(owner) {
                    prop[f] = prop[f].max(lent);
                    reached = true;
                }
            }
            if reached {
                prop[c.root] = prop[c.root].max(lent);
            }
        }
    }
}
