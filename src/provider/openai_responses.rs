//! OpenAI Responses: `function_call` items in the response's `output`, answered by
//! `function_call_output` items. Native deferred loading: tools marked `defer_loading`, found by
//! a `tool_search` tool, hosted or client-executed (`tool_search_call` items answered by
//! `tool_search_output` items). <https://platform.openai.com/docs/guides/function-calling>,
//! <https://platform.openai.com/docs/api-reference/responses/object>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, SearchCall, SearchSide, SearchTool, ToolCall,
    first_object, items, object, objects, opt_string_field, string_field, without_nulls,
    write_tool_fields,
};
use crate::error::{Error, Result};
use crate::json::write_str;
use crate::schema::Cleaned;
use serde_json::Value;

/// The output item types of the Responses API that tell its lists apart from the others'.
const ITEM_TYPES: [&str; 14] = [
    "function_call",
    "message",
    "reasoning",
    "tool_search_call",
    "tool_search_output",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    "custom_tool_call",
    "computer_call",
    "local_shell_call",
];

/// Output items that ask the client for an answer this library cannot give (the host's own
/// tools): skipping them would leave the model's call unanswered, so they fail the batch.
const CLIENT_ITEMS_NOT_RUN: [&str; 5] = [
    "custom_tool_call",
    "computer_call",
    "local_shell_call",
    "apply_patch_call",
    "mcp_approval_request",
];

/// The fields of a `reasoning` input item (`ResponseReasoningItemParam`: `id`, `summary`,
/// `type`, optional `content`, `encrypted_content`, `status`), in that order.
const REASONING_FIELDS: [&str; 6] = [
    "type",
    "id",
    "summary",
    "content",
    "encrypted_content",
    "status",
];

/// The fields of a `tool_search_call` input item (`ResponseInputItemParam.ToolSearchCall`).
const SEARCH_CALL_FIELDS: [&str; 6] = ["type", "id", "call_id", "execution", "status", "arguments"];

/// The fields of a `tool_search_output` input item (`ResponseToolSearchOutputItemParamParam`).
const SEARCH_OUTPUT_FIELDS: [&str; 6] = ["type", "id", "call_id", "execution", "status", "tools"];

/// Whether a `tool_search_call` item ran on the server (`"execution": "server"`): the API
/// answered it already, with its own `tool_search_output` item.
fn server_side(item: &Value) -> bool {
    item.get("execution").and_then(Value::as_str) == Some("server")
}

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
/// `{"type": "function_call", "call_id", "name", "arguments"}` items (other items are skipped,
/// but a call the client must answer and this library cannot run fails the batch).
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
            match obj.get("type").and_then(Value::as_str) {
                Some("function_call") => {}
                Some(t) if CLIENT_ITEMS_NOT_RUN.contains(&t) => {
                    return Err(Error::invalid(format!(
                        "{here}.type: a {t:?} item, which the client must answer and this \
                         library does not run (only function_call and client tool_search_call)"
                    )));
                }
                _ => continue,
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

    /// The `reasoning` items kept with the calls, in their order: reasoning models need them
    /// back with the calls they led to (the SDK's `ResponseReasoningItemParam`: "Be sure to
    /// include these items in your `input` ... if you are manually managing context"; with
    /// `store: false` only `encrypted_content` carries them). The tool searches of the turn are
    /// kept too: a `tool_search_output` answers a `tool_search_call` the input must hold.
    fn assistant_messages(&self, input: &Value, calls: &[ToolCall]) -> Vec<Value> {
        let mut calls = calls.iter();
        let mut out = Vec::new();
        for item in response_items(input).iter().filter_map(Value::as_object) {
            let kept = |keys: &[&str]| {
                Value::Object(
                    keys.iter()
                        .filter_map(|k| {
                            item.get(*k)
                                .filter(|v| !v.is_null())
                                .map(|v| (k.to_string(), without_nulls(v)))
                        })
                        .collect(),
                )
            };
            match item.get("type").and_then(Value::as_str) {
                Some("function_call") => {
                    let Some(c) = calls.next() else { break };
                    let mut call = serde_json::Map::new();
                    call.insert("type".into(), "function_call".into());
                    if let Some(id) = &c.item_id {
                        call.insert("id".into(), id.clone().into());
                    }
                    call.insert("call_id".into(), c.id.clone().into());
                    call.insert("name".into(), c.name.clone().into());
                    call.insert("arguments".into(), c.arguments.as_text().into());
                    out.push(Value::Object(call));
                }
                Some("reasoning") => out.push(kept(&REASONING_FIELDS)),
                Some("tool_search_call") => out.push(kept(&SEARCH_CALL_FIELDS)),
                Some("tool_search_output") => out.push(kept(&SEARCH_OUTPUT_FIELDS)),
                _ => {}
            }
        }
        out
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

    /// The `tool_search_call` items the client runs (`"execution": "client"`); a search the
    /// server ran is skipped: it has its answer already, and may have no `call_id`.
    fn parse_search_calls(&self, calls: &Value) -> Result<Vec<SearchCall>> {
        let mut out = Vec::new();
        let mut calls_before = 0;
        let at = if calls.is_object() {
            "calls.output"
        } else {
            "calls"
        };
        for (i, item) in response_items(calls).iter().enumerate() {
            match item.get("type").and_then(Value::as_str) {
                Some("function_call") => calls_before += 1,
                Some("tool_search_call") if !server_side(item) => {
                    let id = item.get("call_id").and_then(Value::as_str).ok_or_else(|| {
                        Error::invalid(format!("{at}[{i}].call_id: missing or not a string"))
                    })?;
                    let arguments = match item.get("arguments") {
                        Some(Value::String(t)) => Arguments::Text(t.clone()),
                        None | Some(Value::Null) => {
                            Arguments::Value(Value::Object(serde_json::Map::new()))
                        }
                        Some(v) => Arguments::Value(v.clone()),
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
