//! A schema with what validation proved about it: apollo-compiler's proof type
//! ([`Valid`]) when the schema passed validation, or an explicit partial state for a
//! schema that loaded with errors (its valid parts are still usable).

use std::ops::Deref;

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;

/// A schema and its validation outcome. Reads through to [`Schema`] (`Deref`), so
/// `graph.schema.types` is the schema's types either way.
#[derive(Debug, Clone)]
pub enum CheckedSchema {
    /// The schema passed validation.
    Valid(Valid<Schema>),
    /// The schema had validation errors; `errors` counts them.
    Partial { schema: Schema, errors: usize },
}

impl CheckedSchema {
    /// Validate `schema`.
    pub fn check(schema: Schema) -> Self {
        match schema.validate() {
            Ok(v) => CheckedSchema::Valid(v),
            Err(with) => CheckedSchema::Partial {
                errors: with.errors.len(),
                schema: with.partial,
            },
        }
    }

    /// The proof, when the schema passed validation.
    pub fn valid(&self) -> Option<&Valid<Schema>> {
        match self {
            CheckedSchema::Valid(v) => Some(v),
            CheckedSchema::Partial { .. } => None,
        }
    }

    /// Validation errors of the schema itself (0 when valid).
    pub fn errors(&self) -> usize {
        match self {
            CheckedSchema::Valid(_) => 0,
            CheckedSchema::Partial { errors, .. } => *errors,
        }
    }

    /// The schema operations and introspection run against. For a valid schema, its
    /// proof. For a partial one this is the one place it is treated as valid: it loaded
    /// with warnings ([`crate::SchemaGraph::warnings`]) and operations over its valid
    /// parts must still be checkable; operations touching the broken parts may be
    /// accepted or refused inconsistently, which the tools say ([`CheckedSchema::errors`]).
    pub fn for_operations(&self) -> &Valid<Schema> {
        match self {
            CheckedSchema::Valid(v) => v,
            CheckedSchema::Partial { schema, .. } => Valid::assume_valid_ref(schema),
        }
    }
}

impl Deref for CheckedSchema {
    type Target = Schema;

    fn deref(&self) -> &Schema {
        match self {
            CheckedSchema::Valid(v) => v,
            CheckedSchema::Partial { schema, .. } => schema,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CheckedSchema;
    use apollo_compiler::Schema;

    fn parse(sdl: &str) -> Schema {
        Schema::parse(sdl, "t.graphql").unwrap_or_else(|e| e.partial)
    }

    #[test]
    fn a_valid_schema_keeps_its_proof_and_a_broken_one_counts_its_errors() {
        let ok = CheckedSchema::check(parse("type Query { a: Int }"));
        assert!(ok.valid().is_some());
        assert_eq!(ok.errors(), 0);
        let broken = CheckedSchema::check(parse("type Query { a: Missing b: Int }"));
        assert!(broken.valid().is_none());
        assert_eq!(broken.errors(), 1);
        // Both read as schemas, and both can check operations over their valid parts.
        assert!(broken.types.contains_key("Query"));
        assert!(apollo_compiler::ExecutableDocument::parse_and_validate(
            broken.for_operations(),
            "{ b }",
            "op.graphql"
        )
        .is_ok());
    }
}
