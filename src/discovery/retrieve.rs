//! Retrieve, the third stage: for the whole query and for each of its needs, the candidates each
//! side finds. By words ([`lexical`](super::lexical)) always; by meaning
//! ([`semantic`](super::semantic)) in `hybrid`. Filters apply here: every list holds admitted
//! tools only.

use super::lexical::{
    QueryPlan, Ranking, rank_query, rank_query_from, score_all_enhanced, score_docs,
};
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
    /// By words. A single-need `enhanced` or `reference` search, and each list of an `enhanced`
    /// merge: its best `top_k` (with the score floor's pruning unless filters apply). In `hybrid`, every admitted tool sharing a scored word, its best [`depth`] first in rank
    /// order and the rest after: the fusion measures the whole list.
    /// In an `enhanced` merge, the first [`ranked`](Self::ranked) are the need's ranking; after
    /// them, best first, the scores it gives the other rankings' candidates (see
    /// [`merge_by_words`]).
    pub lexical: Vec<ScoredDoc>,
    /// How many of `lexical`'s first are its ranking (all but in an `enhanced` merge).
    pub ranked: usize,
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

/// How deep each need of an `enhanced` merge is ranked: as deep as the answer. A merged answer
/// is drawn from the first places of the whole query's and the needs' rankings; measured on the
/// public sets, needs ranked `top_k`, 2 and 10 times `top_k` deep give the same COMP@10 within
/// 0.002, and the shorter lists are cheaper to rank.
fn need_depth(request: &DiscoverRequest) -> usize {
    request.top_k
}

/// Relative slack on the needs' pruning ratio: a tool whose need score ties the whole query's
/// `top_k`-th relative score is still ranked (a ratio of two scores may round either way).
const TIE_SLACK: f64 = 1e-9;

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
    if !search.intents.is_empty() && search.profile != Profile::Hybrid {
        return merge_by_words(state, options, query, search, request);
    }
    let whole = if search.profile == Profile::Hybrid {
        fused_side(state, options, query, &vectors.whole, request)?
    } else {
        ranked(state, options, query, request, request.top_k, reach)?
    };
    let mut intents = Vec::with_capacity(search.intents.len());
    for (i, range) in search.intents.iter().enumerate() {
        let vector = vectors.intents.get(i).unwrap_or(&QueryVector::NotNeeded);
        intents.push(fused_side(
            state,
            options,
            &query[range.clone()],
            vector,
            request,
        )?);
    }
    Ok(Lists { whole, intents })
}

/// The lists of an `enhanced` merge (see [`fuse::merge`](super::fuse::merge)), searched no
/// further than the merged answer can reach. The whole query is ranked as a query of one need is
/// (`top_k` deep, pruned at the score floor `f`): it costs what that costs. Let `t` be the
/// relative score of its `top_k`-th (`f` when it has fewer). Every tool of that list merges to at
/// least its whole-query score, so to `t` or more; any other tool scores at most `t` in the whole
/// query, so it merges above `t`, and can take a place, only through a need's score above `t`
/// (or, with fewer than `top_k` listed, by reaching the floor in a need). So each need is ranked
/// pruned at `max(f, t)`, far harder than at `f`. What the lists then lack is each candidate's
/// score in the rankings that did not list it (the whole query's, for a need's tool; a need's,
/// for the intent a hit answers and its best-tool rule): those few tools are scored exactly.
/// A need's score below `f` of its best still counts as none, as when the needs were pruned at
/// `f`.
fn merge_by_words<'v>(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    search: &Search,
    request: &DiscoverRequest,
) -> Result<Lists<'v>> {
    let floor = options.min_score_ratio;
    let mut whole = ranked(
        state,
        options,
        query,
        request,
        request.top_k,
        Reach::Answer(floor),
    )?;
    let best = whole.lexical.first().map(|h| h.score);
    let kth = request
        .top_k
        .checked_sub(1)
        .and_then(|k| whole.lexical.get(k))
        .map(|h| h.score);
    let reach = match (best, kth) {
        (Some(best), Some(kth)) if best > 0.0 => (kth / best).max(floor),
        _ => floor,
    };
    let need_reach = reach * (1.0 - TIE_SLACK);
    // The whole query's tools are candidates whatever the needs rank: their need scores, looked
    // up first, also bound each need's best and `top_k`-th from below, and prune its search from
    // the start.
    let listed: Vec<DocId> = whole.lexical.iter().map(|h| h.doc).collect();
    let mut intents = Vec::with_capacity(search.intents.len());
    let mut known = Vec::with_capacity(search.intents.len());
    for range in &search.intents {
        let text = &query[range.clone()];
        let (need, scores) = if request.has_filters() {
            let need = ranked(
                state,
                options,
                text,
                request,
                need_depth(request),
                Reach::Answer(need_reach),
            )?;
            (need, Vec::new())
        } else {
            let (ranking, scores) = rank_query_from(
                state,
                options,
                text,
                need_depth(request),
                need_reach,
                &listed,
            )?;
            (retrieved(ranking), scores)
        };
        intents.push(need);
        known.push(scores);
    }
    let mut candidates: Vec<DocId> = std::iter::once(&whole)
        .chain(&intents)
        .flat_map(|list| list.lexical.iter().map(|h| h.doc))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    score_candidates(state, options, &mut whole, &candidates, &[], 0.0)?;
    for (need, scores) in intents.iter_mut().zip(&known) {
        let known: Vec<(DocId, f64)> = listed.iter().copied().zip(scores.iter().copied()).collect();
        score_candidates(state, options, need, &candidates, &known, floor)?;
    }
    Ok(Lists { whole, intents })
}

/// Completes `list` for a merge: its ranking cut to `floor_ratio` of its best (a score below it
/// counts as none), then, best first, the scores it gives the `candidates` (ascending) it does
/// not rank, those below that floor left out. Scores in `known` (by tool) are not looked up again.
fn score_candidates(
    state: &State,
    options: &DiscoveryOptions,
    list: &mut Retrieved<'_>,
    candidates: &[DocId],
    known: &[(DocId, f64)],
    floor_ratio: f64,
) -> Result<()> {
    let Some(best) = list.lexical.first().map(|h| h.score) else {
        // No ranking, no best: the merge reads nothing in it.
        return Ok(());
    };
    let floor = best * floor_ratio;
    list.lexical.retain(|h| h.score >= floor);
    list.ranked = list.lexical.len();
    let mut held: Vec<DocId> = list.lexical.iter().map(|h| h.doc).collect();
    held.sort_unstable();
    let mut extra: Vec<ScoredDoc> = Vec::new();
    let mut missing: Vec<DocId> = Vec::new();
    for &doc in candidates {
        if held.binary_search(&doc).is_ok() {
            continue;
        }
        match known.iter().find(|k| k.0 == doc) {
            Some(&(doc, score)) => extra.push(ScoredDoc { doc, score }),
            None => missing.push(doc),
        }
    }
    let scores = score_docs(state, options, &list.tokens, &missing)?;
    extra.extend(
        missing
            .iter()
            .zip(scores)
            .map(|(&doc, score)| ScoredDoc { doc, score }),
    );
    extra.retain(|h| h.score > 0.0 && h.score >= floor);
    extra.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    list.lexical.extend(extra);
    Ok(())
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
    Ok(retrieved(ranking))
}

/// A need's lists when only words rank it.
fn retrieved<'v>(ranking: Ranking) -> Retrieved<'v> {
    Retrieved {
        tokens: ranking.plan,
        ranked: ranking.hits.len(),
        lexical: ranking.hits,
        semantic: Vec::new(),
        vector: &QueryVector::NotNeeded,
        pairs: QueryPairs::default(),
    }
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
        ranked: lexical.len(),
        lexical,
        semantic: semantic::nearest(state, vector, request, depth(request)),
        vector,
        pairs,
    })
}
