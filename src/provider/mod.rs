//! Everything that differs between LLM providers, one file per provider: how a tool is written
//! in a request, which schema form it takes, how a tool call list is recognized and read, how the
//! assistant turn is rebuilt, how results are written back as the messages of the next turn, and
//! how the provider's native deferred loading searches and is answered.
//!
//! Adding a provider is adding a file with a [`Provider`], a name in [`ApiFormat`] and an entry in
//! [`PROVIDERS`]. Shapes are the providers' documented ones (links in each file and in
//! `tests/conformance/`).

mod anthropic;
mod gemini;
mod openai_chat;
mod openai_responses;

use crate::error::{Error, Result};
use crate::json::write_str;
use crate::limits::kind_of;
use crate::schema::{Cleaned, Form};
use serde_json::{Map, Value};

/// A provider's name, as the `api_format` options spell it; [`provider`] gives its [`Provider`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiFormat {
    /// OpenAI Chat Completions: `{"type": "function", "function": {"name", "description",
    /// "parameters"}}`.
    #[default]
    OpenAiChat,
    /// OpenAI Responses: `{"type": "function", "name", "description", "parameters", "strict":
    /// false}`.
    OpenAiResponses,
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// Gemini: `{"name", "description", "parameters"}` with upper-case schema types.
    Gemini,
}

impl ApiFormat {
    /// Every format, in documentation order (the order of [`PROVIDERS`]).
    pub const ALL: [ApiFormat; 4] = [
        ApiFormat::OpenAiChat,
        ApiFormat::OpenAiResponses,
        ApiFormat::Anthropic,
        ApiFormat::Gemini,
    ];

    /// Parses the format's name: `openai-chat`, `openai-responses`, `anthropic` or `gemini`.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name).ok_or_else(|| {
            Error::invalid(format!(
                "api_format: unknown format {name:?} (expected openai-chat, openai-responses, anthropic or gemini)"
            ))
        })
    }

    /// The format's name as it appears in JSON options.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiFormat::OpenAiChat => "openai-chat",
            ApiFormat::OpenAiResponses => "openai-responses",
            ApiFormat::Anthropic => "anthropic",
            ApiFormat::Gemini => "gemini",
        }
    }
}

/// One tool call as the model made it, in no provider's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id (`tool_call_id`, `call_id`, `tool_use_id`); Gemini's is optional.
    pub id: Option<String>,
    /// Other item id kept only to rebuild the assistant turn (Responses' `fc_…` item id).
    pub item_id: Option<String>,
    /// The tool name the model used.
    pub name: String,
    /// The arguments as the model sent them.
    pub arguments: Arguments,
}

/// Tool-call arguments: OpenAI sends JSON text, Anthropic and Gemini an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// JSON text, not yet parsed (it may be malformed: that is the model's error to hear about).
    Text(String),
    /// Already a JSON value.
    Value(Value),
}

impl Arguments {
    /// The arguments as a JSON object, or the message the model should get.
    pub fn to_object(&self) -> std::result::Result<Map<String, Value>, String> {
        let value = match self {
            // Models send "" for tools without parameters.
            Arguments::Text(t) if t.trim().is_empty() => return Ok(Map::new()),
            Arguments::Text(t) => serde_json::from_str::<Value>(t)
                .map_err(|e| format!("the arguments are not valid JSON ({e})"))?,
            Arguments::Value(v) => v.clone(),
        };
        match value {
            Value::Object(m) => Ok(m),
            Value::Null => Ok(Map::new()),
            other => Err(format!(
                "the arguments must be a JSON object, got {}",
                kind_of(&other)
            )),
        }
    }

    /// The arguments as JSON text, as the provider's assistant turn carries them.
    pub fn as_text(&self) -> String {
        match self {
            Arguments::Text(t) => t.clone(),
            Arguments::Value(v) => crate::json::json_text(v),
        }
    }

    /// The arguments as a JSON value (text that does not parse is kept as a string).
    pub fn as_value(&self) -> Value {
        match self {
            Arguments::Text(t) => {
                serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.clone()))
            }
            Arguments::Value(v) => v.clone(),
        }
    }
}

/// The result of one call: the text the model sees, or an error message for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOutcome {
    /// The tool ran; its output.
    Success(String),
    /// The call failed; what the model should know.
    Failure(String),
    /// Tools a search found, answered as references the provider expands into their definitions
    /// (Anthropic's `tool_reference` blocks); as text, a JSON array of the names.
    References(Vec<String>),
}

impl CallOutcome {
    /// The text the model reads: the output, or the failure message after "Error: " (every
    /// provider gets the prefix, since only Anthropic and Gemini have an error flag or key).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            CallOutcome::Success(t) => t.into(),
            CallOutcome::Failure(m) => format!("Error: {m}").into(),
            CallOutcome::References(names) => Value::from(names.clone()).to_string().into(),
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        matches!(self, CallOutcome::Failure(_))
    }
}

/// Where searches run in `native` mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchSide {
    /// Our engine answers the model's searches (`discover_tools` for Anthropic, a client-executed
    /// `tool_search` for Responses).
    #[default]
    Client,
    /// The provider's hosted search tool; the library only lists the tools.
    Server,
}

/// The tool that opens the tool list in native deferred loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchTool {
    /// Our `discover_tools`, as an ordinary tool; it answers with [`CallOutcome::References`],
    /// which the provider expands into the found tools' definitions.
    DiscoverTools,
    /// A tool object of the provider's own, as compact JSON text.
    Object(String),
}

/// A search that the provider's own search tool asks this library to run (a Responses
/// client-executed `tool_search_call`), answered by [`Provider::search_replies`].
#[derive(Debug, Clone, PartialEq)]
pub struct SearchCall {
    /// The call id the answer echoes.
    pub id: String,
    /// The search's arguments (`query`, and `limit` or `top_k`).
    pub arguments: Arguments,
    /// How many of the list's tool calls come before it, so that calls and searches run in the
    /// order the model made them.
    pub calls_before: usize,
}

/// One provider's shapes: its tool definitions, tool calls and replies.
pub trait Provider: Sync {
    /// Which format this is.
    fn format(&self) -> ApiFormat;

    /// Whether the provider has OpenAI's strict mode (`"strict": true` tools, schemas in its
    /// subset); options asking for it with another provider are refused ([`check_strict`]).
    fn has_strict_mode(&self) -> bool {
        false
    }
    /// The cleaned form of the parameters schemas this provider takes; `strict` asks for strict
    /// mode, which only a provider that [has it](Self::has_strict_mode) honours.
    fn schema_form(&self, strict: bool) -> Form {
        if strict && self.has_strict_mode() {
            Form::Strict
        } else {
            Form::Flattened
        }
    }
    /// Appends one tool definition in this provider's shape; `cleaned` is the parameters schema in
    /// this provider's [`schema_form`](Self::schema_form).
    fn write_tool(&self, out: &mut Vec<u8>, name: &str, description: &str, cleaned: &Cleaned<'_>);

    /// What a request's `tools` array holds around the tool objects [`write_tool`](Self::write_tool)
    /// writes: the text before and after them (empty for most providers; Gemini's request takes
    /// `Tool` objects that carry the declarations under `functionDeclarations`).
    fn request_tools_wrapper(&self) -> (&'static str, &'static str) {
        ("", "")
    }

    /// Whether `calls` (a message, an item list or a content list) looks like this provider's.
    fn detect(&self, calls: &Value) -> bool;
    /// Reads the tool calls out of `calls`, in order; other content (text, reasoning) is skipped.
    /// Fails only when `calls` is not this provider's tool-call list (with the JSON path).
    fn parse_calls(&self, calls: &Value) -> Result<Vec<ToolCall>>;
    /// The assistant turn that made these calls (`calls`, read from `input` by
    /// [`parse_calls`](Self::parse_calls)), rebuilt in this provider's shape with what the
    /// provider needs back besides the calls (reasoning items, thinking blocks, thought
    /// signatures): one message, or for Responses one item each.
    fn assistant_messages(&self, input: &Value, calls: &[ToolCall]) -> Vec<Value>;
    /// The messages that answer `calls` with `results` (same length, same order).
    fn result_messages(&self, calls: &[ToolCall], results: &[CallOutcome]) -> Vec<Value>;

    /// Native deferred loading (`mode: "native"`): the search tool the tool list starts with when
    /// searches run on `side`; `description` is `discover_tools`' own, for a provider tool this
    /// library answers. `None`: the provider has no native deferred loading.
    fn native_search_tool(&self, side: SearchSide, description: &str) -> Option<SearchTool> {
        let _ = (side, description);
        None
    }
    /// The provider's own search calls in `calls`, in order (see [`SearchCall`]). Most providers
    /// have none: their searches are ordinary `discover_tools` calls.
    fn parse_search_calls(&self, calls: &Value) -> Result<Vec<SearchCall>> {
        let _ = calls;
        Ok(Vec::new())
    }
    /// The messages that answer `searches` (from [`parse_search_calls`](Self::parse_search_calls)),
    /// each with the definitions of the tools it found (`found`, same order).
    fn search_replies(&self, searches: &[SearchCall], found: Vec<Vec<Value>>) -> Vec<Value> {
        let _ = (searches, found);
        Vec::new()
    }
}

/// Every provider, in the order detection tries them (and of [`ApiFormat::ALL`]).
pub const PROVIDERS: [&dyn Provider; 4] = [
    &openai_chat::OpenAiChat,
    &openai_responses::OpenAiResponses,
    &anthropic::Anthropic,
    &gemini::Gemini,
];

/// The provider of a format.
pub fn provider(format: ApiFormat) -> &'static dyn Provider {
    // PROVIDERS lists them in the enum's order (checked by a test).
    PROVIDERS[format as usize]
}

/// Whether `format` has a strict mode (the OpenAI formats).
pub fn has_strict_mode(format: ApiFormat) -> bool {
    provider(format).has_strict_mode()
}

/// Refuses `"strict": true` with a format that has no strict mode; `path` names the option.
pub fn check_strict(strict: bool, format: ApiFormat, path: &str) -> Result<()> {
    if strict && !has_strict_mode(format) {
        return Err(Error::invalid(format!(
            "{path}.strict: strict mode is OpenAI's (openai-chat or openai-responses), not {}",
            format.as_str()
        )));
    }
    Ok(())
}

/// The provider whose shape `calls` has.
pub fn detect(calls: &Value) -> Result<&'static dyn Provider> {
    PROVIDERS.into_iter().find(|p| p.detect(calls)).ok_or_else(|| {
        Error::invalid(
            "calls: not a tool-call list of a known provider (expected an OpenAI chat assistant \
             message or tool_calls array, an OpenAI Responses output array, an Anthropic assistant \
             message or content array, or a Gemini Content or parts array)",
        )
    })
}

/// The elements of a call list with their JSON paths; an element that is not an object fails the
/// list (with its path).
pub(crate) fn objects<'a>(
    items: &'a [Value],
    path: &'a str,
) -> impl Iterator<Item = Result<(String, &'a Map<String, Value>)>> + 'a {
    items.iter().enumerate().map(move |(i, item)| {
        let here = format!("{path}[{i}]");
        match item.as_object() {
            Some(obj) => Ok((here, obj)),
            None => Err(Error::invalid(format!(
                "{here}: expected an object, got {}",
                kind_of(item)
            ))),
        }
    })
}

/// The first object element of an array, to tell shapes apart.
pub(crate) fn first_object(items: &[Value]) -> Option<&Map<String, Value>> {
    items.iter().find_map(Value::as_object)
}

/// A required string field of a call object.
pub(crate) fn string_field(obj: &Map<String, Value>, key: &str, path: &str) -> Result<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(Error::invalid(format!(
            "{path}.{key}: expected a string, got {}",
            kind_of(v)
        ))),
        None => Err(Error::invalid(format!("{path}.{key}: missing"))),
    }
}

/// An optional string field of a call object.
pub(crate) fn opt_string_field(
    obj: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => string_field(obj, key, path).map(Some),
    }
}

/// The array a call list is, or the array under `key` of a message object.
pub(crate) fn items<'a>(calls: &'a Value, key: &str, what: &str) -> Result<(&'a [Value], String)> {
    match calls {
        Value::Array(items) => Ok((items, "calls".to_string())),
        Value::Object(obj) => match obj.get(key) {
            Some(Value::Array(items)) => Ok((items, format!("calls.{key}"))),
            Some(v) => Err(Error::invalid(format!(
                "calls.{key}: expected an array, got {}",
                kind_of(v)
            ))),
            None => Err(Error::invalid(format!(
                "calls: {what} has no {key:?} array"
            ))),
        },
        other => Err(Error::invalid(format!(
            "calls: expected an array or an object, got {}",
            kind_of(other)
        ))),
    }
}

/// A copy of `value` without its `null` fields, at every level but inside a schema or arguments
/// (where `null` is data, as in `"default": null`): an item echoed back to the provider as the
/// SDK dumped it (without `exclude_none`) must not carry fields the request types refuse.
pub(crate) fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| {
                    let data = matches!(
                        k.as_str(),
                        "parameters" | "input_schema" | "input" | "arguments" | "args"
                    );
                    (k.clone(), if data { v.clone() } else { without_nulls(v) })
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// Builds a JSON object from key/value pairs, in that order.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Appends `"name": ..., "description": ..., "<parameters_key>": {...}`, the fields every
/// provider's tool object has (under its own key for the parameters schema).
pub(crate) fn write_tool_fields(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    parameters_key: &str,
    cleaned: &Cleaned<'_>,
) {
    out.extend_from_slice(b"\"name\":");
    write_str(out, name);
    out.extend_from_slice(b",\"description\":");
    write_str(out, description);
    out.extend_from_slice(b",\"");
    out.extend_from_slice(parameters_key.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(cleaned.parameters.as_bytes());
}

/// Marks the tool object just written as deferred in native deferred loading:
/// `"defer_loading": true` (Anthropic and OpenAI Responses spell it the same).
pub(crate) fn write_defer_loading(out: &mut Vec<u8>) {
    out.pop();
    out.extend_from_slice(b",\"defer_loading\":true}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::write_schema_parts;

    #[test]
    fn every_format_has_its_provider_and_name() {
        for (i, f) in ApiFormat::ALL.into_iter().enumerate() {
            assert_eq!(PROVIDERS[i].format(), f);
            assert_eq!(provider(f).format(), f);
            assert_eq!(ApiFormat::parse(f.as_str()).unwrap(), f);
        }
        assert!(ApiFormat::parse("openai").is_err());
    }

    #[test]
    fn every_format_is_valid_json_of_the_right_shape() {
        let params = r#"{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}},"required":["a"]}"#;
        let shape = |f: ApiFormat| {
            let mut out = Vec::new();
            write_schema_parts(&mut out, "add", "Add.", params, f);
            serde_json::from_slice::<Value>(&out).unwrap()
        };
        let v = shape(ApiFormat::OpenAiChat);
        assert_eq!(
            v["function"]["parameters"]["properties"]["a"]["type"],
            "integer"
        );
        assert_eq!(shape(ApiFormat::OpenAiResponses)["strict"], false);
        assert_eq!(
            shape(ApiFormat::Anthropic)["input_schema"]["required"][0],
            "a"
        );
        let v = shape(ApiFormat::Gemini);
        assert_eq!(v["parameters"]["type"], "OBJECT");
        assert_eq!(v["parameters"]["properties"]["a"]["type"], "INTEGER");
    }

    #[test]
    fn strict_needs_an_openai_format() {
        assert!(check_strict(true, ApiFormat::OpenAiResponses, "options").is_ok());
        assert!(check_strict(false, ApiFormat::Gemini, "options").is_ok());
        let err = check_strict(true, ApiFormat::Anthropic, "options").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid argument: options.strict: strict mode is OpenAI's (openai-chat or openai-responses), not anthropic"
        );
    }
}
