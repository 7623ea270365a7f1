//! Gemini's function-declaration schema: the reference's pass (llm-rosetta 0.13's
//! `sanitize_schema(..., extra_strip_keys={"additionalProperties", "title"})` then upper-case
//! types), applied to the flattened schema, with two deliberate differences so that Gemini
//! accepts the result and every parameter survives:
//!
//! - property names are never stripped: the reference drops a parameter called `title`,
//!   `const`, `examples`, … from the declaration (and from `required`);
//! - a keyword Gemini's `Schema` object does not have (`patternProperties`, `multipleOf`, `not`,
//!   bfcl's `optional`, …) is dropped: Gemini refuses the request over an unknown field;
//! - a type list `[T, "null"]` (or `[T]`) becomes `"T"` with `"nullable": true`: Gemini's
//!   `type` is a single enum value and refuses a list;
//! - `enum` holds strings only (google-genai's `Schema.enum: list[str]`; the API refuses
//!   `enum[1]` as not `TYPE_STRING`): `null` leaves it for `"nullable": true`, and other values
//!   are written as their JSON text with `"format": "enum"`, the schema's documented spelling
//!   of a non-string enum (`{type: INTEGER, format: enum, enum: ["101", "201"]}`), so the model
//!   still sends the tool's own type.

use super::flatten::prune_required;
use serde_json::{Map, Value};

/// Keys the reference's Gemini pass removes at every schema level (llm-rosetta's
/// `UNSUPPORTED_SCHEMA_KEYS` plus `additionalProperties` and `title`); `$ref` and the definition
/// maps go too.
const GEMINI_STRIPPED_KEYS: [&str; 23] = [
    "propertyNames",
    "const",
    "$schema",
    "$comment",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "ref",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "additionalProperties",
    "title",
    "$ref",
    "$defs",
    "definitions",
];

/// The fields of Gemini's `Schema` object, plus the unions this pass flattens afterwards.
const GEMINI_FIELDS: [&str; 24] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
    "oneOf",
    "allOf",
];

/// Keys whose values map names to schemas (as in the flattening pass).
const PROPERTY_MAP_KEYS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];

/// The Gemini `parameters` object for an already flattened schema.
pub fn gemini_parameters(flattened: &Value) -> Value {
    match flattened {
        Value::Object(map) => Value::Object(upper_case_types(sanitize(map.clone(), false, true))),
        other => other.clone(),
    }
}

/// llm-rosetta's `_sanitize_schema_impl` (without `$ref` resolution, which never applies to a
/// flattened schema: its top-level definition maps are gone), keeping property names and, where
/// `schema` (a schema position, not a value such as a `default`), only Gemini's fields.
fn sanitize(
    schema: Map<String, Value>,
    in_property_map: bool,
    at_schema: bool,
) -> Map<String, Value> {
    let mut result: Map<String, Value> = schema
        .into_iter()
        .filter(|(k, _)| {
            let k = k.as_str();
            in_property_map
                || !(GEMINI_STRIPPED_KEYS.contains(&k) || at_schema && !GEMINI_FIELDS.contains(&k))
        })
        .map(|(k, v)| {
            let names = PROPERTY_MAP_KEYS.contains(&k.as_str()) && !in_property_map;
            let union = matches!(k.as_str(), "anyOf" | "oneOf" | "allOf") && !in_property_map;
            let v = match v {
                Value::Object(m) => {
                    Value::Object(sanitize(m, names, in_property_map || k == "items"))
                }
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|item| match item {
                            Value::Object(m) => Value::Object(sanitize(m, false, union)),
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            };
            (k, v)
        })
        .collect();
    if in_property_map {
        return result;
    }
    if ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| result.contains_key(*k))
    {
        result = flatten_combination(result);
    }
    prune_required(&mut result);
    if at_schema {
        strings_only_enum(&mut result);
    }
    result
}

/// Gemini's `enum` is a list of strings: `null` becomes `"nullable": true`, other non-string
/// values their JSON text with `"format": "enum"` (see the module doc).
fn strings_only_enum(schema: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = schema.get("enum") else {
        return;
    };
    if values.iter().all(Value::is_string) {
        return;
    }
    let has_null = values.iter().any(Value::is_null);
    let mut converted = false;
    let strings: Vec<Value> = values
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| match v {
            Value::String(_) => v.clone(),
            other => {
                converted = true;
                Value::String(crate::json::json_text(other))
            }
        })
        .collect();
    if strings.is_empty() {
        schema.remove("enum");
    } else {
        schema.insert("enum".into(), Value::Array(strings));
    }
    if converted {
        schema.insert("format".into(), "enum".into());
    }
    if has_null {
        schema.insert("nullable".into(), Value::Bool(true));
    }
}

/// llm-rosetta's `_flatten_combination`: a union keeps only its first non-null variant (Gemini
/// function declarations take no `anyOf`), a null variant becomes `nullable`; a one-element
/// `allOf` is unwrapped.
fn flatten_combination(schema: Map<String, Value>) -> Map<String, Value> {
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(variants)) = schema.get(keyword) else {
            continue;
        };
        let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
        let first = variants.iter().find(|v| !is_null(v)).cloned();
        let has_null = variants.iter().any(is_null);
        let mut base: Map<String, Value> = schema
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "anyOf" | "oneOf" | "allOf"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(Value::Object(first)) = first {
            overlay(&mut base, first);
        }
        if has_null {
            base.insert("nullable".into(), Value::Bool(true));
        }
        return base;
    }
    match schema.get("allOf") {
        Some(Value::Array(all_of)) if all_of.len() == 1 && all_of[0].is_object() => {
            let Some(Value::Object(only)) = all_of.first().cloned() else {
                unreachable!("checked above")
            };
            let mut base: Map<String, Value> =
                schema.into_iter().filter(|(k, _)| k != "allOf").collect();
            overlay(&mut base, only);
            base
        }
        _ => schema,
    }
}

/// llm-rosetta's `_deep_merge_schema`: `properties` maps are merged, other keys overwritten.
fn overlay(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(props)), Value::Object(more)) if key == "properties" => {
                props.extend(more);
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// llm-rosetta's `_normalize_schema_types(to_upper=True)`: upper-case `type` in this schema and
/// in `properties`, `items` and union variants (nowhere else, as the reference).
fn upper_case_types(schema: Map<String, Value>) -> Map<String, Value> {
    let mut nullable = false;
    let mut result: Map<String, Value> = schema
        .into_iter()
        .map(|(k, v)| {
            let v = match (k.as_str(), v) {
                ("type", Value::String(t)) => Value::String(t.to_uppercase()),
                ("type", Value::Array(types)) => match single_type(&types) {
                    Some((t, null)) => {
                        nullable |= null;
                        Value::String(t.to_uppercase())
                    }
                    None => Value::Array(types),
                },
                ("properties", Value::Object(props)) => Value::Object(
                    props
                        .into_iter()
                        .map(|(name, s)| (name, upper_case_value(s)))
                        .collect(),
                ),
                ("items", v) => upper_case_value(v),
                ("anyOf" | "oneOf" | "allOf", Value::Array(items)) => {
                    Value::Array(items.into_iter().map(upper_case_value).collect())
                }
                (_, v) => v,
            };
            (k, v)
        })
        .collect();
    if nullable {
        result.insert("nullable".into(), Value::Bool(true));
    }
    result
}

fn upper_case_value(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(upper_case_types(m)),
        other => other,
    }
}

/// `[T]` or `[T, "null"]` (either order): `T`, and whether `null` was listed.
fn single_type(types: &[Value]) -> Option<(&str, bool)> {
    let names: Vec<&str> = types.iter().map(Value::as_str).collect::<Option<_>>()?;
    let non_null: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
    match (non_null.as_slice(), names.len()) {
        ([t], 1) => Some((t, false)),
        ([t], 2) => Some((t, true)),
        _ => None,
    }
}
