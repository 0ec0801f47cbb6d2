//! Connections (Relay's cursor pagination): a type that pages items of another type
//! through `nodes` or `edges { node }`, with `pageInfo` and count fields beside them.
//! One definition for every stage that needs it: the mock pages them for real, the tools
//! unwrap them to `nodes[]`, the ranker and the slicer bring their wrappers along.

use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;

/// How a connection type reaches its items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    /// The item type (`nodes`' type, else `edges`' `node` type).
    pub node_type: String,
    /// `nodes` when the connection has that shortcut (a list of the item type).
    pub nodes: Option<String>,
    /// `edges` and the edge type, when the connection has them and the edge has `node`.
    pub edges: Option<(String, String)>,
    /// `pageInfo`, when present.
    pub page_info: Option<String>,
    /// Integer count fields without required arguments (`totalCount`, `count`), in
    /// declaration order: the number of items the connection holds.
    pub count_fields: Vec<String>,
}

fn fields<'s>(
    schema: &'s Schema,
    ty: &str,
) -> Option<
    &'s apollo_compiler::collections::IndexMap<
        apollo_compiler::Name,
        apollo_compiler::schema::Component<FieldDefinition>,
    >,
> {
    match schema.types.get(ty)? {
        ExtendedType::Object(o) => Some(&o.fields),
        ExtendedType::Interface(i) => Some(&i.fields),
        _ => None,
    }
}

fn has_required_args(f: &FieldDefinition) -> bool {
    f.arguments
        .iter()
        .any(|a| a.ty.is_non_null() && a.default_value.is_none())
}

fn is_composite(schema: &Schema, ty: &str) -> bool {
    matches!(
        schema.types.get(ty),
        Some(ExtendedType::Object(_) | ExtendedType::Interface(_) | ExtendedType::Union(_))
    )
}

/// `ty` as a connection: a type named `…Connection` or holding `pageInfo`, whose items
/// are reached through a `nodes` list of a composite type or an `edges` list whose edge
/// has `node` (fields taking required arguments do not count). `None` otherwise.
pub fn connection_of(schema: &Schema, ty: &str) -> Option<Connection> {
    let fs = fields(schema, ty)?;
    if !(ty.ends_with("Connection") || fs.contains_key("pageInfo")) {
        return None;
    }
    let usable = |name: &str| fs.get(name).filter(|f| !has_required_args(f));
    let nodes = usable("nodes")
        .filter(|f| f.ty.is_list() && is_composite(schema, f.ty.inner_named_type()))
        .map(|f| f.ty.inner_named_type().to_string());
    let edges = usable("edges").filter(|f| f.ty.is_list()).and_then(|f| {
        let edge = f.ty.inner_named_type().as_str();
        let node = fields(schema, edge)?
            .get("node")
            .filter(|n| !has_required_args(n) && is_composite(schema, n.ty.inner_named_type()))?;
        Some((edge.to_string(), node.ty.inner_named_type().to_string()))
    });
    let node_type = nodes
        .clone()
        .or_else(|| edges.as_ref().map(|(_, n)| n.clone()))?;
    let count_fields = fs
        .values()
        .filter(|f| {
            !f.ty.is_list()
                && f.ty.inner_named_type() == "Int"
                && !has_required_args(f)
                && f.name.to_ascii_lowercase().contains("count")
        })
        .map(|f| f.name.to_string())
        .collect();
    Some(Connection {
        node_type,
        nodes: nodes.map(|_| "nodes".to_string()),
        edges: edges.map(|(e, _)| ("edges".to_string(), e)),
        page_info: usable("pageInfo").map(|_| "pageInfo".to_string()),
        count_fields,
    })
}

impl crate::SchemaGraph {
    /// `ty` as a connection ([`connection_of`]).
    pub fn connection(&self, ty: &str) -> Option<Connection> {
        connection_of(&self.schema, ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(sdl: &str) -> Schema {
        Schema::parse(sdl, "t.graphql").unwrap_or_else(|e| e.partial)
    }

    const SDL: &str = r#"
        type Query { items(first: Int, after: String): ItemConnection! edgesOnly: ThingConnection }
        type Item { id: ID! title: String }
        type PageInfo { hasNextPage: Boolean! endCursor: String }
        type ItemConnection { nodes: [Item!]! edges: [ItemEdge!]! pageInfo: PageInfo! totalCount: Int! }
        type ItemEdge { node: Item! cursor: String! }
        type ThingConnection { edges: [ThingEdge] pageInfo: PageInfo! }
        type ThingEdge { node: Item cursor: String! }
        type FakeConnection { size: Int }
    "#;

    #[test]
    fn reads_nodes_edges_page_info_and_counts() {
        let s = schema(SDL);
        let c = connection_of(&s, "ItemConnection").expect("a connection");
        assert_eq!(c.node_type, "Item");
        assert_eq!(c.nodes.as_deref(), Some("nodes"));
        assert_eq!(c.edges, Some(("edges".into(), "ItemEdge".into())));
        assert_eq!(c.page_info.as_deref(), Some("pageInfo"));
        assert_eq!(c.count_fields, vec!["totalCount".to_string()]);
        let e = connection_of(&s, "ThingConnection").expect("edges only");
        assert_eq!(e.node_type, "Item");
        assert!(e.nodes.is_none() && e.count_fields.is_empty());
    }

    #[test]
    fn a_name_alone_is_not_a_connection() {
        let s = schema(SDL);
        assert!(connection_of(&s, "FakeConnection").is_none());
        assert!(connection_of(&s, "Item").is_none());
        assert!(connection_of(&s, "Nope").is_none());
    }
}
