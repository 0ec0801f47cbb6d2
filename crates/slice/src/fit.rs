//! Fitting a slice to its budget: pick, render, measure in the named encoding, and pick
//! again smaller while the text is over the budget; the best partial slice when not even
//! one package fits; the closing `# not shown` line.

use rustc_hash::FxHashSet as HashSet;

use gqlnav_corpus::{CachedMeter, Encoding};

use crate::closure::{fields_of, Pruner};
use crate::index::Slicer;
use crate::options::{Knobs, SliceOptions};
use crate::relevance::Relevance;
use crate::render::{render, RenderOptions, Rendered, Style};
use crate::selection::Selection;
use crate::value::Ctx;
use crate::SliceError;

/// A slice.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Slice {
    /// The SDL text.
    pub sdl: String,
    /// Tokens of `sdl` in `encoding`.
    pub tokens: usize,
    /// The encoding of `tokens` (and of the budget).
    pub encoding: Encoding,
    /// Writing style.
    pub style: Style,
    /// Whether every named type is defined.
    pub closed: bool,
    /// The budget asked for, if any.
    pub budget: Option<usize>,
    /// Without a budget, the size the slice was fitted to (tokens of `encoding`,
    /// [`Knobs::default_tokens`]).
    pub auto_size: Option<usize>,
    /// Rendered field, argument and input-field coordinates.
    pub coordinates: Vec<String>,
    /// Number of type definitions.
    pub types: usize,
    /// Types named but not defined (default mode). The last `# not shown` line, when it
    /// fits the budget, names the first [`NOT_SHOWN_NAMED`] and counts the rest.
    pub not_shown: Vec<String>,
    /// Wanted coordinates that the budget left out, best first.
    pub left_out: Vec<String>,
    /// The budget did not admit even one complete root path.
    pub partial: bool,
    /// The selected fields (for re-rendering in another style).
    #[serde(skip)]
    pub selection: Selection,
    /// The question's terms (for re-rendering).
    #[serde(skip)]
    pub relevance: Relevance,
}

/// Most picks per slice: the estimate shrinks after each pick that renders over the
/// budget; after the last one the slice falls back to the best partial one.
const MAX_TRIES: usize = 8;

/// What the fitting loop settled on, before the closing line and the last budget check.
struct Settled {
    rendered: Rendered,
    sel: Selection,
    /// Wanted docs left out, best first.
    left: Vec<usize>,
    partial: bool,
    /// Tokens of `rendered.body`, when measured.
    body_tokens: Option<usize>,
}

/// Types the closing comment names; the rest are counted ([`Slice::not_shown`] lists
/// them all). An auto-size GitHub slice names about 80 types it does not define, ~350
/// tokens of comment (5% of the slice) that an agent reads on every call; the first
/// ones named are those the selection reached first.
pub const NOT_SHOWN_NAMED: usize = 12;

/// The closing `# not shown: A, B, … and N more` line of an open slice.
pub fn not_shown_line(not_shown: &[String]) -> String {
    let named = &not_shown[..not_shown.len().min(NOT_SHOWN_NAMED)];
    let more = not_shown.len() - named.len();
    if more == 0 {
        format!("# not shown: {}\n", named.join(", "))
    } else {
        format!("# not shown: {} and {more} more\n", named.join(", "))
    }
}

impl Slicer {
    /// Build the slice of a question.
    pub fn slice(
        &self,
        question: &str,
        sub_queries: &[String],
        opts: &SliceOptions,
    ) -> Result<Slice, SliceError> {
        opts.knobs.validate()?;
        let auto_knobs;
        let knobs = if opts.budget.is_none() {
            auto_knobs = Knobs {
                max_child_types: opts.knobs.auto_child_types,
                type_leaves: opts.knobs.auto_type_leaves,
                label_blend: opts.knobs.auto_label_blend,
                ..opts.knobs.clone()
            };
            &auto_knobs
        } else {
            &opts.knobs
        };
        let (seed_fields, seed_types, seed_args) = self.parse_seeds(&opts.seeds)?;
        let rel = Relevance::new(question, sub_queries);
        let rel = if opts.budget.is_none() {
            rel.with_shared_stems()
        } else {
            rel
        };
        let pr = Pruner::with_names(&self.graph, &rel, &self.names);
        let mut cx = Ctx::new(pr, opts.style);
        let (hits, cands) = self.value(&mut cx, question, sub_queries, &seed_types, knobs)?;
        let ropts = RenderOptions {
            style: opts.style,
            closed: opts.closed,
            enum_small: knobs.enum_small,
        };
        let meter = self.meter(opts.encoding);
        // Without a budget the size target is the bound (`Knobs::default_tokens`).
        let limit = opts.budget.unwrap_or(knobs.default_tokens);
        let mut target = limit as f32 * knobs.first_fill;
        // The fields the question is most about keep their whole signature: an optional
        // argument (`since`, `query`, `isFork`) is how such a field is narrowed.
        let mut top_args = Vec::new();
        for h in hits.iter().take(knobs.full_signature_k) {
            let e = &self.corpus.entries[h.doc];
            for a in &e.args {
                top_args.push((e.owner.clone(), e.name.clone(), a.name.clone()));
            }
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let (mut sel, left, unfit) = self.pick(&mut cx, &cands, &seed_fields, target, knobs);
            for a in seed_args.iter().chain(&top_args) {
                sel.forced_args.insert(a.clone());
            }
            if opts.budget.is_none() {
                self.force_auto_arguments(&mut sel, &cx.pr);
            }
            let r = render(&self.graph, &sel, &cx.pr, ropts);
            let body_tokens = meter.count(&r.body);
            let fits = body_tokens <= limit;
            if fits || tries >= MAX_TRIES {
                let mut s = Settled {
                    rendered: r,
                    sel,
                    left,
                    partial: false,
                    body_tokens: Some(body_tokens),
                };
                if !fits {
                    s.body_tokens = None;
                    s.sel = Selection::default();
                    s.rendered = render(&self.graph, &s.sel, &cx.pr, ropts);
                }
                if s.sel.len == 0 {
                    if let Some(pkg) = unfit.or_else(|| {
                        cands
                            .first()
                            .map(|(d, _)| self.package(&mut cx, *d, knobs).to_vec())
                    }) {
                        self.best_partial(&cx, &mut s, &pkg, limit, ropts, meter);
                    }
                }
                return Ok(self.finish(s, rel.clone(), opts, limit, meter));
            }
            target *= (limit as f32 / body_tokens as f32).min(0.97) * 0.97;
        }
    }

    /// Without a budget, every selected list field keeps its lone free-text argument
    /// (`query: String`, [`Pruner::search_string_of`]): questions that filter a
    /// collection need it and rarely share a word with its name. Auto slices, no model
    /// (measured 2026-12-03, docs/archive/history.md): dev 95.9% unchanged at 6,697 ->
    /// 6,842 o200k, held-out nautical 90.0% -> 92.5%, held-out WG shopify 60.0% -> 80.0%,
    /// gitlab 75.0% -> 77.5%. Under a budget space is the bound: the same rule there
    /// lowers b2000 linear 67.5% -> 66.5%.
    ///
    /// The same fields keep their lone switch when their enum argument survives
    /// ([`Pruner::switch_of`]): dev grades unchanged (linear 6,133 -> 6,164 o200k, github
    /// and singapore unchanged), held-out WG shopify 87.5% -> 92.5% (its sort direction,
    /// `reverse`), gitlab and nautical grades unchanged (measured 2026-12-03,
    /// docs/archive/history.md).
    fn force_auto_arguments(&self, sel: &mut Selection, pr: &Pruner<'_>) {
        for (ty, names) in &sel.fields {
            let Some(fields) = self.graph.schema.types.get(ty.as_str()).and_then(fields_of) else {
                continue;
            };
            for n in names {
                let Some(f) = fields.get(n.as_str()) else {
                    continue;
                };
                for a in [pr.search_string_of(f), pr.switch_of(f)]
                    .into_iter()
                    .flatten()
                {
                    sel.forced_args
                        .insert((ty.clone(), n.clone(), a.to_string()));
                }
            }
        }
    }

    /// Best partial: the package's coordinates, leaf first, while they fit; the others
    /// are left out first.
    fn best_partial(
        &self,
        cx: &Ctx<'_>,
        s: &mut Settled,
        pkg: &[usize],
        budget: usize,
        ropts: RenderOptions,
        meter: &CachedMeter,
    ) {
        s.partial = true;
        s.body_tokens = None;
        let mut order = vec![pkg[0]];
        order.extend(pkg[1..].iter().rev());
        let mut missing = Vec::new();
        for d in order {
            let mut s2 = s.sel.clone();
            self.add_sel(&mut s2, &[d]);
            let r2 = render(&self.graph, &s2, &cx.pr, ropts);
            if meter.count(&r2.body) <= budget {
                s.sel = s2;
                s.rendered = r2;
            } else {
                missing.push(d);
            }
        }
        s.left = missing
            .into_iter()
            .chain(std::mem::take(&mut s.left))
            .collect();
    }

    /// The closing `# not shown` line (when it fits), the last budget check, the report.
    fn finish(
        &self,
        s: Settled,
        rel: Relevance,
        opts: &SliceOptions,
        limit: usize,
        meter: &CachedMeter,
    ) -> Slice {
        let Settled {
            rendered: mut r,
            mut sel,
            left,
            mut partial,
            body_tokens,
        } = s;
        let mut sdl = r.body.clone();
        let mut tokens = body_tokens.unwrap_or_else(|| meter.count(&sdl));
        if !opts.closed && !r.not_shown.is_empty() {
            let line = format!(
                "{}{}",
                if sdl.is_empty() { "" } else { "\n" },
                not_shown_line(&r.not_shown)
            );
            let with_tokens = meter.count_appended(&sdl, tokens, &line);
            if with_tokens <= limit {
                sdl.push_str(&line);
                tokens = with_tokens;
            }
        }
        if tokens > limit {
            // Even the smallest well-formed slice (closed form: a query-root stub) is over
            // the budget: return nothing rather than exceed it.
            sdl.clear();
            tokens = 0;
            partial = true;
            sel = Selection::default();
            r.coordinates.clear();
            r.types = 0;
        }
        let mut seen = HashSet::default();
        let left_out: Vec<String> = left
            .iter()
            .map(|d| self.corpus.entries[*d].coordinate.clone())
            .filter(|c| seen.insert(c.clone()))
            .take(25)
            .collect();
        Slice {
            sdl,
            tokens,
            encoding: opts.encoding,
            style: opts.style,
            closed: opts.closed,
            budget: opts.budget,
            auto_size: if opts.budget.is_none() {
                Some(opts.knobs.default_tokens)
            } else {
                None
            },
            coordinates: r.coordinates,
            types: r.types,
            not_shown: r.not_shown,
            left_out,
            partial,
            selection: sel,
            relevance: rel,
        }
    }

    /// Render a slice's selection in another style (or open/closed form) and count its
    /// tokens in `encoding`. The budget applies to the style the slice was built in only.
    pub fn rerender(
        &self,
        slice: &Slice,
        style: Style,
        closed: bool,
        encoding: Encoding,
    ) -> (String, usize) {
        let pr = Pruner::with_names(&self.graph, &slice.relevance, &self.names);
        let r = render(
            &self.graph,
            &slice.selection,
            &pr,
            RenderOptions {
                style,
                closed,
                enum_small: Knobs::default().enum_small,
            },
        );
        let mut sdl = r.body;
        if !closed && !r.not_shown.is_empty() {
            if !sdl.is_empty() {
                sdl.push('\n');
            }
            sdl.push_str(&not_shown_line(&r.not_shown));
        }
        let t = self.meter(encoding).count(&sdl);
        (sdl, t)
    }
}
