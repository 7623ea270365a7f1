//! Retrieve, the third stage: for the whole query and for each of its needs, the candidates each
//! side finds. By words ([`lexical`](super::lexical)) always; by meaning
//! ([`semantic`](super::semantic)) in `hybrid`. Filters apply here: every list holds admitted
//! tools only.

use super::lexical::{
    QueryPlan, Ranking, Wanted, rank_query, rank_together, score_all_enhanced, score_docs,
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

/// How deep each need of an `enhanced` merge is ranked: its share of the answer, `top_k` over
/// the number of needs, rounded up. The merge draws the answer from the first places of the
/// whole query's and the needs' rankings, and a need's tools past its share would take the
/// places of another need's (the near-duplicates the merge keeps out). Measured on the public
/// sets, needs ranked that deep or `top_k` deep give the same COMP@10 within 0.003 and the same
/// MRR@10 within 0.0001 (EVALUATION.md), and the shorter lists prune harder.
fn need_depth(request: &DiscoverRequest, needs: usize) -> usize {
    request.top_k.div_ceil(needs.max(1))
}

// The whole query and every need are ranked in one walk.
const _: () = assert!(super::intents::MAX_INTENTS < crate::index::MAX_TOGETHER);

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
/// (`top_k` deep, pruned at the score floor `f`). Let `t` be the relative score of its `top_k`-th
/// (`f` when it has fewer). Every tool of that list merges to at least its whole-query score, so
/// to `t` or more; any other tool scores at most `t` in the whole query, so it merges above `t`,
/// and can take a place, only through a need's score above `t` (or, with fewer than `top_k`
/// listed, by reaching the floor in a need). So each need is ranked `top_k` deep pruned at
/// `max(f, t)`, far harder than at `f`. All of them are ranked in one pass over the index, which
/// also gives each listed tool's score in the rankings that did not list it (the whole query's,
/// for a need's tool; a need's, for the intent a hit answers and its best-tool rule). A need's
/// score below `f` of its best counts as none.
fn merge_by_words<'v>(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    search: &Search,
    request: &DiscoverRequest,
) -> Result<Lists<'v>> {
    let floor = options.min_score_ratio;
    if request.has_filters() {
        return merge_filtered(state, options, query, search, request);
    }
    let wanted: Vec<Wanted> = std::iter::once(Wanted {
        text: query,
        top_k: request.top_k,
        floor_ratio: floor,
        follows_first: false,
    })
    .chain(search.intents.iter().map(|range| Wanted {
        text: &query[range.clone()],
        top_k: need_depth(request, search.intents.len()),
        floor_ratio: floor,
        follows_first: true,
    }))
    .collect();
    let (rankings, scores) = rank_together(state, options, &wanted)?;
    let mut lists = rankings.into_iter().map(retrieved);
    let Some(whole) = lists.next() else {
        unreachable!("the whole query is the first ranking");
    };
    let column = |l: usize| -> Vec<(DocId, f64)> { scores.iter().map(|s| (s.0, s.1[l])).collect() };
    let known: Vec<Vec<(DocId, f64)>> = (0..wanted.len()).map(column).collect();
    complete_merge(state, options, request, whole, lists.collect(), &known)
}

/// The lists of a merge made deterministic, then completed: the whole query's ranking cut at the
/// floor `f` and each need's at `max(f, t)` of its best (what a search pruned at that share
/// holds whatever its order of work), then every list given the scores of the tools the others
/// list (from `known`, per list by tool, or looked up), a need's below `f` counting as none.
fn complete_merge<'v>(
    state: &State,
    options: &DiscoveryOptions,
    request: &DiscoverRequest,
    mut whole: Retrieved<'v>,
    mut intents: Vec<Retrieved<'v>>,
    known: &[Vec<(DocId, f64)>],
) -> Result<Lists<'v>> {
    let floor = options.min_score_ratio;
    let reach = reach(&whole, request.top_k, floor) * (1.0 - TIE_SLACK);
    cut(&mut whole, floor);
    for need in &mut intents {
        cut(need, reach);
    }
    let mut candidates: Vec<DocId> = std::iter::once(&whole)
        .chain(&intents)
        .flat_map(|list| list.lexical.iter().map(|h| h.doc))
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let known_of = |l: usize| known.get(l).map_or(&[][..], Vec::as_slice);
    score_candidates(state, options, &mut whole, &candidates, known_of(0), 0.0)?;
    for (i, need) in intents.iter_mut().enumerate() {
        score_candidates(state, options, need, &candidates, known_of(i + 1), floor)?;
    }
    Ok(Lists { whole, intents })
}

/// `t`: the relative score of the whole query's `top_k`-th, or `floor` when it has fewer (or
/// that one is below the floor).
fn reach(whole: &Retrieved<'_>, top_k: usize, floor: f64) -> f64 {
    let best = whole.lexical.first().map(|h| h.score);
    let kth = top_k
        .checked_sub(1)
        .and_then(|k| whole.lexical.get(k))
        .map(|h| h.score);
    match (best, kth) {
        (Some(best), Some(kth)) if best > 0.0 => (kth / best).max(floor),
        _ => floor,
    }
}

/// Cuts a list's ranking to `ratio` of its best.
fn cut(list: &mut Retrieved<'_>, ratio: f64) {
    if let Some(best) = list.lexical.first().map(|h| h.score) {
        list.lexical.retain(|h| h.score >= best * ratio);
        list.ranked = list.lexical.len();
    }
}

/// [`merge_by_words`] when filters apply: each list ranks every matching tool and keeps the
/// admitted ones (no pruning can skip a tool a filter would drop), the needs cut at `max(f, t)`
/// as there, and the candidates' missing scores looked up.
fn merge_filtered<'v>(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    search: &Search,
    request: &DiscoverRequest,
) -> Result<Lists<'v>> {
    let floor = options.min_score_ratio;
    let whole = ranked(
        state,
        options,
        query,
        request,
        request.top_k,
        Reach::Answer(floor),
    )?;
    let reach = reach(&whole, request.top_k, floor);
    let mut intents = Vec::with_capacity(search.intents.len());
    for range in &search.intents {
        intents.push(ranked(
            state,
            options,
            &query[range.clone()],
            request,
            need_depth(request, search.intents.len()),
            Reach::Answer(reach * (1.0 - TIE_SLACK)),
        )?);
    }
    complete_merge(state, options, request, whole, intents, &[])
}

/// Completes `list` for a merge: after its ranking, best first, the scores it gives the
/// `candidates` (ascending) it does not rank, those below `floor_ratio` of its best left out
/// (a score below it counts as none). Scores in `known` (ascending by tool) are not
/// looked up again.
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
    let mut held: Vec<DocId> = list.lexical.iter().map(|h| h.doc).collect();
    held.sort_unstable();
    let mut extra: Vec<ScoredDoc> = Vec::new();
    let mut missing: Vec<DocId> = Vec::new();
    for &doc in candidates {
        if held.binary_search(&doc).is_ok() {
            continue;
        }
        match known.binary_search_by_key(&doc, |k| k.0) {
            Ok(at) => extra.push(ScoredDoc {
                doc,
                score: known[at].1,
            }),
            Err(_) => missing.push(doc),
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
