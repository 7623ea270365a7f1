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

use super::{Dropped, QueryPlan};
use crate::analyzer::{EnhancedAnalysis, enhanced_document, is_function_word};
use crate::tool::Tool;

/// How many of the fused list's best are looked at for phrases.
pub const RERANKED: usize = 30;

/// BM25's term-frequency saturation (the usual k1).
const K1: f64 = 1.2;

/// The query's adjacent word pairs, each with its weight.
pub(crate) struct QueryPairs {
    pairs: Vec<(String, String, f64)>,
}

impl QueryPairs {
    /// The pairs of words next to each other in the query once function words are set aside
    /// (the words the query filter kept, in order), with `doc_count` tools indexed.
    pub(crate) fn new(plan: &QueryPlan, doc_count: usize) -> Self {
        let kept: Vec<_> = plan
            .tokens
            .iter()
            .filter(|t| t.dropped.is_none() || t.dropped == Some(Dropped::Filler))
            .collect();
        let mut pairs: Vec<(String, String, f64)> = Vec::new();
        for w in kept.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a.df == 0 || b.df == 0 || a.token == b.token {
                continue;
            }
            if pairs.iter().any(|(x, y, _)| *x == a.token && *y == b.token) {
                continue;
            }
            let weight = idf(a.df.max(b.df), doc_count);
            pairs.push((a.token.clone(), b.token.clone(), weight));
        }
        QueryPairs { pairs }
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
        let fields = enhanced_document(tool, analysis);
        let mut counts = vec![0u32; self.pairs.len()];
        for field in &fields {
            let mut prev: Option<&str> = None;
            for token in field.iter().map(String::as_str) {
                if is_function_word(token) {
                    continue;
                }
                if let Some(p) = prev {
                    for (i, (a, b, _)) in self.pairs.iter().enumerate() {
                        if a == p && b == token {
                            counts[i] += 1;
                        }
                    }
                }
                prev = Some(token);
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

/// BM25's IDF (Robertson–Spärck Jones, kept positive).
fn idf(df: usize, n: usize) -> f64 {
    let (df, n) = (df as f64, n as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
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
        let pairs = QueryPairs::new(&p, 100);
        assert!(!pairs.is_empty());
        let together = pairs.score(&tool("Text classification of reviews."), &a);
        let apart = pairs.score(&tool("Classification of the text of reviews."), &a);
        let across_a_function_word = pairs.score(&tool("A text for classification."), &a);
        assert!(together > 0.0, "{together}");
        assert_eq!(apart, 0.0, "the pair is ordered");
        assert_eq!(across_a_function_word, together);
        // Weighted by the more common word: a pair of rarer words counts more.
        let rare = QueryPairs::new(&plan(&[("text", 2, None), ("classif", 2, None)]), 100);
        assert!(rare.score(&tool("Text classification."), &a) > together);
        // Saturated: twice the phrase counts more than once, less than twice as much.
        let twice = pairs.score(&tool("Text classification, then text classification."), &a);
        assert!(
            twice > together && twice < 2.0 * together,
            "{twice} {together}"
        );
    }

    #[test]
    fn a_word_in_no_tool_or_a_lone_word_makes_no_pair() {
        let unknown = plan(&[("text", 10, None), ("zzyzx", 0, None)]);
        assert!(QueryPairs::new(&unknown, 100).is_empty());
        assert!(QueryPairs::new(&plan(&[("text", 10, None)]), 100).is_empty());
        let repeated = plan(&[("text", 10, None), ("text", 10, None)]);
        assert!(QueryPairs::new(&repeated, 100).is_empty());
    }
}
