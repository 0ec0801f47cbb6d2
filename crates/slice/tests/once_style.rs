//! The `once` style on the real GitHub schema: the same members as `dense`, each
//! description said at most once, fewer tokens than `compact` and `sdl`.

use std::collections::HashMap;
use std::sync::Arc;

use gqlnav_corpus::Encoding;
use gqlnav_schema::apollo_compiler::ast::{Definition, Document};
use gqlnav_slice::{SliceOptions, Slicer, Style};

/// Field and type names of a parsed slice (what the WG grader counts, less arguments).
fn members(sdl: &str) -> Vec<String> {
    let doc = Document::parse(sdl, "s.graphql").unwrap_or_else(|e| panic!("{e}\n{sdl}"));
    let mut out = Vec::new();
    for d in &doc.definitions {
        match d {
            Definition::ObjectTypeDefinition(o) => {
                out.push(o.name.to_string());
                out.extend(o.fields.iter().map(|f| format!("{}.{}", o.name, f.name)));
            }
            Definition::InterfaceTypeDefinition(o) => {
                out.push(o.name.to_string());
                out.extend(o.fields.iter().map(|f| format!("{}.{}", o.name, f.name)));
            }
            Definition::EnumTypeDefinition(e) => {
                out.push(e.name.to_string());
                out.extend(e.values.iter().map(|v| format!("{}.{}", e.name, v.value)));
            }
            Definition::InputObjectTypeDefinition(i) => {
                out.push(i.name.to_string());
                out.extend(i.fields.iter().map(|f| format!("{}.{}", i.name, f.name)));
            }
            _ => {}
        }
    }
    out.sort();
    out
}

#[test]
fn once_has_dense_members_says_each_description_once_and_costs_less_than_compact() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benchmarks/wg/schemas/github/schema.graphql"
    );
    let s = Slicer::new(Arc::new(
        gqlnav_schema::load_file(std::path::Path::new(p)).unwrap(),
    ))
    .unwrap();
    for q in [
        "open pull requests of a repository with their authors",
        "who starred a repository and when",
    ] {
        let opts = SliceOptions {
            budget: Some(6000),
            encoding: Encoding::Cl100kBase,
            style: Style::Dense,
            ..Default::default()
        };
        let base = s.slice(q, &[], &opts).unwrap();
        let (once, t_once) = s.rerender(&base, Style::Once, false, Encoding::Cl100kBase);
        let (_, t_compact) = s.rerender(&base, Style::Compact, false, Encoding::Cl100kBase);
        let (_, t_sdl) = s.rerender(&base, Style::Sdl, false, Encoding::Cl100kBase);
        assert_eq!(members(&once), members(&base.sdl), "{q}");
        assert!(t_once > base.tokens, "once carries descriptions");
        assert!(
            t_once < t_compact && t_compact < t_sdl,
            "{q}: once {t_once}, compact {t_compact}, sdl {t_sdl}"
        );
        // Each description (a `name: text` note or a type comment) is said once.
        let mut said: HashMap<String, usize> = HashMap::new();
        for line in once
            .lines()
            .filter(|l| l.starts_with('#') && !l.starts_with("# not shown"))
        {
            for note in line.trim_start_matches("# ").split(" ; ") {
                let text = note.split_once(": ").map_or(note, |x| x.1).to_string();
                *said.entry(text).or_default() += 1;
            }
        }
        let twice: Vec<_> = said.iter().filter(|(_, n)| **n > 1).collect();
        assert!(twice.is_empty(), "{q}: said more than once: {twice:?}");
        // The pagination argument description is said once although many fields take it.
        assert!(
            once.matches("Returns the first _n_ elements from the list.")
                .count()
                <= 1
        );
    }
}
