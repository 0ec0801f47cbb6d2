//! Rendering a selection of fields as SDL: the type closure (arguments, input types,
//! enums, unions), argument / input-field / enum-value pruning, and the three styles.

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gqlnav_schema::apollo_compiler::ast::{FieldDefinition, InputValueDefinition, Type};
use gqlnav_schema::apollo_compiler::schema::{Component, ExtendedType};
use gqlnav_schema::apollo_compiler::Node;
use gqlnav_schema::{RootKind, SchemaGraph};

use crate::relevance::{NameTerms, Relevance, FORWARD_PAGINATION_ARGS, PAGINATION_ARGS};

/// How a slice is written.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// SDL with descriptions (block strings) on types, fields, arguments and values.
    #[default]
    Sdl,
    /// SDL without descriptions: the cheapest form, and what the WG suite renders.
    Bare,
    /// One line per field with its description as a trailing comment (first sentence);
    /// descriptions repeated in the slice (pagination arguments, …) are written once in a
    /// legend at the top and referred to as `[n]`.
    Compact,
    /// SDL without descriptions, one line per definition
    /// (`type Ref { name: String! target: GitObject }`): the same members as `bare` for
    /// about 15% fewer tokens (the line breaks and two-space indents of `bare` cost a
    /// token per field in cl100k_base and o200k_base).
    Dense,
}

impl Style {
    /// The style's name (`sdl`, `bare`, `compact`).
    pub fn name(self) -> &'static str {
        match self {
            Style::Sdl => "sdl",
            Style::Bare => "bare",
            Style::Compact => "compact",
            Style::Dense => "dense",
        }
    }

    /// Parse a style name.
    pub fn parse(s: &str) -> Option<Style> {
        match s.to_ascii_lowercase().as_str() {
            "sdl" => Some(Style::Sdl),
            "bare" | "nodesc" | "no-descriptions" => Some(Style::Bare),
            "compact" => Some(Style::Compact),
            "dense" => Some(Style::Dense),
            _ => None,
        }
    }
}

/// The selected fields of a slice, per owner type, plus arguments kept on request.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// owner type -> selected field names.
    pub fields: HashMap<String, BTreeSet<String>>,
    /// `(type, field, argument)` kept whatever the pruning rule says.
    pub forced_args: HashSet<(String, String, String)>,
    /// Number of selected fields.
    pub len: usize,
}

impl Selection {
    /// Add `Type.field`; true when it was new.
    pub fn insert(&mut self, ty: &str, field: &str) -> bool {
        let new = self
            .fields
            .entry(ty.to_string())
            .or_default()
            .insert(field.to_string());
        if new {
            self.len += 1;
        }
        new
    }

    /// Is `Type.field` selected?
    pub fn contains(&self, ty: &str, field: &str) -> bool {
        self.fields.get(ty).is_some_and(|s| s.contains(field))
    }

    /// Is any field of `ty` selected?
    pub fn has_type(&self, ty: &str) -> bool {
        self.fields.get(ty).is_some_and(|s| !s.is_empty())
    }
}

/// A rendered slice before the closing comment line.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The SDL definitions (no `# not shown` line).
    pub body: String,
    /// Types named by the slice but not defined in it (default mode), in schema order.
    pub not_shown: Vec<String>,
    /// Number of definitions.
    pub types: usize,
    /// Rendered field and argument coordinates (`T.f`, `T.f(a:)`), in render order.
    pub coordinates: Vec<String>,
}

fn fields_of(
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

fn implements_of(t: &ExtendedType) -> Vec<String> {
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

fn is_required(a: &InputValueDefinition) -> bool {
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
    /// returns one object (not a list, not a connection) survives: such arguments select
    /// *which* object, and the field is unusable without knowing them.
    pub fn keep_arg_of(&self, f: &FieldDefinition, a: &InputValueDefinition) -> bool {
        let single = !f.ty.is_list()
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
                });
        single || self.keep_arg(a)
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

/// Rendering settings.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Writing style.
    pub style: Style,
    /// Define every named type (stubs where needed) so that the slice validates.
    pub closed: bool,
    /// Enums with no relevant value show all values up to this many, else this many.
    pub enum_small: usize,
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_sentence(s: &str, max: usize) -> String {
    let s = squash(s);
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        if (c == '.' || c == '!' || c == '?') && (i + 1 == s.len() || s[i + 1..].starts_with(' ')) {
            end = i + 1;
            break;
        }
    }
    let mut out = s[..end].to_string();
    if out.chars().count() > max {
        out = out.chars().take(max).collect::<String>();
        out.push('…');
    }
    out
}

fn block_string(desc: &str, indent: &str) -> String {
    let d = desc.trim().replace("\"\"\"", "\\\"\"\"");
    if !d.contains('\n') && !d.ends_with('"') && !d.ends_with('\\') {
        format!("{indent}\"\"\"{d}\"\"\"\n")
    } else {
        let mut s = format!("{indent}\"\"\"\n");
        for line in d.lines() {
            s.push_str(indent);
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s.push_str(indent);
        s.push_str("\"\"\"\n");
        s
    }
}

struct Legend {
    counts: HashMap<String, usize>,
    ids: std::cell::RefCell<Vec<String>>,
    index: std::cell::RefCell<HashMap<String, usize>>,
}

impl Legend {
    /// A compact description: repeated long ones become `[n]`.
    fn say(&self, desc: &str) -> String {
        let s = first_sentence(desc, 160);
        if s.chars().count() >= 24 && self.counts.get(&s).copied().unwrap_or(0) >= 2 {
            let mut idx = self.index.borrow_mut();
            let n = match idx.get(&s) {
                Some(n) => *n,
                None => {
                    let mut ids = self.ids.borrow_mut();
                    ids.push(s.clone());
                    let n = ids.len();
                    idx.insert(s, n);
                    n
                }
            };
            format!("[{n}]")
        } else {
            s
        }
    }
}

fn desc_str(d: &Option<Node<str>>) -> Option<&str> {
    d.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Render a selection.
pub fn render(
    graph: &SchemaGraph,
    sel: &Selection,
    pr: &Pruner<'_>,
    opts: RenderOptions,
) -> Rendered {
    let schema = &graph.schema;
    let mut sel = std::borrow::Cow::Borrowed(sel);
    // Closed mode: an implementer must carry the selected fields of every interface it
    // keeps in `implements` (only interfaces with selected fields are kept).
    if opts.closed {
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
    let q_root = graph.root(RootKind::Query).map(str::to_string);
    // The closed form needs a query root with at least one field.
    let mut stubs: HashSet<String> = HashSet::default();
    // Queue of named types to define (or list as not shown).
    let mut queue: VecDeque<String> = VecDeque::new();
    let mut seen: HashSet<String> = HashSet::default();
    let mut kept_args: HashMap<(&str, &str), Vec<&str>> = HashMap::default();
    let push = |q: &mut VecDeque<String>, seen: &mut HashSet<String>, n: &str| {
        if !seen.contains(n) {
            seen.insert(n.to_string());
            q.push_back(n.to_string());
        }
    };
    let forced: HashSet<(&str, &str, &str)> = sel
        .forced_args
        .iter()
        .map(|(t, f, a)| (t.as_str(), f.as_str(), a.as_str()))
        .collect();
    // Selected owner types, in schema order.
    let owners: Vec<String> = schema
        .types
        .iter()
        .filter(|(n, t)| sel.has_type(n.as_str()) && fields_of(t).is_some())
        .map(|(n, _)| n.to_string())
        .collect();
    let owner_set: HashSet<&str> = owners.iter().map(String::as_str).collect();
    for (tn, t) in &schema.types {
        let tn = tn.as_str();
        if !owner_set.contains(tn) {
            continue;
        }
        seen.insert(tn.to_string());
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
                    push(&mut queue, &mut seen, a.ty.inner_named_type());
                }
            }
            kept_args.insert((tn, fname), ka);
            push(&mut queue, &mut seen, f.ty.inner_named_type());
        }
    }
    // Closed mode: an implementation's field must accept every argument its interface's
    // field shows.
    if opts.closed {
        let mut extra: Vec<((&str, &str), Vec<&str>)> = Vec::new();
        for (&(tn, fname), _) in kept_args.iter() {
            let Some(def) = schema.types.get(tn) else {
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
    if opts.closed {
        if let Some(q) = &q_root {
            if !sel.has_type(q) {
                push(&mut queue, &mut seen, q);
            }
        }
    }
    // Definitions of the closure (besides the selected owners).
    enum Def {
        Scalar,
        Enum(Vec<String>, usize),
        Input(Vec<String>),
        Union(Vec<String>, usize),
        Stub(String),
    }
    let mut defs: HashMap<String, Def> = HashMap::default();
    let mut not_shown: HashSet<String> = HashSet::default();
    while let Some(n) = queue.pop_front() {
        let Some(t) = schema.types.get(n.as_str()) else {
            continue;
        };
        if t.is_built_in() || owner_set.contains(n.as_str()) {
            continue;
        }
        match t {
            ExtendedType::Scalar(_) => {
                defs.insert(n, Def::Scalar);
            }
            ExtendedType::Enum(_) => {
                let (v, left) = pr.enum_values(&n, opts.enum_small);
                defs.insert(n, Def::Enum(v, left));
            }
            ExtendedType::Union(u) => {
                let (m, left) = pr.union_members(u, &owner_set, opts.enum_small);
                for x in &m {
                    push(&mut queue, &mut seen, x);
                }
                defs.insert(n, Def::Union(m, left));
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
                    not_shown.insert(n);
                    continue;
                }
                for k in &kept {
                    push(
                        &mut queue,
                        &mut seen,
                        i.fields[k.as_str()].ty.inner_named_type(),
                    );
                }
                defs.insert(n, Def::Input(kept));
            }
            ExtendedType::Object(_) | ExtendedType::Interface(_) => {
                if !opts.closed {
                    not_shown.insert(n);
                    continue;
                }
                let fields = fields_of(t).expect("object or interface");
                let builtin = |f: &FieldDefinition| {
                    schema
                        .types
                        .get(f.ty.inner_named_type())
                        .is_some_and(|x| x.is_built_in())
                };
                let no_req = |f: &FieldDefinition| !f.arguments.iter().any(|a| is_required(a));
                let pick = fields
                    .values()
                    .find(|f| builtin(f) && no_req(f))
                    .or_else(|| fields.values().find(|f| no_req(f)))
                    .or_else(|| fields.values().next());
                if let Some(f) = pick {
                    for a in f.arguments.iter().filter(|a| is_required(a)) {
                        push(&mut queue, &mut seen, a.ty.inner_named_type());
                    }
                    push(&mut queue, &mut seen, f.ty.inner_named_type());
                    stubs.insert(n.clone());
                    defs.insert(n, Def::Stub(f.name.to_string()));
                }
            }
        }
    }

    // Legend counts for the compact style.
    let legend = Legend {
        counts: HashMap::default(),
        ids: Default::default(),
        index: Default::default(),
    };
    let mut legend = legend;
    if opts.style == Style::Compact {
        let mut bump = |d: &Option<Node<str>>| {
            if let Some(d) = desc_str(d) {
                *legend.counts.entry(first_sentence(d, 160)).or_insert(0) += 1;
            }
        };
        for t in &owners {
            let Some(fields) = schema.types.get(t.as_str()).and_then(fields_of) else {
                continue;
            };
            for (fname, f) in fields {
                if let Some(ka) = kept_args.get(&(t.as_str(), fname.as_str())) {
                    bump(&f.description);
                    for a in f.arguments.iter().filter(|a| ka.contains(&a.name.as_str())) {
                        bump(&a.description);
                    }
                }
            }
        }
    }

    let mut blocks: Vec<String> = Vec::new();
    let mut coords: Vec<String> = Vec::new();
    // Dense is bare SDL with each definition on one line (joined below).
    let dense = opts.style == Style::Dense;
    let style = if dense { Style::Bare } else { opts.style };
    let type_desc = |out: &mut String, d: &Option<Node<str>>, indent: &str| {
        if let Some(d) = desc_str(d) {
            match style {
                Style::Sdl => out.push_str(&block_string(d, indent)),
                Style::Compact => {
                    out.push_str(indent);
                    out.push_str("# ");
                    out.push_str(&legend.say(d));
                    out.push('\n');
                }
                Style::Bare | Style::Dense => {}
            }
        }
    };
    let ty_str = |t: &Type| t.to_string();
    for (name, t) in &schema.types {
        let n = name.as_str();
        if n.starts_with("__") {
            continue;
        }
        let mut out = String::new();
        if owner_set.contains(n) {
            let fields = fields_of(t).expect("owner is object or interface");
            let kw = if matches!(t, ExtendedType::Interface(_)) {
                "interface"
            } else {
                "type"
            };
            let imps: Vec<String> = implements_of(t)
                .into_iter()
                .filter(|i| sel.has_type(i))
                .collect();
            type_desc(&mut out, &t.description().cloned(), "");
            out.push_str(kw);
            out.push(' ');
            out.push_str(n);
            if !imps.is_empty() {
                out.push_str(" implements ");
                out.push_str(&imps.join(" & "));
            }
            out.push_str(if dense { " {" } else { " {\n" });
            for (fname, f) in fields {
                let Some(ka) = kept_args.get(&(n, fname.as_str())) else {
                    continue;
                };
                coords.push(coord(n, fname));
                let args: Vec<&Node<InputValueDefinition>> = f
                    .arguments
                    .iter()
                    .filter(|a| ka.contains(&a.name.as_str()))
                    .collect();
                for a in &args {
                    let mut c = coord(n, fname);
                    c.push('(');
                    c.push_str(&a.name);
                    c.push_str(":)");
                    coords.push(c);
                }
                match style {
                    Style::Sdl => {
                        if let Some(d) = desc_str(&f.description) {
                            out.push_str(&block_string(d, "  "));
                        }
                        out.push_str("  ");
                        out.push_str(fname);
                        let any_desc = args.iter().any(|a| desc_str(&a.description).is_some());
                        if !args.is_empty() {
                            if any_desc {
                                out.push_str("(\n");
                                for a in &args {
                                    if let Some(d) = desc_str(&a.description) {
                                        out.push_str(&block_string(d, "    "));
                                    }
                                    out.push_str(&format!("    {}: {}\n", a.name, ty_str(&a.ty)));
                                }
                                out.push_str("  )");
                            } else {
                                let parts: Vec<String> = args
                                    .iter()
                                    .map(|a| format!("{}: {}", a.name, ty_str(&a.ty)))
                                    .collect();
                                out.push_str(&format!("({})", parts.join(", ")));
                            }
                        }
                        out.push_str(&format!(": {}\n", ty_str(&f.ty)));
                    }
                    Style::Bare | Style::Dense | Style::Compact => {
                        // Dense writes the fields on the header's line (` {`, ` f: T`, ` }`).
                        out.push_str(if dense { " " } else { "  " });
                        out.push_str(fname);
                        if !args.is_empty() {
                            out.push('(');
                            for (i, a) in args.iter().enumerate() {
                                if i > 0 {
                                    out.push_str(", ");
                                }
                                out.push_str(&a.name);
                                out.push_str(": ");
                                let _ = write!(out, "{}", a.ty);
                            }
                            out.push(')');
                        }
                        out.push_str(": ");
                        let _ = write!(out, "{}", f.ty);
                        if style == Style::Compact {
                            let mut notes = Vec::new();
                            if let Some(d) = desc_str(&f.description) {
                                notes.push(legend.say(d));
                            }
                            for a in &args {
                                if let Some(d) = desc_str(&a.description) {
                                    notes.push(format!("{}: {}", a.name, legend.say(d)));
                                }
                            }
                            if !notes.is_empty() {
                                out.push_str("  # ");
                                out.push_str(&notes.join(" | "));
                            }
                        }
                        if !dense {
                            out.push('\n');
                        }
                    }
                }
            }
            out.push_str(if dense { " }" } else { "}" });
            blocks.push(out);
            continue;
        }
        let Some(def) = defs.get(n) else { continue };
        match def {
            Def::Scalar => {
                type_desc(&mut out, &t.description().cloned(), "");
                out.push_str(&format!("scalar {n}"));
            }
            Def::Enum(vals, left) => {
                let ExtendedType::Enum(e) = t else { continue };
                type_desc(&mut out, &e.description, "");
                out.push_str(&format!("enum {n} {{\n"));
                for v in vals {
                    if style == Style::Sdl {
                        if let Some(d) = e
                            .values
                            .get(v.as_str())
                            .and_then(|x| desc_str(&x.description))
                        {
                            out.push_str(&block_string(d, "  "));
                        }
                    }
                    out.push_str("  ");
                    out.push_str(v);
                    out.push('\n');
                }
                if *left > 0 {
                    out.push_str(&format!("  # +{left} more\n"));
                }
                out.push('}');
            }
            Def::Input(kept) => {
                let ExtendedType::InputObject(i) = t else {
                    continue;
                };
                type_desc(&mut out, &i.description, "");
                out.push_str(&format!("input {n} {{\n"));
                for k in kept {
                    let f = &i.fields[k.as_str()];
                    coords.push(coord(n, k));
                    match style {
                        Style::Sdl => {
                            if let Some(d) = desc_str(&f.description) {
                                out.push_str(&block_string(d, "  "));
                            }
                            out.push_str(&format!("  {k}: {}\n", ty_str(&f.ty)));
                        }
                        Style::Compact => {
                            out.push_str(&format!("  {k}: {}", ty_str(&f.ty)));
                            if let Some(d) = desc_str(&f.description) {
                                out.push_str("  # ");
                                out.push_str(&legend.say(d));
                            }
                            out.push('\n');
                        }
                        Style::Bare | Style::Dense => {
                            out.push_str("  ");
                            out.push_str(k);
                            out.push_str(": ");
                            let _ = writeln!(out, "{}", f.ty);
                        }
                    }
                }
                out.push('}');
            }
            Def::Union(m, left) => {
                type_desc(&mut out, &t.description().cloned(), "");
                out.push_str(&format!("union {n} = {}", m.join(" | ")));
                if *left > 0 {
                    out.push_str(&format!(" # +{left} more"));
                }
            }
            Def::Stub(f) => {
                let kw = if matches!(t, ExtendedType::Interface(_)) {
                    "interface"
                } else {
                    "type"
                };
                let fd = &fields_of(t).expect("stub of object or interface")[f.as_str()];
                let req: Vec<String> = fd
                    .arguments
                    .iter()
                    .filter(|a| is_required(a))
                    .map(|a| format!("{}: {}", a.name, ty_str(&a.ty)))
                    .collect();
                let args = if req.is_empty() {
                    String::new()
                } else {
                    format!("({})", req.join(", "))
                };
                out.push_str(&format!("{kw} {n} {{\n  {f}{args}: {}\n}}", ty_str(&fd.ty)));
            }
        }
        blocks.push(if dense { one_line(&out) } else { out });
    }
    let mut body = String::new();
    if style == Style::Compact {
        for (i, d) in legend.ids.borrow().iter().enumerate() {
            body.push_str(&format!("# [{}] {}\n", i + 1, d));
        }
        if !legend.ids.borrow().is_empty() {
            body.push('\n');
        }
    }
    if opts.closed {
        let m_root = graph
            .root(RootKind::Mutation)
            .filter(|m| sel.has_type(m) || stubs.contains(*m));
        let s_root = graph
            .root(RootKind::Subscription)
            .filter(|m| sel.has_type(m) || stubs.contains(*m));
        let q = q_root.as_deref().unwrap_or("Query");
        if q != "Query"
            || m_root.is_some_and(|m| m != "Mutation")
            || s_root.is_some_and(|s| s != "Subscription")
        {
            let mut s = format!("schema {{\n  query: {q}\n");
            if let Some(m) = m_root {
                s.push_str(&format!("  mutation: {m}\n"));
            }
            if let Some(m) = s_root {
                s.push_str(&format!("  subscription: {m}\n"));
            }
            s.push('}');
            blocks.insert(0, s);
        }
    }
    let types = blocks.iter().filter(|b| !b.starts_with("schema {")).count();
    body.push_str(&blocks.join(if dense { "\n" } else { "\n\n" }));
    if !blocks.is_empty() {
        body.push('\n');
    }
    let mut ns: Vec<String> = schema
        .types
        .keys()
        .filter(|k| not_shown.contains(k.as_str()))
        .map(|k| k.to_string())
        .collect();
    ns.dedup();
    Rendered {
        body,
        not_shown: ns,
        types,
        coordinates: coords,
    }
}

/// `Type.member`.
fn coord(owner: &str, member: &str) -> String {
    let mut c = String::with_capacity(owner.len() + member.len() + 8);
    c.push_str(owner);
    c.push('.');
    c.push_str(member);
    c
}

/// One definition on one line (`type T {\n  a: X\n  b: Y\n}` → `type T { a: X b: Y }`);
/// a comment line inside (`# +3 more`) moves after the closing brace, where it cannot
/// swallow the rest of the definition.
fn one_line(block: &str) -> String {
    let mut out = String::with_capacity(block.len());
    let mut comments = Vec::new();
    for line in block.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with('#') {
            comments.push(t);
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    for c in comments {
        out.push(' ');
        out.push_str(c);
    }
    out
}
