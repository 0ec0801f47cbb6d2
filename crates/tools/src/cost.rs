//! Operation cost limits, checked on the parsed document **before** validation, execution
//! or forwarding: depth, breadth (fields and aliases per selection set), fragment spreads
//! expanded, fields expanded, and an estimate of the result size.
//!
//! One pass, memoised per fragment (and per pending page size), so the time is linear in
//! the document even when each fragment spreads the next several times (a fan-out of 40
//! levels, 1.8 KB, expands to 2^40 selections; here it costs 40 memo entries).
//!
//! The result estimate counts response entries: a field is one entry, a list field holds
//! `first`/`last` items when the field or the connection field above it passes one (the
//! Relay pagination convention, read from literals or the request's variables), else
//! [`CostLimits::assumed_list_size`].

use std::collections::HashMap;

use apollo_compiler::ast::{self, Definition, Selection, Value as AstValue};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::{Node, Schema};
use serde_json::Value;

/// The limits the cost pass enforces (all inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CostLimits {
    /// Deepest selection nesting, fragments expanded.
    pub max_depth: usize,
    /// Most selections (fields, aliases, spreads, inline fragments) in one selection set.
    pub max_breadth: usize,
    /// Most fields in the operation with every fragment expanded.
    pub max_fields: u64,
    /// Most fragment spreads expanded.
    pub max_spreads: u64,
    /// Most response entries estimated.
    pub max_result_estimate: u64,
    /// Items assumed for a list field with no `first`/`last`.
    pub assumed_list_size: u64,
    /// Most lexical tokens in a document (the parser stops there).
    pub max_tokens: usize,
}

impl Default for CostLimits {
    fn default() -> Self {
        CostLimits {
            max_depth: 15,
            max_breadth: 200,
            max_fields: 5_000,
            max_spreads: 2_000,
            // GitHub's own ceiling is 500,000 nodes; two nested pages of 100 are 10,000.
            max_result_estimate: 200_000,
            assumed_list_size: 10,
            max_tokens: 100_000,
        }
    }
}

/// What the pass measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Deepest nesting.
    pub depth: usize,
    /// Widest selection set.
    pub breadth: usize,
    /// Fields, fragments expanded.
    pub fields: u64,
    /// Fragment spreads expanded.
    pub spreads: u64,
    /// Estimated response entries.
    pub result_estimate: u64,
}

impl Cost {
    fn add(&mut self, o: &Cost) {
        self.depth = self.depth.max(o.depth);
        self.breadth = self.breadth.max(o.breadth);
        self.fields = self.fields.saturating_add(o.fields);
        self.spreads = self.spreads.saturating_add(o.spreads);
        self.result_estimate = self.result_estimate.saturating_add(o.result_estimate);
    }
}

/// Why an operation was refused before any other work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    /// A limit was exceeded.
    #[error(
        "the operation is too expensive: {what} is {measured}, the limit is {limit}. {advice}"
    )]
    Limit {
        /// Which limit.
        what: &'static str,
        /// The measured value (saturated at u64::MAX).
        measured: u64,
        /// The limit.
        limit: u64,
        /// What to change.
        advice: &'static str,
    },
    /// The parser stopped at its token or nesting limit.
    #[error("the document is too large: {0}. Send a smaller operation")]
    TooLarge(String),
}

/// Measure `text`'s operation (`operation_name`, or the only one) against `schema` and
/// check it against `limits`. Syntax errors and unknown names are left to validation (they
/// count as nothing here); only the size of the work is judged.
pub fn check_cost(
    schema: &Schema,
    text: &str,
    operation_name: Option<&str>,
    variables: Option<&Value>,
    limits: &CostLimits,
) -> Result<Cost, CostError> {
    parse_and_check(schema, text, operation_name, variables, limits).map(|(_, c)| c)
}

/// [`check_cost`], also returning the parsed document when it parsed without errors (so
/// validation can reuse it instead of parsing the text again).
pub(crate) fn parse_and_check(
    schema: &Schema,
    text: &str,
    operation_name: Option<&str>,
    variables: Option<&Value>,
    limits: &CostLimits,
) -> Result<(Option<ast::Document>, Cost), CostError> {
    let (doc, clean) = match apollo_compiler::parser::Parser::new()
        .token_limit(limits.max_tokens)
        .recursion_limit(limits.max_depth.saturating_mul(4).max(64))
        .parse_ast(text, "operation.graphql")
    {
        Ok(d) => (d, true),
        Err(with) => {
            let limit_hit = with.errors.iter().find(|d| {
                let m = d.error.to_string();
                m.contains("token limit") || m.contains("recursion limit")
            });
            if let Some(d) = limit_hit {
                let why = if d.error.to_string().contains("token limit") {
                    format!(
                        "it has more than {} lexical tokens (the limit)",
                        limits.max_tokens
                    )
                } else {
                    "it nests deeper than the parser's limit".to_string()
                };
                return Err(CostError::TooLarge(why));
            }
            (with.partial, false)
        }
    };
    let c = measure(schema, &doc, operation_name, variables, limits)?;
    Ok((clean.then_some(doc), c))
}

/// The cost of one operation of a parsed document, checked against `limits`.
fn measure(
    schema: &Schema,
    doc: &ast::Document,
    operation_name: Option<&str>,
    variables: Option<&Value>,
    limits: &CostLimits,
) -> Result<Cost, CostError> {
    let mut fragments: HashMap<&str, &Node<ast::FragmentDefinition>> = HashMap::new();
    let mut operations = Vec::new();
    for d in &doc.definitions {
        match d {
            Definition::FragmentDefinition(f) => {
                fragments.entry(f.name.as_str()).or_insert(f);
            }
            Definition::OperationDefinition(o) => operations.push(o),
            _ => {}
        }
    }
    let op = match operation_name {
        Some(n) => operations
            .iter()
            .find(|o| o.name.as_ref().is_some_and(|x| x == n)),
        None => operations.first(),
    };
    let Some(op) = op else {
        return Ok(Cost::default());
    };
    let root = schema.root_operation(op.operation_type).map(|n| n.as_str());
    let mut pass = Pass {
        schema,
        fragments,
        variables: variables.and_then(Value::as_object),
        limits,
        memo: HashMap::new(),
        active: Vec::new(),
    };
    let c = pass.set(&op.selection_set, root, None);
    check(&c, limits)?;
    Ok(c)
}

fn check(c: &Cost, l: &CostLimits) -> Result<(), CostError> {
    let over = |what, measured: u64, limit: u64, advice| {
        (measured > limit).then_some(CostError::Limit {
            what,
            measured,
            limit,
            advice,
        })
    };
    let first = over(
        "the nesting depth",
        c.depth as u64,
        l.max_depth as u64,
        "Select fewer nested fields.",
    )
    .or_else(|| {
        over(
            "the widest selection set",
            c.breadth as u64,
            l.max_breadth as u64,
            "Select fewer fields (or aliases) side by side.",
        )
    })
    .or_else(|| {
        over(
            "the number of fragment spreads, expanded",
            c.spreads,
            l.max_spreads,
            "Spread each fragment fewer times, or inline what it selects.",
        )
    })
    .or_else(|| {
        over(
            "the number of fields, fragments expanded",
            c.fields,
            l.max_fields,
            "Select fewer fields.",
        )
    })
    .or_else(|| {
        over(
            "the estimated result size (entries)",
            c.result_estimate,
            l.max_result_estimate,
            "Pass smaller `first`/`last` values or nest fewer lists.",
        )
    });
    first.map_or(Ok(()), Err)
}

struct Pass<'a> {
    schema: &'a Schema,
    fragments: HashMap<&'a str, &'a Node<ast::FragmentDefinition>>,
    variables: Option<&'a serde_json::Map<String, Value>>,
    limits: &'a CostLimits,
    /// Per fragment and pending page size: its cost (spreads inside it included).
    memo: HashMap<(&'a str, Option<u64>), Cost>,
    /// Fragments being measured (a cycle counts as nothing; validation reports it).
    active: Vec<&'a str>,
}

impl<'a> Pass<'a> {
    /// The cost of a selection set on `parent` (when known); `pending` is a page size
    /// passed by the field above, not yet applied to a list.
    fn set(&mut self, set: &'a [Selection], parent: Option<&'a str>, pending: Option<u64>) -> Cost {
        let mut total = Cost {
            breadth: set.len(),
            ..Cost::default()
        };
        for sel in set {
            match sel {
                Selection::Field(f) => total.add(&self.field(f, parent, pending)),
                Selection::InlineFragment(i) => {
                    let on = i.type_condition.as_ref().map(|t| t.as_str()).or(parent);
                    let c = self.set(&i.selection_set, on, pending);
                    total.add(&c);
                }
                Selection::FragmentSpread(s) => {
                    let mut c = self.spread(s.fragment_name.as_str(), pending);
                    c.spreads = c.spreads.saturating_add(1);
                    total.add(&c);
                }
            }
        }
        total
    }

    fn spread(&mut self, name: &'a str, pending: Option<u64>) -> Cost {
        if let Some(c) = self.memo.get(&(name, pending)) {
            return *c;
        }
        if self.active.contains(&name) {
            return Cost::default();
        }
        let Some(fr) = self.fragments.get(name).copied() else {
            return Cost::default();
        };
        self.active.push(name);
        let c = self.set(&fr.selection_set, Some(fr.type_condition.as_str()), pending);
        self.active.pop();
        self.memo.insert((name, pending), c);
        c
    }

    fn field(
        &mut self,
        f: &'a Node<ast::Field>,
        parent: Option<&'a str>,
        pending: Option<u64>,
    ) -> Cost {
        let def = parent.and_then(|p| match self.schema.types.get(p) {
            Some(ExtendedType::Object(o)) => o.fields.get(f.name.as_str()).map(|d| &d.ty),
            Some(ExtendedType::Interface(o)) => o.fields.get(f.name.as_str()).map(|d| &d.ty),
            _ => None,
        });
        let is_list = def.is_some_and(|t| t.is_list());
        let page = self.page_size(&f.arguments);
        // A list takes the page size given on it, else one passed down from the
        // connection field above, else the assumed size; a non-list field passes its
        // own page size down to the list below it (`nodes`, `edges`).
        let (mult, down) = if is_list {
            (
                page.or(pending)
                    .unwrap_or(self.limits.assumed_list_size)
                    .max(1),
                None,
            )
        } else {
            (1, page.or(pending))
        };
        let child_type = def.map(|t| t.inner_named_type().as_str());
        let inner = if f.selection_set.is_empty() {
            Cost::default()
        } else {
            self.set(&f.selection_set, child_type, down)
        };
        Cost {
            depth: inner.depth + 1,
            breadth: inner.breadth,
            fields: inner.fields.saturating_add(1),
            spreads: inner.spreads,
            result_estimate: mult.saturating_mul(inner.result_estimate.saturating_add(1)),
        }
    }

    /// The `first`/`last` page size of a field's arguments, from a literal or a variable.
    fn page_size(&self, args: &[Node<ast::Argument>]) -> Option<u64> {
        args.iter()
            .filter(|a| matches!(a.name.as_str(), "first" | "last"))
            .filter_map(|a| match a.value.as_ref() {
                AstValue::Int(i) => i.try_to_i32().ok().map(|v| v.max(0) as u64),
                AstValue::Variable(v) => self
                    .variables
                    .and_then(|m| m.get(v.as_str()))
                    .and_then(Value::as_u64),
                _ => None,
            })
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDL: &str = r#"
        type Query { user(login: String!): User, users(first: Int): [User!]!, me: User }
        type User { login: String, friends(first: Int, last: Int): UserConnection, tags: [String] }
        type UserConnection { nodes: [User], totalCount: Int }
    "#;

    fn schema() -> Schema {
        Schema::parse_and_validate(SDL, "s.graphql")
            .expect("valid")
            .into_inner()
    }

    fn cost(op: &str) -> Result<Cost, CostError> {
        check_cost(&schema(), op, None, None, &CostLimits::default())
    }

    #[test]
    fn fragment_fan_out_is_linear_and_refused_by_its_expanded_size() {
        let mut doc = String::from("query { me { ...F0 } }\n");
        for i in 0..40 {
            doc.push_str(&format!(
                "fragment F{i} on User {{ login ...F{n} ...F{n} }}\n",
                n = i + 1
            ));
        }
        doc.push_str("fragment F40 on User { login }\n");
        let t0 = std::time::Instant::now();
        let e = cost(&doc).unwrap_err();
        assert!(t0.elapsed().as_secs() < 1, "{:?}", t0.elapsed());
        let msg = e.to_string();
        assert!(msg.contains("fragment spreads"), "{msg}");
        assert!(msg.contains("the limit is 2000"), "{msg}");
    }

    #[test]
    fn an_alias_bomb_is_refused_by_breadth() {
        let fields: String = (0..10_000).map(|i| format!("a{i}: login ")).collect();
        let e = cost(&format!("{{ me {{ {fields} }} }}")).unwrap_err();
        assert!(
            e.to_string().contains("widest selection set is 10000"),
            "{e}"
        );
    }

    #[test]
    fn page_sizes_multiply_through_connections() {
        let c = cost("{ users(first: 100) { friends(first: 100) { nodes { login } } } }").unwrap();
        // 100 users × (the user + friends (1 + nodes: 100 × (the node + login)))
        assert_eq!(c.result_estimate, 100 * (1 + 1 + 100 * 2));
        let e = cost("{ users(first: 100) { friends(first: 100) { nodes { friends(first: 100) { nodes { login } } } } } }")
            .unwrap_err();
        assert!(e.to_string().contains("estimated result size"), "{e}");
    }

    #[test]
    fn variables_give_page_sizes_and_unknown_lists_take_the_assumed_size() {
        let s = schema();
        let op = "query Q($n: Int) { users(first: $n) { login } }";
        let vars = serde_json::json!({"n": 7});
        let c = check_cost(&s, op, Some("Q"), Some(&vars), &CostLimits::default()).unwrap();
        assert_eq!(c.result_estimate, 7 * 2);
        let c = cost("{ me { tags } }").unwrap();
        assert_eq!(c.result_estimate, 1 + 10);
    }

    #[test]
    fn depth_counts_through_fragments_and_cycles_count_nothing() {
        let c = cost("{ me { ...A } } fragment A on User { friends { nodes { login } } }").unwrap();
        assert_eq!(c.depth, 4);
        assert_eq!(c.spreads, 1);
        let c =
            cost("{ me { ...A } } fragment A on User { login ...B } fragment B on User { ...A }")
                .unwrap();
        assert!(c.spreads <= 3, "{c:?}");
    }

    #[test]
    fn the_token_limit_stops_the_parser() {
        let limits = CostLimits {
            max_tokens: 50,
            ..CostLimits::default()
        };
        let doc = format!("{{ me {{ {} }} }}", "login ".repeat(100));
        let e = check_cost(&schema(), &doc, None, None, &limits).unwrap_err();
        assert!(matches!(e, CostError::TooLarge(_)), "{e}");
    }
}
