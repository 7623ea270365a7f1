//! OpenAI Responses: `function_call` items in the response's `output`, answered by
//! `function_call_output` items. Native deferred loading: tools marked `defer_loading`, found by
//! a `tool_search` tool, hosted or client-executed (`tool_search_call` items answered by
//! `tool_search_output` items). <https://platform.openai.com/docs/guides/function-calling>,
//! <https://platform.openai.com/docs/api-reference/responses/object>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, SearchCall, SearchSide, SearchTool, ToolCall,
    first_object, items, object, objects, opt_string_field, string_field, write_tool_fields,
};
use crate::error::{Error, Result};
use crate::json::write_str;
use crate::schema::Cleaned;
use serde_json::Value;

/// The output item types of the Responses API that tell its lists apart from the others'.
const ITEM_TYPES: [&str; 6] = [
    "function_call",
    "message",
    "reasoning",
    "tool_search_call",
    "web_search_call",
    "file_search_call",
];

/// The parameters of the client-executed `tool_search` tool.
const TOOL_SEARCH_PARAMETERS: &str = r#"{"type":"object","properties":{"query":{"type":"string","description":"A tool's exact name, or a few keywords describing the capability you need."},"limit":{"type":"integer","description":"Most tools to load.","minimum":1}},"required":["query"]}"#;

/// The items of a Responses output list.
fn response_items(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items,
        Value::Object(m) => m.get("output").and_then(Value::as_array).map_or(&[], |v| v),
        _ => &[],
    }
}

/// A response object `{"output": [...]}`, its `output` array, or a list of
/// `{"type": "function_call", "call_id", "name", "arguments"}` items (other items are skipped).
pub struct OpenAiResponses;

impl Provider for OpenAiResponses {
    fn format(&self) -> ApiFormat {
        ApiFormat::OpenAiResponses
    }

    fn has_strict_mode(&self) -> bool {
        true
    }

    /// `{"type": "function", "name", "description", "parameters", "strict"}` (`strict` always
    /// written).
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>) {
        out.extend_from_slice(b"{\"type\":\"function\",");
        write_tool_fields(out, name, description, "parameters", cleaned);
        out.extend_from_slice(if cleaned.strict {
            b",\"strict\":true}"
        } else {
            b",\"strict\":false}"
        });
    }

    fn detect(&self, calls: &Value) -> bool {
        let is_item = |o: &serde_json::Map<String, Value>| {
            o.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| ITEM_TYPES.contains(&t))
        };
        match calls {
            Value::Object(m) => m.get("output").is_some_and(Value::is_array),
            Value::Array(items) => first_object(items).is_some_and(is_item),
            _ => false,
        }
    }

    fn parse_calls(&self, calls: &Value) -> Result<Vec<ToolCall>> {
        let (items, path) = items(calls, "output", "the response")?;
        let mut out = Vec::new();
        for entry in objects(items, &path) {
            let (here, obj) = entry?;
            if obj.get("type").and_then(Value::as_str) != Some("function_call") {
                continue;
            }
            let arguments = match obj.get("arguments") {
                None | Some(Value::Null) => Arguments::Text(String::new()),
                Some(Value::String(t)) => Arguments::Text(t.clone()),
                Some(v) => Arguments::Value(v.clone()),
            };
            out.push(ToolCall {
                id: Some(string_field(obj, "call_id", &here)?),
                item_id: opt_string_field(obj, "id", &here)?,
                name: string_field(obj, "name", &here)?,
                arguments,
            });
        }
        Ok(out)
    }

    fn assistant_messages(&self, calls: &[ToolCall]) -> Vec<Value> {
        calls
            .iter()
            .map(|c| {
                let mut item = serde_json::Map::new();
                item.insert("type".into(), "function_call".into());
                if let Some(id) = &c.item_id {
                    item.insert("id".into(), id.clone().into());
                }
                item.insert("call_id".into(), c.id.clone().into());
                item.insert("name".into(), c.name.clone().into());
                item.insert("arguments".into(), c.arguments.as_text().into());
                Value::Object(item)
            })
            .collect()
    }

    fn result_messages(&self, calls: &[ToolCall], results: &[CallOutcome]) -> Vec<Value> {
        calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                object([
                    ("type", "function_call_output".into()),
                    ("call_id", c.id.clone().into()),
                    ("output", r.text().into_owned().into()),
                ])
            })
            .collect()
    }

    /// Client side: a `tool_search` tool this library answers, described like `discover_tools`;
    /// server side: the hosted `tool_search`.
    fn native_search_tool(&self, side: SearchSide, description: &str) -> Option<SearchTool> {
        Some(SearchTool::Object(match side {
            SearchSide::Client => {
                let mut tool =
                    br#"{"type":"tool_search","execution":"client","description":"#.to_vec();
                write_str(&mut tool, description);
                tool.extend_from_slice(b",\"parameters\":");
                tool.extend_from_slice(TOOL_SEARCH_PARAMETERS.as_bytes());
                tool.push(b'}');
                crate::json::into_string(tool)
            }
            SearchSide::Server => r#"{"type":"tool_search"}"#.to_string(),
        }))
    }

    /// The `tool_search_call` items (client-executed searches).
    fn parse_search_calls(&self, calls: &Value) -> Result<Vec<SearchCall>> {
        let mut out = Vec::new();
        let mut calls_before = 0;
        for (i, item) in response_items(calls).iter().enumerate() {
            match item.get("type").and_then(Value::as_str) {
                Some("function_call") => calls_before += 1,
                Some("tool_search_call") => {
                    let id = item.get("call_id").and_then(Value::as_str).ok_or_else(|| {
                        Error::invalid(format!("calls[{i}].call_id: missing or not a string"))
                    })?;
                    let arguments = match item.get("arguments") {
                        Some(Value::String(t)) => Arguments::Text(t.clone()),
                        Some(v) => Arguments::Value(v.clone()),
                        None => Arguments::Value(Value::Object(serde_json::Map::new())),
                    };
                    out.push(SearchCall {
                        id: id.to_string(),
                        arguments,
                        calls_before,
                    });
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// One `tool_search_output` item per search: the found tools' definitions.
    fn search_replies(&self, searches: &[SearchCall], found: Vec<Vec<Value>>) -> Vec<Value> {
        searches
            .iter()
            .zip(found)
            .map(|(search, tools)| {
                object([
                    ("type", "tool_search_output".into()),
                    ("call_id", search.id.clone().into()),
                    ("execution", "client".into()),
                    ("status", "completed".into()),
                    ("tools", Value::Array(tools)),
                ])
            })
            .collect()
    }
}
