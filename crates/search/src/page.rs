//! Paging and budget cutting of ranked results: the one rule every surface uses (the
//! CLI's `search --budget`, the tools' `search_schema` pages and cursors, the GraphQL
//! endpoint's `__search`).

use crate::Scored;

/// Which part of a ranking to show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageRequest {
    /// Ranked positions to skip (a cursor's offset).
    pub offset: usize,
    /// Most items on the page.
    pub limit: usize,
    /// Stop at the first item whose relative score (score / best score) is below this.
    pub min_score: Option<f32>,
    /// Stop before the first item that would take the page's tokens over this.
    pub budget: Option<usize>,
}

impl PageRequest {
    /// The first `limit` items, no score floor, no budget.
    pub fn first(limit: usize) -> Self {
        PageRequest {
            offset: 0,
            limit,
            min_score: None,
            budget: None,
        }
    }

    /// How many ranked positions to ask the ranker for: the page plus one, so that
    /// [`Page::more`] can tell whether a next page exists.
    pub fn depth(&self) -> usize {
        self.offset + self.limit + 1
    }
}

/// One shown item, made by the caller from its ranked position.
#[derive(Debug, Clone, Copy)]
pub struct Slot<'a> {
    /// 0-based rank of the item in the whole ranking.
    pub rank: usize,
    /// The ranked position.
    pub scored: &'a Scored,
    /// Score relative to the best item of the ranking, in [0, 1].
    pub score: f32,
}

/// A page of items.
#[derive(Debug, Clone)]
pub struct Page<T> {
    /// The items, best first.
    pub items: Vec<T>,
    /// A next page exists (the limit or the budget stopped the page, not the ranking).
    pub more: bool,
    /// Tokens of the items, as the caller counted them.
    pub tokens: usize,
    /// The budget stopped the page before its first item: that item alone costs this many
    /// tokens.
    pub first_over_budget: Option<usize>,
    /// Per item, the ranked position a page resuming after it starts from (its cursor):
    /// past the item and past the positions folded into this page's items before the
    /// next item.
    pub resume: Vec<usize>,
}

/// What [`page_folded`] does with a ranked position.
pub enum Fold {
    /// A new item.
    New,
    /// Fold into the page's item at this index (0-based on the page).
    Into(usize),
}

/// Cut a ranking into a page. `make` turns a slot into an item and its token cost; it is
/// called for every item shown and for the one that went over the budget.
///
/// Rules, in order: scores are relative to the best item of the whole ranking (so they
/// read the same on every page); `offset` items are skipped; the page stops at the first
/// item below `min_score` (no next page), at `limit` items (a next page exists when the
/// ranking has more), or before the first item that would take its tokens over `budget`
/// (a next page exists). A budget is never exceeded, so a page can be empty when its first
/// item alone is over the budget ([`Page::first_over_budget`] says by how much).
pub fn page<T>(
    scored: &[Scored],
    req: &PageRequest,
    make: impl FnMut(Slot<'_>) -> (T, usize),
) -> Page<T> {
    page_folded(scored, req, |_, _| Fold::New, make, |_, _| 0)
}

/// [`page`], with near-duplicates folded: `place` is asked, for each ranked position, with
/// the docs of the items already on the page, whether it is a new item or folds into one
/// of them; `fold` adds it to that item and returns the tokens it adds. Folded positions
/// do not count towards the limit; the budget counts their tokens. Once the page is full,
/// positions that fold into its items are still taken, up to the first that does not
/// (where the next page starts, [`Page::resume`]). A folding caller should rank deeper
/// than [`PageRequest::depth`], since folded positions use up the ranking.
pub fn page_folded<T>(
    scored: &[Scored],
    req: &PageRequest,
    mut place: impl FnMut(&Scored, &[usize]) -> Fold,
    mut make: impl FnMut(Slot<'_>) -> (T, usize),
    mut fold: impl FnMut(&mut T, Slot<'_>) -> usize,
) -> Page<T> {
    let top = scored.first().map(|s| s.score).unwrap_or(0.0);
    let mut out = Page {
        items: Vec::new(),
        more: false,
        tokens: 0,
        first_over_budget: None,
        resume: Vec::new(),
    };
    let mut docs: Vec<usize> = Vec::new();
    for (rank, s) in scored.iter().enumerate().skip(req.offset) {
        let score = if top > 0.0 {
            (s.score / top).clamp(0.0, 1.0)
        } else {
            0.0
        };
        if req.min_score.is_some_and(|m| score < m) {
            break;
        }
        let slot = Slot {
            rank,
            scored: s,
            score,
        };
        if let Fold::Into(i) = place(s, &docs) {
            if let Some(item) = out.items.get_mut(i) {
                let tokens = fold(item, slot);
                if req.budget.is_some_and(|b| out.tokens + tokens > b) {
                    out.more = true;
                    break;
                }
                out.tokens += tokens;
                if let Some(last) = out.resume.last_mut() {
                    *last = rank + 1;
                }
                continue;
            }
        }
        if out.items.len() == req.limit {
            out.more = true;
            break;
        }
        let (item, tokens) = make(slot);
        if req.budget.is_some_and(|b| out.tokens + tokens > b) {
            if out.items.is_empty() {
                out.first_over_budget = Some(tokens);
            }
            out.more = true;
            break;
        }
        out.tokens += tokens;
        out.items.push(item);
        out.resume.push(rank + 1);
        docs.push(s.doc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking(scores: &[f32]) -> Vec<Scored> {
        scores
            .iter()
            .enumerate()
            .map(|(doc, &score)| Scored::new(doc, score))
            .collect()
    }

    fn docs(p: &Page<usize>) -> Vec<usize> {
        p.items.clone()
    }

    #[test]
    fn limit_offset_and_more() {
        let r = ranking(&[4.0, 3.0, 2.0, 1.0]);
        let p = page(&r, &PageRequest::first(2), |s| (s.scored.doc, 1));
        assert_eq!(docs(&p), vec![0, 1]);
        assert!(p.more);
        let req = PageRequest {
            offset: 2,
            ..PageRequest::first(2)
        };
        let p = page(&r, &req, |s| (s.scored.doc, 1));
        assert_eq!(docs(&p), vec![2, 3]);
        assert!(!p.more, "the ranking ended exactly at the limit");
        assert_eq!(req.depth(), 5);
    }

    #[test]
    fn scores_are_relative_to_the_best_of_the_whole_ranking() {
        let r = ranking(&[4.0, 2.0, 1.0]);
        let req = PageRequest {
            offset: 1,
            ..PageRequest::first(5)
        };
        let p = page(&r, &req, |s| (s.score, 1));
        assert_eq!(p.items, vec![0.5, 0.25]);
    }

    #[test]
    fn min_score_ends_the_ranking() {
        let r = ranking(&[4.0, 3.0, 1.0]);
        let req = PageRequest {
            min_score: Some(0.5),
            ..PageRequest::first(5)
        };
        let p = page(&r, &req, |s| (s.scored.doc, 1));
        assert_eq!(docs(&p), vec![0, 1]);
        assert!(!p.more);
    }

    #[test]
    fn folded_positions_join_their_item_and_do_not_count() {
        // docs 1 and 3 fold into doc 0; doc 5 into doc 2.
        let r = ranking(&[9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0]);
        let into = |s: &Scored, docs: &[usize]| {
            let lead = match s.doc {
                1 | 3 => 0,
                5 => 2,
                _ => return Fold::New,
            };
            docs.iter()
                .position(|&d| d == lead)
                .map_or(Fold::New, Fold::Into)
        };
        let p = page_folded(
            &r,
            &PageRequest::first(2),
            into,
            |s| (vec![s.scored.doc], 1),
            |item: &mut Vec<usize>, s| {
                item.push(s.scored.doc);
                1
            },
        );
        // 0 (+1, +3), 2: the page is full at doc 4, which starts the next page.
        assert_eq!(p.items, vec![vec![0, 1, 3], vec![2]]);
        assert_eq!(p.resume, vec![2, 4]);
        assert_eq!(p.tokens, 4);
        assert!(p.more);
        let next = PageRequest {
            offset: 4,
            ..PageRequest::first(2)
        };
        let p = page_folded(
            &r,
            &next,
            into,
            |s| (vec![s.scored.doc], 1),
            |item: &mut Vec<usize>, s| {
                item.push(s.scored.doc);
                1
            },
        );
        // doc 5's item (2) is on the page before: here it is an item of its own.
        assert_eq!(p.items, vec![vec![4], vec![5]]);
        assert_eq!(p.resume, vec![5, 6]);
        assert!(p.more);
    }

    #[test]
    fn a_budget_is_never_exceeded() {
        let r = ranking(&[5.0, 4.0, 3.0, 2.0]);
        let cost = [30, 60, 10, 10];
        let req = PageRequest {
            budget: Some(85),
            ..PageRequest::first(10)
        };
        let p = page(&r, &req, |s| (s.scored.doc, cost[s.scored.doc]));
        // 30 + 60 = 90 > 85: the page stops at the second item, although the third (10)
        // would fit; items stay in rank order, none is skipped.
        assert_eq!(docs(&p), vec![0]);
        assert_eq!(p.tokens, 30);
        assert!(p.more);
        let req = PageRequest {
            budget: Some(20),
            ..PageRequest::first(10)
        };
        let p = page(&r, &req, |s| (s.scored.doc, cost[s.scored.doc]));
        assert!(p.items.is_empty());
        assert_eq!(p.first_over_budget, Some(30));
        assert!(p.more);
    }
}
