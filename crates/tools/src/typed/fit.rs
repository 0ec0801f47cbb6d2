//! Fitting a tool set to the answer's shape. When a task gives the JSON Schema its answer
//! must match, each leaf key of that schema names a value the data must hold, at a list
//! depth (`{"issues": [{"title"}]}`: `title`, one list down). A tool's offered leaves that
//! carry those names at that depth are what its call needs:
//!
//! - [`TypedToolSet::fit_answer`] puts the tools that hold more of them first (a small
//!   model mostly takes the first tool that looks close: `viewer` for a list of users,
//!   docs/agent.md);
//! - [`TypedToolSet::answer_paths`] completes a call with the offered paths that hold the
//!   names its chosen fields miss (a 1.5B model picked a package's statistics and then
//!   wrote its name from memory).
//!
//! A name matches a leaf when every word of the key is a word of the leaf or of the field
//! that holds it (`issueId` ↔ `issue { id }`, `totalComments` ↔ `totalCommentsCount`),
//! one of them the leaf's own.

use serde_json::Value;

use super::path::FieldPath;
use super::{close, words, TypedTool, TypedToolSet};

/// Most paths a call is completed with.
const MAX_ADDED: usize = 4;

/// A value the answer holds: its key's words and how many lists down it sits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Want {
    pub words: Vec<String>,
    pub depth: usize,
}

/// A leaf a tool offers: the path that selects it, its words, its field's owner's words,
/// and how many lists down it sits.
#[derive(Debug)]
struct Have {
    path: String,
    leaf: Vec<String>,
    owner: Vec<String>,
    depth: usize,
}

pub(crate) fn is_scalar_schema(v: &Value) -> bool {
    if v.get("enum").is_some() || v.get("const").is_some() {
        return true;
    }
    let scalar = |t: &str| matches!(t, "string" | "number" | "integer" | "boolean" | "null");
    match v.get("type") {
        Some(Value::String(t)) => scalar(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).all(scalar),
        _ => ["anyOf", "oneOf"].iter().any(|k| {
            v.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().all(is_scalar_schema))
        }),
    }
}

/// The keys of an answer schema, each with its list depth: those holding a scalar
/// (`leaves`) or those holding objects (`!leaves`: `{"attachments": [{…}]}` at the depth
/// of its objects). Local `$ref`s are not followed: an answer schema is small and
/// written inline.
fn keys(schema: &Value, leaves: bool) -> Vec<Want> {
    fn walk(
        v: &Value,
        at: (usize, Option<&str>),
        leaves: bool,
        out: &mut Vec<Want>,
        n: &mut usize,
    ) {
        let (depth, key) = at;
        if *n == 0 {
            return;
        }
        *n -= 1;
        let scalar = is_scalar_schema(v);
        let props = v.get("properties").and_then(Value::as_object);
        if let Some(k) = key.filter(|_| if leaves { scalar } else { props.is_some() }) {
            let w = words(k);
            if !w.is_empty() && !out.iter().any(|x| x.words == w && x.depth == depth) {
                out.push(Want { words: w, depth });
            }
        }
        if scalar {
            return;
        }
        for (k, x) in props.into_iter().flatten() {
            walk(x, (depth, Some(k)), leaves, out, n);
        }
        if let Some(items) = v.get("items") {
            walk(items, (depth + 1, key), leaves, out, n);
        }
        for k in ["anyOf", "oneOf", "allOf"] {
            for x in v.get(k).and_then(Value::as_array).into_iter().flatten() {
                walk(x, (depth, key), leaves, out, n);
            }
        }
    }
    let mut out = Vec::new();
    let mut budget = 2_000;
    walk(schema, (0, None), leaves, &mut out, &mut budget);
    out
}

/// The leaf keys of an answer schema.
pub(crate) fn wants(schema: &Value) -> Vec<Want> {
    keys(schema, true)
}

/// The keys of an answer schema that hold objects, with the list depth of those objects.
pub(crate) fn object_wants(schema: &Value) -> Vec<Want> {
    keys(schema, false)
}

fn haves(tool: &TypedTool) -> Vec<Have> {
    let mut out = Vec::new();
    for p in &tool.paths {
        let Ok(path) = FieldPath::parse(p) else {
            continue;
        };
        let depth = path.steps.iter().filter(|s| s.list).count();
        let field = |i: usize| -> Vec<String> {
            path.steps
                .get(i)
                .map(|s| words(&s.field))
                .unwrap_or_default()
        };
        let n = path.steps.len();
        match tool.selects.get(p) {
            Some(leaves) => {
                for l in leaves {
                    out.push(Have {
                        path: p.clone(),
                        leaf: words(l),
                        owner: n.checked_sub(1).map(field).unwrap_or_default(),
                        depth,
                    });
                }
            }
            None if n > 0 => out.push(Have {
                path: p.clone(),
                leaf: field(n - 1),
                owner: n.checked_sub(2).map(field).unwrap_or_default(),
                depth,
            }),
            None => {}
        }
    }
    out
}

/// 2: the key names the leaf at the same list depth; 1: at another depth; 0: not at all.
fn fit(w: &Want, h: &Have) -> u8 {
    let in_leaf = |k: &String| h.leaf.iter().any(|l| close(k, l));
    let named = w.words.iter().any(in_leaf)
        && w.words
            .iter()
            .all(|k| in_leaf(k) || h.owner.iter().any(|o| close(k, o)));
    match (named, w.depth == h.depth) {
        (false, _) => 0,
        (true, true) => 2,
        (true, false) => 1,
    }
}

/// A key names a field holding objects when the words of one hold the other's
/// (`mirrorRepositories` ↔ `repositories`, `attachments` ↔ `attachments`).
pub(crate) fn names_object(w: &Want, field: &str) -> bool {
    let f = words(field);
    let within = |a: &[String], b: &[String]| a.iter().all(|x| b.iter().any(|y| close(x, y)));
    !f.is_empty() && (within(&f, &w.words) || within(&w.words, &f))
}

/// A leaf key names an object field it reads a leaf of when the field's words are all
/// words of the key (`authorLogin` ↔ `author`, `state` ↔ `state`, `issueCount` ↔
/// `issues`): the key sits at `depth` lists down.
pub(crate) fn reads_through(w: &Want, field: &str, depth: usize) -> bool {
    let f = words(field);
    w.depth == depth && !f.is_empty() && f.iter().all(|x| w.words.iter().any(|y| close(x, y)))
}

/// A leaf whose words are all words of a key at its depth, the key saying more
/// (`durationSeconds` ↔ `duration`, `headPipelineStatus` ↔ `status`): a weaker match than
/// [`fit`], taken after it.
fn within_key(w: &Want, leaf: &[String], depth: usize) -> bool {
    w.depth == depth && !leaf.is_empty() && leaf.iter().all(|l| w.words.iter().any(|k| close(k, l)))
}

/// The leaves among `leaves` (of an object path `list_depth` lists down whose last field
/// is `owner`) that an answer key names at that depth: those [`fit`] names, in the order
/// of `leaves`, then those whose words a key holds ([`within_key`]).
pub(crate) fn named_leaves(
    wants: &[Want],
    leaves: &[String],
    owner: &str,
    list_depth: usize,
) -> Vec<String> {
    let owner = words(owner);
    let haves: Vec<Have> = leaves
        .iter()
        .map(|l| Have {
            path: l.clone(),
            leaf: words(l),
            owner: owner.clone(),
            depth: list_depth,
        })
        .collect();
    let mut named: Vec<String> = haves
        .iter()
        .filter(|h| wants.iter().any(|w| fit(w, h) == 2))
        .map(|h| h.path.clone())
        .collect();
    for h in &haves {
        if !named.contains(&h.path) && wants.iter().any(|w| within_key(w, &h.leaf, list_depth)) {
            named.push(h.path.clone());
        }
    }
    named
}

impl TypedToolSet {
    /// Put the tools whose offered leaves fit more of `answer`'s keys first (ties keep the
    /// ranked order). Does nothing for an answer schema without keys.
    pub fn fit_answer(&mut self, answer: &Value) {
        let want = wants(answer);
        if want.is_empty() {
            return;
        }
        let score = |t: &TypedTool| -> u32 {
            let have = haves(t);
            want.iter()
                .map(|w| have.iter().map(|h| fit(w, h)).max().unwrap_or(0) as u32)
                .sum()
        };
        let mut scored: Vec<(u32, usize, TypedTool)> = std::mem::take(&mut self.tools)
            .into_iter()
            .enumerate()
            .map(|(i, t)| (score(&t), i, t))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.tools = scored.into_iter().map(|(_, _, t)| t).collect();
    }

    /// The fields on `tool`'s offered paths that the answer's object keys name, word for
    /// word and at their list depth, at most three: what the menu says a tool has (`viewer` has
    /// `assignedIssues` for an answer listing `assignedIssues`). The items of a tool that
    /// reads a list are not counted (its own list is not something it has).
    pub fn answer_fields(&self, tool: &str, answer: &Value) -> Vec<String> {
        let Some(t) = self.get(tool) else {
            return Vec::new();
        };
        let objects = object_wants(answer);
        let mut out: Vec<String> = Vec::new();
        for p in &t.paths {
            let Ok(path) = FieldPath::parse(p) else {
                continue;
            };
            let skip = usize::from(t.many && path.steps.first().is_some_and(|s| s.list));
            for (i, s) in path.steps.iter().enumerate().skip(skip) {
                // The list depth of the objects the step holds: its own items when it is a
                // list, else those of the list step right after it (a connection's items).
                let lists = path.steps[..=i].iter().filter(|s| s.list).count();
                let next = path.steps.get(i + 1).is_some_and(|n| n.list) && !s.list;
                let depth = lists + usize::from(next);
                let f = words(&s.field);
                let named = objects.iter().any(|w| {
                    w.depth == depth
                        && w.words.len() == f.len()
                        && w.words.iter().all(|k| f.iter().any(|x| close(k, x)))
                });
                if named && !out.contains(&s.field) && out.len() < 3 {
                    out.push(s.field.clone());
                }
            }
        }
        out
    }

    /// The offered paths of `tool` that hold the keys of `answer` the `chosen` paths do
    /// not: for each such key, the first path that names it at its depth (else at any).
    pub fn answer_paths(&self, tool: &str, answer: &Value, chosen: &[String]) -> Vec<String> {
        let Some(t) = self.get(tool) else {
            return Vec::new();
        };
        let have = haves(t);
        let mut out: Vec<String> = Vec::new();
        for w in wants(answer) {
            let best = |among: &mut dyn Iterator<Item = &Have>| -> u8 {
                among.map(|h| fit(&w, h)).max().unwrap_or(0)
            };
            let got = best(
                &mut have
                    .iter()
                    .filter(|h| chosen.contains(&h.path) || out.contains(&h.path)),
            );
            let can = best(&mut have.iter());
            if can == 0 || got >= can {
                continue;
            }
            // Of the equal fits, the leaf that says least beside the key (`currencyCode`,
            // not `moneyWithCurrencyFormat`, for `currency`).
            let extra = |h: &Have| {
                h.leaf
                    .iter()
                    .filter(|l| !w.words.iter().any(|k| close(k, l)))
                    .count()
            };
            if let Some(h) = have
                .iter()
                .filter(|h| fit(&w, h) == can)
                .min_by_key(|h| extra(h))
            {
                if out.len() < MAX_ADDED {
                    out.push(h.path.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answer_keys_with_their_list_depth() {
        let w = wants(&json!({"type": "object", "properties": {
            "count": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "issueId": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}}}}}}));
        let got: Vec<(String, usize)> = w.iter().map(|w| (w.words.join(" "), w.depth)).collect();
        assert!(got.contains(&("count".into(), 0)), "{got:?}");
        assert!(got.contains(&("issue id".into(), 1)), "{got:?}");
        assert!(got.contains(&("tags".into(), 2)), "{got:?}");
    }

    #[test]
    fn object_keys_and_the_fields_they_name() {
        let o = object_wants(&json!({"type": "object", "properties": {
            "mirrorRepositories": {"type": "array", "items": {"type": "object", "properties": {
                "state": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
            "count": {"type": "integer"}}}));
        let got: Vec<(String, usize)> = o.iter().map(|w| (w.words.join(" "), w.depth)).collect();
        assert_eq!(
            got,
            [("mirror repositories".into(), 1), ("state".into(), 1)]
        );
        assert!(names_object(&o[0], "repositories"));
        assert!(!names_object(&o[0], "mirrorUrl"));
        let author = Want {
            words: words("authorLogin"),
            depth: 1,
        };
        assert!(reads_through(&author, "author", 1));
        assert!(!reads_through(&author, "author", 0), "another list depth");
        assert!(!reads_through(&author, "authorAssociation", 1));
    }

    #[test]
    fn a_key_names_a_leaf_through_its_owner() {
        let w = Want {
            words: words("issueId"),
            depth: 1,
        };
        let h = |leaf: &str, owner: &str, depth| Have {
            path: String::new(),
            leaf: words(leaf),
            owner: words(owner),
            depth,
        };
        assert_eq!(fit(&w, &h("id", "issue", 1)), 2);
        assert_eq!(fit(&w, &h("id", "issue", 0)), 1);
        assert_eq!(fit(&w, &h("id", "customer", 1)), 0);
        assert_eq!(
            fit(&w, &h("issue", "need", 1)),
            0,
            "every key word must be named"
        );
        let total = Want {
            words: words("totalComments"),
            depth: 1,
        };
        assert_eq!(fit(&total, &h("totalCommentsCount", "nodes", 1)), 2);
    }

    #[test]
    fn a_key_that_says_more_names_a_leaf_after_the_exact_ones() {
        let wants = vec![
            Want {
                words: words("durationSeconds"),
                depth: 0,
            },
            Want {
                words: words("pipelineStatus"),
                depth: 0,
            },
        ];
        let leaves: Vec<String> = ["title", "duration", "queuedDuration", "status", "id"]
            .map(String::from)
            .to_vec();
        // `status` is named whole (its owner `pipeline` holds the other word), `duration`
        // only within a longer key; `queuedDuration` says a word no key says.
        assert_eq!(
            named_leaves(&wants, &leaves, "pipeline", 0),
            ["status", "duration"]
        );
        assert!(
            named_leaves(&wants, &leaves, "pipeline", 1).is_empty(),
            "another list depth"
        );
    }

    #[test]
    fn a_call_is_completed_with_the_leaf_that_says_least_beside_the_key() {
        let tool = TypedTool {
            name: "shop".into(),
            coordinate: "Query.shop".into(),
            description: String::new(),
            returns: "Shop".into(),
            item: "Shop".into(),
            many: false,
            args: Vec::new(),
            paths: ["primaryDomain", "currencyFormats", "name", "currencyCode"]
                .map(String::from)
                .to_vec(),
            selects: [
                ("primaryDomain".to_string(), vec!["host".to_string()]),
                (
                    "currencyFormats".to_string(),
                    vec!["moneyWithCurrencyFormat".to_string()],
                ),
            ]
            .into_iter()
            .collect(),
        };
        let set = TypedToolSet {
            root_type: "Query".into(),
            tools: vec![tool],
            defs: Default::default(),
            cut: Vec::new(),
        };
        let answer = json!({"type": "object", "properties": {
            "name": {"type": "string"}, "currency": {"type": "string"}}});
        assert_eq!(
            set.answer_paths("shop", &answer, &["primaryDomain".to_string()]),
            ["currencyCode", "name"],
            "both leaves hold `currency`; `currencyCode` says one word more, not three"
        );
    }
}
