//! Explain: why a tool ranks where it does for a query, or why it is not in the answer.
//!
//! It runs the same analysis, filter and scoring as a discover (so it can never disagree with
//! one) and then takes the named tool's score apart: per query token its IDF and normalized term
//! frequency, and per field its term frequency and weight. This is what a tool author needs to
//! fix a description or a search hint.

use crate::discovery::hybrid::{CANDIDATES, QueryVector, rank_hybrid};
use crate::discovery::{
    DiscoverRequest, Discoverer, DiscoveryOptions, Dropped, Profile, QueryToken, rank_query,
    score_floor, validate_query,
};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, DocId, Index};
use crate::registry::State;
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
    /// Its inverse document frequency in the catalog alone.
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
    /// The `hybrid` profile's two sides, when it ranked (`tool`'s score, rank and outcome are
    /// then the fused ones; `tool.terms` are the lexical side's).
    pub hybrid: Option<HybridExplanation>,
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
        json!({
            "query": self.query,
            "profile": self.profile.as_str(),
            "hybrid": hybrid,
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
                "terms": terms,
            },
        })
    }
}

// Explaining is a view of a discoverer's search, kept beside the explanation it builds (the
// discoverer itself knows nothing of it).
impl Discoverer {
    /// Explains how `query` ranks the tool `tool_name` with this discoverer's options and
    /// `request.top_k`: the analyzed query tokens and the filter's verdicts, the tool's score
    /// taken apart per token and field, its rank, or why it is not in the answer. An unknown tool
    /// is NOT_FOUND; query and `top_k` are checked as for [`discover`](Self::discover).
    pub fn explain(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<Explanation> {
        let vector =
            crate::discovery::hybrid::query_vector(self.shared(), self.options(), query, None)?;
        let state = self.read()?;
        let mut e = explain(&state, self.options(), query, tool_name, request)?;
        if !matches!(vector, QueryVector::NotNeeded) {
            explain_hybrid(&state, self.options(), query, request, &vector, &mut e)?;
        } else if crate::discovery::hybrid::effective_profile(self.shared(), self.options())?
            == Profile::Hybrid
        {
            // An exact name or `select:` is answered alike by every profile; the explanation
            // still names the one this discoverer ranks with.
            e.profile = Profile::Hybrid;
        }
        Ok(e)
    }

    /// [`explain`](Self::explain), as JSON text.
    pub fn explain_json(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<String> {
        Ok(self.explain(query, tool_name, request)?.to_json())
    }
}

/// Explains how `query` ranks `tool_name` under `options` (see [`crate::Discoverer::explain`]).
pub(crate) fn explain(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    tool_name: &str,
    request: &DiscoverRequest,
) -> Result<Explanation> {
    validate_query(query)?;
    if request.top_k < 1 {
        return Err(Error::invalid("top_k: must be at least 1"));
    }
    let slot = state
        .slot_of(tool_name)
        .ok_or_else(|| Error::not_found(format!("no tool named {tool_name:?} is registered")))?;
    let indexed = state.is_indexed(slot);
    let mut tool = ToolExplanation {
        name: tool_name.to_string(),
        outcome: Outcome::Ranked,
        reason: String::new(),
        indexed,
        score: None,
        rank: None,
        terms: Vec::new(),
    };
    let mut out = Explanation {
        query: query.to_string(),
        profile: options.profile,
        exact_match: None,
        tokens: Vec::new(),
        scored_tokens: Vec::new(),
        analyzed_token_count: 0,
        top_k: request.top_k,
        best_score: None,
        score_floor: None,
        result_count: 0,
        tool: tool.clone(),
        hybrid: None,
    };
    if let Some(exact) = state.exact_match(query) {
        let exact_name = state.tool_at(exact).name().to_string();
        out.result_count = 1;
        out.best_score = Some(1.0);
        if exact == slot {
            tool.outcome = Outcome::ExactMatch;
            tool.reason =
                "the query is this tool's name: it is returned alone with score 1.0 and its schema"
                    .into();
            tool.score = Some(1.0);
            tool.rank = Some(1);
        } else if !indexed {
            tool.outcome = Outcome::Disabled;
            tool.reason = "the tool or its namespace is disabled, so it is not indexed (and the query names another tool exactly)".into();
        } else {
            tool.outcome = Outcome::OtherExactMatch;
            tool.reason =
                format!("the query is the exact name of {exact_name:?}, which is returned alone");
        }
        out.exact_match = Some(exact_name);
        out.tool = tool;
        return Ok(out);
    }
    // The full ranking: every indexed tool fits in a top_k of the index size.
    let everything = state.indexed_count().max(1);
    let ranking = rank_query(state, options, query, everything, 0.0)?;
    out.tokens = ranking.plan.tokens;
    out.analyzed_token_count = ranking.plan.analyzed;
    out.scored_tokens = ranking.plan.scored;
    // The answer, exactly as discover computes it: top_k, positive scores, then the floor.
    let mut answer: Vec<_> = ranking.hits.iter().take(request.top_k).copied().collect();
    answer.retain(|h| h.score > 0.0);
    out.best_score = answer.first().map(|h| h.score);
    out.score_floor = score_floor(options, out.best_score);
    if let Some(floor) = out.score_floor {
        answer.retain(|h| h.score >= floor);
    }
    out.result_count = answer.len();
    if !indexed {
        tool.outcome = Outcome::Disabled;
        tool.reason = "the tool or its namespace is disabled, so it is not indexed".into();
        out.tool = tool;
        return Ok(out);
    }
    tool.terms = match options.profile {
        Profile::Reference => contributions(
            state.index().ok_or_else(|| {
                Error::Internal("the reference index was not built for this registry".into())
            })?,
            &crate::analyzer::REFERENCE_FIELDS,
            &options.bm25(),
            &out.scored_tokens,
            slot,
        ),
        Profile::Enhanced | Profile::Hybrid => {
            let (analysis, index) = state.enhanced().ok_or_else(|| {
                Error::Internal("the enhanced index was not built for this registry".into())
            })?;
            contributions(
                index,
                &crate::analyzer::ENHANCED_FIELDS,
                &options.bm25_enhanced(analysis),
                &out.scored_tokens,
                slot,
            )
        }
    };
    let position = ranking.hits.iter().position(|h| h.doc == slot);
    if out.scored_tokens.is_empty() {
        tool.outcome = Outcome::NoQueryTokens;
        tool.reason =
            "the query filter dropped every token (all filler, none in a tool name): the answer is empty".into();
    } else if let Some(pos) = position {
        let score = ranking.hits[pos].score;
        tool.score = Some(score);
        tool.rank = Some(pos + 1);
        if pos >= request.top_k {
            tool.outcome = Outcome::BelowTopK;
            tool.reason = format!(
                "ranked {} of {} scored tools, below top_k {}",
                pos + 1,
                ranking.hits.len(),
                request.top_k
            );
        } else if answer.iter().any(|h| h.doc == slot) {
            tool.outcome = Outcome::Ranked;
            tool.reason = format!("ranked {} of {} in the answer", pos + 1, answer.len());
        } else {
            tool.outcome = Outcome::BelowScoreFloor;
            tool.reason = match out.score_floor {
                Some(floor) => format!(
                    "score {score:.4} is below the floor {floor:.4} (min_score_ratio {} times the best score {:.4})",
                    options.min_score_ratio,
                    out.best_score.unwrap_or(0.0)
                ),
                None => format!("score {score:.4} is not positive"),
            };
        }
    } else {
        tool.outcome = Outcome::NoCommonToken;
        tool.reason = "the tool shares no scored query token in any field".into();
    }
    out.tool = tool;
    Ok(out)
}

/// Per-token, per-field contributions to `doc`'s score, in query order (each occurrence again).
fn contributions<const F: usize>(
    index: &Index<F>,
    fields: &[&'static str; F],
    params: &Bm25Params<F>,
    tokens: &[String],
    doc: DocId,
) -> Vec<TermContribution> {
    let Some(lengths) = index.doc_lengths(doc) else {
        return Vec::new();
    };
    let scales = index.field_scales(&lengths, params);
    let mut out = Vec::new();
    for token in tokens {
        let Some(posting) = index.posting(token, doc) else {
            continue;
        };
        let df = index.doc_freq(token);
        let idf = index.term_idf(token, df, params);
        let catalog_idf = index.idf(df);
        let tf_norm = index.tf_norm(&posting, &lengths, params);
        let query_weight = params.query_weight(tokens.iter().filter(|t| *t == token).count());
        let score = if params.saturate_query {
            // In the order the search multiplies, so the parts add up to its score.
            idf * query_weight * tf_norm
        } else {
            idf * tf_norm
        };
        let weighted_tf: f64 = params
            .weights
            .iter()
            .zip(posting.tf)
            .map(|(w, tf)| w * f64::from(tf))
            .sum();
        // Shares of the weighted frequency as scored: with per-field normalization, each field's
        // occurrences count by its normalized weight.
        let scored_tf: f64 = scales
            .iter()
            .zip(posting.tf)
            .map(|(s, tf)| s * f64::from(tf))
            .sum();
        let field_list = (0..F)
            .filter(|&f| posting.tf[f] > 0)
            .map(|f| {
                let share = if scored_tf > 0.0 {
                    scales[f] * f64::from(posting.tf[f]) / scored_tf
                } else {
                    0.0
                };
                FieldContribution {
                    field: fields[f],
                    tf: posting.tf[f],
                    weight: params.weights[f],
                    score: score * share,
                }
            })
            .collect();
        out.push(TermContribution {
            token: token.clone(),
            df,
            idf,
            catalog_idf,
            weighted_tf,
            tf_norm,
            query_weight,
            score,
            fields: field_list,
        });
    }
    out
}

/// Replaces the lexical verdict of `e` with the `hybrid` one: the fused score, rank, answer and
/// outcome, with each side's score and rank.
fn explain_hybrid(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
    vector: &QueryVector,
    e: &mut Explanation,
) -> Result<()> {
    e.profile = Profile::Hybrid;
    let slot = state
        .slot_of(&e.tool.name)
        .expect("explained tool is registered");
    let everything = DiscoverRequest {
        top_k: 2 * CANDIDATES,
        ..request.clone()
    };
    let fused = rank_hybrid(state, options, query, vector, &everything, options.fusion)?;
    let mut lex_rank: Vec<_> = fused
        .iter()
        .filter_map(|f| f.lexical.map(|l| (f.doc, l)))
        .collect();
    lex_rank.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut sem_rank: Vec<_> = fused
        .iter()
        .filter(|f| f.semantic)
        .filter_map(|f| f.cosine.map(|c| (f.doc, c)))
        .collect();
    sem_rank.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let pos = fused.iter().position(|f| f.doc == slot);
    let embedded = state
        .vectors()
        .is_some_and(|v| v.state(slot) == crate::embed::store::VectorState::Ready);
    let note = match vector {
        QueryVector::Failed(why) => Some(format!(
            "the embedder failed on the query, so it was ranked by words only: {why}"
        )),
        _ if !embedded && e.tool.indexed => Some(
            "the tool has no vector yet (being embedded, or the embedder failed on it): only its words count".into(),
        ),
        _ => None,
    };
    e.hybrid = Some(HybridExplanation {
        lexical: lex_rank
            .iter()
            .position(|x| x.0 == slot)
            .map(|i| (lex_rank[i].1, i + 1)),
        cosine: sem_rank
            .iter()
            .position(|x| x.0 == slot)
            .map(|i| (sem_rank[i].1, i + 1)),
        fused: pos.map(|i| (fused[i].score, i + 1)),
        phrase: pos.map(|i| fused[i].phrase).filter(|&p| p > 0.0),
        embedded,
        note,
    });
    let mut answer: Vec<_> = fused.iter().take(request.top_k).collect();
    answer.retain(|h| h.score > 0.0);
    e.best_score = answer.first().map(|h| h.score);
    e.score_floor = score_floor(options, e.best_score);
    if let Some(floor) = e.score_floor {
        answer.retain(|h| h.score >= floor);
    }
    e.result_count = answer.len();
    if !e.tool.indexed {
        return Ok(());
    }
    let t = &mut e.tool;
    match pos {
        None => {
            t.score = None;
            t.rank = None;
            t.outcome = Outcome::BelowTopK;
            t.reason = format!(
                "not among the {CANDIDATES} best of either list (words: enhanced BM25F; meaning: cosine)"
            );
        }
        Some(i) => {
            let score = fused[i].score;
            t.score = Some(score);
            t.rank = Some(i + 1);
            if i >= request.top_k {
                t.outcome = Outcome::BelowTopK;
                t.reason = format!(
                    "fused rank {} of {}, below top_k {}",
                    i + 1,
                    fused.len(),
                    request.top_k
                );
            } else if answer.iter().any(|h| h.doc == slot) {
                t.outcome = Outcome::Ranked;
                t.reason = format!("fused rank {} of {} in the answer", i + 1, answer.len());
            } else {
                t.outcome = Outcome::BelowScoreFloor;
                t.reason = format!(
                    "fused score {score:.4} is below the floor {:.4} (min_score_ratio {} times the best {:.4})",
                    e.score_floor.unwrap_or(0.0),
                    options.min_score_ratio,
                    e.best_score.unwrap_or(0.0)
                );
            }
        }
    }
    Ok(())
}
