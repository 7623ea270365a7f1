//! Name terms: a tool's name as one term, matched when the query holds every word of it.
//!
//! BM25F scores each word on its own, so `AddMeeting` and `DeleteMeeting` match "delete my
//! meeting" through one name word each, and the one whose description repeats the query's other
//! words wins. A name is what a tool's author chose to say it does, in the fewest words; a query
//! that holds all of them asks for that tool by name. So a name of two or more words is indexed
//! once more as one term of the name field, and a query holding every word of it is scored
//! for that term too: one more matched name word. Its IDF is that of its most common word (the
//! name is at least as specific as that word, as a phrase of `discovery::phrases` is), so no
//! weight is fitted. The term repeats words the name already counts, so it adds nothing to the
//! field's length.
//!
//! A name term's text is its distinct words, sorted, each after a space (a word token holds no
//! space): the same text whatever the order or case of the name's words. To find the terms a
//! query covers without a lookup per subset of its words, each term is listed under one of its
//! words, its anchor (the longest, on ties the last in byte order: long words are the rarer), and
//! the query's words' lists are read, each term checked against the query's words: first by a
//! 64-bit signature of its words (one bit each), which rejects nearly every term the query does
//! not cover in a few instructions, then word by word.

use std::collections::HashMap;

/// The first byte of a name term's text (no word token has one).
const MARK: char = ' ';

/// The name term of `words` (the name's words as analyzed, function words left out): their
/// distinct words sorted, each after a space. `None` under two distinct words: a one-word
/// name is its word.
pub fn name_term<S: AsRef<str>>(words: &[S]) -> Option<String> {
    let mut sorted: Vec<&str> = words
        .iter()
        .map(AsRef::as_ref)
        .filter(|w| !w.is_empty() && !w.contains(MARK))
        .collect();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() < 2 {
        return None;
    }
    let mut term = String::with_capacity(sorted.iter().map(|w| w.len() + 1).sum());
    for w in sorted {
        term.push(MARK);
        term.push_str(w);
    }
    Some(term)
}

/// Whether `term` is a name term (see [`name_term`]).
#[inline]
pub fn is_name_term(term: &str) -> bool {
    term.starts_with(MARK)
}

/// The words of a name term, in its order.
pub(super) fn words(term: &str) -> impl Iterator<Item = &str> {
    term.split(MARK).filter(|w| !w.is_empty())
}

/// The word a name term is listed under.
fn anchor(term: &str) -> &str {
    words(term)
        .max_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)))
        .unwrap_or("")
}

/// One bit for `word`: a word set's signature is the union of its words' bits.
fn bit(word: &str) -> u64 {
    // FNV-1a: fixed, so a signature made when a term is added holds for every later query.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in word.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    1 << (h >> 58)
}

/// The signature of a set of words.
fn signature<'w>(words: impl IntoIterator<Item = &'w str>) -> u64 {
    words.into_iter().fold(0, |sig, w| sig | bit(w))
}

/// The index's name terms by anchor, each with its signature, kept in step with its dictionary.
#[derive(Debug, Clone, Default)]
pub(super) struct NameTerms {
    by_anchor: HashMap<Box<str>, Vec<(u32, u64)>, foldhash::fast::RandomState>,
}

impl NameTerms {
    /// A new term in the dictionary, with id `id`: listed when it is a name term.
    pub(super) fn added(&mut self, term: &str, id: u32) {
        if is_name_term(term) {
            let sig = signature(words(term));
            self.by_anchor
                .entry(anchor(term).into())
                .or_default()
                .push((id, sig));
        }
    }

    /// A term left the dictionary.
    pub(super) fn removed(&mut self, term: &str, id: u32) {
        if !is_name_term(term) {
            return;
        }
        let a = anchor(term);
        if let Some(ids) = self.by_anchor.get_mut(a) {
            ids.retain(|&(i, _)| i != id);
            if ids.is_empty() {
                self.by_anchor.remove(a);
            }
        }
    }

    /// The ids of the name terms every word of which is among `words` (sorted, distinct), read
    /// through `text_of`.
    pub(super) fn covered<'t>(&self, words: &[&str], text_of: impl Fn(u32) -> &'t str) -> Vec<u32> {
        let mut found = Vec::new();
        let query = signature(words.iter().copied());
        for w in words {
            for &(id, sig) in self.by_anchor.get(*w).map_or(&[][..], Vec::as_slice) {
                if sig & !query == 0
                    && self::words(text_of(id)).all(|x| words.binary_search(&x).is_ok())
                {
                    found.push(id);
                }
            }
        }
        found
    }

    /// Whether no name term is listed.
    pub(super) fn is_empty(&self) -> bool {
        self.by_anchor.is_empty()
    }

    /// Bytes held, for the index's statistics.
    pub(super) fn bytes(&self) -> usize {
        self.by_anchor
            .iter()
            .map(|(k, v)| k.len() + v.capacity() * 16 + 40)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_term_is_its_distinct_words_sorted_and_one_word_is_none() {
        assert_eq!(
            name_term(&["meet", "delet"]).as_deref(),
            Some(" delet meet")
        );
        assert_eq!(
            name_term(&["delet", "meet", "delet"]),
            name_term(&["meet", "delet"])
        );
        assert_eq!(name_term(&["weather"]), None);
        assert_eq!(name_term(&["weather", "weather"]), None);
        assert_eq!(name_term::<&str>(&[]), None);
        assert!(is_name_term(" delet meet") && !is_name_term("delet"));
        assert_eq!(words(" delet meet").collect::<Vec<_>>(), ["delet", "meet"]);
        assert_eq!(anchor(" add meet"), "meet");
        assert_eq!(anchor(" get token user"), "token");
    }

    #[test]
    fn a_term_is_covered_only_by_a_query_holding_every_word() {
        let texts = [" delet meet", " add meet", " get token user", "meet"];
        let mut names = NameTerms::default();
        for (id, t) in texts.iter().enumerate() {
            names.added(t, id as u32);
        }
        let text_of = |id: u32| texts[id as usize];
        let mut q = vec!["delet", "meet", "reserv"];
        q.sort_unstable();
        assert_eq!(names.covered(&q, text_of), [0]);
        let mut q = vec!["meet", "add", "delet"];
        q.sort_unstable();
        let mut got = names.covered(&q, text_of);
        got.sort_unstable();
        assert_eq!(got, [0, 1]);
        assert!(names.covered(&["meet"], text_of).is_empty());
        names.removed(" delet meet", 0);
        assert!(names.covered(&["delet", "meet"], text_of).is_empty());
        names.removed(" add meet", 1);
        names.removed(" get token user", 2);
        assert!(names.by_anchor.is_empty());
    }
}
