//! Lexical retrieval, a step of the retrieve stage: a query's words analyzed, filtered (English
//! function words, words too common in the catalog to tell tools apart) and scored by BM25F
//! ([`crate::index`] does the scoring; this decides which tokens are scored).

use crate::analyzer::{enhanced_each, enhanced_query_tokens_within, tokenize};
use crate::error::Result;
use crate::index::{self, Bm25Params, DocId, Index, ScoredDoc};
use crate::limits::MAX_QUERY_TOKENS;
use crate::registry::State;

use super::{DiscoveryOptions, MIN_DF_FOR_FILTER, Profile};

/// Why the query filter set a token aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// An English function word (enhanced profile only).
    Stopword,
    /// In at least [`MIN_DF_FOR_FILTER`] tools and in at least `max_df_ratio` of them.
    Filler,
}

/// One analyzed query token and what the query filter did with it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryToken {
    /// The token as analyzed (lowercased; stemmed in the enhanced profile).
    pub token: String,
    /// Number of indexed tools containing it in any field.
    pub df: usize,
    /// `df` over the number of indexed tools (0 when there are none).
    pub df_ratio: f64,
    /// Why it is not scored, if it is not.
    pub dropped: Option<Dropped>,
    /// Every token was filler, and this one was kept as the rarest that names some tool.
    pub rescued: bool,
}

/// The analyzed query, the filter's verdicts, and the tokens that are scored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryPlan {
    pub tokens: Vec<QueryToken>,
    /// Tokens the analysis produced; when over [`MAX_QUERY_TOKENS`], only the first
    /// [`MAX_QUERY_TOKENS`] are in `tokens`.
    pub analyzed: usize,
    /// What is scored, in order (duplicates count again).
    pub scored: Vec<String>,
}

/// A query's ranking before the score floor: `plan`, and the best `top_k` documents.
pub(crate) struct Ranking {
    pub plan: QueryPlan,
    pub hits: Vec<crate::index::ScoredDoc>,
}

/// Applies the query filter to analyzed tokens (`(token, is_stopword)`).
///
/// Stopwords go first, unless no other token occurs in any tool. Then, with two or more tokens left and `max_df_ratio` > 0, every token
/// found in at least [`MIN_DF_FOR_FILTER`] tools and in at least that fraction of them is filler;
/// if all are, the rarest one that occurs in some tool's name is kept (first in query order on
/// ties), else nothing. `reanalyze` runs the kept tokens, joined by spaces, through the reference
/// analyzer again, as the reference does (it may bring back CJK bigrams).
fn plan_query<const F: usize>(
    index: &Index<F>,
    max_df_ratio: f64,
    tokens: Vec<(String, bool)>,
    analyzed: usize,
    reanalyze: bool,
) -> QueryPlan {
    let n = index.doc_count();
    let mut plan: Vec<QueryToken> = tokens
        .into_iter()
        .map(|(token, stop)| {
            let df = index.doc_freq(&token);
            QueryToken {
                df_ratio: if n == 0 { 0.0 } else { df as f64 / n as f64 },
                df,
                token,
                dropped: stop.then_some(Dropped::Stopword),
                rescued: false,
            }
        })
        .collect();
    if plan.iter().all(|t| t.dropped.is_some() || t.df == 0) {
        // The other words match no tool, so the function words are all the query has: as when a
        // query is nothing but function words, they are searched rather than answering nothing.
        for t in &mut plan {
            t.dropped = None;
        }
    }
    let candidates: Vec<usize> = (0..plan.len())
        .filter(|&i| plan[i].dropped.is_none())
        .collect();
    if max_df_ratio > 0.0 && candidates.len() >= 2 {
        for &i in &candidates {
            let t = &plan[i];
            if t.df >= MIN_DF_FOR_FILTER && t.df as f64 / n as f64 >= max_df_ratio {
                plan[i].dropped = Some(Dropped::Filler);
            }
        }
        if candidates.iter().all(|&i| plan[i].dropped.is_some()) {
            let mut rarest: Option<(usize, usize)> = None;
            for &i in &candidates {
                if index.name_doc_freq(&plan[i].token) > 0
                    && rarest.is_none_or(|(_, best)| plan[i].df < best)
                {
                    rarest = Some((i, plan[i].df));
                }
            }
            if let Some((i, _)) = rarest {
                plan[i].dropped = None;
                plan[i].rescued = true;
            }
        }
    }
    let kept: Vec<&str> = plan
        .iter()
        .filter(|t| t.dropped.is_none())
        .map(|t| t.token.as_str())
        .collect();
    let scored = if kept.is_empty() {
        Vec::new()
    } else if reanalyze && !kept.iter().all(|t| t.is_ascii()) {
        // ASCII tokens are single lowercase `\w` runs: analyzing them again changes nothing.
        tokenize(&kept.join(" "))
    } else {
        kept.iter().map(|t| t.to_string()).collect()
    };
    QueryPlan {
        tokens: plan,
        analyzed,
        scored,
    }
}

/// Analyzes, filters and scores `query` in `options.profile`, keeping the best `top_k`
/// (before the score floor and the zero-score cut).
///
/// `floor_ratio` > 0 is for a caller that then applies the score floor of that ratio to these
/// hits: documents below it may be left out (see [`Index::search_floored`]). 0 keeps them all.
///
/// Only the first [`MAX_QUERY_TOKENS`] analyzed tokens are used: a query within
/// [`MAX_QUERY_BYTES`] always gets an answer (a pasted log or blob is not a reason to refuse the
/// words around it), and scoring time stays bounded. `QueryPlan::analyzed` says when more were cut.
pub(crate) fn rank_query(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    top_k: usize,
    floor_ratio: f64,
) -> Result<Ranking> {
    let wanted = Wanted {
        text: query,
        top_k,
        floor_ratio,
        follows_first: false,
    };
    let (mut rankings, _) = rank_together(state, options, &[wanted])?;
    Ok(rankings.pop().expect("one ranking for one query"))
}

/// The reference analysis of `query` and the query filter's plan on `index`.
fn reference_plan(index: &Index<5>, options: &DiscoveryOptions, query: &str) -> QueryPlan {
    let mut tokens = tokenize(query);
    let analyzed = tokens.len();
    tokens.truncate(MAX_QUERY_TOKENS);
    let tokens = tokens.into_iter().map(|t| (t, false)).collect();
    // The reference analyzes the kept tokens again (it may bring back CJK bigrams).
    plan_query(index, options.max_df_ratio, tokens, analyzed, true)
}

/// Every tool some ranking of [`rank_together`] lists, ascending, with its score in each ranking.
pub(crate) type ListedScores = Vec<(DocId, Vec<f64>)>;

/// One ranking of [`rank_together`]: its query text, how many best, the share of its best
/// below which it may leave tools out, and whether that share also follows the first
/// ranking's `top_k`-th over its best (see [`Wanted::follows_first`]).
pub(crate) struct Wanted<'q> {
    pub text: &'q str,
    pub top_k: usize,
    pub floor_ratio: f64,
    pub follows_first: bool,
}

/// [`rank_query`] for several queries over one index in one pass (a tool is reached once,
/// however many of them hold its words), each ranked as `rank_query` ranks it at or above its
/// floor. With more than one, every tool some ranking lists comes with its score in each.
pub(crate) fn rank_together(
    state: &State,
    options: &DiscoveryOptions,
    wanted: &[Wanted<'_>],
) -> Result<(Vec<Ranking>, ListedScores)> {
    fn search<const F: usize>(
        index: &Index<F>,
        params: &Bm25Params<F>,
        plans: Vec<QueryPlan>,
        wanted: &[Wanted<'_>],
    ) -> (Vec<Ranking>, ListedScores) {
        let specs: Vec<index::Wanted<'_, String>> = plans
            .iter()
            .zip(wanted)
            .map(|(plan, w)| index::Wanted {
                tokens: &plan.scored,
                top_k: w.top_k,
                floor_ratio: w.floor_ratio,
                follows_first: w.follows_first,
            })
            .collect();
        let found = index.search_together(&specs, params);
        let rankings = plans
            .into_iter()
            .zip(found.hits)
            .map(|(plan, hits)| Ranking { plan, hits })
            .collect();
        (rankings, found.scores)
    }
    match options.profile {
        Profile::Reference => {
            let index = state.reference_index()?;
            let plans = wanted
                .iter()
                .map(|w| reference_plan(index, options, w.text))
                .collect();
            Ok(search(index, &options.bm25(), plans, wanted))
        }
        Profile::Enhanced | Profile::Hybrid => {
            let (analysis, index) = state.enhanced_index()?;
            let params = options.bm25_enhanced(analysis);
            let plans = wanted
                .iter()
                .map(|w| {
                    enhanced_plan(state, options, w.text, options.profile == Profile::Enhanced)
                        .map(|(_, _, plan)| plan)
                })
                .collect::<Result<_>>()?;
            Ok(search(index, &params, plans, wanted))
        }
    }
}

/// The scores [`rank_query`] gives `docs` for a query analyzed into `plan` (0 for a tool it does
/// not reach), bit for bit, in the order of `docs`: for a merge that needs a few tools' scores in
/// a ranking that did not rank them.
pub(crate) fn score_docs(
    state: &State,
    options: &DiscoveryOptions,
    plan: &QueryPlan,
    docs: &[DocId],
) -> Result<Vec<f64>> {
    if plan.scored.is_empty() || docs.is_empty() {
        return Ok(vec![0.0; docs.len()]);
    }
    Ok(match options.profile {
        Profile::Reference => {
            state
                .reference_index()?
                .score_docs(&plan.scored, &options.bm25(), docs)
        }
        Profile::Enhanced | Profile::Hybrid => {
            let (analysis, index) = state.enhanced_index()?;
            index.score_docs(&plan.scored, &options.bm25_enhanced(analysis), docs)
        }
    })
}

/// Whether [`score_docs`] would give each of `docs` a score above 0 (a word of the query in it)
/// in the enhanced index, without scoring: the co-use step's test of whether a partner fits the
/// query (the step never runs with the `reference` profile). The step asks about the same
/// partners query after query: the index keeps their terms ([`Index::reaches_docs_kept`]),
/// made from the tokens each tool was indexed with.
pub(crate) fn reaches_docs(
    state: &State,
    options: &DiscoveryOptions,
    plan: &QueryPlan,
    docs: &[DocId],
) -> Result<Vec<bool>> {
    let (analysis, index) = state.enhanced_index()?;
    let params = options.bm25_enhanced(analysis);
    Ok(
        index.reaches_docs_kept(&plan.scored, &params, docs, |doc, push| {
            enhanced_each(state.tool_at(doc), analysis, &mut |_, t| push(t));
        }),
    )
}

/// The enhanced index, the scoring parameters `options` give it, and the query's plan on it;
/// with `names`, the name terms its scored words hold whole are scored too (the `enhanced`
/// profile's rule: in `hybrid`'s fusion it cost bfcl more than it gained on two other sets,
/// EVALUATION.md).
fn enhanced_plan<'s>(
    state: &'s State,
    options: &DiscoveryOptions,
    query: &str,
    names: bool,
) -> Result<(&'s Index<6>, Bm25Params<6>, QueryPlan)> {
    let (analysis, index) = state.enhanced_index()?;
    let (tokens, analyzed) = enhanced_query_tokens_within(query, analysis, MAX_QUERY_TOKENS);
    let params = options.bm25_enhanced(analysis);
    let mut plan = plan_query(index, options.max_df_ratio, tokens, analyzed, false);
    if names && analysis.name_terms {
        let names = index.name_terms_within(&plan.scored);
        plan.scored.extend(names);
    }
    Ok((index, params, plan))
}

/// `score` over the plan's scored tokens, or nothing when the filter left none.
fn score_plan(plan: &QueryPlan, score: impl FnOnce(&[String]) -> Vec<ScoredDoc>) -> Vec<ScoredDoc> {
    if plan.scored.is_empty() {
        Vec::new()
    } else {
        score(&plan.scored)
    }
}

/// The `enhanced` score of every tool sharing a word with `query` that `keep` keeps, its best
/// `top_k` first in rank order and the rest after ([`Index::score_all`]): what a fusion measures
/// (without name terms, see [`enhanced_plan`]). With them, the query's plan.
pub(crate) fn score_all_enhanced(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    top_k: usize,
    keep: impl Fn(&ScoredDoc) -> bool,
) -> Result<(QueryPlan, Vec<ScoredDoc>)> {
    let (index, params, plan) = enhanced_plan(state, options, query, false)?;
    let hits = score_plan(&plan, |scored| {
        index.score_all(scored, &params, top_k, keep)
    });
    Ok((plan, hits))
}
