//! `path`: a task needing `PullRequest.title` needs `Query.repository` and
//! `Repository.pullRequests` too. Each seed lends `path` × its score to the fields on its
//! owner type's cheapest root paths ([`PATHS_PER_SEED`] of them; for a reader, selectable
//! routes first where they differ), and, when those paths are lookups by key
//! (`Repository.pullRequest(number:)`), to its cheapest *collection* path
//! (`Repository.pullRequests`), the way a question about many of them goes. Without it
//! github's recall@10 falls 0.4984 -> 0.3695 and dev slices grow by 268 tokens.

use super::super::pipeline::{Question, Scores, Stage, StageId};
use super::super::StructureBackend;

/// Cheapest root paths followed per seed (the index keeps this many per type).
pub(crate) const PATHS_PER_SEED: usize = 2;

pub(crate) struct Path;

impl Stage for Path {
    fn name(&self) -> &'static str {
        "path"
    }

    fn propagate(&self, ix: &StructureBackend, q: &Question, s: &mut Scores, me: StageId) {
        let share = ix.weights.path;
        let seeds = std::mem::take(&mut s.seeds);
        for sd in &seeds {
            let t = ix.owner_of[sd.doc];
            for path in ix.paths_of(t, q.reader) {
                for &p in path {
                    s.lend(me, p, share * sd.score);
                }
            }
            for &p in &ix.coll_paths[t] {
                s.lend(me, p, share * sd.score);
            }
            if q.person {
                let lent = share * sd.score;
                ix.callers
                    .lend(t, &ix.owner_of, &ix.ret_of, |p| s.lend(me, p, lent));
            }
        }
        s.seeds = seeds;
    }
}
