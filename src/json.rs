//! The small JSON writer every output shares: string literals, numbers and compact text, appended
//! to a byte buffer.

/// Appends `s` as a JSON string literal.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    let bytes = s.as_bytes();
    let n = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
    let mut start = 0;
    let mut i = 0;
    while i < n {
        // Sixteen bytes a step while none needs escaping (descriptions rarely do).
        while i + 16 <= n && escape_mask(word(i)) | escape_mask(word(i + 8)) == 0 {
            i += 16;
        }
        // The next eight bytes from `i`; when fewer are left, the last eight of the string if
        // those before `i` are clean (nothing escaped since `start`, so they flag nothing), else
        // the rest padded with spaces.
        let (base, mask) = if i + 8 <= n {
            (i, escape_mask(word(i)))
        } else if n >= 8 && start + 8 <= n {
            (n - 8, escape_mask(word(n - 8)))
        } else {
            let mut padded = [b' '; 8];
            padded[..n - i].copy_from_slice(&bytes[i..]);
            (i, escape_mask(u64::from_le_bytes(padded)))
        };
        if mask == 0 {
            i = (base + 8).min(n);
            continue;
        }
        // The lowest flagged byte is the first one that needs escaping (see `escape_mask`).
        i = base + (mask.trailing_zeros() / 8) as usize;
        let b = bytes[i];
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The bytes of `word` (little-endian) that are `"`, `\\` or a control character (below 0x20):
/// the high bit of each such byte is set. The classic has-zero / has-less tests flag a clean
/// byte only above a flagged one (a borrow runs upwards), so the lowest set bit is exact.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    has_zero(word ^ (ONES * u64::from(b'"')))
        | has_zero(word ^ (ONES * u64::from(b'\\')))
        | below_space
}

/// Appends an optional string, `null` when absent.
pub fn write_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends a float the way serde_json prints it (shortest text that reads back to the same value).
pub fn write_f64(out: &mut Vec<u8>, x: f64) {
    // serde_json's own writer (non-finite numbers become null; scores are always finite).
    serde_json::to_writer(&mut *out, &x).expect("writing to a Vec cannot fail");
}

/// Compact JSON text of a value, by serde_json's own writer (`Value`'s `Display` goes through a
/// formatter and is several times slower).
pub fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).expect("a Value always serializes")
}

/// Turns an output buffer into a `String`; the writers above only ever emit UTF-8.
pub fn into_string(buf: Vec<u8>) -> String {
    String::from_utf8(buf).expect("JSON writers emit UTF-8")
}

#[cfg(test)]
mod tests {
    /// The plain byte-at-a-time escaping `write_str` must match.
    fn escape_plain(s: &str) -> Vec<u8> {
        let mut out = vec![b'"'];
        for c in s.chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                c if (c as u32) < 0x20 => {
                    out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                }
                c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        out.push(b'"');
        out
    }

    #[test]
    fn write_str_escapes_like_the_plain_loop() {
        let mut cases: Vec<String> = vec![
            String::new(),
            "plain ascii text that is longer than eight bytes".into(),
            "quote\" and back\\slash at odd offsets".into(),
            "é中文😀 mixed ~\u{7f} del".into(),
        ];
        for b in 0u8..0x20 {
            for pad in 0..10 {
                cases.push(format!(
                    "{}{}{}",
                    "x".repeat(pad),
                    b as char,
                    "y".repeat(9 - pad)
                ));
            }
        }
        // Every length up to 40 with each kind of byte at each position (the sixteen- and
        // eight-byte steps, the overlapping last word and the padded short string).
        for len in 1..=40 {
            for at in 0..len {
                for special in ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "é", "中"] {
                    let mut case = "a".repeat(at) + special + &"b".repeat(len - at - 1);
                    cases.push(case.clone());
                    case.push('\t');
                    cases.push(case);
                }
            }
        }
        for case in &cases {
            let mut out = Vec::new();
            write_str(&mut out, case);
            assert_eq!(out, escape_plain(case), "{case:?}");
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(&back, case);
        }
        let mut out = Vec::new();
        write_f64(&mut out, 0.1 + 0.2);
        assert_eq!(out, b"0.30000000000000004");
    }

    use super::*;

    #[test]
    fn strings_escape_like_serde_json() {
        for s in [
            "plain",
            "q\"uote\\",
            "line\nbreak\t\r",
            "\u{1}\u{1f}",
            "ünï 天",
        ] {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }
}
