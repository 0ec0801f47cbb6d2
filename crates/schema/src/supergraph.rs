//! Services of a federated supergraph: the `join__Graph` enum names them
//! (`PRODUCTS @join__graph(name: "products", url: …)`), `@join__type(graph: …)` says
//! which services define a type and `@join__field(graph: …)` which resolve a field. A
//! field with no `@join__field` belongs to every service of its type.

use apollo_compiler::ast::Value;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Schema;

/// One service of a supergraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// The `join__Graph` enum value (`PRODUCTS`).
    pub value: String,
    /// Its `@join__graph(name:)` (`products`), or the value when absent.
    pub name: String,
}

/// The services of a supergraph, in declaration order; empty for any other schema.
pub fn services(schema: &Schema) -> Vec<Service> {
    let Some(ExtendedType::Enum(e)) = schema.types.get("join__Graph") else {
        return Vec::new();
    };
    e.values
        .iter()
        .map(|(v, def)| {
            let name = def
                .directives
                .get("join__graph")
                .and_then(|d| d.specified_argument_by_name("name"))
                .and_then(|n| n.as_str().map(str::to_string))
                .unwrap_or_else(|| v.to_string());
            Service {
                value: v.to_string(),
                name,
            }
        })
        .collect()
}

/// The service a caller named (its enum value or its name, any case).
pub fn find_service<'a>(all: &'a [Service], asked: &str) -> Option<&'a Service> {
    all.iter()
        .find(|s| s.value.eq_ignore_ascii_case(asked) || s.name.eq_ignore_ascii_case(asked))
}

fn graphs_of<'a, I>(directives: I, name: &str) -> Vec<String>
where
    I: Iterator<Item = &'a apollo_compiler::Node<apollo_compiler::ast::Directive>>,
{
    directives
        .filter(|d| d.name == name)
        .filter_map(
            |d| match d.specified_argument_by_name("graph").map(|v| &**v) {
                Some(Value::Enum(g)) => Some(g.to_string()),
                _ => None,
            },
        )
        .collect()
}

/// The services (`join__Graph` values) that resolve `ty.field`: its `@join__field`
/// graphs, else its type's `@join__type` graphs; empty when the schema says nothing.
pub fn field_services(schema: &Schema, ty: &str, field: &str) -> Vec<String> {
    let (type_dirs, field_def) = match schema.types.get(ty) {
        Some(ExtendedType::Object(o)) => (&o.directives, o.fields.get(field)),
        Some(ExtendedType::Interface(i)) => (&i.directives, i.fields.get(field)),
        _ => return Vec::new(),
    };
    if let Some(f) = field_def {
        let own = graphs_of(f.directives.iter(), "join__field");
        if !own.is_empty() {
            return own;
        }
    }
    graphs_of(type_dirs.iter().map(|c| &c.node), "join__type")
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const SUPERGRAPH: &str = r#"
directive @join__graph(name: String!, url: String!) on ENUM_VALUE
directive @join__type(graph: join__Graph!, key: String) repeatable on OBJECT | INTERFACE
directive @join__field(graph: join__Graph, external: Boolean) repeatable on FIELD_DEFINITION
enum join__Graph {
  PRODUCTS @join__graph(name: "products", url: "http://products")
  REVIEWS @join__graph(name: "reviews", url: "http://reviews")
}
type Query @join__type(graph: PRODUCTS) @join__type(graph: REVIEWS) {
  product(id: ID!): Product @join__field(graph: PRODUCTS)
  latestReviews: [Review] @join__field(graph: REVIEWS)
}
type Product @join__type(graph: PRODUCTS, key: "id") @join__type(graph: REVIEWS, key: "id") {
  id: ID!
  price: Int @join__field(graph: PRODUCTS)
  reviews: [Review] @join__field(graph: REVIEWS)
}
type Review @join__type(graph: REVIEWS) { body: String }
"#;

    #[test]
    fn services_and_the_fields_each_resolves() {
        let s = Schema::parse(SUPERGRAPH, "s.graphql").unwrap_or_else(|e| e.partial);
        let all = services(&s);
        assert_eq!(
            all.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["products", "reviews"]
        );
        assert_eq!(
            find_service(&all, "Reviews").map(|s| s.value.as_str()),
            Some("REVIEWS")
        );
        assert_eq!(field_services(&s, "Product", "price"), ["PRODUCTS"]);
        assert_eq!(field_services(&s, "Product", "id"), ["PRODUCTS", "REVIEWS"]);
        assert_eq!(field_services(&s, "Review", "body"), ["REVIEWS"]);
        let plain =
            Schema::parse("type Query { a: Int }", "p.graphql").unwrap_or_else(|e| e.partial);
        assert!(services(&plain).is_empty());
        assert!(field_services(&plain, "Query", "a").is_empty());
    }
}
