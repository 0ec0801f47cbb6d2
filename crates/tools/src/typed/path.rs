//! Field paths of typed tools: `issues.nodes[].title`, `target<Commit>.history.nodes[].message`.
//! A path is relative to a root field's value; each step is a field, `[]` when it returns a
//! list, and `<Type>` when the value is read as one of the types it stands for. A path
//! that starts with `<Type>` reads the root value itself as that type.

use std::fmt;

use apollo_compiler::schema::{ExtendedType, FieldDefinition};
use apollo_compiler::Schema;
use gqlnav_schema::connection_of;

use crate::error::ToolError;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Step {
    /// The field (empty: the value itself, only as the first step, with `on`).
    pub field: String,
    /// The field returns a list.
    pub list: bool,
    /// The value is read as this type (an inline fragment).
    pub on: Option<String>,
}

/// A path of steps below a root field.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldPath {
    pub steps: Vec<Step>,
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(&s.field)?;
            if s.list {
                f.write_str("[]")?;
            }
            if let Some(t) = &s.on {
                write!(f, "<{t}>")?;
            }
        }
        Ok(())
    }
}

impl FieldPath {
    /// Read `a.b[]<T>.c`; `[]` is optional (the schema says what is a list).
    pub fn parse(text: &str) -> Result<FieldPath, ToolError> {
        let mut steps = Vec::new();
        for (i, raw) in text.trim().split('.').enumerate() {
            let raw = raw.trim();
            let (head, on) = match raw.find('<') {
                Some(p) if raw.ends_with('>') => (
                    &raw[..p],
                    Some(raw[p + 1..raw.len() - 1].trim().to_string()),
                ),
                Some(_) => {
                    return Err(ToolError::FieldPath(format!(
                        "`{raw}`: a type condition is written `<Type>`"
                    )))
                }
                None => (raw, None),
            };
            let list = head.ends_with("[]");
            let field = head.trim_end_matches("[]").to_string();
            let name_ok = field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if (field.is_empty() && (i > 0 || on.is_none())) || !name_ok {
                return Err(ToolError::FieldPath(format!(
                    "`{raw}` is not a field step (write `a.b[].c`)"
                )));
            }
            if on.as_deref().is_some_and(str::is_empty) {
                return Err(ToolError::FieldPath(format!(
                    "`{raw}`: empty type condition"
                )));
            }
            steps.push(Step { field, list, on });
        }
        Ok(FieldPath { steps })
    }

    /// The path of the first `n` steps.
    pub fn prefix(&self, n: usize) -> FieldPath {
        FieldPath {
            steps: self.steps[..n.min(self.steps.len())].to_vec(),
        }
    }

    /// The field steps (not the leading type condition alone).
    pub fn depth(&self) -> usize {
        self.steps.iter().filter(|s| !s.field.is_empty()).count()
    }
}

pub(crate) fn field_def<'s>(
    schema: &'s Schema,
    ty: &str,
    field: &str,
) -> Option<&'s FieldDefinition> {
    match schema.types.get(ty)? {
        ExtendedType::Object(o) => o.fields.get(field).map(|f| &***f),
        ExtendedType::Interface(i) => i.fields.get(field).map(|f| &***f),
        _ => None,
    }
}

pub(crate) fn is_leaf(schema: &Schema, ty: &str) -> bool {
    matches!(
        schema.types.get(ty),
        Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
    )
}

/// The types `ty` stands for that `owner` names: `owner` itself when it is `ty` or a
/// subtype of it.
fn reads_as(schema: &Schema, ty: &str, owner: &str) -> bool {
    ty == owner || schema.is_subtype(ty, owner)
}

/// The steps of a ranker's root path (`Query.repository`, `Repository.object`,
/// `Commit.message`) below its root field, with the connection hops and type conditions
/// a selection needs; `None` when a hop does not fit the schema.
pub(crate) fn steps_of(
    schema: &Schema,
    root_type: &str,
    coords: &[String],
) -> Option<(FieldPath, String)> {
    let mut path = FieldPath::default();
    let mut cur = root_type.to_string();
    let mut skip_node = false;
    for (i, c) in coords.iter().enumerate() {
        let (owner, field) = c.split_once('.')?;
        let field = field.split('(').next().unwrap_or(field);
        // `edges { node }` of a connection that has `nodes` reads as `nodes`; an edge's
        // own field (`starredAt`) is read through `edges[]`.
        if skip_node && field == "node" {
            skip_node = false;
            continue;
        }
        skip_node = false;
        let to_node = coords
            .get(i + 1)
            .is_none_or(|n| n.split_once('.').is_some_and(|(_, f)| f == "node"));
        if let Some(conn) = connection_of(schema, &cur).filter(|_| owner == cur && to_node) {
            if conn.edges.as_ref().is_some_and(|(e, _)| e == field) {
                if let Some(n) = &conn.nodes {
                    path.steps.push(Step {
                        field: n.clone(),
                        list: true,
                        on: None,
                    });
                    cur = conn.node_type.clone();
                    skip_node = true;
                    continue;
                }
            }
        }
        if owner != cur {
            // A field of a connection's items, reached from the connection; an edge's own
            // field, through its edges.
            if let Some(conn) = connection_of(schema, &cur) {
                if let Some((edges, edge)) = conn.edges.as_ref().filter(|(_, e)| e == owner) {
                    path.steps.push(Step {
                        field: edges.clone(),
                        list: true,
                        on: None,
                    });
                    cur = edge.clone();
                } else if reads_as(schema, &conn.node_type, owner) {
                    match &conn.nodes {
                        Some(n) => path.steps.push(Step {
                            field: n.clone(),
                            list: true,
                            on: None,
                        }),
                        None => {
                            let (edges, _) = conn.edges.clone()?;
                            path.steps.push(Step {
                                field: edges,
                                list: true,
                                on: None,
                            });
                            path.steps.push(Step {
                                field: "node".into(),
                                list: false,
                                on: None,
                            });
                        }
                    }
                    cur = conn.node_type.clone();
                }
            }
        }
        if owner != cur {
            if !schema.is_subtype(&cur, owner) {
                return None;
            }
            match path.steps.last_mut() {
                Some(last) if last.on.is_none() => last.on = Some(owner.to_string()),
                Some(_) => return None,
                None => path.steps.push(Step {
                    field: String::new(),
                    list: false,
                    on: Some(owner.to_string()),
                }),
            }
            cur = owner.to_string();
        }
        let def = field_def(schema, &cur, field)?;
        path.steps.push(Step {
            field: field.to_string(),
            list: def.ty.is_list(),
            on: None,
        });
        cur = def.ty.inner_named_type().to_string();
    }
    Some((path, cur))
}

/// The type a path ends on, walking `schema` from the root field's type; `Err` says which
/// step does not fit.
pub(crate) fn walk(
    schema: &Schema,
    root_type: &str,
    path: &FieldPath,
) -> Result<String, ToolError> {
    let mut cur = root_type.to_string();
    for s in &path.steps {
        if !s.field.is_empty() {
            let Some(def) = field_def(schema, &cur, &s.field) else {
                return Err(ToolError::FieldPath(format!(
                    "`{cur}` has no field `{}`",
                    s.field
                )));
            };
            cur = def.ty.inner_named_type().to_string();
        }
        if let Some(t) = &s.on {
            if !reads_as(schema, &cur, t) {
                return Err(ToolError::FieldPath(format!(
                    "`{t}` is not a type that `{cur}` stands for"
                )));
            }
            cur = t.clone();
        }
    }
    Ok(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_and_parse_back() {
        for t in [
            "title",
            "issues.nodes[].title",
            "target<Commit>.history.nodes[].message",
            "<User>.login",
        ] {
            let p = FieldPath::parse(t).expect("parses");
            assert_eq!(p.to_string(), t);
        }
        assert_eq!(FieldPath::parse("a.b.c").map(|p| p.depth()), Ok(3));
        assert!(FieldPath::parse("a..b").is_err());
        assert!(FieldPath::parse("a<").is_err());
        assert!(FieldPath::parse("a b").is_err());
        assert!(FieldPath::parse("a.<T>").is_err());
    }

    #[test]
    fn an_edges_own_field_is_read_through_edges_and_its_node_through_nodes() {
        let s = Schema::parse(
            "type Query { user: User }
             type User { starred(first: Int): RepoConnection }
             type RepoConnection { edges: [RepoEdge] nodes: [Repo] pageInfo: PageInfo totalCount: Int }
             type RepoEdge { cursor: String! node: Repo starredAt: String }
             type PageInfo { hasNextPage: Boolean! endCursor: String }
             type Repo { name: String }",
            "t.graphql",
        )
        .unwrap_or_else(|e| e.partial);
        let coords = |c: &[&str]| c.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let read = |c: &[&str]| steps_of(&s, "User", &coords(c)).map(|(p, t)| (p.to_string(), t));
        assert_eq!(
            read(&["User.starred", "RepoConnection.edges", "RepoEdge.starredAt"]),
            Some(("starred.edges[].starredAt".into(), "String".into()))
        );
        assert_eq!(
            read(&["User.starred", "RepoEdge.starredAt"]),
            Some(("starred.edges[].starredAt".into(), "String".into()))
        );
        assert_eq!(
            read(&[
                "User.starred",
                "RepoConnection.edges",
                "RepoEdge.node",
                "Repo.name"
            ]),
            Some(("starred.nodes[].name".into(), "String".into()))
        );
    }
}
