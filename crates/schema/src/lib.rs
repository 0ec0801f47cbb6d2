//! gqlnav schema stage: load a schema (SDL, introspection JSON, live endpoint), schema
//! coordinates, and the schema graph (roots, reverse edges, paths to the root), with the
//! schema facts every later stage reads from it, each defined once here: connections and
//! the wrappers around their items (`connection.rs`), value objects (`value_object.rs`),
//! labels (`label.rs`) and the words of a name (`words.rs`).

mod checked;
mod connection;
mod coordinate;
mod error;
mod fingerprint;
mod fnv;
mod graph;
mod introspection;
mod label;
mod load;
mod paths;
mod supergraph;
mod value_object;
mod words;

pub use apollo_compiler;
pub use checked::CheckedSchema;
pub use connection::{connection_of, has_required_args, Connection, Wrapper};
pub use coordinate::{Coordinate, CoordinateKind};
pub use error::SchemaError;
pub use fnv::Fnv64;
pub use graph::{edit_distance, FieldRef, RootKind, SchemaGraph, Warning, GENERIC_ABSTRACT};
pub use introspection::{
    execute_introspection, introspection_result, introspection_to_sdl, introspection_to_sdl_marked,
    locate_in_json, JsonMarks, DEFAULT_MAX_TYPE_DEPTH, INTROSPECTION_QUERY,
};
pub use label::LabelRule;
pub use load::{
    body_snippet, check_http_url, escape_controls, load, load_endpoint, load_file, load_file_with,
    load_introspection_str, load_sdl_str, parse_header, parse_headers_env, post_json_bounded,
    read_schema_file, redact_url, text_of, EndpointOptions, DEFAULT_MAX_SCHEMA_BYTES,
    MAX_LEXICAL_ERRORS, MAX_SCHEMA_TOKENS,
};
pub use paths::PathOptions;
pub use supergraph::{field_services, find_service, services, Service};
pub use value_object::VALUE_OBJECT_MAX_FIELDS;
pub use words::{for_each_identifier_word, identifier_word_count};
