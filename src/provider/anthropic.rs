//! Anthropic Messages: `tool_use` blocks in the assistant's `content`, answered by one user
//! message of `tool_result` blocks (`is_error` on failures). Native deferred loading: tools
//! marked `defer_loading`, found by our `discover_tools` (answered with `tool_reference` blocks)
//! or by the hosted BM25 tool search.
//! <https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, SearchSide, SearchTool, ToolCall, first_object,
    items, object, objects, string_field, write_tool_fields,
};
use crate::error::Result;
use crate::schema::Cleaned;
use serde_json::Value;

/// Content block types of an assistant message, to tell its content list apart.
const BLOCK_TYPES: [&str; 6] = [
    "tool_use",
    "text",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "tool_result",
];

/// `{"role": "assistant", "content": [...]}` or its `content` array; `tool_use` blocks
/// `{"type": "tool_use", "id", "name", "input": {...}}` are the calls, other blocks are skipped.
pub struct Anthropic;

impl Provider for Anthropic {
    fn format(&self) -> ApiFormat {
        ApiFormat::Anthropic
    }

    /// `{"name", "description", "input_schema"}`
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>) {
        out.push(b'{');
        write_tool_fields(out, name, description, "input_schema", cleaned);
        out.push(b'}');
    }

    /// Client side: `discover_tools` as a custom tool search; server side: the hosted BM25 search.
    fn native_search_tool(&self, side: SearchSide, _description: &str) -> Option<SearchTool> {
        Some(match side {
            SearchSide::Client => SearchTool::DiscoverTools,
            SearchSide::Server => SearchTool::Object(
                r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#
                    .to_string(),
            ),
        })
    }

    fn detect(&self, calls: &Value) -> bool {
        match calls {
            Value::Object(m) => {
                m.get("role").is_some_and(|r| r == "assistant")
                    && m.get("content").is_some_and(Value::is_array)
            }
            Value::Array(items) => first_object(items).is_some_and(|o| {
                o.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| BLOCK_TYPES.contains(&t))
            }),
            _ => false,
        }
    }

    fn parse_calls(&self, calls: &Value) -> Result<Vec<ToolCall>> {
        let (items, path) = items(calls, "content", "the assistant message")?;
        let mut out = Vec::new();
        for entry in objects(items, &path) {
            let (here, obj) = entry?;
            if obj.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            out.push(ToolCall {
                id: Some(string_field(obj, "id", &here)?),
                item_id: None,
                name: string_field(obj, "name", &here)?,
                arguments: Arguments::Value(obj.get("input").cloned().unwrap_or(Value::Null)),
            });
        }
        Ok(out)
    }

    /// The `thinking` and `redacted_thinking` blocks kept, unmodified and in their order among
    /// the `tool_use` blocks: with extended thinking and tools, the API checks that the last
    /// assistant turn's thinking comes back as it was sent (a `ThinkingBlockParam` is `type`,
    /// `thinking`, `signature`; a `RedactedThinkingBlockParam` `type`, `data`).
    fn assistant_messages(&self, input: &Value, calls: &[ToolCall]) -> Vec<Value> {
        let blocks = items(input, "content", "the assistant message").map_or(&[][..], |(b, _)| b);
        let mut calls = calls.iter();
        let mut content = Vec::new();
        for block in blocks.iter().filter_map(Value::as_object) {
            let kept = |keys: &[&str]| {
                Value::Object(
                    keys.iter()
                        .filter_map(|k| block.get(*k).map(|v| (k.to_string(), v.clone())))
                        .collect(),
                )
            };
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let Some(c) = calls.next() else { break };
                    content.push(object([
                        ("type", "tool_use".into()),
                        ("id", c.id.clone().into()),
                        ("name", c.name.clone().into()),
                        ("input", c.arguments.as_value()),
                    ]));
                }
                Some("thinking") => content.push(kept(&["type", "thinking", "signature"])),
                Some("redacted_thinking") => content.push(kept(&["type", "data"])),
                _ => {}
            }
        }
        vec![object([
            ("role", "assistant".into()),
            ("content", Value::Array(content)),
        ])]
    }

    fn result_messages(&self, calls: &[ToolCall], results: &[CallOutcome]) -> Vec<Value> {
        if calls.is_empty() {
            return Vec::new();
        }
        let content = calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                let mut block = serde_json::Map::new();
                block.insert("type".into(), "tool_result".into());
                block.insert("tool_use_id".into(), c.id.clone().into());
                let content = match r {
                    // A custom search tool's answer: the API expands each reference into the
                    // tool's definition (tools marked `defer_loading`).
                    CallOutcome::References(names) => Value::Array(
                        names
                            .iter()
                            .map(|n| {
                                object([
                                    ("type", "tool_reference".into()),
                                    ("tool_name", n.clone().into()),
                                ])
                            })
                            .collect(),
                    ),
                    other => other.text().into_owned().into(),
                };
                block.insert("content".into(), content);
                if r.is_error() {
                    block.insert("is_error".into(), true.into());
                }
                Value::Object(block)
            })
            .collect();
        vec![object([
            ("role", "user".into()),
            ("content", Value::Array(content)),
        ])]
    }
}
