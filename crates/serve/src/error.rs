//! What can stop the server, each with what to do about it.

use std::net::SocketAddr;

/// A server failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The configuration is inconsistent.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The toolbox (index, upstream client) could not be built.
    #[error(transparent)]
    Tools(#[from] gqlnav_tools::ToolboxError),
    /// A listener address is not loopback and no public host is configured.
    #[error("refusing to listen on {0}: it is not a loopback address. Use 127.0.0.1, or list the public host names in [server] allowed_hosts")]
    NotLoopback(SocketAddr),
    /// Binding or serving a listener failed.
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, #[source] std::io::Error),
    /// The stdio transport failed to start.
    #[error("MCP over stdio could not start: {0}")]
    Stdio(String),
    /// Nothing to serve.
    #[error("nothing to serve: give --http ADDR, --graphql ADDR, or use stdio")]
    Nothing,
    /// The log file could not be opened.
    #[error("cannot open log file {0}: {1}")]
    LogFile(String, #[source] std::io::Error),
    /// The compiled tools could not be built (`--tools`).
    #[error("--tools: {0}")]
    Compile(#[from] gqlnav_tools::CompileError),
    /// The async runtime could not start, or a server task died.
    #[error("server runtime: {0}")]
    Runtime(String),
}
