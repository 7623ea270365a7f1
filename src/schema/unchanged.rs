//! Whether [`super::flatten::normalize_parameters`] leaves a stored schema as it is, told by one
//! scan of its text instead of a `Value` tree, four rebuilding passes and a serialization (most of
//! what registering one tool cost before it was first shown).
//!
//! Conservative: `true` only when every step of the cleaning provably changes nothing; anything
//! it does not follow (a `$ref`, `allOf`, `anyOf`/`oneOf`, a stripped key outside a property-name
//! map, a `required` name that is not a property, a fraction, an escape serde_json would write
//! differently, whitespace) gives `false`, and the caller runs the full cleaning.

use super::flatten::STRIPPED_KEYS;

/// Keys whose object values are property-name maps (as the cleaning's walkers decide it).
const PROPERTY_MAP_KEYS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];

struct Object<'a> {
    /// A property-name map: its keys are names, never keywords.
    names: bool,
    /// The top-level schema.
    top: bool,
    /// The key whose value comes next (or was the last one read).
    key: Option<&'a str>,
    /// This object is the value of a `properties` key: its keys are collected.
    collect: bool,
    keys: Vec<&'a str>,
    /// The keys of this object's `properties` object, when it has one.
    properties: Option<Vec<&'a str>>,
    /// The direct elements of this object's `required` array (`None`: not a string).
    required: Option<Vec<Option<&'a str>>>,
    type_object: bool,
}

enum Frame<'a> {
    Object(Object<'a>),
    /// An array; `required`: its direct elements, when it is a `required` value to check.
    Array(Option<Vec<Option<&'a str>>>),
}

/// Whether the flattened form of `stored` (compact JSON as serde_json writes it, as every stored
/// schema is) is `stored` itself. See the module docs.
pub(super) fn flattened_is_unchanged(stored: &str) -> bool {
    scan(stored).is_some()
}

fn scan(text: &str) -> Option<()> {
    let b = text.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                let (names, collect) = match stack.last() {
                    Some(Frame::Object(o)) => {
                        let k = o.key.unwrap_or("");
                        (
                            PROPERTY_MAP_KEYS.contains(&k),
                            !o.names && k == "properties",
                        )
                    }
                    _ => (false, false),
                };
                stack.push(Frame::Object(Object {
                    names,
                    top: stack.is_empty(),
                    key: None,
                    collect,
                    keys: Vec::new(),
                    properties: None,
                    required: None,
                    type_object: false,
                }));
                i += 1;
                // The first key (if any) follows.
                if b.get(i) == Some(&b'"') {
                    i = read_key(text, i, &mut stack)?;
                }
            }
            b'[' => {
                let required = match stack.last() {
                    Some(Frame::Object(o)) if !o.names && o.key == Some("required") => {
                        Some(Vec::new())
                    }
                    _ => None,
                };
                stack.push(Frame::Array(required));
                i += 1;
            }
            b'}' => {
                let Some(Frame::Object(o)) = stack.pop() else {
                    return None;
                };
                if !o.names {
                    if let (Some(props), Some(required)) = (&o.properties, &o.required) {
                        // `required` is pruned to the properties, and dropped when empty.
                        // A set once there are many, so checking is never quadratic.
                        let set: Option<std::collections::HashSet<&str>> =
                            (props.len() > 32).then(|| props.iter().copied().collect());
                        let known = |name: &str| match &set {
                            Some(set) => set.contains(name),
                            None => props.contains(&name),
                        };
                        if required.is_empty() || !required.iter().all(|r| r.is_some_and(known)) {
                            return None;
                        }
                    }
                }
                if o.top && !(o.type_object && o.properties.is_some()) {
                    return None;
                }
                if let Some(Frame::Object(parent)) = stack.last_mut() {
                    if o.collect {
                        parent.properties = Some(o.keys);
                    }
                }
                i += 1;
                if stack.is_empty() {
                    return (i == b.len()).then_some(());
                }
            }
            b']' => {
                let Some(Frame::Array(required)) = stack.pop() else {
                    return None;
                };
                if let (Some(required), Some(Frame::Object(parent))) = (required, stack.last_mut())
                {
                    parent.required = Some(required);
                }
                i += 1;
            }
            b',' => {
                i += 1;
                if let Some(Frame::Object(_)) = stack.last() {
                    if b.get(i) != Some(&b'"') {
                        return None;
                    }
                    i = read_key(text, i, &mut stack)?;
                }
            }
            b'"' => {
                let end = string_end(b, i)?;
                let s = &text[i + 1..end];
                i = end + 1;
                match stack.last_mut()? {
                    Frame::Array(Some(required)) => required.push(Some(s)),
                    Frame::Array(None) => {}
                    Frame::Object(o) => {
                        if o.top && o.key == Some("type") {
                            o.type_object = s == "object";
                        }
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                while i < b.len() && matches!(b[i], b'-' | b'0'..=b'9') {
                    i += 1;
                }
                // A fraction or an exponent: left to the full cleaning.
                if matches!(b.get(i), Some(b'.' | b'e' | b'E' | b'+')) {
                    return None;
                }
                note_scalar(&mut stack);
            }
            b't' | b'n' => {
                i += 4;
                note_scalar(&mut stack);
            }
            b'f' => {
                i += 5;
                note_scalar(&mut stack);
            }
            _ => return None,
        }
    }
    None
}

/// A non-string scalar: an element of a `required` list that is not a name.
fn note_scalar(stack: &mut [Frame]) {
    if let Some(Frame::Array(Some(required))) = stack.last_mut() {
        required.push(None);
    }
}

/// Reads the key at `i` (a `"`) and its colon; refuses the keys the cleaning acts on. Returns the
/// position of the value.
fn read_key<'a>(text: &'a str, i: usize, stack: &mut [Frame<'a>]) -> Option<usize> {
    let b = text.as_bytes();
    let end = string_end(b, i)?;
    let key = &text[i + 1..end];
    let Some(Frame::Object(o)) = stack.last_mut() else {
        return None;
    };
    if key.contains('\\') || key == "$ref" {
        return None;
    }
    if !o.names && (matches!(key, "allOf" | "anyOf" | "oneOf") || STRIPPED_KEYS.contains(&key)) {
        return None;
    }
    if o.top && matches!(key, "$defs" | "definitions") {
        return None;
    }
    if o.collect {
        o.keys.push(key);
    }
    o.key = Some(key);
    if b.get(end + 1) != Some(&b':') {
        return None;
    }
    Some(end + 2)
}

/// The position of the quote closing the string that opens at `i`; `None` for an escape
/// serde_json would not write the same way (`\/`, `\u…`).
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j += b.get(j..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        if b[j] == b'"' {
            return Some(j);
        }
        if !matches!(
            b.get(j + 1)?,
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't'
        ) {
            return None;
        }
        j += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The full cleaning's answer.
    fn unchanged_by_cleaning(stored: &str) -> bool {
        let v: serde_json::Value = serde_json::from_str(stored).unwrap();
        let cleaned = super::super::flatten::normalize_parameters(&v).to_string();
        cleaned.as_str() == stored
    }

    #[test]
    fn agrees_with_the_full_cleaning_where_it_answers() {
        let cases = [
            r#"{"type":"object","properties":{}}"#,
            r#"{"type":"object","properties":{"a":{"type":"string","description":"x \"y\"\n"}},"required":["a"]}"#,
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}"#,
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":[]}"#,
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a",1]}"#,
            r#"{"type":"object","properties":{"title":{"type":"string"},"allOf":{"type":"string"}}}"#,
            r#"{"type":"object","title":"T","properties":{}}"#,
            r#"{"type":"object","properties":{"a":{"type":"object","properties":{"b":{}},"required":["c"]}}}"#,
            r#"{"type":"object","properties":{"a":{"type":"object","properties":{"b":{}},"required":["b"]}}}"#,
            r#"{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}"#,
            r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}"##,
            r#"{"type":"object","$defs":{},"properties":{}}"#,
            r#"{"type":"string","properties":{}}"#,
            r#"{"type":"object"}"#,
            r#"{"type":"object","properties":[]}"#,
            r#"{"type":"object","properties":{"n":{"type":"number","minimum":0.5}}}"#,
            r#"{"type":"object","properties":{"n":{"type":"integer","minimum":-3,"enum":[1,true,null,"x",[2]]}}}"#,
            r#"{"type":"object","properties":{"a":{"items":[{"title":"t"}]}}}"#,
            r#"{"type":"object","properties":{"a":{"description":"caf\u00e9"}}}"#,
            r#"{"type":"object","properties":{"a":{"properties":{"required":{}},"required":["required"]}}}"#,
            r#"{"type":"object","properties":{"required":{"type":"array"}},"required":["required"]}"#,
            r#"{"type":"object", "properties":{}}"#,
        ];
        let mut answered = 0;
        for stored in cases {
            if flattened_is_unchanged(stored) {
                answered += 1;
                assert!(unchanged_by_cleaning(stored), "{stored}");
            }
        }
        assert!(answered >= 7, "{answered}");
        assert!(flattened_is_unchanged(cases[1]));
        assert!(!flattened_is_unchanged(cases[2]));
    }
}
