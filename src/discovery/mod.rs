//! Discovery: the exact-name shortcut, the query filter and ranking, over a registry's live state.
//!
//! The scoring itself lives in [`crate::index`]; this module decides which tokens are scored
//! (`rank_query`). `options` holds how to rank and what to ask (parsed from JSON), `answer`
//! turns scored documents into [`Hit`]s and JSON answers.

mod answer;
pub mod hybrid;
pub(crate) mod options;
mod phrases;

pub use answer::{Hit, SELECT_PREFIX, hits_to_json, select_names};
pub(crate) use answer::{discover, discover_json};
pub use options::*;

use crate::analyzer::{enhanced_query_tokens_within, tokenize};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, Index, ScoredDoc};
use crate::limits::{MAX_QUERY_BYTES, MAX_QUERY_TOKENS};
use crate::registry::{Registry, Shared, State};
use std::sync::Arc;

// Searching a registry is discovery's business; the registry only keeps the options.
impl Registry {
    /// Discovers with the options given to [`enable_discovery`](Registry::enable_discovery).
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        let options = enabled(&*self.shared().read()?)?;
        let vector = hybrid::query_vector(self.shared(), &options, query, given(request))?;
        let state = self.shared().read()?;
        discover(&state, &options, query, request, &vector)
    }

    /// Discovers and answers in JSON with the options given to discovery (what `discover_tools`
    /// runs).
    pub fn discover_json(&self, query: &str, request: &DiscoverRequest) -> Result<String> {
        let options = enabled(&*self.shared().read()?)?;
        let vector = hybrid::query_vector(self.shared(), &options, query, given(request))?;
        let state = self.shared().read()?;
        discover_json(&state, &options, query, request, &vector)
    }

    /// [`discoverer`](Self::discoverer), refusing options that name `hybrid` on a registry
    /// without an embedder.
    pub fn try_discoverer(&self, options: DiscoveryOptions) -> Result<Discoverer> {
        hybrid::effective_profile(self.shared(), &options)?;
        Ok(self.discoverer(options))
    }

    /// A standalone discoverer with its own options that follows this registry's changes.
    pub fn discoverer(&self, options: DiscoveryOptions) -> Discoverer {
        Discoverer::new(Arc::clone(self.shared()), options)
    }
}

/// The query vector a request carries.
fn given(request: &DiscoverRequest) -> Option<&[f32]> {
    request.query_vector.as_ref().map(|q| &q.0[..])
}

/// The options `discover_tools` runs with, or NOT_FOUND when discovery is off.
fn enabled(state: &State) -> Result<DiscoveryOptions> {
    state.discovery().ok_or_else(|| {
        Error::not_found("discover_tools: discovery is not enabled on this registry")
    })
}

/// A search handle with its own options over a registry's live state.
///
/// It follows every change to the registry by itself (the index is shared and kept in step), and
/// it keeps the registry state alive, so it may outlive the [`Registry`] handle.
/// `Send + Sync`: discovers from many threads run in parallel.
#[derive(Debug, Clone)]
pub struct Discoverer {
    shared: crate::registry::Handle,
    options: DiscoveryOptions,
}

impl Discoverer {
    pub(crate) fn new(shared: Arc<Shared>, options: DiscoveryOptions) -> Self {
        // The first user of a profile builds its index; from then on mutations keep it in step.
        // A poisoned lock is reported by the first discover instead.
        if let Ok(mut state) = shared.write() {
            state.ensure_index(options.profile.lexical());
        }
        Discoverer {
            shared: crate::registry::Handle::new(shared),
            options,
        }
    }

    /// The options this discoverer ranks with.
    pub fn options(&self) -> &DiscoveryOptions {
        &self.options
    }

    /// Finds tools by exact name or natural-language query.
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        let vector = hybrid::query_vector(&self.shared, &self.options, query, given(request))?;
        let state = self.shared.read()?;
        discover(&state, &self.options, query, request, &vector)
    }

    /// [`discover`](Self::discover), answered as JSON text.
    pub fn discover_json(&self, query: &str, request: &DiscoverRequest) -> Result<String> {
        let vector = hybrid::query_vector(&self.shared, &self.options, query, given(request))?;
        let state = self.shared.read()?;
        discover_json(&state, &self.options, query, request, &vector)
    }

    /// The profile this discoverer ranks with now: its options' profile, or `hybrid` when they
    /// name none and the registry has an embedder. An error when they name `hybrid` and the
    /// registry has no embedder.
    pub fn profile(&self) -> Result<Profile> {
        hybrid::effective_profile(&self.shared, &self.options)
    }

    /// The registry state's lock, for callers that embed before they read (explain).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The registry state, read-locked, for the searches of this discoverer (and its explain).
    pub(crate) fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, State>> {
        self.shared.read()
    }

    /// Rebuilds the shared index from the registry. Never needed (upkeep is incremental) and
    /// changes nothing observable; kept for callers of the reference's API.
    pub fn rebuild_index(&self) -> Result<()> {
        self.shared.write()?.rebuild_index();
        Ok(())
    }
}

/// Checks a query: non-empty, not only whitespace, within the size limit.
pub fn validate_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::invalid(
            "query: empty; pass a tool name or a capability keyword such as \"web search\"",
        ));
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::TooLarge(format!(
            "query: {} bytes; the limit is {MAX_QUERY_BYTES}",
            query.len()
        )));
    }
    Ok(())
}

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
    match options.profile {
        Profile::Reference => {
            let mut tokens = tokenize(query);
            let analyzed = tokens.len();
            tokens.truncate(MAX_QUERY_TOKENS);
            let tokens = tokens.into_iter().map(|t| (t, false)).collect();
            let params = options.bm25();
            let index = state.index().ok_or_else(|| {
                Error::Internal("the reference index was not built for this registry".into())
            })?;
            // The reference analyzes the kept tokens again (it may bring back CJK bigrams).
            let plan = plan_query(index, options.max_df_ratio, tokens, analyzed, true);
            let hits = score_plan(&plan, |scored| {
                index.search_floored(scored, &params, top_k, floor_ratio)
            });
            Ok(Ranking { plan, hits })
        }
        Profile::Enhanced | Profile::Hybrid => {
            let (index, params, plan) = enhanced_plan(state, options, query)?;
            let hits = score_plan(&plan, |scored| {
                index.search_floored(scored, &params, top_k, floor_ratio)
            });
            Ok(Ranking { plan, hits })
        }
    }
}

/// The enhanced index, the scoring parameters `options` give it, and the query's plan on it.
fn enhanced_plan<'s>(
    state: &'s State,
    options: &DiscoveryOptions,
    query: &str,
) -> Result<(&'s Index<6>, Bm25Params<6>, QueryPlan)> {
    let (analysis, index) = state.enhanced().ok_or_else(|| {
        Error::Internal("the enhanced index was not built for this registry".into())
    })?;
    let (tokens, analyzed) = enhanced_query_tokens_within(query, analysis, MAX_QUERY_TOKENS);
    let params = options.bm25_enhanced(analysis);
    let plan = plan_query(index, options.max_df_ratio, tokens, analyzed, false);
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
/// `top_k` first in rank order and the rest after ([`Index::score_all`]): what `hybrid` fuses.
/// With them, the query's adjacent word pairs, for the phrases `hybrid` looks for.
pub(crate) fn score_all_enhanced(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    top_k: usize,
    keep: impl Fn(&ScoredDoc) -> bool,
) -> Result<(Vec<ScoredDoc>, phrases::QueryPairs)> {
    let (index, params, plan) = enhanced_plan(state, options, query)?;
    let hits = score_plan(&plan, |scored| {
        index.score_all(scored, &params, top_k, keep)
    });
    Ok((hits, phrases::QueryPairs::new(&plan, index)))
}

/// The relative score floor: `min_score_ratio` times the best score, or `None` when disabled.
pub(crate) fn score_floor(options: &DiscoveryOptions, best: Option<f64>) -> Option<f64> {
    match best {
        Some(best) if options.min_score_ratio > 0.0 => Some(best * options.min_score_ratio),
        _ => None,
    }
}
