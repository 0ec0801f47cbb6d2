//! Near-duplicate hits: the same field declared by an interface and repeated on the
//! object types that implement it (`User.login`, `Bot.login`, `Organization.login`, …). A
//! page shows one of them and names the others ([`crate::page_folded`]), so the same
//! field on six sibling types does not take six of ten slots. The interface's own field
//! is not folded: folding it too lowered what the tools show on linear, and leading with
//! it lowered github (docs/benchmarks.md, "Near-duplicates folded").

use gqlnav_corpus::OwnerKind;
use gqlnav_schema::apollo_compiler::schema::ExtendedType;

use crate::SearchContext;

impl SearchContext {
    /// Whether two corpus entries are the same field on sibling object types: fields
    /// with one name, on two different object types that implement one interface
    /// declaring that field. Schema facts only.
    pub fn sibling_field(&self, a: usize, b: usize) -> bool {
        let (Some(x), Some(y)) = (self.corpus.entries.get(a), self.corpus.entries.get(b)) else {
            return false;
        };
        if x.kind != y.kind
            || x.name != y.name
            || x.owner == y.owner
            || x.owner_kind != OwnerKind::Object
            || y.owner_kind != OwnerKind::Object
        {
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
