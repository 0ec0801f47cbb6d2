//! What to slice and how: the selection knobs and the options of one slice.

use gqlnav_corpus::Encoding;

use crate::render::Style;
use crate::SliceError;

/// Aggregate knobs of the selection stage (no per-question rules).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Knobs {
    /// Ranked hits considered.
    pub pool_k: usize,
    /// Most relevant types whose every field becomes a candidate.
    pub type_k: usize,
    /// Value of a field of an expanded type, as a share of the type's relevance.
    pub type_blend: f32,
    /// Candidates below this value are never picked.
    pub value_floor: f32,
    /// Paths from the root compared per owner type (the most relevant one is taken).
    pub path_choices: usize,
    /// Longest path, in fields.
    pub max_depth: usize,
    /// After the greedy pick, pad the slice with every query-root entry whose return-type
    /// family meets the selection, while it fits (off by default).
    pub root_entries: bool,
    /// Size without a budget: the slice is fitted to this many tokens of its encoding
    /// as under a budget of that size (first pick at `first_fill` of it, redone smaller
    /// while it renders over), with the auto knobs.
    pub default_tokens: usize,
    /// Enums with no relevant value show all their values up to this many.
    pub enum_small: usize,
    /// Paths from the root added per owner type.
    pub paths_per_type: usize,
    /// Value of a field of the type a picked field returns (through connections and
    /// edges), as a share of the picked field's value.
    pub child_blend: f32,
    /// Most types expanded that way per question, under a budget.
    pub max_child_types: usize,
    /// Most types expanded that way per question without a budget. There the value
    /// floor bounds the size and this cap is what stops the slice short; under a budget,
    /// space is the bound and more child types push out the question's own fields.
    pub auto_child_types: usize,
    /// The expanded types (`type_k`) lend `type_blend` to their leaf fields only (scalar
    /// and enum fields), under a budget.
    pub type_leaves: bool,
    /// The same without a budget. There a huge expanded type (a hub with 200 fields) put
    /// every composite field and the types they name into the pool, and the slice ran
    /// to its size cap on them; its composite fields still come as hits, links and
    /// children of picked fields.
    pub auto_type_leaves: bool,
    /// A field returning an object or interface type with at most this many fields brings
    /// that type's scalar and enum fields along (a composite field cannot be selected
    /// without a sub-selection, and a small type's leaves are cheap); 0 turns it off.
    pub small_type_fields: usize,
    /// Query-root entry fields (returning the type or a connection of it) packed with
    /// the first field of each type, most relevant first; 0 turns it off.
    pub root_entries_per_type: usize,
    /// Value of a field linking two relevant types, as a share of the lesser relevance;
    /// 0 turns links off.
    pub link_blend: f32,
    /// Most relevant types whose fields are tested as links.
    pub link_types: usize,
    /// Path preference lost per hop through a generic lookup (an interface or union
    /// standing for more than 16 types).
    pub generic_hop_penalty: f32,
    /// The question's most relevant types, which get `main_paths` paths from the root
    /// chosen among `main_path_choices`.
    pub main_types: usize,
    /// Paths from the root added for each main type.
    pub main_paths: usize,
    /// Paths compared for each main type.
    pub main_path_choices: usize,
    /// The top ranked fields that keep every argument.
    pub full_signature_k: usize,
    /// The first pick aims at this share of the budget in estimated tokens (estimates
    /// run a little low; a pick that renders over the budget is redone smaller).
    pub first_fill: f32,
    /// Share of the tokens of an argument kept for the question's words that counts
    /// when the pool is ordered by value per token (the budget counts them all); 1
    /// orders by the whole cost.
    pub matched_arg_cost: f32,
    /// Value of a *label* field (`name`, `title`, `state`: a one-word scalar or enum)
    /// of the type a picked field returns, as a share of the picked field's value (the
    /// type's other fields get `child_blend`), under a budget; 0 leaves labels at
    /// `child_blend`.
    pub label_blend: f32,
    /// The same without a budget.
    pub auto_label_blend: f32,
}

impl Knobs {
    /// Candidate root paths enumerated per type: one enumeration serves both widths
    /// (paths come cheapest first, so the narrower set is a prefix of the wider one).
    pub(crate) fn path_width(&self) -> usize {
        self.path_choices.max(self.main_path_choices).max(1)
    }

    /// Check the ranges that would make slices meaningless.
    pub fn validate(&self) -> Result<(), SliceError> {
        let share = |name: &'static str, v: f32| {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(SliceError::Knob(name, format!("{v} is not in [0, 1]")))
            }
        };
        share("typeBlend", self.type_blend)?;
        share("childBlend", self.child_blend)?;
        share("linkBlend", self.link_blend)?;
        share("valueFloor", self.value_floor)?;
        share("matchedArgCost", self.matched_arg_cost)?;
        share("labelBlend", self.label_blend)?;
        share("autoLabelBlend", self.auto_label_blend)?;
        if self.default_tokens == 0 {
            return Err(SliceError::Knob(
                "defaultTokens",
                "0 would leave every slice without a budget empty; give a size in tokens".into(),
            ));
        }
        if !(self.first_fill.is_finite() && self.first_fill > 0.0 && self.first_fill <= 1.0) {
            return Err(SliceError::Knob(
                "firstFill",
                format!("{} is not in (0, 1]", self.first_fill),
            ));
        }
        if !self.generic_hop_penalty.is_finite() || self.generic_hop_penalty < 0.0 {
            return Err(SliceError::Knob(
                "genericHopPenalty",
                format!("{} is not a number ≥ 0", self.generic_hop_penalty),
            ));
        }
        Ok(())
    }
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            pool_k: 300,
            type_k: 8,
            type_blend: 0.35,
            value_floor: 0.05,
            path_choices: 5,
            max_depth: 6,
            // Off (measured 2026-12-03, docs/archive/history.md): the padding added every
            // root field meeting the selection while it fit, and the per-type packing
            // (`root_entries_per_type`) already brings the entries slices need. Off, no
            // slice changed its grade on any API, with or without a budget or the local
            // model, and every mean fell: auto dev 6,690 -> 6,639 o200k, held-out
            // nautical 6,667 -> 6,516, shopify 7,208 -> 6,890.
            root_entries: false,
            // The size target of auto slices (≤ 7,000 mean cl100k on every API, seen or
            // not), held per slice. It replaced an estimate the pick aimed at (8,500),
            // with no bound on what it rendered: WG GitLab's auto slices averaged 8,561
            // cl100k (p95 9,201). As a bound (measured 2026-12-04,
            // docs/archive/history.md): gitlab 97.5% at 8,561 -> 95.0% at 6,821, shopify
            // 95.0% at 6,954 -> 6,520, nautical 92.5% at 6,604 -> 6,123; dev github 92.5%
            // -> 92.0% (gh-ext-092-kw needs ~8,900), linear 99.0% and singapore 100% kept.
            default_tokens: 7000,
            enum_small: 8,
            paths_per_type: 1,
            // 0.15 and 50 (auto) were chosen left-one-API-out on github, linear and
            // singapore (2026-12-02, docs/archive/history.md): auto slices 94.5% -> 95.9%
            // perfect at 5,852 -> 6,697 mean o200k, each left-out API at or above its
            // figure before; 0.2 -> 0.15 alone moves b2000 59.6% -> 60.6%. Budgeted slices
            // keep 10 child types: 50 lowers b4000 85.8% -> 81.7%.
            child_blend: 0.15,
            max_child_types: 10,
            auto_child_types: 50,
            // Without a budget, chosen left-one-API-out (2026-12-03,
            // docs/archive/history.md): grades unchanged on github, linear and singapore,
            // every mean lower (github 7,628 -> 7,577 o200k, linear 6,164 -> 6,129,
            // singapore 603 -> 567); the cap over type size (all fields up to N, leaves
            // past it) was flat in grade from N = 0 to 120 with tokens rising with N, so
            // each pair of dev APIs picks N = 0, leaves only. Under a budget it is mixed
            // (b4000 github 78.5% -> 82.0%, but b6000 linear 97.5% -> 97.0% and b8000
            // github 91.0% -> 90.5%), so it stays off there.
            type_leaves: false,
            auto_type_leaves: true,
            small_type_fields: 5,
            root_entries_per_type: 5,
            link_blend: 0.6,
            link_types: 20,
            generic_hop_penalty: 1.0,
            main_types: 3,
            main_paths: 2,
            main_path_choices: 12,
            full_signature_k: 5,
            first_fill: 0.97,
            // Chosen left-one-API-out on github, linear and singapore (2026-12-03,
            // docs/archive/history.md): of 1 / 0.5 / 0.25 / 0, each pair of dev APIs picks
            // 0.25 on budgeted slices (auto slices keep every grade at each value), and
            // each left-out API rises or stays: b2000 github 50.5% -> 51.0%, linear 68.0%
            // -> 70.0%; b4000 78.5% -> 79.5%, 91.5% -> 92.0%; b6000 github 89.0% -> 89.5%.
            // A field whose filters the question names (`mergeRequests(state:,
            // authorUsername:, …)`) cost ~87 tokens and came after every cheap leaf of the
            // relevant types.
            matched_arg_cost: 0.25,
            // Chosen left-one-API-out on github, linear and singapore (2026-12-04,
            // docs/archive/history.md), auto slices with and without the local model: each
            // left-out API keeps or raises its figures (linear with the model 98.0% ->
            // 98.5%; github and singapore unchanged); auto dev 6,546 -> 6,646 mean cl100k.
            // Under a budget github picks 0.6 and the left-out linear falls at 2,000 tokens
            // (70.0% -> 69.0%), so budgeted slices keep 0.
            label_blend: 0.0,
            auto_label_blend: 0.5,
        }
    }
}

/// What to slice and how.
#[derive(Debug, Clone, Default)]
pub struct SliceOptions {
    /// Token budget in `encoding`; `None` lets the slicer pick a size.
    pub budget: Option<usize>,
    /// Encoding of the budget and of the reported token count.
    pub encoding: Encoding,
    /// Writing style.
    pub style: Style,
    /// Define every named type (stubs where needed) so the slice validates as a schema.
    pub closed: bool,
    /// Coordinates that must be in the slice (`Type.field`, `Type.field(arg:)`, `Type`);
    /// these may name Mutation fields.
    pub seeds: Vec<String>,
    /// Selection knobs.
    pub knobs: Knobs,
}
