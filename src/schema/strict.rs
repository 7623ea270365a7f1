//! OpenAI strict mode (`"strict": true` on a function): the flattened schema rewritten into the
//! subset OpenAI's structured outputs accept, or the reason it cannot be.
//!
//! Rewrites: every object gets `"additionalProperties": false` and lists all its properties in
//! `required`; a property that was optional becomes nullable (`"null"` added to its `type`, to its
//! `enum`, or as an `anyOf` variant), so the model can still leave it out by passing `null`;
//! `default` and the constraints strict mode does not take (`minLength`, `maxLength`,
//! `minProperties`, `maxProperties`, `uniqueItems`, `contains`, `minContains`, `maxContains`) are
//! dropped: they only narrow what the tool accepts, and the tool still checks its input.
//!
//! A schema cannot be made strict when its meaning would change: an object that takes arbitrary
//! keys (no `properties`, or `additionalProperties` other than `false`), a value with no `type`
//! (nor `anyOf`), a type that is not a JSON Schema type, an array without `items`, or a keyword
//! strict mode refuses (`oneOf`, `not`, `if`/`then`/`else`, `patternProperties`, `prefixItems`,
//! …); also more than 10 levels of nested objects or 5,000 properties in all.

use serde_json::{Map, Value};
use std::collections::HashSet;

/// Dropped in strict mode: annotations and narrowing constraints OpenAI refuses there.
const DROPPED: [&str; 9] = [
    "default",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
];

/// Keywords with no strict-mode equivalent: a schema using one stays non-strict.
const REFUSED: [&str; 13] = [
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "additionalItems",
    "dependentRequired",
    "dependentSchemas",
];

const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// OpenAI's limits on a strict schema.
const MAX_OBJECT_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;

/// The strict form of a flattened parameters schema, or why there is none (a short phrase
/// naming the place, e.g. `properties.filter: an object without "properties" takes arbitrary keys`).
pub fn strict_parameters(flattened: &Value) -> Result<Value, String> {
    let Value::Object(root) = flattened else {
        return Err("the parameters are not an object schema".into());
    };
    if root.contains_key("anyOf") {
        return Err("the parameters are a union (anyOf) at the top level".into());
    }
    let mut budget = MAX_PROPERTIES;
    Ok(Value::Object(node(root.clone(), "", 0, &mut budget)?))
}

fn here(path: &str) -> &str {
    if path.is_empty() { "parameters" } else { path }
}

/// One schema node, made strict; `depth` counts the objects above it.
fn node(
    schema: Map<String, Value>,
    path: &str,
    depth: usize,
    budget: &mut usize,
) -> Result<Map<String, Value>, String> {
    if let Some(k) = REFUSED.iter().find(|k| schema.contains_key(**k)) {
        return Err(format!(
            "{}: strict mode does not support {k:?}",
            here(path)
        ));
    }
    if schema.contains_key("$ref") {
        return Err(format!("{}: a circular or unresolved $ref", here(path)));
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{}: \"type\" lists a non-string", here(path)))?,
        Some(_) => return Err(format!("{}: \"type\" is not a string", here(path))),
        None if schema.contains_key("anyOf") => Vec::new(),
        None => {
            return Err(format!(
                "{}: no \"type\" (any value is accepted)",
                here(path)
            ));
        }
    };
    if let Some(t) = types.iter().find(|t| !JSON_TYPES.contains(t)) {
        return Err(format!("{}: {t:?} is not a JSON Schema type", here(path)));
    }
    let is_object = types.contains(&"object");
    let is_array = types.contains(&"array");
    let required: HashSet<String> = match schema.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        _ => HashSet::new(),
    };
    let mut out = Map::new();
    for (key, value) in schema {
        if DROPPED.contains(&key.as_str()) || key == "$defs" || key == "definitions" {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("properties", Value::Object(props)) if is_object => {
                Value::Object(properties(props, &required, path, depth + 1, budget)?)
            }
            ("items", Value::Object(items)) if is_array => {
                Value::Object(node(items, &format!("{path}[]"), depth, budget)?)
            }
            ("items", _) if is_array => {
                return Err(format!("{}: \"items\" is not a schema", here(path)));
            }
            ("anyOf", Value::Array(variants)) => Value::Array(
                variants
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| match v {
                        Value::Object(m) => {
                            node(m, &format!("{path}.anyOf[{i}]"), depth, budget).map(Value::Object)
                        }
                        _ => Err(format!("{}.anyOf[{i}]: not a schema object", here(path))),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            ("additionalProperties", Value::Bool(false)) => Value::Bool(false),
            ("additionalProperties", _) if is_object => {
                return Err(format!(
                    "{}: \"additionalProperties\" allows arbitrary keys",
                    here(path)
                ));
            }
            (_, v) => v,
        };
        out.insert(key, value);
    }
    if is_object {
        if depth >= MAX_OBJECT_DEPTH {
            return Err(format!(
                "{}: objects nested more than {MAX_OBJECT_DEPTH} deep",
                here(path)
            ));
        }
        let Some(Value::Object(props)) = out.get("properties") else {
            return Err(format!(
                "{}: an object without \"properties\" takes arbitrary keys",
                here(path)
            ));
        };
        let names: Vec<Value> = props.keys().cloned().map(Value::String).collect();
        if names.is_empty() {
            out.shift_remove("required");
        } else {
            out.insert("required".into(), Value::Array(names));
        }
        out.insert("additionalProperties".into(), Value::Bool(false));
    } else if is_array && !out.contains_key("items") {
        return Err(format!("{}: an array without \"items\"", here(path)));
    }
    Ok(out)
}

/// The properties of an object, each made strict; the ones not in `required` made nullable.
fn properties(
    props: Map<String, Value>,
    required: &HashSet<String>,
    path: &str,
    depth: usize,
    budget: &mut usize,
) -> Result<Map<String, Value>, String> {
    if props.len() > *budget {
        return Err(format!(
            "{}: more than {MAX_PROPERTIES} properties in all",
            here(path)
        ));
    }
    *budget -= props.len();
    let mut out = Map::new();
    for (name, schema) in props {
        let at = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        let Value::Object(schema) = schema else {
            return Err(format!("{at}: not a schema object"));
        };
        let mut schema = node(schema, &at, depth, budget)?;
        if !required.contains(&name) {
            make_nullable(&mut schema);
        }
        out.insert(name, Value::Object(schema));
    }
    Ok(out)
}

/// Lets `null` through a property schema that was optional.
fn make_nullable(schema: &mut Map<String, Value>) {
    match schema.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            schema.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push("null".into())
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(variants)) = schema.get_mut("anyOf") {
                let null = || {
                    let mut m = Map::new();
                    m.insert("type".into(), "null".into());
                    Value::Object(m)
                };
                if !variants
                    .iter()
                    .any(|v| v.get("type").and_then(Value::as_str) == Some("null"))
                {
                    variants.push(null());
                }
            }
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(v: Value) -> Result<String, String> {
        strict_parameters(&v).map(|v| v.to_string())
    }

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let got = strict(json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "x", "minLength": 1},
            "b": {"type": "integer", "enum": [1, 2]},
            "c": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "d": {"type": ["number", "null"]},
            "e": {"type": "object", "properties": {"f": {"type": "boolean"}}, "required": ["f"]}
        }, "required": ["a"]}))
        .unwrap();
        assert_eq!(
            got,
            json!({"type": "object", "properties": {
                "a": {"type": "string"},
                "b": {"type": ["integer", "null"], "enum": [1, 2, null]},
                "c": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "d": {"type": ["number", "null"]},
                "e": {"type": ["object", "null"], "properties": {"f": {"type": "boolean"}},
                      "required": ["f"], "additionalProperties": false}
            }, "required": ["a", "b", "c", "d", "e"], "additionalProperties": false})
            .to_string()
        );
        // No parameters: no `required`, still closed.
        assert_eq!(
            strict(json!({"type": "object", "properties": {}})).unwrap(),
            r#"{"type":"object","properties":{},"additionalProperties":false}"#
        );
    }

    #[test]
    fn impossible_schemas_say_why() {
        let cases = [
            (
                json!({"type": "object", "properties": {"m": {"type": "object"}}}),
                "m: an object without \"properties\" takes arbitrary keys",
            ),
            (
                json!({"type": "object", "properties": {"m": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}}}),
                "m: \"additionalProperties\" allows arbitrary keys",
            ),
            (
                json!({"type": "object", "properties": {"x": {"description": "anything"}}}),
                "x: no \"type\" (any value is accepted)",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "dict"}}}),
                "x: \"dict\" is not a JSON Schema type",
            ),
            (
                json!({"type": "object", "properties": {"l": {"type": "array"}}}),
                "l: an array without \"items\"",
            ),
            (
                json!({"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}]}}}),
                "o: strict mode does not support \"oneOf\"",
            ),
            (
                json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"z": {}}}}}}),
                "l[].z: no \"type\" (any value is accepted)",
            ),
            (
                json!({"type": "object", "properties": {}, "additionalProperties": true}),
                "parameters: \"additionalProperties\" allows arbitrary keys",
            ),
        ];
        for (schema, why) in cases {
            assert_eq!(strict(schema.clone()), Err(why.to_string()), "{schema}");
        }
        // Eleven nested objects are one too many.
        let mut deep = json!({"type": "object", "properties": {}});
        for _ in 0..10 {
            deep = json!({"type": "object", "properties": {"n": deep}, "required": ["n"]});
        }
        assert!(
            strict(deep.clone())
                .unwrap_err()
                .contains("nested more than 10")
        );
        assert!(strict(deep["properties"]["n"].clone()).is_ok());
    }
}
