//! First-person questions and the current caller's root fields, from the question's
//! grammar and schema facts only (no names of any API).

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{RootKind, SchemaGraph};

use crate::structure::unwrap_connection;

/// Whether a question is asked in the first person ("my repositories", "what am I
/// assigned", "assigned to me"). The words are English grammar (singular first-person
/// pronouns); "me" right after a request verb ("show me", "give me") is politeness and
/// does not count.
pub fn first_person(question: &str) -> bool {
    let words: Vec<String> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    words.iter().enumerate().any(|(i, w)| match w.as_str() {
        "i" | "my" | "mine" | "myself" | "i'm" | "i've" | "i'd" | "i'll" => true,
        "me" => {
            !(i > 0
                && matches!(
                    words[i - 1].as_str(),
                    "show"
                        | "give"
                        | "tell"
                        | "let"
                        | "help"
                        | "get"
                        | "find"
                        | "fetch"
                        | "list"
                        | "send"
                        | "bring"
                ))
        }
        _ => false,
    })
}

/// Query-root fields that stand for "the current caller", with the type each returns:
/// no arguments at all, one object (not a list, not a connection, not the root itself),
/// not deprecated. In most APIs these are the signed-in user or account.
pub fn caller_roots(graph: &SchemaGraph) -> Vec<(String, String)> {
    let Some(root) = graph.root(RootKind::Query) else {
        return Vec::new();
    };
    let Some(ExtendedType::Object(q)) = graph.schema.types.get(root) else {
        return Vec::new();
    };
    q.fields
        .iter()
        .filter(|(_, f)| {
            let t = f.ty.inner_named_type().as_str();
            f.arguments.is_empty()
                && !f.ty.is_list()
                && f.directives.get("deprecated").is_none()
                && matches!(graph.schema.types.get(t), Some(ExtendedType::Object(_)))
                && t != root
                && unwrap_connection(graph, t).is_none()
        })
        .map(|(n, f)| (format!("{root}.{n}"), f.ty.inner_named_type().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::first_person;

    #[test]
    fn first_person_is_read_from_pronouns_not_from_requests() {
        for q in [
            "my assigned issues",
            "What issues are currently assigned to me?",
            "Which teams am I a member of?",
            "What's my email address",
            "repositories I’ve starred",
        ] {
            assert!(first_person(q), "{q}");
        }
        for q in [
            "Show me the commit history of the main branch",
            "Give me a snapshot of the organization",
            "mean time to merge",
            "Tell me the latest release",
        ] {
            assert!(!first_person(q), "{q}");
        }
    }
}
