//! The common case of [`Tool::from_value`](super::Tool::from_value) without a `Value` tree: the tool's fields are read
//! straight from the text, and a schema that is already exactly what serde_json would write for
//! it is kept as it is. Anything unusual (an error, escapes in the schema, non-integer numbers,
//! duplicate keys, deep nesting) returns `None`, and the caller takes the `Value` path, which
//! stays the single definition of what is accepted and of every error message.

use super::{MAX_NAME_BYTES, Tool, ToolMetadata, build, normalize_metadata, validate_name};
use serde::de::value::MapAccessDeserializer;
use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Deepest nesting the fast path reads; deeper schemas take the `Value` path, which enforces
/// serde_json's recursion limit.
const MAX_DEPTH: usize = 100;

#[derive(Deserialize)]
pub(super) struct Def<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    description: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    parameters: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    input_schema: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present", rename = "inputSchema")]
    input_schema_mcp: Option<&'a RawValue>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    metadata: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    function: Option<&'a RawValue>,
}

/// The metadata object as [`super::MetadataUpdate::from_value`] accepts it; a `null` or
/// anything else it refuses fails here too (and the `Value` path reports it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(default, deserialize_with = "some_bool")]
    defer: Option<bool>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    search_hint: Option<String>,
    #[serde(default, deserialize_with = "some_bool")]
    concurrency_safe: Option<bool>,
}

fn some_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    bool::deserialize(d).map(Some)
}

/// `Some` for a key that is present, even when its value is `null` (unlike `Option`'s own
/// deserializer), as `Map::get` sees it.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn object(text: &str) -> Option<Def<'_>> {
    if !text.starts_with('{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// An array of tools in one pass over the text on this thread, or `None` when any element needs
/// the `Value` path (the caller then parses the array element by element). A large catalog is
/// tried in two halves on two threads first (`halves`, chosen in `tool.rs`).
pub(super) fn parse_array_on_one_thread(text: &str) -> Option<Vec<Tool>> {
    struct Tools;
    impl<'de> Visitor<'de> for Tools {
        type Value = Vec<Tool>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of tools")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Tool>, A::Error> {
            let mut tools = Vec::new();
            while let Some(ObjectDef(def)) = seq.next_element()? {
                tools.push(tool_of(def).ok_or_else(|| A::Error::custom("slow path"))?);
            }
            // Growth slack here would count toward the peak memory of the whole build.
            tools.shrink_to_fit();
            Ok(tools)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let tools = de.deserialize_seq(Tools).ok()?;
    de.end().ok()?;
    Some(tools)
}

/// A [`Def`] read only from a JSON object (the derived form would also read an array).
pub(super) struct ObjectDef<'a>(pub(super) Def<'a>);

impl<'de> Deserialize<'de> for ObjectDef<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = ObjectDef<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tool object")
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<ObjectDef<'de>, M::Error> {
                Def::deserialize(MapAccessDeserializer::new(map)).map(ObjectDef)
            }
        }
        d.deserialize_map(Object)
    }
}

/// One tool, or `None` to take the `Value` path.
pub(super) fn parse(text: &str) -> Option<Tool> {
    tool_of(object(text)?)
}

pub(super) fn tool_of(outer: Def<'_>) -> Option<Tool> {
    let metadata = match outer.metadata.map(RawValue::get) {
        None | Some("null") => ToolMetadata::default(),
        Some(raw) if raw.starts_with('{') => {
            let meta: Meta = serde_json::from_str(raw).ok()?;
            ToolMetadata {
                defer: meta.defer.unwrap_or(false),
                tags: meta.tags.map_or_else(Vec::new, |mut tags| {
                    // serde grows the list as it reads; the tool keeps it for good.
                    tags.shrink_to_fit();
                    tags
                }),
                search_hint: meta.search_hint.unwrap_or_default(),
                concurrency_safe: meta.concurrency_safe.unwrap_or(true),
            }
        }
        Some(_) => return None,
    };
    let inner;
    let def = match outer.function {
        Some(raw) => {
            inner = object(raw.get())?;
            &inner
        }
        None => &outer,
    };
    let name = def.name.as_deref()?;
    let description = def.description.as_deref().unwrap_or("");
    let namespace = outer.namespace.as_deref();
    let params = def
        .parameters
        .or(def.input_schema)
        .or(def.input_schema_mcp)
        .map_or("null", RawValue::get);
    let mut tool = if params == "null" || !params.starts_with('{') {
        let params: Value = serde_json::from_str(params).ok()?;
        build(name, description, &params, namespace, "tool", "parameters").ok()?
    } else if let Some(names) = canonical_schema(params) {
        validate_name(name, "name").ok()?;
        let ns_len = match namespace {
            Some(ns) => {
                validate_name(ns, "namespace").ok()?;
                ns.len()
            }
            None => 0,
        };
        let full_name = match namespace {
            Some(ns) => Cow::Owned(format!("{ns}-{name}")),
            None => Cow::Borrowed(name),
        };
        if full_name.len() > MAX_NAME_BYTES {
            return None;
        }
        Tool::from_parts(&full_name, ns_len, description, params, names.into_iter()).ok()?
    } else {
        let params: Value = serde_json::from_str(params).ok()?;
        build(name, description, &params, namespace, "tool", "parameters").ok()?
    };
    tool.metadata = normalize_metadata(metadata);
    Some(tool)
}

/// If `text` (valid JSON, an object) is byte for byte what serde_json writes for the `Value`
/// it parses to, the keys of its top-level `properties` object, in order.
///
/// That holds when there is no whitespace outside strings, every escape is one serde_json
/// writes the same way (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`; not `\/` or `\u`), every
/// number is an integer that fits 64 bits (no fraction, exponent or `-0`), and no object
/// repeats a key (a `Value` keeps one of them).
pub(super) fn canonical_schema(text: &str) -> Option<Vec<&str>> {
    struct Frame<'a> {
        object: bool,
        /// Position in `keys` where this object's keys start.
        keys_from: usize,
        expect_key: bool,
        /// This is the top-level `properties` object: its keys are the parameter names.
        properties: bool,
        /// This object's keys, once it has many: the repeat check stays linear in its size.
        many: Option<std::collections::HashSet<&'a str>>,
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    let mut names = Vec::new();
    // The next value is the top-level `properties` value.
    let mut properties_next = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if properties_next && c != b'{' && c != b'n' {
            return None; // not an object or null: the `Value` path reports it
        }
        match c {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(Frame {
                    object: c == b'{',
                    keys_from: keys.len(),
                    expect_key: c == b'{',
                    properties: std::mem::take(&mut properties_next),
                    many: None,
                });
                i += 1;
            }
            b'}' | b']' => {
                let frame = stack.pop()?;
                keys.truncate(frame.keys_from);
                i += 1;
            }
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.expect_key = top.object;
                }
                i += 1;
            }
            b':' => i += 1,
            b'"' => {
                let start = i + 1;
                let mut j = start;
                let mut escaped = false;
                loop {
                    // Skip plain bytes in one tight scan; strings are most of a schema.
                    j += b[j..]
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\')
                        .expect("strings are terminated");
                    if b[j] == b'"' {
                        break;
                    }
                    escaped = true;
                    if !matches!(b[j + 1], b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') {
                        return None;
                    }
                    j += 2;
                }
                let string = &text[start..j];
                i = j + 1;
                let depth = stack.len();
                let top = stack.last_mut()?;
                if top.expect_key {
                    top.expect_key = false;
                    if repeated(&mut top.many, &keys[top.keys_from..], string) {
                        return None;
                    }
                    keys.push(string);
                    if top.properties {
                        if escaped {
                            return None; // the index reads the unescaped name
                        }
                        names.push(string);
                    }
                    properties_next = depth == 1 && string == "properties";
                    // The key's value follows the colon.
                    if b.get(i) != Some(&b':') {
                        return None;
                    }
                    i += 1;
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let number = &text[start..i];
                let digits = number.strip_prefix('-').unwrap_or(number);
                let fits = if number.starts_with('-') { 18 } else { 19 };
                if !digits.bytes().all(|d| d.is_ascii_digit())
                    || digits.len() > fits
                    || number == "-0"
                {
                    return None;
                }
            }
            b't' | b'f' | b'n' => {
                let word = if c == b'f' { 5 } else { 4 };
                properties_next = false; // `"properties": null` means no parameters
                i += word;
            }
            _ => return None, // whitespace: not compact
        }
    }
    Some(names)
}

/// Whether `key` is among an object's keys so far (`seen`; `many` holds them once there are
/// many, so an object of thousands of keys is not checked in quadratic time).
pub(crate) fn repeated<'a>(
    many: &mut Option<std::collections::HashSet<&'a str>>,
    seen: &[&'a str],
    key: &'a str,
) -> bool {
    const FEW: usize = 32;
    match many {
        Some(set) => !set.insert(key),
        None if seen.len() < FEW => seen.contains(&key),
        None => {
            let mut set: std::collections::HashSet<&str> = seen.iter().copied().collect();
            let repeated = !set.insert(key);
            *many = Some(set);
            repeated
        }
    }
}

/// Whether arrays and objects in `text` (valid JSON or not) nest at most `limit` deep.
pub(super) fn nested_within(text: &str, limit: usize) -> bool {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while let Some(p) = b[i..]
        .iter()
        .position(|&c| matches!(c, b'"' | b'[' | b'{' | b']' | b'}'))
    {
        i += p;
        match b[i] {
            b'"' => loop {
                i += 1;
                let Some(p) = b[i..].iter().position(|&c| c == b'"' || c == b'\\') else {
                    return true;
                };
                i += p;
                if b[i] == b'"' {
                    break;
                }
                i += 1; // the escaped byte
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return false;
                }
            }
            _ => depth = depth.saturating_sub(1),
        }
        i += 1;
    }
    true
}
