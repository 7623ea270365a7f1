//! OpenAI Responses: `function_call` items in the response's `output`, answered by
//! `function_call_output` items. <https://platform.openai.com/docs/guides/function-calling>,
//! <https://platform.openai.com/docs/api-reference/responses/object>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, ToolCall, first_object, items, object, objects,
    opt_string_field, string_field, write_name_and_description,
};
use crate::error::Result;
use crate::schema::{Cleaned, Form};
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

/// A response object `{"output": [...]}`, its `output` array, or a list of
/// `{"type": "function_call", "call_id", "name", "arguments"}` items (other items are skipped).
pub struct OpenAiResponses;

impl Provider for OpenAiResponses {
    fn format(&self) -> ApiFormat {
        ApiFormat::OpenAiResponses
    }

    fn schema_form(&self, strict: bool) -> Form {
        if strict {
            Form::Strict
        } else {
            Form::Flattened
        }
    }

    /// `{"type": "function", "name", "description", "parameters", "strict"}` (`strict` always
    /// written).
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>) {
        out.extend_from_slice(b"{\"type\":\"function\",");
        write_name_and_description(out, name, description);
        out.extend_from_slice(b",\"parameters\":");
        out.extend_from_slice(cleaned.parameters.as_bytes());
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
}
