//! One-line fixes for the mistakes small models make most with the navigation tools
//! (docs/agent.md, failure classes): an operation sent as a search query, a name used
//! that no tool ever showed, and a failing call repeated while the operation the search
//! showed sat unused.

use serde_json::{json, Map, Value};

/// A search query that is a GraphQL operation, not plain words: the fix, in one line.
pub fn operation_as_search(query: &str) -> Option<String> {
    let q = query.trim();
    // A selection set is what no plain-words search has: braces around names.
    let looks = q.contains('{') && q.contains('}');
    looks.then(|| {
        "search_schema takes a few plain words (e.g. \"stars of a repository\"), not an operation: to run an operation, call execute with it.".to_string()
    })
}

/// The names an operation sent as a search query uses, as plain words for a search
/// (`query Q($owner: String!) { repository(owner: $owner) { checkSuites { nodes } } }` →
/// "repository owner check suites"): keywords, variables, type names after `:` or `on`,
/// and connection plumbing left out; at most eight words, each once.
pub fn names_of_operation(query: &str) -> String {
    const SKIP: [&str; 12] = [
        "query",
        "mutation",
        "subscription",
        "fragment",
        "on",
        "first",
        "last",
        "after",
        "before",
        "nodes",
        "edges",
        "node",
    ];
    let mut out: Vec<String> = Vec::new();
    let mut prev = ' ';
    let mut cur = String::new();
    let flush = |name: &mut String, before: char, out: &mut Vec<String>| {
        let skip = name.is_empty()
            || before == '$'
            || before == ':'
            || name.starts_with(char::is_uppercase)
            || SKIP.contains(&name.as_str());
        if !skip {
            for w in gqlnav_tools::name_words(name) {
                if w.len() >= 3 && !out.contains(&w) && out.len() < 8 {
                    out.push(w);
                }
            }
        }
        name.clear();
    };
    let mut before = ' ';
    for c in query.chars() {
        if c.is_alphanumeric() || c == '_' {
            if cur.is_empty() {
                before = prev;
            }
            cur.push(c);
        } else {
            flush(&mut cur, before, &mut out);
            if !c.is_whitespace() {
                prev = c;
            }
        }
    }
    flush(&mut cur, before, &mut out);
    out.join(" ")
}

/// An operation written inside a call of the tool (`execute(operation: "query { … }")`,
/// as small models write it): the quoted operation, unescaped; anything else as it is.
pub fn unwrap_call(operation: &str) -> String {
    let t = operation.trim();
    let inner = t
        .split_once('(')
        .filter(|(head, _)| matches!(head.trim(), "execute" | "validate"))
        .and_then(|(_, rest)| rest.trim_start().strip_prefix("operation"))
        .and_then(|rest| rest.trim_start().strip_prefix(':'))
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix('"'))
        .and_then(|rest| rest.rfind('"').map(|end| &rest[..end]));
    match inner {
        Some(q) => q.replace("\\n", "\n").replace("\\\"", "\""),
        None => operation.to_string(),
    }
}

/// The coordinates a failed introspect or validate/execute named that do not exist
/// (from the tools' structured errors).
fn unknown_coordinates(structured: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for u in structured["unknown"].as_array().into_iter().flatten() {
        if let Some(c) = u["coordinate"].as_str() {
            out.push(c.to_string());
        }
    }
    for e in structured["errors"].as_array().into_iter().flatten() {
        let msg = e["message"].as_str().unwrap_or_default();
        // type `T` does not have a field `f`
        if msg.contains("does not have a field") {
            let ticks: Vec<&str> = msg.split('`').skip(1).step_by(2).collect();
            if ticks.len() >= 2 {
                out.push(format!("{}.{}", ticks[0], ticks[1]));
            }
        }
    }
    out
}

/// When a tool failed on a name that no earlier result (`shown`) contained: one line
/// saying where names come from, put before the tool's own message.
pub fn never_shown(structured: Option<&Value>, shown: &str) -> Option<String> {
    let coords = unknown_coordinates(structured?);
    let invented: Vec<&String> = coords
        .iter()
        .filter(|c| {
            let field = c.rsplit('.').next().unwrap_or(c);
            !shown.contains(c.as_str()) && !shown.contains(field)
        })
        .collect();
    let first = invented.first()?;
    let (owner, field) = first.split_once('.').unwrap_or(("", first));
    Some(if owner.is_empty() {
        format!("`{first}` was never shown by a tool: names come from search_schema and introspect results, so search_schema for it in plain words first.")
    } else {
        format!("`{first}` was never shown by a tool and does not exist: introspect {owner} to see its real fields, or search_schema \"{field} of {owner}\" in plain words.")
    })
}

/// The variables an operation declares, in order: `query Q($owner: String!, $n: Int)` →
/// `[("owner", "String!"), ("n", "Int")]`.
fn declared_variables(operation: &str) -> Vec<(String, String)> {
    let Some(open) = operation.find('(') else {
        return Vec::new();
    };
    let head_end = operation.find('{').unwrap_or(operation.len());
    if open > head_end {
        return Vec::new();
    }
    let close = operation[open..].find(')').map_or(head_end, |c| open + c);
    operation[open + 1..close]
        .split(',')
        .filter_map(|d| {
            let (name, ty) = d.trim().strip_prefix('$')?.split_once(':')?;
            Some((name.trim().to_string(), ty.trim().to_string()))
        })
        .collect()
}

/// Two `String!`/`ID!` variables of `declared` where one value is the other's joined to a
/// remainder (`owner: "octocat", name: "octocat/example"`): the longer becomes the
/// remainder (`name: "example"`), as the typed writer reads a lookup's arguments
/// ([`gqlnav_tools::composed_remainder`]). Says what it read, one line each.
fn split_composed(declared: &[(String, String)], vars: &mut Map<String, Value>) -> Vec<String> {
    let strings: Vec<&String> = declared
        .iter()
        .filter(|(_, t)| matches!(t.as_str(), "String!" | "ID!"))
        .map(|(n, _)| n)
        .collect();
    let mut said = Vec::new();
    for a in &strings {
        for b in &strings {
            let (Some(va), Some(vb)) = (
                vars.get(*a).and_then(Value::as_str),
                vars.get(*b).and_then(Value::as_str),
            ) else {
                continue;
            };
            let rest = gqlnav_tools::composed_remainder(va, vb)
                .filter(|_| a != b)
                .map(str::to_string);
            if let Some(rest) = rest {
                said.push(format!(
                    "(variable `{a}` \"{va}\" read as \"{rest}\": it repeats `{b}` \"{vb}\")"
                ));
                vars.insert((*a).clone(), Value::String(rest));
            }
        }
    }
    said
}

/// An execute call's variables with a composed identifier split ([`split_composed`]):
/// the 1.5B model copied `octocat/example` into `name` beside `owner: "octocat"` in the
/// call gqlnav handed it to copy (docs/agent.md). `None`: nothing to split.
pub fn split_variables(arguments: &Value) -> Option<(Value, Vec<String>)> {
    let operation = arguments.get("operation")?.as_str()?;
    let mut vars = arguments.get("variables")?.as_object()?.clone();
    let said = split_composed(&declared_variables(operation), &mut vars);
    if said.is_empty() {
        return None;
    }
    let mut out = arguments.clone();
    out["variables"] = Value::Object(vars);
    Some((out, said))
}

/// A call to run `example` (the operation search_schema showed), as the JSON a model
/// replies with: its variables taken from `given` (what the model passed to its own
/// failing call) where it names them, a composed identifier copied into two string
/// variables split (`owner: "octocat", name: "octocat/example"` → `name: "example"`);
/// one it did not give is `"<name>"`, and the line says to replace it with the value
/// from the question.
pub fn run_example(example: &str, given: Option<&Value>) -> String {
    let declared = declared_variables(example);
    let given = given.and_then(Value::as_object);
    let mut vars = Map::new();
    let mut missing = false;
    for (name, _) in &declared {
        match given.and_then(|g| g.get(name)) {
            Some(v) => {
                vars.insert(name.clone(), v.clone());
            }
            None => {
                missing = true;
                vars.insert(name.clone(), Value::String(format!("<{name}>")));
            }
        }
    }
    split_composed(&declared, &mut vars);
    let call = json!({"name": "execute", "arguments": {"operation": example, "variables": vars}});
    let fill = if missing {
        " (in the call below, replace each \"<…>\" with its value from the question)"
    } else {
        ""
    };
    format!("The operation search_schema showed reads what it found{fill}. To run it, reply with: {call}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_executed_composed_identifier_is_split_and_said() {
        let op = "query Q($name: String!, $owner: String!, $n: Int) { repository(name: $name, owner: $owner) { id } }";
        let args = json!({"operation": op, "variables": {"name": "octocat/example", "owner": "octocat", "n": 1}});
        let (out, said) = split_variables(&args).expect("split");
        assert_eq!(out["variables"]["name"], "example");
        assert_eq!(out["variables"]["owner"], "octocat");
        assert_eq!(out["operation"], op);
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("read as \"example\""), "{said:?}");
        // Nothing to split: untouched.
        let plain = json!({"operation": op, "variables": {"name": "example", "owner": "octocat"}});
        assert!(split_variables(&plain).is_none());
        // An optional variable is not a lookup's part.
        let opt = "query Q($a: String, $b: String!) { x(a: $a, b: $b) }";
        let loose = json!({"operation": opt, "variables": {"a": "o/e", "b": "o"}});
        assert!(split_variables(&loose).is_none());
    }

    #[test]
    fn a_failing_call_is_answered_with_the_example_to_run() {
        let op = "query Typed($name: String!, $owner: String!) { repository(name: $name, owner: $owner) { object { ... on Commit { additions } } } }";
        let line = run_example(
            op,
            Some(&json!({"name": "octocat/example", "owner": "octocat", "x": 1})),
        );
        let call: Value =
            serde_json::from_str(line.split("reply with: ").nth(1).unwrap_or_default())
                .expect("the call is JSON a model can copy");
        assert_eq!(call["name"], "execute");
        assert_eq!(call["arguments"]["operation"], op);
        assert_eq!(
            call["arguments"]["variables"],
            json!({"name": "example", "owner": "octocat"}),
            "the composed name is split; a variable the operation does not declare is dropped"
        );
        assert!(!line.contains("replace each"), "{line}");
        let blank = run_example(op, Some(&json!({"login": "x"})));
        assert!(blank.contains("replace each"), "{blank}");
        assert!(blank.contains(r#""owner":"<owner>""#), "{blank}");
        let bare = run_example("{ viewer { login } }", None);
        assert!(
            bare.contains("\"variables\":{}") && !bare.contains("replace each"),
            "{bare}"
        );
    }

    #[test]
    fn operations_sent_as_searches_are_caught_and_plain_words_are_not() {
        assert!(operation_as_search("query { repository(owner: \"a\") { name } }").is_some());
        assert!(operation_as_search("{ viewer { login } }").is_some());
        assert!(operation_as_search("repository { stargazerCount }").is_some());
        assert!(operation_as_search("stars of a repository").is_none());
        assert!(operation_as_search("query cost limits").is_none());
    }

    #[test]
    fn an_operation_sent_as_a_search_is_read_for_its_names() {
        let q = "query CheckSuites($owner: String!, $repo: String!) {\n  repository(owner: $owner, name: $repo) {\n    object(expression: \"HEAD\") { ... on Commit { checkSuites(first: 10) { nodes { conclusion } } } }\n  }\n}";
        assert_eq!(
            names_of_operation(q),
            "repository owner name object expression check suites conclusion"
        );
        assert_eq!(names_of_operation("{ }"), "");
    }

    #[test]
    fn an_operation_wrapped_in_the_tools_call_is_unwrapped() {
        assert_eq!(
            unwrap_call("execute(operation: \"query { viewer { login } }\")"),
            "query { viewer { login } }"
        );
        assert_eq!(
            unwrap_call("validate(operation: \"query {\\n  a(x: \\\"y\\\")\\n}\")"),
            "query {\n  a(x: \"y\")\n}"
        );
        assert_eq!(unwrap_call("query { a }"), "query { a }");
        assert_eq!(unwrap_call("execute"), "execute");
    }

    #[test]
    fn an_invented_coordinate_gets_one_line_and_a_shown_one_does_not() {
        let err =
            json!({"errors": [{"message": "type `PullRequest` does not have a field `nodes`"}]});
        let line = never_shown(Some(&err), "Query.repository: Repository").expect("invented");
        assert!(
            line.contains("`PullRequest.nodes`") && line.contains("introspect PullRequest"),
            "{line}"
        );
        assert!(!line.contains('\n'));
        assert!(never_shown(Some(&err), "PullRequestConnection.nodes …").is_none());
        let unknown = json!({"unknown": [{"coordinate": "Issue.assignee"}]});
        assert!(never_shown(Some(&unknown), "").is_some());
        assert!(never_shown(None, "").is_none());
    }
}
