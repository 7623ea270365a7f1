//! The scanner of tool text: what a downstream server says about its tools goes into the model's
//! context, so names, descriptions, parameter names and descriptions, enum values and defaults are
//! checked for the tool-poisoning patterns published so far (hidden Unicode, instructions aimed at
//! the model, references to other servers' tools, requests for secrets or private files, context
//! stuffing). Each finding has a rule id, a severity and the span of the offending text.
//!
//! Rules are general: they describe the shape of an attack, never particular tools. They cannot
//! promise to catch text written to look benign (see docs/mcp-trust.md).

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// How bad a finding is. `High` quarantines the tool; the others are warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

/// One match of one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Which rule matched, e.g. `unicode.tag`.
    pub rule: &'static str,
    pub severity: Severity,
    /// Where in the definition: `description`, `inputSchema.properties.path.description`, ...
    pub field: String,
    /// Byte offsets of the offending text in that field's string.
    pub start: usize,
    pub end: usize,
    /// The offending text, with invisible characters written as `\u{...}` (at most ~80 chars).
    pub excerpt: String,
}

/// Descriptions longer than this are a warning: long enough to crowd a model's context.
pub const LONG_DESCRIPTION: usize = 4 * 1024;
/// Descriptions longer than this are quarantined: no tool needs 32 KiB to say what it does, and
/// the length itself pushes the user's own instructions out of the model's view.
pub const OVERSIZED_DESCRIPTION: usize = 32 * 1024;

/// The names of the tools of the *other* servers (their own names and the registered
/// `server-tool` names): a tool's text that names one of them is reaching across servers.
#[derive(Debug, Default, Clone)]
pub struct Context {
    /// Lower-cased, and only names worth matching: short or plain-word names ("search", "list")
    /// are everyday words.
    names: std::collections::HashSet<String>,
}

impl Context {
    /// The context of a server whose neighbours have these tool names.
    pub fn new<'a>(other_tools: impl IntoIterator<Item = &'a str>) -> Context {
        let names = other_tools
            .into_iter()
            .filter(|n| {
                n.len() >= 5
                    && (n.contains(['_', '-', '.'])
                        || n.chars().skip(1).any(|c| c.is_ascii_uppercase()))
            })
            .map(str::to_lowercase)
            .collect();
        Context { names }
    }
}

/// Scans one MCP tool definition (`{name, description, inputSchema, ...}`; a library-format
/// `parameters` is read as the input schema).
pub fn scan_tool(entry: &Value, context: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(obj) = entry.as_object() else {
        return out;
    };
    for key in ["name", "title", "description"] {
        if let Some(text) = obj.get(key).and_then(Value::as_str) {
            scan_text(text, key, context, &mut out);
        }
    }
    if let Some(text) = obj.get("description").and_then(Value::as_str) {
        oversized(text, &mut out);
    }
    if let Some(Value::Object(a)) = obj.get("annotations") {
        for (k, v) in a {
            if let Some(text) = v.as_str() {
                scan_text(text, &format!("annotations.{k}"), context, &mut out);
            }
        }
    }
    for key in ["inputSchema", "parameters", "outputSchema"] {
        if let Some(schema) = obj.get(key) {
            scan_schema(schema, key, context, &mut out);
        }
    }
    out
}

/// Every string of a schema (descriptions, titles, enum values, defaults, examples) and every
/// property name: all of it reaches the model.
fn scan_schema(value: &Value, path: &str, context: &Context, out: &mut Vec<Finding>) {
    match value {
        Value::String(s) => scan_text(s, path, context, out),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                scan_schema(v, &format!("{path}[{i}]"), context, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                let at = format!("{path}.{k}");
                if path.ends_with(".properties") {
                    scan_text(k, &format!("{at}(name)"), context, out);
                }
                scan_schema(v, &at, context, out);
            }
        }
        _ => {}
    }
}

fn oversized(text: &str, out: &mut Vec<Finding>) {
    let severity = match text.len() {
        n if n > OVERSIZED_DESCRIPTION => Severity::High,
        n if n > LONG_DESCRIPTION => Severity::Medium,
        _ => return,
    };
    out.push(Finding {
        rule: "description.oversized",
        severity,
        field: "description".into(),
        start: 0,
        end: text.len(),
        excerpt: format!("{} bytes", text.len()),
    });
}

/// Runs every text rule over one string.
pub fn scan_text(text: &str, field: &str, context: &Context, out: &mut Vec<Finding>) {
    hidden_unicode(text, field, out);
    let folded = Folded::new(text);
    for rule in PHRASE_RULES {
        for pattern in rule.patterns {
            if let Some((s, e)) = folded.find(pattern) {
                push(out, rule.id, rule.severity, field, text, s, e);
                break;
            }
        }
    }
    tag_blocks(text, &folded, field, out);
    private_files(text, &folded, field, out);
    secret_requests(text, &folded, field, out);
    other_tools(text, &folded, field, context, out);
}

fn push(
    out: &mut Vec<Finding>,
    rule: &'static str,
    severity: Severity,
    field: &str,
    text: &str,
    start: usize,
    end: usize,
) {
    out.push(Finding {
        rule,
        severity,
        field: field.to_string(),
        start,
        end,
        excerpt: excerpt(&text[start..end]),
    });
}

/// The text shown for a span: invisible and control characters escaped, cut at 80 characters.
pub fn excerpt(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if invisible(c).is_some() || c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The rule and severity of a hidden or direction-changing character, if `c` is one.
fn invisible(c: char) -> Option<(&'static str, Severity)> {
    Some(match c as u32 {
        // Tag characters spell ASCII no one sees ("ASCII smuggling").
        0xE0000..=0xE007F => ("unicode.tag", Severity::High),
        // Embeddings, overrides and isolates reorder what is displayed against what is read.
        0x202A..=0x202E | 0x2066..=0x2069 => ("unicode.bidi", Severity::High),
        0x200E | 0x200F | 0x061C => ("unicode.bidi-mark", Severity::Medium),
        0x200B | 0x2060..=0x2064 | 0xFEFF | 0x180E | 0x115F | 0x1160 | 0x3164 | 0xFFA0 => {
            ("unicode.zero-width", Severity::High)
        }
        // Joiners have real uses (emoji sequences, Indic and Persian script): judged in context.
        0x200C | 0x200D => ("unicode.zero-width", Severity::Low),
        // Variation selectors beyond the 16 ordinary ones can carry a byte each.
        0xE0100..=0xE01EF => ("unicode.variation-selector", Severity::High),
        0xAD | 0x034F | 0x17B4 | 0x17B5 => ("unicode.invisible", Severity::Medium),
        0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD => {
            ("unicode.private-use", Severity::Medium)
        }
        _ => return None,
    })
}

/// Hidden characters, one finding per run of them.
fn hidden_unicode(text: &str, field: &str, out: &mut Vec<Finding>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let control = c.is_control() && !matches!(c, '\n' | '\r' | '\t');
        let Some((rule, mut severity)) =
            invisible(c).or(control.then_some(("unicode.control", Severity::Medium)))
        else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < chars.len() && invisible(chars[j].1).is_some_and(|(r, _)| r == rule) {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |&(b, _)| b);
        if rule == "unicode.zero-width" && severity == Severity::Low {
            // A joiner between two visible characters is spelling; a run of them, or one at a
            // word's edge, is hiding something.
            let visible = |k: Option<&(usize, char)>| k.is_some_and(|&(_, c)| !c.is_whitespace());
            let joined = j - i == 1 && i > 0 && visible(chars.get(i - 1)) && visible(chars.get(j));
            if !joined {
                severity = Severity::High;
            }
        }
        push(out, rule, severity, field, text, start, end);
        if rule == "unicode.tag" {
            // What the tags spell is what the model reads: show it.
            let spelled: String = text[start..end]
                .chars()
                .filter_map(|c| char::from_u32(c as u32 - 0xE0000).filter(|c| !c.is_control()))
                .collect();
            if let Some(f) = out.last_mut() {
                f.excerpt = format!("{} tag characters spelling {spelled:?}", j - i);
            }
        }
        i = j;
    }
}

/// The text lower-cased with runs of whitespace and punctuation-free apostrophes folded, and a
/// map back to the original's byte offsets, so that phrases match across line breaks and case.
struct Folded {
    text: String,
    /// For each byte of `text`, the original byte offset of the character it came from.
    origin: Vec<usize>,
    original_len: usize,
}

impl Folded {
    fn new(original: &str) -> Folded {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len());
        let mut space = false;
        for (at, c) in original.char_indices() {
            // Zero-width characters between letters must not split a phrase.
            if invisible(c).is_some() {
                continue;
            }
            let c = match c {
                '\u{2019}' | '\u{2018}' | '`' => '\'',
                c if c.is_whitespace() => ' ',
                c => c,
            };
            if c == ' ' {
                if space {
                    continue;
                }
                space = true;
            } else {
                space = false;
            }
            for l in c.to_lowercase() {
                let mut buf = [0; 4];
                for _ in l.encode_utf8(&mut buf).bytes() {
                    origin.push(at);
                }
                text.push(l);
            }
        }
        Folded {
            text,
            origin,
            original_len: original.len(),
        }
    }

    /// The original span of the first match of `pattern` (see [`Pattern`]).
    fn find(&self, pattern: &str) -> Option<(usize, usize)> {
        self.find_from(pattern, 0)
    }

    fn find_from(&self, pattern: &str, from: usize) -> Option<(usize, usize)> {
        let (s, e) = match_pattern(&self.text, pattern, from)?;
        Some(self.span(s, e))
    }

    fn span(&self, s: usize, e: usize) -> (usize, usize) {
        let start = self.origin[s];
        let end = self.origin.get(e).copied().unwrap_or(self.original_len);
        (start, end.max(start + 1).min(self.original_len))
    }
}

/// A pattern is words separated by spaces; `a|b` is either word, `*` any one word, `word~`
/// any word starting with `word`. Matches only at word boundaries.
fn match_pattern(text: &str, pattern: &str, from: usize) -> Option<(usize, usize)> {
    let words: Vec<&str> = pattern.split(' ').collect();
    let bytes = text.as_bytes();
    let boundary = |i: usize| {
        i == 0
            || i >= bytes.len()
            || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
    };
    let mut start = from;
    while start < text.len() {
        if text.is_char_boundary(start) && boundary(start) {
            if let Some(end) = match_words(text, start, &words) {
                return Some((start, end));
            }
        }
        start += 1;
    }
    None
}

fn match_words(text: &str, mut at: usize, words: &[&str]) -> Option<usize> {
    for (n, word) in words.iter().enumerate() {
        if n > 0 {
            at = skip_space(text, at)?;
        }
        at = match_word(text, at, word)?;
    }
    Some(at)
}

fn skip_space(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let trimmed = rest.trim_start_matches([' ', ',', ':', '-', '"', '\'', '(', ')']);
    (trimmed.len() < rest.len()).then(|| at + rest.len() - trimmed.len())
}

fn match_word(text: &str, at: usize, word: &str) -> Option<usize> {
    let rest = &text[at..];
    let word_end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .unwrap_or(rest.len());
    let token = &rest[..word_end];
    let ok = word.split('|').any(|w| match w {
        "*" => !token.is_empty(),
        w if w.ends_with('~') => token.starts_with(&w[..w.len() - 1]),
        w if !w.starts_with(|c: char| c.is_alphanumeric()) => rest.starts_with(w),
        w => token == w,
    });
    if !ok {
        return None;
    }
    // A punctuation pattern (`<important>`) consumes exactly itself.
    match word
        .split('|')
        .find(|w| !w.starts_with(|c: char| c.is_alphanumeric()) && *w != "*")
    {
        Some(w) if rest.starts_with(w) => Some(at + w.len()),
        _ => Some(at + word_end),
    }
}

/// A family of phrases with one rule id.
struct PhraseRule {
    id: &'static str,
    severity: Severity,
    patterns: &'static [&'static str],
}

/// Phrases from the published injection and tool-poisoning write-ups: text that talks to the
/// model about its instructions or about keeping the user uninformed. Tool documentation has no
/// reason to say any of them.
const PHRASE_RULES: &[PhraseRule] = &[
    PhraseRule {
        id: "instruction.override",
        severity: Severity::High,
        patterns: &[
            "ignore|disregard|forget|override|bypass all|any|the|your previous|prior|above|earlier|preceding|other|system instruction~|prompt~|direction~|rule~|guideline~",
            "ignore|disregard|forget|override|bypass previous|prior|above|earlier|preceding|your|all instruction~|prompt~|direction~|rule~|guideline~",
            "new|updated|real|actual|hidden|secret system instruction~",
            "this supersedes|overrides all|any|previous|other",
            "your system prompt|instruction~",
            "reveal|print|repeat|output|show your|the system prompt",
            "you are now in|a|an",
            "from now on you",
            "jailbreak~",
        ],
    },
    PhraseRule {
        id: "instruction.conceal",
        severity: Severity::High,
        patterns: &[
            "do not tell|inform|notify|mention|alert|reveal|show|disclose * user",
            "don't|dont|never tell|inform|notify|mention|alert|reveal|show|disclose * user",
            "do not tell|inform|notify|mention|alert|reveal|show|disclose this|it|that|anything to|with * user",
            "don't|dont|never tell|inform|notify|mention|alert|reveal|show|disclose this|it|that|anything to|with * user",
            "do not mention|reveal|disclose this|these|that instruction~|step~|note|tool",
            "don't|dont|never mention|reveal|disclose this|these|that instruction~|step~|note|tool",
            "without telling|informing|notifying|alerting|asking|letting * user",
            "without the user noticing|knowing|seeing",
            "hide|conceal this|it|these from * user",
            "user must|should|will not know|see|notice|learn|find",
            "keep this|these instruction~|step~ secret|hidden|confidential",
            "not visible to * user",
            "user|users can't|cannot see",
            "silently|secretly|quietly send|forward|pass|copy|read|upload|include|append|add|call",
        ],
    },
    PhraseRule {
        id: "instruction.model-directive",
        severity: Severity::Medium,
        patterns: &[
            "before using|calling this tool you must|always|first",
            "you must always|first|never",
            "as an ai|llm|assistant|language model",
            "the assistant|model|ai must|should always",
        ],
    },
    PhraseRule {
        id: "crossref.shadowing",
        severity: Severity::High,
        patterns: &[
            "when|whenever|if|before|after the * tool is|are called|used|invoked|available|present|run",
            "when|whenever|if|before|after using|calling|invoking any|another|other tool~",
            "when|whenever * is|are invoked",
            "when|whenever * * is|are invoked",
            "when|whenever|if this tool is|are available|present|loaded|installed|enabled",
            "the * tool must",
            "instead of the|using|calling * tool",
            "all|every|any other|another tool~ must|should|will",
            "this tool must|should be called|used|run before|after|instead any|every|all|other",
            "behavio~ of the|other|all|any * tool~",
            "behavio~ of the|other|all|any tool~|agent|assistant|model",
        ],
    },
];

/// `<IMPORTANT>`-style blocks and chat-template markers: the shape of a message to the model.
fn tag_blocks(text: &str, folded: &Folded, field: &str, out: &mut Vec<Finding>) {
    const TAGS: &[&str] = &[
        "important",
        "system",
        "instruction",
        "instructions",
        "secret",
        "hidden",
        "admin",
        "critical",
        "assistant",
        "user",
        "prompt",
        "override",
        "context",
        "note_to_ai",
    ];
    let t = &folded.text;
    let mut at = 0;
    while let Some(i) = t[at..].find('<').map(|i| i + at) {
        at = i + 1;
        let rest = t[at..].trim_start_matches('/');
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        if rest[name_len..].starts_with('>') && TAGS.contains(&&rest[..name_len]) {
            let end = t.len() - rest.len() + name_len + 1;
            let (s, e) = folded.span(i, end);
            push(
                out,
                "instruction.tag-block",
                Severity::High,
                field,
                text,
                s,
                e,
            );
            return;
        }
    }
    for marker in [
        "<|im_start|>",
        "<|system|>",
        "[inst]",
        "<<sys>>",
        "<|endoftext|>",
        "### system",
    ] {
        if let Some(i) = t.find(marker) {
            let (s, e) = folded.span(i, i + marker.len());
            push(
                out,
                "instruction.tag-block",
                Severity::High,
                field,
                text,
                s,
                e,
            );
            return;
        }
    }
    if let Some(i) = t.find("<!--") {
        let (s, e) = folded.span(i, (i + 4).min(t.len()));
        push(
            out,
            "instruction.hidden-comment",
            Severity::Medium,
            field,
            text,
            s,
            e,
        );
    }
}

/// Paths and names of the files that hold a user's keys and credentials. A tool that works on
/// them (an SSH key manager) is rare enough to approve by hand.
fn private_files(text: &str, folded: &Folded, field: &str, out: &mut Vec<Finding>) {
    const NEEDLES: &[&str] = &[
        "~/.ssh",
        ".ssh/",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "authorized_keys",
        "known_hosts",
        "/etc/passwd",
        "/etc/shadow",
        "/etc/sudoers",
        ".aws/credentials",
        ".aws/config",
        ".npmrc",
        ".pypirc",
        ".netrc",
        ".git-credentials",
        ".kube/config",
        ".docker/config.json",
        ".gnupg",
        "private key",
        "private_key",
        "begin rsa",
        "begin openssh",
        "mcp.json",
        "claude_desktop_config",
        ".bash_history",
        ".zsh_history",
        "keychain",
        "wallet.dat",
        "seed phrase",
        "mnemonic phrase",
        "/proc/self/environ",
        "cookies.sqlite",
        "login data",
    ];
    let t = &folded.text;
    // Phrases match whole words, `_` included (`private_key_jwt` is an OAuth method, not a
    // key); file names only need letters around them to stop (`ssh_id_rsa` is still `id_rsa`,
    // `valid_rsa` is not).
    const PHRASES: &[&str] = &["private key", "private_key", "keychain", "login data"];
    for needle in NEEDLES {
        let phrase = PHRASES.contains(needle);
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || (phrase && c == '_'));
        let edge_start = needle.starts_with(|c: char| c.is_alphanumeric());
        let edge_end = needle.ends_with(|c: char| c.is_alphanumeric());
        let mut from = 0;
        while let Some(i) = t[from..].find(needle).map(|i| i + from) {
            let end = i + needle.len();
            let before = t[..i].chars().next_back();
            let after = t[end..].chars().next();
            let inside_word = (edge_start && word(before)) || (edge_end && word(after));
            if !inside_word {
                let (s, e) = folded.span(i, end);
                push(
                    out,
                    "secrets.private-file",
                    Severity::High,
                    field,
                    text,
                    s,
                    e,
                );
                return;
            }
            from = i + 1;
            while !t.is_char_boundary(from) {
                from += 1;
            }
        }
    }
    // `.env` as a file name (not "environment", not "x.envelope").
    let b = t.as_bytes();
    let mut from = 0;
    while let Some(i) = t[from..].find(".env").map(|i| i + from) {
        from = i + 4;
        let before_ok = i == 0 || matches!(b[i - 1], b' ' | b'/' | b'\'' | b'"' | b'(' | b'~');
        let after_ok = b
            .get(i + 4)
            .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'_' || *c == b'.');
        if before_ok && after_ok {
            let (s, e) = folded.span(i, i + 4);
            push(
                out,
                "secrets.private-file",
                Severity::High,
                field,
                text,
                s,
                e,
            );
            return;
        }
    }
}

/// Secrets named together with a verb that moves or reveals them. A parameter that *takes* an
/// API key says "the API key for ..."; a poisoned one says "read the user's API key and pass it
/// in ...".
fn secret_requests(text: &str, folded: &Folded, field: &str, out: &mut Vec<Finding>) {
    const ASKS: &[&str] = &[
        "read|include|pass|send|forward|upload|append|attach|copy|exfiltrat~|leak|collect|gather|extract|dump|paste|print|output|retrieve|fetch your|their|user's|users' api|access|auth|bearer|secret|private key~|token~|password~|credential~|secret~|cookie~",
        "read|include|pass|send|forward|upload|append|attach|copy|exfiltrat~|leak|collect|gather|extract|dump|paste|print|output|retrieve|fetch your|their|user's|users' key~|token~|password~|credential~|secret~|cookie~",
        "read|include|pass|send|forward|upload|append|attach|copy|exfiltrat~|leak|collect|gather|extract|dump|paste|print|output|retrieve|fetch the user's * key~|token~|password~|credential~|secret~|cookie~",
        "read|include|pass|send|forward|upload|append|attach|copy|exfiltrat~|leak|collect|gather|extract|dump|paste|print|output|retrieve|fetch the user's key~|token~|password~|credential~|secret~|cookie~",
        "send|forward|upload|append|attach|include|pass|exfiltrat~|leak|dump|collect|gather all|every|any environment variable~|secret~|credential~|token~|password~",
        "contents|content of your|their|any|all * api key~|token~|password~|credential~|secret~|keys",
    ];
    for pattern in ASKS {
        if let Some((s, e)) = folded.find(pattern) {
            push(out, "secrets.request", Severity::High, field, text, s, e);
            return;
        }
    }
}

/// Names of other servers' tools in this tool's text, as whole identifiers (`send_email` in
/// `send_email_draft` is another name). Naming one next to a directive ("must", "instead",
/// "whenever", ...) is high: that is how shadowing steers another server's tool. A bare mention
/// is a warning (documentation mentions functions that happen to share a name).
fn other_tools(
    text: &str,
    folded: &Folded,
    field: &str,
    context: &Context,
    out: &mut Vec<Finding>,
) {
    if context.names.is_empty() {
        return;
    }
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let t = &folded.text;
    let mut at = 0;
    for token in t.split(|c: char| !ident(c)) {
        let start = at;
        at += token.len()
            + t[at + token.len()..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
        let word = token.trim_end_matches(['.', '-']);
        if !context.names.contains(word) {
            continue;
        }
        let end = start + word.len();
        let mut lo = start.saturating_sub(120);
        while !t.is_char_boundary(lo) {
            lo -= 1;
        }
        let mut hi = (end + 120).min(t.len());
        while !t.is_char_boundary(hi) {
            hi += 1;
        }
        let directed = match_pattern(&t[lo..hi], DIRECTIVES, 0).is_some();
        let severity = if directed {
            Severity::High
        } else {
            Severity::Medium
        };
        let (s, e) = folded.span(start, end);
        push(
            out,
            "crossref.other-server-tool",
            severity,
            field,
            text,
            s,
            e,
        );
        return;
    }
}

/// Words that tell the model what to do with something.
const DIRECTIVES: &str =
    "must|should|always|never|instead|ensure|whenever|override|redirect|replace|before|after";

/// Findings counted by rule and severity.
pub type Counts = BTreeMap<(String, Severity), usize>;

/// Findings counted per rule and severity, e.g. for `--check` and the false-positive report.
pub fn count(findings: &[Finding]) -> Counts {
    let mut counts = BTreeMap::new();
    for f in findings {
        *counts.entry((f.rule.to_string(), f.severity)).or_insert(0) += 1;
    }
    counts
}

/// The highest severity among the findings.
pub fn worst(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}
