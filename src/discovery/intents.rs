//! Intents, a step of the plan stage: the needs a query holds, found without a language model.
//!
//! "convert 100 dollars to euros and then tell me the weather in Paris" asks for two tools, and
//! one ranked list of the whole query fills its first places with currency converters. The query
//! is cut into clauses: sentences (`.`, `?` or `!` before a capital, a digit or a quote; `;`),
//! and inside a sentence at the connectives that join requests ("and", "and then", "and also",
//! "then", "also", "additionally", "as well as", "after that", ", plus"). A clause is a need only
//! when it names at least [`MIN_CONTENT_WORDS`] content words (words that are not English
//! function words or numbers): a shorter one is part of its neighbour ("the area of a triangle
//! with base 10 and height 5" stays one clause, as does "Any suggestions?" with nothing to ask).
//! A query with fewer than two needs has none of its own: it is ranked as a whole, exactly as
//! before. At most [`MAX_INTENTS`] needs are kept, the first ones.
//!
//! The work is linear in the query's length whatever it holds (an 18 KB query, a thousand
//! "and"s, only function words): each word is read once and each part analyzed once.

use std::ops::Range;

/// The most needs a query is searched for; the first ones are kept.
pub const MAX_INTENTS: usize = 6;

/// The content words a clause needs to be a need of its own.
pub const MIN_CONTENT_WORDS: usize = 3;

/// The words that join two requests inside a sentence, longest first where one starts another.
const CONNECTIVES: &[&[&str]] = &[
    &["and", "then"],
    &["and", "also"],
    &["as", "well", "as"],
    &["after", "that"],
    &["and"],
    &["then"],
    &["also"],
    &["additionally"],
];

/// A word of the query: its byte range and its lowercase form.
struct Word {
    span: Range<usize>,
    lower: String,
}

/// The needs of `query` as byte ranges into it, in query order: empty when it holds fewer than
/// two. `content_words` counts the content words of a piece of the query (the caller's analyzer).
pub(crate) fn split(query: &str, content_words: impl Fn(&str) -> usize) -> Vec<Range<usize>> {
    let pieces: Vec<Vec<Range<usize>>> = sentences(query)
        .into_iter()
        .map(|sentence| parts(query, sentence))
        .collect();
    if pieces.iter().map(Vec::len).sum::<usize>() < 2 {
        // One piece is one need: nothing to count (most queries).
        return Vec::new();
    }
    let mut clauses: Vec<(Range<usize>, usize)> = Vec::new();
    for sentence in pieces {
        let mut current: Option<(Range<usize>, usize)> = None;
        for part in sentence {
            let count = content_words(&query[part.clone()]);
            current = Some(match current.take() {
                None => (part, count),
                Some((cur, n)) if n >= MIN_CONTENT_WORDS && count >= MIN_CONTENT_WORDS => {
                    clauses.push((cur, n));
                    (part, count)
                }
                Some((cur, n)) => (cur.start..part.end, n + count),
            });
        }
        clauses.extend(current);
    }
    let needs: Vec<Range<usize>> = clauses
        .into_iter()
        .filter(|(_, n)| *n >= MIN_CONTENT_WORDS)
        .map(|(r, _)| trim(query, r))
        .take(MAX_INTENTS)
        .collect();
    if needs.len() < 2 { Vec::new() } else { needs }
}

/// `range` without the spaces and punctuation at its ends that join it to its neighbours.
fn trim(query: &str, range: Range<usize>) -> Range<usize> {
    let text = &query[range.clone()];
    let edge = |c: char| c.is_whitespace() || matches!(c, ',' | ';');
    let start = range.start + (text.len() - text.trim_start_matches(edge).len());
    let end = range.start + text.trim_end_matches(edge).len();
    if start < end { start..end } else { range }
}

/// The sentences of `query`: cut after `.`, `?` or `!` (and any closing quotes or brackets) when
/// blank space and then a capital letter, a digit or an opening quote follow, and after `;`.
fn sentences(query: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = query.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            ';' => Some(i + 1),
            '.' | '?' | '!' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, q)) = chars.peek() {
                    if matches!(q, '"' | '\'' | ')' | ']' | '\u{201d}' | '\u{2019}') {
                        end = j + q.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let rest = &query[end..];
                let after = rest.trim_start();
                let spaced = after.len() < rest.len();
                let starts = after.chars().next().is_some_and(|n| {
                    n.is_uppercase()
                        || n.is_ascii_digit()
                        || matches!(n, '"' | '\'' | '(' | '[' | '\u{201c}')
                });
                (spaced && starts).then_some(end)
            }
            _ => None,
        };
        if let Some(end) = end {
            if end > start {
                out.push(start..end);
            }
            start = end;
        }
    }
    if start < query.len() {
        out.push(start..query.len());
    }
    out
}

/// The parts of `sentence` between its connectives ("plus" is one only after a comma), as byte
/// ranges into `query` (the connectives themselves are in none).
fn parts(query: &str, sentence: Range<usize>) -> Vec<Range<usize>> {
    let words = words(query, sentence.clone());
    let mut out = Vec::new();
    let mut start = sentence.start;
    let mut i = 0;
    while i < words.len() {
        let comma = query[..words[i].span.start].trim_end().ends_with(',');
        let matched = if comma && words[i].lower == "plus" {
            Some(1)
        } else {
            CONNECTIVES
                .iter()
                .find(|c| {
                    c.len() <= words.len() - i
                        && c.iter().zip(&words[i..]).all(|(w, word)| word.lower == *w)
                })
                .map(|c| c.len())
        };
        match matched {
            // A connective ends the part before it; one that opens a sentence only goes.
            Some(n) => {
                let cut = words[i].span.start;
                if query[start..cut].chars().any(char::is_alphanumeric) {
                    out.push(start..cut);
                }
                start = words[i + n - 1].span.end;
                i += n;
            }
            None => i += 1,
        }
    }
    if start < sentence.end {
        out.push(start..sentence.end);
    }
    out
}

/// The words of `range` (runs of letters, digits, `'` and `_`), lowercased.
fn words(query: &str, range: Range<usize>) -> Vec<Word> {
    let mut out = Vec::new();
    let mut begin: Option<usize> = None;
    let text = &query[range.clone()];
    let is_word = |c: char| c.is_alphanumeric() || c == '\'' || c == '_';
    for (i, c) in text.char_indices() {
        match (begin, is_word(c)) {
            (None, true) => begin = Some(i),
            (Some(b), false) => {
                out.push(word(query, range.start + b..range.start + i));
                begin = None;
            }
            _ => {}
        }
    }
    if let Some(b) = begin {
        out.push(word(query, range.start + b..range.end));
    }
    out
}

fn word(query: &str, span: Range<usize>) -> Word {
    Word {
        lower: query[span.clone()].to_lowercase(),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Content words as the plan counts them, near enough for the tests: words of letters that
    /// are not in a short list of function words.
    fn content(text: &str) -> usize {
        const FUNCTION: &[&str] = &[
            "a", "an", "and", "any", "are", "at", "be", "can", "could", "for", "i", "if", "in",
            "is", "it", "me", "my", "of", "on", "some", "that", "the", "then", "to", "what",
            "with", "you",
        ];
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && w.chars().any(char::is_alphabetic))
            .filter(|w| !FUNCTION.contains(&w.to_lowercase().as_str()))
            .count()
    }

    fn needs(query: &str) -> Vec<&str> {
        split(query, content)
            .into_iter()
            .map(|r| &query[r])
            .collect()
    }

    #[test]
    fn two_requests_joined_by_a_connective_are_two_needs() {
        assert_eq!(
            needs("convert 100 dollars to euros and then tell me the weather in Paris"),
            [
                "convert 100 dollars to euros",
                "tell me the weather in Paris"
            ]
        );
        assert_eq!(
            needs("Find flights to Rome, plus book a hotel near the station"),
            ["Find flights to Rome", "book a hotel near the station"]
        );
        assert_eq!(
            needs("Send the quarterly report by email; also archive the old invoices"),
            [
                "Send the quarterly report by email",
                "archive the old invoices"
            ]
        );
    }

    #[test]
    fn sentences_are_needs_and_a_sentence_without_content_is_not() {
        assert_eq!(
            needs(
                "Will it rain in London tomorrow? Also, suggest popular cafes near museums. Any ideas?"
            ),
            [
                "Will it rain in London tomorrow?",
                "suggest popular cafes near museums."
            ]
        );
    }

    #[test]
    fn a_short_part_stays_with_its_neighbour() {
        // "height 5" names one content word: it is an argument of the first request.
        assert!(needs("calculate the area of a triangle with base 10 and height 5").is_empty());
        // Both sides must be needs: "salt and pepper" is one.
        assert!(needs("find a recipe with salt and pepper").is_empty());
        // "also" inside a request is no cut.
        assert!(needs("Could you also recommend songs about rainy days").is_empty());
    }

    #[test]
    fn no_split_without_a_cut() {
        assert!(needs("get the weather forecast for a city").is_empty());
        assert!(needs("weather").is_empty());
        // Abbreviations and decimals do not end a sentence when no capital follows.
        assert!(needs("compute 3.5 times the e.g. standard rate of exchange for euros").is_empty());
    }

    #[test]
    fn at_most_max_intents_needs_the_first_ones() {
        let query = (0..10)
            .map(|i| format!("fetch report number{i} from archive{i} storage"))
            .collect::<Vec<_>>()
            .join(" and then ");
        let got = needs(&query);
        assert_eq!(got.len(), MAX_INTENTS);
        assert_eq!(got[0], "fetch report number0 from archive0 storage");
    }

    #[test]
    fn strange_input_is_cheap_and_splits_nothing() {
        let ands = "and ".repeat(1000);
        assert!(needs(&ands).is_empty());
        let stop = "the of and to with ".repeat(900); // 18 KB of function words
        assert!(needs(&stop).is_empty());
        let counted = std::cell::Cell::new(0usize);
        let big = "find cheap flights to Paris and ".repeat(600); // 19 KB
        let got = split(&big, |t| {
            counted.set(counted.get() + t.len());
            content(t)
        });
        assert_eq!(got.len(), MAX_INTENTS);
        // Each part is analyzed once: no more text than the query itself.
        assert!(
            counted.get() <= big.len(),
            "{} > {}",
            counted.get(),
            big.len()
        );
        assert!(needs(";;;...???!!! , , and ; then").is_empty());
        assert!(needs("").is_empty());
        assert!(needs("天气 查询 and 翻译 英文 文本 then 发送 邮件 通知 同事").len() >= 2);
    }
}
