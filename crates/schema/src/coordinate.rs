//! Schema coordinates: the GraphQL schema-coordinate syntax as a type of its own.
//!
//! Forms: `Type`, `Type.field` (also `Input.field`, `Enum.VALUE`), `Type.field(arg:)`,
//! `@dir`, `@dir(arg:)`. Parsing and [`Display`](std::fmt::Display) round-trip.

use std::fmt;
use std::str::FromStr;

use crate::error::SchemaError;

/// A parsed schema coordinate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Coordinate {
    /// `Type`
    Type(String),
    /// `Type.member`: an object/interface field, an input field or an enum value.
    Member { ty: String, member: String },
    /// `Type.field(arg:)`
    Argument {
        ty: String,
        field: String,
        arg: String,
    },
    /// `@dir`
    Directive(String),
    /// `@dir(arg:)`
    DirectiveArgument { directive: String, arg: String },
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn bad(input: &str, reason: &str) -> SchemaError {
    SchemaError::BadCoordinate {
        input: input.to_string(),
        reason: reason.to_string(),
    }
}

impl Coordinate {
    /// Parse the schema-coordinate syntax. Surrounding whitespace is ignored.
    pub fn parse(input: &str) -> Result<Self, SchemaError> {
        let s = input.trim();
        if s.is_empty() {
            return Err(bad(input, "empty coordinate"));
        }
        if let Some(rest) = s.strip_prefix('@') {
            return match rest.split_once('(') {
                None => {
                    if is_name(rest) {
                        Ok(Coordinate::Directive(rest.to_string()))
                    } else {
                        Err(bad(input, "expected a directive name after `@`"))
                    }
                }
                Some((dir, tail)) => {
                    let arg = parse_arg_tail(input, tail)?;
                    if !is_name(dir) {
                        return Err(bad(input, "expected a directive name after `@`"));
                    }
                    Ok(Coordinate::DirectiveArgument {
                        directive: dir.to_string(),
                        arg,
                    })
                }
            };
        }
        let (ty, rest) = match s.split_once('.') {
            None => {
                return if is_name(s) {
                    Ok(Coordinate::Type(s.to_string()))
                } else {
                    Err(bad(
                        input,
                        "expected `Type`, `Type.field`, `Type.field(arg:)` or `@directive`",
                    ))
                }
            }
            Some(x) => x,
        };
        if !is_name(ty) {
            return Err(bad(input, "the part before `.` must be a type name"));
        }
        match rest.split_once('(') {
            None => {
                if is_name(rest) {
                    Ok(Coordinate::Member {
                        ty: ty.to_string(),
                        member: rest.to_string(),
                    })
                } else {
                    Err(bad(
                        input,
                        "the part after `.` must be a field, input field or enum value name",
                    ))
                }
            }
            Some((field, tail)) => {
                if !is_name(field) {
                    return Err(bad(input, "expected a field name before `(`"));
                }
                let arg = parse_arg_tail(input, tail)?;
                Ok(Coordinate::Argument {
                    ty: ty.to_string(),
                    field: field.to_string(),
                    arg,
                })
            }
        }
    }

    /// The type (or directive, with `@`) this coordinate belongs to.
    pub fn owner(&self) -> &str {
        match self {
            Coordinate::Type(t) => t,
            Coordinate::Member { ty, .. } | Coordinate::Argument { ty, .. } => ty,
            Coordinate::Directive(d) | Coordinate::DirectiveArgument { directive: d, .. } => d,
        }
    }
}

fn parse_arg_tail(input: &str, tail: &str) -> Result<String, SchemaError> {
    let arg = tail
        .strip_suffix(":)")
        .ok_or_else(|| bad(input, "an argument coordinate ends in `(name:)`"))?;
    if !is_name(arg) {
        return Err(bad(input, "expected an argument name inside `( :)`"));
    }
    Ok(arg.to_string())
}

impl FromStr for Coordinate {
    type Err = SchemaError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Coordinate::parse(s)
    }
}

impl fmt::Display for Coordinate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coordinate::Type(t) => write!(f, "{t}"),
            Coordinate::Member { ty, member } => write!(f, "{ty}.{member}"),
            Coordinate::Argument { ty, field, arg } => write!(f, "{ty}.{field}({arg}:)"),
            Coordinate::Directive(d) => write!(f, "@{d}"),
            Coordinate::DirectiveArgument { directive, arg } => write!(f, "@{directive}({arg}:)"),
        }
    }
}

/// What a coordinate resolved to in a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinateKind {
    ObjectType,
    InterfaceType,
    UnionType,
    EnumType,
    InputType,
    ScalarType,
    Field,
    InputField,
    EnumValue,
    Argument,
    Directive,
    DirectiveArgument,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_form() {
        for s in [
            "Repository",
            "Repository.name",
            "Repository.issues(first:)",
            "IssueState.OPEN",
            "@deprecated",
            "@deprecated(reason:)",
        ] {
            let c = Coordinate::parse(s).unwrap();
            assert_eq!(c.to_string(), s);
        }
        assert_eq!(
            Coordinate::parse(" Query.viewer ").unwrap(),
            Coordinate::Member {
                ty: "Query".into(),
                member: "viewer".into()
            }
        );
    }

    #[test]
    fn rejects_malformed_with_reason() {
        for (s, why) in [
            ("", "empty"),
            ("Repo.", "after `.`"),
            ("1Repo", "expected `Type`"),
            ("Repo.issues(first)", "(name:)"),
            ("Repo.issues(:)", "argument name"),
            ("@", "directive name"),
            ("A.b.c", "after `.`"),
        ] {
            let e = Coordinate::parse(s).unwrap_err().to_string();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
