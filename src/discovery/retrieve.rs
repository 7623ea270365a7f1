//! Retrieve, the third stage: for the whole query and for each of its needs, the candidates each
//! side finds. By words ([`lexical`](super::lexical)) always; by meaning
//! ([`semantic`](super::semantic)) in `hybrid`. Filters apply here: every list holds admitted
//! tools only.

use super::lexical::{QueryPlan, rank_query, score_all_enhanced};
use super::phrases::QueryPairs;
use super::plan::Search;
use super::semantic::{self, QueryVector, QueryVectors};
use super::{DiscoverRequest, DiscoveryOptions, Profile};
use crate::error::Result;
use crate::index::{DocId, ScoredDoc};
use crate::registry::State;

/// What retrieval found for one need: the whole query, or one of its intents.
pub(crate) struct Retrieved<'v> {
    /// The need's analyzed tokens and the query filter's verdicts.
    pub tokens: QueryPlan,
    /// By words. A single-need `enhanced` or `reference` search: its best `top_k` (with the score
    /// floor's pruning unless filters apply); a need of an `enhanced` merge: its best
    /// [`merge_depth`].
    /// In `hybrid`, every admitted tool sharing a scored word, its best [`depth`] first in rank
    /// order and the rest after: the fusion measures the whole list.
    pub lexical: Vec<ScoredDoc>,
    /// By meaning (`hybrid`): the nearest admitted tools with their cosines, best first.
    pub semantic: Vec<(DocId, f32)>,
    /// The need's vector (`hybrid`), for the cosine of a lexical candidate the nearest left out.
    pub vector: &'v QueryVector,
    /// The need's adjacent word pairs (`hybrid`'s phrases).
    pub pairs: QueryPairs,
}

/// What retrieval found for a search.
pub(crate) struct Lists<'v> {
    /// For the whole query.
    pub whole: Retrieved<'v>,
    /// For each need, in the plan's order (empty when the query is one need).
    pub intents: Vec<Retrieved<'v>>,
}

/// How many of each list's best are fused, at least.
pub const CANDIDATES: usize = 100;

/// How deep each list is ranked: at least [`CANDIDATES`], or `top_k` when more.
pub(crate) fn depth(request: &DiscoverRequest) -> usize {
    CANDIDATES.max(request.top_k)
}

/// How deep each list of an `enhanced` merge is ranked: twice the answer. A merged answer is
/// drawn from the first places of the whole query's and the needs' rankings; measured on the
/// public sets, lists of 2 and 10 times `top_k` give the same COMP@10 within 0.002, and the
/// shorter lists are cheaper to rank.
pub(crate) fn merge_depth(request: &DiscoverRequest) -> usize {
    2 * request.top_k
}

/// How far a single-need search by words alone (`enhanced`, `reference`) is ranked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reach {
    /// The answer's `top_k`; the search may leave out what the score floor of this ratio of the
    /// best would drop (0 keeps all).
    Answer(f64),
    /// Every tool sharing a scored word (explain: a tool's place below the answer).
    Everything,
}

/// Retrieves the lists `search` fuses. Lists that a fusion or a merge measures are ranked
/// [`depth`] deep whatever `reach` says: explain sees what discover fuses.
pub(crate) fn retrieve<'v>(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    search: &Search,
    vectors: &'v QueryVectors,
    request: &DiscoverRequest,
    reach: Reach,
) -> Result<Lists<'v>> {
    let several = !search.intents.is_empty();
    // A list by words alone: `top_k` deep for a query of one need; `merge_depth` deep for a merge
    // (which reads scores relative to each list's best, exact in a pruned search). A need's list
    // may leave out what falls below the score floor (it cannot pass the floor through that need);
    // the whole query's only below half of it, as its score weighs in every merged score (measured:
    // the same COMP@10 and MRR@10 on the public sets as unpruned lists, about a fifth cheaper).
    let by_words = |text: &str, floor: f64| {
        if several {
            ranked(
                state,
                options,
                text,
                request,
                merge_depth(request),
                Reach::Answer(floor),
            )
        } else {
            ranked(state, options, text, request, request.top_k, reach)
        }
    };
    let whole = if search.profile == Profile::Hybrid {
        fused_side(state, options, query, &vectors.whole, request)?
    } else {
        by_words(query, options.min_score_ratio / 2.0)?
    };
    let mut intents = Vec::with_capacity(search.intents.len());
    for (i, range) in search.intents.iter().enumerate() {
        let text = &query[range.clone()];
        intents.push(if search.profile == Profile::Hybrid {
            let vector = vectors.intents.get(i).unwrap_or(&QueryVector::NotNeeded);
            fused_side(state, options, text, vector, request)?
        } else {
            by_words(text, options.min_score_ratio)?
        });
    }
    Ok(Lists { whole, intents })
}

/// A lexical search: the best admitted tools as the profile ranks them, `k` of them or all
/// (`reach`).
fn ranked<'v>(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
    k: usize,
    reach: Reach,
) -> Result<Retrieved<'v>> {
    let ranking = match reach {
        Reach::Answer(floor_ratio) if !request.has_filters() => {
            rank_query(state, options, query, k, floor_ratio)?
        }
        _ => {
            // Rank every matching tool, keep the admitted ones, then cut: the filter comes
            // first. No floor here: it is taken over the admitted tools only.
            let everything = state.indexed_count().max(1);
            let mut ranking = rank_query(state, options, query, everything, 0.0)?;
            ranking
                .hits
                .retain(|h| request.admits(state.tool_at(h.doc)));
            if reach != Reach::Everything {
                ranking.hits.truncate(k);
            }
            ranking
        }
    };
    Ok(Retrieved {
        tokens: ranking.plan,
        lexical: ranking.hits,
        semantic: Vec::new(),
        vector: &QueryVector::NotNeeded,
        pairs: QueryPairs::default(),
    })
}

/// A list that a fusion measures whole: every admitted tool sharing a word with `text` (the
/// `enhanced` analysis, whatever the profile's name), and in `hybrid` the nearest by `vector`.
fn fused_side<'v>(
    state: &State,
    options: &DiscoveryOptions,
    text: &str,
    vector: &'v QueryVector,
    request: &DiscoverRequest,
) -> Result<Retrieved<'v>> {
    let lexical_options = DiscoveryOptions {
        profile: Profile::Enhanced,
        profile_named: true,
        ..*options
    };
    let (tokens, lexical) =
        score_all_enhanced(state, &lexical_options, text, depth(request), |h| {
            h.score > 0.0 && request.admits(state.tool_at(h.doc))
        })?;
    let pairs = state
        .enhanced()
        .map(|(_, index)| QueryPairs::new(&tokens, index))
        .unwrap_or_default();
    Ok(Retrieved {
        tokens,
        lexical,
        semantic: semantic::nearest(state, vector, request, depth(request)),
        vector,
        pairs,
    })
}
