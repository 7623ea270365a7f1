//! Reading a client's config file: JSON, or JSON with comments and trailing commas (VS Code's
//! `mcp.json` and `settings.json` are JSONC), with the place of an error, and where a member's
//! value sits in the text so that a rewrite replaces that value and leaves every other byte,
//! comments included, as it was.

use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::ops::Range;

/// `text` with comments and trailing commas blanked out (each byte replaced by a space, line
/// breaks kept) and a leading byte-order mark blanked too: strict JSON with every value at the
/// same byte offset, line and column as in `text`.
pub fn strict(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        out[..3].fill(b' ');
        i = 3;
    }
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (c, b.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                // An unclosed comment is left as it is: the JSON parser then names its place.
                if let Some(end) = find(&b[i + 2..], b"*/") {
                    let end = i + 2 + end + 2;
                    for byte in &mut out[i..end] {
                        if *byte != b'\n' && *byte != b'\r' {
                            *byte = b' ';
                        }
                    }
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    // Trailing commas, once the comments are blanks: a comma before `}` or `]`.
    let mut in_string = false;
    let mut i = 0;
    while i < out.len() {
        match (in_string, out[i]) {
            (true, b'\\') => i += 1,
            (_, b'"') => in_string = !in_string,
            (false, b',') => {
                let next = out[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if matches!(next, Some(b'}' | b']')) {
                    out[i] = b' ';
                }
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were written, each over a whole comment (or a comma, or the BOM): the text
    // is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses a config's text (JSON or JSONC). The error names the line and column.
pub fn parse(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Err("empty file, not a JSON object".into());
    }
    let value: Value = serde_json::from_str(&strict(text)).map_err(|e| {
        // serde_json's message ends with "at line L column C"; the category is said first.
        let what = match e.classify() {
            serde_json::error::Category::Eof => "not valid JSON (it ends too early)",
            _ => "not valid JSON",
        };
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        format!(
            "{what}: line {}, column {}: {message}",
            e.line(),
            e.column()
        )
    })?;
    if !value.is_object() {
        return Err("expected a JSON object at the top".into());
    }
    Ok(value)
}

/// The byte range in `text` of the value at `path` (object keys from the top), for a text that
/// [`parse`] accepted. `None` when a key on the way is missing.
pub fn span(text: &str, path: &[&str]) -> Option<Range<usize>> {
    let clean = strict(text);
    let base = clean.as_ptr() as usize;
    let mut current: &str = &clean;
    for key in path {
        let members: HashMap<String, &RawValue> = serde_json::from_str(current).ok()?;
        current = members.get(*key)?.get();
    }
    // `current` borrows from `clean`, whose offsets are `text`'s.
    let start = current.as_ptr() as usize - base;
    Some(start..start + current.len())
}

/// The indentation of the line `offset` is on, and the file's indentation step (a tab, or the
/// smallest run of leading spaces; two spaces when nothing is indented).
pub fn indentation(text: &str, offset: usize) -> (String, String) {
    let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let line = &text[line_start..];
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let mut step: Option<String> = None;
    for l in text.lines() {
        let lead: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        if lead.is_empty() || l.trim().is_empty() {
            continue;
        }
        if lead.starts_with('\t') {
            step = Some("\t".into());
            break;
        }
        if step.as_ref().is_none_or(|s| lead.len() < s.len()) {
            step = Some(lead);
        }
    }
    (indent, step.unwrap_or_else(|| "  ".into()))
}

/// `value` as pretty JSON indented by `step`, every line after the first prefixed by `indent`,
/// to stand where a member's value stood.
pub fn pretty_at(value: &Value, indent: &str, step: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(step.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    // Serializing a Value into a Vec cannot fail.
    let _ = value.serialize(&mut ser);
    let text = String::from_utf8_lossy(&buf);
    let mut out = String::with_capacity(text.len() + 64);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_keep_offsets() {
        let text = "\u{feff}{\n  // a comment, with \"quotes\" and é\n  \"servers\": {\"a\": {\"command\": \"x // not a comment\",},}, /* block\n  */ \"inputs\": [1,2, // two\n],\n}\n";
        let v = parse(text).unwrap();
        assert_eq!(v["servers"]["a"]["command"], "x // not a comment");
        assert_eq!(v["inputs"], serde_json::json!([1, 2]));
        assert_eq!(strict(text).len(), text.len());
        let s = span(text, &["servers"]).unwrap();
        assert!(
            text[s.clone()].starts_with("{\"a\""),
            "{}",
            &text[s.clone()]
        );
        assert!(text[s].ends_with(",}"));
        let s = span(text, &["servers", "a", "command"]).unwrap();
        assert_eq!(&text[s], "\"x // not a comment\"");
        assert!(span(text, &["nope"]).is_none());
    }

    #[test]
    fn errors_name_line_and_column() {
        let e =
            parse("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}")
                .unwrap_err();
        assert!(e.contains("line 4, column 5"), "{e}");
        let e = parse("{\"a\": 1").unwrap_err();
        assert!(e.contains("ends too early") && e.contains("line 1"), "{e}");
        assert!(parse("  ").unwrap_err().contains("empty"));
        assert!(parse("[1]").unwrap_err().contains("object"));
        assert!(
            parse("{\"a\": 1 /* unclosed")
                .unwrap_err()
                .contains("line 1")
        );
    }

    #[test]
    fn indentation_and_pretty() {
        let text = "{\n\t\"mcp\": {\n\t\t\"servers\": {}\n\t}\n}";
        let at = span(text, &["mcp", "servers"]).unwrap().start;
        let (indent, step) = indentation(text, at);
        assert_eq!((indent.as_str(), step.as_str()), ("\t\t", "\t"));
        let v = serde_json::json!({"a": {"command": "x"}});
        assert_eq!(
            pretty_at(&v, &indent, &step),
            "{\n\t\t\t\"a\": {\n\t\t\t\t\"command\": \"x\"\n\t\t\t}\n\t\t}"
        );
        assert_eq!(indentation("{\"a\": 1}", 1).1, "  ");
        assert_eq!(
            indentation("{\n    \"a\": {\n        \"b\": 1}}", 5).1,
            "    "
        );
    }
}
