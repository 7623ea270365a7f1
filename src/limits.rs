//! Size limits on untrusted input, and the one place JSON text is parsed.
//!
//! The library runs inside other programs and takes JSON written by third parties (MCP servers,
//! models), so every input has a bound; going over it is an error, never a slow path or a crash.

use crate::error::{Error, Result};
use serde_json::Value;

/// Largest JSON document accepted by any entry point (64 MiB).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;
/// JSON nesting limit, serde_json's: input nested this many levels deep or deeper is `InvalidJson`,
/// never a stack overflow (127 levels are accepted).
pub const MAX_JSON_DEPTH: usize = 128;
/// Longest tool name or namespace, in bytes. Providers cap names near 64 characters; 1 KiB leaves room.
pub const MAX_NAME_BYTES: usize = 1024;
/// Longest query, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;
/// Most analyzed query tokens that are scored. Scoring cost grows with tokens times postings,
/// so this bounds the time of one discover; a longer query is answered from its first this many
/// tokens (explain says so), never refused: agents paste logs and blobs into queries.
pub const MAX_QUERY_TOKENS: usize = 1024;

/// Most searchable text one tool may carry, in bytes: its description, search hint, tags and
/// parameter names together (the text the index tokenizes). Indexing takes about 12 bytes of
/// transient memory and 30 ns per byte of it, paid again under the write lock whenever the tool is
/// enabled, disabled or given new tags or hint; a 50 MB description cost 600 MB and over a second
/// per mutation. Real descriptions are under 2 KB, so 1 MiB leaves ample room.
pub const MAX_TOOL_TEXT_BYTES: usize = 1024 * 1024;

/// `text`'s first `max_bytes` bytes at most, cut at a character boundary: a text bounded for a
/// message or a per-query cost without splitting a UTF-8 sequence.
pub fn cut(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Refuses `bytes` of searchable text for the tool `name` when over [`MAX_TOOL_TEXT_BYTES`].
pub fn check_tool_text(name: &str, bytes: usize) -> Result<()> {
    if bytes > MAX_TOOL_TEXT_BYTES {
        return Err(Error::TooLarge(format!(
            "tool {:?}: {bytes} bytes of searchable text (description, search hint, tags and \
             parameter names together); the limit is {MAX_TOOL_TEXT_BYTES} bytes (1 MiB)",
            name
        )));
    }
    Ok(())
}

/// Largest field weight, `k1` or `delta` a discoverer accepts. Larger finite values overflowed
/// scores to infinity or NaN (a weight of 1e308 turned every score into NaN, a delta of 1e308 into
/// infinity); with this bound every score stays finite. Useful values are below 10.
pub const MAX_RANKING_PARAMETER: f64 = 1e6;

/// Parses untrusted JSON text, enforcing [`MAX_INPUT_BYTES`]; `what` names the input in messages.
pub fn parse_json(text: &str, what: &str) -> Result<Value> {
    check_input_size(text, what)?;
    serde_json::from_str(text).map_err(|e| Error::InvalidJson(format!("{what}: {e}")))
}

/// An options object: `null` is `None` (the defaults); anything but an object is INVALID_ARGUMENT
/// naming `path`.
pub fn object_or_null<'a>(
    value: &'a Value,
    path: &str,
) -> Result<Option<&'a serde_json::Map<String, Value>>> {
    match value {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        other => Err(Error::invalid(format!(
            "{path}: expected an object, got {}",
            kind_of(other)
        ))),
    }
}

/// Refuses text over [`MAX_INPUT_BYTES`].
pub fn check_input_size(text: &str, what: &str) -> Result<()> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(Error::TooLarge(format!(
            "{what} is {} bytes; the limit is {MAX_INPUT_BYTES} bytes (64 MiB)",
            text.len()
        )));
    }
    Ok(())
}

/// Names what kind of JSON value `v` is, for error messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON array of strings (`null`: `None`); `path` locates it in messages.
pub fn string_list(v: &Value, path: &str) -> Result<Option<Vec<String>>> {
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                t.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid(format!(
                        "{path}[{i}]: expected a string, got {}",
                        kind_of(t)
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        other => Err(Error::invalid(format!(
            "{path}: expected an array of strings, got {}",
            kind_of(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_never_splits_a_character() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
        assert_eq!(cut("héllo", 99), "héllo");
        assert_eq!(cut("日本", 1), "");
    }
}
