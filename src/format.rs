//! Output: tool schemas in each provider's format, and the small JSON writer the outputs share.
//!
//! Outputs are written straight into a byte buffer: the stored parameters schema is already compact
//! JSON, so a discover answer copies it instead of parsing and re-serializing a tree per hit.

use crate::error::{Error, Result};
use crate::tool::Tool;
use serde_json::Value;

/// The provider format a tool schema is rendered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiFormat {
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`
    #[default]
    OpenAiChat,
    /// `{"type": "function", "name", "description", "parameters", "strict": false}`
    OpenAiResponses,
    /// `{"name", "description", "input_schema"}`
    Anthropic,
    /// `{"name", "description", "parameters"}` with upper-case schema types.
    Gemini,
}

impl ApiFormat {
    /// Every format, in documentation order.
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

/// Appends `s` as a JSON string literal.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends an optional string, `null` when absent.
pub fn write_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends a float the way serde_json prints it (shortest text that reads back to the same value).
pub fn write_f64(out: &mut Vec<u8>, x: f64) {
    // serde_json turns non-finite numbers into null; scores are always finite.
    let v = serde_json::Number::from_f64(x)
        .map(Value::Number)
        .unwrap_or(Value::Null);
    out.extend_from_slice(v.to_string().as_bytes());
}

/// Appends the tool's schema in `format`.
pub fn write_schema(out: &mut Vec<u8>, tool: &Tool, format: ApiFormat) {
    write_schema_parts(
        out,
        tool.name(),
        tool.description(),
        tool.parameters_json(),
        format,
    );
}

/// Appends a schema from its parts; `parameters` must be compact JSON of an object.
pub fn write_schema_parts(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    parameters: &str,
    format: ApiFormat,
) {
    let head = |out: &mut Vec<u8>| {
        out.extend_from_slice(b"\"name\":");
        write_str(out, name);
        out.extend_from_slice(b",\"description\":");
        write_str(out, description);
    };
    match format {
        ApiFormat::OpenAiChat => {
            out.extend_from_slice(b"{\"type\":\"function\",\"function\":{");
            head(out);
            out.extend_from_slice(b",\"parameters\":");
            out.extend_from_slice(parameters.as_bytes());
            out.extend_from_slice(b"}}");
        }
        ApiFormat::OpenAiResponses => {
            out.extend_from_slice(b"{\"type\":\"function\",");
            head(out);
            out.extend_from_slice(b",\"parameters\":");
            out.extend_from_slice(parameters.as_bytes());
            out.extend_from_slice(b",\"strict\":false}");
        }
        ApiFormat::Anthropic => {
            out.push(b'{');
            head(out);
            out.extend_from_slice(b",\"input_schema\":");
            out.extend_from_slice(parameters.as_bytes());
            out.push(b'}');
        }
        ApiFormat::Gemini => {
            out.push(b'{');
            head(out);
            out.extend_from_slice(b",\"parameters\":");
            let mut schema: Value = serde_json::from_str(parameters).unwrap_or(Value::Null);
            upper_case_types(&mut schema);
            out.extend_from_slice(schema.to_string().as_bytes());
            out.push(b'}');
        }
    }
}

/// Gemini spells JSON schema types in upper case (`"OBJECT"`, `"STRING"`).
fn upper_case_types(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s) if key == "type" => *s = s.to_uppercase(),
                    Value::Array(types) if key == "type" => {
                        for t in types.iter_mut() {
                            if let Value::String(s) = t {
                                *s = s.to_uppercase();
                            }
                        }
                    }
                    // "properties" maps names to schemas: recurse into the schemas, never rename.
                    _ => upper_case_types(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(upper_case_types),
        _ => {}
    }
}

/// Turns an output buffer into a `String`; the writers above only ever emit UTF-8.
pub fn into_string(buf: Vec<u8>) -> String {
    String::from_utf8(buf).expect("JSON writers emit UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_like_serde_json() {
        for s in [
            "plain",
            "q\"uote\\",
            "line\nbreak\t\r",
            "\u{1}\u{1f}",
            "ünï 天",
        ] {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }

    #[test]
    fn every_format_is_valid_json_of_the_right_shape() {
        let params = r#"{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}},"required":["a"]}"#;
        for f in ApiFormat::ALL {
            let mut out = Vec::new();
            write_schema_parts(&mut out, "add", "Add.", params, f);
            let v: Value = serde_json::from_slice(&out).unwrap();
            match f {
                ApiFormat::OpenAiChat => assert_eq!(
                    v["function"]["parameters"]["properties"]["a"]["type"],
                    "integer"
                ),
                ApiFormat::OpenAiResponses => assert_eq!(v["strict"], false),
                ApiFormat::Anthropic => assert_eq!(v["input_schema"]["required"][0], "a"),
                ApiFormat::Gemini => {
                    assert_eq!(v["parameters"]["type"], "OBJECT");
                    assert_eq!(v["parameters"]["properties"]["a"]["type"], "INTEGER");
                }
            }
            assert_eq!(ApiFormat::parse(f.as_str()).unwrap(), f);
        }
        assert!(ApiFormat::parse("openai").is_err());
    }
}
