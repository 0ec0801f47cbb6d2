//! Labels: the fields that name or state one record of their type (`name`, `title`,
//! `login`, `state`). A question about a type's items reads them, named or not ("which
//! teams am I in" shows each team's name), so the ranker lifts them with their type and
//! the slicer values them with the field that returns the type. Told from the schema
//! alone: nothing here knows a word.

use apollo_compiler::schema::{ExtendedType, FieldDefinition, Type};

use crate::connection::has_required_args;
use crate::graph::SchemaGraph;
use crate::words::identifier_word_count;

/// Which fields count as labels. The ranker and the slicer measured their rules apart;
/// both live here so that a change to one is made beside the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelRule {
    /// A *name*: a non-null `String` without arguments whose name is one lower-case word
    /// (no capital, no `_`: `name`, `title`, `key`, `login`; not `licenceType`, not
    /// `URL`). The ranker's `label` channel.
    Name,
    /// A *record label*: a single scalar or enum value (not a list, not an `ID`, not a
    /// `Boolean` flag), no required argument, not deprecated, a name of one word
    /// ([`crate::identifier_word_count`]: `number`, `state`, `URL`), on an ordinary type
    /// (not a connection or edge, [`SchemaGraph::wrapped_type`]). The slicer's
    /// `label_blend`.
    Record,
}

impl SchemaGraph {
    /// Whether `owner.field` (a field of an object or interface type) is a label of
    /// `owner` under `rule` ([`LabelRule`]); `false` for anything else.
    pub fn is_label(&self, owner: &str, field: &str, rule: LabelRule) -> bool {
        let f = match self.schema.types.get(owner) {
            Some(ExtendedType::Object(o)) => o.fields.get(field),
            Some(ExtendedType::Interface(i)) => i.fields.get(field),
            _ => None,
        };
        let Some(f) = f else { return false };
        match rule {
            LabelRule::Name => is_name_label(f),
            LabelRule::Record => self.is_record_label(owner, f),
        }
    }

    fn is_record_label(&self, owner: &str, f: &FieldDefinition) -> bool {
        let named = f.ty.inner_named_type().as_str();
        let leaf = matches!(
            self.schema.types.get(named),
            Some(ExtendedType::Scalar(_) | ExtendedType::Enum(_))
        );
        leaf && !f.ty.is_list()
            && named != "ID"
            && named != "Boolean"
            && f.directives.get("deprecated").is_none()
            && !has_required_args(f)
            && self.wrapped_type(owner).is_none()
            && identifier_word_count(&f.name) <= 1
    }
}

fn is_name_label(f: &FieldDefinition) -> bool {
    matches!(&f.ty, Type::NonNullNamed(n) if n == "String")
        && f.arguments.is_empty()
        && !f.name.chars().any(|c| c.is_uppercase() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::LabelRule::{Name, Record};
    use crate::load_sdl_str;

    const SDL: &str = r#"
        type Query { team(id: ID!): Team, teams(first: Int): TeamConnection }
        type Team {
            id: ID!
            name: String!
            URL: String
            key: String
            licenceType: String!
            state: State!
            private: Boolean!
            members: [String!]!
            title(locale: String): String!
            slug(format: String!): String
            old: String @deprecated
        }
        enum State { OPEN CLOSED }
        type TeamConnection { nodes: [Team!]!, pageInfo: PageInfo!, count: Int! }
        type PageInfo { hasNextPage: Boolean! }
    "#;

    #[test]
    fn names_are_non_null_strings_of_one_lower_case_word() {
        let g = load_sdl_str(SDL, "t.graphql").expect("schema");
        let names: Vec<&str> = ["id", "name", "URL", "key", "licenceType", "state", "title"]
            .into_iter()
            .filter(|f| g.is_label("Team", f, Name))
            .collect();
        assert_eq!(names, ["name"], "`title` takes an argument");
        assert!(!g.is_label("Team", "missing", Name));
        assert!(!g.is_label("Missing", "name", Name));
    }

    #[test]
    fn record_labels_are_single_values_of_one_word_on_ordinary_types() {
        let g = load_sdl_str(SDL, "t.graphql").expect("schema");
        let fields = [
            "id",
            "name",
            "URL",
            "key",
            "licenceType",
            "state",
            "private",
            "members",
            "title",
            "slug",
            "old",
        ];
        let labels: Vec<&str> = fields
            .into_iter()
            .filter(|f| g.is_label("Team", f, Record))
            .collect();
        assert_eq!(labels, ["name", "URL", "key", "state", "title"]);
        assert!(
            !g.is_label("TeamConnection", "count", Record),
            "a connection's fields are paging, not labels"
        );
    }
}
