//! Gemini: `functionCall` parts in the model's `Content`, answered by one user `Content` of
//! `functionResponse` parts (`{"output": ...}` or `{"error": ...}`, the call's `id` echoed).
//! <https://ai.google.dev/gemini-api/docs/function-calling>,
//! <https://ai.google.dev/api/caching#FunctionResponse>

use super::{
    ApiFormat, Arguments, CallOutcome, Provider, ToolCall, object, objects, opt_string_field,
    string_field, write_tool_fields,
};
use crate::error::{Error, Result};
use crate::limits::kind_of;
use crate::schema::{Cleaned, Form};
use serde_json::{Map, Value};

/// A `Content` `{"role": "model", "parts": [...]}`, its `parts`, or a whole
/// `GenerateContentResponse` (the first candidate's content); `{"functionCall": {"name", "args",
/// "id"?}}` parts are the calls, other parts are skipped.
pub struct Gemini;

fn is_part(o: &Map<String, Value>) -> bool {
    !o.contains_key("type")
        && (o.contains_key("functionCall") || o.contains_key("text") || o.contains_key("thought"))
}

/// The parts list inside a `Content` or a `GenerateContentResponse`.
fn parts(calls: &Value) -> Result<(&[Value], String)> {
    match calls {
        Value::Array(items) => Ok((items, "calls".into())),
        Value::Object(m) => {
            if let Some(candidates) = m.get("candidates") {
                let content = candidates
                    .get(0)
                    .and_then(|c| c.get("content"))
                    .ok_or_else(|| Error::invalid("calls.candidates[0].content: missing"))?;
                return match content.get("parts") {
                    Some(Value::Array(p)) => Ok((p, "calls.candidates[0].content.parts".into())),
                    _ => Err(Error::invalid(
                        "calls.candidates[0].content.parts: expected an array",
                    )),
                };
            }
            match m.get("parts") {
                Some(Value::Array(p)) => Ok((p, "calls.parts".into())),
                Some(v) => Err(Error::invalid(format!(
                    "calls.parts: expected an array, got {}",
                    kind_of(v)
                ))),
                None => Err(Error::invalid("calls: the Content has no \"parts\" array")),
            }
        }
        other => Err(Error::invalid(format!(
            "calls: expected an array or an object, got {}",
            kind_of(other)
        ))),
    }
}

impl Provider for Gemini {
    fn format(&self) -> ApiFormat {
        ApiFormat::Gemini
    }

    /// Gemini's OpenAPI subset, whatever `strict` says (strict mode is OpenAI's).
    fn schema_form(&self, _strict: bool) -> Form {
        Form::Gemini
    }

    /// `{"name", "description", "parameters"}`
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>) {
        out.push(b'{');
        write_tool_fields(out, name, description, "parameters", cleaned);
        out.push(b'}');
    }

    fn detect(&self, calls: &Value) -> bool {
        match calls {
            Value::Object(m) => m.contains_key("parts") || m.contains_key("candidates"),
            Value::Array(items) => items.iter().filter_map(Value::as_object).any(is_part),
            _ => false,
        }
    }

    fn parse_calls(&self, calls: &Value) -> Result<Vec<ToolCall>> {
        let (items, path) = parts(calls)?;
        let mut out = Vec::new();
        for entry in objects(items, &path) {
            let (here, obj) = entry?;
            let call = match obj.get("functionCall") {
                None => continue,
                Some(Value::Object(c)) => c,
                Some(v) => {
                    return Err(Error::invalid(format!(
                        "{here}.functionCall: expected an object, got {}",
                        kind_of(v)
                    )));
                }
            };
            let cpath = format!("{here}.functionCall");
            out.push(ToolCall {
                id: opt_string_field(call, "id", &cpath)?,
                item_id: None,
                name: string_field(call, "name", &cpath)?,
                arguments: Arguments::Value(call.get("args").cloned().unwrap_or(Value::Null)),
            });
        }
        Ok(out)
    }

    fn assistant_messages(&self, calls: &[ToolCall]) -> Vec<Value> {
        let parts = calls
            .iter()
            .map(|c| {
                let mut call = Map::new();
                if let Some(id) = &c.id {
                    call.insert("id".into(), id.clone().into());
                }
                call.insert("name".into(), c.name.clone().into());
                let args = match c.arguments.as_value() {
                    Value::Null => Value::Object(Map::new()),
                    v => v,
                };
                call.insert("args".into(), args);
                object([("functionCall", Value::Object(call))])
            })
            .collect();
        vec![object([
            ("role", "model".into()),
            ("parts", Value::Array(parts)),
        ])]
    }

    fn result_messages(&self, calls: &[ToolCall], results: &[CallOutcome]) -> Vec<Value> {
        if calls.is_empty() {
            return Vec::new();
        }
        let parts = calls
            .iter()
            .zip(results)
            .map(|(c, r)| {
                let mut response = Map::new();
                if let Some(id) = &c.id {
                    response.insert("id".into(), id.clone().into());
                }
                response.insert("name".into(), c.name.clone().into());
                let key = if r.is_error() { "error" } else { "output" };
                response.insert(
                    "response".into(),
                    object([(key, r.text().into_owned().into())]),
                );
                object([("functionResponse", Value::Object(response))])
            })
            .collect();
        vec![object([
            ("role", "user".into()),
            ("parts", Value::Array(parts)),
        ])]
    }
}
