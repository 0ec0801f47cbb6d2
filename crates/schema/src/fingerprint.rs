//! A fingerprint of a schema, for saved indexes: two schemas with the same fingerprint
//! give every ranker the same input.

use std::fmt::Write as _;

use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Schema;

use crate::Fnv64 as Fnv;

/// A fingerprint of everything in a schema that any ranker reads: root operation types,
/// and per type (declaration order) its kind, name, description, implemented
/// interfaces, union members, fields (name, type, description, arguments with types
/// and defaults) and enum values.
pub(crate) fn schema_fingerprint(s: &Schema) -> String {
    let mut h = Fnv::new();
    let root = |h: &mut Fnv, r: &Option<apollo_compiler::schema::ComponentName>| {
        h.str(r.as_ref().map(|c| c.name.as_str()).unwrap_or(""))
    };
    root(&mut h, &s.schema_definition.query);
    root(&mut h, &s.schema_definition.mutation);
    root(&mut h, &s.schema_definition.subscription);
    let mut n_types = 0usize;
    for (name, ty) in &s.types {
        if ty.is_built_in() {
            continue;
        }
        n_types += 1;
        h.str(name.as_str());
        h.str(ty.description().map(|d| &**d).unwrap_or(""));
        match ty {
            ExtendedType::Object(o) => {
                h.str("O");
                for i in &o.implements_interfaces {
                    h.str(i.name.as_str());
                }
                fields(&mut h, o.fields.iter().map(|(n, f)| (n, &*f.node)));
            }
            ExtendedType::Interface(o) => {
                h.str("I");
                for i in &o.implements_interfaces {
                    h.str(i.name.as_str());
                }
                fields(&mut h, o.fields.iter().map(|(n, f)| (n, &*f.node)));
            }
            ExtendedType::Union(u) => {
                h.str("U");
                for m in &u.members {
                    h.str(m.name.as_str());
                }
            }
            ExtendedType::Enum(e) => {
                h.str("E");
                for (v, d) in &e.values {
                    h.str(v.as_str());
                    h.str(d.description.as_deref().unwrap_or(""));
                    h.str(if d.directives.has("deprecated") {
                        "d"
                    } else {
                        ""
                    });
                }
            }
            ExtendedType::InputObject(o) => {
                h.str("N");
                for (n, f) in &o.fields {
                    input_value(&mut h, n.as_str(), f);
                }
            }
            ExtendedType::Scalar(_) => h.str("S"),
        }
    }
    format!("{:016x}-{n_types}", h.finish())
}

fn fields<'a>(
    h: &mut Fnv,
    it: impl Iterator<
        Item = (
            &'a apollo_compiler::Name,
            &'a apollo_compiler::ast::FieldDefinition,
        ),
    >,
) {
    for (n, f) in it {
        h.str(n.as_str());
        let _ = write!(h, "{}", f.ty);
        h.str("");
        h.str(f.description.as_deref().unwrap_or(""));
        h.str(deprecation(&f.directives));
        for a in &f.arguments {
            input_value(h, a.name.as_str(), a);
        }
        h.str(")");
    }
}

fn deprecation(d: &apollo_compiler::ast::DirectiveList) -> &str {
    match d.get("deprecated") {
        Some(dir) => dir
            .specified_argument_by_name("reason")
            .and_then(|v| v.as_str())
            .unwrap_or("deprecated"),
        None => "",
    }
}

fn input_value(h: &mut Fnv, name: &str, v: &apollo_compiler::ast::InputValueDefinition) {
    h.str(name);
    let _ = write!(h, "{}", v.ty);
    h.str("");
    match &v.default_value {
        Some(d) => {
            let _ = write!(h, "={d}");
        }
        None => h.str(""),
    }
    h.str(v.description.as_deref().unwrap_or(""));
    h.str(deprecation(&v.directives));
}

#[cfg(test)]
mod tests {
    use crate::load_sdl_str;

    const SDL: &str = r#"
        type Query { repo(owner: String!, name: String = "x"): Repo node: Node search: [Hit!]! }
        interface Node { id: ID! }
        "A repository."
        type Repo implements Node { id: ID! issues(first: Int): [Issue] state: State }
        type Issue implements Node { id: ID! title: String @deprecated(reason: "old") }
        union Hit = Repo | Issue
        enum State { OPEN CLOSED }
        input Filter { state: State = OPEN }
    "#;

    fn fp(sdl: &str) -> String {
        load_sdl_str(sdl, "t.graphql")
            .expect("schema")
            .fingerprint()
            .to_string()
    }

    #[test]
    fn same_schema_same_fingerprint_any_change_another() {
        let base = fp(SDL);
        assert_eq!(base, fp(SDL), "deterministic");
        assert_eq!(
            base,
            load_sdl_str(SDL, "elsewhere.graphql")
                .expect("schema")
                .fingerprint(),
            "the source label does not count"
        );
        for (from, to) in [
            ("\"A repository.\"", "\"A repo.\""),
            ("first: Int", "first: Int!"),
            ("name: String = \"x\"", "name: String = \"y\""),
            ("union Hit = Repo | Issue", "union Hit = Repo"),
            ("type Issue implements Node", "type Issue"),
            ("reason: \"old\"", "reason: \"older\""),
            ("OPEN CLOSED", "OPEN CLOSED MERGED"),
            ("state: State = OPEN", "state: State = CLOSED"),
            ("title: String", "title: String!"),
            ("search: [Hit!]!", "search: [Hit!]"),
        ] {
            let changed = SDL.replacen(from, to, 1);
            assert_ne!(changed, SDL, "{from}");
            assert_ne!(fp(&changed), base, "{from} -> {to}");
        }
    }
}
