//! gqlnav schema stage: load a schema (SDL, introspection JSON, live endpoint), schema
//! coordinates, and the schema graph (roots, reverse edges, paths to the root).

pub mod coordinate;
pub mod error;
mod fingerprint;
mod fnv;
pub mod graph;
pub mod introspection;
pub mod load;

pub use apollo_compiler;
pub use coordinate::{Coordinate, CoordinateKind};
pub use error::SchemaError;
pub use fnv::Fnv64;
pub use graph::{FieldRef, PathOptions, RootKind, SchemaGraph, Warning};
pub use load::{
    load, load_endpoint, load_file, load_introspection_str, load_sdl_str, parse_header,
    EndpointOptions,
};
