//! Phrases in `hybrid`: two query words that stand side by side in a tool's text as they do in the
//! query ("text classification", "named entity", "exchange rate").
//!
//! BM25F scores each word on its own, so a tool that has both words apart ranks like one that has
//! the phrase; term proximity is the classic remedy for long natural-language queries (Metzler and
//! Croft's sequential dependence model, Rasolofo and Savoy's BM25 with term proximity). A pair is
//! scored like one more query word: BM25's saturation of its count, times the IDF of the more
//! common of its two words (a phrase is at least as specific as that word, and no pair index is
//! needed to know it). Nothing is fitted: the pair's weight is a word's.
//!
//! Only the fused list's best [`RERANKED`] are looked at, each analyzed again from its text: the
//! index keeps no positions (they would cost more memory than the whole index), and a few dozen
//! analyses cost about a tenth of a millisecond. A hit further down keeps its place, so the first
//! hits of an answer do not depend on `top_k`.

use super::lexical::{Dropped, QueryPlan};
use crate::analyzer::{EnhancedAnalysis, enhanced_document_within, is_stopword};
use crate::index::Index;
use crate::tool::Tool;
use std::collections::HashMap;

/// How many of the fused list's best are looked at for phrases.
pub const RERANKED: usize = 30;

/// How much of each of a tool's text fields is looked at for phrases: every field of a typical
/// tool whole (descriptions run to a few hundred bytes), and a bounded cost per query for a tool
/// of any size (up to [`crate::limits::MAX_TOOL_TEXT_BYTES`]).
pub const FIELD_BYTES: usize = 16 * 1024;

/// BM25's term-frequency saturation (the usual k1).
const K1: f64 = 1.2;

/// The query's adjacent word pairs, each with its weight.
#[derive(Default)]
pub(crate) struct QueryPairs {
    pairs: Vec<(String, String, f64)>,
    /// The pairs by their first word: (second word, index into `pairs`).
    by_first: HashMap<String, Vec<(String, usize)>>,
}

impl QueryPairs {
    /// The pairs of words next to each other in the query once function words are set aside
    /// (the words the query filter kept, in order), weighted by `index`'s IDF.
    pub(crate) fn new<const F: usize>(plan: &QueryPlan, index: &Index<F>) -> Self {
        let kept: Vec<_> = plan
            .tokens
            .iter()
            .filter(|t| t.dropped.is_none() || t.dropped == Some(Dropped::Filler))
            .collect();
        let mut pairs: Vec<(String, String, f64)> = Vec::new();
        let mut by_first: HashMap<String, Vec<(String, usize)>> = HashMap::new();
        for w in kept.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a.df == 0 || b.df == 0 || a.token == b.token {
                continue;
            }
            let seconds = by_first.entry(a.token.clone()).or_default();
            if seconds.iter().any(|(y, _)| *y == b.token) {
                continue;
            }
            seconds.push((b.token.clone(), pairs.len()));
            let weight = index.idf(a.df.max(b.df));
            pairs.push((a.token.clone(), b.token.clone(), weight));
        }
        QueryPairs { pairs, by_first }
    }

    /// Whether the query has any pair to look for.
    pub(crate) fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The phrase score of `tool`: for each query pair, its weight times the saturated count of
    /// the places where its two words follow each other in one field (function words between
    /// them skipped, as in the query).
    pub(crate) fn score(&self, tool: &Tool, analysis: &EnhancedAnalysis) -> f64 {
        if self.pairs.is_empty() {
            return 0.0;
        }
        let fields = enhanced_document_within(tool, analysis, FIELD_BYTES);
        let mut counts = vec![0u32; self.pairs.len()];
        for field in &fields {
            // The pairs whose first word the previous word was: one lookup per word.
            let mut open: Option<&[(String, usize)]> = None;
            for token in field.iter().map(String::as_str) {
                if is_stopword(token) {
                    continue;
                }
                if let Some(seconds) = open {
                    for (b, i) in seconds {
                        if b == token {
                            counts[*i] = counts[*i].saturating_add(1);
                        }
                    }
                }
                open = self.by_first.get(token).map(Vec::as_slice);
            }
        }
        self.pairs
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|((_, _, w), n)| {
                let tf = f64::from(n);
                w * tf * (K1 + 1.0) / (tf + K1)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::QueryToken;

    fn plan(words: &[(&str, usize, Option<Dropped>)]) -> QueryPlan {
        QueryPlan {
            tokens: words
                .iter()
                .map(|&(t, df, dropped)| QueryToken {
                    token: t.into(),
                    df,
                    df_ratio: 0.0,
                    dropped,
                    rescued: false,
                })
                .collect(),
            analyzed: words.len(),
            scored: Vec::new(),
        }
    }

    /// An index of `n` documents: the IDF the pairs are weighted by.
    fn index(n: u32) -> Index<1> {
        let mut index = Index::<1>::new();
        for d in 0..n {
            index.add(d, &[vec![format!("w{d}")]]);
        }
        index
    }

    fn tool(description: &str) -> Tool {
        let json = format!(
            r#"{{"name": "t", "description": {}}}"#,
            serde_json::to_string(description).unwrap()
        );
        Tool::parse_many(&json).unwrap().remove(0)
    }

    #[test]
    fn words_side_by_side_score_and_words_apart_do_not() {
        let a = EnhancedAnalysis::default();
        // "classify the text" analyzed: classifi, (the), text; df of each in 100 tools.
        let p = plan(&[
            ("text", 10, None),
            ("classif", 5, None),
            ("the", 90, Some(Dropped::Stopword)),
        ]);
        let pairs = QueryPairs::new(&p, &index(100));
        assert!(!pairs.is_empty());
        let together = pairs.score(&tool("Text classification of reviews."), &a);
        let apart = pairs.score(&tool("Classification of the text of reviews."), &a);
        let across_a_function_word = pairs.score(&tool("A text for classification."), &a);
        assert!(together > 0.0, "{together}");
        assert_eq!(apart, 0.0, "the pair is ordered");
        assert_eq!(across_a_function_word, together);
        // Weighted by the more common word: a pair of rarer words counts more.
        let rare = QueryPairs::new(
            &plan(&[("text", 2, None), ("classif", 2, None)]),
            &index(100),
        );
        assert!(rare.score(&tool("Text classification."), &a) > together);
        // Saturated: twice the phrase counts more than once, less than twice as much.
        let twice = pairs.score(&tool("Text classification, then text classification."), &a);
        assert!(
            twice > together && twice < 2.0 * together,
            "{twice} {together}"
        );
    }

    #[test]
    fn only_the_first_field_bytes_of_a_huge_text_are_looked_at() {
        let a = EnhancedAnalysis::default();
        let pairs = QueryPairs::new(
            &plan(&[("text", 10, None), ("classif", 5, None)]),
            &index(100),
        );
        let filler = "lorem ipsum ".repeat(FIELD_BYTES / 12 + 1);
        let early = pairs.score(&tool(&format!("Text classification. {filler}")), &a);
        let late = pairs.score(&tool(&format!("{filler} Text classification.")), &a);
        assert!(early > 0.0);
        assert_eq!(late, 0.0);
        // A long query of the same pair over and over is one pair.
        let words: Vec<(&str, usize, Option<Dropped>)> = (0..1000)
            .map(|i| (if i % 2 == 0 { "text" } else { "classif" }, 5, None))
            .collect();
        assert_eq!(QueryPairs::new(&plan(&words), &index(100)).pairs.len(), 2);
    }

    #[test]
    fn a_word_in_no_tool_or_a_lone_word_makes_no_pair() {
        let unknown = plan(&[("text", 10, None), ("zzyzx", 0, None)]);
        assert!(QueryPairs::new(&unknown, &index(100)).is_empty());
        assert!(QueryPairs::new(&plan(&[("text", 10, None)]), &index(100)).is_empty());
        let repeated = plan(&[("text", 10, None), ("text", 10, None)]);
        assert!(QueryPairs::new(&repeated, &index(100)).is_empty());
    }
}
