//! The structural closure of a selection: which arguments of the selected fields
//! survive, which input types, enums, unions and scalars they need (input fields, enum
//! values and union members pruned the same way), and, in the closed form, the stubs
//! that define every type named. [`Pruner`] holds the pruning rules; the selection
//! stage asks it too, for cost estimates.

use std::borrow::Cow;
use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gqlnav_schema::apollo_compiler::ast::{FieldDefinition, InputValueDefinition};
use gqlnav_schema::apollo_compiler::schema::{Component, ExtendedType};
use gqlnav_schema::{RootKind, SchemaGraph};

use crate::relevance::{NameTerms, Relevance, FORWARD_PAGINATION_ARGS, PAGINATION_ARGS};
use crate::render::RenderOptions;
use crate::selection::Selection;

pub(crate) fn fields_of(
    t: &ExtendedType,
) -> Option<
    &gqlnav_schema::apollo_compiler::collections::IndexMap<
        gqlnav_schema::apollo_compiler::Name,
        Component<FieldDefinition>,
    >,
> {
    match t {
        ExtendedType::Object(o) => Some(&o.fields),
        ExtendedType::Interface(o) => Some(&o.fields),
        _ => None,
    }
}

pub(crate) fn implements_of(t: &ExtendedType) -> Vec<String> {
    match t {
        ExtendedType::Object(o) => o
            .implements_interfaces
            .iter()
            .map(|c| c.to_string())
            .collect(),
        ExtendedType::Interface(o) => o
            .implements_interfaces
            .iter()
            .map(|c| c.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// A field returning one object keeps every argument only up to this many: a lookup
/// takes a key and a disambiguator or two, while a single-object field with dozens of
/// optional arguments is a filtered search returning the first match (GitLab's
/// `Project.issue` takes 50), whose arguments are pruned like a list's. Auto slices, no
/// model (measured 2026-12-03, docs/archive/history.md): dev 95.9% at 6,837 o200k for
/// every cap from 3 to 45 (no dev lookup takes more than 10); held-out WG gitlab 82.5% ->
/// 85.0% for every cap from 3 to 45; held-out nautical 92.5% from 4 up, 82.5% at 3, 75.0%
/// at 2. 10 keeps every dev lookup whole.
pub const MAX_LOOKUP_ARGS: usize = 10;

/// Is `a` the one free-text argument of `f`: optional, of the built-in `String` type
/// (not a list), not a pagination cursor, and the only such argument `f` takes? A list
/// field's lone string argument is its search or filter string (`query: String`,
/// `search: String`); questions that filter a collection need it, and its name rarely
/// shares a word with the question. Slices without a budget keep it on every selected
/// list field (`fit.rs`); measured 2026-12-03 (docs/archive/history.md).
fn lone_search_string(f: &FieldDefinition, a: &InputValueDefinition) -> bool {
    let free_text = |x: &InputValueDefinition| {
        !x.ty.is_list()
            && x.ty.inner_named_type().as_str() == "String"
            && !is_required(x)
            && !PAGINATION_ARGS.contains(&x.name.as_str())
    };
    free_text(a) && f.arguments.iter().filter(|x| free_text(x)).count() == 1
}

/// The one optional `Boolean` argument of `f` (not a list), if `f` takes exactly one.
fn lone_switch(f: &FieldDefinition) -> Option<&InputValueDefinition> {
    let mut switches = f.arguments.iter().filter(|x| {
        !x.ty.is_list() && x.ty.inner_named_type().as_str() == "Boolean" && !is_required(x)
    });
    let first = switches.next()?;
    switches.next().is_none().then_some(first.as_ref())
}

pub(crate) fn is_required(a: &InputValueDefinition) -> bool {
    a.ty.is_non_null() && a.default_value.is_none()
}

/// Pruning decisions, shared by the selection stage (for cost estimates) and rendering.
pub struct Pruner<'a> {
    graph: &'a SchemaGraph,
    rel: &'a Relevance,
    /// Enum types with a value matching the question (memo).
    enum_memo: std::cell::RefCell<HashMap<String, bool>>,
    /// Names matching the question (memo).
    name_memo: std::cell::RefCell<HashMap<String, bool>>,
    /// Input values relevant to the question (memo, by the address of the definition,
    /// which the schema holds behind a shared pointer for as long as the pruner lives).
    value_memo: std::cell::RefCell<HashMap<(usize, bool), bool>>,
    /// The schema's names, split once, and which of their terms match the question.
    names: Option<(&'a NameTerms, Vec<bool>)>,
}

impl<'a> Pruner<'a> {
    /// A pruner for one question.
    pub fn new(graph: &'a SchemaGraph, rel: &'a Relevance) -> Self {
        Pruner {
            graph,
            rel,
            enum_memo: Default::default(),
            name_memo: Default::default(),
            value_memo: Default::default(),
            names: None,
        }
    }

    /// A pruner for one question that looks schema names up in `names` instead of
    /// splitting them again (same answers, faster).
    pub fn with_names(graph: &'a SchemaGraph, rel: &'a Relevance, names: &'a NameTerms) -> Self {
        Pruner {
            names: Some((names, names.hits(rel))),
            ..Pruner::new(graph, rel)
        }
    }

    /// [`Relevance::name_matches`], memoised.
    pub fn name_matches(&self, name: &str) -> bool {
        if self.rel.is_empty() {
            return false;
        }
        if let Some((n, hits)) = &self.names {
            if let Some(ids) = n.ids(name) {
                return ids.iter().any(|&i| hits[i as usize]);
            }
        }
        if let Some(&b) = self.name_memo.borrow().get(name) {
            return b;
        }
        let b = self.rel.name_matches(name);
        self.name_memo.borrow_mut().insert(name.to_string(), b);
        b
    }

    fn enum_relevant(&self, name: &str) -> bool {
        if let Some(&b) = self.enum_memo.borrow().get(name) {
            return b;
        }
        let b = match self.graph.schema.types.get(name) {
            Some(ExtendedType::Enum(e)) => e.values.keys().any(|v| self.name_matches(v)),
            _ => false,
        };
        self.enum_memo.borrow_mut().insert(name.to_string(), b);
        b
    }

    /// Is an input value (argument or input field) relevant to the question?
    fn value_relevant(&self, v: &InputValueDefinition, look_inside: bool) -> bool {
        let key = (v as *const InputValueDefinition as usize, look_inside);
        if let Some(&b) = self.value_memo.borrow().get(&key) {
            return b;
        }
        let b = self.value_relevant_uncached(v, look_inside);
        self.value_memo.borrow_mut().insert(key, b);
        b
    }

    fn value_relevant_uncached(&self, v: &InputValueDefinition, look_inside: bool) -> bool {
        if self.name_matches(&v.name) {
            return true;
        }
        let nt = v.ty.inner_named_type().as_str();
        match self.graph.schema.types.get(nt) {
            Some(ExtendedType::Enum(_)) => self.enum_relevant(nt),
            Some(ExtendedType::InputObject(i)) if look_inside => i
                .fields
                .values()
                .any(|f| self.name_matches(&f.name) || self.enum_relevant(f.ty.inner_named_type())),
            _ => false,
        }
    }

    /// Does argument `a` of a selected field survive? Every argument of a field that
    /// returns one object (not a list, not a connection) and takes at most
    /// [`MAX_LOOKUP_ARGS`] arguments survives: such arguments select *which* object, and
    /// the field is unusable without knowing them.
    pub fn keep_arg_of(&self, f: &FieldDefinition, a: &InputValueDefinition) -> bool {
        self.is_lookup(f) || self.keep_arg(a)
    }

    /// Is `f` a lookup: does it return one object (not a list, not a connection) and take
    /// at most [`MAX_LOOKUP_ARGS`] arguments?
    fn is_lookup(&self, f: &FieldDefinition) -> bool {
        f.arguments.len() <= MAX_LOOKUP_ARGS
            && !f.ty.is_list()
            && !f
                .arguments
                .iter()
                .any(|x| PAGINATION_ARGS.contains(&x.name.as_str()))
            && self
                .graph
                .schema
                .types
                .get(f.ty.inner_named_type())
                .is_some_and(|t| {
                    matches!(
                        t,
                        ExtendedType::Object(_)
                            | ExtendedType::Interface(_)
                            | ExtendedType::Union(_)
                    )
                })
    }

    /// The lone free-text argument of `f`, a list, a connection or a filtered search (not
    /// a lookup), if it has one ([`lone_search_string`]).
    pub(crate) fn search_string_of<'f>(&self, f: &'f FieldDefinition) -> Option<&'f str> {
        if self.is_lookup(f) {
            return None;
        }
        f.arguments
            .iter()
            .find(|a| lone_search_string(f, a))
            .map(|a| a.name.as_str())
    }

    /// The lone switch of a list, connection or filtered search `f` (not a lookup) whose
    /// enum argument survives: a collection the question sorts or filters by a named
    /// value (`sortKey: TOTAL_PRICE`) takes its one optional `Boolean` with it (the sort
    /// direction, `reverse`; or the switch that widens the list, `includeArchived`), as
    /// an agent ordering "the biggest first" needs the direction and its name shares no
    /// word with the question. A field with several switches keeps only the relevant
    /// ones. Slices without a budget apply it (`fit.rs`); measured 2026-12-03
    /// (docs/archive/history.md).
    pub(crate) fn switch_of<'f>(&self, f: &'f FieldDefinition) -> Option<&'f str> {
        if self.is_lookup(f) {
            return None;
        }
        let sorted = f.arguments.iter().any(|a| {
            !a.ty.is_list()
                && matches!(
                    self.graph.schema.types.get(a.ty.inner_named_type()),
                    Some(ExtendedType::Enum(_))
                )
                && self.keep_arg(a)
        });
        if !sorted {
            return None;
        }
        lone_switch(f).map(|a| a.name.as_str())
    }

    /// Is `a` kept for the question's words alone (not required, not a paging argument)?
    pub fn matched_arg(&self, a: &InputValueDefinition) -> bool {
        !is_required(a)
            && !FORWARD_PAGINATION_ARGS.contains(&a.name.as_str())
            && self.value_relevant(a, true)
    }

    /// Does argument `a` survive by itself (required, forward pagination, relevant)?
    pub fn keep_arg(&self, a: &InputValueDefinition) -> bool {
        is_required(a)
            || FORWARD_PAGINATION_ARGS.contains(&a.name.as_str())
            || self.value_relevant(a, true)
    }

    /// Does input field `f` survive?
    pub fn keep_input_field(&self, f: &InputValueDefinition) -> bool {
        is_required(f) || self.value_relevant(f, false)
    }

    /// Kept members of a union: all of a small one (at most `small`); of a larger one,
    /// those defined in the slice (`owners`) or named by the question, else the first
    /// `small`. Returns (members, how many were left out).
    pub fn union_members(
        &self,
        u: &gqlnav_schema::apollo_compiler::schema::UnionType,
        owners: &HashSet<&str>,
        small: usize,
    ) -> (Vec<String>, usize) {
        let all: Vec<String> = u.members.iter().map(|m| m.to_string()).collect();
        if all.len() <= small {
            return (all, 0);
        }
        let mut kept: Vec<String> = all
            .iter()
            .filter(|m| owners.contains(m.as_str()) || self.name_matches(m))
            .cloned()
            .collect();
        if kept.is_empty() {
            kept = all.iter().take(small).cloned().collect();
        }
        let left = all.len() - kept.len();
        (kept, left)
    }

    /// Kept values of an enum: the relevant ones; else all when there are at most
    /// `small`; else the first `small`. Returns (values, how many were left out).
    pub fn enum_values(&self, name: &str, small: usize) -> (Vec<String>, usize) {
        let Some(ExtendedType::Enum(e)) = self.graph.schema.types.get(name) else {
            return (Vec::new(), 0);
        };
        let all: Vec<String> = e.values.keys().map(|k| k.to_string()).collect();
        let rel: Vec<String> = all
            .iter()
            .filter(|v| self.name_matches(v))
            .cloned()
            .collect();
        if !rel.is_empty() {
            let n = all.len() - rel.len();
            return (rel, n);
        }
        if all.len() <= small {
            return (all, 0);
        }
        let n = all.len() - small;
        (all.into_iter().take(small).collect(), n)
    }
}

/// A definition of the closure besides the selected owner types.
pub(crate) enum Def {
    Scalar,
    /// Kept values and how many were left out.
    Enum(Vec<String>, usize),
    /// Kept input fields.
    Input(Vec<String>),
    /// Kept members and how many were left out.
    Union(Vec<String>, usize),
    /// A one-field stub of an object or interface (closed form): the field's name.
    Stub(String),
}

/// The structural closure of a selection, ready to be written in any style.
pub(crate) struct Closure<'g, 's> {
    /// The selection; in the closed form, completed so that an implementer carries the
    /// selected fields of every interface it keeps in `implements`.
    pub(crate) sel: Cow<'s, Selection>,
    /// Selected owner types (objects and interfaces), in schema order.
    pub(crate) owners: Vec<&'g str>,
    /// The same, as a set.
    pub(crate) owner_set: HashSet<&'g str>,
    /// `(owner, field)` of every selected field -> its surviving arguments.
    pub(crate) kept_args: HashMap<(&'g str, &'g str), Vec<&'g str>>,
    /// The other definitions.
    pub(crate) defs: HashMap<String, Def>,
    /// Types named but not defined (open form).
    pub(crate) not_shown: HashSet<String>,
    /// Types defined as stubs (closed form).
    pub(crate) stubs: HashSet<String>,
    /// The query root's name.
    pub(crate) q_root: Option<String>,
}

/// Named types to define (or list as not shown), each once, in the order first named.
#[derive(Default)]
struct Queue {
    items: VecDeque<String>,
    seen: HashSet<String>,
}

impl Queue {
    fn push(&mut self, n: &str) {
        if !self.seen.contains(n) {
            self.seen.insert(n.to_string());
            self.items.push_back(n.to_string());
        }
    }
}

/// The closure of `sel`: surviving arguments and the definitions they need.
pub(crate) fn close<'g, 's>(
    graph: &'g SchemaGraph,
    sel: &'s Selection,
    pr: &Pruner<'_>,
    opts: RenderOptions,
) -> Closure<'g, 's> {
    let schema = &graph.schema;
    let mut sel = Cow::Borrowed(sel);
    if opts.closed {
        complete_implementations(graph, &mut sel);
    }
    let q_root = graph.root(RootKind::Query).map(str::to_string);
    let mut queue = Queue::default();
    // The selected types in schema order (a schema has thousands of types; a
    // selection a few hundred).
    let mut owners: Vec<(usize, &'g str)> = sel
        .fields
        .iter()
        .filter(|(_, f)| !f.is_empty())
        .filter_map(|(n, _)| {
            let (i, k, t) = schema.types.get_full(n.as_str())?;
            fields_of(t).map(|_| (i, k.as_str()))
        })
        .collect();
    owners.sort_unstable_by_key(|o| o.0);
    let owners: Vec<&'g str> = owners.into_iter().map(|o| o.1).collect();
    let owner_set: HashSet<&'g str> = owners.iter().copied().collect();
    let mut kept_args = kept_arguments(graph, &sel, pr, &owners, &mut queue);
    if opts.closed {
        interface_arguments(graph, &mut kept_args);
        if let Some(q) = &q_root {
            if !sel.has_type(q) {
                queue.push(q);
            }
        }
    }
    let mut c = Closure {
        sel,
        owners,
        owner_set,
        kept_args,
        defs: HashMap::default(),
        not_shown: HashSet::default(),
        stubs: HashSet::default(),
        q_root,
    };
    while let Some(n) = queue.items.pop_front() {
        c.define(graph, pr, opts, n, &mut queue);
    }
    c
}

/// Closed form: an implementer must carry the selected fields of every interface it
/// keeps in `implements` (only interfaces with selected fields are kept).
fn complete_implementations(graph: &SchemaGraph, sel: &mut Cow<'_, Selection>) {
    let schema = &graph.schema;
    loop {
        let mut add = Vec::new();
        for (t, _) in sel.fields.iter() {
            let Some(def) = schema.types.get(t.as_str()) else {
                continue;
            };
            for i in implements_of(def) {
                if let Some(fs) = sel.fields.get(&i) {
                    for f in fs {
                        if !sel.contains(t, f) {
                            add.push((t.clone(), f.clone()));
                        }
                    }
                }
            }
        }
        if add.is_empty() {
            break;
        }
        for (t, f) in add {
            sel.to_mut().insert(&t, &f);
        }
    }
}

/// The surviving arguments of every selected field (forced ones, or kept by the
/// pruner); the types of the fields and of their kept arguments go on the queue.
fn kept_arguments<'g>(
    graph: &'g SchemaGraph,
    sel: &Selection,
    pr: &Pruner<'_>,
    owners: &[&'g str],
    queue: &mut Queue,
) -> HashMap<(&'g str, &'g str), Vec<&'g str>> {
    let mut kept_args: HashMap<(&str, &str), Vec<&str>> = HashMap::default();
    let forced: HashSet<(&str, &str, &str)> = sel
        .forced_args
        .iter()
        .map(|(t, f, a)| (t.as_str(), f.as_str(), a.as_str()))
        .collect();
    for &tn in owners {
        let Some(t) = graph.schema.types.get(tn) else {
            continue;
        };
        queue.seen.insert(tn.to_string());
        let Some(fields) = fields_of(t) else {
            continue;
        };
        let Some(chosen) = sel.fields.get(tn) else {
            continue;
        };
        for (fname, f) in fields {
            let fname = fname.as_str();
            if !chosen.contains(fname) {
                continue;
            }
            let mut ka = Vec::new();
            for a in &f.arguments {
                if forced.contains(&(tn, fname, a.name.as_str())) || pr.keep_arg_of(f, a) {
                    ka.push(a.name.as_str());
                    queue.push(a.ty.inner_named_type());
                }
            }
            kept_args.insert((tn, fname), ka);
            queue.push(f.ty.inner_named_type());
        }
    }
    kept_args
}

/// Closed form: an implementation's field must accept every argument its interface's
/// field shows.
fn interface_arguments<'g>(
    graph: &'g SchemaGraph,
    kept_args: &mut HashMap<(&'g str, &'g str), Vec<&'g str>>,
) {
    let mut extra: Vec<((&str, &str), Vec<&str>)> = Vec::new();
    for (&(tn, fname), _) in kept_args.iter() {
        let Some(def) = graph.schema.types.get(tn) else {
            continue;
        };
        for iname in implements_of(def) {
            if let Some(ika) = kept_args.get(&(iname.as_str(), fname)) {
                extra.push(((tn, fname), ika.clone()));
            }
        }
    }
    for (k, add) in extra {
        if let Some(ka) = kept_args.get_mut(&k) {
            for a in add {
                if !ka.contains(&a) {
                    ka.push(a);
                }
            }
        }
    }
}

/// The field a stub shows: the first with a built-in type and no required argument,
/// else the first with no required argument, else the first.
fn stub_field<'g>(
    graph: &'g SchemaGraph,
    t: &'g ExtendedType,
) -> Option<&'g Component<FieldDefinition>> {
    let fields = fields_of(t)?;
    let builtin = |f: &FieldDefinition| {
        graph
            .schema
            .types
            .get(f.ty.inner_named_type())
            .is_some_and(|x| x.is_built_in())
    };
    let no_req = |f: &FieldDefinition| !f.arguments.iter().any(|a| is_required(a));
    fields
        .values()
        .find(|f| builtin(f) && no_req(f))
        .or_else(|| fields.values().find(|f| no_req(f)))
        .or_else(|| fields.values().next())
}

impl Closure<'_, '_> {
    /// Define one named type of the queue (or list it as not shown), queueing what its
    /// definition names in turn.
    fn define(
        &mut self,
        graph: &SchemaGraph,
        pr: &Pruner<'_>,
        opts: RenderOptions,
        n: String,
        queue: &mut Queue,
    ) {
        let Some(t) = graph.schema.types.get(n.as_str()) else {
            return;
        };
        if t.is_built_in() || self.owner_set.contains(n.as_str()) {
            return;
        }
        match t {
            ExtendedType::Scalar(_) => {
                self.defs.insert(n, Def::Scalar);
            }
            ExtendedType::Enum(_) => {
                let (v, left) = pr.enum_values(&n, opts.enum_small);
                self.defs.insert(n, Def::Enum(v, left));
            }
            ExtendedType::Union(u) => {
                let (m, left) = pr.union_members(u, &self.owner_set, opts.enum_small);
                for x in &m {
                    queue.push(x);
                }
                self.defs.insert(n, Def::Union(m, left));
            }
            ExtendedType::InputObject(i) => {
                let mut kept: Vec<String> = i
                    .fields
                    .values()
                    .filter(|f| pr.keep_input_field(f))
                    .map(|f| f.name.to_string())
                    .collect();
                if kept.is_empty() && opts.closed {
                    if let Some(f) = i
                        .fields
                        .values()
                        .find(|f| is_required(f))
                        .or_else(|| i.fields.values().next())
                    {
                        kept.push(f.name.to_string());
                    }
                }
                if kept.is_empty() {
                    self.not_shown.insert(n);
                    return;
                }
                for k in &kept {
                    queue.push(i.fields[k.as_str()].ty.inner_named_type());
                }
                self.defs.insert(n, Def::Input(kept));
            }
            ExtendedType::Object(_) | ExtendedType::Interface(_) => {
                if !opts.closed {
                    self.not_shown.insert(n);
                    return;
                }
                if let Some(f) = stub_field(graph, t) {
                    for a in f.arguments.iter().filter(|a| is_required(a)) {
                        queue.push(a.ty.inner_named_type());
                    }
                    queue.push(f.ty.inner_named_type());
                    self.stubs.insert(n.clone());
                    self.defs.insert(n, Def::Stub(f.name.to_string()));
                }
            }
        }
    }
}
