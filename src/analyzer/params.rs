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

/// [`param_docs_borrowed`] by one scan of a stored schema's text (compact JSON, as every stored
/// schema is), without serde: `None` for anything it does not follow (whitespace, a repeated or
/// escaped key), and the caller reads the schema with serde. Half the instructions of analyzing
/// a tool went to reading its schema before.
pub(super) fn param_docs_scanned(json: &str) -> Option<Vec<Cow<'_, str>>> {
    let b = json.as_bytes();
    let mut out = Vec::new();
    let mut seen_properties = false;
    // One pass: the values that matter are read where they stand, the rest skipped once.
    let end = object(json, 0, &mut |key, at| {
        if key != "properties" {
            return skip_value(b, at);
        }
        if std::mem::replace(&mut seen_properties, true) {
            // Repeated (the tree keeps the last one): left to the other readers.
            return None;
        }
        if b[at] != b'{' {
            return skip_value(b, at);
        }
        let (mut names, mut many) = (Vec::new(), None);
        object(json, at, &mut |name, at| {
            if crate::tool::repeated(&mut many, &names, name) {
                return None;
            }
            names.push(name);
            if b[at] != b'{' {
                return skip_value(b, at);
            }
            let (mut description, mut values) = (None, None);
            let end = object(json, at, &mut |field, at| {
                let end = skip_value(b, at)?;
                let slot = match field {
                    "description" => &mut description,
                    "enum" => &mut values,
                    _ => return Some(end),
                };
                slot.replace((at, end)).is_none().then_some(end)
            })?;
            if let Some((at, end)) = description.filter(|&(at, _)| b[at] == b'"') {
                out.push(string_at(json, at, end)?);
            }
            if let Some((mut at, _)) = values.filter(|&(at, _)| b[at] == b'[') {
                at += 1;
                while b[at] != b']' {
                    let end = skip_value(b, at)?;
                    if b[at] == b'"' {
                        out.push(string_at(json, at, end)?);
                    }
                    at = end;
                    match b.get(at)? {
                        b',' => at += 1,
                        b']' => {}
                        _ => return None,
                    }
                }
            }
            Some(end)
        })
    })?;
    (end == b.len()).then_some(out)
}

/// Reads the object at `at`, handing each member's key (unescaped keys only) and value position
/// to `member`, which returns the position after the value. Returns the position after the object.
fn object<'a>(
    json: &'a str,
    at: usize,
    member: &mut dyn FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    let b = json.as_bytes();
    if b.get(at) != Some(&b'{') {
        return None;
    }
    let mut i = at + 1;
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let end = string_end(b, i)?;
        let key = &json[i + 1..end];
        if key.contains('\\') || b.get(end + 1) != Some(&b':') || end + 2 >= b.len() {
            return None;
        }
        i = member(key, end + 2)?;
        match b.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// The position just after the value starting at `i`.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => Some(string_end(b, i)? + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                i += b
                    .get(i..)?
                    .iter()
                    .position(|&c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))?;
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)? + 1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                }
                i += 1;
            }
        }
        c if c.is_ascii_whitespace() => None,
        _ => {
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']') {
                if b[i].is_ascii_whitespace() {
                    return None;
                }
                i += 1;
            }
            Some(i)
        }
    }
}

/// The closing quote of the string opening at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j += b.get(j..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        if b[j] == b'"' {
            return Some(j);
        }
        j += 2;
    }
}

/// The text of the JSON string at `at..end`: borrowed unless it holds an escape.
fn string_at(json: &str, at: usize, end: usize) -> Option<Cow<'_, str>> {
    let inner = &json[at + 1..end - 1];
    if inner.contains('\\') {
        serde_json::from_str::<String>(&json[at..end])
            .ok()
            .map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
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
            r#"{"properties":{},"properties":{"b":{"description":"y"}}}"#,
            r#"{"properties":{"a":{"enum":["u"],"description":"d"}},"x":[{"properties":1}]}"#,
            r#"null"#,
            r#"not json"#,
            r#"{"properties":{"a":{"description":"d","enum":["p","q"]},"b":{"enum":["r"]}}}"#,
        ];
        for json in cases {
            if let Some(scanned) = param_docs_scanned(json) {
                assert_eq!(scanned, param_docs_tree(json), "{json}");
            }
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

    #[test]
    fn scanned_reading_equals_the_tree_on_the_eval_catalogs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/eval");
        let mut seen = 0;
        for set in ["apibench", "bfcl", "metatool"] {
            let Ok(text) = std::fs::read_to_string(dir.join(set).join("catalog.json")) else {
                continue;
            };
            let tools: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            for tool in tools {
                for key in ["parameters", "input_schema", "inputSchema"] {
                    if let Some(schema) = tool.get(key) {
                        // Stored schemas are compact JSON.
                        let json = schema.to_string();
                        let scanned = param_docs_scanned(&json).expect("compact JSON is read");
                        assert_eq!(scanned, param_docs_tree(&json), "{json}");
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen == 0 || seen > 1000, "{seen}");
    }
}
