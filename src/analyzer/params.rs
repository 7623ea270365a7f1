//! [`super::param_docs`] without a `serde_json::Value` tree: the schema is read once, borrowing
//! its strings, and only the parameters' `description` and `enum` are kept. Building and dropping
//! the tree was a sixth of an enhanced build's instructions.

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;

#[derive(Deserialize)]
struct Schema<'a> {
    #[serde(borrow, default)]
    properties: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Property<'a> {
    #[serde(borrow, default)]
    description: Option<&'a RawValue>,
    #[serde(borrow, rename = "enum", default)]
    values: Option<&'a RawValue>,
}

/// The properties' values in order; `None` when a key repeats (the tree keeps the first
/// position and the last value: the caller takes the tree's path then).
struct Properties<'a>(Option<Vec<(&'a str, Option<Property<'a>>)>>);

impl<'de: 'a, 'a> Deserialize<'de> for Properties<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Properties<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out: Vec<(&'de str, Option<Property<'de>>)> = Vec::new();
                while let Some(key) = m.next_key::<&'de str>()? {
                    let raw: &'de RawValue = m.next_value()?;
                    if out.iter().any(|(k, _)| *k == key) {
                        return Ok(Properties(None));
                    }
                    let text = raw.get();
                    // A property that is not an object adds nothing, like in the tree.
                    let prop = if text.starts_with('{') {
                        Some(serde_json::from_str(text).map_err(serde::de::Error::custom)?)
                    } else {
                        None
                    };
                    out.push((key, prop));
                }
                Ok(Properties(Some(out)))
            }
        }
        d.deserialize_map(V)
    }
}

/// The parameters' descriptions and string enum values, as [`super::param_docs`] gives them
/// (borrowed from `json` when they hold no escape), or `None` when this reader cannot tell
/// (invalid JSON, escaped keys, repeated keys, a property object with a repeated field): the
/// caller then reads the schema as a tree.
pub(super) fn param_docs_borrowed(json: &str) -> Option<Vec<Cow<'_, str>>> {
    let schema: Schema = serde_json::from_str(json).ok()?;
    let Some(props) = schema.properties else {
        return Some(Vec::new());
    };
    if !props.get().starts_with('{') {
        return Some(Vec::new());
    }
    let Properties(props) = serde_json::from_str(props.get()).ok()?;
    let mut out = Vec::new();
    for prop in props?.into_iter().filter_map(|(_, p)| p) {
        if let Some(d) = prop.description {
            if d.get().starts_with('"') {
                out.push(string(d)?);
            }
        }
        if let Some(values) = prop.values {
            if values.get().starts_with('[') {
                let values: Vec<&RawValue> = serde_json::from_str(values.get()).ok()?;
                for v in values {
                    if v.get().starts_with('"') {
                        out.push(string(v)?);
                    }
                }
            }
        }
    }
    Some(out)
}

/// A JSON string's text: borrowed unless it holds an escape.
fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(_) => serde_json::from_str::<String>(raw.get())
            .ok()
            .map(Cow::Owned),
    }
}

/// The general reading through a `Value` tree: what [`param_docs_borrowed`] must agree with, and
/// the answer for the schemas it leaves alone.
pub(super) fn param_docs_tree(json: &str) -> Vec<String> {
    let Ok(schema) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for prop in props.values() {
        if let Some(d) = prop.get("description").and_then(|d| d.as_str()) {
            out.push(d.to_string());
        }
        if let Some(values) = prop.get("enum").and_then(|e| e.as_array()) {
            out.extend(values.iter().filter_map(|v| v.as_str()).map(str::to_string));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_reading_equals_the_tree_or_defers_to_it() {
        let cases = [
            r#"{"type":"object","properties":{"a":{"type":"string","description":"The A."},"b":{"enum":["x",1,"y\n",null],"description":7}}}"#,
            r#"{"properties":{"q":{"description":"say \"hi\" \u00e9","nested":{"description":"no"}}}}"#,
            r#"{"properties":[]}"#,
            r#"{"properties":{"a":"text","b":3,"c":{"enum":"x"}}}"#,
            r#"{"type":"object"}"#,
            r#"{"properties":{"a":{"description":"1"},"a":{"description":"2"}}}"#,
            r#"{"properties":{"a":{"description":"1","description":"2"}}}"#,
            r#"{"properties":{"k\u0041":{"description":"escaped key"}}}"#,
            r#"{"properties":{"a":{"description":"x"}},"properties":{"b":{"description":"y"}}}"#,
            r#"null"#,
            r#"not json"#,
            r#"{"properties":{"a":{"description":"d","enum":["p","q"]},"b":{"enum":["r"]}}}"#,
        ];
        for json in cases {
            let fast = param_docs_borrowed(json);
            if let Some(fast) = &fast {
                assert_eq!(fast, &param_docs_tree(json), "{json}");
            }
            assert_eq!(
                super::super::param_docs(json),
                param_docs_tree(json),
                "{json}"
            );
        }
        assert!(
            param_docs_borrowed(cases[0]).is_some(),
            "the common case is read directly"
        );
    }
}
