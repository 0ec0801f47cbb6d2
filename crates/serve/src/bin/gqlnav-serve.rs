//! Development binary with the flags of `gqlnav serve` plus `--schema` / `--header`.
//! It compiles `crates/cli/src/cmd_serve.rs` itself, so this crate's integration tests
//! drive the same code the `gqlnav` CLI runs.

#[path = "../../../cli/src/cmd_serve.rs"]
mod cmd_serve;

use std::sync::Arc;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "gqlnav-serve",
    about = "gqlnav MCP server and GraphQL endpoint"
)]
struct Cli {
    /// Schema: an SDL file, an introspection JSON file or an http(s) endpoint.
    #[arg(long, short = 's', value_name = "PATH|URL")]
    schema: String,
    /// Upstream request header `Name: value` (repeatable). Never printed.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Print the introspection JSON of the loaded schema to stdout and exit.
    #[arg(long)]
    dump_introspection: bool,
    #[command(flatten)]
    serve: cmd_serve::ServeArgs,
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn real_main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let mut headers = Vec::new();
    for h in &cli.headers {
        headers.push(gqlnav_schema::parse_header(h)?);
    }
    let opts = gqlnav_schema::EndpointOptions {
        headers: headers.clone(),
        ..Default::default()
    };
    let graph = gqlnav_schema::load(&cli.schema, &opts)?;
    if cli.dump_introspection {
        let v = gqlnav_schema::introspection::introspection_result(&graph.schema)
            .map_err(anyhow::Error::msg)?;
        println!("{v}");
        return Ok(());
    }
    cmd_serve::run(cli.serve, Arc::new(graph), cli.schema, headers, None)
}
