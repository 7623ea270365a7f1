//! English: the function words and clitics a query drops, and the Snowball stemmer behind a
//! per-thread cache. Lists for other languages would sit beside this file.

use super::is_word_char;
use std::hash::BuildHasher;

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

/// Whether `token` is an English function word ("the", "for", "with"): what the enhanced profile
/// drops from queries, and what phrases skip between two words.
pub(crate) fn is_stopword(token: &str) -> bool {
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

/// Stems by word, with the words (and the stems that are not a prefix of their word) back to
/// back in one string: no allocation per word. Each analyzing thread keeps one, so its size is
/// part of a build's peak memory (about 120 KB for 5,000 words, against 420 KB with a string
/// per word).
#[derive(Default)]
pub(super) struct StemCache {
    text: String,
    table: hashbrown::HashTable<CachedStem>,
    hasher: foldhash::fast::RandomState,
}

/// One cached word: `text[at..at + len]`. Its stem is the word's first `stem_len` bytes when
/// `prefix` (most stems: "forecasts" → "forecast"), else the `stem_len` bytes after the word.
#[derive(Clone, Copy)]
struct CachedStem {
    at: u32,
    len: u8,
    stem_len: u8,
    prefix: bool,
}

impl StemCache {
    #[inline]
    fn word(&self, e: &CachedStem) -> &[u8] {
        &self.text.as_bytes()[e.at as usize..e.at as usize + usize::from(e.len)]
    }

    /// The cached stem of `word`, if any.
    #[inline]
    fn get<'a>(&'a self, word: &'a str) -> Option<&'a str> {
        let e = self.table.find(self.hasher.hash_one(word), |e| {
            self.word(e) == word.as_bytes()
        })?;
        let stem_len = usize::from(e.stem_len);
        Some(if e.prefix {
            &word[..stem_len]
        } else {
            let at = e.at as usize + usize::from(e.len);
            &self.text[at..at + stem_len]
        })
    }

    /// Caches `stem` for `word` (not cached yet); words or stems over 255 bytes are not kept.
    fn insert(&mut self, word: &str, stem: &str) {
        let (Ok(len), Ok(stem_len)) = (u8::try_from(word.len()), u8::try_from(stem.len())) else {
            return;
        };
        if self.table.len() >= STEM_CACHE_WORDS || self.text.len() > u32::MAX as usize - 512 {
            self.clear();
        }
        let at = self.text.len() as u32;
        let prefix = word.starts_with(stem);
        self.text.push_str(word);
        if !prefix {
            self.text.push_str(stem);
        }
        let entry = CachedStem {
            at,
            len,
            stem_len,
            prefix,
        };
        let hash = self.hasher.hash_one(word);
        let (text, hasher) = (&self.text, &self.hasher);
        self.table.insert_unique(hash, entry, |e| {
            hasher.hash_one(&text[e.at as usize..e.at as usize + usize::from(e.len)])
        });
    }

    /// Forgets every word.
    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.text.clear();
    }

    /// Whether `word` is cached.
    #[cfg(test)]
    pub(super) fn contains_key(&self, word: &str) -> bool {
        self.get(word).is_some()
    }
}

/// Most words kept in a thread's stem cache before it starts over.
pub(super) const STEM_CACHE_WORDS: usize = 1 << 16;

/// Calls `f` with the Snowball English stem of the lowercased `word`, through this thread's cache
/// (`f` runs while the cache is borrowed: it must not stem).
pub(super) fn with_stem<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    STEMS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(stem) = cache.get(word) {
            return f(stem);
        }
        let stem = STEMMER.stem(word);
        let result = f(&stem);
        cache.insert(word, &stem);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_stems_equal_the_stemmer_s() {
        STEMS.with(|c| c.borrow_mut().clear());
        let long = "x".repeat(300);
        // Prefix stems, stems that are not a prefix ("happy" → "happi", "dying" → "die"), words
        // whose stem is the word, non-ASCII, and a word too long to be cached.
        let words = [
            "forecasts",
            "happy",
            "dying",
            "generously",
            "skies",
            "run",
            "naïve",
            "données",
            long.as_str(),
        ];
        for round in 0..2 {
            for w in words {
                let direct = STEMMER.stem(w).into_owned();
                assert_eq!(
                    with_stem(w, |s| s.to_string()),
                    direct,
                    "{w}, round {round}"
                );
                assert_eq!(stem_word(w.to_string()), direct, "{w}, round {round}");
            }
        }
        STEMS.with(|c| {
            let c = c.borrow();
            assert!(words[..8].iter().all(|w| c.contains_key(w)));
            assert!(!c.contains_key(&long));
            assert!(
                !c.contains_key("happi"),
                "a stored stem is not a cached word"
            );
        });
        STEMS.with(|c| c.borrow_mut().clear());
        STEMS.with(|c| assert!(!c.borrow().contains_key("happy")));
    }
}
