//! What a question says by value: a quoted span, an identifier, a number (`#4521`), and
//! the root field or argument it names right before one. The typed menu narrows by these,
//! and a lookup's alternatives are ordered by them.

use std::collections::BTreeMap;

use super::TypedArg;

/// The question names a thing by a value: a double-quoted span, a single-quoted word
/// (`'issue-eng-1023'`, not an apostrophe), `#` and a number (`#4521`), or a word that
/// reads as an identifier ([`identifier_like`]: `octocat/example`, `ENG-902`).
pub(super) fn names_a_value(question: &str) -> bool {
    if question.split_whitespace().any(identifier_like) {
        return true;
    }
    let parts: Vec<&str> = question.split('"').collect();
    if parts.len() >= 3
        && parts
            .iter()
            .skip(1)
            .step_by(2)
            .take(parts.len() / 2)
            .any(|p| !p.trim().is_empty())
    {
        return true;
    }
    let chars: Vec<char> = question.chars().collect();
    let single = chars.iter().enumerate().any(|(i, &c)| {
        c == '\''
            && (i == 0 || chars[i - 1].is_whitespace())
            && chars[i + 1..]
                .iter()
                .position(|&d| d == '\'' || d.is_whitespace())
                .is_some_and(|j| {
                    let end = i + 1 + j;
                    j > 0
                        && chars[end] == '\''
                        && chars.get(end + 1).is_none_or(|n| !n.is_alphanumeric())
                })
    });
    let number = chars
        .windows(2)
        .any(|w| w[0] == '#' && w[1].is_ascii_digit());
    single || number
}

/// The root field among `roots` that a question names right before a value: the one or
/// two words before a value word ([`value_word`]), joined, equal to its name with case
/// aside ("for product \"UHJ…\"" → `product`, "draft order gid://…" → `draftOrder`, "issue
/// ENG-902" → `issue`); two words are tried first. Over the 328 bundled and held-out
/// questions with a gold operation, 33 name a root field this way and it is the gold root
/// in 29 (the others: `issue #77` read through its project, twice; `marketplace order
/// "…"` where the gold reads `nauticalOrder`, twice); in 12 of the 33 the ranked tools
/// did not hold it.
pub(super) fn named_root<'a>(
    question: &str,
    roots: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let roots: Vec<&str> = roots.collect();
    let find = |w: &str| roots.iter().copied().find(|r| r.eq_ignore_ascii_case(w));
    let letters = |w: &str| -> String { w.chars().filter(char::is_ascii_alphabetic).collect() };
    let words: Vec<&str> = question.split_whitespace().collect();
    for i in 1..words.len() {
        if !value_word(words[i]) {
            continue;
        }
        let last = letters(words[i - 1]);
        if last.is_empty() {
            continue;
        }
        let two = (i >= 2)
            .then(|| letters(words[i - 2]))
            .filter(|w| !w.is_empty())
            .and_then(|w| find(&format!("{w}{last}")));
        if let Some(r) = two.or_else(|| find(&last)) {
            return Some(r);
        }
    }
    None
}

/// A word that is a value: it opens a quote (`"summer-sale"`, `'issue-eng-1023'`), reads
/// as an identifier ([`identifier_like`]) or is `#` and a number.
fn value_word(w: &str) -> bool {
    let w = w.trim_start_matches('(');
    w.starts_with(['"', '\''])
        || identifier_like(w)
        || (w.starts_with('#') && w[1..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The question gives a value right after saying the name of one of `arguments` (a
/// lookup's): a word with a digit, `-` or `_` after the name ("the customer with ID
/// customer-globex", "(team ID: team-engineering)", "code WELCOME10"). Paging arguments
/// (`first 10`) are not a thing's name. Over the 328 bundled and held-out questions with
/// a gold operation, taking every root field's arguments: 4 more questions whose gold
/// reads one thing name a value this way, none that reads a list.
pub(super) fn gives_an_argument(question: &str, arguments: &[&str]) -> bool {
    const PAGING: [&str; 4] = ["first", "last", "after", "before"];
    let words: Vec<&str> = question
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    words.windows(2).any(|w| {
        arguments
            .iter()
            .any(|a| a.eq_ignore_ascii_case(w[0]) && !PAGING.contains(a))
            && w[1].contains(|c: char| c.is_ascii_digit() || c == '-' || c == '_')
    })
}

/// A word of a question that reads as an identifier, not prose: parts joined by `/`
/// where one part has four characters or more (`octocat/example`, `gid://shop/Order/4`;
/// not `CI/CD`, `and/or`), or letters and digits joined by `-`, `_` or `:` (`ENG-902`,
/// `team-1`; not `2025-01-01`, `built-in`). Measured over the 328 bundled and held-out
/// questions with a gold operation: of the 246 whose gold root field reads one thing,
/// 145 name a value with this rule (50 without it); of the 82 that read a list, it adds
/// none (8 by quotes alone).
fn identifier_like(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    let slash = w.contains('/')
        && w.split('/').filter(|p| !p.is_empty()).count() >= 2
        && w.split('/')
            .any(|p| p.chars().filter(|c| c.is_alphanumeric()).count() >= 4);
    let joined = w.contains(['-', '_', ':'])
        && w.chars().any(|c| c.is_ascii_digit())
        && w.chars().any(char::is_alphabetic);
    slash || joined
}

/// The values a question names: double- or single-quoted spans, identifier-like words
/// ([`identifier_like`]), and numbers (`#4521` → `4521`, `42`).
fn question_values(question: &str) -> Vec<String> {
    let mut out: Vec<String> = question
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
        .collect();
    for w in question.split_whitespace() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        let single =
            w.starts_with('\'') && w.trim_end_matches([',', '.', '?', ')']).ends_with('\'');
        if single
            || identifier_like(w)
            || bare.chars().all(|c| c.is_ascii_digit()) && !bare.is_empty()
        {
            out.push(bare.to_string());
        }
    }
    out
}

/// The shape of a value: each run of letters, digits, `-`, `_` and `.` as `9` (no
/// letter in it) or `a`, the other characters as they are (`gid://gitlab/Ci::Pipeline/314`
/// → `a://a/a::a/9`, `98231` → `9`, `gitlab-org/gitlab-foss` and `acme/web-app` → `a/a`).
fn shape(v: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if !run.is_empty() {
            out.push(if run.chars().any(char::is_alphabetic) {
                'a'
            } else {
                '9'
            });
            run.clear();
        }
    };
    for c in v.trim().chars() {
        if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The examples a description gives: its spans in double quotes or backticks, without
/// the quotes a backtick span holds; not a span with a space (prose, lists of values) nor
/// one that `names` says is a name (a type's, the argument's).
fn examples<'a>(description: &'a str, names: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for e in ['"', '`']
        .iter()
        .flat_map(|q| description.split(*q).skip(1).step_by(2))
        .map(|e| e.trim().trim_matches('"'))
    {
        if !e.is_empty() && !e.contains(char::is_whitespace) && !names(e) && !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// The other arguments of `field` that `a`'s description says it requires: names of
/// them quoted (in backquotes or double quotes) in a sentence that says "requir…"
/// (GitLab's `in`: "Defaults to `[TITLE, DESCRIPTION]`. Requires the `search` argument.").
pub(super) fn required_siblings(
    field: &apollo_compiler::ast::FieldDefinition,
    a: &apollo_compiler::ast::InputValueDefinition,
) -> Vec<String> {
    let Some(d) = a.description.as_deref() else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for sentence in d.split(['.', '\n', ';']) {
        if !sentence.to_lowercase().contains("requir") {
            continue;
        }
        for q in ['`', '"'] {
            for name in sentence.split(q).skip(1).step_by(2) {
                let name = name.trim();
                let sibling = field
                    .arguments
                    .iter()
                    .any(|b| b.name.as_str() == name && b.name != a.name);
                if sibling && !out.iter().any(|x| x == name) {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// The example values an argument's description gives, and those its custom scalar's
/// description gives (GitLab's `IssueID`: "An example `IssueID` is:
/// `\"gid://gitlab/Issue/1\"`."), read from whole descriptions (the tools show first
/// paragraphs). A built-in scalar's description is the spec's, not the schema's.
pub(super) fn argument_examples(
    schema: &apollo_compiler::Schema,
    a: &apollo_compiler::ast::InputValueDefinition,
) -> (Vec<String>, Vec<String>) {
    use apollo_compiler::schema::ExtendedType;
    let names = |e: &str| e == a.name.as_str() || schema.types.contains_key(e);
    let own = a
        .description
        .as_deref()
        .map(|d| examples(d, &names))
        .unwrap_or_default();
    let format = match schema.types.get(a.ty.inner_named_type()) {
        Some(ExtendedType::Scalar(s)) if !s.is_built_in() => s
            .description
            .as_deref()
            .map(|d| examples(d, &names))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    (owned(own), owned(format))
}

/// Whether the question could fill a tool's lookup: each required root argument, and one
/// of its root alternatives if it has any, either has a plain type or a custom scalar
/// whose description gives no example, or one whose example has the shape ([`shape`]) of
/// a value the question names, whole or as its last `/` part (`42` for
/// `gid://gitlab/Vulnerability/1`). "List the open issues labelled \"bug\" in acme/web-app"
/// cannot fill `issue(id: IssueID!)` (`gid://gitlab/Issue/1`), nor can "my pending to-do
/// items", which names no value. An argument's own examples only illustrate
/// (`fullPath`'s `gitlab-org/gitlab-foss` for "the acme group"), so they do not count.
pub(super) fn can_fill(args: &[TypedArg], question: &str) -> bool {
    let shapes: Vec<String> = question_values(question).iter().map(|v| shape(v)).collect();
    let fits = |e: &str| {
        shapes.contains(&shape(e))
            || e.rsplit_once('/')
                .is_some_and(|(_, last)| shapes.contains(&shape(last)))
    };
    let fills = |a: &TypedArg| a.format.is_empty() || a.format.iter().any(|e| fits(e));
    let root = || args.iter().filter(|a| a.at.is_empty());
    let alternatives: Vec<&TypedArg> = root().filter(|a| a.alternative).collect();
    root().filter(|a| a.required).all(fills)
        && (alternatives.is_empty() || alternatives.into_iter().any(fills))
}

/// Each lookup's alternatives with those whose description gives an example shaped like
/// a value the question names first ([`shape`]: "pipeline #98231" puts `iid` ("IID of the
/// Pipeline. For example, \"1\"") before `id` ("For example, \"gid://gitlab/Ci::Pipeline/314\"")).
/// Then, when no value of the question has a digit, an `ID` alternative goes after the
/// others (an `ID` is an opaque key: "the \"running-shoes\" category" is a `slug`, not an
/// `id`). Over the 328 bundled and held-out questions with a gold operation, the root
/// lookups that take an `ID` or a `String` alternative get a value without a digit 6
/// times, each into the `String` one (`slug`), and one with a digit 5 times, each into
/// the `ID`. The 1.5B model writes the value into the first alternative whatever their
/// descriptions say (docs/agent.md); otherwise the order is kept.
pub(super) fn order_alternatives(args: &mut [TypedArg], question: &str) {
    let values = question_values(question);
    let shapes: Vec<String> = values.iter().map(|v| shape(v)).collect();
    if shapes.is_empty() {
        return;
    }
    let digitless = values
        .iter()
        .all(|v| !v.contains(|c: char| c.is_ascii_digit()));
    let fits = |a: &TypedArg| {
        a.examples
            .iter()
            .chain(&a.format)
            .any(|e| shapes.contains(&shape(e)))
    };
    let opaque = |a: &TypedArg| digitless && a.ty.trim_end_matches('!') == "ID";
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, a) in args.iter().enumerate().filter(|(_, a)| a.alternative) {
        groups.entry(a.at.clone()).or_default().push(i);
    }
    for slots in groups.values() {
        let mut order: Vec<TypedArg> = slots.iter().map(|&i| args[i].clone()).collect();
        order.sort_by_key(|a| (!fits(a), opaque(a)));
        for (&i, a) in slots.iter().zip(order) {
            args[i] = a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_gives_a_value_after_an_arguments_name() {
        let args = ["id", "slug", "first"];
        assert!(gives_an_argument(
            "the customer with ID customer-globex?",
            &args
        ));
        assert!(gives_an_argument("(team id: team-engineering)", &args));
        assert!(!gives_an_argument("the id of every customer", &args));
        assert!(
            !gives_an_argument("list the first 10 customers", &args),
            "paging"
        );
        assert!(!gives_an_argument(
            "the customer with ID customer-globex",
            &["login"]
        ));
    }

    fn alt(key: &str, description: &str) -> TypedArg {
        TypedArg {
            key: key.into(),
            at: "pipeline".into(),
            name: key.rsplit('.').next().unwrap_or(key).into(),
            ty: "ID".into(),
            required: false,
            alternative: true,
            schema: serde_json::json!({"type": "string", "description": description}),
            examples: examples(description, &|_| false)
                .into_iter()
                .map(str::to_string)
                .collect(),
            format: Vec::new(),
            requires: Vec::new(),
        }
    }

    #[test]
    fn an_alternative_whose_example_looks_like_the_value_comes_first() {
        let args = || {
            vec![
                alt(
                    "pipeline.id",
                    "Global ID. For example, \"gid://gitlab/Ci::Pipeline/314\".",
                ),
                alt("pipeline.iid", "IID of the Pipeline. For example, \"1\"."),
                alt("pipeline.sha", "SHA. For example, `dyd0f15ay83993f5`."),
            ]
        };
        let keys = |q: &str| {
            let mut a = args();
            order_alternatives(&mut a, q);
            a.into_iter().map(|a| a.key).collect::<Vec<_>>()
        };
        assert_eq!(
            keys("the status of pipeline #98231 in gitlab-org/gitlab-runner"),
            ["pipeline.iid", "pipeline.id", "pipeline.sha"]
        );
        assert_eq!(
            keys("pipeline \"gid://gitlab/Ci::Pipeline/77\""),
            ["pipeline.id", "pipeline.iid", "pipeline.sha"],
            "already first"
        );
        assert_eq!(
            keys("the latest pipeline of acme/web"),
            ["pipeline.id", "pipeline.iid", "pipeline.sha"],
            "no value shaped like an example: the order stays"
        );
        assert_eq!(shape("gid://gitlab/Ci::Pipeline/314"), "a://a/a::a/9");
        assert_eq!(shape("98231"), "9");
    }

    #[test]
    fn a_value_without_a_digit_goes_to_an_alternative_other_than_an_id() {
        let args = || {
            let mut id = alt("category.id", "");
            id.at = String::new();
            let mut slug = alt("category.slug", "");
            slug.at = String::new();
            slug.ty = "String".into();
            vec![id, slug]
        };
        let keys = |q: &str| {
            let mut a = args();
            order_alternatives(&mut a, q);
            a.into_iter().map(|a| a.key).collect::<Vec<_>>()
        };
        assert_eq!(
            keys("the parent categories above the \"running-shoes\" category"),
            ["category.slug", "category.id"]
        );
        assert_eq!(
            keys("the category \"Q2F0ZWdvcnk6MQ==\""),
            ["category.id", "category.slug"],
            "a value with a digit: the order stays"
        );
        assert_eq!(
            keys("the shoe categories"),
            ["category.id", "category.slug"],
            "no value: the order stays"
        );
    }

    #[test]
    fn a_root_field_said_right_before_a_value_is_named() {
        let roots = ["product", "productVariant", "order", "draftOrder", "issue"];
        let named = |q: &str| named_root(q, roots.iter().copied());
        assert_eq!(
            named("For product \"UHJvZHVjdDo0Mg==\", list each variant's SKU"),
            Some("product")
        );
        assert_eq!(
            named("the status of draft order gid://shopify/DraftOrder/27"),
            Some("draftOrder"),
            "two words before one"
        );
        assert_eq!(named("Who is assigned to Issue #4521?"), Some("issue"));
        assert_eq!(named("(order: 'o-1')"), Some("order"));
        assert_eq!(
            named("the product's variants in acme/web-shop"),
            None,
            "the word before the value is not a root field"
        );
        assert_eq!(named("the product with the most orders"), None, "no value");
    }

    #[test]
    fn a_question_names_a_value_by_quotes_or_a_number() {
        for q in [
            "What is the chain of parent categories above the \"running-shoes\" category?",
            "How many attachments does the issue with id 'issue-eng-1023' have?",
            "Who is assigned to issue #4521 in gitlab-org/gitlab?",
            "Which discussions in the octocat/example repository are locked?",
            "Who is subscribed to issue ENG-99?",
            "What is the status of draft order gid://shopify/DraftOrder/276395349?",
        ] {
            assert!(names_a_value(q), "{q}");
        }
        for q in [
            "What issues are currently assigned to me?",
            "What are octocat's repositories, and don't list forks",
            "List the 5 newest issues",
            "An empty \"\" quote",
            "Which CI/CD pipelines and/or jobs failed since 2025-01-01?",
            "Which built-in roles exist?",
        ] {
            assert!(!names_a_value(q), "{q}");
        }
    }
}
