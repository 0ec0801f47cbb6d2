//! Connections (Relay's cursor pagination): a type that pages items of another type
//! through `nodes` or `edges { node }`, with `pageInfo` and count fields beside them.
//! One definition for every stage that needs it: the mock pages them for real, the tools
//! unwrap them to `nodes[]`, the ranker and the slicer bring their wrappers (and edge
//! types' `node`, [`Wrapper`]) along and count with their count fields.

use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;

use crate::graph::FieldRef;

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
    /// `totalCount`, when the connection has it as a single `Int` or `Float` without
    /// required arguments (Linear's search payloads count in `Float`).
    pub total_count: Option<String>,
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

/// Whether `f` takes an argument the caller must give (non-null, no default). A field
/// that does is a lookup by that key, not a way through to the items it returns.
pub fn has_required_args(f: &FieldDefinition) -> bool {
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
    let total_count = usable("totalCount")
        .filter(|f| !f.ty.is_list() && matches!(f.ty.inner_named_type().as_str(), "Int" | "Float"))
        .map(|_| "totalCount".to_string());
    Some(Connection {
        node_type,
        nodes: nodes.map(|_| "nodes".to_string()),
        edges: edges.map(|(e, _)| ("edges".to_string(), e)),
        page_info: usable("pageInfo").map(|_| "pageInfo".to_string()),
        count_fields,
        total_count,
    })
}

/// An edge type: a type named `…Edge` whose `node` field (no required arguments)
/// returns a composite type; `(the node field, its type)`.
fn edge_of(schema: &Schema, ty: &str) -> Option<(String, String)> {
    if !ty.ends_with("Edge") {
        return None;
    }
    let node = fields(schema, ty)?
        .get("node")
        .filter(|n| !has_required_args(n) && is_composite(schema, n.ty.inner_named_type()))?;
    Some(("node".to_string(), node.ty.inner_named_type().to_string()))
}

/// A type a selection passes through to reach the items it wraps: a connection, or the
/// edge type of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrapper {
    /// A connection ([`connection_of`]).
    Connection(Connection),
    /// An edge type (`…Edge` with a composite `node`): its `node` field and that type.
    Edge { node: String, node_type: String },
}

impl Wrapper {
    /// The item type it wraps.
    pub fn node_type(&self) -> &str {
        match self {
            Wrapper::Connection(c) => &c.node_type,
            Wrapper::Edge { node_type, .. } => node_type,
        }
    }
}

impl crate::SchemaGraph {
    /// `ty` as a connection ([`connection_of`]).
    pub fn connection(&self, ty: &str) -> Option<Connection> {
        connection_of(&self.schema, ty)
    }

    /// `ty` as a wrapper of items ([`Wrapper`]): a connection ([`connection_of`]), else
    /// an edge type; `None` for any other type.
    pub fn wrapper(&self, ty: &str) -> Option<Wrapper> {
        if let Some(c) = connection_of(&self.schema, ty) {
            return Some(Wrapper::Connection(c));
        }
        edge_of(&self.schema, ty).map(|(node, node_type)| Wrapper::Edge { node, node_type })
    }

    /// The item type behind a connection or an edge type ([`SchemaGraph::wrapper`]):
    /// `Repository` for `RepositoryConnection` and `RepositoryEdge`; `None` for any other
    /// type.
    pub fn wrapped_type(&self, ty: &str) -> Option<String> {
        self.wrapper(ty).map(|w| w.node_type().to_string())
    }

    /// The fields a selection of `ty` passes through to reach its items, in this order:
    /// a connection's `nodes`, its `edges` and the edge's `node`; an edge type's `node`.
    /// Empty when `ty` wraps nothing ([`SchemaGraph::wrapper`]).
    pub fn wrapper_fields(&self, ty: &str) -> Vec<FieldRef> {
        let at = |owner: &str, field: &str| FieldRef {
            owner: owner.to_string(),
            field: field.to_string(),
        };
        match self.wrapper(ty) {
            Some(Wrapper::Connection(c)) => {
                let mut v: Vec<FieldRef> = c.nodes.iter().map(|n| at(ty, n)).collect();
                if let Some((edges, edge)) = &c.edges {
                    v.push(at(ty, edges));
                    v.push(at(edge, "node"));
                }
                v
            }
            Some(Wrapper::Edge { node, .. }) => vec![at(ty, &node)],
            None => Vec::new(),
        }
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
    fn wrappers_are_connections_and_their_edges() {
        let g = crate::load_sdl_str(SDL, "t.graphql").expect("schema");
        assert_eq!(g.wrapped_type("ItemConnection").as_deref(), Some("Item"));
        assert_eq!(g.wrapped_type("ItemEdge").as_deref(), Some("Item"));
        assert_eq!(g.wrapped_type("Item"), None);
        assert_eq!(g.wrapped_type("FakeConnection"), None);
        let through = |ty: &str| -> Vec<String> {
            g.wrapper_fields(ty)
                .iter()
                .map(|f| f.coordinate())
                .collect()
        };
        assert_eq!(
            through("ItemConnection"),
            [
                "ItemConnection.nodes",
                "ItemConnection.edges",
                "ItemEdge.node"
            ]
        );
        assert_eq!(
            through("ThingConnection"),
            ["ThingConnection.edges", "ThingEdge.node"]
        );
        assert_eq!(through("ItemEdge"), ["ItemEdge.node"]);
        assert!(through("Item").is_empty());
        let c = g.connection("ItemConnection").expect("a connection");
        assert_eq!(c.total_count.as_deref(), Some("totalCount"));
    }

    #[test]
    fn scalar_items_are_not_wrapped() {
        let g = crate::load_sdl_str(
            "type Query { tags: StringConnection } \
             type StringConnection { nodes: [String!]! edges: [StringEdge!]! pageInfo: PageInfo! } \
             type StringEdge { node: String! cursor: String! } \
             type PageInfo { hasNextPage: Boolean! }",
            "t.graphql",
        )
        .expect("schema");
        assert_eq!(g.wrapped_type("StringConnection"), None);
        assert_eq!(g.wrapped_type("StringEdge"), None);
    }

    #[test]
    fn a_name_alone_is_not_a_connection() {
        let s = schema(SDL);
        assert!(connection_of(&s, "FakeConnection").is_none());
        assert!(connection_of(&s, "Item").is_none());
        assert!(connection_of(&s, "Nope").is_none());
    }
}
