//! Scopes: which graphs a caller may see. A credential is a token sent as
//! `Authorization: Bearer TOKEN` or as the value of a header the config names; it maps
//! to a set of graphs. With no credential configured every caller sees every graph; with
//! some, a request that carries none of them is refused before it reaches a tool. Over
//! stdio the caller is the process that started the server, and sees every graph.

use std::collections::BTreeSet;

use axum::http::HeaderMap;

use super::config::Credential;

/// What a caller may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Every graph.
    All,
    /// These graphs.
    Graphs(BTreeSet<String>),
    /// Nothing: credentials are configured and the request carries none of them.
    Denied,
}

impl Access {
    /// Whether the graph `name` is visible.
    pub fn sees(&self, name: &str) -> bool {
        match self {
            Access::All => true,
            Access::Graphs(g) => g.contains(name),
            Access::Denied => false,
        }
    }
}

/// The configured credentials.
#[derive(Debug, Clone, Default)]
pub struct Scopes {
    credentials: Vec<Credential>,
}

/// Equal bytes, compared in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Scopes {
    /// Scopes over these credentials (none = everyone sees everything).
    pub fn new(credentials: Vec<Credential>) -> Scopes {
        Scopes { credentials }
    }

    /// Whether any credential is configured.
    pub fn enabled(&self) -> bool {
        !self.credentials.is_empty()
    }

    /// What a request with these headers may see: the union of every credential it
    /// carries.
    pub fn access(&self, headers: &HeaderMap) -> Access {
        if self.credentials.is_empty() {
            return Access::All;
        }
        let bearer = headers
            .get_all("authorization")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| {
                let (scheme, rest) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
            })
            .collect::<Vec<_>>();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut any = false;
        for c in &self.credentials {
            let carried = match &c.header {
                None => bearer
                    .iter()
                    .any(|t| same(t.as_bytes(), c.token.as_bytes())),
                Some(h) => headers
                    .get_all(h.as_str())
                    .iter()
                    .any(|v| same(v.as_bytes().trim_ascii(), c.token.as_bytes())),
            };
            if !carried {
                continue;
            }
            any = true;
            match &c.graphs {
                None => return Access::All,
                Some(g) => seen.extend(g.iter().cloned()),
            }
        }
        if any {
            Access::Graphs(seen)
        } else {
            Access::Denied
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cred(token: &str, header: Option<&str>, graphs: Option<&[&str]>) -> Credential {
        Credential {
            name: "t".into(),
            token: token.into(),
            header: header.map(str::to_string),
            graphs: graphs.map(|g| g.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[test]
    fn a_token_maps_to_its_graphs_and_no_token_to_nothing() {
        let s = Scopes::new(vec![
            cred("alpha-token", None, Some(&["a"])),
            cred("beta-token", Some("x-api-key"), Some(&["b"])),
            cred("root-token", None, None),
        ]);
        let mut h = HeaderMap::new();
        assert_eq!(s.access(&h), Access::Denied);
        h.insert("authorization", "Bearer alpha-token".parse().unwrap());
        assert_eq!(s.access(&h), Access::Graphs(["a".to_string()].into()));
        h.insert("x-api-key", "beta-token".parse().unwrap());
        assert_eq!(
            s.access(&h),
            Access::Graphs(["a".to_string(), "b".to_string()].into())
        );
        let mut h = HeaderMap::new();
        h.insert("authorization", "Bearer beta-token".parse().unwrap());
        assert_eq!(
            s.access(&h),
            Access::Denied,
            "a header credential is not a bearer"
        );
        h.insert("authorization", "bearer root-token".parse().unwrap());
        assert_eq!(s.access(&h), Access::All);
        assert_eq!(Scopes::default().access(&HeaderMap::new()), Access::All);
    }
}
