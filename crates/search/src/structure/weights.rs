//! The ranker's tunables, declared once: the struct, its defaults, the keys `--weights`
//! takes and their parsing all come from the one table in [`tunables!`]. Each entry
//! says which stage reads it and the measurement behind its value (docs/ranking.md has
//! the grids).

use crate::SearchError;

/// A tunable's value type: a share (`f32`) or a count (`usize`).
trait Tunable: Copy {
    fn parse(key: &str, v: &str) -> Result<Self, SearchError>;
    fn as_f32(self) -> f32;
}

impl Tunable for f32 {
    fn parse(key: &str, v: &str) -> Result<Self, SearchError> {
        let x: f32 = v
            .trim()
            .parse()
            .map_err(|_| SearchError::Other(format!("weight `{key}`: `{v}` is not a number")))?;
        if !x.is_finite() {
            return Err(SearchError::Other(format!(
                "weight `{key}`: `{v}` is not a finite number"
            )));
        }
        Ok(x)
    }
    fn as_f32(self) -> f32 {
        self
    }
}

impl Tunable for usize {
    fn parse(key: &str, v: &str) -> Result<Self, SearchError> {
        let x = <f32 as Tunable>::parse(key, v)?;
        Ok(x.max(0.0) as usize)
    }
    fn as_f32(self) -> f32 {
        self as f32
    }
}

macro_rules! tunables {
    ($( $(#[doc = $doc:literal])* $key:ident : $ty:ty = $default:expr, )*) => {
        /// The structure ranker's tunables (see the table in `weights.rs`).
        #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        pub struct StructureWeights {
            $( $(#[doc = $doc])* pub $key: $ty, )*
        }

        impl Default for StructureWeights {
            fn default() -> Self {
                StructureWeights { $( $key: $default, )* }
            }
        }

        impl StructureWeights {
            /// Every key `--weights` takes, in declaration order.
            pub const KEYS: &'static [&'static str] = &[$( stringify!($key) ),*];

            /// The value of tunable `key` (counts as numbers), or `None` for no such key.
            pub fn get(&self, key: &str) -> Option<f32> {
                match key {
                    $( stringify!($key) => Some(Tunable::as_f32(self.$key)), )*
                    _ => None,
                }
            }

            /// Set tunable `key` from its text form.
            fn set(&mut self, key: &str, v: &str) -> Result<(), SearchError> {
                match key {
                    $( stringify!($key) => self.$key = <$ty as Tunable>::parse(key, v)?, )*
                    _ => {
                        return Err(SearchError::Other(format!(
                            "unknown weight `{key}`; the weights are {}",
                            Self::KEYS.join(", ")
                        )))
                    }
                }
                Ok(())
            }
        }
    };
}

tunables! {
    /// `type`: the owner-type lift (type documents' BM25 relevance of the owner). The
    /// first structure weight, chosen on github's TSV.
    owner_type: f32 = 1.5,
    /// `type`: the lift of a field returning an enum by the question's match on the
    /// enum's value names (reader). Chosen left-one-API-out over {0, 0.5, 1, 2}: each
    /// pair picks 0.5 (github recall@50 0.7565 -> 0.7575, linear unchanged at 0.7953).
    enum_value: f32 = 0.5,
    /// `named`: a type the question says word for word has at least this relevance.
    /// Left-one-API-out over {0, 0.3, …, 1}: github left out 0.7 (recall@10 0.4739 ->
    /// 0.4946), linear 0.6 (0.5089 -> 0.5261); together 0.6.
    named_type: f32 = 0.6,
    /// `named`: a root field's name match counts as a match on the type it returns, at
    /// this share. Left-one-API-out over {0, 0.3, …, 1}: together 0.7.
    root_alias: f32 = 0.7,
    /// `named`: the same for a field on any other type (a role name more than a name of
    /// the type). Left-one-API-out over {0, 0.1, …, 1}: together 0.2.
    field_alias: f32 = 0.2,
    /// `named`: the relevance the caller's type gets at least in a question addressed to
    /// the caller (0 also stops the `path` stage's ways through the caller).
    /// Left-one-API-out over {0, 0.3, 0.5, 0.7, 1}: linear left out 0.3 (recall@10 0.4358
    /// -> 0.4413), singapore 0.3, github 0.7; together 0.3.
    caller: f32 = 0.3,
    /// `depth`: score / (1 + depth × (owner depth − 1)). Chosen on github's TSV.
    depth: f32 = 0.3,
    /// `balance`: among a type's fields matching no word of their own, all but the first
    /// two keep this share of the owner lift's second half. Left-one-API-out over keep
    /// {1, 2, 3, 4, 5, 10, 20} × share {0, 0.25, 0.5}: every left-out API gets 2 and 0.25.
    balance_share: f32 = 0.25,
    /// `label`: a label field's lift, as a share of the owner lift's second half.
    /// Left-one-API-out over {0, 0.2, …, 2}: linear left out 1 (recall@50 0.8090 ->
    /// 0.8435), together 1.
    label: f32 = 1.0,
    /// `root`: lift of a root field by the best of its name's and its return type's
    /// relevance. Chosen with its ceiling over {0.5, 1, 1.5} × {0.5, 0.6, 0.7},
    /// left-one-API-out (recall@50 github 0.757 -> 0.758, linear 0.753 -> 0.763).
    root: f32 = 1.0,
    /// `path`: share of a seed's score given to the fields on its owner type's cheapest
    /// paths to the root (and its collection path). Chosen on github's TSV.
    path: f32 = 0.8,
    /// `selection`: share given to a seed's connection wrappers and to the fields of a
    /// value object a top hit returns. Chosen on github's TSV for the wrappers.
    selection: f32 = 0.5,
    /// `selection`: a reader's top hits completed (their value objects, root paths,
    /// count fields and labels). Left-one-API-out over {0, 3, …, 20}: every left-out API
    /// gets 5 (github recall@50 0.7673 -> 0.7687).
    value_hits: usize = 5,
    /// `deprecated`: a deprecated field's score is scaled by 1 − this. Left-one-API-out
    /// over {0, 0.05, …, 0.5}: github left out 0.1 (recall@50 0.7587 -> 0.7597), linear
    /// 0.05, singapore 0.1; together 0.1.
    deprecated: f32 = 0.1,
    /// `bridge`: share a top hit returning a relevant type lends to the field of that type
    /// that leads furthest into the question. Left-one-API-out over {0, 0.5, …, 2}: with
    /// linear or singapore left out the pair picks 1 (github recall@50 0.7904 -> 0.7954).
    bridge: f32 = 1.0,
}

impl StructureWeights {
    /// Apply `key=value,key=value` overrides (the keys are [`StructureWeights::KEYS`]).
    pub fn apply_overrides(&mut self, spec: &str) -> Result<(), SearchError> {
        for kv in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| SearchError::Other(format!("weight `{kv}`: expected key=value")))?;
            self.set(k.trim(), v)?;
        }
        Ok(())
    }
}
