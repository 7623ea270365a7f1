//! English: the function words and clitics a query drops, and the Snowball stemmer behind a
//! per-thread cache. Lists for other languages would sit beside this file.

use super::is_word_char;

/// English function words: pronouns, auxiliaries, determiners, prepositions, conjunctions and
/// request phrasing. A closed class of the language, not a list learned from any query set; they
/// say nothing about which tool is wanted, yet are rare in tool documentation and so would get a
/// high IDF.
pub const ENGLISH_STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "own",
    "please",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

pub(super) fn is_stopword(token: &str) -> bool {
    ENGLISH_STOPWORDS.binary_search(&token).is_ok()
}

/// The English clitics of `text`, lowercased, in order: a run of one or two letters right after an
/// apostrophe (`'` or `’`) that follows a letter or digit: the `s` of "men's", the `t` of "can't",
/// the `ll` of "we'll". They are function-word fragments, but as tokens of their own they are
/// one-letter words rare in tool text, so BM25 gives them a high IDF ("Who won the Men's
/// Singles" matched whatever tool holds a lone `s`).
pub(super) fn english_clitics(text: &str) -> Vec<String> {
    let mut clitics = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if matches!(c, '\'' | '\u{2019}') && prev.is_some_and(char::is_alphanumeric) {
            let rest = &text[i + c.len_utf8()..];
            let run = rest
                .find(|c: char| !is_word_char(c))
                .map_or(rest, |end| &rest[..end]);
            let letters = run.chars().count();
            if (1..=2).contains(&letters) && run.chars().all(char::is_alphabetic) {
                clitics.push(run.to_lowercase());
            }
        }
        prev = Some(c);
    }
    clitics
}

pub(super) static STEMMER: once_cell::sync::Lazy<rust_stemmers::Stemmer> =
    once_cell::sync::Lazy::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
    });

thread_local! {
    /// Stems of words seen lately on this thread: catalogs and queries repeat their vocabulary,
    /// and a lookup costs a fraction of running the stemmer.
    pub(super) static STEMS: std::cell::RefCell<StemCache> = std::cell::RefCell::new(StemCache::default());
}

/// A cached stem. Most stems are their word or a prefix of it ("forecasts" → "forecast"), kept
/// as a length rather than a second string: each analyzing thread's cache is part of a build's
/// peak memory.
pub(super) enum Stem {
    Prefix(u8),
    Other(Box<str>),
}

pub(super) type StemCache = std::collections::HashMap<Box<str>, Stem, foldhash::fast::RandomState>;

/// Most words kept in a thread's stem cache before it starts over.
pub(super) const STEM_CACHE_WORDS: usize = 1 << 16;

/// Calls `f` with the Snowball English stem of the lowercased `word`, through this thread's cache
/// (`f` runs while the cache is borrowed: it must not stem).
pub(super) fn with_stem<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    STEMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(stem) = cache.get(word) {
            return match stem {
                Stem::Prefix(n) => f(&word[..usize::from(*n)]),
                Stem::Other(stem) => f(stem),
            };
        }
        let stem = STEMMER.stem(word);
        let result = f(&stem);
        if cache.len() >= STEM_CACHE_WORDS {
            cache.clear();
        }
        let entry = match u8::try_from(stem.len()) {
            Ok(n) if word.starts_with(&*stem) => Stem::Prefix(n),
            _ => Stem::Other(stem.into()),
        };
        cache.insert(word.into(), entry);
        result
    })
}

/// The Snowball English stem of a lowercased word.
pub(super) fn stem_word(mut word: String) -> String {
    // A stem that is a prefix of the word takes the word's own buffer: no allocation.
    match with_stem(&word, |stem| {
        if word.starts_with(stem) {
            Ok(stem.len())
        } else {
            Err(stem.to_string())
        }
    }) {
        Ok(n) => {
            word.truncate(n);
            word
        }
        Err(stem) => stem,
    }
}
