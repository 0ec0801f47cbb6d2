//! Tool-set output formats: MCP `tools/list` entries, OpenAI function tools, Anthropic
//! tools, or one JSON-Schema document with shared `$defs`.

use serde_json::{json, Map, Value};

use super::{CompiledTool, RefMode, ToolSet};

/// Where the tool specs go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolFormat {
    /// MCP `tools/list` entries: name, description, inputSchema, annotations.
    #[default]
    Mcp,
    /// OpenAI chat-completions tools: `{type: function, function: {name, description, parameters}}`.
    Openai,
    /// Anthropic Messages tools: name, description, input_schema.
    Anthropic,
    /// One JSON-Schema (2020-12) document: top-level `$defs` shared by every tool.
    JsonSchema,
}

impl ToolFormat {
    pub const NAMES: [&'static str; 4] = ["mcp", "openai", "anthropic", "json-schema"];

    pub fn parse(s: &str) -> Option<ToolFormat> {
        Some(match s.to_ascii_lowercase().as_str() {
            "mcp" => ToolFormat::Mcp,
            "openai" => ToolFormat::Openai,
            "anthropic" => ToolFormat::Anthropic,
            "json-schema" | "jsonschema" | "json_schema" => ToolFormat::JsonSchema,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ToolFormat::Mcp => "mcp",
            ToolFormat::Openai => "openai",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::JsonSchema => "json-schema",
        }
    }
}

impl ToolSet {
    /// A tool's input schema, self-contained: with the `$defs` it reaches (refs mode).
    pub fn standalone_schema(&self, t: &CompiledTool) -> Value {
        let mut s = t.input_schema.clone();
        if self.refs == RefMode::Defs && !t.defs_used.is_empty() {
            let defs: Map<String, Value> = t
                .defs_used
                .iter()
                .filter_map(|n| self.defs.get(n).map(|d| (n.clone(), d.clone())))
                .collect();
            if let Some(o) = s.as_object_mut() {
                o.insert("$defs".into(), Value::Object(defs));
            }
        }
        s
    }

    /// MCP tool annotations for a compiled tool.
    pub fn annotations(t: &CompiledTool) -> Value {
        json!({
            "title": t.coordinate,
            "readOnlyHint": !t.mutation,
            "destructiveHint": t.mutation,
            "idempotentHint": !t.mutation,
            "openWorldHint": true,
        })
    }

    /// The whole set in one format.
    pub fn render(&self, format: ToolFormat) -> Value {
        match format {
            ToolFormat::JsonSchema => {
                let tools: Vec<Value> = self
                    .tools
                    .iter()
                    .map(|t| {
                        json!({
                            "name": t.name, "description": t.description,
                            "readOnly": !t.mutation, "destructive": t.mutation,
                            "inputSchema": t.input_schema,
                        })
                    })
                    .collect();
                let mut doc = json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "title": format!("GraphQL tools compiled from {}", self.source),
                });
                if self.refs == RefMode::Defs {
                    doc["$defs"] = json!(self.defs);
                }
                doc["tools"] = Value::Array(tools);
                doc
            }
            _ => Value::Array(
                self.tools
                    .iter()
                    .map(|t| self.render_one(t, format))
                    .collect(),
            ),
        }
    }

    fn render_one(&self, t: &CompiledTool, format: ToolFormat) -> Value {
        let schema = self.standalone_schema(t);
        match format {
            ToolFormat::Mcp | ToolFormat::JsonSchema => json!({
                "name": t.name, "description": t.description, "inputSchema": schema,
                "annotations": Self::annotations(t),
            }),
            ToolFormat::Openai => json!({
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": schema},
            }),
            ToolFormat::Anthropic => json!({
                "name": t.name, "description": t.description, "input_schema": schema,
            }),
        }
    }
}
