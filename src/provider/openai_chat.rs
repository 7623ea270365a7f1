//! OpenAI Chat Completions: `tool_calls` on the assistant message, one `role: "tool"` message per
//! result. <https://platform.openai.com/docs/guides/function-calling>,
//! <https://platform.openai.com/docs/api-reference/chat/create>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, ToolCall, first_object, items, object, objects,
    string_field, write_tool_fields,
};
use crate::error::{Error, Result};
use crate::limits::kind_of;
use crate::schema::Cleaned;
use serde_json::Value;

/// `{"role": "assistant", "tool_calls": [{"id", "type": "function", "function": {"name",
/// "arguments": "<JSON text>"}}]}`, the bare `tool_calls` array, or a whole chat completion
/// (its first choice's message). `null` fields count as absent.
pub struct OpenAiChat;

impl Provider for OpenAiChat {
    fn format(&self) -> ApiFormat {
        ApiFormat::OpenAiChat
    }

    fn has_strict_mode(&self) -> bool {
        true
    }

    /// `{"type": "function", "function": {"name", "description", "parameters", "strict"?: true}}`
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>) {
        out.extend_from_slice(b"{\"type\":\"function\",\"function\":{");
        write_tool_fields(out, name, description, "parameters", cleaned);
        if cleaned.strict {
            out.extend_from_slice(b",\"strict\":true");
        }
        out.extend_from_slice(b"}}");
    }

    fn detect(&self, calls: &Value) -> bool {
        match calls {
            Value::Object(m) => m.contains_key("tool_calls") || m.contains_key("choices"),
            Value::Array(items) => first_object(items).is_some_and(|o| o.contains_key("function")),
            _ => false,
        }
    }

    fn parse_calls(&self, calls: &Value) -> Result<Vec<ToolCall>> {
        let (message, at) = match calls.get("choices") {
            Some(choices) => (
                choices
                    .get(0)
                    .and_then(|c| c.get("message"))
                    .ok_or_else(|| Error::invalid("calls.choices[0].message: missing"))?,
                "calls.choices[0].message",
            ),
            None => (calls, "calls"),
        };
        if let Value::Object(m) = message {
            // `null` (an SDK dump without exclude_none) is no calls; the deprecated single
            // `function_call` is a call this library does not read, never a silent no-call.
            if m.get("tool_calls").is_none_or(Value::is_null) {
                if m.get("function_call").is_some_and(|f| !f.is_null()) {
                    return Err(Error::invalid(format!(
                        "{at}.function_call: the deprecated function_call is not read (send \
                         tools, and the model answers with tool_calls)"
                    )));
                }
                return Ok(Vec::new());
            }
        }
        let (items, path) = items(message, "tool_calls", "the assistant message")?;
        let path = if at == "calls" {
            path
        } else {
            format!("{at}.tool_calls")
        };
        let mut out = Vec::with_capacity(items.len());
        for entry in objects(items, &path) {
            let (here, obj) = entry?;
            match obj.get("type") {
                None | Some(Value::Null) => {}
                Some(t) if t == "function" => {}
                // A custom tool's call is the host's to answer; skipping it would leave the
                // model without an answer.
                Some(t) => {
                    return Err(Error::invalid(format!(
                        "{here}.type: a {t} tool call, which this library does not run (only \
                         \"function\" calls)"
                    )));
                }
            }
            let function = match obj.get("function") {
                Some(Value::Object(f)) => f,
                Some(v) => {
                    return Err(Error::invalid(format!(
                        "{here}.function: expected an object, got {}",
                        kind_of(v)
                    )));
                }
                None => return Err(Error::invalid(format!("{here}.function: missing"))),
            };
            let fpath = format!("{here}.function");
            let arguments = match function.get("arguments") {
                None | Some(Value::Null) => Arguments::Text(String::new()),
                Some(Value::String(t)) => Arguments::Text(t.clone()),
                Some(v) => Arguments::Value(v.clone()),
            };
            out.push(ToolCall {
                id: Some(string_field(obj, "id", &here)?),
                item_id: None,
                name: string_field(function, "name", &fpath)?,
                arguments,
            });
        }
        Ok(out)
    }

    fn assistant_messages(&self, _input: &Value, calls: &[ToolCall]) -> Vec<Value> {
        let tool_calls = calls
            .iter()
            .map(|c| {
                object([
                    ("id", c.id.clone().into()),
                    ("type", "function".into()),
                    (
                        "function",
                        object([
                            ("name", c.name.clone().into()),
                            ("arguments", c.arguments.as_text().into()),
                        ]),
                    ),
                ])
            })
            .collect();
        vec![object([
            ("role", "assistant".into()),
            ("content", Value::Null),
            ("tool_calls", Value::Array(tool_calls)),
        ])]
    }

    fn result_messages(&self, calls: &[ToolCall], results: &[CallOutcome]) -> Vec<Value> {
        calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                object([
                    ("role", "tool".into()),
                    ("tool_call_id", c.id.clone().into()),
                    ("content", r.text().into_owned().into()),
                ])
            })
            .collect()
    }
}
