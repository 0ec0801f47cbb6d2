//! The schema graph: roots, reverse edges and distances from the roots (paths to the
//! root are searched in `paths.rs`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use apollo_compiler::schema::ExtendedType;
use apollo_compiler::Schema;

use crate::checked::CheckedSchema;
use crate::coordinate::{Coordinate, CoordinateKind};
use crate::error::SchemaError;
use crate::paths::PathKey;

/// A problem found while loading that did not stop the load.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Warning {
    /// `file:line:column` where known.
    pub location: String,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// The operation kind of a root type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RootKind {
    Query,
    Subscription,
    Mutation,
}

/// A field seen from the type it returns: `owner.field` returns (a wrapper of) `ty`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldRef {
    pub owner: String,
    pub field: String,
}

impl FieldRef {
    pub fn coordinate(&self) -> String {
        format!("{}.{}", self.owner, self.field)
    }
}

/// A loaded schema plus the indexes every later stage needs.
///
/// Invariants: every list here is in a deterministic order (schema declaration order or
/// sorted); nothing depends on hash-map iteration order.
pub struct SchemaGraph {
    /// The apollo-compiler schema with its validation outcome (valid, with the proof, or
    /// partial); reads as a [`Schema`].
    pub schema: CheckedSchema,
    /// Where it came from (a path or a URL without credentials).
    pub source: String,
    /// Problems found while loading.
    pub warnings: Vec<Warning>,
    query: Option<String>,
    mutation: Option<String>,
    subscription: Option<String>,
    /// type -> fields whose named return type can produce a value of that type
    /// (directly, through an interface it implements, or a union it belongs to), sorted.
    producers: HashMap<String, Vec<FieldRef>>,
    /// type -> (producer, hop cost in milli-units), sorted like `producers`.
    pub(crate) weighted_producers: HashMap<String, Vec<(FieldRef, u64)>>,
    /// interface -> implementing object and interface types, sorted.
    implementers: HashMap<String, Vec<String>>,
    /// per root kind: type -> fewest fields from that root.
    pub(crate) dist: HashMap<RootKind, HashMap<String, u64>>,
    /// Memo of [`SchemaGraph::paths_to_type`] without a tail, keyed by
    /// (type, max_paths, max_depth, include_mutation).
    pub(crate) path_memo: std::sync::Mutex<HashMap<PathKey, Vec<Vec<String>>>>,
    /// [`SchemaGraph::fingerprint`], computed on first use.
    fingerprint: std::sync::OnceLock<String>,
}

impl std::fmt::Debug for SchemaGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaGraph")
            .field("source", &self.source)
            .field("types", &self.schema.types.len())
            .field("warnings", &self.warnings.len())
            .finish()
    }
}

impl SchemaGraph {
    /// Build the graph over an already parsed schema.
    pub fn new(schema: CheckedSchema, source: impl Into<String>, warnings: Vec<Warning>) -> Self {
        let (query, mutation, subscription) = root_names(&schema);
        let (seen_as, mut implementers) = memberships(&schema);
        let direct = direct_producers(&schema);
        let possible = possible_counts(&schema, &implementers);
        let (producers, weighted_producers) =
            producer_maps(&schema, &direct, &seen_as, &implementers, &possible);
        for v in implementers.values_mut() {
            v.sort();
            v.dedup();
        }

        let mut g = SchemaGraph {
            schema,
            source: source.into(),
            warnings,
            query,
            mutation,
            subscription,
            producers,
            weighted_producers,
            implementers,
            dist: HashMap::new(),
            path_memo: std::sync::Mutex::new(HashMap::new()),
            fingerprint: std::sync::OnceLock::new(),
        };
        g.dist = g.root_distances();
        g
    }

    /// Per root kind: type -> fewest fields (in hop cost) from that root.
    fn root_distances(&self) -> HashMap<RootKind, HashMap<String, u64>> {
        // One forward map for all roots (building it per root took ~4 ms each on GitHub).
        let mut forward: HashMap<&str, Vec<(&str, u64)>> = HashMap::new();
        for (ty, prods) in &self.weighted_producers {
            for (fr, c) in prods {
                forward
                    .entry(fr.owner.as_str())
                    .or_default()
                    .push((ty.as_str(), *c));
            }
        }
        let mut dist = HashMap::new();
        for kind in [RootKind::Query, RootKind::Subscription, RootKind::Mutation] {
            if let Some(root) = self.root(kind) {
                dist.insert(kind, self.forward_distances(root, &forward));
            }
        }
        dist
    }

    /// A fingerprint of everything in the schema that a ranker reads (root operation
    /// types; per type, in declaration order, its kind, name, description, interfaces,
    /// union members, fields and arguments with types, defaults, descriptions and
    /// deprecations, enum values and input fields), computed once (~5 ms on GitHub).
    /// Saved indexes record it to refuse being served for another schema.
    pub fn fingerprint(&self) -> &str {
        self.fingerprint
            .get_or_init(|| crate::fingerprint::schema_fingerprint(&self.schema))
    }

    /// The root type name of an operation kind, from the schema definition.
    pub fn root(&self, kind: RootKind) -> Option<&str> {
        match kind {
            RootKind::Query => self.query.as_deref(),
            RootKind::Mutation => self.mutation.as_deref(),
            RootKind::Subscription => self.subscription.as_deref(),
        }
    }

    /// Which root kind a type is, if any.
    pub fn root_kind(&self, ty: &str) -> Option<RootKind> {
        [RootKind::Query, RootKind::Subscription, RootKind::Mutation]
            .into_iter()
            .find(|k| self.root(*k) == Some(ty))
    }

    /// Fields whose value can be of type `ty` (directly, or through an interface it
    /// implements or a union it belongs to). Sorted by owner, then field.
    pub fn producers(&self, ty: &str) -> &[FieldRef] {
        self.producers.get(ty).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Object and interface types implementing an interface, sorted.
    pub fn implementers(&self, interface: &str) -> &[String] {
        self.implementers
            .get(interface)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The types an abstract type can stand for: an interface's implementers, a union's
    /// members; empty for any other type.
    pub fn possible_types(&self, ty: &str) -> Vec<String> {
        match self.schema.types.get(ty) {
            Some(ExtendedType::Interface(_)) => self.implementers(ty).to_vec(),
            Some(ExtendedType::Union(u)) => u.members.iter().map(|m| m.to_string()).collect(),
            _ => Vec::new(),
        }
    }

    /// Cheapest path cost from the given root to `ty` (0 for the root itself), in hops:
    /// a field returning the type directly costs 1, one returning an abstract type that
    /// can stand for it costs more (see [`abstract_hop_cost`]).
    pub fn distance_from_root(&self, kind: RootKind, ty: &str) -> Option<f64> {
        self.dist
            .get(&kind)
            .and_then(|d| d.get(ty))
            .map(|&m| m as f64 / HOP as f64)
    }

    /// Cheapest path cost from the query (or else subscription) root.
    pub fn depth(&self, ty: &str) -> Option<f64> {
        self.distance_from_root(RootKind::Query, ty)
            .or_else(|| self.distance_from_root(RootKind::Subscription, ty))
    }

    /// Cheapest cost from `root` to every type it reaches: Dijkstra over `forward`
    /// (owner type -> (type one of its fields can produce, hop cost)), the reverse of
    /// `weighted_producers`.
    fn forward_distances(
        &self,
        root: &str,
        forward: &HashMap<&str, Vec<(&str, u64)>>,
    ) -> HashMap<String, u64> {
        let mut done: HashMap<&str, u64> = HashMap::new();
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0u64, root)));
        while let Some(Reverse((d, t))) = heap.pop() {
            if done.contains_key(t) {
                continue;
            }
            done.insert(t, d);
            // Paths never pass through another root type.
            if t != root && self.root_kind(t).is_some() {
                continue;
            }
            if let Some(next) = forward.get(t) {
                for &(n, c) in next {
                    if !done.contains_key(n) {
                        heap.push(Reverse((d + c, n)));
                    }
                }
            }
        }
        done.into_iter().map(|(t, d)| (t.to_string(), d)).collect()
    }

    /// Check that a coordinate exists and say what it is.
    pub fn resolve(&self, coord: &Coordinate) -> Result<CoordinateKind, SchemaError> {
        let unknown = || SchemaError::UnknownCoordinate {
            coordinate: coord.to_string(),
            suggestions: self.suggest(&coord.to_string(), 3),
        };
        match coord {
            Coordinate::Type(t) => match self.schema.types.get(t.as_str()) {
                Some(ExtendedType::Object(_)) => Ok(CoordinateKind::ObjectType),
                Some(ExtendedType::Interface(_)) => Ok(CoordinateKind::InterfaceType),
                Some(ExtendedType::Union(_)) => Ok(CoordinateKind::UnionType),
                Some(ExtendedType::Enum(_)) => Ok(CoordinateKind::EnumType),
                Some(ExtendedType::InputObject(_)) => Ok(CoordinateKind::InputType),
                Some(ExtendedType::Scalar(_)) => Ok(CoordinateKind::ScalarType),
                None => Err(unknown()),
            },
            Coordinate::Member { ty, member } => match self.schema.types.get(ty.as_str()) {
                Some(ExtendedType::Object(o)) if o.fields.contains_key(member.as_str()) => {
                    Ok(CoordinateKind::Field)
                }
                Some(ExtendedType::Interface(o)) if o.fields.contains_key(member.as_str()) => {
                    Ok(CoordinateKind::Field)
                }
                Some(ExtendedType::InputObject(o)) if o.fields.contains_key(member.as_str()) => {
                    Ok(CoordinateKind::InputField)
                }
                Some(ExtendedType::Enum(o)) if o.values.contains_key(member.as_str()) => {
                    Ok(CoordinateKind::EnumValue)
                }
                _ => Err(unknown()),
            },
            Coordinate::Argument { ty, field, arg } => {
                let f = match self.schema.types.get(ty.as_str()) {
                    Some(ExtendedType::Object(o)) => o.fields.get(field.as_str()),
                    Some(ExtendedType::Interface(o)) => o.fields.get(field.as_str()),
                    _ => None,
                };
                match f {
                    Some(f) if f.arguments.iter().any(|a| a.name == arg.as_str()) => {
                        Ok(CoordinateKind::Argument)
                    }
                    _ => Err(unknown()),
                }
            }
            Coordinate::Directive(d) => {
                if self.schema.directive_definitions.contains_key(d.as_str()) {
                    Ok(CoordinateKind::Directive)
                } else {
                    Err(unknown())
                }
            }
            Coordinate::DirectiveArgument { directive, arg } => {
                match self.schema.directive_definitions.get(directive.as_str()) {
                    Some(d) if d.arguments.iter().any(|a| a.name == arg.as_str()) => {
                        Ok(CoordinateKind::DirectiveArgument)
                    }
                    _ => Err(unknown()),
                }
            }
        }
    }

    /// Parse and resolve a coordinate string.
    pub fn resolve_str(&self, s: &str) -> Result<(Coordinate, CoordinateKind), SchemaError> {
        let c = Coordinate::parse(s)?;
        let k = self.resolve(&c)?;
        Ok((c, k))
    }

    /// Existing coordinates closest to `input` (edit distance on the lower-cased text,
    /// preferring the same owner type), at most `n`.
    pub fn suggest(&self, input: &str, n: usize) -> Vec<String> {
        let (owner, member) = match input.split_once('.') {
            Some((o, m)) => (o, Some(m.split('(').next().unwrap_or(m))),
            None => (input, None),
        };
        let mut scored: Vec<(usize, String)> = Vec::new();
        let owner_l = owner.to_ascii_lowercase();
        match member {
            None => {
                for name in self.schema.types.keys() {
                    if name.starts_with("__") {
                        continue;
                    }
                    scored.push((
                        edit_distance(&owner_l, &name.to_ascii_lowercase()),
                        name.to_string(),
                    ));
                }
            }
            Some(m) => {
                let m_l = m.to_ascii_lowercase();
                let owners: Vec<String> = if self.schema.types.contains_key(owner) {
                    vec![owner.to_string()]
                } else {
                    let mut o: Vec<(usize, String)> = self
                        .schema
                        .types
                        .keys()
                        .filter(|k| !k.starts_with("__"))
                        .map(|k| {
                            (
                                edit_distance(&owner_l, &k.to_ascii_lowercase()),
                                k.to_string(),
                            )
                        })
                        .collect();
                    o.sort();
                    o.into_iter().take(3).map(|x| x.1).collect()
                };
                for o in owners {
                    let od = edit_distance(&owner_l, &o.to_ascii_lowercase());
                    for mem in self.member_names(&o) {
                        let d = od + edit_distance(&m_l, &mem.to_ascii_lowercase());
                        scored.push((d, format!("{o}.{mem}")));
                    }
                }
            }
        }
        scored.sort();
        let limit = (input.len() / 2).max(3);
        scored
            .into_iter()
            .filter(|(d, _)| *d <= limit)
            .take(n)
            .map(|x| x.1)
            .collect()
    }

    /// Field, input-field or enum-value names of a type, in declaration order.
    pub fn member_names(&self, ty: &str) -> Vec<String> {
        match self.schema.types.get(ty) {
            Some(ExtendedType::Object(o)) => o.fields.keys().map(|k| k.to_string()).collect(),
            Some(ExtendedType::Interface(o)) => o.fields.keys().map(|k| k.to_string()).collect(),
            Some(ExtendedType::InputObject(o)) => o.fields.keys().map(|k| k.to_string()).collect(),
            Some(ExtendedType::Enum(o)) => o.values.keys().map(|k| k.to_string()).collect(),
            _ => Vec::new(),
        }
    }

    /// Number of field coordinates on object and interface types (`__` types excluded).
    pub fn field_count(&self) -> usize {
        self.schema
            .types
            .iter()
            .filter(|(n, _)| !n.starts_with("__"))
            .map(|(_, t)| match t {
                ExtendedType::Object(o) => o.fields.len(),
                ExtendedType::Interface(i) => i.fields.len(),
                _ => 0,
            })
            .sum()
    }
}

/// The query, mutation and subscription root type names, from the schema definition.
fn root_names(schema: &Schema) -> (Option<String>, Option<String>, Option<String>) {
    let name_of = |t: Option<&apollo_compiler::ast::NamedType>| t.map(|n| n.to_string());
    let def = &schema.schema_definition;
    let mut query = name_of(def.query.as_ref().map(|c| &c.name));
    let mut mutation = name_of(def.mutation.as_ref().map(|c| &c.name));
    let mut subscription = name_of(def.subscription.as_ref().map(|c| &c.name));
    // A schema without a `schema {}` block uses the default names when those types exist.
    let has_object = |n: &str| matches!(schema.types.get(n), Some(ExtendedType::Object(_)));
    if query.is_none() && has_object("Query") {
        query = Some("Query".into());
    }
    if mutation.is_none() && has_object("Mutation") {
        mutation = Some("Mutation".into());
    }
    if subscription.is_none() && has_object("Subscription") {
        subscription = Some("Subscription".into());
    }
    (query, mutation, subscription)
}

/// Type name -> type names (memberships, implementers).
type TypeLists = HashMap<String, Vec<String>>;
/// Type name -> fields producing it.
type Producers = HashMap<String, Vec<FieldRef>>;
/// Type name -> fields producing it, with their hop costs.
type WeightedProducers = HashMap<String, Vec<(FieldRef, u64)>>;

/// `(seen_as, implementers)`: type -> interfaces and unions it can be seen through, and
/// interface -> implementing types (declaration order, not yet deduplicated).
fn memberships(schema: &Schema) -> (TypeLists, TypeLists) {
    // Membership: type -> abstract types it can be seen through.
    let mut seen_as: HashMap<String, Vec<String>> = HashMap::new();
    let mut implementers: HashMap<String, Vec<String>> = HashMap::new();
    for (name, ty) in &schema.types {
        let interfaces = match ty {
            ExtendedType::Object(o) => Some(&o.implements_interfaces),
            ExtendedType::Interface(o) => Some(&o.implements_interfaces),
            _ => None,
        };
        for i in interfaces.into_iter().flatten() {
            seen_as
                .entry(name.to_string())
                .or_default()
                .push(i.to_string());
            implementers
                .entry(i.to_string())
                .or_default()
                .push(name.to_string());
        }
        if let ExtendedType::Union(u) = ty {
            for m in &u.members {
                seen_as
                    .entry(m.to_string())
                    .or_default()
                    .push(name.to_string());
            }
        }
    }
    (seen_as, implementers)
}

/// Named return type -> the object and interface fields returning it.
fn direct_producers(schema: &Schema) -> Producers {
    // Direct producers: named return type -> fields.
    let mut direct: HashMap<String, Vec<FieldRef>> = HashMap::new();
    for (name, ty) in &schema.types {
        let fields = match ty {
            ExtendedType::Object(o) => &o.fields,
            ExtendedType::Interface(i) => &i.fields,
            _ => continue,
        };
        if name.starts_with("__") {
            continue;
        }
        for (fname, f) in fields {
            direct
                .entry(f.ty.inner_named_type().to_string())
                .or_default()
                .push(FieldRef {
                    owner: name.to_string(),
                    field: fname.to_string(),
                });
        }
    }
    direct
}

/// Union and interface -> how many types it can stand for (`implementers` as listed,
/// before deduplication).
fn possible_counts(schema: &Schema, implementers: &TypeLists) -> HashMap<String, usize> {
    // Number of concrete types an abstract type can stand for.
    let mut possible: HashMap<String, usize> = HashMap::new();
    for (name, ty) in &schema.types {
        if let ExtendedType::Union(u) = ty {
            possible.insert(name.to_string(), u.members.len());
        }
    }
    for (i, objs) in implementers {
        possible.insert(i.clone(), objs.len());
    }
    possible
}

/// Producers per type: direct ones at [`HOP`], through an abstract type at
/// [`abstract_hop_cost`], through an implementation at [`HOP`]; returns the sorted
/// producer lists and the same with their costs.
fn producer_maps(
    schema: &Schema,
    direct: &Producers,
    seen_as: &TypeLists,
    implementers: &TypeLists,
    possible: &HashMap<String, usize>,
) -> (Producers, WeightedProducers) {
    let mut producers: HashMap<String, Vec<FieldRef>> = HashMap::new();
    let mut weighted_producers: HashMap<String, Vec<(FieldRef, u64)>> = HashMap::new();
    for name in schema.types.keys() {
        let mut best: std::collections::BTreeMap<FieldRef, u64> = std::collections::BTreeMap::new();
        if let Some(d) = direct.get(name.as_str()) {
            for f in d {
                best.insert(f.clone(), HOP);
            }
        }
        if let Some(abs) = seen_as.get(name.as_str()) {
            for a in abs {
                let cost = abstract_hop_cost(possible.get(a).copied().unwrap_or(1));
                if let Some(d) = direct.get(a) {
                    for f in d {
                        let e = best.entry(f.clone()).or_insert(cost);
                        *e = (*e).min(cost);
                    }
                }
            }
        }
        // An interface's fields are also reached through any field returning one of
        // its implementations.
        if let Some(imps) = implementers.get(name.as_str()) {
            for imp in imps {
                if let Some(d) = direct.get(imp) {
                    for f in d {
                        best.entry(f.clone()).or_insert(HOP);
                    }
                }
            }
        }
        if !best.is_empty() {
            producers.insert(name.to_string(), best.keys().cloned().collect());
            weighted_producers.insert(name.to_string(), best.into_iter().collect());
        }
    }
    (producers, weighted_producers)
}

/// Cost of one plain field hop, in milli-units.
pub const HOP: u64 = 1000;

/// Cost of a hop through a field whose return type is abstract (an interface or union
/// standing for `possible` concrete types): `1 + 0.25·log2(possible)` hops, plus
/// [`GENERIC_HOP_EXTRA`] beyond [`GENERIC_ABSTRACT`] types. A field returning a
/// four-member union costs 1.5 hops; `Query.node` (an interface with ~200 implementations
/// on GitHub) costs ~4.9, so specific entry points win over generic ones.
pub fn abstract_hop_cost(possible: usize) -> u64 {
    let p = possible.max(1) as f64;
    let generic = if possible > GENERIC_ABSTRACT {
        GENERIC_HOP_EXTRA
    } else {
        0
    };
    HOP + (250.0 * p.log2()).round() as u64 + generic
}

/// An interface or union standing for more than this many types is a *generic lookup*
/// (`Query.node`, `Query.resource`): it reaches everything by an ID or URL the caller
/// must already hold, so it says nothing about how a type is navigated to.
pub const GENERIC_ABSTRACT: usize = 16;

/// Extra cost of a hop through a generic lookup, in milli-units (two plain hops): a path
/// through one comes after the specific paths of up to two more fields.
pub const GENERIC_HOP_EXTRA: u64 = 2 * HOP;

/// Levenshtein distance over bytes.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a = a.as_bytes();
    let b = b.as_bytes();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}
