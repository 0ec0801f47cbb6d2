//! `gqlnav mock`: a deterministic GraphQL upstream for any schema (the bench's answer
//! source, and a stand-in upstream for trying the agent and the tools).

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::Value;

use crate::common::SchemaArgs;

/// Flags of `gqlnav mock`.
#[derive(Args, Debug, Clone)]
pub struct MockArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Serve the mock at this address (POST or GET `/graphql`, `{query, variables,
    /// operationName}`), until Ctrl-C. Port 0 picks a free one (printed).
    #[arg(long, value_name = "ADDR", conflicts_with = "query")]
    pub http: Option<SocketAddr>,
    /// Run one operation and print the response (`{data}` or `{errors}`) instead of
    /// serving.
    #[arg(long, short = 'q', value_name = "GRAPHQL")]
    pub query: Option<String>,
    /// Variables of --query, as a JSON object.
    #[arg(long, value_name = "JSON", requires = "query")]
    pub variables: Option<String>,
    /// "Today" for generated dates, YYYY-MM-DD (dates fall in the year before it).
    #[arg(long, default_value = "2025-06-01", value_name = "DATE")]
    pub today: String,
    /// Most values in one response (a larger answer is refused with a message).
    #[arg(long, default_value_t = gqlnav_mock::MockOptions::default().max_values, value_name = "N")]
    pub max_values: usize,
}

/// Seconds since the epoch of a `YYYY-MM-DD` day (UTC midnight).
fn epoch_day(s: &str) -> Result<i64> {
    let bad = || anyhow::anyhow!("--today `{s}` is not a date like 2025-06-01");
    let mut it = s.trim().splitn(3, '-').map(|p| p.parse::<i64>());
    let (Some(Ok(y)), Some(Ok(m)), Some(Ok(d))) = (it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400)
}

pub fn run(a: MockArgs) -> Result<()> {
    let graph = a.schema.load(a.query.is_some())?;
    let opts = gqlnav_mock::MockOptions {
        today: epoch_day(&a.today)?,
        max_values: a.max_values.max(1),
    };
    let mock = gqlnav_mock::Mock::of_graph(&graph, opts);
    if let Some(q) = &a.query {
        let variables = match &a.variables {
            None => None,
            Some(v) => match serde_json::from_str::<Value>(v)
                .with_context(|| format!("--variables is not JSON: {v}"))?
            {
                Value::Object(m) => Some(m),
                _ => bail!("--variables must be a JSON object"),
            },
        };
        let out = mock.execute(&gqlnav_mock::Request {
            query: q.clone(),
            variables,
            operation_name: None,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        if out.get("data").is_none() {
            std::process::exit(1);
        }
        return Ok(());
    }
    let Some(addr) = a.http else {
        bail!("say what to do: --http ADDR to serve the mock, or --query GRAPHQL to run one operation");
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        let server = gqlnav_mock::serve(Arc::new(mock), addr)
            .await
            .with_context(|| format!("binding {addr}"))?;
        eprintln!(
            "gqlnav mock: serving {} at {} (deterministic data, today {}); Ctrl-C stops it",
            a.schema.schema.as_deref().unwrap_or("builtin:github"),
            server.url(),
            a.today
        );
        tokio::select! {
            _ = server.wait() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        anyhow::Ok(())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_are_counted_from_the_epoch() {
        assert_eq!(super::epoch_day("1970-01-01").ok(), Some(0));
        assert_eq!(
            super::epoch_day("2025-06-01").ok(),
            Some(gqlnav_mock::DEFAULT_TODAY)
        );
        assert!(super::epoch_day("2025-13-01").is_err());
        assert!(super::epoch_day("June").is_err());
    }
}
