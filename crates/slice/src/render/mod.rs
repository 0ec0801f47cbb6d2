//! Rendering a selection as SDL: the structural closure ([`crate::closure`]) written by
//! one [`StyleWriter`] per [`Style`] (`sdl`, `bare`, `compact`, `dense`).

mod bare;
mod compact;
mod dense;
mod once;
mod sdl;

use gqlnav_schema::apollo_compiler::ast::{FieldDefinition, InputValueDefinition};
use gqlnav_schema::apollo_compiler::schema::ExtendedType;
use gqlnav_schema::apollo_compiler::Node;
use gqlnav_schema::{RootKind, SchemaGraph};

use crate::closure::{close, fields_of, implements_of, is_required, Closure, Def, Pruner};
use crate::selection::Selection;

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
    /// Say each thing once: `dense` lines plus descriptions, each distinct first sentence
    /// said once in the slice (a type's before it, its fields' in one comment line after
    /// it); repeated ones (pagination arguments, …) are not said again.
    Once,
}

impl Style {
    /// The style's name (`sdl`, `bare`, `compact`).
    pub fn name(self) -> &'static str {
        match self {
            Style::Sdl => "sdl",
            Style::Bare => "bare",
            Style::Compact => "compact",
            Style::Dense => "dense",
            Style::Once => "once",
        }
    }

    /// Parse a style name.
    pub fn parse(s: &str) -> Option<Style> {
        match s.to_ascii_lowercase().as_str() {
            "sdl" => Some(Style::Sdl),
            "bare" | "nodesc" | "no-descriptions" => Some(Style::Bare),
            "compact" => Some(Style::Compact),
            "dense" => Some(Style::Dense),
            "once" | "say-once" => Some(Style::Once),
            _ => None,
        }
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

/// A selected field to write: its name, definition and surviving arguments.
pub(crate) struct FieldLine<'a> {
    pub(crate) name: &'a str,
    pub(crate) f: &'a FieldDefinition,
    pub(crate) args: Vec<&'a Node<InputValueDefinition>>,
}

/// One writer per style: how descriptions, fields, input fields and enum values are
/// written and how definitions are joined. The defaults are the bare style's.
pub(crate) trait StyleWriter {
    /// A description before a definition (none by default).
    fn type_description(&mut self, _out: &mut String, _desc: &str) {}

    /// What follows an object or interface header (`type T`).
    fn owner_open(&self) -> &'static str {
        " {\n"
    }

    /// What closes an object or interface.
    fn owner_close(&self) -> &'static str {
        "}"
    }

    /// Close an object or interface (by default with [`StyleWriter::owner_close`]).
    fn owner_end(&mut self, out: &mut String) {
        out.push_str(self.owner_close());
    }

    /// One selected field with its surviving arguments.
    fn field(&mut self, out: &mut String, line: &FieldLine<'_>);

    /// One kept input field.
    fn input_field(&mut self, out: &mut String, name: &str, f: &InputValueDefinition) {
        bare::input_field(out, name, f);
    }

    /// One kept enum value (with its description, if any).
    fn enum_value(&mut self, out: &mut String, value: &str, _desc: Option<&str>) {
        out.push_str("  ");
        out.push_str(value);
        out.push('\n');
    }

    /// A finished definition other than an object or interface with selected fields.
    fn definition(&self, block: String) -> String {
        block
    }

    /// What separates two definitions.
    fn separator(&self) -> &'static str {
        "\n\n"
    }

    /// Text before the definitions.
    fn preamble(&self) -> String {
        String::new()
    }
}

/// Render a selection.
pub fn render(
    graph: &SchemaGraph,
    sel: &Selection,
    pr: &Pruner<'_>,
    opts: RenderOptions,
) -> Rendered {
    let c = close(graph, sel, pr, opts);
    match opts.style {
        Style::Sdl => write(graph, &c, &mut sdl::SdlWriter, opts.closed),
        Style::Bare => write(graph, &c, &mut bare::BareWriter, opts.closed),
        Style::Compact => {
            let mut w = compact::CompactWriter::new(graph, &c);
            write(graph, &c, &mut w, opts.closed)
        }
        Style::Dense => write(graph, &c, &mut dense::DenseWriter, opts.closed),
        Style::Once => write(graph, &c, &mut once::OnceWriter::default(), opts.closed),
    }
}

/// Write a closure's definitions in schema order.
fn write(
    graph: &SchemaGraph,
    c: &Closure<'_, '_>,
    w: &mut impl StyleWriter,
    closed: bool,
) -> Rendered {
    let schema = &graph.schema;
    let mut blocks: Vec<String> = Vec::new();
    let mut coords: Vec<String> = Vec::new();
    // The defined types in schema order (a schema has thousands of types; a slice a
    // few hundred).
    let mut order: Vec<usize> = c
        .owners
        .iter()
        .copied()
        .chain(c.defs.keys().map(String::as_str))
        .filter_map(|n| schema.types.get_index_of(n))
        .collect();
    order.sort_unstable();
    order.dedup();
    for (name, t) in order.into_iter().filter_map(|i| schema.types.get_index(i)) {
        let n = name.as_str();
        if n.starts_with("__") {
            continue;
        }
        if c.owner_set.contains(n) {
            if let Some(b) = owner_block(c, w, n, t, &mut coords) {
                blocks.push(b);
            }
            continue;
        }
        let Some(def) = c.defs.get(n) else { continue };
        if let Some(b) = def_block(w, n, t, def, &mut coords) {
            blocks.push(w.definition(b));
        }
    }
    let mut body = w.preamble();
    if closed {
        if let Some(s) = schema_block(graph, c) {
            blocks.insert(0, s);
        }
    }
    let types = blocks.iter().filter(|b| !b.starts_with("schema {")).count();
    body.push_str(&blocks.join(w.separator()));
    if !blocks.is_empty() {
        body.push('\n');
    }
    let mut ns: Vec<(usize, &str)> = c
        .not_shown
        .iter()
        .filter_map(|n| {
            schema
                .types
                .get_index_of(n.as_str())
                .map(|i| (i, n.as_str()))
        })
        .collect();
    ns.sort_unstable();
    let ns: Vec<String> = ns.into_iter().map(|(_, n)| n.to_string()).collect();
    Rendered {
        body,
        not_shown: ns,
        types,
        coordinates: coords,
    }
}

/// An object or interface with selected fields: header, then each selected field (in
/// declaration order) with its surviving arguments.
fn owner_block(
    c: &Closure<'_, '_>,
    w: &mut impl StyleWriter,
    n: &str,
    t: &ExtendedType,
    coords: &mut Vec<String>,
) -> Option<String> {
    let fields = fields_of(t)?;
    let mut out = String::new();
    let imps: Vec<String> = implements_of(t)
        .into_iter()
        .filter(|i| c.sel.has_type(i))
        .collect();
    describe(w, &mut out, t.description());
    out.push_str(keyword(t));
    out.push(' ');
    out.push_str(n);
    if !imps.is_empty() {
        out.push_str(" implements ");
        out.push_str(&imps.join(" & "));
    }
    out.push_str(w.owner_open());
    for (fname, f) in fields {
        let Some(ka) = c.kept_args.get(&(n, fname.as_str())) else {
            continue;
        };
        coords.push(coord(n, fname));
        let args: Vec<&Node<InputValueDefinition>> = f
            .arguments
            .iter()
            .filter(|a| ka.contains(&a.name.as_str()))
            .collect();
        for a in &args {
            let mut co = coord(n, fname);
            co.push('(');
            co.push_str(&a.name);
            co.push_str(":)");
            coords.push(co);
        }
        let line = FieldLine {
            name: fname,
            f,
            args,
        };
        w.field(&mut out, &line);
    }
    w.owner_end(&mut out);
    Some(out)
}

/// Any other definition of the closure (`None` if the schema disagrees with it).
fn def_block(
    w: &mut impl StyleWriter,
    n: &str,
    t: &ExtendedType,
    def: &Def,
    coords: &mut Vec<String>,
) -> Option<String> {
    let mut out = String::new();
    match def {
        Def::Scalar => {
            describe(w, &mut out, t.description());
            out.push_str(&format!("scalar {n}"));
        }
        Def::Enum(vals, left) => {
            let ExtendedType::Enum(e) = t else {
                return None;
            };
            describe(w, &mut out, e.description.as_ref());
            out.push_str(&format!("enum {n} {{\n"));
            for v in vals {
                let d = e
                    .values
                    .get(v.as_str())
                    .and_then(|x| desc_str(x.description.as_ref()));
                w.enum_value(&mut out, v, d);
            }
            if *left > 0 {
                out.push_str(&format!("  # +{left} more\n"));
            }
            out.push('}');
        }
        Def::Input(kept) => {
            let ExtendedType::InputObject(i) = t else {
                return None;
            };
            describe(w, &mut out, i.description.as_ref());
            out.push_str(&format!("input {n} {{\n"));
            for k in kept {
                let f = &i.fields[k.as_str()];
                coords.push(coord(n, k));
                w.input_field(&mut out, k, f);
            }
            out.push('}');
        }
        Def::Union(m, left) => {
            describe(w, &mut out, t.description());
            out.push_str(&format!("union {n} = {}", m.join(" | ")));
            if *left > 0 {
                out.push_str(&format!(" # +{left} more"));
            }
        }
        Def::Stub(f) => {
            let fd = fields_of(t)?.get(f.as_str())?;
            let req: Vec<String> = fd
                .arguments
                .iter()
                .filter(|a| is_required(a))
                .map(|a| format!("{}: {}", a.name, a.ty))
                .collect();
            let args = if req.is_empty() {
                String::new()
            } else {
                format!("({})", req.join(", "))
            };
            out.push_str(&format!(
                "{} {n} {{\n  {f}{args}: {}\n}}",
                keyword(t),
                fd.ty
            ));
        }
    }
    Some(out)
}

/// Closed form: a `schema` block when a root type has a non-default name.
fn schema_block(graph: &SchemaGraph, c: &Closure<'_, '_>) -> Option<String> {
    let m_root = graph
        .root(RootKind::Mutation)
        .filter(|m| c.sel.has_type(m) || c.stubs.contains(*m));
    let s_root = graph
        .root(RootKind::Subscription)
        .filter(|m| c.sel.has_type(m) || c.stubs.contains(*m));
    let q = c.q_root.as_deref().unwrap_or("Query");
    if q == "Query"
        && m_root.is_none_or(|m| m == "Mutation")
        && s_root.is_none_or(|s| s == "Subscription")
    {
        return None;
    }
    let mut s = format!("schema {{\n  query: {q}\n");
    if let Some(m) = m_root {
        s.push_str(&format!("  mutation: {m}\n"));
    }
    if let Some(m) = s_root {
        s.push_str(&format!("  subscription: {m}\n"));
    }
    s.push('}');
    Some(s)
}

/// `interface` or `type`.
fn keyword(t: &ExtendedType) -> &'static str {
    if matches!(t, ExtendedType::Interface(_)) {
        "interface"
    } else {
        "type"
    }
}

/// A definition's description, if it has one, in the writer's style.
fn describe(w: &mut impl StyleWriter, out: &mut String, d: Option<&Node<str>>) {
    if let Some(d) = desc_str(d) {
        w.type_description(out, d);
    }
}

/// A description, trimmed, if it is not empty.
pub(crate) fn desc_str(d: Option<&Node<str>>) -> Option<&str> {
    d.map(|d| d.trim()).filter(|s| !s.is_empty())
}

/// `Type.member`.
fn coord(owner: &str, member: &str) -> String {
    let mut c = String::with_capacity(owner.len() + member.len() + 8);
    c.push_str(owner);
    c.push('.');
    c.push_str(member);
    c
}
