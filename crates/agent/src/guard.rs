//! The truncation guard: before each model call, count the prompt and refuse, with the
//! counts, when it would not fit the model's context. An inlined schema too large for
//! the context is otherwise silently cut from the front (the seed measured a model that
//! read about 8% of a quarter-million tokens, with no error).
//!
//! The meter is the model's own tokenizer when one is known: a `tokenizer.json`
//! (`--tokenizer`), or llama-server's `/tokenize`; otherwise o200k_base plus
//! [`ESTIMATE_MARGIN_PCT`]. The window is `--context`, llama-server's `/props` `n_ctx`, or
//! Ollama's `/api/show` context length (halved: the seed measured Ollama cutting at half
//! the window); otherwise [`ASSUMED_WINDOW`].

use gqlnav_corpus::{Encoding, TokenMeter};
use serde_json::{json, Value};

use crate::chat::{ChatClient, Provider};
use crate::error::AgentError;

/// Margin added to an o200k_base estimate of another model's tokens.
pub const ESTIMATE_MARGIN_PCT: usize = 15;
/// The window assumed when none is given or detected.
pub const ASSUMED_WINDOW: usize = 128_000;
/// Tokens a chat template adds per message (role markers), counted on top of the text.
const PER_MESSAGE: usize = 8;

/// How prompt tokens are counted.
#[derive(Debug, Clone)]
pub enum GuardMeter {
    /// A local encoding: a tokenizer file (exact) or o200k_base (an estimate + margin).
    Local { meter: TokenMeter, exact: bool },
    /// llama-server's `/tokenize` endpoint (exact).
    Server { url: String },
}

/// Counts prompts and knows the window.
#[derive(Debug, Clone)]
pub struct Guard {
    pub meter: GuardMeter,
    pub window: usize,
    /// Where the window came from.
    pub window_source: String,
}

impl Guard {
    /// Work out the meter and the window for `client`.
    pub async fn detect(
        client: &ChatClient,
        tokenizer: Option<Encoding>,
        context: Option<usize>,
    ) -> Guard {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(5))
            .build()
            .ok();
        let mut window = context.map(|c| (c, "--context".to_string()));
        let mut server_tokenize = false;
        if let Some(http) = &http {
            match client.provider {
                Provider::OpenAi => {
                    if let Ok(r) = http.get(format!("{}/props", client.url)).send().await {
                        if let Ok(v) = r.json::<Value>().await {
                            let n = v["default_generation_settings"]["n_ctx"]
                                .as_u64()
                                .or_else(|| v["n_ctx"].as_u64());
                            if let Some(n) = n {
                                server_tokenize = true;
                                window = window
                                    .or(Some((n as usize, "llama-server /props n_ctx".into())));
                            }
                        }
                    }
                }
                Provider::Ollama => {
                    let body = json!({"model": client.model});
                    if let Ok(r) = http
                        .post(format!("{}/api/show", client.url))
                        .json(&body)
                        .send()
                        .await
                    {
                        if let Ok(v) = r.json::<Value>().await {
                            let n = v["model_info"].as_object().and_then(|m| {
                                m.iter()
                                    .find(|(k, _)| k.ends_with(".context_length"))
                                    .and_then(|(_, v)| v.as_u64())
                            });
                            if let Some(n) = n {
                                window = window.or(Some((n as usize / 2, format!("Ollama /api/show context_length {n}, halved (Ollama cuts at half the window)"))));
                            }
                        }
                    }
                }
                Provider::Anthropic => {}
            }
        }
        let (window, window_source) = window.unwrap_or((
            ASSUMED_WINDOW,
            format!("assumed {ASSUMED_WINDOW}; pass --context N"),
        ));
        let meter = match tokenizer {
            Some(e) => GuardMeter::Local {
                meter: TokenMeter::new(e),
                exact: true,
            },
            None if server_tokenize => GuardMeter::Server {
                url: format!("{}/tokenize", client.url),
            },
            None => GuardMeter::Local {
                meter: TokenMeter::new(Encoding::O200kBase),
                exact: false,
            },
        };
        Guard {
            meter,
            window,
            window_source,
        }
    }

    /// The meter's name, as the receipt and errors say it.
    pub fn meter_name(&self) -> String {
        match &self.meter {
            GuardMeter::Local { meter, exact: true } => meter.encoding().name().to_string(),
            GuardMeter::Local {
                meter,
                exact: false,
            } => format!(
                "{} estimate + {ESTIMATE_MARGIN_PCT}%",
                meter.encoding().name()
            ),
            GuardMeter::Server { url } => format!("llama-server {url}"),
        }
    }

    /// Tokens of a prompt made of `texts` (message contents and tool specs).
    pub async fn count(&self, texts: &[&str]) -> usize {
        let per = texts.len() * PER_MESSAGE;
        match &self.meter {
            GuardMeter::Local { meter, exact } => {
                let n: usize = texts.iter().map(|t| meter.count(t)).sum();
                if *exact {
                    n + per
                } else {
                    n + n * ESTIMATE_MARGIN_PCT / 100 + per
                }
            }
            GuardMeter::Server { url } => {
                let joined = texts.join("\n");
                let fallback = || {
                    let n = TokenMeter::new(Encoding::O200kBase).count(&joined);
                    n + n * ESTIMATE_MARGIN_PCT / 100 + per
                };
                let Ok(http) = reqwest::Client::builder()
                    .timeout(std::time::Duration::from_secs(30))
                    .build()
                else {
                    return fallback();
                };
                match http
                    .post(url)
                    .json(&json!({"content": joined}))
                    .send()
                    .await
                {
                    Ok(r) => match r.json::<Value>().await {
                        Ok(v) => v["tokens"]
                            .as_array()
                            .map_or_else(fallback, |t| t.len() + per),
                        Err(_) => fallback(),
                    },
                    Err(_) => fallback(),
                }
            }
        }
    }

    /// Refuse a prompt of `prompt` tokens that would not fit with `reserve` for the reply.
    pub fn check(&self, prompt: usize, reserve: usize) -> Result<(), AgentError> {
        if prompt + reserve > self.window {
            return Err(AgentError::TooLong {
                prompt,
                reserve,
                window: self.window,
                meter: self.meter_name(),
                source_of_window: self.window_source.clone(),
            });
        }
        Ok(())
    }
}
