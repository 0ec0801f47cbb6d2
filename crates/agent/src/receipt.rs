//! The context receipt: what a run cost, in the provider's tokens and in our own meter,
//! next to what showing the whole schema in every call would have cost.

use std::collections::BTreeMap;

use gqlnav_tools::NavTool;

use crate::chat::Usage;

/// One tool's share of the run.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ToolShare {
    pub calls: usize,
    /// Result tokens by our meter.
    pub tokens: usize,
}

/// The receipt of one run.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    pub model: String,
    pub provider: String,
    /// The strategy that ran (`typed`, `navigate`, `slice`, `inline`; a typed run that
    /// fell back says why).
    pub strategy: String,
    /// Typed tools offered, and their field paths in all.
    pub typed_tools: usize,
    pub typed_paths: usize,
    /// What the run had to cut or relax, in words.
    pub notes: Vec<String>,
    pub model_calls: usize,
    /// Provider-reported tokens, summed over calls.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cache_read_tokens: u64,
    /// Tool results by our meter, per tool.
    pub tools: BTreeMap<String, ToolShare>,
    /// Sum of tool result tokens.
    pub tool_payload_tokens: usize,
    /// search_schema + introspect result tokens (what the model learned of the schema).
    pub schema_knowledge_tokens: usize,
    /// The encoding of our meter.
    pub tool_encoding: String,
    /// The whole schema as a corpus (dot-plus-gloss) and as SDL, in `tool_encoding`.
    pub corpus_tokens: usize,
    pub sdl_tokens: usize,
    /// `corpus_tokens × model_calls`: the corpus in every call.
    pub corpus_every_call: usize,
    /// The guard's meter (what the prompt counts below were measured with).
    pub guard_meter: String,
    /// The largest prompt the guard counted.
    pub largest_prompt: usize,
    pub context_window: usize,
    pub wall_ms: u128,
    /// USD, when prices were given.
    pub cost_usd: Option<f64>,
}

impl Receipt {
    /// Count one model call and the usage its provider reported.
    pub fn add_call(&mut self, usage: &Usage) {
        self.model_calls += 1;
        self.prompt_tokens += usage.prompt;
        self.completion_tokens += usage.completion;
        self.cache_read_tokens += usage.cache_read;
    }

    /// Count one tool result of `tokens` (our meter) under the tool's name.
    pub fn add_tool(&mut self, name: &str, tokens: usize) {
        let share = self.tools.entry(name.to_string()).or_default();
        share.calls += 1;
        share.tokens += tokens;
    }

    /// Remember a prompt the guard counted (the receipt keeps the largest).
    pub fn saw_prompt(&mut self, tokens: usize) {
        self.largest_prompt = self.largest_prompt.max(tokens);
    }

    /// Close the receipt: the sums over tools, what the model learned of the schema
    /// (`search_schema` + `introspect` results), the corpus in every call, wall time and
    /// cost.
    pub fn close(&mut self, wall_ms: u128, price_in: Option<f64>, price_out: Option<f64>) {
        self.tool_payload_tokens = self.tools.values().map(|t| t.tokens).sum();
        self.schema_knowledge_tokens = [NavTool::Search, NavTool::Introspect]
            .iter()
            .filter_map(|t| self.tools.get(t.name()))
            .map(|t| t.tokens)
            .sum();
        self.corpus_every_call = self.corpus_tokens * self.model_calls;
        self.wall_ms = wall_ms;
        self.price(price_in, price_out);
    }

    /// Price the run: USD per million prompt / completion tokens.
    pub fn price(&mut self, price_in: Option<f64>, price_out: Option<f64>) {
        if price_in.is_some() || price_out.is_some() {
            let c = self.prompt_tokens as f64 * price_in.unwrap_or(0.0) / 1e6
                + self.completion_tokens as f64 * price_out.unwrap_or(0.0) / 1e6;
            self.cost_usd = Some(c);
        }
    }

    /// The receipt as a person reads it.
    pub fn text(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "context receipt ({} via {})\n",
            self.model, self.provider
        ));
        s.push_str(&format!("  strategy               {}\n", self.strategy));
        if self.typed_tools > 0 {
            s.push_str(&format!(
                "  typed tools            {} with {} field paths\n",
                self.typed_tools, self.typed_paths
            ));
        }
        for n in &self.notes {
            s.push_str(&format!("  note                   {n}\n"));
        }
        s.push_str(&format!("  model calls            {}\n", self.model_calls));
        s.push_str(&format!(
            "  prompt tokens          {} (provider-reported; {} read from cache)\n",
            self.prompt_tokens, self.cache_read_tokens
        ));
        s.push_str(&format!(
            "  completion tokens      {} (provider-reported)\n",
            self.completion_tokens
        ));
        s.push_str(&format!(
            "  tool payload           {} tokens ({})\n",
            self.tool_payload_tokens, self.tool_encoding
        ));
        for (name, t) in &self.tools {
            s.push_str(&format!(
                "    {name:<20} {} call(s), {} tokens\n",
                t.calls, t.tokens
            ));
        }
        s.push_str(&format!(
            "  schema knowledge       {} tokens (search_schema + introspect, {})\n",
            self.schema_knowledge_tokens, self.tool_encoding
        ));
        s.push_str(&format!(
            "  whole schema instead   corpus {} × {} calls = {} tokens; SDL {} per call ({})\n",
            self.corpus_tokens,
            self.model_calls,
            self.corpus_every_call,
            self.sdl_tokens,
            self.tool_encoding
        ));
        s.push_str(&format!(
            "  largest prompt         {} of {} tokens of context ({})\n",
            self.largest_prompt, self.context_window, self.guard_meter
        ));
        s.push_str(&format!(
            "  wall time              {:.1} s\n",
            self.wall_ms as f64 / 1000.0
        ));
        if let Some(c) = self.cost_usd {
            s.push_str(&format!("  cost                   ${c:.4}\n"));
        }
        s
    }
}
