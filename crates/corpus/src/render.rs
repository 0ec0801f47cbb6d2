//! Named renderings of corpus entries.

use std::fmt;
use std::str::FromStr;

use crate::humanize::humanize;
use crate::{Entry, EntryKind};

/// A way to render an entry as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rendering {
    /// `Owner.field` (seed instrument RAW).
    Raw,
    /// `Owner.field - the <humanized field> of a <humanized owner>`.
    DotPlusGloss,
    /// `GraphQL field Owner.field. Owner type: Owner. Returns: R.` + ` description` (seed GLOSS).
    Gloss,
    /// `"""desc"""\nfield(a: T): R  # on type Owner` (seed SDL).
    Sdl,
    /// WG `coord`: `T.f`.
    Coord,
    /// WG `coord-desc`: `T.f — desc`.
    CoordDesc,
    /// WG `coord-return`: `T.f -> R` (R unwrapped).
    CoordReturn,
    /// WG `coord-return-desc` (the WG default): `T.f -> R — desc`.
    CoordReturnDesc,
    /// WG `name-only`: `f`.
    NameOnly,
    /// WG `sig`: `T.f: R[]!` (list and top-level non-null marks only).
    Sig,
    /// WG `sig-desc`: `T.f: R[]! — desc`.
    SigDesc,
}

impl Rendering {
    pub const ALL: [Rendering; 11] = [
        Rendering::Raw,
        Rendering::DotPlusGloss,
        Rendering::Gloss,
        Rendering::Sdl,
        Rendering::Coord,
        Rendering::CoordDesc,
        Rendering::CoordReturn,
        Rendering::CoordReturnDesc,
        Rendering::NameOnly,
        Rendering::Sig,
        Rendering::SigDesc,
    ];

    /// The seed instrument's four renderings.
    pub const SEED: [Rendering; 4] = [
        Rendering::Raw,
        Rendering::DotPlusGloss,
        Rendering::Gloss,
        Rendering::Sdl,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rendering::Raw => "raw",
            Rendering::DotPlusGloss => "dot-plus-gloss",
            Rendering::Gloss => "gloss",
            Rendering::Sdl => "sdl",
            Rendering::Coord => "coord",
            Rendering::CoordDesc => "coord-desc",
            Rendering::CoordReturn => "coord-return",
            Rendering::CoordReturnDesc => "coord-return-desc",
            Rendering::NameOnly => "name-only",
            Rendering::Sig => "sig",
            Rendering::SigDesc => "sig-desc",
        }
    }

    /// One example, for help texts.
    pub fn example(self) -> &'static str {
        match self {
            Rendering::Raw => "Movie.releaseYear",
            Rendering::DotPlusGloss => "Movie.releaseYear - the release year of a movie",
            Rendering::Gloss => "GraphQL field Movie.releaseYear. Owner type: Movie. Returns: Int!. Release year, four digits.",
            Rendering::Sdl => "\"\"\"Release year, four digits.\"\"\"\\nreleaseYear: Int!  # on type Movie",
            Rendering::Coord => "Movie.releaseYear",
            Rendering::CoordDesc => "Movie.releaseYear — Release year, four digits.",
            Rendering::CoordReturn => "Movie.releaseYear -> Int",
            Rendering::CoordReturnDesc => "Movie.releaseYear -> Int — Release year, four digits.",
            Rendering::NameOnly => "releaseYear",
            Rendering::Sig => "Movie.releaseYear: Int!",
            Rendering::SigDesc => "Movie.releaseYear: Int! — Release year, four digits.",
        }
    }

    /// Render one entry. Non-field entries use the same shapes with their own names.
    pub fn render(self, e: &Entry) -> String {
        let coord = &e.coordinate;
        let d = e.description.as_str();
        let with_desc = |base: String| {
            if d.is_empty() {
                base
            } else {
                format!("{base} \u{2014} {d}")
            }
        };
        match self {
            Rendering::Raw | Rendering::Coord => coord.clone(),
            Rendering::DotPlusGloss => {
                if e.kind == EntryKind::Type {
                    format!("{coord} - the {} type", humanize(&e.name))
                } else {
                    format!(
                        "{coord} - the {} of a {}",
                        humanize(&e.name),
                        humanize(&e.owner)
                    )
                }
            }
            Rendering::Gloss => {
                let what = match e.kind {
                    EntryKind::Field => "field",
                    EntryKind::Argument => "argument",
                    EntryKind::InputField => "input field",
                    EntryKind::EnumValue => "enum value",
                    EntryKind::Type => "type",
                };
                let mut s = format!("GraphQL {what} {coord}. Owner type: {}.", e.owner);
                if !e.return_type.is_empty() {
                    s.push_str(&format!(" Returns: {}.", e.return_type));
                }
                if !d.is_empty() {
                    s.push(' ');
                    s.push_str(d);
                }
                s
            }
            Rendering::Sdl => {
                let mut s = String::new();
                if !d.is_empty() {
                    s.push_str("\"\"\"");
                    s.push_str(d);
                    s.push_str("\"\"\"\n");
                }
                s.push_str(&e.name);
                if !e.args.is_empty() {
                    let args: Vec<String> = e
                        .args
                        .iter()
                        .map(|a| format!("{}: {}", a.name, a.ty))
                        .collect();
                    s.push('(');
                    s.push_str(&args.join(", "));
                    s.push(')');
                }
                if !e.return_type.is_empty() {
                    s.push_str(": ");
                    s.push_str(&e.return_type);
                }
                s.push_str("  # on type ");
                s.push_str(&e.owner);
                s
            }
            Rendering::CoordDesc => with_desc(coord.clone()),
            Rendering::CoordReturn => {
                if e.named_type.is_empty() {
                    coord.clone()
                } else {
                    format!("{coord} -> {}", e.named_type)
                }
            }
            Rendering::CoordReturnDesc => {
                let base = if e.named_type.is_empty() {
                    coord.clone()
                } else {
                    format!("{coord} -> {}", e.named_type)
                };
                with_desc(base)
            }
            Rendering::NameOnly => e.name.clone(),
            Rendering::Sig | Rendering::SigDesc => {
                let mut s = format!("{coord}: {}", e.named_type);
                if e.is_list() {
                    s.push_str("[]");
                }
                if e.is_non_null() {
                    s.push('!');
                }
                if self == Rendering::SigDesc {
                    with_desc(s)
                } else {
                    s
                }
            }
        }
    }
}

impl fmt::Display for Rendering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rendering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase().replace('_', "-");
        Rendering::ALL
            .into_iter()
            .find(|r| r.name() == l)
            .ok_or_else(|| {
                let names: Vec<&str> = Rendering::ALL.iter().map(|r| r.name()).collect();
                format!(
                    "unknown rendering `{s}`; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}
