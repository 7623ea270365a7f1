//! A large catalog array parsed as two halves on two threads. Parsing the tool objects is
//! about half of registering a catalog, and each object is independent of the others.
//!
//! This path only ever agrees with the one-thread fast path or steps aside: anything it is not
//! sure of (a string it cannot follow, nesting deeper than [`MAX_DEPTH`], trailing text, an
//! element the fast path would not take) returns `None`, and the caller parses the whole array
//! on one thread as before, which stays the single definition of what is accepted and of every
//! error message.

use super::Tool;
use super::fast::{ObjectDef, nested_within, tool_of};

/// Arrays shorter than this are parsed on one thread: starting a thread costs more than half
/// of a small catalog's parse.
pub(super) const MIN_BYTES: usize = 1 << 20;

/// Deepest nesting this path reads (the one-thread path reads up to serde_json's limit of 128,
/// counted with the array): tool schemas are far shallower, and anything near the limit is left
/// to the path that reports it.
const MAX_DEPTH: usize = 64;

/// The tools of `text`, a JSON array of tool objects, parsed in two halves side by side; `None`
/// when the one-thread path must decide.
pub(super) fn parse(text: &str) -> Option<Vec<Tool>> {
    let (open, mid) = middle(text)?;
    let (earlier, later) = std::thread::scope(|s| {
        let later = s.spawn(|| elements(&text[mid + 1..], Some(b']')));
        let earlier = elements(&text[open + 1..mid], None);
        (earlier, later.join().ok().flatten())
    });
    let (mut tools, rest) = (earlier?, later?);
    tools.reserve_exact(rest.len());
    tools.extend(rest);
    // Growth slack here would count toward the peak memory of the whole build.
    tools.shrink_to_fit();
    Some(tools)
}

/// The byte offsets of the array's `[` and of its first top-level comma from the middle of the
/// text on (else its last one), with nothing nested deeper than [`MAX_DEPTH`] before that comma.
/// Only the first half is scanned: the second is checked as it is parsed, on the other thread.
fn middle(text: &str) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let open = b.iter().position(|c| !is_json_space(*c))?;
    if b[open] != b'[' {
        return None;
    }
    let half = b.len() / 2;
    let (mut depth, mut last) = (0usize, None);
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'"' => {
                // To the closing quote: past every backslash and the byte it escapes.
                i += 1;
                loop {
                    let j = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
                    if b[j] == b'"' {
                        i = j;
                        break;
                    }
                    i = j + 2;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
            }
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    // No comma from the middle on (the last element is half the array): the
                    // last one before it.
                    return last.map(|c| (open, c));
                }
            }
            b',' if depth == 1 => {
                if i >= half {
                    return Some((open, i));
                }
                last = Some(i);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Comma-separated tool objects, as the fast path reads each: all of `text` when `end` is
/// `None` (elements the scan in [`middle`] has checked), else up to the byte `end` (the array's
/// `]`), after which only whitespace may follow, each element checked against [`MAX_DEPTH`].
fn elements(mut text: &str, end: Option<u8>) -> Option<Vec<Tool>> {
    let mut tools = Vec::new();
    loop {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<ObjectDef>();
        let def = stream.next()?.ok()?;
        let used = stream.byte_offset();
        if end.is_some() && !nested_within(&text[..used], MAX_DEPTH) {
            return None;
        }
        tools.push(tool_of(def.0)?);
        text = text[used..].trim_start_matches(|c: char| c.is_ascii() && is_json_space(c as u8));
        match (text.as_bytes().first(), end) {
            (None, None) => return Some(tools),
            (Some(&c), Some(end)) if c == end => {
                let after = &text.as_bytes()[1..];
                return after.iter().all(|c| is_json_space(*c)).then_some(tools);
            }
            (Some(b','), _) => text = &text[1..],
            _ => return None,
        }
    }
}

fn is_json_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_thread(text: &str) -> Option<Vec<Tool>> {
        super::super::fast::parse_array_on_one_thread(text)
    }

    fn tool(i: usize, extra: &str) -> String {
        format!(
            r#"{{"name":"t{i}","description":"d, {i} ] }} [ {{ \" \\ ,","parameters":{{"type":"object","properties":{{"a{i}":{{"type":"string","description":"x,]"}}}}}}{extra}}}"#
        )
    }

    #[test]
    fn halves_parse_like_one_thread() {
        for n in [2, 3, 10, 101] {
            for sep in [",", " ,\n ", ",\t"] {
                let items: Vec<String> = (0..n).map(|i| tool(i, "")).collect();
                let text = format!(" \n[ {} ]\n ", items.join(sep));
                let halves = parse(&text).expect("split");
                assert_eq!(halves, one_thread(&text).expect("fast path"), "{n} {sep:?}");
                assert_eq!(halves.len(), n);
            }
        }
    }

    #[test]
    fn steps_aside_when_unsure() {
        let (a, b) = (tool(0, ""), tool(1, ""));
        assert!(parse(&format!("[{a},{b}]")).is_some(), "the control");
        let deep = format!(
            r#"{{"name":"deep","x":{}{}}}"#,
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        let ten: Vec<String> = (0..10).map(|i| tool(i, "")).collect();
        assert!(parse(&format!("[{},{}]", ten.join(","), ten.join(","))).is_some());
        for text in [
            format!("[{a},{b},]"),                      // trailing comma
            format!("[{a},{b}] x"),                     // trailing text
            format!("[{a},,{b}]"),                      // empty element
            format!("[{a},{b},\"s\"]"),                 // not an object
            format!("[{a},{b}"),                        // unterminated
            format!("{{\"tools\":[{a},{b}]}}"),         // not an array
            format!("[{a},{deep}]"),                    // nesting past MAX_DEPTH
            format!("[{deep},{}]", ten.join(",")),      // deep in the half the scan reads
            format!("[{},{deep}]", ten.join(",")),      // deep in the half the other thread reads
            r#"[{"name":"a"},{"name":"b\"#.to_string(), // a string ending in a lone backslash
            r#"[{"name":"a"},{"name":"b"#.to_string(),  // a string that never closes
        ] {
            assert!(parse(&text).is_none(), "{text}");
        }
    }

    /// A real catalog over [`MIN_BYTES`] (BFCL's 1,998 tools, pretty-printed), as
    /// `Tool::parse_many` reads it.
    #[test]
    fn a_real_catalog_parses_like_one_thread() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/eval/bfcl/catalog.json");
        let text = std::fs::read_to_string(path).expect("../shared/eval/bfcl/catalog.json");
        assert!(text.len() >= MIN_BYTES);
        let halves = parse(&text).expect("split");
        assert_eq!(Some(halves), one_thread(&text));
    }

    /// Random edits of a valid array (structural bytes inserted, deleted or swapped): whatever
    /// the halves accept, the one-thread path accepts with the same tools.
    #[test]
    fn mutated_arrays_never_disagree() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let bytes = b"[]{}\",:\\ a0";
        let (mut accepted, mut rejected) = (0, 0);
        for round in 0..3000 {
            let n = 2 + round % 7;
            let items: Vec<String> = (0..n).map(|i| tool(i, "")).collect();
            let mut text = format!("[{}]", items.join(",")).into_bytes();
            for _ in 0..1 + next(3) {
                // Up to and including the end, so text after the array is tried too.
                let at = next(text.len() + 1);
                match (next(3), at < text.len()) {
                    (1, true) => {
                        text.remove(at);
                    }
                    (2, true) => text[at] = bytes[next(bytes.len())],
                    _ => text.insert(at, bytes[next(bytes.len())]),
                }
            }
            let Ok(text) = String::from_utf8(text) else {
                continue;
            };
            match parse(&text) {
                Some(tools) => {
                    accepted += 1;
                    assert_eq!(Some(tools), one_thread(&text), "{text}");
                }
                None => rejected += 1,
            }
        }
        // Both outcomes occur, so the check above is not vacuous.
        assert!(accepted > 100 && rejected > 100, "{accepted} {rejected}");
    }
}
