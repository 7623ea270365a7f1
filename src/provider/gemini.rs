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
/// "id"?}}` parts are the calls, other parts are skipped. Every field is read in both spellings
/// the official SDK writes (google-genai's `model_dump()` and `to_json_dict()` give snake_case,
/// `model_dump(by_alias=True)` and the REST API camelCase; protobuf JSON accepts both), and a
/// `null` field counts as absent (a dump without `exclude_none`).
pub struct Gemini;

/// A field in either spelling, `null` counting as absent.
fn field<'a>(obj: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    [camel, snake]
        .into_iter()
        .filter_map(|k| obj.get(k))
        .find(|v| !v.is_null())
}

/// The key under which `field` found the value, for error paths.
fn key_of<'a>(obj: &Map<String, Value>, camel: &'a str, snake: &'a str) -> &'a str {
    if obj.get(camel).is_some_and(|v| !v.is_null()) {
        camel
    } else {
        snake
    }
}

fn is_part(o: &Map<String, Value>) -> bool {
    !o.contains_key("type")
        && [
            "functionCall",
            "function_call",
            "text",
            "thought",
            "thoughtSignature",
            "thought_signature",
        ]
        .iter()
        .any(|k| o.contains_key(*k))
}

/// The parts list inside a `Content` or a `GenerateContentResponse` (a `null` or missing `parts`
/// of a candidate's content is an empty turn: a reply cut short has no calls).
fn parts(calls: &Value) -> Result<(&[Value], String)> {
    match calls {
        Value::Array(items) => Ok((items, "calls".into())),
        Value::Object(m) => {
            if let Some(candidates) = m.get("candidates").filter(|c| !c.is_null()) {
                let content = candidates
                    .get(0)
                    .and_then(|c| c.get("content"))
                    .filter(|c| !c.is_null())
                    .ok_or_else(|| Error::invalid("calls.candidates[0].content: missing"))?;
                return match content.get("parts") {
                    Some(Value::Array(p)) => Ok((p, "calls.candidates[0].content.parts".into())),
                    None | Some(Value::Null) => Ok((&[], String::new())),
                    Some(v) => Err(Error::invalid(format!(
                        "calls.candidates[0].content.parts: expected an array, got {}",
                        kind_of(v)
                    ))),
                };
            }
            match m.get("parts") {
                Some(Value::Array(p)) => Ok((p, "calls.parts".into())),
                Some(Value::Null) => Ok((&[], String::new())),
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

/// The `functionCall` of a part, if it has one.
fn function_call<'a>(
    obj: &'a Map<String, Value>,
    here: &str,
) -> Result<Option<(&'a Map<String, Value>, String)>> {
    match field(obj, "functionCall", "function_call") {
        None => Ok(None),
        Some(Value::Object(c)) => Ok(Some((
            c,
            format!("{here}.{}", key_of(obj, "functionCall", "function_call")),
        ))),
        Some(v) => Err(Error::invalid(format!(
            "{here}.{}: expected an object, got {}",
            key_of(obj, "functionCall", "function_call"),
            kind_of(v)
        ))),
    }
}

/// A part's thought signature (opaque text: base64 in JSON), to echo in the rebuilt turn.
fn thought_signature(obj: &Map<String, Value>) -> Option<Value> {
    field(obj, "thoughtSignature", "thought_signature").cloned()
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

    /// A request's `tools` is a list of `Tool` objects; the declarations go in one, under
    /// `functionDeclarations` (<https://ai.google.dev/api/caching#Tool>, google-genai
    /// `types.Tool.function_declarations`).
    fn request_tools_wrapper(&self) -> (&'static str, &'static str) {
        ("{\"functionDeclarations\":[", "]}")
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
            let Some((call, cpath)) = function_call(obj, &here)? else {
                continue;
            };
            let args = match field(call, "args", "args") {
                Some(v) => v.clone(),
                // A streamed call (`partialArgs`, `willContinue`) is not whole yet: running it
                // with no arguments would answer a call the model has not finished.
                None if field(call, "partialArgs", "partial_args").is_some() => {
                    return Err(Error::invalid(format!(
                        "{cpath}: a streamed call with partialArgs only; pass the complete \
                         functionCall (with args) once the stream has ended"
                    )));
                }
                None => Value::Null,
            };
            out.push(ToolCall {
                id: opt_string_field(call, "id", &cpath)?,
                item_id: None,
                name: string_field(call, "name", &cpath)?,
                arguments: Arguments::Value(args),
            });
        }
        Ok(out)
    }

    /// The calls' parts, each with its `thoughtSignature`, and the other parts that carry one
    /// (thought summaries, text), in their order: the API needs every signature back in the
    /// part it came in (<https://ai.google.dev/gemini-api/docs/thought-signatures>). Written
    /// in camelCase whatever the input's spelling.
    fn assistant_messages(&self, input: &Value, calls: &[ToolCall]) -> Vec<Value> {
        let items = parts(input).map(|(p, _)| p).unwrap_or(&[]);
        let mut calls = calls.iter();
        let mut out = Vec::new();
        for obj in items.iter().filter_map(Value::as_object) {
            let signature = thought_signature(obj);
            if let Ok(Some(_)) = function_call(obj, "") {
                let Some(c) = calls.next() else { break };
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
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(call));
                if let Some(s) = signature {
                    part.insert("thoughtSignature".into(), s);
                }
                out.push(Value::Object(part));
            } else if let Some(s) = signature {
                let mut part = Map::new();
                if let Some(text) = field(obj, "text", "text") {
                    part.insert("text".into(), text.clone());
                }
                if let Some(thought) = field(obj, "thought", "thought") {
                    part.insert("thought".into(), thought.clone());
                }
                part.insert("thoughtSignature".into(), s);
                out.push(Value::Object(part));
            }
        }
        vec![object([
            ("role", "model".into()),
            ("parts", Value::Array(out)),
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
