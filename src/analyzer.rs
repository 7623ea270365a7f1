//! Text to search tokens. Documents and queries go through the same analyzer, so a word matches itself.
//!
//! The reference analyzer reproduces `toolregistry` 0.19.0 exactly: Python's `[\w]+` runs, lowercased,
//! then the character bigrams of every CJK run that are not already tokens.

mod background;
mod english;
mod params;
mod stream;

pub use background::background_rate;
pub use english::ENGLISH_STOPWORDS;
#[cfg(test)]
use english::STEMS;
pub(crate) use english::is_stopword;
use english::{STEMMER, english_clitics, stem_word, with_stem};

pub use stream::{enhanced_each, reference_each};

use std::borrow::Cow;
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
    append_cjk_bigrams(text, tokens)
}

/// Appends the character bigrams of every CJK run of `text` that are not already in `tokens`.
fn append_cjk_bigrams(text: &str, mut tokens: Vec<String>) -> Vec<String> {
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
    reference_tokens(tool).map(|field| field.into_iter().map(Cow::into_owned).collect())
}

/// The same tokens as [`reference_document`], borrowed from the tool wherever the text already
/// is a token (ASCII, lowercase): a bulk build otherwise allocated one `String` per token.
pub fn reference_tokens(tool: &crate::tool::Tool) -> [Vec<Cow<'_, str>>; 5] {
    let meta = tool.metadata();
    let name = tool.name();
    let name_tokens = if name.is_ascii() {
        // `name_to_text` only turns `_` and `-` into spaces: the same runs, also split at `_`.
        let mut out = Vec::new();
        for part in name.split('_') {
            push_ascii_runs(part, &mut out);
        }
        out
    } else {
        owned(tokenize(&name_to_text(name)))
    };
    let tags = if meta.tags.iter().all(|t| t.is_ascii()) {
        // Space-joined ASCII tags: each tag's runs in turn, and no CJK bigrams.
        let mut out = Vec::new();
        for tag in &meta.tags {
            push_ascii_runs(tag, &mut out);
        }
        out
    } else {
        owned(tokenize(&meta.tags.join(" ")))
    };
    [
        name_tokens,
        tokens_of(tool.description()),
        tags,
        tokens_of(tool.param_text()),
        tokens_of(&meta.search_hint),
    ]
}

/// [`tokenize`], borrowing the tokens of ASCII text that are already lowercase.
fn tokens_of(text: &str) -> Vec<Cow<'_, str>> {
    if text.is_ascii() {
        // Words average well over four bytes with their separator: one allocation, no regrowth.
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        push_ascii_runs(text, &mut out);
        out
    } else {
        owned(tokenize(text))
    }
}

fn owned<'a>(tokens: Vec<String>) -> Vec<Cow<'a, str>> {
    tokens.into_iter().map(Cow::Owned).collect()
}

/// Byte classes of ASCII text: 0 separator, 1 lowercase word byte (`\w`), 2 uppercase letter.
const ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_uppercase() {
            2
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            1
        } else {
            0
        };
        b += 1;
    }
    t
};

/// The `\w` runs of ASCII `text`, each with whether it holds an upper-case letter (and so needs
/// lowercasing).
fn ascii_word_runs(text: &str) -> impl Iterator<Item = (&str, bool)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && ASCII_CLASS[bytes[i] as usize] == 0 {
            i += 1;
        }
        if i == bytes.len() {
            return None;
        }
        let start = i;
        let mut upper = false;
        while i < bytes.len() {
            let class = ASCII_CLASS[bytes[i] as usize];
            if class == 0 {
                break;
            }
            upper |= class == 2;
            i += 1;
        }
        Some((&text[start..i], upper))
    })
}

/// The `\w` runs of ASCII `text`, lowercased (as [`push_word_runs`] does for ASCII text).
fn push_ascii_runs<'a>(text: &'a str, out: &mut Vec<Cow<'a, str>>) {
    for (run, upper) in ascii_word_runs(text) {
        out.push(if upper {
            Cow::Owned(run.to_ascii_lowercase())
        } else {
            Cow::Borrowed(run)
        });
    }
}

/// Switches of the enhanced profile's analysis and scoring. All on by default; they exist so that
/// each change's contribution can be measured (`toolregistry eval --ablate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnhancedAnalysis {
    /// NFKC-normalize text first, so full-width Latin and compatibility forms match their plain forms.
    pub nfkc: bool,
    /// Split identifiers at `_`, camelCase, acronym and letter/digit boundaries (keeping the whole
    /// identifier as a token too).
    pub split_identifiers: bool,
    /// Reduce words to their Snowball English stem, on both sides.
    pub stem: bool,
    /// Index parameter descriptions and enum values as a sixth field.
    pub param_docs: bool,
    /// Drop English function words ("can", "you", "the", ...) from queries.
    pub stopwords: bool,
    /// Normalize each field's term frequency by that field's length (the standard BM25F; see
    /// [`crate::index::Bm25Params::per_field`]) instead of by the weighted document length.
    pub per_field_norm: bool,
    /// Saturate repeated query terms like document terms (see
    /// [`crate::index::Bm25Params::saturate_query`]).
    pub query_saturation: bool,
    /// Discount the IDF of words more common in general English than in the catalog (see
    /// [`crate::index::Bm25Params::background`] and [`background_rate`]).
    pub background: bool,
    /// Keep a query's runs that mix letters and digits (`10th`, `2pm`, `user3pass`, `USR001`)
    /// whole: they are the values the call will take (dates, times, ordinals, IDs), not words
    /// saying what a tool does, and split they become fragments (`th`, `pm`, `user`) that match
    /// unrelated tools. Tools' own identifiers are still split; their whole form is indexed too,
    /// so a query naming one (`MobileNetV2`) still finds it.
    pub query_values_whole: bool,
    /// Index a name of two or more words once more as one term, which a query holding every
    /// word of it matches (see [`name_term_of`] and `crate::index`'s `names`): "delete my
    /// meeting" asks for `DeleteMeeting` by name, not for `AddMeeting`, whose description
    /// repeats more of its words.
    pub name_terms: bool,
}

impl Default for EnhancedAnalysis {
    fn default() -> Self {
        EnhancedAnalysis {
            nfkc: true,
            split_identifiers: true,
            stem: true,
            param_docs: true,
            stopwords: true,
            per_field_norm: true,
            query_saturation: true,
            background: true,
            query_values_whole: true,
            name_terms: true,
        }
    }
}

/// Fields of the enhanced profile's documents, in index order.
pub const ENHANCED_FIELDS: [&str; 6] = [
    "name",
    "description",
    "tags",
    "params",
    "search_hint",
    "param_docs",
];

/// An ASCII word, lowercase after its first letter: [`split_identifier`] keeps it whole.
fn plain_word(run: &str) -> bool {
    let mut bytes = run.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) && bytes.all(|b| b.is_ascii_lowercase())
}

/// Splits one `\w` run at `_`, lower-to-upper (`getUser`), acronym-to-word (`HTTPResponse`) and
/// letter/digit boundaries. Returns the parts in their original case.
pub fn split_identifier(run: &str) -> Vec<&str> {
    // Most words are plain lowercase or capitalized: nothing to split, no per-character work.
    if plain_word(run) {
        return vec![run];
    }
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Upper,
        Lower,
        Digit,
        Other,
    }
    let kind = |c: char| {
        if c.is_uppercase() {
            Kind::Upper
        } else if c.is_lowercase() {
            Kind::Lower
        } else if c.is_numeric() {
            Kind::Digit
        } else {
            Kind::Other
        }
    };
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for (j, &(i, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push(&run[s..i]);
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(i);
            continue;
        };
        let prev = kind(chars[j - 1].1);
        let here = kind(c);
        let next = chars.get(j + 1).map(|&(_, n)| kind(n));
        let boundary = match (prev, here) {
            (Kind::Lower, Kind::Upper) => true,
            (Kind::Upper, Kind::Upper) => next == Some(Kind::Lower),
            (Kind::Digit, Kind::Upper | Kind::Lower | Kind::Other)
            | (Kind::Upper | Kind::Lower | Kind::Other, Kind::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push(&run[s..i]);
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push(&run[s..]);
    }
    parts
}

/// Most tokens identifier splitting may add to one whitespace-separated chunk of text. Real
/// identifiers add a handful (`getHTTPResponseCode`: 4 parts besides the whole); once a chunk has
/// used its budget, its further runs are kept whole. Without it, a pasted blob of mixed case and
/// digits (base64, hex, minified JSON, a URL) turned into thousands of tokens: an 18 KB base64
/// image, 560 `\w` runs, became 10,269 tokens. 32 changes no ranking of the public sets (16
/// lowered apibench's R@3 by 0.001).
pub const SPLIT_BUDGET_PER_CHUNK: usize = 32;

/// The enhanced profile's analyzer, for documents and queries alike: optional NFKC, the reference's
/// `\w` runs, identifier splitting (the whole identifier kept as a token too), lowercasing, Snowball
/// English stemming, then the reference's CJK bigrams.
pub fn tokenize_enhanced(text: &str, cfg: &EnhancedAnalysis) -> Vec<String> {
    tokenize_enhanced_as(text, cfg, false)
}

/// [`tokenize_enhanced`] of a query (`query`: with [`EnhancedAnalysis::query_values_whole`]'s
/// rule) or of a tool's text.
fn tokenize_enhanced_as(text: &str, cfg: &EnhancedAnalysis, query: bool) -> Vec<String> {
    let values_whole = query && cfg.query_values_whole;
    let normalized = normalize(text, cfg);
    let text: &str = &normalized;
    // Each `\w` run, and whether whitespace precedes it (it starts a new chunk of text).
    let mut runs: Vec<(&str, bool)> = Vec::new();
    let mut start: Option<usize> = None;
    let mut new_chunk = true;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, found) => {
                if let Some(s) = found {
                    runs.push((&text[s..i], new_chunk));
                    start = None;
                    new_chunk = false;
                }
                new_chunk |= c.is_whitespace();
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((&text[s..], new_chunk));
    }
    let stem = |t: String| -> String { if cfg.stem { stem_word(t) } else { t } };
    // Whole identifiers are mostly one tool's own (`getuserprofile`): stemmed without the cache,
    // which they would fill with words never seen again (8.7 MB at 100,000 tools, for the life of
    // the thread) while evicting the vocabulary that does repeat.
    let stem_rare = |t: String| -> String {
        if cfg.stem {
            STEMMER.stem(&t).into_owned()
        } else {
            t
        }
    };
    let mut tokens = Vec::with_capacity(runs.len() + 4);
    // Tokens splitting added in the current whitespace-separated chunk (see SPLIT_BUDGET_PER_CHUNK).
    let mut extra = 0;
    for (run, chunk_start) in runs {
        if chunk_start {
            extra = 0;
        }
        if cfg.split_identifiers {
            if plain_word(run) {
                // What splitting gives for most words, without its list.
                tokens.push(stem(lowercase(run)));
                continue;
            }
            if values_whole && run.chars().any(char::is_numeric) {
                tokens.push(stem(lowercase(&run.replace('_', ""))));
                continue;
            }
            let parts = split_identifier(run);
            if parts.len() > 1 && extra + parts.len() > SPLIT_BUDGET_PER_CHUNK {
                // The chunk (a URL, a stack frame, minified JSON) has had its share of splits.
                tokens.push(stem(lowercase(run)));
                continue;
            }
            if parts.len() > 1 {
                // The parts and the whole identifier, in place of one token.
                extra += parts.len();
                for p in &parts {
                    tokens.push(stem(lowercase(p)));
                }
                // Stemmed like every other token: a query's tokens are all stemmed, so an unstemmed
                // `getusers` here never met the query `getUsers` (stemmed `getus`).
                tokens.push(stem_rare(lowercase(&run.replace('_', ""))));
                continue;
            }
            if let Some(p) = parts.first() {
                tokens.push(stem(lowercase(p)));
            }
        } else {
            tokens.push(stem(lowercase(run)));
        }
    }
    if text.is_ascii() {
        return tokens;
    }
    append_cjk_bigrams(text, tokens)
}

/// Query tokens for the enhanced profile, each with whether it is an English function word or
/// clitic that the analysis drops (only when `cfg.stopwords` is on and the query has other words).
pub fn enhanced_query_tokens(query: &str, cfg: &EnhancedAnalysis) -> Vec<(String, bool)> {
    enhanced_query_tokens_within(query, cfg, usize::MAX).0
}

/// [`enhanced_query_tokens`] for the first `limit` tokens only (the rest are never stemmed or
/// looked up), with the number of tokens the whole query has.
pub fn enhanced_query_tokens_within(
    query: &str,
    cfg: &EnhancedAnalysis,
    limit: usize,
) -> (Vec<(String, bool)>, usize) {
    let no_stem = EnhancedAnalysis {
        stem: false,
        ..*cfg
    };
    // Stopwords are recognized before stemming ("does" would stem to "doe").
    let mut raw = tokenize_enhanced_as(query, &no_stem, true);
    let total = raw.len();
    raw.truncate(limit);
    // Clitics are met in text order, as the tokens are; a clitic's token is the next equal one
    // (an equal standalone token before it would take its mark instead, which scores the same).
    let mut clitics = if cfg.stopwords {
        english_clitics(query).into_iter().peekable()
    } else {
        Vec::new().into_iter().peekable()
    };
    let stop: Vec<bool> = raw
        .iter()
        .map(|t| {
            if clitics.peek() == Some(t) {
                clitics.next();
                return true;
            }
            cfg.stopwords && is_stopword(t)
        })
        .collect();
    let all_stop = stop.iter().all(|&s| s);
    let tokens = raw
        .into_iter()
        .zip(stop)
        .map(|(t, s)| {
            let dropped = s && !all_stop;
            // A dropped word is shown (by explain) as written; only scored words need stems.
            let t = if cfg.stem && !dropped {
                stem_word(t)
            } else {
                t
            };
            (t, dropped)
        })
        .collect();
    (tokens, total)
}

/// The texts of the parameter descriptions and string enum values of a tool's top-level
/// properties.
pub fn param_docs(parameters_json: &str) -> Vec<String> {
    match params::param_docs_scanned(parameters_json)
        .or_else(|| params::param_docs_borrowed(parameters_json))
    {
        Some(docs) => docs.into_iter().map(Cow::into_owned).collect(),
        None => params::param_docs_tree(parameters_json),
    }
}

/// The name term of a tool whose own name (without its namespace) is `name`
/// ([`crate::index::name_term`]), when `cfg` indexes name terms and the name has two or more
/// words after its last `.`: each `\w` run split as identifiers are, each part lowercased and
/// stemmed as the name field's words are, function words left out as a query leaves them out.
/// It is the last token of the name field.
pub fn name_term_of(name: &str, cfg: &EnhancedAnalysis) -> Option<String> {
    if !cfg.name_terms {
        return None;
    }
    let normalized = normalize(name, cfg);
    // A dotted prefix names a module or a class (`geometry.area_circle`,
    // `PmsProductServiceImpl.updateNewStatus`): where the tool lives, not what it does.
    let name = normalized.rsplit('.').next().unwrap_or(&normalized);
    let mut words: Vec<String> = Vec::new();
    stream::name_words(name, cfg, &mut |w| words.push(w.to_string()));
    crate::index::name_term(&words)
}

/// `text` NFKC-normalized when `cfg` asks for it (ASCII text is its own normal form).
fn normalize<'a>(text: &'a str, cfg: &EnhancedAnalysis) -> Cow<'a, str> {
    if cfg.nfkc && !text.is_ascii() {
        use unicode_normalization::UnicodeNormalization;
        Cow::Owned(text.nfkc().collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// The enhanced profile's document for a tool (see [`ENHANCED_FIELDS`]).
pub fn enhanced_document(
    tool: &crate::tool::Tool,
    cfg: &EnhancedAnalysis,
) -> crate::index::FieldTokens<6> {
    enhanced_document_within(tool, cfg, usize::MAX)
}

/// [`enhanced_document`] of each field's first `max_bytes` of text (cut at a character boundary;
/// a word cut in two counts as two): a bounded cost for a tool of any size.
pub fn enhanced_document_within(
    tool: &crate::tool::Tool,
    cfg: &EnhancedAnalysis,
    max_bytes: usize,
) -> crate::index::FieldTokens<6> {
    let meta = tool.metadata();
    let tokens = |text: &str| tokenize_enhanced(crate::limits::cut(text, max_bytes), cfg);
    let mut name = if cfg.split_identifiers {
        tokens(tool.name())
    } else {
        tokens(&name_to_text(tool.name()))
    };
    name.extend(name_term_of(tool.own_name(), cfg));
    let docs = if cfg.param_docs {
        tokens(&param_docs(tool.parameters_json()).join(" "))
    } else {
        Vec::new()
    };
    [
        name,
        tokens(tool.description()),
        tokens(&meta.tags.join(" ")),
        tokens(tool.param_text()),
        tokens(&meta.search_hint),
        docs,
    ]
}

#[cfg(test)]
mod tests;
