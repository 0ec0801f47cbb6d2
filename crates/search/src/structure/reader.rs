//! The reader-only lifts of the structure ranker, applied to base scores before the
//! graph propagation: entry points (`root`), term balance (`balance`), labels (`label`)
//! and a field's name as another name for its type (`alias`). A slicer's ranking runs
//! none of them ([`crate::Purpose::Slice`]).

use super::StructureBackend;

impl StructureBackend {
    /// Per doc, for the `root` channel: a root field returning many
    /// ([`super::facts::root_lists`]) whose whole name is a plural word of the question
    /// (a word of more than three letters ending in `s`): "which teams" and `Query.teams`,
    /// "what releases are there" and `Query.releases`. The question asks for many of the
    /// type, and this list is where they are.
    pub(super) fn plural_lists(&self, text: &str) -> Vec<bool> {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3 && w.ends_with('s'))
            .map(str::to_lowercase)
            .collect();
        let Some(ctx) = self.ctx.as_ref().filter(|_| !words.is_empty()) else {
            return Vec::new();
        };
        (ctx.corpus.entries.iter().enumerate())
            .map(|(i, e)| {
                self.root_list[i] && words.iter().any(|w| w.eq_ignore_ascii_case(&e.name))
            })
            .collect()
    }

    /// The `root` channel: a root field is an entry point to the type it returns, and
    /// its owner (the root) says nothing, so where other fields are lifted by their owner
    /// type's relevance a root field is lifted by the best of its own name's relevance
    /// (the normalised `name` channel: `customers` in "how many customers") and its
    /// return type's, at the owner-type scale (`owner_type` × 0.5) times `root`. The
    /// lifted base score stays under `root_cap` × the best base score (or its own base
    /// score when higher), and under `list_cap` × it for a list the question names by a
    /// plural word (`named`, [`StructureBackend::plural_lists`]). Returns each doc's lift
    /// (0 for the others), for `--explain`.
    pub(super) fn lift_root_fields(
        &self,
        name: &[f32],
        trel: &[f32],
        base: &mut [f32],
        named: &[bool],
    ) -> Vec<f32> {
        let w = &self.weights;
        let top = base.iter().copied().fold(0.0f32, f32::max);
        let mut lift = vec![0f32; base.len()];
        for (i, b) in base.iter_mut().enumerate() {
            if !self.root_field[i] {
                continue;
            }
            let ret = self.ret_of[i].map_or(0.0, |r| trel[r]);
            let l = w.root * w.owner_type * name[i].max(ret) * 0.5 / self.depth_factor(i);
            if l > 0.0 {
                let cap = if w.list_cap > 0.0 && named.get(i).is_some_and(|&x| x) {
                    w.list_cap
                } else {
                    w.root_cap
                };
                let lifted = (*b + l).min((cap * top).max(*b));
                lift[i] = lifted - *b;
                *b = lifted;
            }
        }
        lift
    }

    /// The `balance` channel, for a reader: term balance. Every field of a type the
    /// question names gets the owner lift, and its second half when the field matches
    /// anything (the rendered text carries the owner's name, so every field of the type
    /// does); one word naming a big type ("marketplace" for a configuration of 60 fields)
    /// then fills the list with fields that match nothing else. Among the fields of one
    /// type that match no question word of their own (`wordless[i]` > 0: that second
    /// half), the first `balance_keep` by base score keep it (their short rendered texts
    /// rank first: `body`, `createdAt`) and the others keep `balance_share` of it.
    pub(super) fn balance(&self, wordless: &[f32], base: &mut [f32]) {
        let w = &self.weights;
        let mut docs: Vec<usize> = (0..wordless.len()).filter(|&i| wordless[i] > 0.0).collect();
        // By owner type, then best base first (ties by corpus order).
        docs.sort_by(|&a, &b| {
            (self.owner_of[a].cmp(&self.owner_of[b]))
                .then(base[b].total_cmp(&base[a]))
                .then(a.cmp(&b))
        });
        let mut kept = 0;
        for (k, &i) in docs.iter().enumerate() {
            let same_type = k > 0 && self.owner_of[docs[k - 1]] == self.owner_of[i];
            kept = if same_type { kept + 1 } else { 1 };
            if kept > w.balance_keep {
                base[i] -= (1.0 - w.balance_share) * wordless[i];
            }
        }
    }

    /// The `label` channel, for a reader: a question about a type's items reads their
    /// labels whether it names them or not ("which teams am I a member of" shows each
    /// team's `name`, "what issues are assigned to me" each issue's `title`). Each label
    /// field ([`facts::label_fields`]) gets `label` × the owner lift's second half
    /// (`owner_type` × its type's relevance × 0.25, over the depth factor), but stays
    /// under the best base score among its type's other fields that match a question word
    /// of their own: a label follows what the question asks of the type and never passes
    /// it ("which clinics have a phone number listed": `telephone` stays above `name`).
    /// Its own base score is kept when higher. Returns each doc's lift, for `--explain`.
    pub(super) fn lift_labels(&self, own: &[bool], trel: &[f32], base: &mut [f32]) -> Vec<f32> {
        let w = &self.weights;
        let mut best = vec![f32::NEG_INFINITY; trel.len()];
        for i in (0..base.len()).filter(|&i| own[i] && !self.label[i]) {
            let t = self.owner_of[i];
            best[t] = best[t].max(base[i]);
        }
        let mut lift = vec![0f32; base.len()];
        for i in (0..base.len()).filter(|&i| self.label[i]) {
            let t = self.owner_of[i];
            let l = w.label * w.owner_type * trel[t] * 0.25 / self.depth_factor(i);
            if l <= 0.0 {
                continue;
            }
            let mut lifted = base[i] + l;
            if best[t].is_finite() {
                lifted = lifted.min((best[t] * 0.999).max(base[i]));
            }
            lift[i] = lifted - base[i];
            base[i] = lifted;
        }
        lift
    }

    /// The `alias` channel, for a reader: a field's name is another name for the type it
    /// returns (connections and lists unwrapped), so the question's match on the name
    /// (the normalised `name` channel) is a match on that type too: the type's relevance
    /// is at least `root_alias` × the match for a root field (`Query.customers` returns
    /// users, and "customers" names no type) and `field_alias` × it for any other field.
    pub(super) fn lend_aliases(&self, name: &[f32], trel: &mut [f32]) {
        let w = &self.weights;
        for (i, &m) in name.iter().enumerate().filter(|(_, &m)| m > 0.0) {
            let share = if self.root_field[i] {
                w.root_alias
            } else {
                w.field_alias
            };
            if let Some(r) = self.ret_of[i].filter(|_| share > 0.0) {
                trel[r] = trel[r].max(share * m);
            }
        }
    }
}
