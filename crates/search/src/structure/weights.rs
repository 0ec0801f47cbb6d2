//! The ranker's weights and their `key=value` overrides (docs/ranking.md).

use crate::SearchError;

/// Weights of the structure-aware ranker. See `docs/ranking.md` for why each has its value.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StructureWeights {
    /// BM25 over the rendered text of the chosen rendering.
    pub text: f32,
    pub name: f32,
    pub desc: f32,
    pub owner: f32,
    pub ret: f32,
    pub args: f32,
    /// Owner-type relevance (type documents).
    pub owner_type: f32,
    /// Return-type relevance (type documents, connections unwrapped).
    pub return_type: f32,
    /// Share of a hit's score given to fields on its paths to the root.
    pub path: f32,
    /// Share given to connection/edge wrapper fields of a hit returning a connection.
    pub conn: f32,
    /// Share between interface fields and the same field on implementations.
    pub iface: f32,
    /// Depth penalty: score / (1 + depth·(owner depth − 1)).
    pub depth: f32,
    /// Share given to the fields on a hit's owner type's cheapest *collection* path, when
    /// its cheapest paths are lookups by key (0 switches it off).
    #[serde(default)]
    pub collection: f32,
    /// Share given to the fields of a *value object* a top hit returns (a small object
    /// type of leaf fields, such as an amount and its currency), and its square to the
    /// fields of a value object nested in it (0 switches it off).
    #[serde(default)]
    pub value: f32,
    /// Lift of a field returning an enum by how well the question matches the enum's
    /// value names (a word such as "admins" or "closed" names a value, not a field);
    /// 0 switches it off.
    #[serde(default)]
    pub enum_value: f32,
    /// Lift of a root field (an entry point) by the best of its own name's relevance and
    /// its return type's, as the owner-type lift lifts other fields; only when the query's
    /// purpose is [`crate::Purpose::Search`] (0 switches it off).
    #[serde(default)]
    pub root: f32,
    /// A lifted root field's base score stays under this share of the best base score, so
    /// entry points join the hits a path lifts (`path`, 0.8) and do not take the top.
    #[serde(default)]
    pub root_cap: f32,
    /// For a reader ([`crate::Purpose::Search`]), a deprecated field's score is scaled
    /// by `1 − deprecated`: an agent should not be steered to a field on its way out
    /// while another matches as well (0 switches it off).
    #[serde(default = "default_deprecated")]
    pub deprecated: f32,
    /// For a reader, the value objects of this many top hits are *completions*: their
    /// fields get the hit's full score, kept under the `seeds`-th score, so that they
    /// follow the question's own hits instead of a share far down the list (0 switches
    /// it off).
    #[serde(default = "default_value_hits")]
    pub value_hits: usize,
    /// For a reader's question addressed to the current caller ("my email"), the type
    /// relevance the caller's type gets at least, as if the question named it (0
    /// switches it off; part of the `person` channel).
    #[serde(default = "default_caller")]
    pub caller: f32,
    /// For a reader, a root field's name is another name for the type it returns
    /// (`Query.customers` returns users): that type's relevance is at least this share of
    /// the field's `name` match (0 switches it off; the `alias` channel).
    #[serde(default = "default_root_alias")]
    pub root_alias: f32,
    /// The same for a field on any other type (`Order.buyer` names a user); a role name
    /// more than a name of the type, so a smaller share (0 switches it off).
    #[serde(default = "default_field_alias")]
    pub field_alias: f32,
    /// For a reader, term balance: among the fields of one type that match no question
    /// word of their own (no name, description or argument match; only the owner's
    /// words), this many (by base score) keep the owner lift's second half ...
    #[serde(default = "default_balance_keep")]
    pub balance_keep: usize,
    /// ... and the others keep this share of it (1 switches the balance off; the
    /// `balance` channel).
    #[serde(default = "default_balance_share")]
    pub balance_share: f32,
    /// For a reader, a *label* field (a non-null `String` with a one-word name and no
    /// arguments: `name`, `title`) is lifted by its owner type's relevance, at this share
    /// of the owner lift's second half, and stays under the type's best field that
    /// matches a question word of its own (0 switches it off; the `label` channel).
    #[serde(default = "default_label")]
    pub label: f32,
    /// For a reader, the labels of the type each completed top hit returns (`value_hits`:
    /// `Issue.assignee` → `User.name`) are completions at this share of the hit's score,
    /// kept under the `seeds`-th score (0 switches it off; part of the `label` channel).
    #[serde(default = "default_label_hits")]
    pub label_hits: f32,
    /// For a reader, a root list the question names by a plural word ("which teams" and
    /// `Query.teams`) stays under this share of the best base score instead of
    /// `root_cap`: a question about many of a type reads its list (0: `root_cap`).
    #[serde(default = "default_list_cap")]
    pub list_cap: f32,
    /// For a reader, a type whose name the question says word for word ("seller order"
    /// and `Order`) has at least this relevance (0 switches it off; the `named` channel).
    #[serde(default = "default_named_type")]
    pub named_type: f32,
    /// For a reader, a top hit returning a relevant type lends this share of its score,
    /// times the relevance of what the field leads to, to the one field of that type that
    /// leads furthest into the question (`Ref.target` after `Repository.defaultBranchRef`
    /// in a question about a commit; 0 switches it off; the `bridge` channel).
    #[serde(default = "default_bridge")]
    pub bridge: f32,
    /// How many top base hits propagate along the graph.
    pub seeds: usize,
    /// Paths per seed.
    pub paths_per_seed: usize,
}

impl Default for StructureWeights {
    fn default() -> Self {
        StructureWeights {
            text: 3.0,
            name: 3.0,
            desc: 2.0,
            owner: 1.0,
            ret: 0.0,
            args: 0.3,
            owner_type: 1.5,
            return_type: 0.0,
            path: 0.8,
            conn: 0.5,
            iface: 0.7,
            depth: 0.3,
            collection: 0.8,
            // The `conn` share, not tuned (docs/ranking.md, "Value objects"): a field
            // returning an object needs a selection, as a connection needs its wrappers.
            value: 0.5,
            // Chosen left-one-API-out on github, linear and singapore over {0, 0.5, 1, 2}
            // by recall@50 with recall@10 and MRR not lower on the tuning pair, as `root`
            // below (docs/ranking.md, "Enum values"): each pair picks 0.5; github 0.4548 /
            // 0.7565 / 0.6166 -> 0.4564 / 0.7575 / 0.6206, linear 0.4339 / 0.7953 / 0.6002
            // -> 0.4352 / 0.7953 / 0.6005, singapore unchanged (r@10 / r@50 / MRR).
            enum_value: 0.5,
            // Chosen by recall@50 on github, linear and singapore over root {0.5, 1, 1.5} x
            // cap {0.5, 0.6, 0.7}, and left-one-API-out (docs/ranking.md, "Entry points"):
            // recall@50 github 0.757 -> 0.758, linear 0.753 -> 0.763, recall@10 and MRR
            // not lower on any of them.
            root: 1.0,
            root_cap: 0.6,
            deprecated: default_deprecated(),
            value_hits: default_value_hits(),
            caller: default_caller(),
            root_alias: default_root_alias(),
            field_alias: default_field_alias(),
            balance_keep: default_balance_keep(),
            balance_share: default_balance_share(),
            label: default_label(),
            label_hits: default_label_hits(),
            list_cap: default_list_cap(),
            named_type: default_named_type(),
            bridge: default_bridge(),
            seeds: 20,
            paths_per_seed: 2,
        }
    }
}

/// Chosen left-one-API-out on github, linear and singapore over a demotion of {0, 0.05,
/// 0.1, 0.15, 0.2, 0.3, 0.5}, by recall@50 with recall@10 and MRR not lower on the tuning
/// pair (docs/ranking.md, "Deprecated fields and value completions"): github left out gets
/// 0.1 (recall@10 / @50 / MRR 0.4618 / 0.7587 / 0.6206 -> 0.4628 / 0.7597 / 0.6302),
/// linear left out 0.05 (recall@50 unchanged, recall@10 0.4352 -> 0.4346, MRR 0.6005 ->
/// 0.6044), singapore left out 0.1 (unchanged); all three together pick 0.1.
fn default_deprecated() -> f32 {
    0.1
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 3, 4, 5, 6, 7, 10,
/// 20}, by recall@50 with recall@10 and MRR not lower on the tuning pair, ties to the
/// smallest change (docs/ranking.md, "A field's name names its type"): github left out
/// gets 5 (recall@50 0.7673 -> 0.7687), linear left out 5 (0.8032 -> 0.8043), singapore
/// left out 5 (unchanged). Before that choice it was 3, the search page's "what the top
/// hits return" count, untuned (measured then: 5 tied with 3 on github and 20 lowered
/// it).
fn default_value_hits() -> usize {
    5
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.3, 0.5, 0.7, 1}, by
/// recall@50 with recall@10 and MRR not lower on the tuning pair, ties to the smallest
/// (docs/ranking.md, "The caller's type"): github left out gets 0.7 (recall@50 unchanged,
/// recall@10 0.4628 -> 0.4606, MRR 0.6302 -> 0.6294), linear left out 0.3 (0.4358 /
/// 0.7953 / 0.6074 -> 0.4413 / 0.7957 / 0.6169), singapore left out 0.3 (unchanged); all
/// three together 0.3.
fn default_caller() -> f32 {
    0.3
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.3, 0.5, 0.6, 0.7,
/// 0.8, 0.9, 1}, by recall@50 with recall@10 and MRR not lower on the tuning pair, ties to
/// the smallest (docs/ranking.md, "A field's name names its type"): github left out gets
/// 0.7 (0.4628 / 0.7624 / 0.6304 -> 0.4628 / 0.7634 / 0.6304), linear left out 0.3
/// (0.4413 / 0.7995 / 0.6169 -> 0.4413 / 0.8007 / 0.6171), singapore left out 0.7
/// (unchanged); all three together 0.7.
fn default_root_alias() -> f32 {
    0.7
}

/// Chosen as `root_alias`, over {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1} with
/// `root_alias` 0.7 (docs/ranking.md, "A field's name names its type"): github left out
/// gets 0.6 (recall@50 0.7634 -> 0.7729, **recall@10 0.4628 -> 0.4575**), linear left out
/// 0.2 (unchanged), singapore left out 0.2 (unchanged); all three together 0.2 (github
/// 0.4632 / 0.7673 / 0.6323).
fn default_field_alias() -> f32 {
    0.2
}

/// Chosen left-one-API-out on github, linear and singapore over keep {1, 2, 3, 4, 5, 10,
/// 20} × share {0, 0.25, 0.5} (docs/ranking.md, "Term balance: a type's fields without
/// words of their own"), by recall@50 with recall@10 and MRR not lower on the tuning pair,
/// ties to the smallest change: every left-out API gets keep 2, share 0.25 (github 0.4651
/// / 0.7687 / 0.6323 -> 0.4686 / 0.7722 / 0.6337, linear 0.4463 / 0.8043 / 0.6232 ->
/// 0.4483 / 0.8090 / 0.6233, singapore unchanged).
fn default_balance_keep() -> usize {
    2
}

/// See [`default_balance_keep`].
fn default_balance_share() -> f32 {
    0.25
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.2, 0.4, 0.6, 0.8, 1,
/// 1.25, 1.5, 2}, by recall@50 with recall@10 and MRR not lower on the tuning pair, ties
/// to the smallest change (docs/ranking.md, "Labels"): github
/// left out gets 1.25 (0.4686 / 0.7722 / 0.6337 -> 0.4750 / 0.7798 / 0.6327), linear left
/// out 1 (0.4483 / 0.8090 / 0.6233 -> 0.5077 / 0.8435 / 0.6331), singapore left out 1
/// (unchanged); all three together 1 (github 0.4739 / 0.7798 / 0.6339).
fn default_label() -> f32 {
    1.0
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.25, 0.5, 0.55, 0.6,
/// 0.65, 0.7, 0.75, 0.9, 1}, with `label` 1, by recall@50 with recall@10 and MRR not
/// lower on the tuning pair, ties to the smallest change
/// (docs/ranking.md, "Labels"): github left out gets 0.6 (recall@50 0.7798 -> 0.7833),
/// linear left out 0.9 (0.8435 -> 0.8589, **MRR 0.6331 -> 0.6330**), singapore left out
/// 0.6 (unchanged); all three together 0.6 (from 0.65 on linear's MRR falls by 0.0001).
fn default_label_hits() -> f32 {
    0.6
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.65, 0.7, 0.75, 0.8,
/// 0.9, 1}, by recall@50 with recall@10 and MRR not lower on the tuning pair, ties to the
/// smallest change (docs/ranking.md, "Labels", "Plural lists"):
/// only linear moves (0.8534 -> 0.8590 from 0.75 on, recall@10 and MRR not lower), so
/// github and singapore left out get 0.75 and do not move, and linear left out keeps 0
/// (its pair ties); all three together 0.75. Held-out nautical 0.6955 -> 0.7063.
fn default_list_cap() -> f32 {
    0.75
}

/// Chosen left-one-API-out on github, linear and singapore over {0, 0.3, 0.5, 0.6, 0.7,
/// 0.85, 1}, by recall@50 with recall@10 and MRR not lower on the tuning pair
/// (docs/ranking.md, "Named types"): github left out gets 0.7 (0.4739 /
/// 0.7833 / 0.6339 -> 0.4946 / 0.7852 / 0.6487), linear left out 0.6 (0.5089 / 0.8590 /
/// 0.6331 -> 0.5261 / 0.8635 / 0.6424), singapore left out 0.6 (unchanged); all three
/// together 0.6.
fn default_named_type() -> f32 {
    0.6
}

/// Chosen left-one-API-out over {0, 0.5, 0.8, 1, 1.2, 1.5, 2} (docs/ranking.md,
/// "Bridges"): with linear left out and with singapore left out the pair picks 1 (github
/// 0.7904 -> 0.7954; linear and singapore unchanged); with github left out the pair sees
/// no difference up to 1 and keeps 0. Above 1 linear falls (0.8635 -> 0.8629).
fn default_bridge() -> f32 {
    1.0
}

impl StructureWeights {
    /// The names of the real-valued weights, as [`StructureWeights::apply_overrides`]
    /// takes them.
    pub const WEIGHT_KEYS: [&'static str; 27] = [
        "text",
        "name",
        "desc",
        "owner",
        "ret",
        "args",
        "owner_type",
        "return_type",
        "path",
        "conn",
        "iface",
        "depth",
        "collection",
        "value",
        "enum_value",
        "root",
        "root_cap",
        "deprecated",
        "caller",
        "root_alias",
        "field_alias",
        "balance_share",
        "label",
        "label_hits",
        "list_cap",
        "named_type",
        "bridge",
    ];

    /// The real-valued weight called `key` (one of [`StructureWeights::WEIGHT_KEYS`]).
    pub fn weight_mut(&mut self, key: &str) -> Option<&mut f32> {
        Some(match key {
            "text" => &mut self.text,
            "name" => &mut self.name,
            "desc" => &mut self.desc,
            "owner" => &mut self.owner,
            "ret" => &mut self.ret,
            "args" => &mut self.args,
            "owner_type" => &mut self.owner_type,
            "return_type" => &mut self.return_type,
            "path" => &mut self.path,
            "conn" => &mut self.conn,
            "iface" => &mut self.iface,
            "depth" => &mut self.depth,
            "collection" => &mut self.collection,
            "value" => &mut self.value,
            "enum_value" => &mut self.enum_value,
            "root" => &mut self.root,
            "root_cap" => &mut self.root_cap,
            "deprecated" => &mut self.deprecated,
            "caller" => &mut self.caller,
            "root_alias" => &mut self.root_alias,
            "field_alias" => &mut self.field_alias,
            "balance_share" => &mut self.balance_share,
            "label" => &mut self.label,
            "label_hits" => &mut self.label_hits,
            "list_cap" => &mut self.list_cap,
            "named_type" => &mut self.named_type,
            "bridge" => &mut self.bridge,
            _ => return None,
        })
    }

    /// Apply `key=value,key=value` overrides (keys are the field names).
    pub fn apply_overrides(&mut self, spec: &str) -> Result<(), SearchError> {
        for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| SearchError::Other(format!("weight `{kv}`: expected key=value")))?;
            let x: f32 = v
                .trim()
                .parse()
                .map_err(|_| SearchError::Other(format!("weight `{kv}`: `{v}` is not a number")))?;
            let k = k.trim();
            match k {
                "seeds" => self.seeds = x.max(0.0) as usize,
                "paths_per_seed" => self.paths_per_seed = x.max(0.0) as usize,
                "value_hits" => self.value_hits = x.max(0.0) as usize,
                "balance_keep" => self.balance_keep = x.max(0.0) as usize,
                _ => {
                    *self.weight_mut(k).ok_or_else(|| {
                        SearchError::Other(format!(
                            "unknown weight `{k}`; expected one of {}, seeds, paths_per_seed, value_hits, balance_keep",
                            Self::WEIGHT_KEYS.join(", ")
                        ))
                    })? = x
                }
            }
        }
        Ok(())
    }
}
