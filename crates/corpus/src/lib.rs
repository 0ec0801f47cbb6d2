//! gqlnav corpus stage: one entry per schema coordinate, named renderings, and a token
//! meter that names its encoding.
//!
//! Invariant: entry order is deterministic — types sorted by name (byte order, which is
//! Java `String` order for these ASCII names, as the seed instrument's graphql-java
//! corpus), members in declaration order. This order is the tie-break everywhere.

mod bpe;
mod bpe_table;
mod humanize;
mod render;
mod tokens;

use std::collections::HashMap;

use apollo_compiler::schema::ExtendedType;
use gqlnav_schema::apollo_compiler;
use gqlnav_schema::SchemaGraph;

pub use humanize::{humanize, split_identifier};
pub use render::Rendering;
pub use tokens::{line_segments, CachedMeter, Encoding, TokenMeter, TokenizerId};

/// What a corpus entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A field of an object or interface type.
    Field,
    /// An argument of such a field.
    Argument,
    /// A field of an input type.
    InputField,
    /// A value of an enum.
    EnumValue,
    /// A named type.
    Type,
}

/// Kind of the type that owns an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnerKind {
    Object,
    Interface,
    Input,
    Enum,
    Union,
    Scalar,
}

/// An argument of a field, as the corpus records it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ArgInfo {
    pub name: String,
    /// Printed type, e.g. `[ID!]!`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The named type inside the wrappers.
    pub named_type: String,
    pub description: String,
    pub default: Option<String>,
    /// Non-null without a default value.
    pub required: bool,
}

/// One corpus entry: one schema coordinate.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub coordinate: String,
    pub kind: EntryKind,
    pub owner: String,
    pub owner_kind: OwnerKind,
    /// Field, argument, input-field or enum-value name (the type name for a type entry).
    pub name: String,
    /// Printed (wrapped) return or value type; empty for enum values and types.
    pub return_type: String,
    /// Named type inside the wrappers; empty for enum values and types.
    pub named_type: String,
    /// Trimmed description ("" when none).
    pub description: String,
    pub args: Vec<ArgInfo>,
    /// Deprecation reason, when deprecated.
    pub deprecated: Option<String>,
}

impl Entry {
    /// The return type is a list (at the top level, under non-null).
    pub fn is_list(&self) -> bool {
        self.return_type.trim_end_matches('!').starts_with('[')
    }
    /// The top level is non-null.
    pub fn is_non_null(&self) -> bool {
        self.return_type.ends_with('!')
    }
}

/// Which entry kinds a corpus holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CorpusOptions {
    pub fields: bool,
    pub arguments: bool,
    pub input_fields: bool,
    pub enum_values: bool,
    pub types: bool,
}

impl Default for CorpusOptions {
    /// Fields only: the field space both published references index.
    fn default() -> Self {
        CorpusOptions {
            fields: true,
            arguments: false,
            input_fields: false,
            enum_values: false,
            types: false,
        }
    }
}

impl CorpusOptions {
    /// Every entry kind.
    pub fn all() -> Self {
        CorpusOptions {
            fields: true,
            arguments: true,
            input_fields: true,
            enum_values: true,
            types: true,
        }
    }

    /// The entry kinds a corpus holds. For a corpus built by [`Corpus::build`], building
    /// again with these options from the same schema gives the same corpus (a kind the
    /// schema has none of makes no difference).
    pub fn of(corpus: &Corpus) -> Self {
        let has = |k: EntryKind| corpus.entries.iter().any(|e| e.kind == k);
        CorpusOptions {
            fields: has(EntryKind::Field),
            arguments: has(EntryKind::Argument),
            input_fields: has(EntryKind::InputField),
            enum_values: has(EntryKind::EnumValue),
            types: has(EntryKind::Type),
        }
    }
}

/// The corpus: entries in deterministic order plus a coordinate index.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub entries: Vec<Entry>,
    by_coordinate: HashMap<String, usize>,
}

fn desc(d: &Option<apollo_compiler::Node<str>>) -> String {
    d.as_ref().map(|s| s.trim().to_string()).unwrap_or_default()
}

fn deprecation(dirs: &apollo_compiler::ast::DirectiveList) -> Option<String> {
    let d = dirs.get("deprecated")?;
    let reason = d
        .specified_argument_by_name("reason")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "No longer supported".to_string());
    Some(reason)
}

fn arg_info(a: &apollo_compiler::ast::InputValueDefinition) -> ArgInfo {
    ArgInfo {
        name: a.name.to_string(),
        ty: a.ty.to_string(),
        named_type: a.ty.inner_named_type().to_string(),
        description: desc(&a.description),
        default: a.default_value.as_ref().map(|v| v.to_string()),
        required: a.ty.is_non_null() && a.default_value.is_none(),
    }
}

impl Entry {
    /// An input field or enum value entry (`ty` is `None` for an enum value).
    fn member(
        owner: &str,
        owner_kind: OwnerKind,
        kind: EntryKind,
        name: &str,
        ty: Option<&apollo_compiler::ast::Type>,
        description: &Option<apollo_compiler::Node<str>>,
        directives: &apollo_compiler::ast::DirectiveList,
    ) -> Entry {
        Entry {
            coordinate: format!("{owner}.{name}"),
            kind,
            owner: owner.to_string(),
            owner_kind,
            name: name.to_string(),
            return_type: ty.map(|t| t.to_string()).unwrap_or_default(),
            named_type: ty
                .map(|t| t.inner_named_type().to_string())
                .unwrap_or_default(),
            description: desc(description),
            args: Vec::new(),
            deprecated: deprecation(directives),
        }
    }
}

impl Corpus {
    /// Build the corpus of a schema.
    pub fn build(graph: &SchemaGraph, opts: CorpusOptions) -> Corpus {
        let schema = &graph.schema;
        let mut names: Vec<&str> = schema
            .types
            .keys()
            .map(|n| n.as_str())
            .filter(|n| !n.starts_with("__"))
            .collect();
        names.sort_unstable();
        let mut entries = Vec::new();
        for name in names {
            let Some(ty) = schema.types.get(name) else {
                continue;
            };
            if ty.is_built_in() {
                continue;
            }
            let (owner_kind, type_desc) = match ty {
                ExtendedType::Object(o) => (OwnerKind::Object, desc(&o.description)),
                ExtendedType::Interface(o) => (OwnerKind::Interface, desc(&o.description)),
                ExtendedType::InputObject(o) => (OwnerKind::Input, desc(&o.description)),
                ExtendedType::Enum(o) => (OwnerKind::Enum, desc(&o.description)),
                ExtendedType::Union(o) => (OwnerKind::Union, desc(&o.description)),
                ExtendedType::Scalar(o) => (OwnerKind::Scalar, desc(&o.description)),
            };
            if opts.types {
                entries.push(Entry {
                    coordinate: name.to_string(),
                    kind: EntryKind::Type,
                    owner: name.to_string(),
                    owner_kind,
                    name: name.to_string(),
                    return_type: String::new(),
                    named_type: String::new(),
                    description: type_desc,
                    args: Vec::new(),
                    deprecated: None,
                });
            }
            match ty {
                ExtendedType::Object(_) | ExtendedType::Interface(_) => {
                    let fields = match ty {
                        ExtendedType::Object(o) => &o.fields,
                        ExtendedType::Interface(o) => &o.fields,
                        _ => continue,
                    };
                    for (fname, f) in fields {
                        let args: Vec<ArgInfo> = f.arguments.iter().map(|a| arg_info(a)).collect();
                        let mut arg_entries = Vec::new();
                        if opts.arguments {
                            for (a, def) in args.iter().zip(f.arguments.iter()) {
                                arg_entries.push(Entry {
                                    coordinate: format!("{name}.{fname}({}:)", a.name),
                                    kind: EntryKind::Argument,
                                    owner: name.to_string(),
                                    owner_kind,
                                    name: a.name.clone(),
                                    return_type: a.ty.clone(),
                                    named_type: a.named_type.clone(),
                                    description: a.description.clone(),
                                    args: Vec::new(),
                                    deprecated: deprecation(&def.directives),
                                });
                            }
                        }
                        if opts.fields {
                            entries.push(Entry {
                                coordinate: format!("{name}.{fname}"),
                                kind: EntryKind::Field,
                                owner: name.to_string(),
                                owner_kind,
                                name: fname.to_string(),
                                return_type: f.ty.to_string(),
                                named_type: f.ty.inner_named_type().to_string(),
                                description: desc(&f.description),
                                // Moved, not cloned: a field's arguments are its own.
                                args,
                                deprecated: deprecation(&f.directives),
                            });
                        }
                        // A field's argument entries follow it.
                        entries.append(&mut arg_entries);
                    }
                }
                ExtendedType::InputObject(o) if opts.input_fields => {
                    for (fname, f) in &o.fields {
                        entries.push(Entry::member(
                            name,
                            owner_kind,
                            EntryKind::InputField,
                            fname,
                            Some(&f.ty),
                            &f.description,
                            &f.directives,
                        ));
                    }
                }
                ExtendedType::Enum(o) if opts.enum_values => {
                    for (vname, v) in &o.values {
                        entries.push(Entry::member(
                            name,
                            owner_kind,
                            EntryKind::EnumValue,
                            vname,
                            None,
                            &v.description,
                            &v.directives,
                        ));
                    }
                }
                _ => {}
            }
        }
        Corpus::from_entries(entries)
    }

    /// Wrap a list of entries (kept in the given order).
    pub fn from_entries(entries: Vec<Entry>) -> Corpus {
        let mut by_coordinate = HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            by_coordinate.entry(e.coordinate.clone()).or_insert(i);
        }
        Corpus {
            entries,
            by_coordinate,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Position of a coordinate (its corpus order / document id).
    pub fn position(&self, coordinate: &str) -> Option<usize> {
        self.by_coordinate.get(coordinate).copied()
    }

    pub fn get(&self, coordinate: &str) -> Option<&Entry> {
        self.position(coordinate).map(|i| &self.entries[i])
    }

    /// Render every entry and count its tokens.
    pub fn render(&self, rendering: Rendering, meter: &TokenMeter) -> RenderedCorpus {
        let texts = self.render_texts(rendering);
        let tokens: Vec<usize> = texts.iter().map(|t| meter.count(t)).collect();
        RenderedCorpus {
            rendering,
            encoding: meter.encoding(),
            texts,
            tokens,
        }
    }

    /// Render every entry (no token counting).
    pub fn render_texts(&self, rendering: Rendering) -> Vec<String> {
        self.entries.iter().map(|e| rendering.render(e)).collect()
    }
}

/// A corpus rendered in one format, with per-entry token counts.
#[derive(Debug, Clone)]
pub struct RenderedCorpus {
    pub rendering: Rendering,
    pub encoding: Encoding,
    /// Same order as [`Corpus::entries`].
    pub texts: Vec<String>,
    pub tokens: Vec<usize>,
}

impl RenderedCorpus {
    /// Render a corpus with token counts counted before (a saved index keeps them, so
    /// start-up needs no BPE), one per entry in corpus order; `None` when the number
    /// of counts is not the number of entries.
    pub fn from_counts(
        corpus: &Corpus,
        rendering: Rendering,
        encoding: Encoding,
        tokens: Vec<usize>,
    ) -> Option<RenderedCorpus> {
        (tokens.len() == corpus.len()).then(|| RenderedCorpus {
            rendering,
            encoding,
            texts: corpus.render_texts(rendering),
            tokens,
        })
    }

    pub fn total_tokens(&self) -> usize {
        self.tokens.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> SchemaGraph {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../cli/assets/demo.graphql");
        gqlnav_schema::load_file(std::path::Path::new(p)).expect("demo schema")
    }

    #[test]
    fn input_fields_and_enum_values_are_members_of_their_type() {
        let c = Corpus::build(&demo(), CorpusOptions::all());
        let days = c.get("BorrowInput.days").expect("input field");
        assert_eq!(days.kind, EntryKind::InputField);
        assert_eq!(days.owner_kind, OwnerKind::Input);
        assert_eq!(
            (days.return_type.as_str(), days.named_type.as_str()),
            ("Int", "Int")
        );
        assert_eq!(
            days.description,
            "Loan length in days; the branch default when omitted."
        );
        let id = c.get("BorrowInput.copyId").expect("input field");
        assert_eq!((id.return_type.as_str(), id.is_non_null()), ("ID!", true));
        let v = c.get("CopyStatus.ON_LOAN").expect("enum value");
        assert_eq!(v.kind, EntryKind::EnumValue);
        assert_eq!(v.owner_kind, OwnerKind::Enum);
        assert_eq!(v.description, "Lent to a member.");
        assert!(v.return_type.is_empty() && v.named_type.is_empty() && v.deprecated.is_none());
        assert!(c.position("BorrowInput.days") > c.position("BookOrderField.TITLE"));
    }

    #[test]
    fn options_of_a_corpus_rebuild_it_and_saved_counts_need_one_per_entry() {
        let g = demo();
        for opts in [CorpusOptions::default(), CorpusOptions::all()] {
            let c = Corpus::build(&g, opts);
            assert_eq!(CorpusOptions::of(&c), opts);
            let again = Corpus::build(&g, CorpusOptions::of(&c));
            let coords = |c: &Corpus| -> Vec<String> {
                c.entries.iter().map(|e| e.coordinate.clone()).collect()
            };
            assert_eq!(coords(&again), coords(&c));
            let meter = TokenMeter::default();
            let counted = c.render(Rendering::Sdl, &meter);
            let saved = RenderedCorpus::from_counts(
                &c,
                Rendering::Sdl,
                meter.encoding(),
                counted.tokens.clone(),
            )
            .expect("one count per entry");
            assert_eq!(saved.texts, counted.texts);
            assert_eq!(saved.tokens, counted.tokens);
            let mut short = counted.tokens.clone();
            short.pop();
            assert!(
                RenderedCorpus::from_counts(&c, Rendering::Sdl, meter.encoding(), short).is_none()
            );
        }
    }
}
