//! The reference's schema flattening, step for step: toolregistry 0.19.0 normalizes a tool's
//! parameters at construction (`Tool._normalize_parameters`) and runs its vendored
//! `jsonschema.flatten_schema`: resolve `$ref` → merge `allOf` → simplify `anyOf`/`oneOf` →
//! strip unsupported keys and prune `required`.
//!
//! Each function mirrors the Python function named in its doc, including its key order (a Python
//! dict keeps insertion order; so does serde_json's `preserve_order` map, as long as keys are
//! never removed with `swap_remove`) and its quirks on odd input, so the output is the reference's
//! byte for byte. Input Python would crash on (a non-object `anyOf` variant, say) gets the nearest
//! sensible answer instead.

use serde_json::{Map, Value};

/// Keys stripped everywhere except directly inside a property-name map: the reference's
/// `UNSUPPORTED_SCHEMA_KEYS` plus `title` and `nullable` (`Tool._EXTRA_STRIP_KEYS`).
pub const STRIPPED_KEYS: [&str; 17] = [
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "propertyNames",
    "const",
    "title",
    "nullable",
];

/// Keys whose values map user-chosen names to schemas: their keys are never keywords.
const PROPERTY_MAP_KEYS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];

/// Definition maps, consumed by `$ref` resolution and dropped from the top level.
const DEFS_KEYS: [&str; 2] = ["$defs", "definitions"];

const LOWER_BOUND_KEYS: [&str; 5] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
const UPPER_BOUND_KEYS: [&str; 5] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];

/// The parameters schema as the reference stores and emits it (`Tool._normalize_parameters`):
/// anything but `{"type": "object", ...}` becomes an empty object schema, a missing or
/// non-object `properties` becomes `{}`, then [`flatten_schema`].
pub fn normalize_parameters(parameters: &Value) -> Value {
    let map = match parameters {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => map,
        _ => return empty_object_schema(),
    };
    if map.get("properties").is_some_and(Value::is_object) {
        return flatten_schema(map);
    }
    let mut map = map.clone();
    map.insert("properties".into(), Value::Object(Map::new()));
    flatten_schema(&map)
}

fn empty_object_schema() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), "object".into());
    map.insert("properties".into(), Value::Object(Map::new()));
    Value::Object(map)
}

/// `flatten_schema(schema, strip_keys={"title", "nullable"})`.
pub fn flatten_schema(schema: &Map<String, Value>) -> Value {
    let resolved = resolve_refs(schema);
    let merged = walk_merge_allof(resolved, false);
    let simplified = walk_simplify(merged, false);
    Value::Object(walk_sanitize(simplified, false))
}

// ---- Phase 1: `$ref` resolution ----

/// Most schema nodes `$ref` inlining may copy into one schema. Real schemas copy a few dozen; a
/// schema whose references fan out (each definition using the next one twice, thirty deep) would
/// otherwise grow to billions of nodes. Past the budget a `$ref` is cut like a circular one.
/// (The reference has no such bound.)
pub const MAX_INLINED_NODES: usize = 200_000;

/// Deepest nesting `$ref` inlining may build: a reference whose target would reach deeper is cut,
/// so a long chain of references cannot exhaust the stack, and the output stays within what a
/// JSON parser (serde_json: 128 levels) reads back, provider wrapper included.
pub const MAX_INLINED_DEPTH: usize = 100;

/// `resolve_refs`: inline every local `$ref`, then drop the top-level definition maps.
fn resolve_refs(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut seen = Refs {
        path: Vec::new(),
        budget: MAX_INLINED_NODES,
    };
    let mut result = inline_refs(schema.clone(), schema, &mut seen, 0);
    for key in DEFS_KEYS {
        result.shift_remove(key);
    }
    result
}

/// `_resolve_ref`: a local JSON pointer (`#/…`, RFC 6901 escapes) to an object, or `None` for
/// anything else (the reference's `{}`, which it treats the same as "unresolvable").
fn resolve_ref<'a>(
    reference: &str,
    root: &'a Map<String, Value>,
) -> Option<&'a Map<String, Value>> {
    let pointer = reference.strip_prefix("#/")?;
    let mut node = root;
    let segments: Vec<String> = pointer
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let (last, path) = segments.split_last()?;
    for seg in path {
        node = node.get(seg.as_str())?.as_object()?;
    }
    node.get(last.as_str())?
        .as_object()
        .filter(|m| !m.is_empty())
}

/// The state of one `$ref` resolution: the references being inlined (outermost first), and how
/// many more nodes may be copied.
struct Refs {
    path: Vec<String>,
    budget: usize,
}

/// Levels of nesting below a value's children (a scalar child: 1), stopping past `limit`.
fn depth_below(m: &Map<String, Value>, limit: usize) -> usize {
    fn depth(v: &Value, limit: usize) -> usize {
        if limit == 0 {
            return 1;
        }
        1 + match v {
            Value::Object(m) => m.values().map(|c| depth(c, limit - 1)).max().unwrap_or(0),
            Value::Array(a) => a.iter().map(|c| depth(c, limit - 1)).max().unwrap_or(0),
            _ => 0,
        }
    }
    m.values().map(|c| depth(c, limit)).max().unwrap_or(0)
}

/// Nodes in a JSON value (stops counting past `limit`).
fn count_nodes(v: &Value, limit: usize) -> usize {
    let mut n = 1;
    let children: Box<dyn Iterator<Item = &Value>> = match v {
        Value::Object(m) => Box::new(m.values()),
        Value::Array(a) => Box::new(a.iter()),
        _ => return 1,
    };
    for c in children {
        if n > limit {
            break;
        }
        n += count_nodes(c, limit - n);
    }
    n
}

/// `_inline_refs`: `seen.path` holds the references on the current resolution path, so a
/// circular one is cut (its `$ref` dropped, its siblings kept as written) instead of followed
/// forever.
fn inline_refs(
    mut schema: Map<String, Value>,
    root: &Map<String, Value>,
    seen: &mut Refs,
    depth: usize,
) -> Map<String, Value> {
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let reference = reference.clone();
        schema.shift_remove("$ref");
        if seen.path.contains(&reference) {
            return schema;
        }
        let Some(target) = resolve_ref(&reference, root) else {
            return schema;
        };
        let size = target
            .values()
            .map(|v| count_nodes(v, seen.budget))
            .sum::<usize>()
            + 1;
        if size > seen.budget || depth + depth_below(target, MAX_INLINED_DEPTH) > MAX_INLINED_DEPTH
        {
            return schema;
        }
        seen.budget -= size;
        // The target's keys first, then the siblings of `$ref` (which win).
        let mut merged = target.clone();
        for (k, v) in schema {
            merged.insert(k, v);
        }
        seen.path.push(reference);
        let result = inline_refs(merged, root, seen, depth);
        seen.path.pop();
        return result;
    }
    schema
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                Value::Object(m) => Value::Object(inline_refs(m, root, seen, depth + 1)),
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|item| match item {
                            Value::Object(m) => {
                                Value::Object(inline_refs(m, root, seen, depth + 2))
                            }
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            };
            (k, v)
        })
        .collect()
}

// ---- Phase 2: `allOf` merging ----

/// Recurses into every object value (and objects directly in arrays) with `walk`, telling it
/// whether the value is a property-name map; the shape the reference's walkers share.
fn walk_children(
    schema: Map<String, Value>,
    mut walk: impl FnMut(Map<String, Value>, bool) -> Map<String, Value>,
) -> Map<String, Value> {
    schema
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                Value::Object(m) => Value::Object(walk(m, PROPERTY_MAP_KEYS.contains(&k.as_str()))),
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|item| match item {
                            Value::Object(m) => Value::Object(walk(m, false)),
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            };
            (k, v)
        })
        .collect()
}

/// `_walk_merge_allof`: children first, then this node's `allOf` into its siblings.
fn walk_merge_allof(schema: Map<String, Value>, in_property_map: bool) -> Map<String, Value> {
    let mut result = walk_children(schema, walk_merge_allof);
    if in_property_map || !result.get("allOf").is_some_and(Value::is_array) {
        return result;
    }
    let Some(Value::Array(all_of)) = result.shift_remove("allOf") else {
        unreachable!("checked above")
    };
    for sub in all_of {
        if let Value::Object(sub) = sub {
            result = deep_merge_two(result, sub);
        }
    }
    result
}

/// `_deep_merge_two`: `override_` into `base` with `allOf` (intersection) semantics.
pub(crate) fn deep_merge_two(
    mut merged: Map<String, Value>,
    override_: Map<String, Value>,
) -> Map<String, Value> {
    for (key, oval) in override_ {
        let Some(bval) = merged.get_mut(&key) else {
            merged.insert(key, oval);
            continue;
        };
        let k = key.as_str();
        let new = match (k, std::mem::take(bval), oval) {
            ("properties", Value::Object(mut props), Value::Object(over)) => {
                for (name, schema) in over {
                    match (props.get_mut(&name), schema) {
                        (Some(Value::Object(p)), Value::Object(s)) => {
                            let p = std::mem::take(p);
                            props.insert(name, Value::Object(deep_merge_two(p, s)));
                        }
                        (_, s) => {
                            props.insert(name, s);
                        }
                    }
                }
                Value::Object(props)
            }
            ("required", Value::Array(mut b), Value::Array(o)) => {
                b.extend(o);
                let mut unique = PySet::default();
                Value::Array(b.into_iter().filter(|v| unique.insert(v)).collect())
            }
            ("type", b, o) => intersect_type(b, &o),
            (k, b, o) if LOWER_BOUND_KEYS.contains(&k) => match (number(&b), number(&o)) {
                (Some(x), Some(y)) if y > x => o,
                (Some(_), Some(_)) => b,
                _ => o,
            },
            (k, b, o) if UPPER_BOUND_KEYS.contains(&k) => match (number(&b), number(&o)) {
                (Some(x), Some(y)) if y < x => o,
                (Some(_), Some(_)) => b,
                _ => o,
            },
            ("enum", Value::Array(b), Value::Array(o)) => {
                let mut members = PySet::default();
                o.iter().for_each(|w| {
                    members.insert(w);
                });
                let common: Vec<Value> = b.into_iter().filter(|v| members.contains(v)).collect();
                Value::Array(if common.is_empty() { o } else { common })
            }
            ("items" | "additionalProperties", Value::Object(b), Value::Object(o)) => {
                Value::Object(deep_merge_two(b, o))
            }
            (_, _, o) => o,
        };
        *merged.get_mut(&key).expect("present") = new;
    }
    merged
}

/// `_intersect_type`: the common types; none in common keeps `a`; several come out sorted.
fn intersect_type(a: Value, b: &Value) -> Value {
    let names = |v: &Value| -> Option<Vec<String>> {
        match v {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Array(items) => items
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect(),
            _ => None,
        }
    };
    let (Some(sa), Some(sb)) = (names(&a), names(b)) else {
        return a;
    };
    let sb: std::collections::HashSet<String> = sb.into_iter().collect();
    let mut common: Vec<String> = sa.into_iter().filter(|t| sb.contains(t)).collect();
    common.sort();
    common.dedup();
    match common.len() {
        0 => a,
        1 => Value::String(common.pop().expect("one")),
        _ => Value::Array(common.into_iter().map(Value::String).collect()),
    }
}

/// A set of JSON values under Python's `==` ([`py_eq`]): strings hashed (the common case, so a
/// long `required` or `enum` list costs linear time), anything else compared one by one.
#[derive(Default)]
struct PySet {
    strings: std::collections::HashSet<String>,
    others: Vec<Value>,
}

impl PySet {
    /// Adds `v`; false when an equal value is already in.
    fn insert(&mut self, v: &Value) -> bool {
        match v {
            Value::String(s) => self.strings.insert(s.clone()),
            _ if self.contains(v) => false,
            _ => {
                self.others.push(v.clone());
                true
            }
        }
    }

    fn contains(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => self.strings.contains(s),
            _ => self.others.iter().any(|w| py_eq(v, w)),
        }
    }
}

/// A number as Python's `isinstance(x, (int, float))` sees it (a boolean is an int).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Python's `==` on JSON values: `1 == 1.0 == True`, otherwise structural.
fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        // Two integers compare exactly (beyond 2^53 an f64 would merge neighbours).
        (Value::Number(x), Value::Number(y)) if !x.is_f64() && !y.is_f64() => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

// ---- Phase 3: `anyOf` / `oneOf` simplification ----

/// `_walk_simplify`: children first, then this node's union.
fn walk_simplify(schema: Map<String, Value>, in_property_map: bool) -> Map<String, Value> {
    let result = walk_children(schema, walk_simplify);
    if in_property_map || !(result.contains_key("anyOf") || result.contains_key("oneOf")) {
        return result;
    }
    simplify_node(result)
}

/// `_simplify_node`: drop `{"type": "null"}` variants (remembered as `nullable`, which the
/// sanitizer then strips); one variant left is merged into the node, several stay as the union.
fn simplify_node(schema: Map<String, Value>) -> Map<String, Value> {
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(variants)) = schema.get(keyword) else {
            continue;
        };
        let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
        let mut non_null: Vec<Value> = variants.iter().filter(|v| !is_null(v)).cloned().collect();
        let has_null = non_null.len() < variants.len();
        let mut base: Map<String, Value> = schema
            .iter()
            .filter(|(k, _)| *k != "anyOf" && *k != "oneOf")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if non_null.len() == 1 {
            match non_null.pop().expect("one") {
                Value::Object(only) => base = deep_merge_two(base, only),
                other => {
                    base.insert(keyword.into(), Value::Array(vec![other]));
                }
            }
        } else if non_null.len() > 1 {
            base.insert(keyword.into(), Value::Array(non_null));
        }
        if has_null {
            base.insert("nullable".into(), Value::Bool(true));
        }
        return base;
    }
    schema
}

// ---- Phase 4: sanitization ----

/// `_walk_sanitize`: strip [`STRIPPED_KEYS`] (except as property names), then keep only the
/// `required` names that are properties (an empty list is dropped).
///
/// One deliberate difference: the reference also "prunes" a property-name map that has
/// parameters called both `required` and `properties`, rewriting the `required` parameter's
/// schema into a list of names; here a property-name map is never pruned.
fn walk_sanitize(schema: Map<String, Value>, in_property_map: bool) -> Map<String, Value> {
    let kept = schema
        .into_iter()
        .filter(|(k, _)| in_property_map || !STRIPPED_KEYS.contains(&k.as_str()))
        .collect();
    let mut result = walk_children(kept, walk_sanitize);
    if !in_property_map {
        prune_required(&mut result);
    }
    result
}

/// `required ⊆ properties`, in order; an empty list is removed. Used by the Gemini pass too.
pub(crate) fn prune_required(result: &mut Map<String, Value>) {
    let (Some(Value::Array(required)), Some(Value::Object(props))) =
        (result.get("required"), result.get("properties"))
    else {
        return;
    };
    let pruned: Vec<Value> = required
        .iter()
        .filter(|r| r.as_str().is_some_and(|name| props.contains_key(name)))
        .cloned()
        .collect();
    if pruned.is_empty() {
        result.shift_remove("required");
    } else {
        result.insert("required".into(), Value::Array(pruned));
    }
}
