//! Value objects: small object types of leaf fields (an amount and its currency, a
//! rate-limit record). An operation selecting a field that returns one must name its
//! fields, so the ranker lends a hit's score to them and the slicer packs them with it.

use apollo_compiler::schema::ExtendedType;

use crate::graph::{FieldRef, SchemaGraph};

/// Most fields a value object has. Money-like types have two to four (an amount, a
/// currency, a formatted form); 8 leaves room for a date range or a rate-limit record
/// without taking in entity types. Not tuned.
pub const VALUE_OBJECT_MAX_FIELDS: usize = 8;

impl SchemaGraph {
    /// Whether `ty` is a *value object*: an object type (not a root) with at most
    /// [`VALUE_OBJECT_MAX_FIELDS`] fields, none taking arguments or returning an `ID`,
    /// each a leaf (scalar, enum) or itself a value object of leaves (a taxed amount's
    /// `gross` amount).
    pub fn is_value_object(&self, ty: &str) -> bool {
        self.is_value_object_within(ty, 2)
    }

    fn is_value_object_within(&self, ty: &str, levels: u8) -> bool {
        let Some(ExtendedType::Object(o)) = self.schema.types.get(ty) else {
            return false;
        };
        if o.fields.is_empty()
            || o.fields.len() > VALUE_OBJECT_MAX_FIELDS
            || self.root_kind(ty).is_some()
        {
            return false;
        }
        o.fields.values().all(|f| {
            let inner = f.ty.inner_named_type().as_str();
            if !f.arguments.is_empty() || inner == "ID" {
                return false;
            }
            match self.schema.types.get(inner) {
                Some(ExtendedType::Scalar(_)) | Some(ExtendedType::Enum(_)) => true,
                Some(ExtendedType::Object(_)) => {
                    levels > 1 && self.is_value_object_within(inner, levels - 1)
                }
                _ => false,
            }
        })
    }

    /// The fields of `ty` when it is a value object ([`SchemaGraph::is_value_object`]),
    /// in declaration order, deprecated ones left out; empty otherwise.
    pub fn value_object_fields(&self, ty: &str) -> Vec<FieldRef> {
        let Some(ExtendedType::Object(o)) = self.schema.types.get(ty) else {
            return Vec::new();
        };
        if !self.is_value_object(ty) {
            return Vec::new();
        }
        o.fields
            .iter()
            .filter(|(_, f)| f.directives.get("deprecated").is_none())
            .map(|(name, _)| FieldRef {
                owner: ty.to_string(),
                field: name.to_string(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::load_sdl_str;

    const SDL: &str = r#"
        type Query { order(id: ID!): Order, rate: Rate }
        type Order { id: ID!, total: Taxed, owner: Person, lines(first: Int): [Line] }
        type Money { currency: String!, amount: Float @deprecated(reason: "use cents"), cents: Int! }
        type Taxed { gross: Money!, net: Money!, currency: String! }
        type Wrapper { inner: Taxed }
        type Person { id: ID!, name: String }
        type Line { quantity(unit: String): Int }
        type Rate { a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int }
        enum Kind { A B }
    "#;

    #[test]
    fn value_objects_are_small_leaf_records_nested_one_level() {
        let g = load_sdl_str(SDL, "test.graphql").expect("schema");
        assert!(g.is_value_object("Money"));
        assert!(
            g.is_value_object("Taxed"),
            "one level of value objects inside"
        );
        assert!(!g.is_value_object("Wrapper"), "two levels is too deep");
        assert!(!g.is_value_object("Person"), "an id makes an entity");
        assert!(!g.is_value_object("Line"), "a field with arguments");
        assert!(
            !g.is_value_object("Rate"),
            "more than VALUE_OBJECT_MAX_FIELDS fields"
        );
        assert!(!g.is_value_object("Order"));
        assert!(!g.is_value_object("Query"), "a root");
        assert!(!g.is_value_object("Kind"), "not an object");
        assert!(!g.is_value_object("Missing"));
        let names: Vec<String> = g
            .value_object_fields("Money")
            .iter()
            .map(|f| f.coordinate())
            .collect();
        assert_eq!(
            names,
            ["Money.currency", "Money.cents"],
            "deprecated left out"
        );
        assert!(g.value_object_fields("Person").is_empty());
    }
}
