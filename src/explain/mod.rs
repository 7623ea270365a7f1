//! Explain: why a tool ranks where it does for a query, or why it is not in the answer.
//!
//! It runs the same analysis, filter, scoring and co-use step as a discover (so it can never
//! disagree with one; a tool brought in by co-use says by which hit and how often they were used
//! together) and then takes the named tool's score apart: per query token its IDF and normalized term
//! frequency, and per field its term frequency and weight. This is what a tool author needs to
//! fix a description or a search hint.

mod search;

use crate::discovery::{Dropped, Profile, QueryToken};
use serde_json::{Value, json};

/// Where the named tool ended up, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// In the answer, at [`ToolExplanation::rank`].
    Ranked,
    /// The query is this tool's exact name: it is the whole answer, with score 1.0.
    ExactMatch,
    /// The query is the exact name of another tool, so that tool alone is the answer.
    OtherExactMatch,
    /// The tool (or its namespace) is disabled, so it is not indexed.
    Disabled,
    /// The query filter left no token to score, so the answer is empty.
    NoQueryTokens,
    /// The tool shares no scored token with the query.
    NoCommonToken,
    /// It scored, but more than `top_k` tools scored higher or tied earlier.
    BelowTopK,
    /// It is within `top_k` but scores below `min_score_ratio` times the best score.
    BelowScoreFloor,
}

impl Outcome {
    /// The outcome's name in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ranked => "ranked",
            Outcome::ExactMatch => "exact_match",
            Outcome::OtherExactMatch => "other_exact_match",
            Outcome::Disabled => "disabled",
            Outcome::NoQueryTokens => "no_query_tokens",
            Outcome::NoCommonToken => "no_common_token",
            Outcome::BelowTopK => "below_top_k",
            Outcome::BelowScoreFloor => "below_score_floor",
        }
    }
}

/// One field's share of a token's contribution.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldContribution {
    /// Field name (`name`, `description`, ...).
    pub field: &'static str,
    /// Occurrences of the token in this field of the tool.
    pub tf: u32,
    /// The field's weight.
    pub weight: f64,
    /// The token's contribution times this field's share of the weighted term frequency.
    pub score: f64,
}

/// One scored query token's contribution to the tool's score.
#[derive(Debug, Clone, PartialEq)]
pub struct TermContribution {
    /// The token.
    pub token: String,
    /// Tools containing it.
    pub df: usize,
    /// The inverse document frequency it is scored with: `catalog_idf`, or less where the
    /// enhanced profile's background model discounts a word more common in general English than
    /// in the catalog (see [`crate::index::Index::term_idf`]).
    pub idf: f64,
    /// Its inverse document frequency in the catalog alone (for a name term, `idf`: it weighs as
    /// its most common word).
    pub catalog_idf: f64,
    /// Σ weight·tf over the tool's fields.
    pub weighted_tf: f64,
    /// The BM25(+) normalized frequency, delta included.
    pub tf_norm: f64,
    /// 1, unless the token repeats in the query and the profile saturates repeats (enhanced):
    /// then `(k1 + 1) / (n + k1)` for a token given `n` times, so its `n` rows add up to
    /// `n * (k1 + 1) / (n + k1)` times one occurrence.
    pub query_weight: f64,
    /// `idf * query_weight * tf_norm`: what this token adds to the score.
    pub score: f64,
    /// The fields the token occurs in.
    pub fields: Vec<FieldContribution>,
}

/// The named tool's side of an explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExplanation {
    /// The tool.
    pub name: String,
    /// Where it ended up.
    pub outcome: Outcome,
    /// A sentence saying why.
    pub reason: String,
    /// Whether it is in the index (it is when enabled).
    pub indexed: bool,
    /// Its score (1.0 for an exact match), when it scored.
    pub score: Option<f64>,
    /// Its position in the full ranking, 1-based, when it scored (may exceed `top_k`).
    pub rank: Option<usize>,
    /// Contributions of the scored tokens it contains, in query order.
    pub terms: Vec<TermContribution>,
    /// The need of the query it answers, when the query holds several and a need's ranking
    /// holds it (the one that scores it best relative to its own best).
    pub intent: Option<String>,
    /// Why co-use brought it into the answer, when it did ("used with `X` in 12 of its 15
    /// tasks"; see [`crate::discovery::usage`]).
    pub brought_in: Option<String>,
}

/// One need of a query that holds several, and how its own ranking placed the named tool.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentExplanation {
    /// The need, as the query words it.
    pub text: String,
    /// The tool's score in the need's ranking relative to that ranking's best (1 for the best),
    /// and its rank there, when the need's ranking holds it.
    pub rank: Option<(f64, usize)>,
}

/// Why a query ranks a tool as it does. See [`crate::Discoverer::explain`].
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The query as given.
    pub query: String,
    /// The profile that ranked it.
    pub profile: Profile,
    /// The tool the query names exactly, if any (then no ranking happens).
    pub exact_match: Option<String>,
    /// Analyzed query tokens with the filter's verdicts.
    pub tokens: Vec<QueryToken>,
    /// The tokens that were scored.
    pub scored_tokens: Vec<String>,
    /// Tokens the analysis produced. Over [`MAX_QUERY_TOKENS`](crate::limits::MAX_QUERY_TOKENS),
    /// only the first that many are used (and listed in `tokens`); the rest are ignored.
    pub analyzed_token_count: usize,
    /// `top_k` of the request.
    pub top_k: usize,
    /// The best score in the answer.
    pub best_score: Option<f64>,
    /// The score floor (`min_score_ratio` × best), when enabled and something scored.
    pub score_floor: Option<f64>,
    /// Number of tools in the answer.
    pub result_count: usize,
    /// The named tool.
    pub tool: ToolExplanation,
    /// The `hybrid` profile's two sides for the whole query, when it ranked (`tool`'s score, rank
    /// and outcome are then the fused ones; `tool.terms` are the lexical side's).
    pub hybrid: Option<HybridExplanation>,
    /// The query's needs, when it holds several (then `tool`'s score and rank are the merged
    /// ones: see `src/discovery/fuse.rs`); empty otherwise.
    pub intents: Vec<IntentExplanation>,
}

/// How the `hybrid` profile ranked the named tool: each side, and the fusion.
#[derive(Debug, Clone, PartialEq)]
pub struct HybridExplanation {
    /// The tool's `enhanced` (lexical) score and rank, when among that list's candidates.
    pub lexical: Option<(f64, usize)>,
    /// The cosine of the tool's and the query's vectors and the rank by it, when among that
    /// list's candidates.
    pub cosine: Option<(f32, usize)>,
    /// The tool's fused score and rank, when in either list.
    pub fused: Option<(f64, usize)>,
    /// What the query's phrases in the tool's text added to its words score, when any
    /// (`src/discovery/phrases.rs`).
    pub phrase: Option<f64>,
    /// Whether the tool has its vector (false: not embedded yet, or the embedder failed).
    pub embedded: bool,
    /// Why there is no semantic side, when there is none (the embedder failed on the query).
    pub note: Option<String>,
}

impl Explanation {
    /// When the query had more tokens than the limit: a sentence saying which were used.
    pub fn truncation_note(&self) -> Option<String> {
        let limit = crate::limits::MAX_QUERY_TOKENS;
        (self.analyzed_token_count > limit).then(|| {
            format!(
                "the query has {} tokens after analysis; only the first {limit} were used",
                self.analyzed_token_count
            )
        })
    }

    /// The explanation as JSON text (see `tr_discoverer_explain` for the shape).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The explanation as a JSON value.
    pub fn to_value(&self) -> Value {
        let tokens: Vec<Value> = self
            .tokens
            .iter()
            .map(|t| {
                let (kept, reason) = match t.dropped {
                    None if t.rescued => (
                        true,
                        Some(format!(
                            "every token was filler; kept as the rarest one that occurs in a tool name (in {} tools)",
                            t.df
                        )),
                    ),
                    None => (true, None),
                    Some(Dropped::Stopword) => (
                        false,
                        Some("stopword: an English function word, dropped from queries by the enhanced profile".to_string()),
                    ),
                    Some(Dropped::Filler) => (
                        false,
                        Some(format!(
                            "filler: in {} tools ({:.1}% of them), at or above max_df_ratio",
                            t.df,
                            100.0 * t.df_ratio
                        )),
                    ),
                };
                json!({
                    "token": t.token,
                    "df": t.df,
                    "df_ratio": t.df_ratio,
                    "kept": kept,
                    "reason": reason,
                })
            })
            .collect();
        let terms: Vec<Value> = self
            .tool
            .terms
            .iter()
            .map(|t| {
                json!({
                    "token": t.token,
                    "df": t.df,
                    "idf": t.idf,
                    "catalog_idf": t.catalog_idf,
                    "weighted_tf": t.weighted_tf,
                    "tf_norm": t.tf_norm,
                    "query_weight": t.query_weight,
                    "score": t.score,
                    "fields": t.fields.iter().map(|f| json!({
                        "field": f.field, "tf": f.tf, "weight": f.weight, "score": f.score,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let hybrid = self.hybrid.as_ref().map(|h| {
            json!({
                "lexical_score": h.lexical.map(|l| l.0),
                "lexical_rank": h.lexical.map(|l| l.1),
                "cosine": h.cosine.map(|c| c.0),
                "semantic_rank": h.cosine.map(|c| c.1),
                "fused_score": h.fused.map(|f| f.0),
                "fused_rank": h.fused.map(|f| f.1),
                "phrase_score": h.phrase,
                "embedded": h.embedded,
                "note": h.note,
            })
        });
        let intents: Vec<Value> = self
            .intents
            .iter()
            .map(|i| {
                json!({
                    "text": i.text,
                    "relative_score": i.rank.map(|r| r.0),
                    "rank": i.rank.map(|r| r.1),
                })
            })
            .collect();
        json!({
            "query": self.query,
            "profile": self.profile.as_str(),
            "hybrid": hybrid,
            "intents": intents,
            "exact_match": self.exact_match,
            "tokens": tokens,
            "scored_tokens": self.scored_tokens,
            "analyzed_token_count": self.analyzed_token_count,
            "truncated": self.truncation_note(),
            "top_k": self.top_k,
            "best_score": self.best_score,
            "score_floor": self.score_floor,
            "result_count": self.result_count,
            "tool": {
                "name": self.tool.name,
                "outcome": self.tool.outcome.as_str(),
                "reason": self.tool.reason,
                "indexed": self.tool.indexed,
                "score": self.tool.score,
                "rank": self.tool.rank,
                "intent": self.tool.intent,
                "brought_in": self.tool.brought_in,
                "terms": terms,
            },
        })
    }
}
