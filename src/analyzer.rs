//! Text to search tokens. Documents and queries go through the same analyzer, so a word matches itself.
//!
//! The reference analyzer reproduces `toolregistry` 0.19.0 exactly: Python's `[\w]+` runs, lowercased,
//! then the character bigrams of every CJK run that are not already tokens.

use unicode_general_category::{GeneralCategory, get_general_category};

/// Whether Python's `str` regex `\w` accepts `c`: a Unicode letter (L*), a number (N*), or `_`.
///
/// Rust's `char::is_alphanumeric` differs (it follows the Alphabetic property, which includes many
/// combining marks), so the general category decides here.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        UppercaseLetter
            | LowercaseLetter
            | TitlecaseLetter
            | ModifierLetter
            | OtherLetter
            | DecimalNumber
            | LetterNumber
            | OtherNumber
    )
}

/// Whether `c` belongs to the scripts whose runs get bigrams: Hiragana and Katakana, CJK ideographs
/// (unified, extension A, compatibility) and Hangul syllables. Ranges as in the reference.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

/// Appends the lowercased `\w` runs of `text` to `out`.
fn push_word_runs(text: &str, out: &mut Vec<String>) {
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(lowercase(&text[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(lowercase(&text[s..]));
    }
}

fn lowercase(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Splits `text` into search tokens the way the reference does (see the module docs).
///
/// Token order matters only for the query (it fixes the order of ties); duplicates are kept.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    push_word_runs(text, &mut tokens);
    if text.is_ascii() {
        return tokens;
    }
    let mut bigrams = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !is_cjk(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_cjk(chars[i]) {
            i += 1;
        }
        let run = &chars[start..i];
        if run.len() == 1 {
            bigrams.push(run[0].to_string());
        } else {
            bigrams.extend(run.windows(2).map(|w| w.iter().collect::<String>()));
        }
    }
    if bigrams.is_empty() {
        return tokens;
    }
    let mut seen: std::collections::HashSet<String> = tokens.iter().cloned().collect();
    for b in bigrams {
        if seen.insert(b.clone()) {
            tokens.push(b);
        }
    }
    tokens
}

/// The text of a tool name as a field: every run of `_` and `-` becomes one space.
pub fn name_to_text(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_sep = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            if !in_sep {
                out.push(' ');
            }
            in_sep = true;
        } else {
            out.push(c);
            in_sep = false;
        }
    }
    out
}

/// Fields of the reference profile's documents, in index order.
pub const REFERENCE_FIELDS: [&str; 5] = ["name", "description", "tags", "params", "search_hint"];

/// The reference profile's document for a tool: name (separators as spaces), description, tags,
/// parameter names and search hint, each tokenized with [`tokenize`].
pub fn reference_document(tool: &crate::tool::Tool) -> crate::index::FieldTokens<5> {
    let meta = tool.metadata();
    [
        tokenize(&name_to_text(tool.name())),
        tokenize(tool.description()),
        tokenize(&meta.tags.join(" ")),
        tokenize(&tool.param_names().join(" ")),
        tokenize(&meta.search_hint),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_word_runs_and_keeps_underscores() {
        assert_eq!(
            tokenize("Read a FILE, snake_case!"),
            ["read", "a", "file", "snake_case"]
        );
    }

    #[test]
    fn combining_marks_split_words_like_python() {
        // U+0301 COMBINING ACUTE ACCENT is Mn: Python's \w rejects it, Rust's is_alphanumeric accepts it.
        assert_eq!(tokenize("cafe\u{301} bar"), ["cafe", "bar"]);
        assert!(!is_word_char('\u{301}'));
        assert!(is_word_char('é'));
        assert!(is_word_char('²')); // No
    }

    #[test]
    fn cjk_runs_get_missing_bigrams() {
        assert_eq!(tokenize("天气查询"), ["天气查询", "天气", "气查", "查询"]);
        assert_eq!(tokenize("天气"), ["天气"]);
        assert_eq!(tokenize("天 气"), ["天", "气"]);
        // bigrams never span a non-CJK character
        assert_eq!(tokenize("天气,查询"), ["天气", "查询"]);
        // Katakana middle dot is punctuation but inside the CJK range, so it joins the run
        assert_eq!(tokenize("ア・イ"), ["ア", "イ", "ア・", "・イ"]);
    }

    #[test]
    fn name_separators_collapse() {
        assert_eq!(name_to_text("github-list__issues"), "github list issues");
        assert_eq!(
            tokenize(&name_to_text("github-list__issues")),
            ["github", "list", "issues"]
        );
    }

    #[test]
    fn final_sigma_lowercases_like_python() {
        assert_eq!(tokenize("ΟΔΟΣ"), ["\u{3bf}\u{3b4}\u{3bf}\u{3c2}"]);
    }
}
