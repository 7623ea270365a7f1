//! A tool's document tokens handed to a sink one at a time, for the index to turn into term ids
//! at once: no heap `String` per token (a third of a bulk build's time went to allocating and
//! freeing them). ASCII text, nearly all of it, is analyzed here, lowercasing into a reused buffer
//! only the words that have upper case, and taking a cached stem by reference; other text goes
//! through the general analyzers, whose tokens these must equal (tested below, and by the
//! incremental-equals-rebuild checks, which rebuild through [`super::enhanced_document`]).

use super::{
    ASCII_CLASS, EnhancedAnalysis, SPLIT_BUDGET_PER_CHUNK, STEMMER, ascii_word_runs, is_stopword,
    is_word_char, name_to_text, params, plain_word, split_identifier, tokenize, tokenize_enhanced,
    with_stem,
};
use crate::tool::Tool;

/// Buffers reused across the tokens of one document.
#[derive(Default)]
struct Scratch {
    /// A word lowercased.
    lower: String,
    /// A whole identifier without its underscores, lowercased.
    whole: String,
    /// Identifier parts, as byte ranges of the run.
    parts: Vec<(usize, usize)>,
}

/// The tokens of [`super::reference_document`], handed to `emit` as (field, token).
pub fn reference_each(tool: &Tool, emit: &mut impl FnMut(usize, &str)) {
    let mut buf = String::new();
    let meta = tool.metadata();
    let name = tool.name();
    if name.is_ascii() {
        // `name_to_text` only turns `_` and `-` into spaces: the same runs, also split at `_`.
        for part in name.split('_') {
            ascii_runs(part, &mut buf, &mut |t| emit(0, t));
        }
    } else {
        for t in tokenize(&name_to_text(name)) {
            emit(0, &t);
        }
    }
    if meta.tags.iter().all(|t| t.is_ascii()) {
        // Space-joined ASCII tags: each tag's runs in turn, and no CJK bigrams.
        for tag in &meta.tags {
            ascii_runs(tag, &mut buf, &mut |t| emit(2, t));
        }
    } else {
        for t in tokenize(&meta.tags.join(" ")) {
            emit(2, &t);
        }
    }
    let texts = [
        (1, tool.description()),
        (3, tool.param_text()),
        (4, meta.search_hint.as_str()),
    ];
    for (f, text) in texts {
        if text.is_ascii() {
            ascii_runs(text, &mut buf, &mut |t| emit(f, t));
        } else {
            for t in tokenize(text) {
                emit(f, &t);
            }
        }
    }
}

/// The `\w` runs of ASCII `text`, lowercased.
fn ascii_runs(text: &str, buf: &mut String, emit: &mut impl FnMut(&str)) {
    for (run, upper) in ascii_word_runs(text) {
        if upper {
            buf.clear();
            buf.push_str(run);
            buf.make_ascii_lowercase();
            emit(buf);
        } else {
            emit(run);
        }
    }
}

/// The tokens of [`super::enhanced_document`], handed to `emit` as (field, token).
pub fn enhanced_each(tool: &Tool, cfg: &EnhancedAnalysis, emit: &mut impl FnMut(usize, &str)) {
    let s = &mut Scratch::default();
    let meta = tool.metadata();
    if cfg.split_identifiers {
        text_each(tool.name(), cfg, s, &mut |t| emit(0, t));
    } else {
        text_each(&name_to_text(tool.name()), cfg, s, &mut |t| emit(0, t));
    }
    if let Some(term) = super::name_term_of(tool.own_name(), cfg) {
        emit(0, &term);
    }
    text_each(tool.description(), cfg, s, &mut |t| emit(1, t));
    texts_each(&meta.tags, cfg, s, &mut |t| emit(2, t));
    text_each(tool.param_text(), cfg, s, &mut |t| emit(3, t));
    text_each(&meta.search_hint, cfg, s, &mut |t| emit(4, t));
    if cfg.param_docs {
        let json = tool.parameters_json();
        match params::param_docs_scanned(json).or_else(|| params::param_docs_borrowed(json)) {
            Some(docs) => texts_each(&docs, cfg, s, &mut |t| emit(5, t)),
            None => texts_each(&params::param_docs_tree(json), cfg, s, &mut |t| emit(5, t)),
        }
    }
}

/// [`tokenize_enhanced`]'s tokens of `text`.
fn text_each(text: &str, cfg: &EnhancedAnalysis, s: &mut Scratch, emit: &mut impl FnMut(&str)) {
    if text.is_ascii() {
        ascii_enhanced(text, cfg, s, emit);
    } else {
        for t in tokenize_enhanced(text, cfg) {
            emit(&t);
        }
    }
}

/// [`tokenize_enhanced`]'s tokens of `texts` joined by spaces.
fn texts_each<T: AsRef<str>>(
    texts: &[T],
    cfg: &EnhancedAnalysis,
    s: &mut Scratch,
    emit: &mut impl FnMut(&str),
) {
    if texts.iter().all(|t| t.as_ref().is_ascii()) {
        // The joining space ends a run and starts a new chunk, as the start of a text does.
        for t in texts {
            ascii_enhanced(t.as_ref(), cfg, s, emit);
        }
    } else {
        let joined = texts
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(" ");
        for t in tokenize_enhanced(&joined, cfg) {
            emit(&t);
        }
    }
}

/// [`tokenize_enhanced`] of ASCII `text`, step for step (no NFKC change and no CJK bigrams
/// apply to ASCII).
fn ascii_enhanced(
    text: &str,
    cfg: &EnhancedAnalysis,
    s: &mut Scratch,
    emit: &mut impl FnMut(&str),
) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut new_chunk = true;
    // Tokens splitting added in the current whitespace-separated chunk.
    let mut extra = 0;
    while i < b.len() {
        if ASCII_CLASS[b[i] as usize] == 0 {
            new_chunk |= (b[i] as char).is_whitespace();
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && ASCII_CLASS[b[i] as usize] != 0 {
            i += 1;
        }
        let run = &text[start..i];
        if new_chunk {
            extra = 0;
        }
        new_chunk = false;
        if !cfg.split_identifiers || plain_word(run) {
            stemmed(run, cfg.stem, &mut s.lower, emit);
            continue;
        }
        split_ascii(run, &mut s.parts);
        let n = s.parts.len();
        if n > 1 && extra + n > SPLIT_BUDGET_PER_CHUNK {
            stemmed(run, cfg.stem, &mut s.lower, emit);
            continue;
        }
        if n > 1 {
            extra += n;
            for k in 0..n {
                let (from, to) = s.parts[k];
                stemmed(&run[from..to], cfg.stem, &mut s.lower, emit);
            }
            // The whole identifier, stemmed without the cache (see `tokenize_enhanced`).
            s.whole.clear();
            s.whole.extend(
                run.bytes()
                    .filter(|&c| c != b'_')
                    .map(|c| char::from(c.to_ascii_lowercase())),
            );
            if cfg.stem {
                emit(&STEMMER.stem(&s.whole));
            } else {
                emit(&s.whole);
            }
            continue;
        }
        if let Some(&(from, to)) = s.parts.first() {
            stemmed(&run[from..to], cfg.stem, &mut s.lower, emit);
        }
    }
}

/// The words of a name term ([`super::name_term_of`]) of `name` (normalized, its dotted prefix
/// cut): each `\w` run split as identifiers are, each part lowercased, function words left out
/// (with `cfg.stopwords`), stemmed (with `cfg.stem`) through the thread's stem cache. ASCII
/// names, nearly all, are split in place, as [`ascii_enhanced`] splits them.
pub(super) fn name_words(name: &str, cfg: &EnhancedAnalysis, emit: &mut impl FnMut(&str)) {
    let mut lower = String::new();
    let word = |part: &str, lower: &mut String, emit: &mut dyn FnMut(&str)| {
        lower.clear();
        lower.push_str(part);
        if part.is_ascii() {
            lower.make_ascii_lowercase();
        } else {
            *lower = part.to_lowercase();
        }
        if cfg.stopwords && is_stopword(lower) {
            return;
        }
        if cfg.stem {
            with_stem(lower, |s| emit(s));
        } else {
            emit(lower);
        }
    };
    if name.is_ascii() {
        let mut parts = Vec::new();
        for (run, _) in ascii_word_runs(name) {
            split_ascii(run, &mut parts);
            for &(from, to) in &parts {
                word(&run[from..to], &mut lower, emit);
            }
        }
    } else {
        for run in name
            .split(|c: char| !is_word_char(c))
            .filter(|r| !r.is_empty())
        {
            for part in split_identifier(run) {
                word(part, &mut lower, emit);
            }
        }
    }
}

/// Emits the ASCII `word` lowercased and, with `stem`, stemmed (through the thread's stem cache,
/// as `stem_word` does).
fn stemmed(word: &str, stem: bool, lower: &mut String, emit: &mut impl FnMut(&str)) {
    let word = if word.bytes().any(|c| c.is_ascii_uppercase()) {
        lower.clear();
        lower.push_str(word);
        lower.make_ascii_lowercase();
        lower.as_str()
    } else {
        word
    };
    if !stem {
        return emit(word);
    }
    with_stem(word, emit);
}

/// [`super::split_identifier`] of an ASCII run, as byte ranges into `parts`.
fn split_ascii(run: &str, parts: &mut Vec<(usize, usize)>) {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Upper,
        Lower,
        Digit,
        Other,
    }
    let kind = |c: u8| {
        if c.is_ascii_uppercase() {
            Kind::Upper
        } else if c.is_ascii_lowercase() {
            Kind::Lower
        } else if c.is_ascii_digit() {
            Kind::Digit
        } else {
            Kind::Other
        }
    };
    parts.clear();
    let b = run.as_bytes();
    let mut start: Option<usize> = None;
    for j in 0..b.len() {
        let c = b[j];
        if c == b'_' {
            if let Some(s) = start.take() {
                parts.push((s, j));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(j);
            continue;
        };
        let prev = kind(b[j - 1]);
        let here = kind(c);
        let next = b.get(j + 1).map(|&n| kind(n));
        let boundary = match (prev, here) {
            (Kind::Lower, Kind::Upper) => true,
            (Kind::Upper, Kind::Upper) => next == Some(Kind::Lower),
            (Kind::Digit, Kind::Upper | Kind::Lower | Kind::Other)
            | (Kind::Upper | Kind::Lower | Kind::Other, Kind::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push((s, j));
            start = Some(j);
        }
    }
    if let Some(s) = start {
        parts.push((s, b.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{enhanced_document, reference_document, split_identifier};
    use super::*;
    use crate::tool::ToolMetadata;

    /// Pseudo-random ASCII text rich in what the analyzers treat specially.
    fn texts() -> Vec<String> {
        let pieces = [
            "get",
            "User",
            "HTTPResponse",
            "_",
            "__",
            "x9",
            "9x",
            "base64Encode",
            " ",
            "  ",
            "\t",
            "\n",
            ".",
            "-",
            "/",
            "running",
            "Caresses",
            "ponies",
            "ABC",
            "aB1",
            "Q",
            "1",
            "22",
            "snake_case_name",
            "camelCaseName",
            "getHTTPResponseCode",
            "can",
            "the",
            "\u{b}",
            "\u{1c}",
            "é",
            "天气",
            "ＷＥ",
        ];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut out = vec![String::new(), "aB1".repeat(30), "xY9/".repeat(200)];
        for n in 0..3000 {
            let mut t = String::new();
            for _ in 0..(n % 40) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly ASCII pieces; a few texts get a non-ASCII one (the general path).
                let k = (x % pieces.len() as u64) as usize;
                let k = if n % 10 == 0 {
                    k
                } else {
                    k % (pieces.len() - 3)
                };
                t.push_str(pieces[k]);
            }
            out.push(t);
        }
        out
    }

    fn configs() -> Vec<EnhancedAnalysis> {
        let d = EnhancedAnalysis::default();
        vec![
            d,
            EnhancedAnalysis { stem: false, ..d },
            EnhancedAnalysis {
                split_identifiers: false,
                ..d
            },
            EnhancedAnalysis { nfkc: false, ..d },
        ]
    }

    #[test]
    fn text_tokens_equal_the_general_analyzer() {
        for cfg in configs() {
            for text in texts() {
                let mut got = Vec::new();
                text_each(&text, &cfg, &mut Scratch::default(), &mut |t| {
                    got.push(t.to_string())
                });
                assert_eq!(got, tokenize_enhanced(&text, &cfg), "{text:?}");
            }
        }
        for text in texts().iter().filter(|t| t.is_ascii()) {
            for run in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                let mut parts = Vec::new();
                split_ascii(run, &mut parts);
                let parts: Vec<&str> = parts.iter().map(|&(a, b)| &run[a..b]).collect();
                assert_eq!(parts, split_identifier(run), "{run:?}");
            }
        }
    }

    #[test]
    fn documents_equal_the_general_analyzers() {
        let texts = texts();
        for (i, w) in texts.windows(4).enumerate().step_by(7) {
            let name: String = w[0]
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                .take(60)
                .collect();
            let name = if name.is_empty() {
                format!("t{i}")
            } else {
                name
            };
            let params = serde_json::json!({"type": "object", "properties": {
                "Path_X": {"description": w[1], "enum": [w[2], 3, "plainValue"]},
                "q": {"description": "say \"hi\" now"},
            }});
            let meta = ToolMetadata {
                defer: false,
                tags: vec![w[2].clone(), "read_only".into(), w[3].clone()],
                search_hint: w[3].clone(),
                ..Default::default()
            };
            let ns = (i % 3 == 0).then_some("Ns_x");
            let Ok(tool) = Tool::new(&name, &w[1], Some(params), ns, meta) else {
                continue;
            };
            let mut got: [Vec<String>; 5] = Default::default();
            reference_each(&tool, &mut |f, t| got[f].push(t.to_string()));
            assert_eq!(got, reference_document(&tool), "{name}");
            for cfg in configs() {
                let mut got: [Vec<String>; 6] = Default::default();
                enhanced_each(&tool, &cfg, &mut |f, t| got[f].push(t.to_string()));
                assert_eq!(got, enhanced_document(&tool, &cfg), "{name}");
            }
        }
    }
}
