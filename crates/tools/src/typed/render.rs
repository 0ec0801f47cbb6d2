//! What a small model reads: the typed tools as a few lines each, and a result's data
//! as compact JSON with wrapper chains folded into dotted keys and long lists cut.

use serde_json::{json, Map, Value};

use super::{TypedArg, TypedToolSet};

/// Most enum values written out in a tool's description.
const ENUM_VALUES_SHOWN: usize = 12;
/// Most input-object fields named in a tool's description.
const INPUT_FIELDS_SHOWN: usize = 10;

impl TypedToolSet {
    /// A JSON-Schema value as a short type: `IssueState (OPEN|CLOSED)`, `[String]`,
    /// `IssueOrder {field, direction}`.
    fn short_type(&self, a: &TypedArg) -> String {
        let mut s = a.ty.clone();
        let named =
            a.ty.trim_matches(|c| c == '[' || c == ']' || c == '!')
                .to_string();
        // An enum argument restricted to the values the question says carries them itself.
        let own = a
            .schema
            .get("enum")
            .or_else(|| a.schema.get("items").and_then(|i| i.get("enum")))
            .map(|e| json!({ "enum": e }));
        if let Some(d) = own.as_ref().or_else(|| self.defs.get(&named)) {
            if let Some(vals) = d["enum"].as_array() {
                let shown: Vec<&str> = vals
                    .iter()
                    .filter_map(Value::as_str)
                    .take(ENUM_VALUES_SHOWN)
                    .collect();
                let more = vals.len().saturating_sub(shown.len());
                s.push_str(&format!(
                    " ({}{})",
                    shown.join("|"),
                    if more > 0 {
                        format!("|… +{more}")
                    } else {
                        String::new()
                    }
                ));
            } else if let Some(props) = d["properties"].as_object() {
                let names: Vec<&str> = props
                    .keys()
                    .map(String::as_str)
                    .take(INPUT_FIELDS_SHOWN)
                    .collect();
                let more = props.len().saturating_sub(names.len());
                s.push_str(&format!(
                    " {{{}{}}}",
                    names.join(", "),
                    if more > 0 {
                        format!(", … +{more}")
                    } else {
                        String::new()
                    }
                ));
            }
        }
        s
    }

    /// The tools as a short menu, a line each: the name, what it reads (one or a list
    /// of), its description, the arguments it needs. What a model chooses a tool from
    /// before it reads that tool's arguments and fields.
    pub fn menu(&self) -> String {
        self.menu_for(None)
    }

    /// [`TypedToolSet::menu`] for a task with an answer schema: each line also says the
    /// fields through which the tool holds the answer's keys
    /// ([`TypedToolSet::answer_fields`]: `has assignedIssues`).
    pub fn menu_for(&self, answer: Option<&serde_json::Value>) -> String {
        let mut out = String::new();
        for t in &self.tools {
            let first = t.description.split(". ").next().unwrap_or(&t.description);
            let desc: String = first.trim_end_matches('.').chars().take(120).collect();
            let reads = if t.many {
                format!("a list of {}", t.item)
            } else {
                format!("one {}", t.item)
            };
            let mut needs: Vec<String> = t
                .args
                .iter()
                .filter(|a| a.required && a.at.is_empty())
                .map(|a| a.key.clone())
                .collect();
            // A root lookup needs one of its alternatives (`id or slug`).
            let one_of: Vec<&str> = t
                .args
                .iter()
                .filter(|a| a.alternative && a.at.is_empty())
                .map(|a| a.key.as_str())
                .collect();
            if !one_of.is_empty() {
                needs.push(one_of.join(" or "));
            }
            let needs = if needs.is_empty() {
                String::new()
            } else {
                format!("; needs {}", needs.join(", "))
            };
            let has = answer
                .map(|a| self.answer_fields(&t.name, a))
                .filter(|f| !f.is_empty())
                .map(|f| format!("; has {}", f.join(", ")))
                .unwrap_or_default();
            out.push_str(&format!(
                "- {}: {desc} (reads {reads}{needs}{has})\n",
                t.name
            ));
        }
        out
    }

    /// The tools as the model reads them: per tool its description, arguments (required
    /// ones marked) and field paths.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for t in &self.tools {
            let first = t.description.split(". ").next().unwrap_or(&t.description);
            let desc: String = first.trim_end_matches('.').chars().take(120).collect();
            out.push_str(&format!("## {}: {desc}\n", t.name));
            let args: Vec<String> = t
                .args
                .iter()
                .map(|a| {
                    format!(
                        "{}: {}{}{}",
                        a.key,
                        self.short_type(a),
                        if a.required && a.at.is_empty() {
                            " (required)"
                        } else {
                            ""
                        },
                        alternative_note(a)
                    )
                })
                .collect();
            if !args.is_empty() {
                out.push_str(&format!("arguments: {}\n", args.join("; ")));
            }
            if !t.paths.is_empty() {
                let shown: Vec<String> = t
                    .paths
                    .iter()
                    .map(|p| match t.selects.get(p) {
                        Some(l) => format!("{p} {{{}}}", l.join(" ")),
                        None => p.clone(),
                    })
                    .collect();
                out.push_str(&format!("fields: {}\n", shown.join(", ")));
            }
        }
        out
    }
}

/// A lookup's alternative says what value it takes, from its description (` (IID of the
/// Pipeline. For example, "1")`, at most 100 characters): the call names the thing by a
/// value, and the alternatives' names alone do not say which one a value is. The 1.5B
/// model still took the first (`pipeline.id` for "pipeline #98231") with these shown
/// (docs/agent.md); a larger model can read them.
fn alternative_note(a: &super::TypedArg) -> String {
    let described = a.schema.get("description").and_then(|d| d.as_str());
    let Some(d) = described.filter(|_| a.alternative) else {
        return String::new();
    };
    let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    if d.is_empty() {
        return String::new();
    }
    let mut short: String = d.chars().take(100).collect();
    if short.len() < d.len() {
        short.push('…');
    }
    format!(" ({})", short.trim_end_matches('.'))
}

/// Fold chains of one-key objects into dotted keys, drop `__typename`, cut lists after
/// `max_items` (with a note of how many more there were).
fn compact(v: &Value, max_items: usize) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, x) in m {
                if k == "__typename" && m.len() > 1 {
                    continue;
                }
                let (mut key, mut cur) = (k.clone(), x);
                while let Value::Object(inner) = cur {
                    let kept: Vec<(&String, &Value)> =
                        inner.iter().filter(|(ik, _)| *ik != "__typename").collect();
                    if kept.len() != 1 {
                        break;
                    }
                    key = format!("{key}.{}", kept[0].0);
                    cur = kept[0].1;
                }
                out.insert(key, compact(cur, max_items));
            }
            Value::Object(out)
        }
        Value::Array(a) => {
            let mut items: Vec<Value> = a
                .iter()
                .take(max_items)
                .map(|x| compact(x, max_items))
                .collect();
            if a.len() > max_items {
                items.push(Value::String(format!("… {} more", a.len() - max_items)));
            }
            Value::Array(items)
        }
        other => other.clone(),
    }
}

/// A result's `data` as one compact JSON text.
pub fn render_data(data: &Value, max_items: usize) -> String {
    let c = compact(data, max_items.max(1));
    serde_json::to_string(&c).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrappers_fold_and_lists_are_cut() {
        let d = json!({"repository": {"defaultBranchRef": {"target": {"__typename": "Commit", "history": {"nodes": [{"message": "a"}, {"message": "b"}, {"message": "c"}]}}}}});
        assert_eq!(
            render_data(&d, 2),
            r#"{"repository.defaultBranchRef.target.history.nodes":[{"message":"a"},{"message":"b"},"… 1 more"]}"#
        );
        let two = json!({"repository": {"name": "x", "stars": 3}});
        assert_eq!(
            render_data(&two, 5),
            r#"{"repository":{"name":"x","stars":3}}"#
        );
    }
}
