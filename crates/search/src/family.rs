//! Near-duplicate hits: the same field declared by an interface and repeated on the types
//! that implement it (`Actor.login`, `User.login`, `Bot.login`, …). A page shows one of
//! them and names the others ([`crate::page_folded`]), so the same field on six sibling
//! types does not take six of ten slots.

use gqlnav_schema::apollo_compiler::schema::ExtendedType;

use crate::SearchContext;

impl SearchContext {
    /// Whether two corpus entries are the same field seen on an interface family: both
    /// are fields with one name, on different owners, and one interface declares that
    /// field and is, or is implemented by, each owner. Schema facts only.
    pub fn same_field(&self, a: usize, b: usize) -> bool {
        let (Some(x), Some(y)) = (self.corpus.entries.get(a), self.corpus.entries.get(b)) else {
            return false;
        };
        if x.kind != y.kind || x.name != y.name || x.owner == y.owner {
            return false;
        }
        let ix = self.interfaces_with(&x.owner, &x.name);
        if ix.is_empty() {
            return false;
        }
        let iy = self.interfaces_with(&y.owner, &y.name);
        ix.iter().any(|i| iy.contains(i))
    }

    /// The interfaces declaring field `field` that `owner` is or implements.
    fn interfaces_with<'a>(&'a self, owner: &'a str, field: &str) -> Vec<&'a str> {
        let types = &self.graph.schema.types;
        let declares = |t: &str| match types.get(t) {
            Some(ExtendedType::Interface(i)) => i.fields.contains_key(field),
            _ => false,
        };
        let mut out: Vec<&str> = match types.get(owner) {
            Some(ExtendedType::Object(o)) => {
                o.implements_interfaces.iter().map(|i| i.as_str()).collect()
            }
            Some(ExtendedType::Interface(o)) => {
                o.implements_interfaces.iter().map(|i| i.as_str()).collect()
            }
            _ => Vec::new(),
        };
        out.push(owner);
        out.retain(|t| declares(t));
        out
    }
}
