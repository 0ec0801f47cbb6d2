//! First-person questions and the current caller's root fields, from the question's
//! grammar and schema facts only (no names of any API).

use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::{RootKind, SchemaGraph};

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

/// Whether a question addresses the current caller: in the first person
/// ([`first_person`]), or in the schema's own words for one of its caller root fields
/// ([`caller_roots`]): two consecutive words of the field's description, neither a stop
/// word nor a word of the field's name, one of them naming the field's type ("the
/// authenticated user" against `viewer: User`, "The currently authenticated user.").
/// Words of the name only restate what the field returns (`latestReleaseByAccessKey`,
/// "Returns the latest release …", is not about the caller); the name itself as a word
/// ("the viewer") lowered Linear with the local model (recall@50 0.8047 -> 0.8034).
/// For readers (the ranker's `person` channel and the search page's ways in); slices
/// keep [`first_person`] (measured 2026-12-04: with this rule, budgeted slices lost a
/// question each on github and linear at 2,000 tokens; docs/archive/history.md).
pub fn addresses_caller(graph: &SchemaGraph, question: &str) -> bool {
    addresses_caller_in(&caller_phrases(graph), question)
}

/// [`addresses_caller`] with the schema's [`caller_phrases`] read once beforehand (a
/// ranker reads them when it indexes, not on every question).
pub fn addresses_caller_in(phrases: &[[String; 2]], question: &str) -> bool {
    if first_person(question) {
        return true;
    }
    let words = plain_words(question);
    phrases
        .iter()
        .any(|p| words.windows(2).any(|w| w[0] == p[0] && w[1] == p[1]))
}

/// The word pairs of the caller root fields' descriptions ([`caller_roots`]) that say
/// "the current caller" ([`addresses_caller`]'s rule): consecutive, neither a stop word
/// nor a word of the field's name, one of them naming the field's type.
pub fn caller_phrases(graph: &SchemaGraph) -> Vec<[String; 2]> {
    let Some(ExtendedType::Object(q)) = graph
        .root(RootKind::Query)
        .and_then(|r| graph.schema.types.get(r))
    else {
        return Vec::new();
    };
    let content = |w: &str| !crate::Analyzer::Identifier.query_terms(w).is_empty();
    let mut out = Vec::new();
    for (coord, ty) in caller_roots(graph) {
        let type_words = crate::Analyzer::Identifier.index_terms(&ty);
        let typed = |w: &str| {
            crate::Analyzer::Identifier
                .index_terms(w)
                .iter()
                .any(|t| type_words.contains(t))
        };
        let field = coord.rsplit('.').next().unwrap_or("");
        let name_words = crate::Analyzer::Identifier.index_terms(field);
        let unnamed = |w: &str| {
            !crate::Analyzer::Identifier
                .index_terms(w)
                .iter()
                .any(|t| name_words.contains(t))
        };
        let Some(desc) = q.fields.get(field).and_then(|f| f.description.as_ref()) else {
            continue;
        };
        let d = plain_words(desc);
        for p in d.windows(2) {
            if content(&p[0])
                && content(&p[1])
                && (typed(&p[0]) || typed(&p[1]))
                && unnamed(&p[0])
                && unnamed(&p[1])
            {
                out.push([p[0].clone(), p[1].clone()]);
            }
        }
    }
    out
}

/// A text's words, lower-cased, split on anything but letters, digits and apostrophes.
fn plain_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect()
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
                && graph.wrapped_type(t).is_none()
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
